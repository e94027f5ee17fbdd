package dev.cetp.uniffi

import dev.cetp.testkit.Approval
import dev.cetp.testkit.CetpTestRule
import java.io.File
import org.junit.Assert.assertEquals
import org.junit.Rule
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import uniffi.reading_core.Shelf

/**
 * The reading-list sample as its app runs it: Kotlin writes through the core's UniFFI API
 * (JNA), an agent reads the same file through the provider's tools (the template's JNI
 * bridge), both in libreading_core.so, so one SQLite sees every connection.
 */
@RunWith(RobolectricTestRunner::class)
class ReadingListTest {
    @get:Rule val cetp = CetpTestRule()

    @Test
    fun whatKotlinWritesAnAgentReads() {
        val file = File(cetp.context().filesDir, "reading.db")
        Shelf.open(file.path).use { shelf ->
            val agent = cetp
                .agent("com.example.agent", "Example Agent", 10_123, "agent key".toByteArray())
                .approve(Approval.full())
            assertEquals(0, agent.call("reading_now", "{}").jsonArray().length())

            val war = shelf.add("War and Peace", "Leo Tolstoy")
            shelf.add("Middlemarch", "George Eliot")
            val found = agent.call("find_books", """{"words":"tolstoy"}""").jsonArray()
            assertEquals(1, found.length())
            assertEquals(war, found.getJSONObject(0).getLong("id"))

            shelf.finish(war)
            val now = agent.call("reading_now", "{}").jsonArray()
            assertEquals(1, now.length())
            assertEquals("Middlemarch", now.getJSONObject(0).getString("title"))
            assertEquals(2, shelf.list().size)
        }
    }

    @Test
    fun anUnapprovedAgentIsRefusedWhateverKotlinWrote() {
        val file = File(cetp.context().filesDir, "reading.db")
        Shelf.open(file.path).use { it.add("Emma", "Jane Austen") }
        cetp.agent("com.example.stranger").call("reading_now", "{}").assertError("AUTH_REQUIRED")
    }
}
