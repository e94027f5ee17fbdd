package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import android.os.Bundle;
import dev.cetp.e2e.category.NotesBundle;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.CallForm;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.ToolReply;
// Internal: discovery as a whole, the admin state asserted on, the JVM and bundle setup.
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.TestJvm;
import dev.cetp.testkit.internal.V1ClientRules;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * The notes sample ({@code samples/notes}) end to end through its host bundle: the real SQLite
 * database the sample seeds in the app's files dir (320 deterministic notes, {@code
 * samples/notes/src/demo.rs}), its four tools, its two scopes and limited access, called as an
 * agent app would with every reply parcelled. Expected values come from the demo data (the same
 * on every machine; see {@code cargo run -p cetp-sample-notes --example ask_notes}). Runs in
 * {@code bundle-notes}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(NotesBundle.class)
public class NotesSampleE2ETest extends SampleSuite {
  static final String PACKAGE = "dev.cetp.samples.notes";
  static final String AUTHORITY = "dev.cetp.samples.notes.tools";
  static final String AUTHORIZE = PACKAGE + ".CETP_AUTHORIZE";
  static final List<String> TOOLS =
      List.of("search_notes", "get_note", "list_tags", "notes_between", "find_text");

  static final String NOTES_READ = "your notes: titles, dates and text";
  static final String TAGS_READ = "your tag names and how many notes use each";

  /** get_note {"id":42} for a full-access caller. */
  static final String NOTE_42 =
      "{\"id\":42,\"title\":\"Trip to Lisbon\",\"created\":\"2023-04-17T11:07:53\","
          + "\"tags\":[\"travel\",\"weekend\"],\"body\":\"Try the café near the old harbour. The museum"
          + " opens at 9 and is closed on Mondays. Book the train from the airport to Montréal.\"}";

  /** The agent asks for both scopes (one merged pending request); the user approves it. */
  private void approveAgent(Approval approval) {
    agent.call("get_note", "{\"id\":1}").assertError("AUTH_REQUIRED");
    agent.call("list_tags", "{}").assertError("AUTH_REQUIRED");
    agent.approvePending(approval);
  }

  private JSONArray hits(String args) {
    return (JSONArray) dataValue("search_notes", args);
  }

  // ----------------------------------------------------------------------------------------
  // The bundle, discovery, provider info, tools

  /**
   * The build function only names {@code <filesDir>/notes.db}: starting the provider creates
   * nothing, and a refused call opens nothing. The first call that runs a tool creates the demo
   * database, in this start's files dir (Robolectric gives each test a new one).
   */
  @Test
  public void theFirstCallCreatesTheDatabaseInThisStartsFilesDir() throws Exception {
    TestJvm.requireConfigured();
    assertEquals("notes", bundle().name());
    assertEquals("cetp_sample_notes", bundle().nativeLibraryName());
    File db = new File(cetp.context().getFilesDir(), "notes.db");
    assertFalse(db + " was created at start-up", db.exists());
    approveAgent(Approval.full()); // refused before any tool runs: nothing is opened yet
    assertFalse(db + " was created by a refused call", db.exists());
    ToolReply note = run("get_note", "{\"id\":7}");
    assertTrue(note.toString(), note.isSuccess());
    assertTrue(db + " was created by the first call", db.isFile());
  }

  @Test
  public void discoveryFindsTheAuthorityWithIntegerVersionOne() {
    List<CetpTransport.Discovered> found = new CetpTransport().discover();
    assertEquals(found.toString(), 1, found.size());
    assertEquals(PACKAGE, found.get(0).packageName);
    assertEquals(AUTHORITY, found.get(0).authority);
    assertEquals(1, found.get(0).version);
    assertEquals(Integer.valueOf(1), found.get(0).rawVersion);
  }

