package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.robolectric.Shadows.shadowOf;

import android.Manifest;
import android.app.Application;
import android.app.Notification;
import android.app.NotificationManager;
import android.content.Intent;
import dev.cetp.e2e.category.ExpensesBundle;
import dev.cetp.e2e.category.MinimalBundle;
import dev.cetp.e2e.category.NotesBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.ApexPlugin;
import dev.cetp.testkit.ApexTool;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.ToolReply;
// Internal: the pending request read back, a decline without the dialog, the own entry's name.
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.ConsentScreens;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.shadows.ShadowNotificationManager;

/**
 * Each sample served to the Apex agent as a plugin, with the sample's default authorization
 * (user approval): the agent is refused until the user approves it, a notification leads to the
 * consent dialog, then every tool answers through the Binder path with real Parcels, and the
 * tools are the ones a CETP agent sees. Runs in {@code bundle-minimal}, {@code bundle-notes} and
 * {@code bundle-expenses}; the arguments per tool are in {@link #ARGS}.
 */
@RunWith(RobolectricTestRunner.class)
@Category({MinimalBundle.class, NotesBundle.class, ExpensesBundle.class})
public class ApexSamplesE2ETest {
  static final int APEX_UID = 10_777;
  static final String APEX = "com.apex.agent";
  static final byte[] APEX_CERT = "apex-signing-cert".getBytes(StandardCharsets.UTF_8);

  /** Valid arguments for every tool of every sample, by bundle name, in declaration order. */
  static final Map<String, Map<String, String>> ARGS = new LinkedHashMap<>();

  static {
    Map<String, String> minimal = new LinkedHashMap<>();
    minimal.put("greet", "{\"name\":\"Ada\"}");
    ARGS.put("minimal", minimal);
    Map<String, String> notes = new LinkedHashMap<>();
    notes.put("search_notes", "{\"query\":\"basil\",\"limit\":3}");
    notes.put("get_note", "{\"id\":1}");
    notes.put("list_tags", "{}");
    notes.put("notes_between", "{\"from\":\"2023-03-01\",\"to\":\"2023-03-31\",\"limit\":2}");
    notes.put("find_text", "{\"text\":\"basil\",\"limit\":2}");
    ARGS.put("notes", notes);
    Map<String, String> expenses = new LinkedHashMap<>();
    String range = "{\"from\":\"2025-03-01\",\"to\":\"2025-03-31\"}";
    expenses.put("spending_by_category", "{\"range\":" + range + "}");
    expenses.put("spending_over_time", "{\"range\":" + range + ",\"period\":\"month\"}");
    expenses.put("top_merchants", "{\"range\":" + range + ",\"limit\":3}");
    expenses.put("export_expenses", "{\"range\":" + range + "}");
    ARGS.put("expenses", expenses);
  }

  /** Each sample's app name (its {@code android:label}), by bundle name. */
  static final Map<String, String> LABELS = new LinkedHashMap<>();

  static {
    LABELS.put("minimal", "Minimal sample");
    LABELS.put("notes", "Notes");
    LABELS.put("expenses", "Expenses");
  }

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private String packageName;
  private String bundle;
  private Agent apex;

  @Before
  public void install() {
    packageName = cetp.packageName();
    // Each sample's bundle is named by its package's last segment.
    bundle = packageName.substring(packageName.lastIndexOf('.') + 1);
    apex = cetp.agent(APEX, "Apex", APEX_UID, APEX_CERT);
  }

  private Map<String, String> args() {
    Map<String, String> args = ARGS.get(bundle);
    assertNotNull("no arguments listed for " + bundle, args);
    return args;
  }

  private String id(String tool) {
    String segment = packageName.substring(packageName.lastIndexOf('.') + 1);
    return segment + "__" + tool;
  }

  /** An {@code executeTool} error of {@code code}, as Apex's model reads it. */
  private static ToolReply assertApexError(ToolReply reply, String code) {
    assertTrue(reply.text(), reply.text().startsWith("Error: " + code + ": "));
    return reply.assertError(code);
  }

