package dev.cetp.e2e;

import static dev.cetp.e2e.SampleSuite.AGENT;
import static dev.cetp.e2e.SampleSuite.AGENT_CERT;
import static dev.cetp.e2e.SampleSuite.AGENT_UID;
import static dev.cetp.e2e.SampleSuite.keys;
import static dev.cetp.e2e.SampleSuite.sorted;
import static dev.cetp.e2e.SampleSuite.strings;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import android.content.BroadcastReceiver;
import android.content.ContentProvider;
import android.content.ContentProviderClient;
import android.content.Context;
import android.content.Intent;
import android.content.pm.ProviderInfo;
import android.content.pm.ResolveInfo;
import android.os.Bundle;
import android.os.Process;
import dev.cetp.e2e.category.FixtureProviderBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CallForm;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.ToolReply;
// Internal: the bundle's wiring, the kit's discovery, v1 client rules, UIDs that no agent holds.
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.internal.HostBundle;
import dev.cetp.testkit.internal.ManifestInstaller;
import dev.cetp.testkit.internal.TestJvm;
import dev.cetp.testkit.internal.V1ClientRules;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.shadows.ShadowLog;

/**
 * The Rust fixture provider ({@code tests/fixture-provider}) end to end: the merged manifest, the
 * Android template's {@code CetpToolProvider}, the JNI bridge and the Rust runtime, driven through
 * {@code ContentResolver.call} in both forms with every reply parcelled. Runs in the {@code
 * bundle-fixture-provider} execution under {@code -Xcheck:jni}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(FixtureProviderBundle.class)
public class FixtureProviderE2ETest {
  static final String PACKAGE = "dev.cetp.rustfixture";
  static final String AUTHORITY = "dev.cetp.rustfixture.tools";
  private static final String PROVIDER_CLASS = "dev.cetp.CetpToolProvider";
  private static final List<String> TOOLS =
      List.of(
          "echo",
          "whoami",
          "app_info",
          "boom",
          "oversized",
          "forecast",
          "fail",
          "apex_hooks",
          "crawl",
          "gate");

  /** Astral-plane characters (surrogate pairs in Java), CJK, combining marks, RTL. */
  private static final String UNICODE =
      "𝄞 🎉 emoji, 漢字, e\u0301, שלום, \uD83D\uDC68\u200D\uD83D\uDCBB";

  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private Agent agent;
  private ExecutorService pool;

  @Before
  public void setUp() {
    agent = cetp.agent(AGENT, null, AGENT_UID, AGENT_CERT);
  }

  @After
  public void tearDown() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  // ----------------------------------------------------------------------------------------
  // The bundle and discovery

  @Test
  public void jvmIsConfiguredForTheBundle() {
    TestJvm.requireConfigured();
    HostBundle bundle = HostBundle.current();
    assertEquals("fixture-provider", bundle.name());
    assertEquals("cetp_fixture", bundle.nativeLibraryName());
  }

  @Test
  public void theTemplateProviderComesFromTheBundleJar() {
    ContentProvider provider = startedProvider(cetp, AUTHORITY);
    assertEquals(PROVIDER_CLASS, provider.getClass().getName());
    URL where =
        provider
            .getClass()
            .getClassLoader()
            .getResource(PROVIDER_CLASS.replace('.', '/') + ".class");
    assertNotNull(where);
    assertTrue(
        where.toString(), where.toString().contains(HostBundle.current().appJar().toString()));
  }

  @Test
  public void discoveryFindsTheTemplateServiceWithAuthorityAndIntegerVersion() {
    List<CetpTransport.Discovered> found = new CetpTransport().discover();
    assertEquals(found.toString(), 1, found.size());
    CetpTransport.Discovered d = found.get(0);
    assertEquals(PACKAGE, d.packageName);
    assertEquals("dev.cetp.CetpDiscoveryService", d.serviceClass);
    assertEquals(AUTHORITY, d.authority);
    assertEquals(1, d.version);
    assertEquals(Integer.class, d.rawVersion.getClass());
  }

  @Test
  public void theMergedProviderEntryIsExactlyCetpV1() {
    ManifestInstaller.Parsed manifest = ManifestInstaller.parse(HostBundle.current().manifest());
    ProviderInfo info = manifest.provider(AUTHORITY);
    assertEquals(PROVIDER_CLASS, info.name);
    assertTrue(info.exported);
    assertEquals("com.clawseed.permission.ACCESS_TOOLS", info.readPermission);
    assertEquals("com.clawseed.permission.ACCESS_TOOLS", info.writePermission);
    assertEquals(100, info.initOrder);
    assertEquals("cetp_fixture", info.metaData.getString("dev.cetp.library"));
    // The opt-in mode (tests/fixture-provider/android/gradle.properties) requires the permission
    // and says so on the first call; the template leaves it undeclared (see
    // android-template/README.md).
    assertTrue(agent.listTools().isSuccess());
    assertTrue(
        ShadowLog.getLogs().stream()
            .anyMatch(
                l ->
                    l.msg.startsWith(
                        "CETP provider: callers need com.clawseed.permission.ACCESS_TOOLS")));
    assertTrue(manifest.permissions.toString(), manifest.permissions.isEmpty());
  }

  /**
   * The fixture library defines its own {@code JNI_OnLoad} (as an app whose Rust core registers
   * natives of its own does): it registers {@code CoreNatives}, then calls the SDK's entry,
   * {@code cetp_provider::jni::on_load}, and returns its answer. Both sets of natives work.
   */
  @Test
  public void aLibraryWithItsOwnJniOnLoadServesItsNativesAndTheProvider() throws Exception {
    assertTrue(agent.listTools().isSuccess());
    Class<?> core = Class.forName("dev.cetp.rustfixture.CoreNatives");
    assertEquals(1, core.getMethod("loads").invoke(null));
    assertEquals(0x0001_0006, core.getMethod("sdkVersion").invoke(null));
    ToolReply echo = agent.call("echo", "{\"text\":\"core\"}");
    assertTrue(echo.toString(), echo.isSuccess());
  }

  @Test
  public void theOptionalBootReceiverIsDeclaredAndHarmless() throws Exception {
    List<ResolveInfo> receivers =
        cetp.context()
            .getPackageManager()
            .queryBroadcastReceivers(new Intent(Intent.ACTION_BOOT_COMPLETED), 0);
    List<String> names = new ArrayList<>();
    for (ResolveInfo r : receivers) {
      names.add(r.activityInfo.name);
    }
    assertTrue(names.toString(), names.contains("dev.cetp.CetpBootReceiver"));
    BroadcastReceiver receiver =
        (BroadcastReceiver)
            Class.forName("dev.cetp.CetpBootReceiver").getDeclaredConstructor().newInstance();
    receiver.onReceive(cetp.context(), new Intent(Intent.ACTION_BOOT_COMPLETED));
    assertTrue(agent.listTools().isSuccess());
  }

  // ----------------------------------------------------------------------------------------
  // The three methods, both call forms

  @Test
  public void listToolsDescribesEveryToolFieldByField() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.request(form, CetpV2.METHOD_LIST_TOOLS, new Bundle());
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(setOf("status", "data"), r.keys());
      assertEquals(List.of("tools"), keys(r.jsonObject()));
      JSONArray tools = r.tools();
      List<String> names = new ArrayList<>();
      for (int i = 0; i < tools.length(); i++) {
        JSONObject tool = tools.getJSONObject(i);
        V1ClientRules.assertToolFields(tool);
        names.add(tool.getString("name"));
        assertFalse(tool.getString("description").isEmpty());
        JSONObject params = tool.getJSONObject("parameters");
        assertEquals("object", params.getString("type"));
        assertTrue(params.has("properties"));
        assertFalse(params.getBoolean("additionalProperties"));
        assertFalse(params.toString(), params.toString().contains("$ref"));
      }
      assertEquals(TOOLS, names);

      JSONObject echo = tools.getJSONObject(0);
      assertEquals(
          "Returns the text it was given, with its length in code points and UTF-16 units.",
          echo.getString("description"));
      JSONObject text =
          echo.getJSONObject("parameters").getJSONObject("properties").getJSONObject("text");
      assertEquals("string", text.getString("type"));
      assertEquals("Any text.", text.getString("description"));
      assertEquals(
          List.of("text"), strings(echo.getJSONObject("parameters").getJSONArray("required")));

      JSONObject forecast = tools.getJSONObject(5).getJSONObject("parameters");
      JSONObject props = forecast.getJSONObject("properties");
      assertEquals(List.of("city", "days", "unit"), sorted(keys(props)));
      assertEquals(List.of("days", "unit"), sorted(strings(forecast.getJSONArray("required"))));
      assertEquals(
          List.of("celsius", "fahrenheit"),
          sorted(strings(props.getJSONObject("unit").getJSONArray("enum"))));
      assertEquals(1, props.getJSONObject("days").getInt("minimum"));
      assertEquals(7, props.getJSONObject("days").getInt("maximum"));
      assertEquals(
          0,
          tools.getJSONObject(1).getJSONObject("parameters").getJSONObject("properties").length());
    }
  }

  @Test
  public void getProviderInfoCarriesNameDescriptionAndScopes() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.request(form, CetpV2.METHOD_GET_PROVIDER_INFO, new Bundle());
      assertTrue(form + ": " + r, r.isSuccess());
      JSONObject info = r.jsonObject();
      assertEquals(List.of("description", "provider_name", "scopes"), sorted(keys(info)));
      assertEquals("CETP fixture", info.getString("provider_name"));
      assertEquals("Test tools for the cetp-rs end-to-end suite", info.getString("description"));
      JSONArray scopes = info.getJSONArray("scopes");
      assertEquals(1, scopes.length());
      assertEquals("fixture.read", scopes.getJSONObject(0).getString("name"));
      assertEquals("Read fixture data", scopes.getJSONObject(0).getString("description"));
    }
  }

  @Test
  public void executeToolRunsTheToolWithTypedArguments() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r =
          agent.call(form, "forecast", "{\"unit\":\"fahrenheit\",\"days\":2,\"city\":\"Oslo\"}", "req-7");
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(setOf("status", "data"), r.keys());
      JSONArray data = new JSONArray(r.data());
      assertEquals("Oslo", data.getString(0));
      JSONArray days = data.getJSONArray(1);
      assertEquals(2, days.length());
      assertEquals(1, days.getJSONObject(0).getInt("day"));
      assertEquals(51, days.getJSONObject(0).getInt("temperature"));
      assertEquals("fahrenheit", days.getJSONObject(0).getString("unit"));
      assertEquals(53, days.getJSONObject(1).getInt("temperature"));
    }
  }

  @Test
  public void callerIdentityReachesTheToolThroughTheBridge() throws Exception {
    for (CallForm form : CallForm.values()) {
      JSONObject who =
          agent
              .call(form, "whoami", "{}", "r-1")
              .jsonObject();
      assertEquals(AGENT_UID, who.getInt("uid"));
      assertEquals("r-1", who.getString("request_id"));
      JSONArray packages = who.getJSONArray("packages");
      assertEquals(1, packages.length());
      assertEquals("com.example.agent", packages.getJSONObject(0).getString("name"));
      assertEquals(
          List.of(agent.certificateSha256()),
          strings(packages.getJSONObject(0).getJSONArray("certificates")));
    }

    // A shared UID: both packages, each with its own certificate.
    byte[] helperCert = "helper-cert".getBytes(StandardCharsets.UTF_8);
    Agent helper = cetp.agent("com.example.agent.helper", null, AGENT_UID, helperCert);
    JSONObject who = agent.call("whoami", null).jsonObject();
    JSONArray packages = who.getJSONArray("packages");
    assertEquals(2, packages.length());
    assertEquals("com.example.agent.helper", packages.getJSONObject(1).getString("name"));
    assertEquals(
        List.of(helper.certificateSha256()),
        strings(packages.getJSONObject(1).getJSONArray("certificates")));
    assertTrue(who.isNull("request_id"));

    // A UID without packages: the UID alone.
    Callers.setCallingUid(10_999);
    who = new CetpTransport().executeTool(AUTHORITY, "whoami", "{}", null).jsonObject();
    assertEquals(10_999, who.getInt("uid"));
    assertEquals(0, who.getJSONArray("packages").length());
  }

  @Test
  public void initReceivedTheFilesDirPackageNameAndVersion() throws Exception {
    Context context = cetp.context();
    JSONObject info = agent.call("app_info", "{}").jsonObject();
    // The installed app's package (from the ProviderInfo), not Robolectric's test application
    // (org.robolectric.default): it names the approval action <package>.CETP_AUTHORIZE.
    assertEquals(PACKAGE, info.getString("package_name"));
    assertEquals(context.getFilesDir().getAbsolutePath(), info.getString("files_dir"));
    // The installed app's version, from its PackageInfo.
    android.content.pm.PackageInfo installed =
        context.getPackageManager().getPackageInfo(PACKAGE, 0);
    assertEquals(installed.getLongVersionCode(), info.getLong("version_code"));
    assertEquals(
        installed.versionName == null ? "" : installed.versionName, info.getString("version_name"));
  }

  // ----------------------------------------------------------------------------------------
  // Every v1 error code reachable without authorization

  @Test
  public void unknownToolAndUnknownMethodAreToolNotFound() {
    for (CallForm form : CallForm.values()) {
      ToolReply tool = agent.call(form, "nope", "{}", null);
      assertError(tool, "TOOL_NOT_FOUND", "nope");
      ToolReply method = agent.request(form, "frobnicate", new Bundle());
      assertError(method, "TOOL_NOT_FOUND", "frobnicate");
    }
  }

  @Test
  public void malformedCallsAreInvalidArgs() {
    Bundle noToolName = new Bundle();
    noToolName.putString(CetpV2.EXTRA_ARGS, "{}");
    assertError(
        agent.request(CallForm.URI, CetpV2.METHOD_EXECUTE_TOOL, noToolName),
        "INVALID_ARGS",
        "tool_name");
    assertError(
        agent.request(CallForm.URI, CetpV2.METHOD_EXECUTE_TOOL, new Bundle()),
        "INVALID_ARGS",
        "tool_name");

    assertError(agent.call("echo", "{not json"), "INVALID_ARGS", null);
    assertError(agent.call("echo", "[1,2]"), "INVALID_ARGS", null);
    assertError(agent.call("echo", "\"text\""), "INVALID_ARGS", null);
    // Required argument missing: the args extra absent, or an empty object.
    assertError(agent.call("echo", null), "INVALID_ARGS", "text");
    assertError(agent.call("echo", "{}"), "INVALID_ARGS", "text");
    // Schema violations: wrong type, unknown property, enum, integer range, string length.
    assertError(agent.call("echo", "{\"text\":7}"), "INVALID_ARGS", null);
    assertError(agent.call("echo", "{\"text\":\"a\",\"extra\":1}"), "INVALID_ARGS", "extra");
    assertError(
        agent.call("forecast", "{\"unit\":\"kelvin\",\"days\":1}"), "INVALID_ARGS", "unit");
    assertError(
        agent.call("forecast", "{\"unit\":\"celsius\",\"days\":8}"), "INVALID_ARGS", "days");
    assertError(
        agent.call("forecast", "{\"unit\":\"celsius\",\"days\":0}"), "INVALID_ARGS", "days");
    assertError(
        agent.call("forecast", "{\"unit\":\"celsius\",\"days\":1.5}"), "INVALID_ARGS", "days");
    assertError(
        agent.call("forecast", "{\"unit\":\"celsius\",\"days\":1,\"city\":\"\"}"),
        "INVALID_ARGS",
        "city");
    assertError(agent.call("oversized", "{\"kib\":4096}"), "INVALID_ARGS", "kib");
  }

  @Test
  public void aPanickingToolIsInternalErrorAndTheProviderSurvives() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r =
          agent.call(form, "boom", "{\"message\":\"kaboom\"}", "req-9");
      assertError(r, "INTERNAL_ERROR", "boom");
      assertTrue(r.errorMessage(), r.errorMessage().contains("req-9"));
      assertFalse("panic text leaks to the agent: " + r, r.errorMessage().contains("kaboom"));
    }
    assertEquals("still here", echo("still here").getString("text"));
  }

  @Test
  public void anOversizedResultIsInternalErrorAndALargeOneArrives() throws Exception {
    ToolReply big = agent.call("oversized", "{\"kib\":300}");
    assertError(big, "INTERNAL_ERROR", "256 KiB");
    // The limit counts wire bytes (UTF-16): 120 KiB of ASCII is 240 KiB on the wire.
    ToolReply fits = agent.call("oversized", "{\"kib\":120}");
    assertTrue(fits.toString(), fits.isSuccess());
    assertEquals(120 * 1024 + 2, fits.data().length());
  }

  @Test
  public void everyErrorCodeAToolReturnsCrossesTheBridge() {
    for (String code :
        List.of(
            "AUTH_REQUIRED",
            "PERMISSION_DENIED",
            "TOOL_NOT_FOUND",
            "INVALID_ARGS",
            "RATE_LIMITED",
            "INTERNAL_ERROR")) {
      ToolReply r = agent.call("fail", "{\"code\":\"" + code + "\"}");
      assertError(r, code, "fixture failure");
      if (code.equals("AUTH_REQUIRED")) {
        assertEquals(
            setOf("status", "error_code", "error_message", "resolution_hint", "authorize_intent"),
            r.keys());
        assertEquals("Open the fixture app and allow access", r.resolutionHint());
        assertEquals("dev.cetp.rustfixture.ACTION_AUTHORIZE", r.authorizeIntent());
      } else {
        assertEquals(setOf("status", "error_code", "error_message"), r.keys());
      }
    }
  }

  // ----------------------------------------------------------------------------------------
  // Null extras, missing keys, odd values

  @Test
  public void nullExtrasAreAnsweredForEveryMethod() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply list = agent.request(form, CetpV2.METHOD_LIST_TOOLS, null);
      assertTrue(list.toString(), list.isSuccess());
      assertEquals(TOOLS.size(), list.tools().length());
      assertTrue(agent.request(form, CetpV2.METHOD_GET_PROVIDER_INFO, null).isSuccess());
      assertError(
          agent.request(form, CetpV2.METHOD_EXECUTE_TOOL, null), "INVALID_ARGS", "tool_name");
      assertError(agent.request(form, "unknown_method", null), "TOOL_NOT_FOUND", null);
    }
  }

  @Test
  public void toolsWithoutRequiredArgumentsRunWithoutTheArgsExtra() throws Exception {
    Bundle onlyName = new Bundle();
    onlyName.putString(CetpV2.EXTRA_TOOL_NAME, "whoami");
    // From the app's own UID, which no agent holds.
    ToolReply r = new CetpTransport().call(AUTHORITY, CetpV2.METHOD_EXECUTE_TOOL, onlyName);
    assertTrue(r.toString(), r.isSuccess());
    assertEquals(Process.myUid(), r.jsonObject().getInt("uid"));
  }

  @Test
  public void nonStringExtrasAndUnknownKeysAreIgnored() throws Exception {
    Bundle extras = new Bundle();
    extras.putInt(CetpV2.EXTRA_TOOL_NAME, 5); // not a String: treated as absent
    extras.putString("unknown_key", "ignored");
    assertError(
        agent.request(CallForm.URI, CetpV2.METHOD_EXECUTE_TOOL, extras),
        "INVALID_ARGS",
        "tool_name");

    Bundle ok = exec("echo", "{\"text\":\"x\"}", null);
    ok.putString("unknown_key", "ignored");
    ok.putInt("another", 3);
    assertEquals(
        "x",
        agent.request(CallForm.URI, CetpV2.METHOD_EXECUTE_TOOL, ok)
            .jsonObject()
            .getString("text"));
  }

  // ----------------------------------------------------------------------------------------
  // Unicode across JNI (modified UTF-8) in both directions

  @Test
  public void astralPlaneAndOtherUnicodeRoundTrips() throws Exception {
    for (CallForm form : CallForm.values()) {
      JSONObject data =
          agent
              .call(form, "echo", new JSONObject().put("text", UNICODE).toString(), null)
              .jsonObject();
      assertEquals(UNICODE, data.getString("text"));
      assertEquals(UNICODE.codePointCount(0, UNICODE.length()), data.getInt("code_points"));
      assertEquals(UNICODE.length(), data.getInt("utf16_units"));
    }
    // NUL travels as C0 80 in modified UTF-8.
    String withNul = "a\u0000b";
    assertEquals(withNul, echo(withNul).getString("text"));
    // Unicode in a request id, echoed by whoami, never goes through JSON on the way in.
    String requestId = "req-🎉-漢";
    assertEquals(
        requestId, agent.call("whoami", "{}", requestId).jsonObject().getString("request_id"));
  }

  @Test
  public void unpairedSurrogatesAreReplacedNotFatal() throws Exception {
    // A raw lone surrogate inside the JSON text: lossily decoded, the rest intact.
    String text = "a\uD800b🎉c\uDC00";
    JSONObject data = echo(text);
    assertEquals("a\uFFFDb🎉c\uFFFD", data.getString("text"));
    assertEquals(6, data.getInt("code_points"));

    // The same in a request id and a tool name.
    assertEquals(
        "r\uFFFD🎉",
        agent.call("whoami", "{}", "r\uD83D🎉").jsonObject().getString("request_id"));
    assertError(agent.call("echo\uDBFF", "{}"), "TOOL_NOT_FOUND", "echo\uFFFD");
    assertError(
        agent.request(CallForm.URI, "list_tools\uD800", new Bundle()), "TOOL_NOT_FOUND", null);

    // A JSON escape of a lone surrogate is invalid JSON for the provider: INVALID_ARGS.
    assertError(agent.call("echo", "{\"text\":\"\\ud800\"}"), "INVALID_ARGS", null);
  }

  // ----------------------------------------------------------------------------------------
  // Concurrency

  @Test
  public void sixteenConcurrentCallersEachGetTheirOwnAnswer() throws Exception {
    // Every thread calls as the same agent (Robolectric keeps one calling UID for all threads).
    int threads = 16;
    int callsPerThread = 40;
    CyclicBarrier start = new CyclicBarrier(threads);
    pool = Executors.newFixedThreadPool(threads);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int thread = t;
      Callable<Integer> caller =
          () -> {
            start.await();
            int ok = 0;
            for (int i = 0; i < callsPerThread; i++) {
              CallForm form = (i % 2 == 0) ? CallForm.AUTHORITY : CallForm.URI;
              String requestId = "t" + thread + "-c" + i + "-🎉";
              switch (i % 4) {
                case 0:
                case 1:
                  {
                    String text = "payload " + thread + "/" + i + " 𝄞";
                    ToolReply r =
                        agent.call(form, "echo", new JSONObject().put("text", text).toString(), requestId);
                    assertTrue(r.toString(), r.isSuccess());
                    assertEquals(text, r.jsonObject().getString("text"));
                    break;
                  }
                case 2:
                  {
                    ToolReply r =
                        agent.call(form, "whoami", "{}", requestId);
                    assertEquals(requestId, r.jsonObject().getString("request_id"));
                    assertEquals(AGENT_UID, r.jsonObject().getInt("uid"));
                    break;
                  }
                default:
                  {
                    ToolReply r =
                        agent.call(form, "boom", "{\"message\":\"" + requestId + "\"}", requestId);
                    assertEquals("INTERNAL_ERROR", r.errorCode());
                    assertTrue(r.errorMessage(), r.errorMessage().contains(requestId));
                    break;
                  }
              }
              ok++;
            }
            return ok;
          };
      results.add(pool.submit(caller));
    }
    int total = 0;
    for (Future<Integer> f : results) {
      total += f.get(5, TimeUnit.MINUTES); // hang guard only; rethrows a thread's failure
    }
    assertEquals(threads * callsPerThread, total);
  }

  // ----------------------------------------------------------------------------------------

  private JSONObject echo(String text) throws Exception {
    ToolReply r = agent.call("echo", new JSONObject().put("text", text).toString());
    assertTrue(r.toString(), r.isSuccess());
    return r.jsonObject();
  }

  /** The provider serving {@code authority} (the one the rule started), as calls reach it. */
  static ContentProvider startedProvider(CetpTestRule cetp, String authority) {
    try (ContentProviderClient client =
        cetp.context().getContentResolver().acquireContentProviderClient(authority)) {
      assertNotNull("no provider for " + authority, client);
      return client.getLocalContentProvider();
    }
  }

  /** An error reply: the code, a message (containing {@code mentions} when given), no data. */
  static void assertError(ToolReply r, String code, String mentions) {
    assertFalse("provider returned null", r.isNull());
    assertEquals(r.toString(), "error", r.status());
    assertEquals(r.toString(), code, r.errorCode());
    assertNotNull(r.toString(), r.errorMessage());
    assertFalse(r.toString(), r.errorMessage().isEmpty());
    assertTrue(r.toString(), r.data() == null);
    if (mentions != null) {
      assertTrue(
          r.errorMessage() + " should mention " + mentions, r.errorMessage().contains(mentions));
    }
  }

  static Bundle exec(String tool, String args, String requestId) {
    Bundle b = new Bundle();
    b.putString(CetpV2.EXTRA_TOOL_NAME, tool);
    if (args != null) {
      b.putString(CetpV2.EXTRA_ARGS, args);
    }
    if (requestId != null) {
      b.putString(CetpV2.EXTRA_REQUEST_ID, requestId);
    }
    return b;
  }

  private static java.util.Set<String> setOf(String... keys) {
    return new java.util.HashSet<>(Arrays.asList(keys));
  }
}