  @Test
  public void getProviderInfoDeclaresBothScopes() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.request(form, CetpV2.METHOD_GET_PROVIDER_INFO, new Bundle());
      assertTrue(form + ": " + r, r.isSuccess());
      JSONObject info = r.jsonObject();
      assertEquals(List.of("description", "provider_name", "scopes"), sorted(keys(info)));
      assertEquals("Notes", info.getString("provider_name"));
      assertEquals(
          "The user's notes: full-text search, tags and notes by date", info.getString("description"));
      JSONArray scopes = info.getJSONArray("scopes");
      assertEquals(2, scopes.length());
      assertEquals(List.of("description", "name"), sorted(keys(scopes.getJSONObject(0))));
      assertEquals("notes.read", scopes.getJSONObject(0).getString("name"));
      assertEquals(NOTES_READ, scopes.getJSONObject(0).getString("description"));
      assertEquals("tags.read", scopes.getJSONObject(1).getString("name"));
      assertEquals(TAGS_READ, scopes.getJSONObject(1).getString("description"));
    }
  }

  @Test
  public void listToolsDescribesFourToolsWithClosedObjectSchemas() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.request(form, CetpV2.METHOD_LIST_TOOLS, new Bundle());
      assertTrue(form + ": " + r, r.isSuccess());
      JSONArray tools = r.tools();
      List<String> names = new ArrayList<>();
      for (int i = 0; i < tools.length(); i++) {
        JSONObject tool = tools.getJSONObject(i);
        names.add(tool.getString("name"));
        V1ClientRules.assertToolFields(tool);
        assertFalse(tool.getString("description").trim().isEmpty());
        JSONObject params = tool.getJSONObject("parameters");
        assertEquals("object", params.getString("type"));
        assertTrue(params.has("properties"));
        assertFalse(params.getBoolean("additionalProperties"));
        assertFalse(params.toString(), params.toString().contains("$ref"));
      }
      assertEquals(TOOLS, names);

      JSONObject search = tools.getJSONObject(0);
      assertTrue(search.getString("description").startsWith("Searches the user's notes by words"));
      JSONObject sp = search.getJSONObject("parameters");
      assertEquals(List.of("query"), strings(sp.getJSONArray("required")));
      JSONObject props = sp.getJSONObject("properties");
      assertEquals(List.of("limit", "query", "tag"), sorted(keys(props)));
      assertString(props.getJSONObject("query"), 1, 200);
      assertEquals(
          "Words to look for, e.g. `cafe lisbon` or `抹茶`. 1 to 200 characters.",
          props.getJSONObject("query").getString("description"));
      assertString(props.getJSONObject("tag"), 1, 64);
      assertInteger(props.getJSONObject("limit"), 1, 50);

      JSONObject get = tools.getJSONObject(1).getJSONObject("parameters");
      assertEquals(List.of("id"), strings(get.getJSONArray("required")));
      assertEquals(List.of("id"), keys(get.getJSONObject("properties")));
      JSONObject id = get.getJSONObject("properties").getJSONObject("id");
      assertEquals("integer", id.getString("type"));
      assertEquals(1, id.getInt("minimum"));
      assertFalse(id.has("maximum"));

      JSONObject tags = tools.getJSONObject(2).getJSONObject("parameters");
      assertEquals(0, tags.getJSONObject("properties").length());
      assertFalse(tags.has("required") && tags.getJSONArray("required").length() > 0);

      JSONObject between = tools.getJSONObject(3).getJSONObject("parameters");
      assertEquals(List.of("from", "to"), strings(between.getJSONArray("required")));
      JSONObject bp = between.getJSONObject("properties");
      assertEquals(List.of("from", "limit", "to"), sorted(keys(bp)));
      for (String day : new String[] {"from", "to"}) {
        assertEquals("string", bp.getJSONObject(day).getString("type"));
        assertEquals("date", bp.getJSONObject(day).getString("format"));
      }
      assertInteger(bp.getJSONObject("limit"), 1, 200);
    }
  }

  // ----------------------------------------------------------------------------------------
  // Authorization

  @Test
  public void everyToolAnswersAuthRequiredBeforeApproval() throws Exception {
    String[][] calls = {
      {"search_notes", "{\"query\":\"café\"}", NOTES_READ},
      {"get_note", "{\"id\":7}", NOTES_READ},
      {"notes_between", "{\"from\":\"2023-03-01\",\"to\":\"2023-03-31\"}", NOTES_READ},
      {"list_tags", "{}", TAGS_READ},
      {"find_text", "{\"text\":\"basil\"}", NOTES_READ},
    };
    for (String[] call : calls) {
      for (CallForm form : CallForm.values()) {
        ToolReply r = agent.call(form, call[0], call[1]);
        assertError(r, "AUTH_REQUIRED", AGENT, "Notes");
        assertEquals("Open Notes (" + PACKAGE + ") and allow com.example.agent to read: " + call[2], r.resolutionHint());
        assertEquals(AUTHORIZE, r.authorizeIntent());
      }
    }
    assertEquals(
        "the user has not yet allowed com.example.agent to read scope `notes.read` from Notes; ask the"
            + " user to approve it in the Notes app, then call again",
        run("get_note", "{\"id\":7}").errorMessage());
    // Schema violations are not even looked at before approval.
    assertError(run("get_note", "{\"id\":\"seven\"}"), "AUTH_REQUIRED");
    // One merged request with both scopes, in declaration order.
    JSONObject request = ConsentAdmin.pendingFrom(agent.uid());
    JSONArray scopes = request.getJSONArray("scopes");
    assertEquals(2, scopes.length());
    assertEquals("notes.read", scopes.getJSONObject(0).getString("name"));
    assertEquals(NOTES_READ, scopes.getJSONObject(0).getString("description"));
    assertEquals("tags.read", scopes.getJSONObject(1).getString("name"));
    assertEquals(1, ConsentAdmin.pending().length());
  }

  @Test
  public void approvingOnlyTagsLeavesNotesClosed() throws Exception {
    agent.call("get_note", "{\"id\":1}").assertError("AUTH_REQUIRED");
    agent.call("list_tags", "{}").assertError("AUTH_REQUIRED");
    agent.approvePending(Approval.full().scopes("tags.read"));
    assertTrue(run("list_tags", "{}").isSuccess());
    ToolReply notes = run("search_notes", "{\"query\":\"basil\"}");
    assertError(notes, "AUTH_REQUIRED", "`notes.read`");
    assertEquals("Open Notes (" + PACKAGE + ") and allow com.example.agent to read: " + NOTES_READ, notes.resolutionHint());
    JSONArray grants = ConsentAdmin.grants();
    assertEquals(1, grants.length());
    assertEquals(List.of("tags.read"), strings(grants.getJSONObject(0).getJSONArray("scopes")));
  }

  // ----------------------------------------------------------------------------------------
  // Every tool, approved with full access

  @Test
  public void searchNotesRanksCjkHitsWithSnippets() throws Exception {
    approveAgent(Approval.full());
    JSONObject grant = ConsentAdmin.grants().getJSONObject(0);
    assertEquals("full", grant.getString("access"));
    assertEquals(List.of("notes.read", "tags.read"), sorted(strings(grant.getJSONArray("scopes"))));

    for (CallForm form : CallForm.values()) {
      ToolReply r =
          agent.call(form, "search_notes", "{\"query\":\"抹茶\",\"limit\":3}");
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(
          "[{\"id\":192,\"title\":\"読書メモ\",\"created\":\"2024-03-08T07:25:03\",\"tags\":[\"日本語\"],"
              + "\"snippet\":\"牛乳、卵、**抹茶**、豆腐。 新幹線の切符を予約する。\"},"
              + "{\"id\":99,\"title\":\"買い物リスト\",\"created\":\"2023-08-18T20:02:08\",\"tags\":[\"日本語\"],"
              + "\"snippet\":\"牛乳、卵、**抹茶**、豆腐。 村上春樹、ノルウェイの森。\"},"
              + "{\"id\":202,\"title\":\"京都旅行の計画\",\"created\":\"2024-03-23T19:02:06\",\"tags\":[\"日本語\"],"
              + "\"snippet\":\"村上春樹、ノルウェイの森。 牛乳、卵、**抹茶**、豆腐。\"}]",
          r.data());
    }
    // 18 notes mention 抹茶; without a limit the first 10 come back, in the same order.
    assertEquals(
        List.of(192L, 99L, 202L, 271L, 20L, 50L, 62L, 66L, 91L, 107L, 142L, 148L, 171L, 187L, 314L, 247L, 115L, 145L),
        ids(hits("{\"query\":\"抹茶\",\"limit\":50}")));
    assertEquals(
        List.of(192L, 99L, 202L, 271L, 20L, 50L, 62L, 66L, 91L, 107L), ids(hits("{\"query\":\"抹茶\"}")));
    // An optional property sent as null counts as absent.
    assertEquals(10, hits("{\"query\":\"抹茶\",\"limit\":null,\"tag\":null}").length());
  }

  @Test
  public void searchNotesIgnoresCaseAndAccentsRequiresEveryWordAndFiltersByTag() throws Exception {
    approveAgent(Approval.full());
    List<Long> accented = ids(hits("{\"query\":\"CAFÉ\",\"limit\":50}"));
    assertEquals(47, accented.size());
    assertEquals(List.of(81L, 317L, 318L, 288L, 173L), accented.subList(0, 5));
    assertEquals(accented, ids(hits("{\"query\":\"cafe\",\"limit\":50}")));

    JSONArray french = hits("{\"query\":\"café\",\"tag\":\"français\",\"limit\":50}");
    assertEquals(28, french.length());
    for (int i = 0; i < french.length(); i++) {
      assertTrue(french.getJSONObject(i).toString(), strings(french.getJSONObject(i).getJSONArray("tags")).contains("français"));
    }
    assertEquals(
        "{\"id\":81,\"title\":\"Idée : un café-atelier\",\"created\":\"2023-07-07T11:54:37\","
            + "\"tags\":[\"français\"],\"snippet\":\"Crème fraîche, œufs et pommes. Réunion déplacée à jeudi après-midi.\"}",
        french.getJSONObject(0).toString());
    assertEquals("Acheter du **café**, des pâtes et du fromage affiné. Crème fraîche, œufs…",
        french.getJSONObject(3).getString("snippet"));

    // Every word must occur: "tomatoes basil" is a subset of each word's hits.
    List<Long> tomatoes = ids(hits("{\"query\":\"tomatoes\",\"limit\":50}"));
    List<Long> basil = ids(hits("{\"query\":\"basil\",\"limit\":50}"));
    List<Long> both = ids(hits("{\"query\":\"tomatoes basil\",\"limit\":50}"));
    assertFalse(both.isEmpty());
    assertTrue(both.size() < basil.size());
    for (Long id : both) {
      assertTrue(id + "", tomatoes.contains(id) && basil.contains(id));
    }
    assertEquals(1, hits("{\"query\":\"basil\",\"limit\":1}").length());
    // Query syntax is plain words: no FTS5 syntax error.
    assertTrue(run("search_notes", "{\"query\":\"\\\"café\\\" OR (NOT* -\"}").isSuccess());
    // A word nobody wrote: an empty list, not an error.
    assertEquals("[]", run("search_notes", "{\"query\":\"zeppelin\"}").data());
  }

  @Test
  public void searchForANonAsciiWordRoundTripsExactly() throws Exception {
    approveAgent(Approval.full());
    JSONArray helene = hits("{\"query\":\"Hélène\",\"limit\":50}");
    assertEquals(24, helene.length());
    JSONObject first = helene.getJSONObject(0);
    assertEquals(153, first.getLong("id"));
    assertEquals("Notes de réunion — Atlas", first.getString("title"));
    assertEquals("Crème fraîche, œufs et pommes. Penser à l'anniversaire d'**Hélène** 🎂.", first.getString("snippet"));
    assertEquals(300, helene.getJSONObject(8).getLong("id"));
    assertEquals("…Penser à l'anniversaire d'**Hélène** 🎂.", helene.getJSONObject(8).getString("snippet"));
    for (int i = 0; i < helene.length(); i++) {
      String snippet = helene.getJSONObject(i).getString("snippet");
      assertTrue(snippet, snippet.contains("**Hélène** 🎂")); // U+1F382: a surrogate pair in Java
    }
    // The same word without accents and in capitals finds the same notes.
    assertEquals(ids(helene), ids(hits("{\"query\":\"HELENE\",\"limit\":50}")));

    JSONArray threeBody = hits("{\"query\":\"三体\",\"limit\":2}");
    assertEquals(
        "{\"id\":110,\"title\":\"Quotes from 三体\",\"created\":\"2023-09-09T18:50:00\",\"tags\":[\"reading\"],"
            + "\"snippet\":\"Favourite line so far: keep going. Lend **三体** to Sam afterwards 📚.\"}",
        threeBody.getJSONObject(0).toString());
    assertEquals("Quotes from 三体", threeBody.getJSONObject(1).getString("title"));
    assertEquals(184, threeBody.getJSONObject(1).getLong("id"));
  }

  @Test
  public void getNoteReturnsTheWholeNote() throws Exception {
    approveAgent(Approval.full());
    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.call(form, "get_note", "{\"id\":42}");
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(NOTE_42, r.data());
    }
    JSONObject seven = (JSONObject) dataValue("get_note", "{\"id\":7}");
    assertEquals("Groceries for Saturday", seven.getString("title"));
    assertEquals("2023-01-09T17:10:56", seven.getString("created"));
    assertEquals(List.of("shopping"), strings(seven.getJSONArray("tags")));
    assertEquals(
        "Pick up batteries and light bulbs. Birthday present for Zoë. Milk, eggs, spinach and coffee.",
        seven.getString("body"));
    // The first and the last note.
    JSONObject one = (JSONObject) dataValue("get_note", "{\"id\":1}");
    assertEquals("Oat milk, tofu and jasmine rice. Birthday present for Zoë.", one.getString("body"));
    assertEquals("2023-01-01T22:56:28", one.getString("created"));
    assertEquals(List.of("shopping", "weekend"), strings(one.getJSONArray("tags")));
    JSONObject last = (JSONObject) dataValue("get_note", "{\"id\":320}");
    assertEquals("Packing list for Reykjavík", last.getString("title"));
    assertEquals("2024-12-31T14:29:16", last.getString("created"));
  }

  @Test
  public void listTagsCountsEveryTagMostUsedFirst() throws Exception {
    approveAgent(Approval.full());
    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.call(form, "list_tags", "{}");
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(
          "[{\"tag\":\"français\",\"notes\":42},{\"tag\":\"garden\",\"notes\":42},"
              + "{\"tag\":\"family\",\"notes\":38},{\"tag\":\"recipes\",\"notes\":38},"
              + "{\"tag\":\"shopping\",\"notes\":36},{\"tag\":\"reading\",\"notes\":35},"
              + "{\"tag\":\"中文\",\"notes\":35},{\"tag\":\"travel\",\"notes\":34},"
              + "{\"tag\":\"work\",\"notes\":31},{\"tag\":\"weekend\",\"notes\":30},"
              + "{\"tag\":\"日本語\",\"notes\":27},{\"tag\":\"important\",\"notes\":22}]",
          r.data());
    }
    // No arguments: absent, empty and null args all mean {}.
    assertTrue(run("list_tags", null).isSuccess());
    assertTrue(run("list_tags", "").isSuccess());
    assertTrue(run("list_tags", "null").isSuccess());
  }

  @Test
  public void notesBetweenListsOldestFirstWithTheTotal() throws Exception {
    approveAgent(Approval.full());
    for (CallForm form : CallForm.values()) {
      ToolReply r =
          agent.call(
              form,
              "notes_between",
              "{\"from\":\"2023-03-01\",\"to\":\"2023-03-31\",\"limit\":3}");
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(
          "{\"total\":18,\"notes\":["
              + "{\"id\":21,\"title\":\"Garden log 🌱\",\"created\":\"2023-03-03T19:50:51\",\"tags\":[\"garden\"]},"
              + "{\"id\":22,\"title\":\"Quotes from Middlemarch\",\"created\":\"2023-03-04T15:09:56\",\"tags\":[\"important\",\"reading\"]},"
              + "{\"id\":23,\"title\":\"Trip to Montréal\",\"created\":\"2023-03-05T16:49:58\",\"tags\":[\"travel\"]}]}",
          r.data());
    }
    // One day, both ends included.
    JSONObject day = (JSONObject) dataValue("notes_between", "{\"from\":\"2024-12-31\",\"to\":\"2024-12-31\"}");
    assertEquals(2, day.getInt("total"));
    assertEquals(List.of(319L, 320L), ids(day.getJSONArray("notes")));
    assertEquals("Quotes from Le Petit Prince", day.getJSONArray("notes").getJSONObject(0).getString("title"));
    // The widest range (366 days, 2024 is a leap year); the default limit is 50.
    JSONObject year = (JSONObject) dataValue("notes_between", "{\"from\":\"2024-01-01\",\"to\":\"2024-12-31\"}");
    assertEquals(160, year.getInt("total"));
    JSONArray notes = year.getJSONArray("notes");
    assertEquals(50, notes.length());
    assertEquals(161, notes.getJSONObject(0).getLong("id")); // notes are numbered in date order
    String previous = "";
    for (int i = 0; i < notes.length(); i++) {
      JSONObject n = notes.getJSONObject(i);
      assertEquals(List.of("created", "id", "tags", "title"), sorted(keys(n))); // never a body
      assertTrue(n.getString("created").compareTo(previous) >= 0);
      previous = n.getString("created");
    }
    assertEquals(160, ((JSONObject) dataValue("notes_between", "{\"from\":\"2024-01-01\",\"to\":\"2024-12-31\",\"limit\":200}")).getJSONArray("notes").length());
    // A range without notes.
    assertEquals("{\"total\":0,\"notes\":[]}", run("notes_between", "{\"from\":\"2019-01-01\",\"to\":\"2019-12-31\"}").data());
  }

  // ----------------------------------------------------------------------------------------
  // Errors (approved agent)

  @Test
  public void searchNotesErrors() {
    approveAgent(Approval.full());
    assertError(run("search_notes", "{}"), "INVALID_ARGS", "search_notes", "\"query\"");
    assertError(run("search_notes", "{\"tag\":\"work\"}"), "INVALID_ARGS", "\"query\"");
    assertError(run("search_notes", "{\"query\":\"\"}"), "INVALID_ARGS", "`/query`");
    assertError(run("search_notes", "{\"query\":\"" + "a".repeat(201) + "\"}"), "INVALID_ARGS", "`/query`");
    assertError(run("search_notes", "{\"query\":7}"), "INVALID_ARGS", "`/query`");
    assertError(run("search_notes", "{\"query\":\"basil\",\"limit\":0}"), "INVALID_ARGS", "`/limit`");
    assertError(run("search_notes", "{\"query\":\"basil\",\"limit\":51}"), "INVALID_ARGS", "`/limit`");
    assertError(run("search_notes", "{\"query\":\"basil\",\"limit\":\"5\"}"), "INVALID_ARGS", "`/limit`");
    assertError(run("search_notes", "{\"query\":\"basil\",\"limit\":2.5}"), "INVALID_ARGS", "`/limit`");
    assertError(run("search_notes", "{\"query\":\"basil\",\"tag\":\"\"}"), "INVALID_ARGS", "`/tag`");
    assertError(run("search_notes", "{\"query\":\"basil\",\"sort\":\"date\"}"), "INVALID_ARGS", "sort");
    // Within the schema, but no word to search for: the tool's own INVALID_ARGS.
    ToolReply noWords = run("search_notes", "{\"query\":\"🌱 --\"}");
    assertError(noWords, "INVALID_ARGS");
    assertEquals(
        "the query `🌱 --` has no words to search for; send one or more words (letters or digits)",
        noWords.errorMessage());
  }

  @Test
  public void getNoteErrors() {
    approveAgent(Approval.full());
    for (String id : new String[] {"99999", "321"}) {
      ToolReply r = run("get_note", "{\"id\":" + id + "}");
      assertError(r, "INVALID_ARGS");
      assertEquals(
          "there is no note with id " + id + "; take ids from `search_notes` or `notes_between`",
          r.errorMessage());
    }
    assertError(run("get_note", "{\"id\":0}"), "INVALID_ARGS", "get_note", "`/id`");
    assertError(run("get_note", "{\"id\":-1}"), "INVALID_ARGS", "`/id`");
    assertError(run("get_note", "{\"id\":\"seven\"}"), "INVALID_ARGS", "`/id`");
    assertError(run("get_note", "{\"id\":1.5}"), "INVALID_ARGS", "`/id`");
    assertError(run("get_note", "{}"), "INVALID_ARGS", "\"id\"");
    assertError(run("get_note", null), "INVALID_ARGS", "\"id\"");
    assertError(run("get_note", "{\"id\":1,\"full\":true}"), "INVALID_ARGS", "full");
    assertError(run("get_note", "[1]"), "INVALID_ARGS", "JSON object");
  }

  @Test
  public void listTagsErrors() {
    approveAgent(Approval.full());
    ToolReply r = run("list_tags", "{\"limit\":3}");
    assertError(r, "INVALID_ARGS", "list_tags", "limit");
    assertTrue(r.errorMessage(), r.errorMessage().endsWith("Expected no parameters (send `{}`)."));
  }

  @Test
  public void notesBetweenErrors() {
    approveAgent(Approval.full());
    ToolReply reversed = run("notes_between", "{\"from\":\"2024-05-01\",\"to\":\"2024-04-01\"}");
    assertError(reversed, "INVALID_ARGS");
    assertEquals(
        "`from` (2024-05-01) is after `to` (2024-04-01); send the earlier day as `from`",
        reversed.errorMessage());
    ToolReply wide = run("notes_between", "{\"from\":\"2023-01-01\",\"to\":\"2024-01-02\"}");
    assertError(wide, "INVALID_ARGS");
    assertEquals(
        "2023-01-01 to 2024-01-02 spans 367 days; ask for at most 366 days per call and split longer"
            + " periods into several calls",
        wide.errorMessage());
    // Dates the schema refuses: impossible days, other formats, not strings.
    String[][] badDates = {
      {"{\"from\":\"2023-02-30\",\"to\":\"2023-03-01\"}", "`/from`"},
      {"{\"from\":\"2023-02-28\",\"to\":\"2023-02-29\"}", "`/to`"},
      {"{\"from\":\"March 1\",\"to\":\"2023-03-31\"}", "`/from`"},
      {"{\"from\":\"2023-3-1\",\"to\":\"2023-03-31\"}", "`/from`"},
      {"{\"from\":\"2023/03/01\",\"to\":\"2023-03-31\"}", "`/from`"},
      {"{\"from\":\"2023-03-01T00:00:00\",\"to\":\"2023-03-31\"}", "`/from`"},
      {"{\"from\":20230301,\"to\":\"2023-03-31\"}", "`/from`"},
    };
    for (String[] bad : badDates) {
      assertError(run("notes_between", bad[0]), "INVALID_ARGS", "notes_between", bad[1]);
    }
    assertError(run("notes_between", "{\"from\":\"2023-03-01\",\"to\":\"2023-13-01\"}"), "INVALID_ARGS", "`/to`");
    assertError(run("notes_between", "{\"from\":\"2023-03-01\"}"), "INVALID_ARGS", "\"to\"");
    assertError(run("notes_between", "{\"from\":\"2023-03-01\",\"to\":\"2023-03-31\",\"limit\":201}"), "INVALID_ARGS", "`/limit`");
    assertError(run("notes_between", "{\"from\":\"2023-03-01\",\"to\":\"2023-03-31\",\"limit\":0}"), "INVALID_ARGS", "`/limit`");
    assertError(run("notes_between", "{\"from\":\"2023-03-01\",\"to\":\"2023-03-31\",\"tag\":\"work\"}"), "INVALID_ARGS", "tag");
  }

  @Test
  public void unknownToolsAreToolNotFound() {
    for (CallForm form : CallForm.values()) {
      assertError(
          agent.call(form, "delete_note", "{\"id\":1}"),
          "TOOL_NOT_FOUND",
          "delete_note");
    }
    approveAgent(Approval.full());
    for (CallForm form : CallForm.values()) {
      assertError(
          agent.call(form, "search_note", "{\"query\":\"x\"}"),
          "TOOL_NOT_FOUND",
          "search_note");
      assertError(
          agent.call(form, "list_tags ", "{}"),
          "TOOL_NOT_FOUND");
    }
  }

  // ----------------------------------------------------------------------------------------
  // Limited access

  @Test
  public void aLimitedCallerGetsTitlesAndDatesButNoText() throws Exception {
    approveAgent(Approval.limited());
    assertEquals("limited", ConsentAdmin.grants().getJSONObject(0).getString("access"));

    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.call(form, "get_note", "{\"id\":42}");
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(
          "{\"id\":42,\"title\":\"Trip to Lisbon\",\"created\":\"2023-04-17T11:07:53\",\"tags\":[\"travel\",\"weekend\"]}",
          r.data());
    }
    // Bodies must not decide a limited search: a name that occurs only in bodies (24 notes
    // for full access) finds nothing; titles and tags are searched, newest first.
    assertEquals(0, hits("{\"query\":\"Hélène\",\"limit\":50}").length());
    JSONArray hits = hits("{\"query\":\"Atlas\",\"limit\":50}");
    assertTrue(hits.length() > 0);
    String previous = "9999";
    for (int i = 0; i < hits.length(); i++) {
      JSONObject hit = hits.getJSONObject(i);
      assertEquals(hit.toString(), List.of("created", "id", "tags", "title"), sorted(keys(hit)));
      assertTrue(hit.toString(), hit.getString("title").contains("Atlas"));
      assertTrue(hit.toString(), hit.getString("created").compareTo(previous) <= 0);
      previous = hit.getString("created");
    }
    // Tags and listings carry no text anyway: the same as for full access.
    assertEquals(12, ((JSONArray) dataValue("list_tags", "{}")).length());
    JSONObject march = (JSONObject) dataValue("notes_between", "{\"from\":\"2023-03-01\",\"to\":\"2023-03-31\",\"limit\":3}");
    assertEquals(18, march.getInt("total"));
    assertEquals(List.of(21L, 22L, 23L), ids(march.getJSONArray("notes")));
  }

  // ----------------------------------------------------------------------------------------

  private static void assertString(JSONObject prop, int min, int max) throws Exception {
    assertEquals("string", prop.getString("type"));
    assertEquals(min, prop.getInt("minLength"));
    assertEquals(max, prop.getInt("maxLength"));
    assertFalse(prop.getString("description").isEmpty());
  }

  private static void assertInteger(JSONObject prop, int min, int max) throws Exception {
    assertEquals("integer", prop.getString("type"));
    assertEquals(min, prop.getInt("minimum"));
    assertEquals(max, prop.getInt("maximum"));
    assertFalse(prop.getString("description").isEmpty());
  }

  private static List<Long> ids(JSONArray items) throws Exception {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < items.length(); i++) {
      out.add(items.getJSONObject(i).getLong("id"));
    }
    return out;
  }
}
