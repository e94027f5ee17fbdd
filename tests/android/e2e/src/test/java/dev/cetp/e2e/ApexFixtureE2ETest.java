package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import android.app.Service;
import android.content.ComponentName;
import android.content.Intent;
import android.os.IBinder;
import dev.cetp.e2e.category.FixtureProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.ApexPlugin;
import dev.cetp.testkit.ApexTool;
import dev.cetp.testkit.CallForm;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ToolReply;
// Internal: the binder called locally and raw, crafted Intents, a bare UID, the admin state.
import dev.cetp.testkit.internal.ApexAgent;
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.ConsentAdmin;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * The fixture provider (open policy) served to the Apex agent through the template's {@code
 * ApexPluginService}: discovery by action, binding, metadata, tools, every error kind the
 * provider produces, lifecycle hooks, concurrency, odd callers and crafted Intents. Every test
 * runs twice over: the calls go through the local binder ({@link ApexAgent.Mode#LOCAL}, which no
 * Apex does) and through the generated Proxy and real Parcels, as Apex binds the plugin ({@link
 * Agent#apex()}); the raw {@code IBinder.transact} tests hand-build the Parcels. Runs in {@code
 * bundle-fixture-provider}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(FixtureProviderBundle.class)
public class ApexFixtureE2ETest {
  static final String PACKAGE = "dev.cetp.rustfixture";
  static final ComponentName SERVICE = new ComponentName(PACKAGE, "dev.cetp.ApexPluginService");
  static final int APEX_UID = 10_777;
  static final String APEX = "com.apex.agent";
  static final byte[] APEX_CERT = "apex-signing-cert".getBytes(StandardCharsets.UTF_8);

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private Agent apex;
  private Service service;

  @Before
  public void install() {
    apex = cetp.agent(APEX, null, APEX_UID, APEX_CERT);
    // The local binder and the raw transactions carry no caller of their own: Apex's UID.
    Callers.setCallingUid(APEX_UID);
    service = ApexAgent.publish(SERVICE, ApexAgent.bindIntent(SERVICE));
  }

  @After
  public void stop() {
    if (service != null) {
      service.onDestroy();
    }
  }

  /** A bound plugin, called with exactly the tool ids given, whichever way it was bound. */
  private static final class Bound {
    final JSONObject metadata;
    final Map<String, ApexTool> tools;
    private final BiFunction<String, String, ToolReply> executeTool;

    Bound(
        JSONObject metadata,
        Map<String, ApexTool> tools,
        BiFunction<String, String, ToolReply> executeTool) {
      this.metadata = metadata;
      this.tools = tools;
      this.executeTool = executeTool;
    }

    ToolReply call(String id, String argumentsJson) {
      return executeTool.apply(id, argumentsJson);
    }
  }

  /** PARCELED: as Apex binds it ({@code agent.apex()}); LOCAL: the Service's own binder. */
  private Bound bind(ApexAgent.Mode mode) throws Exception {
    if (mode == ApexAgent.Mode.PARCELED) {
      ApexPlugin plugin = apex.apex();
      return new Bound(plugin.metadata(), plugin.tools(), plugin::callId);
    }
    ApexAgent.Plugin plugin = bindInternal(mode);
    return new Bound(
        plugin.metadata,
        plugin.tools,
        (id, arguments) -> ToolReply.ofApex(plugin.execute(id, arguments)));
  }

  private static ApexAgent.Plugin bindInternal(ApexAgent.Mode mode) throws Exception {
    ApexAgent host = new ApexAgent(mode);
    List<ComponentName> found = host.discover();
    assertTrue(found.toString(), found.contains(SERVICE));
    return host.bind(SERVICE);
  }

  /** An {@code executeTool} error of {@code code}, as Apex's model reads it. */
  private static ToolReply assertApexError(ToolReply reply, String code) {
    assertTrue(reply.text(), reply.text().startsWith("Error: " + code + ": "));
    return reply.assertError(code);
  }

  @Test
  public void the_host_discovers_binds_and_registers_every_tool() throws Exception {
    for (ApexAgent.Mode mode : ApexAgent.Mode.values()) {
      Bound plugin = bind(mode);
      JSONObject meta = plugin.metadata;
      assertEquals(mode + " " + meta, PACKAGE, meta.getString("id"));
      assertEquals(meta.toString(), "CETP fixture", meta.getString("name"));
      assertEquals(
          meta.toString(),
          "Test tools for the cetp-rs end-to-end suite",
          meta.getString("description"));
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
              "rustfixture__apex_hooks",
              "rustfixture__crawl",
              "rustfixture__gate"),
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
      Bound plugin = bind(mode);
      JSONObject echo =
          plugin.call("rustfixture__echo", "{\"text\":\"h\u00e9\ud83d\ude00\"}").jsonObject();
      assertEquals(mode + " " + echo, "h\u00e9\ud83d\ude00", echo.getString("text"));
      assertEquals(echo.toString(), 3, echo.getInt("code_points"));
      JSONObject who = plugin.call("rustfixture__whoami", null).jsonObject();
      assertEquals(who.toString(), APEX_UID, who.getInt("uid"));
      JSONObject pkg = who.getJSONArray("packages").getJSONObject(0);
      assertEquals(who.toString(), APEX, pkg.getString("name"));
      assertEquals(
          who.toString(), apex.certificateSha256(), pkg.getJSONArray("certificates").getString(0));
      JSONArray forecast =
          plugin
              .call("rustfixture__forecast", "{\"unit\":\"fahrenheit\",\"days\":2}")
              .jsonArray();
      assertEquals(
          forecast.toString(),
          53,
          forecast.getJSONArray(1).getJSONObject(1).getInt("temperature"));
    }
  }

  @Test
  public void every_error_kind_is_text_with_the_cetp_code() throws Exception {
    for (ApexAgent.Mode mode : ApexAgent.Mode.values()) {
      Bound plugin = bind(mode);
      ToolReply unknown = plugin.call("workflow/save", "{}");
      assertApexError(unknown, "TOOL_NOT_FOUND");
      assertTrue(unknown.text(), unknown.text().contains("`workflow/save`"));
      assertApexError(plugin.call(null, null), "TOOL_NOT_FOUND");
      // The bare CETP name is not an Apex id.
      assertApexError(plugin.call("echo", "{\"text\":\"x\"}"), "TOOL_NOT_FOUND");

      ToolReply invalid =
          plugin.call("rustfixture__forecast", "{\"unit\":\"kelvin\",\"days\":9}");
      assertApexError(invalid, "INVALID_ARGS");
      assertTrue(invalid.text(), invalid.text().contains("invalid arguments for `forecast`"));
      assertTrue(invalid.text(), invalid.text().contains("`/unit`"));
      assertTrue(invalid.text(), invalid.text().contains("`/days`"));
      assertApexError(plugin.call("rustfixture__echo", "not json"), "INVALID_ARGS");
      assertApexError(plugin.call("rustfixture__echo", "[1]"), "INVALID_ARGS");

      ToolReply big = plugin.call("rustfixture__oversized", "{\"kib\":300}");
      assertApexError(big, "INTERNAL_ERROR");
      assertTrue(big.text(), big.text().contains("over the 256 KiB"));

      ToolReply boom = plugin.call("rustfixture__boom", "{\"message\":\"secret detail\"}");
      assertApexError(boom, "INTERNAL_ERROR");
      assertFalse(
          "the panic message stays in the log: " + boom.text(),
          boom.text().contains("secret detail"));
      // The plugin survives its panic.
      assertTrue(plugin.call("rustfixture__echo", "{\"text\":\"ok\"}").text().startsWith("{"));

      for (String code :
          new String[] {
            "AUTH_REQUIRED", "PERMISSION_DENIED", "TOOL_NOT_FOUND", "INVALID_ARGS", "RATE_LIMITED",
            "INTERNAL_ERROR"
          }) {
        ToolReply failed = plugin.call("rustfixture__fail", "{\"code\":\"" + code + "\"}");
        assertApexError(failed, code);
        assertTrue(failed.text(), failed.text().contains("fixture failure"));
      }
      String auth = plugin.call("rustfixture__fail", "{\"code\":\"AUTH_REQUIRED\"}").text();
      assertTrue(auth, auth.contains("\nHint: Open the fixture app and allow access"));
    }
  }

  @Test
  public void invalid_args_text_is_the_cetp_message() throws Exception {
    ApexPlugin plugin = apex.apex();
    String args = "{\"unit\":\"kelvin\",\"days\":9}";
    String overApex = plugin.call("rustfixture__forecast", args).text();
    ToolReply overCetp = apex.call(CallForm.AUTHORITY, "forecast", args);
    assertFalse(overCetp.toString(), overCetp.isNull());
    assertEquals("Error: INVALID_ARGS: " + overCetp.errorMessage(), overApex);
  }

  @Test
  public void every_method_survives_raw_transactions() throws Exception {
    IBinder binder = service.onBind(ApexAgent.bindIntent(SERVICE));
    JSONObject meta = new JSONObject(ApexAgent.transact(binder, ApexAgent.GET_METADATA));
    assertEquals(PACKAGE, meta.getString("id"));
    JSONArray tools = new JSONArray(ApexAgent.transact(binder, ApexAgent.GET_TOOLS));
    assertEquals(10, tools.length());
    for (int i = 0; i < tools.length(); i++) {
      new JSONObject(tools.getJSONObject(i).getString("parametersSchema"));
    }
    String echo =
        ApexAgent.transact(
            binder, ApexAgent.EXECUTE, "rustfixture__echo", "{\"text\":\"\\u0000x\"}");
    assertEquals("\u0000x", new JSONObject(echo).getString("text"));
    // Null strings on the wire.
    ApexAgent.assertError(
        ApexAgent.transact(binder, ApexAgent.EXECUTE, null, null), "TOOL_NOT_FOUND");
    ApexAgent.assertError(
        ApexAgent.transact(binder, ApexAgent.EXECUTE, "rustfixture__echo", null), "INVALID_ARGS");
    // An unpaired surrogate in the arguments.
    String lone =
        ApexAgent.transact(
            binder, ApexAgent.EXECUTE, "rustfixture__echo", "{\"text\":\"\ud800\"}");
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
    JSONObject connection = connections.getJSONObject(0);
    assertEquals(connection.toString(), "apex", connection.getString("host"));
    assertEquals(connection.toString(), APEX_UID, connection.getInt("uid"));
    assertEquals(
        connection.toString(), List.of(APEX), toList(connection.getJSONArray("packages")));
    assertEquals(connection.toString(), 2, connection.getInt("activations"));
    assertEquals(connection.toString(), 1, connection.getInt("active"));
    // The hooks run once per connection of a host: when its first binding opens and when its
    // last one closes. Two bindings and one unbinding ran the activation hook once.
    JSONObject hooks = new JSONObject(first.execute("rustfixture__apex_hooks", "{}"));
    assertEquals(hooks.toString(), 1, hooks.getInt("activations"));
    assertEquals(hooks.toString(), 0, hooks.getInt("deactivations"));
    host.unbind(first);
    assertEquals(
        0, ConsentAdmin.state().getJSONArray("connections").getJSONObject(0).getInt("active"));
    // The last binding closed: the deactivation hook ran (it panics on purpose, and the host
    // saw nothing of it); binding again is a new connection.
    ApexAgent.Plugin third = host.bind(SERVICE);
    hooks = new JSONObject(third.execute("rustfixture__apex_hooks", "{}"));
    assertEquals(hooks.toString(), 2, hooks.getInt("activations"));
    assertEquals(hooks.toString(), 1, hooks.getInt("deactivations"));
    host.unbind(third);
  }

  /**
   * A host that activated and never deactivated (it died, or just never said so) holds its entry
   * only until the Service's last binding closes: {@code onUnbind} ends every open binding, once,
   * with its deactivation hook, and a later bind is a new connection.
   */
  @Test
  public void the_service_unbound_closes_a_host_that_never_deactivated() throws Exception {
    ApexAgent host = new ApexAgent(ApexAgent.Mode.PARCELED);
    host.bind(SERVICE);
    host.bind(SERVICE);
    assertEquals(
        2, ConsentAdmin.state().getJSONArray("connections").getJSONObject(0).getInt("active"));

    assertFalse("no onRebind wanted", service.onUnbind(ApexAgent.bindIntent(SERVICE)));
    JSONObject connection = ConsentAdmin.state().getJSONArray("connections").getJSONObject(0);
    assertEquals(connection.toString(), 0, connection.getInt("active"));
    assertEquals(connection.toString(), 2, connection.getInt("activations"));

    ApexAgent.Plugin again = host.bind(SERVICE);
    JSONObject hooks = new JSONObject(again.execute("rustfixture__apex_hooks", "{}"));
    assertEquals(hooks.toString(), 2, hooks.getInt("activations"));
    assertEquals(hooks.toString(), 1, hooks.getInt("deactivations"));
    host.unbind(again);
  }

  @Test
  public void sixteen_hosts_call_at_once() throws Exception {
    Bound local = bind(ApexAgent.Mode.LOCAL);
    Bound parceled = bind(ApexAgent.Mode.PARCELED);
    int threads = 16;
    int calls = 50;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Bound plugin = t % 2 == 0 ? local : parceled;
      int id = t;
      Callable<Integer> body =
          () -> {
            start.await();
            int ok = 0;
            for (int i = 0; i < calls; i++) {
              String text = "t" + id + "-" + i;
              ToolReply out = plugin.call("rustfixture__echo", "{\"text\":\"" + text + "\"}");
              if (out.jsonObject().getString("text").equals(text)) {
                ok++;
              }
              if (i % 10 == 0) {
                assertApexError(
                    plugin.call("rustfixture__forecast", "{\"days\":0}"), "INVALID_ARGS");
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
    ApexAgent.Plugin plugin = bindInternal(ApexAgent.Mode.PARCELED);
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
