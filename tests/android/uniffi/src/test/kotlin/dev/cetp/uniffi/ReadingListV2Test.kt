package dev.cetp.uniffi

import dev.cetp.testkit.CetpTestRule
import dev.cetp.testkit.CetpV2
import java.io.File
import org.json.JSONArray
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Rule
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import uniffi.reading_core.Shelf

/**
 * The reading-list sample to a CETP v2 agent, through the kit's public API from Kotlin: the
 * app conforms to ClawSeed's newest client, and what Kotlin writes through UniFFI an agent
 * approved through the provider's screen (the `resolution` PendingIntent) reads in the inline
 * result envelope.
 */
@RunWith(RobolectricTestRunner::class)
class ReadingListV2Test {
    @get:Rule val cetp = CetpTestRule()

    @Test
    fun theAppConformsToTheNewestClient() {
        assertEquals(listOf(1, 2), cetp.advertisedVersions())
        val session = cetp.agent("com.example.agent").v2().assertConformant()
        assertEquals(listOf("find_books", "reading_now"), session.toolNames())
    }

    @Test
    fun whatKotlinWritesAnApprovedV2AgentReads() {
        val file = File(cetp.context().filesDir, "reading.db")
        Shelf.open(file.path).use { shelf ->
            shelf.add("War and Peace", "Leo Tolstoy")
            val session = cetp.agent("com.example.agent").v2()
            val refused = session.call("find_books", """{"words":"tolstoy"}""")
                .assertError(CetpV2.AUTH_REQUIRED)
            session.openResolution(refused).use { it.allow() }
            val found = session.resume(refused).assertSuccess().value() as JSONArray
            assertEquals(1, found.length())
            assertEquals("War and Peace", found.getJSONObject(0).getString("title"))
            session.resume(refused).assertError(CetpV2.INVALID_REQUEST)
            session.call("find_books", "{}").assertError(CetpV2.INVALID_ARGS)
            assertTrue(session.call("reading_now", "{}").assertSuccess().value() is JSONArray)
        }
    }
}
