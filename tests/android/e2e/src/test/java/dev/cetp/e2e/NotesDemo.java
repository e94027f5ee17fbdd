package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import static org.robolectric.Shadows.shadowOf;

import android.Manifest;
import android.app.Application;
import android.app.Notification;
import android.app.NotificationManager;
import android.app.PendingIntent;
import android.content.ComponentName;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.content.pm.ResolveInfo;
import android.content.pm.ServiceInfo;
import dev.cetp.e2e.category.Demo;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.ApexPlugin;
import dev.cetp.testkit.ApexTool;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.ToolReply;
import dev.cetp.testkit.V2Reply;
import dev.cetp.testkit.V2Session;
// Internal: the Apex agent's action (Wire) and version, and the plugin's JSON as it is sent.
import dev.cetp.testkit.internal.ApexAgent;
import dev.cetp.testkit.internal.Wire;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;

/**
 * {@code cargo xtask demo}: the notes sample as agent apps meet it (CETP v1 agents, a CETP
 * v2 agent, then the Apex agent through its plugin Service), told step by step. It is
 * a test (every step is asserted, so the story cannot silently go wrong) in a category of its own
 * that only the {@code demo-notes} execution runs; the story goes to {@code -Dcetp.demo.out}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(Demo.class)
public class NotesDemo {
  private static final String AGENT = "com.clawseed.android";
  private static final int AGENT_UID = 10_123;
  private static final String WIDGET = "com.example.notewidget";
  private static final int WIDGET_UID = 10_124;
  private static final String READER = "com.example.readingbuddy";
  private static final int READER_UID = 10_125;
  private static final String APEX = "com.apex.agent";
  private static final int APEX_UID = 10_130;
  /** The action agents discover CETP providers by. */
  private static final String TOOL_PROVIDER = "com.clawseed.action.TOOL_PROVIDER";

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private final List<String> lines = new ArrayList<>();

  private void say(String line) {
    lines.add(line);
  }

  private void say(String format, Object... args) {
    lines.add(String.format(Locale.ROOT, format, args));
  }

  private static String cut(String text, int max) {
    String flat = text.replace('\n', ' ');
    return flat.length() <= max ? flat : flat.substring(0, max - 1) + "\u2026";
  }

  private static List<String> wrap(String text, int width) {
    List<String> out = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        out.add(line.toString());
        line.setLength(0);
        line.append("  ");
      }
      if (line.length() > 0 && !line.toString().equals("  ")) {
        line.append(' ');
      }
      line.append(word);
    }
    out.add(line.toString());
    return out;
  }

  private static String firstSentence(String text) {
    int end = text.indexOf(". ");
    return end < 0 ? text : text.substring(0, end + 1);
  }

  @Test
  public void tellTheStory() throws Exception {
    try {
      story();
    } finally {
      write();
    }
  }

  private void story() throws Exception {
    PackageManager pm = cetp.context().getPackageManager();
    Agent agent =
        cetp.agent(
            AGENT, "ClawSeed", AGENT_UID, "clawseed-cert".getBytes(StandardCharsets.UTF_8));
    Agent widget =
        cetp.agent(
            WIDGET, "Note Widget", WIDGET_UID, "widget-cert".getBytes(StandardCharsets.UTF_8));

    say("CETP demo: the Notes sample app (samples/notes) and an agent app, ClawSeed.");
    say("Robolectric runs the app's Android template and its Rust library (real SQLite) on the JVM.");
    say("");
    say("1. Discovery: queryIntentServices(com.clawseed.action.TOOL_PROVIDER)");
    List<ResolveInfo> found =
        pm.queryIntentServices(new Intent(TOOL_PROVIDER), PackageManager.GET_META_DATA);
    assertEquals(1, found.size());
    ServiceInfo notes = found.get(0).serviceInfo;
    say(
        "   %s  authority %s  CETP version %d",
        notes.packageName,
        notes.metaData.getString(CetpV2.META_AUTHORITY),
        notes.metaData.getInt(CetpV2.META_VERSION, 1));

    ToolReply listed = agent.listTools();
    assertTrue(listed.toString(), listed.isSuccess());
    JSONArray tools = listed.tools();
    say("");
    say("2. list_tools -> %d tools (the model sees them as notes__<name>)", tools.length());
    for (int i = 0; i < tools.length(); i++) {
      JSONObject tool = tools.getJSONObject(i);
      say("   %-14s %s", tool.getString("name"), cut(firstSentence(tool.getString("description")), 78));
    }

    String search = "{\"query\":\"basil\",\"limit\":3}";
    say("");
    say("3. execute_tool search_notes %s, before the user said anything", search);
    ToolReply first = agent.call("search_notes", search);
    assertEquals(first.toString(), "AUTH_REQUIRED", first.errorCode());
    say("   error_code       %s", first.errorCode());
    say("   error_message    %s", first.errorMessage());
    say("   resolution_hint  %s", first.resolutionHint());
    say("   authorize_intent %s", first.authorizeIntent());
    List<ResolveInfo> screens =
        pm.queryIntentActivities(
            new Intent(first.authorizeIntent()), PackageManager.MATCH_DEFAULT_ONLY);
    assertEquals(1, screens.size());
    say("   -> resolves to %s/%s", screens.get(0).activityInfo.packageName, screens.get(0).activityInfo.name);

    say("");
    say("4. ClawSeed starts that intent. The consent dialog shows:");
    ConsentDialog screen = agent.openConsentDialog(first);
    for (String row : screen.sketch()) {
      for (String part : wrap(row, 92)) {
        say("   | %s", part);
      }
    }
    say("   The user keeps \"1 day\" and \"Everything it asks for\" and taps Allow.");
    screen.allow();
    assertTrue(screen.isFinishing());
    screen.close();

    say("");
    say("5. The same call again -> success:");
    ToolReply hits = agent.call("search_notes", search);
    assertTrue(hits.toString(), hits.isSuccess());
    JSONArray list = new JSONArray(hits.data());
    assertTrue(list.length() > 0);
    for (int i = 0; i < list.length(); i++) {
      JSONObject hit = list.getJSONObject(i);
      say("   #%d %s (%s) %s", hit.getInt("id"), hit.getString("title"),
          hit.getString("created").substring(0, 10), hit.getJSONArray("tags"));
      say("      %s", cut(hit.getString("snippet"), 90));
    }
    int id = list.getJSONObject(0).getInt("id");

    say("");
    say("6. A second app, Note Widget, is allowed with \"Limited\" access.");
    String getNote = "{\"id\":" + id + "}";
    ToolReply widgetFirst = widget.call("get_note", getNote);
    assertEquals("AUTH_REQUIRED", widgetFirst.errorCode());
    ConsentDialog second = widget.openConsentDialog(widgetFirst);
    second.allow(ConsentDialog.Duration.ONE_DAY, Approval.Access.LIMITED);
    second.close();
    ToolReply limited = widget.call("get_note", getNote);
    assertTrue(limited.toString(), limited.isSuccess());
    assertFalse(limited.jsonObject().has("body"));
    say("   Note Widget, get_note %s -> %s", getNote, cut(limited.data(), 90));
    ToolReply full = agent.call("get_note", getNote);
    say("   ClawSeed,    get_note %s -> ... \"body\":\"%s\"}", getNote,
        cut(full.jsonObject().getString("body"), 50));

    say("");
    say("7. Mistakes a model can fix from the answer alone:");
    String backwards = "{\"from\":\"2024-05-01\",\"to\":\"2024-04-01\"}";
    ToolReply invalid = agent.call("notes_between", backwards);
    assertEquals(invalid.toString(), "INVALID_ARGS", invalid.errorCode());
    say("   notes_between %s", backwards);
    say("   -> %s: %s", invalid.errorCode(), invalid.errorMessage());
    String tooMany = "{\"query\":\"basil\",\"limit\":500}";
    ToolReply schema = agent.call("search_notes", tooMany);
    assertEquals(schema.toString(), "INVALID_ARGS", schema.errorCode());
    say("   search_notes %s", tooMany);
    say("   -> %s: %s", schema.errorCode(), schema.errorMessage());
    v2Act(search);
    apexAct(search, tooMany);
    say("");
    say("Try it yourself: samples/notes/README.md; the consent dialog and the plugin service:");
    say("android-template/README.md.");
  }

  /**
   * Act two: an agent that speaks CETP v2, as ClawSeed's newest client does: the versions
   * meta-data, {@code negotiate}, the annotated tool list, and approval through the {@code
   * resolution} PendingIntent and a single-use {@code resume_token}.
   */
  private void v2Act(String search) throws Exception {
    PackageManager pm = cetp.context().getPackageManager();
    Agent reader =
        cetp.agent(
            READER, "Reading Buddy", READER_UID, "reader-cert".getBytes(StandardCharsets.UTF_8));
    say("");
    say("Act two: Reading Buddy, an agent app that speaks CETP v2.");
    say("");
    List<ResolveInfo> services =
        pm.queryIntentServices(new Intent(TOOL_PROVIDER), PackageManager.GET_META_DATA);
    String versions = services.get(0).serviceInfo.metaData.getString(CetpV2.META_VERSIONS);
    assertEquals("1,2", versions);
    say("8. The discovery Service's meta-data: com.clawseed.tools.versions = \"%s\" -> negotiate", versions);
    V2Session session = reader.v2();
    JSONObject negotiated = session.negotiated();
    String token = session.sessionToken();
    say("   selected_version %d, provider_id %s, a %d-character session token bound to this app's UID",
        negotiated.getInt("selected_version"), negotiated.getString("provider_id"), token.length());
    say("   until %s; limits %s",
        negotiated.getString("expires_at"), negotiated.getJSONObject("limits"));

    V2Reply listed = session.listTools();
    assertTrue(listed.toString(), listed.isSuccess());
    JSONArray tools = listed.jsonObject().getJSONArray("tools");
    say("");
    say("9. list_tools (v2) -> revision %s, every tool with its scopes and seven annotations:",
        listed.jsonObject().getString("revision"));
    for (int i = 0; i < tools.length(); i++) {
      JSONObject tool = tools.getJSONObject(i);
      JSONObject a = tool.getJSONObject("annotations");
      say("   %-14s scopes %-14s effect %s, risk %s, confirmation %s, %s",
          tool.getString("name"), tool.getJSONArray("scopes"), a.getString("effect"),
          a.getString("risk"), a.getString("confirmation"), a.getString("execution"));
    }

    // The client gives a tool that may ask the user five minutes (its confirmation is not never).
    V2Reply refused = session.call("search_notes", search);
    assertEquals(refused.toString(), "AUTH_REQUIRED", refused.errorCode());
    PendingIntent resolution = refused.resolution();
    Intent saved = shadowOf(resolution).getSavedIntent();
    assertTrue(shadowOf(resolution).isImmutable());
    say("");
    say("10. execute_tool search_notes %s -> %s, retryable %s", search, refused.errorCode(),
        refused.retryable());
    say("   resolution: an immutable PendingIntent created by %s for %s",
        resolution.getCreatorPackage(), saved.getComponent().getClassName());
    say("   resume_token: %s (single use, bound to this call)", refused.resumeToken());
    ConsentDialog screen = session.openResolution(refused);
    say("   Reading Buddy launches it; the consent dialog shows its request and the user taps Allow.");
    screen.allow();
    assertTrue(screen.isFinishing());
    screen.close();

    V2Reply resumed = session.resume(refused);
    assertTrue(resumed.toString(), resumed.isSuccess());
    JSONObject envelope = resumed.jsonObject();
    say("");
    say("11. The same call with the resume_token -> {\"kind\":\"%s\",\"value\": %d hits}, request_id echoed",
        envelope.getString("kind"), envelope.getJSONArray("value").length());
    V2Reply again = session.resume(refused);
    assertEquals(again.toString(), "INVALID_REQUEST", again.errorCode());
    say("   The token again -> %s: %s", again.errorCode(), cut(again.errorMessage(), 80));
  }

  /** Act three: the same tools through the Apex agent's IApexPlugin Service. */
  private void apexAct(String search, String tooMany) throws Exception {
    Application application = RuntimeEnvironment.getApplication();
    PackageManager pm = application.getPackageManager();
    Agent apex = cetp.agent(APEX, "Apex", APEX_UID, "apex-cert".getBytes(StandardCharsets.UTF_8));
    shadowOf(application).grantPermissions(Manifest.permission.POST_NOTIFICATIONS);
    say("");
    say("Act three: the same app, unchanged, as a plugin of the Apex agent (IApexPlugin over AIDL).");
    say("");
    say("12. Discovery: queryIntentServices(%s)", Wire.APEX_PLUGIN_ACTION);
    List<ResolveInfo> plugins =
        pm.queryIntentServices(new Intent(Wire.APEX_PLUGIN_ACTION), PackageManager.MATCH_ALL);
    assertEquals(1, plugins.size());
    ServiceInfo found = plugins.get(0).serviceInfo;
    ComponentName component = new ComponentName(found.packageName, found.name);
    say("   %s", component.flattenToShortString());
    say("   -> bindService, IApexPlugin.Stub.asInterface; every call below is parceled");
    ApexPlugin plugin = apex.apex();
    say("   getMetadataJson -> %s", plugin.metadata());
    say("   minHostVersion %d <= host version %d: registered, onActivate sent",
        plugin.metadata().getInt("minHostVersion"), ApexAgent.HOST_VERSION);
    say("");
    say("13. getToolsJson -> %d tools (parametersSchema: the list_tools schema, as a string)",
        plugin.tools().size());
    for (ApexTool tool : plugin.tools().values()) {
      say("   %-20s %-15s parameters: %s", tool.id, "\"" + tool.name + "\"",
          String.join(", ", keys(tool.schema.getJSONObject("properties"))));
    }
    String id = "notes__search_notes";
    say("");
    say("14. executeTool(%s, %s)", id, search);
    ToolReply refused = plugin.call(id, search);
    assertEquals("AUTH_REQUIRED", refused.errorCode());
    for (String line : refused.text().split("\n")) {
      for (String part : wrap(line, 92)) {
        say("   %s", part);
      }
    }
    NotificationManager nm = application.getSystemService(NotificationManager.class);
    List<Notification> posted = shadowOf(nm).getAllNotifications();
    assertEquals(1, posted.size());
    Notification n = posted.get(0);
    Intent open = shadowOf(n.contentIntent).getSavedIntent();
    say("   Apex has no authorize intent; the Notes app posted a notification instead:");
    say("   \"%s\" / \"%s\" -> %s", shadowOf(n).getContentTitle(), shadowOf(n).getContentText(),
        open.getComponent() != null ? open.getComponent().getClassName() : open.getAction());
    ConsentDialog screen = cetp.openNotification(n);
    say("   The user taps it; the consent dialog shows Apex's request and the user taps Allow.");
    screen.allow();
    assertTrue(screen.isFinishing());
    screen.close();
    say("");
    say("15. The same executeTool again -> the result text:");
    ToolReply answer = plugin.call(id, search);
    assertEquals(null, answer.errorCode());
    JSONArray hits = new JSONArray(answer.text());
    say("   %s", cut(answer.text(), 92));
    say("   (%d hits, the same JSON a CETP agent gets as `data`)", hits.length());
    say("");
    say("16. A mistake, as Apex's model reads it:");
    ToolReply invalid = plugin.call(id, tooMany);
    assertEquals("INVALID_ARGS", invalid.errorCode());
    say("   executeTool(%s, %s)", id, tooMany);
    for (String part : wrap("-> " + invalid.text(), 92)) {
      say("   %s", part);
    }
    apexView(component, answer.text(), invalid.text());
  }

  /** The full Apex view of the sample, for reference: {@code -Dcetp.demo.out} + {@code .apex}. */
  private static void apexView(ComponentName component, String answer, String invalid)
      throws Exception {
    String target = System.getProperty("cetp.demo.out");
    if (target == null || target.isEmpty()) {
      return;
    }
    // The plugin's JSON as Apex receives it, read through one more binding of the Apex agent.
    ApexAgent host = new ApexAgent(ApexAgent.Mode.PARCELED);
    ApexAgent.Plugin plugin = host.bind(component);
    String text;
    try {
      text =
          "getMetadataJson:\n"
              + plugin.api.getMetadataJson()
              + "\n\ngetToolsJson:\n"
              + new JSONArray(plugin.api.getToolsJson()).toString(2)
              + "\n\nexecuteTool(notes__search_notes, ...):\n"
              + answer
              + "\n\nexecuteTool with invalid arguments:\n"
              + invalid
              + "\n";
    } finally {
      host.unbind(plugin);
    }
    Path path = Paths.get(target + ".apex");
    Files.createDirectories(path.toAbsolutePath().getParent());
    Files.write(path, text.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> keys(JSONObject o) {
    List<String> out = new ArrayList<>();
    o.keys().forEachRemaining(out::add);
    return out;
  }

  private void write() throws IOException {
    String target = System.getProperty("cetp.demo.out");
    String text = String.join("\n", lines) + "\n";
    if (target == null || target.isEmpty()) {
      PrintStream out = System.out;
      out.print(text);
      return;
    }
    Path path = Paths.get(target);
    Files.createDirectories(path.toAbsolutePath().getParent());
    Files.write(path, text.getBytes(StandardCharsets.UTF_8));
  }
}
