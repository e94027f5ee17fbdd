package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import android.app.Service;
import android.content.ComponentName;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.os.Bundle;
import android.os.IBinder;
import dev.cetp.testkit.ApexTool;
import dev.cetp.testkit.internal.ApexAgent;
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.ManifestInstaller;
import dev.cetp.e2e.category.FixtureProviderBundle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;

/**
 * The fixture provider (open policy) served to the Apex host through the template's {@code
 * ApexPluginService}: discovery by action, binding, metadata, tools, every error kind the
 * provider produces, lifecycle hooks, concurrency, odd callers and crafted Intents. Every test
 * runs twice over: the host's calls go through the local binder ({@link ApexAgent.Mode#LOCAL})
 * and through the generated Proxy and real Parcels ({@link ApexAgent.Mode#PARCELED}); the raw
 * {@code IBinder.transact} tests hand-build the Parcels. Runs in {@code bundle-fixture-provider}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(FixtureProviderBundle.class)
public class ApexFixtureE2ETest {
  static final String PACKAGE = "dev.cetp.rustfixture";
  static final ComponentName SERVICE = new ComponentName(PACKAGE, "dev.cetp.ApexPluginService");
  static final int APEX_UID = 10_777;
  static final String APEX = "com.apex.agent";
  static final byte[] APEX_CERT = "apex-signing-cert".getBytes(StandardCharsets.UTF_8);

  private PackageManager pm;
  private Service service;

  @Before
  public void install() {
    HostBundle bundle = HostBundle.current();
    ManifestInstaller.Installed app = bundle.install();
    app.startProviders();
    pm = RuntimeEnvironment.getApplication().getPackageManager();
    Callers.install(pm, APEX_UID, APEX, APEX_CERT);
    Callers.setCallingUid(APEX_UID);
    service = ApexAgent.publish(SERVICE, ApexAgent.bindIntent(SERVICE));
  }

  @After
  public void stop() {
    if (service != null) {
      service.onDestroy();
    }
  }

  private ApexAgent.Plugin bind(ApexAgent.Mode mode) throws Exception {
    ApexAgent host = new ApexAgent(mode);
    List<ComponentName> found = host.discover();
    assertTrue(found.toString(), found.contains(SERVICE));
    return host.bind(SERVICE);
  }

  @Test
  public void the_host_discovers_binds_and_registers_every_tool() throws Exception {
    for (ApexAgent.Mode mode : ApexAgent.Mode.values()) {
      ApexAgent.Plugin plugin = bind(mode);
      JSONObject meta = plugin.metadata;
      assertEquals(mode + " " + meta, PACKAGE, meta.getString("id"));
      assertEquals(meta.toString(), "CETP fixture", meta.getString("name"));
      assertEquals(
          meta.toString(), "Test tools for the cetp-rs end-to-end suite", meta.getString("description"));
      assertEquals(meta.toString(), 1, meta.getInt("minHostVersion"));
      assertTrue(meta.toString(), meta.get("version") instanceof Integer);
      assertTrue(meta.toString(), meta.has("versionName"));
      assertEquals(
          List.of(
              "rustfixture__echo",
              "rustfixture__whoami",
              "rustfixture__app_info",
              "rustfixture__boom",
              "rustfixture__oversized",
              "rustfixture__forecast",
              "rustfixture__fail",
              "rustfixture__apex_hooks"),
          new ArrayList<>(plugin.tools.keySet()));
      for (ApexTool tool : plugin.tools.values()) {
        assertTrue(tool.id, tool.id.matches("[a-zA-Z0-9_-]{1,64}"));
        assertEquals(tool.id, "object", tool.schema.getString("type"));
        assertTrue(tool.id, tool.schema.has("properties"));
        assertFalse(tool.id, tool.name.isEmpty());
        assertFalse(tool.id, tool.description.isEmpty());
      }
      assertEquals("Echo", plugin.tools.get("rustfixture__echo").name);
      JSONObject forecast = plugin.tools.get("rustfixture__forecast").schema;
      assertEquals(
          forecast.toString(),
          List.of("celsius", "fahrenheit"),
          toList(forecast.getJSONObject("properties").getJSONObject("unit").getJSONArray("enum")));
    }
  }

  @Test
  public void tools_answer_with_the_callers_binder_identity() throws Exception {
    for (ApexAgent.Mode mode : ApexAgent.Mode.values()) {
      ApexAgent.Plugin plugin = bind(mode);
      JSONObject echo = new JSONObject(plugin.execute("rustfixture__echo", "{\"text\":\"h\u00e9\ud83d\ude00\"}"));
      assertEquals(mode + " " + echo, "h\u00e9\ud83d\ude00", echo.getString("text"));
      assertEquals(echo.toString(), 3, echo.getInt("code_points"));
      JSONObject who = new JSONObject(plugin.execute("rustfixture__whoami", null));
      assertEquals(who.toString(), APEX_UID, who.getInt("uid"));
      JSONObject pkg = who.getJSONArray("packages").getJSONObject(0);
      assertEquals(who.toString(), APEX, pkg.getString("name"));
      assertEquals(
          who.toString(), Callers.sha256Hex(APEX_CERT), pkg.getJSONArray("certificates").getString(0));
      JSONArray forecast =
          new JSONArray(plugin.execute("rustfixture__forecast", "{\"unit\":\"fahrenheit\",\"days\":2}"));
      assertEquals(forecast.toString(), 53, forecast.getJSONArray(1).getJSONObject(1).getInt("temperature"));
    }
  }

  @Test
  public void every_error_kind_is_text_with_the_cetp_code() throws Exception {
    for (ApexAgent.Mode mode : ApexAgent.Mode.values()) {
      ApexAgent.Plugin plugin = bind(mode);
      String unknown = plugin.execute("workflow/save", "{}");
      ApexAgent.assertError(unknown, "TOOL_NOT_FOUND");
      assertTrue(unknown, unknown.contains("`workflow/save`"));
      ApexAgent.assertError(plugin.execute(null, null), "TOOL_NOT_FOUND");
      // The bare CETP name is not an Apex id.
      ApexAgent.assertError(plugin.execute("echo", "{\"text\":\"x\"}"), "TOOL_NOT_FOUND");

      String invalid = plugin.execute("rustfixture__forecast", "{\"unit\":\"kelvin\",\"days\":9}");
      ApexAgent.assertError(invalid, "INVALID_ARGS");
      assertTrue(invalid, invalid.contains("invalid arguments for `forecast`"));
      assertTrue(invalid, invalid.contains("`/unit`"));
      assertTrue(invalid, invalid.contains("`/days`"));
      ApexAgent.assertError(plugin.execute("rustfixture__echo", "not json"), "INVALID_ARGS");
      ApexAgent.assertError(plugin.execute("rustfixture__echo", "[1]"), "INVALID_ARGS");

      String big = plugin.execute("rustfixture__oversized", "{\"kib\":300}");
      ApexAgent.assertError(big, "INTERNAL_ERROR");
      assertTrue(big, big.contains("over the 256 KiB"));

      String boom = plugin.execute("rustfixture__boom", "{\"message\":\"secret detail\"}");
      ApexAgent.assertError(boom, "INTERNAL_ERROR");
      assertFalse("the panic message stays in the log: " + boom, boom.contains("secret detail"));
      // The plugin survives its panic.
      assertTrue(plugin.execute("rustfixture__echo", "{\"text\":\"ok\"}").startsWith("{"));

      for (String code :
          new String[] {
            "AUTH_REQUIRED", "PERMISSION_DENIED", "TOOL_NOT_FOUND", "INVALID_ARGS", "RATE_LIMITED",
            "INTERNAL_ERROR"
          }) {
        String text = plugin.execute("rustfixture__fail", "{\"code\":\"" + code + "\"}");
        ApexAgent.assertError(text, code);
        assertTrue(text, text.contains("fixture failure"));
      }
      String auth = plugin.execute("rustfixture__fail", "{\"code\":\"AUTH_REQUIRED\"}");
      assertTrue(auth, auth.contains("\nHint: Open the fixture app and allow access"));
    }
  }

  @Test
  public void invalid_args_text_is_the_cetp_message() throws Exception {
    ApexAgent.Plugin plugin = bind(ApexAgent.Mode.PARCELED);
    String args = "{\"unit\":\"kelvin\",\"days\":9}";
    String apex = plugin.execute("rustfixture__forecast", args);
    Bundle extras = new Bundle();
    extras.putString("tool_name", "forecast");
    extras.putString("args", args);
    Bundle reply =
        RuntimeEnvironment.getApplication()
            .getContentResolver()
            .call("dev.cetp.rustfixture.tools", "execute_tool", null, extras);
    assertNotNull(reply);
    assertEquals(
        "Error: INVALID_ARGS: " + reply.getString("error_message"), apex);
  }

  @Test
  public void every_method_survives_raw_transactions() throws Exception {
    IBinder binder = service.onBind(ApexAgent.bindIntent(SERVICE));
    JSONObject meta = new JSONObject(ApexAgent.transact(binder, ApexAgent.GET_METADATA));
    assertEquals(PACKAGE, meta.getString("id"));
    JSONArray tools = new JSONArray(ApexAgent.transact(binder, ApexAgent.GET_TOOLS));
    assertEquals(8, tools.length());
    for (int i = 0; i < tools.length(); i++) {
      new JSONObject(tools.getJSONObject(i).getString("parametersSchema"));
    }
    String echo = ApexAgent.transact(binder, ApexAgent.EXECUTE, "rustfixture__echo", "{\"text\":\"\\u0000x\"}");
    assertEquals("\u0000x", new JSONObject(echo).getString("text"));
    // Null strings on the wire.
    ApexAgent.assertError(ApexAgent.transact(binder, ApexAgent.EXECUTE, null, null), "TOOL_NOT_FOUND");
    ApexAgent.assertError(
        ApexAgent.transact(binder, ApexAgent.EXECUTE, "rustfixture__echo", null), "INVALID_ARGS");
    // An unpaired surrogate in the arguments.
    String lone = ApexAgent.transact(binder, ApexAgent.EXECUTE, "rustfixture__echo", "{\"text\":\"\ud800\"}");
    assertEquals("\ufffd", new JSONObject(lone).getString("text"));
    assertNull(ApexAgent.transact(binder, ApexAgent.ACTIVATE));
    assertNull(ApexAgent.transact(binder, ApexAgent.DEACTIVATE));
  }

  @Test
  public void activations_are_counted_per_host_in_the_admin_state() throws Exception {
    ApexAgent host = new ApexAgent(ApexAgent.Mode.PARCELED);
    ApexAgent.Plugin first = host.bind(SERVICE);
    ApexAgent.Plugin second = host.bind(SERVICE);
    host.unbind(second);
    JSONArray connections = ConsentAdmin.state().getJSONArray("connections");
    assertEquals(connections.toString(), 1, connections.length());
    JSONObject apex = connections.getJSONObject(0);
    assertEquals(apex.toString(), "apex", apex.getString("host"));
    assertEquals(apex.toString(), APEX_UID, apex.getInt("uid"));
    assertEquals(apex.toString(), List.of(APEX), toList(apex.getJSONArray("packages")));
    assertEquals(apex.toString(), 2, apex.getInt("activations"));
    assertEquals(apex.toString(), 1, apex.getInt("active"));
    // The hooks run once per connection of a host: when its first binding opens and when its
    // last one closes. Two bindings and one unbinding ran the activation hook once.
    JSONObject hooks = new JSONObject(first.execute("rustfixture__apex_hooks", "{}"));
    assertEquals(hooks.toString(), 1, hooks.getInt("activations"));
    assertEquals(hooks.toString(), 0, hooks.getInt("deactivations"));
    host.unbind(first);
    assertEquals(0, ConsentAdmin.state().getJSONArray("connections").getJSONObject(0).getInt("active"));
    // The last binding closed: the deactivation hook ran (it panics on purpose, and the host
    // saw nothing of it); binding again is a new connection.
    ApexAgent.Plugin third = host.bind(SERVICE);
    hooks = new JSONObject(third.execute("rustfixture__apex_hooks", "{}"));
    assertEquals(hooks.toString(), 2, hooks.getInt("activations"));
    assertEquals(hooks.toString(), 1, hooks.getInt("deactivations"));
    host.unbind(third);
  }

  @Test
  public void sixteen_hosts_call_at_once() throws Exception {
    ApexAgent.Plugin local = bind(ApexAgent.Mode.LOCAL);
    ApexAgent.Plugin parceled = bind(ApexAgent.Mode.PARCELED);
    int threads = 16;
    int calls = 50;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      ApexAgent.Plugin plugin = t % 2 == 0 ? local : parceled;
      int id = t;
      Callable<Integer> body =
          () -> {
            start.await();
            int ok = 0;
            for (int i = 0; i < calls; i++) {
              String text = "t" + id + "-" + i;
              String out = plugin.execute("rustfixture__echo", "{\"text\":\"" + text + "\"}");
              if (new JSONObject(out).getString("text").equals(text)) {
                ok++;
              }
              if (i % 10 == 0) {
                ApexAgent.assertError(
                    plugin.execute("rustfixture__forecast", "{\"days\":0}"), "INVALID_ARGS");
              }
            }
            return ok;
          };
      results.add(pool.submit(body));
    }
    start.countDown();
    int total = 0;
    for (Future<Integer> r : results) {
      total += r.get(5, TimeUnit.MINUTES);
    }
    pool.shutdown();
    assertEquals(threads * calls, total);
  }

  @Test
  public void a_caller_uid_without_packages_is_answered() throws Exception {
    ApexAgent.Plugin plugin = bind(ApexAgent.Mode.PARCELED);
    Callers.setCallingUid(10_999); // no package installed under it
    JSONObject who = new JSONObject(plugin.execute("rustfixture__whoami", "{}"));
    assertEquals(who.toString(), 10_999, who.getInt("uid"));
    assertEquals(who.toString(), 0, who.getJSONArray("packages").length());
    // The metadata and tools answer too (the open policy does not gate discovery).
    assertEquals(PACKAGE, new JSONObject(plugin.api.getMetadataJson()).getString("id"));
  }

  @Test
  public void a_crafted_intent_changes_nothing() throws Exception {
    Intent crafted =
        new Intent("com.example.ANYTHING")
            .setClassName(PACKAGE, SERVICE.getClassName())
            .putExtra("uid", 0)
            .putExtra("caller", "android")
            .putExtra("package", "com.trusted.app")
            .putExtra("tool_name", "boom");
    Service other = ApexAgent.publish(SERVICE, crafted);
    try {
      other.onStartCommand(crafted, 0, 1);
      IBinder binder = other.onBind(crafted);
      String who =
          ApexAgent.transact(binder, ApexAgent.EXECUTE, "rustfixture__whoami", "{}");
      JSONObject view = new JSONObject(who);
      assertEquals(who, APEX_UID, view.getInt("uid"));
      assertEquals(who, APEX, view.getJSONArray("packages").getJSONObject(0).getString("name"));
    } finally {
      other.onDestroy();
    }
  }

  private static List<String> toList(JSONArray a) throws Exception {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < a.length(); i++) {
      out.add(a.getString(i));
    }
    return out;
  }
}
