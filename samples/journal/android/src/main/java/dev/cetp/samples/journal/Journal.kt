// The app's own data layer, as any Room app has it: the CETP tools read this database through
// Android's SQLite (src/entries.rs), and nothing here knows about them.
package dev.cetp.samples.journal

import android.content.Context
import androidx.room.*
import androidx.room.migration.Migration
import androidx.sqlite.db.SupportSQLiteDatabase
import org.json.JSONArray

enum class Mood { GREAT, GOOD, OKAY, BAD } // stored as TEXT, by name (Room's default)

@Entity(tableName = "entry")
data class Entry(
    @PrimaryKey(autoGenerate = true) val id: Long = 0,
    val title: String,
    val body: String,
    val mood: Mood,
    @ColumnInfo(name = "created_at") val createdAt: Long, // epoch milliseconds
    @ColumnInfo(defaultValue = "[]") val tags: List<String> = emptyList(), // JSON array, version 2
)

class Converters {
    @TypeConverter fun tagsToJson(tags: List<String>): String = JSONArray(tags).toString()
    @TypeConverter fun jsonToTags(json: String): List<String> =
        JSONArray(json).let { a -> List(a.length()) { a.getString(it) } }
}

@Dao
interface EntryDao {
    @Insert fun insert(entry: Entry): Long
}

@Database(entities = [Entry::class], version = 2)
@TypeConverters(Converters::class)
abstract class Journal : RoomDatabase() {
    abstract fun entries(): EntryDao

    companion object {
        val MIGRATION_1_2 = object : Migration(1, 2) {
            override fun migrate(db: SupportSQLiteDatabase) =
                db.execSQL("ALTER TABLE entry ADD COLUMN tags TEXT NOT NULL DEFAULT '[]'")
        }

        // "journal.db" is the name the tools open (src/entries.rs, DATABASE).
        fun open(context: Context): Journal =
            Room.databaseBuilder(context, Journal::class.java, "journal.db")
                .addMigrations(MIGRATION_1_2).build()
    }
}
