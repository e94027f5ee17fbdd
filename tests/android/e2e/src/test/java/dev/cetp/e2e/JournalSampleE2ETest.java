package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import android.content.ContentValues;
import android.content.Context;
import android.database.sqlite.SQLiteDatabase;
import android.database.sqlite.SQLiteOpenHelper;
import dev.cetp.e2e.category.JournalBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ToolReply;
import dev.cetp.testkit.V2Reply;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;

/**
 * The journal sample ({@code samples/journal}) on Robolectric's SQLite: the app writes its
 * database through the framework ({@link Journal}, a {@code SQLiteOpenHelper} with the schema
 * and migration of the sample's Room code), and an agent reads it over CETP v1, v2 and Apex
 * through the tools, which read the same file through the same SQLite ({@code
 * AppDatabase::android}, the template's {@code CetpAppDatabase}). Runs in {@code
 * bundle-journal}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(JournalBundle.class)
public class JournalSampleE2ETest {
  static final int AGENT_UID = 10_123;
  static final String AGENT = "com.example.agent";
  static final byte[] AGENT_CERT = "agent-signing-cert".getBytes(StandardCharsets.UTF_8);

  /** 2025-03-04T18:30:00Z and one day, in milliseconds. */
  static final long MARCH_4 = 1_741_113_000_000L;

  static final long DAY = 86_400_000L;

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private Agent agent;
  private Journal journal;

  /** The app's data layer: Room's schema for the sample's {@code Entry}, version 1 or 2. */
  static final class Journal extends SQLiteOpenHelper {
    private final int version;

    Journal(Context context, int version) {
      super(context, "journal.db", null, version);
      this.version = version;
    }

    @Override
    public void onCreate(SQLiteDatabase db) {
      db.execSQL(
          "CREATE TABLE entry (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, title TEXT NOT NULL,"
              + " body TEXT NOT NULL, mood TEXT NOT NULL, created_at INTEGER NOT NULL)");
      if (version >= 2) {
        onUpgrade(db, 1, version);
      }
    }

    @Override
    public void onUpgrade(SQLiteDatabase db, int from, int to) {
      // Room's Migration(1, 2).
      db.execSQL("ALTER TABLE entry ADD COLUMN tags TEXT NOT NULL DEFAULT '[]'");
    }

    long add(String title, String body, String mood, long createdAt, String tags) {
      ContentValues values = new ContentValues();
      values.put("title", title);
      values.put("body", body);
      values.put("mood", mood);
      values.put("created_at", createdAt);
      if (tags != null) {
        values.put("tags", tags);
      }
      return getWritableDatabase().insertOrThrow("entry", null, values);
    }
  }

  @Before
  public void installAgent() {
    agent = cetp.agent(AGENT, null, AGENT_UID, AGENT_CERT);
  }

  @After
  public void closeJournal() {
    if (journal != null) {
      journal.close();
    }
  }

  /** Version 1 with two entries, then the migration to version 2 and one entry with tags. */
  private void writeJournal() {
    Context app = RuntimeEnvironment.getApplication();
    Journal v1 = new Journal(app, 1);
    v1.add("First day", "private text 1", "GOOD", MARCH_4, null);
    v1.add("Rain", "private text 2", "BAD", MARCH_4 + DAY, null);
    v1.close();
    journal = new Journal(app, 2);
    journal.add("Hike", "private text 3", "GREAT", MARCH_4 + 2 * DAY, "[\"outdoors\",\"friends\"]");
  }

  @Test
  public void theAppWritesAndTheAgentReadsOverV1V2AndApex() throws Exception {
    writeJournal();
    agent.approve(Approval.full());

    // CETP v1.
    JSONArray listed = agent.call("recent_entries", "{\"limit\":2}").assertSuccess().jsonArray();
    assertEquals(listed.toString(), 2, listed.length());
    JSONObject hike = listed.getJSONObject(0);
    assertEquals("Hike", hike.getString("title"));
    assertEquals("GREAT", hike.getString("mood"));
    assertEquals("2025-03-06T18:30:00Z", hike.getString("created"));
    assertEquals("[\"outdoors\",\"friends\"]", hike.getJSONArray("tags").toString());
    // Written before the migration: the column's default.
    assertEquals(0, listed.getJSONObject(1).getJSONArray("tags").length());

    // CETP v2.
    V2Reply v2 = agent.v2().call("read_entry", "{\"id\":1}");
    assertTrue(v2.toString(), v2.isSuccess());
    assertEquals("private text 1", v2.jsonObject().getJSONObject("value").getString("body"));

    // Apex: the same grant, the same rows.
    ToolReply apex = agent.apex().call("journal__recent_entries", "{\"mood\":\"BAD\"}");
    assertEquals(apex.text(), null, apex.errorCode());
    JSONArray bad = new JSONArray(apex.text());
    assertEquals("Rain", bad.getJSONObject(0).getString("title"));

    // A write made by the app is seen by the next call.
    journal.add("Concert", "private text 4", "GREAT", MARCH_4 + 9 * DAY, "[\"music\"]");
    JSONArray after = agent.call("recent_entries", "{\"limit\":1}").assertSuccess().jsonArray();
    assertEquals("Concert", after.getJSONObject(0).getString("title"));
  }

  @Test
  public void beforeTheAppCreatedItsDatabaseACallFailsClearly() {
    agent.approve(Approval.full());
    ToolReply r = agent.call("recent_entries", "{}").assertError("INTERNAL_ERROR");
    assertTrue(r.errorMessage(), r.errorMessage().contains("has not created its database journal.db"));
    assertFalse(RuntimeEnvironment.getApplication().getDatabasePath("journal.db").exists());
    // Created by the app later: the next call reads it.
    writeJournal();
    assertEquals(3, agent.call("recent_entries", "{}").assertSuccess().jsonArray().length());
  }

  @Test
  public void aLimitedAgentNeverGetsTheText() throws Exception {
    writeJournal();
    agent.approve(Approval.limited());
    JSONObject entry = agent.call("read_entry", "{\"id\":3}").assertSuccess().jsonObject();
    assertEquals("Hike", entry.getString("title"));
    assertFalse(entry.toString(), entry.has("body"));
  }

  /**
   * A statement still running at its deadline is cancelled on Android's SQLite: a query that
   * never ends by itself, given 50 ms, answers the cancelled status ({@code app_db/codec.rs}).
   */
  @Test
  public void aReadPastItsDeadlineIsCancelled() throws Exception {
    writeJournal();
    agent.listTools().assertSuccess(); // the runtime runs for this application
    Class<?> reader = Class.forName("dev.cetp.CetpAppDatabase");
    Method query =
        reader.getDeclaredMethod(
            "query", String.class, String.class, byte[].class, int.class, int.class, long.class);
    query.setAccessible(true);
    byte[] reply =
        (byte[])
            query.invoke(
                null,
                "journal.db",
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
                new byte[0],
                10,
                1 << 20,
                50L);
    assertEquals(1, reply.length);
    assertEquals("cancelled", 2, reply[0]);
  }
}
