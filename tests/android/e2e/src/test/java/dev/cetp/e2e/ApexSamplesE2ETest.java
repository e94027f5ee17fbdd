package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.robolectric.Shadows.shadowOf;

import android.Manifest;
import android.app.Application;
import android.app.Notification;
import android.app.NotificationManager;
import android.app.Service;
import android.content.ComponentName;
import android.content.Intent;
import android.content.pm.PackageManager;
import dev.cetp.testkit.ApexTool;
import dev.cetp.testkit.internal.ApexAgent;
import dev.cetp.testkit.internal.ConsentScreens;
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.ToolReply;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.ManifestInstaller;
import dev.cetp.e2e.category.ExpensesBundle;
import dev.cetp.e2e.category.MinimalBundle;
import dev.cetp.e2e.category.NotesBundle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.shadows.ShadowNotificationManager;

/**
 * Each sample served to the Apex host as a plugin, with the sample's default authorization (user
 * approval): the host is refused until the user approves it, a notification leads to the
 * approval screen, then every tool answers through the Binder path with real Parcels, and the
 * tools are the ones a CETP consumer sees. Runs in {@code bundle-minimal}, {@code bundle-notes}
 * and {@code bundle-expenses}; the arguments per tool are in {@link #ARGS}.
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
    ARGS.put("notes", notes);
    Map<String, String> expenses = new LinkedHashMap<>();
    String range = "{\"from\":\"2025-03-01\",\"to\":\"2025-03-31\"}";
    expenses.put("spending_by_category", "{\"range\":" + range + "}");
    expenses.put("spending_over_time", "{\"range\":" + range + ",\"period\":\"month\"}");
    expenses.put("top_merchants", "{\"range\":" + range + ",\"limit\":3}");
    ARGS.put("expenses", expenses);
  }

  /** Each sample's app name (its {@code android:label}), by bundle name. */
  static final Map<String, String> LABELS = new LinkedHashMap<>();

  static {
    LABELS.put("minimal", "Minimal sample");
    LABELS.put("notes", "Notes");
    LABELS.put("expenses", "Expenses");
  }

  private HostBundle bundle;
  private ManifestInstaller.Installed app;
  private String packageName;
  private ComponentName component;
  private Service service;
  private final List<ConsentScreens> screens = new ArrayList<>();

  @Before
  public void install() {
    bundle = HostBundle.current();
    app = bundle.install();
    app.startProviders();
    packageName = app.manifest.packageName();
    component = new ComponentName(packageName, "dev.cetp.ApexPluginService");
    PackageManager pm = RuntimeEnvironment.getApplication().getPackageManager();
    Callers.installLabelled(pm, APEX_UID, APEX, "Apex", APEX_CERT);
    Callers.setCallingUid(APEX_UID);
    service = ApexAgent.publish(component, ApexAgent.bindIntent(component));
  }

  @After
  public void stop() {
    for (ConsentScreens screen : screens) {
      screen.close();
    }
    if (service != null) {
      service.onDestroy();
    }
  }

  private Map<String, String> args() {
    Map<String, String> args = ARGS.get(bundle.name());
    assertNotNull("no arguments listed for " + bundle.name(), args);
    return args;
  }

  private String id(String tool) {
    String segment = packageName.substring(packageName.lastIndexOf('.') + 1);
    return segment + "__" + tool;
  }

  private ApexAgent.Plugin bind() throws Exception {
    ApexAgent host = new ApexAgent(ApexAgent.Mode.PARCELED);
    assertTrue(host.discover().toString(), host.discover().contains(component));
    return host.bind(component);
  }

  /** The user approves the Apex host's pending request with full access. */
  private void approve() {
    JSONObject request = ConsentAdmin.pendingFrom(APEX_UID);
    ConsentAdmin.approve(request.optString("id"), ConsentAdmin.Access.FULL);
  }

  @Test
  public void the_plugin_offers_the_same_tools_as_list_tools() throws Exception {
    ApexAgent.Plugin plugin = bind();
    assertEquals(packageName, plugin.metadata.getString("id"));
    ToolReply list =
        new CetpTransport().listTools(app.manifest.packageInfo.providers[0].authority);
    JSONArray cetp = list.jsonObject().getJSONArray("tools");
    assertEquals(args().keySet().size(), cetp.length());
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < cetp.length(); i++) {
      JSONObject tool = cetp.getJSONObject(i);
      String name = tool.getString("name");
      ids.add(id(name));
      ApexTool apex = plugin.tools.get(id(name));
      assertNotNull(name + " in " + plugin.tools.keySet(), apex);
      assertEquals(name, tool.getString("description"), apex.description);
      assertEquals(name, tool.getJSONObject("parameters").toString(), apex.schema.toString());
    }
    assertEquals(ids, new ArrayList<>(plugin.tools.keySet()));
    assertEquals(new ArrayList<>(args().keySet()).size(), ids.size());
  }

  @Test
  public void every_tool_answers_once_the_user_approved_the_host() throws Exception {
    ApexAgent.Plugin plugin = bind();
    // Every tool is refused first; the requests merge into one, for every scope asked.
    for (Map.Entry<String, String> tool : args().entrySet()) {
      String refused = plugin.execute(id(tool.getKey()), tool.getValue());
      ApexAgent.assertError(refused, "AUTH_REQUIRED");
      assertTrue(refused, refused.contains("\nHint: Open "));
    }
    JSONObject pending = ConsentAdmin.pendingFrom(APEX_UID);
    assertEquals(
        APEX, pending.getJSONArray("packages").getJSONObject(0).getString("name"));
    approve();
    for (Map.Entry<String, String> tool : args().entrySet()) {
      String out = plugin.execute(id(tool.getKey()), tool.getValue());
      assertNull(tool.getKey() + ": " + out, ApexAgent.errorCode(out));
      // A result is JSON text.
      new org.json.JSONTokener(out).nextValue();
    }
  }

  @Test
  public void a_refused_host_gets_a_notification_that_opens_the_approval_screen()
      throws Exception {
    Application application = RuntimeEnvironment.getApplication();
    NotificationManager nm = application.getSystemService(NotificationManager.class);
    ShadowNotificationManager notifications = shadowOf(nm);
    ApexAgent.Plugin plugin = bind();
    String first = args().keySet().iterator().next();

    // Without POST_NOTIFICATIONS (API 33+), nothing is posted.
    shadowOf(application).denyPermissions(Manifest.permission.POST_NOTIFICATIONS);
    ApexAgent.assertError(plugin.execute(id(first), args().get(first)), "AUTH_REQUIRED");
    assertEquals(0, notifications.getAllNotifications().size());

    shadowOf(application).grantPermissions(Manifest.permission.POST_NOTIFICATIONS);
    ApexAgent.assertError(plugin.execute(id(first), args().get(first)), "AUTH_REQUIRED");
    List<Notification> posted = notifications.getAllNotifications();
    assertEquals(1, posted.size());
    Notification n = posted.get(0);
    String title = shadowOf(n).getContentTitle().toString();
    // The app's name, as its manifest's label gives it (not its package name).
    assertEquals("Apex wants to use " + LABELS.get(bundle.name()), title);
    assertTrue(shadowOf(n).getContentText().toString(), shadowOf(n).getContentText().toString().contains(APEX));
    // The tap opens the app's own (not exported) entry of the approval screen, for Apex's request.
    Intent open = shadowOf(n.contentIntent).getSavedIntent();
    assertEquals(packageName, open.getComponent().getPackageName());
    assertEquals(ConsentScreens.OWN_ENTRY, open.getComponent().getClassName());
    assertEquals(APEX_UID, open.getIntExtra("dev.cetp.extra.REQUEST_UID", -1));
    ConsentScreens screen = ConsentScreens.launchExplicit(open);
    screens.add(screen);
    assertTrue(screen.text(), screen.text().contains("Apex"));
    screen.tap("cetp:allow");
    assertTrue(screen.isFinishing());
    assertNull(ApexAgent.errorCode(plugin.execute(id(first), args().get(first))));
  }

  @Test
  public void a_denied_host_is_told_so() throws Exception {
    ApexAgent.Plugin plugin = bind();
    String first = args().keySet().iterator().next();
    ApexAgent.assertError(plugin.execute(id(first), args().get(first)), "AUTH_REQUIRED");
    JSONObject request = ConsentAdmin.pendingFrom(APEX_UID);
    ConsentAdmin.adminOk(new JSONObject().put("op", "deny").put("id", request.getString("id")));
    String denied = plugin.execute(id(first), args().get(first));
    ApexAgent.assertError(denied, "PERMISSION_DENIED");
    assertTrue(denied, denied.contains("declined"));
  }

  @Test
  public void the_cetp_grant_and_the_apex_grant_are_one_identity() throws Exception {
    // An app that is both a CETP consumer and an Apex host is approved once.
    ApexAgent.Plugin plugin = bind();
    String first = args().keySet().iterator().next();
    ToolReply cetp =
        new CetpTransport()
            .executeTool(
                app.manifest.packageInfo.providers[0].authority, first, args().get(first), null);
    assertEquals(cetp.toString(), "AUTH_REQUIRED", cetp.errorCode());
    ApexAgent.assertError(plugin.execute(id(first), args().get(first)), "AUTH_REQUIRED");
    approve(); // one request, merged
    assertNull(ApexAgent.errorCode(plugin.execute(id(first), args().get(first))));
  }
}