  @Test
  public void the_plugin_offers_the_same_tools_as_list_tools() throws Exception {
    ApexPlugin plugin = apex.apex();
    assertEquals(packageName, plugin.metadata().getString("id"));
    ToolReply list = apex.listTools();
    JSONArray cetpTools = list.jsonObject().getJSONArray("tools");
    assertEquals(args().keySet().size(), cetpTools.length());
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < cetpTools.length(); i++) {
      JSONObject tool = cetpTools.getJSONObject(i);
      String name = tool.getString("name");
      ids.add(id(name));
      ApexTool apexTool = plugin.tools().get(id(name));
      assertNotNull(name + " in " + plugin.tools().keySet(), apexTool);
      assertEquals(name, tool.getString("description"), apexTool.description);
      assertEquals(name, tool.getJSONObject("parameters").toString(), apexTool.schema.toString());
    }
    assertEquals(ids, new ArrayList<>(plugin.tools().keySet()));
    assertEquals(new ArrayList<>(args().keySet()).size(), ids.size());
  }

  @Test
  public void every_tool_answers_once_the_user_approved_the_host() throws Exception {
    ApexPlugin plugin = apex.apex();
    // Every tool is refused first; the requests merge into one, for every scope asked.
    for (Map.Entry<String, String> tool : args().entrySet()) {
      ToolReply refused = plugin.call(id(tool.getKey()), tool.getValue());
      assertApexError(refused, "AUTH_REQUIRED");
      assertTrue(refused.text(), refused.text().contains("\nHint: Open "));
    }
    JSONObject pending = ConsentAdmin.pendingFrom(APEX_UID);
    assertEquals(
        APEX, pending.getJSONArray("packages").getJSONObject(0).getString("name"));
    apex.approvePending(Approval.full());
    for (Map.Entry<String, String> tool : args().entrySet()) {
      ToolReply out = plugin.call(id(tool.getKey()), tool.getValue());
      assertNull(tool.getKey() + ": " + out.text(), out.errorCode());
      // A result is JSON text.
      new org.json.JSONTokener(out.text()).nextValue();
    }
  }

  @Test
  public void a_refused_host_gets_a_notification_that_opens_the_approval_screen()
      throws Exception {
    Application application = RuntimeEnvironment.getApplication();
    NotificationManager nm = application.getSystemService(NotificationManager.class);
    ShadowNotificationManager notifications = shadowOf(nm);
    ApexPlugin plugin = apex.apex();
    String first = args().keySet().iterator().next();

    // Without POST_NOTIFICATIONS (API 33+), nothing is posted.
    shadowOf(application).denyPermissions(Manifest.permission.POST_NOTIFICATIONS);
    assertApexError(plugin.call(id(first), args().get(first)), "AUTH_REQUIRED");
    assertEquals(0, notifications.getAllNotifications().size());

    shadowOf(application).grantPermissions(Manifest.permission.POST_NOTIFICATIONS);
    assertApexError(plugin.call(id(first), args().get(first)), "AUTH_REQUIRED");
    List<Notification> posted = notifications.getAllNotifications();
    assertEquals(1, posted.size());
    Notification n = posted.get(0);
    String title = shadowOf(n).getContentTitle().toString();
    // The app's name, as its manifest's label gives it (not its package name).
    assertEquals("Apex wants to use " + LABELS.get(bundle), title);
    String text = shadowOf(n).getContentText().toString();
    assertTrue(text, text.contains(APEX));
    // The tap opens the app's own (not exported) entry of the dialog, for Apex's request.
    Intent open = shadowOf(n.contentIntent).getSavedIntent();
    assertEquals(packageName, open.getComponent().getPackageName());
    assertEquals(ConsentScreens.OWN_ENTRY, open.getComponent().getClassName());
    assertEquals(APEX_UID, open.getIntExtra("dev.cetp.extra.REQUEST_UID", -1));
    ConsentDialog dialog = cetp.openNotification(n);
    assertTrue(dialog.text(), dialog.text().contains("Apex"));
    dialog.allow();
    assertTrue(dialog.isFinishing());
    assertNull(plugin.call(id(first), args().get(first)).errorCode());
  }

  @Test
  public void a_denied_host_is_told_so() throws Exception {
    ApexPlugin plugin = apex.apex();
    String first = args().keySet().iterator().next();
    assertApexError(plugin.call(id(first), args().get(first)), "AUTH_REQUIRED");
    JSONObject request = ConsentAdmin.pendingFrom(APEX_UID);
    ConsentAdmin.adminOk(new JSONObject().put("op", "deny").put("id", request.getString("id")));
    ToolReply denied = plugin.call(id(first), args().get(first));
    assertApexError(denied, "PERMISSION_DENIED");
    assertTrue(denied.text(), denied.text().contains("declined"));
  }

  @Test
  public void the_cetp_grant_and_the_apex_grant_are_one_identity() throws Exception {
    // An app that is both a CETP agent and an Apex agent is approved once.
    ApexPlugin plugin = apex.apex();
    String first = args().keySet().iterator().next();
    ToolReply overCetp = apex.call(first, args().get(first));
    assertEquals(overCetp.toString(), "AUTH_REQUIRED", overCetp.errorCode());
    assertApexError(plugin.call(id(first), args().get(first)), "AUTH_REQUIRED");
    apex.approvePending(Approval.full()); // one request, merged
    assertNull(plugin.call(id(first), args().get(first)).errorCode());
  }
}
