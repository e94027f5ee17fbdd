package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import android.content.pm.PackageManager;
import android.content.pm.ProviderInfo;
import android.os.Bundle;
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.ConsentAdmin.Access;
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.CallForm;
import dev.cetp.testkit.ToolReply;
import dev.cetp.testkit.internal.V1ClientRules;
import dev.cetp.testkit.internal.TestJvm;
import dev.cetp.e2e.category.MinimalBundle;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Before;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;

/**
 * The minimal sample ({@code samples/minimal}) end to end through its host bundle: the merged
 * manifest, the template's provider, the JNI bridge and the sample's Rust library, called as an
 * agent app would ({@code ContentResolver.call}, both forms, every reply parcelled). The sample
 * uses the default policy, user approval, so a tool answers only after the user approved the agent
 * ({@link ConsentAdmin}, the approval screen's admin interface). Runs in {@code bundle-minimal}.
 */
@RunWith(RobolectricTestRunner.class)
@Category(MinimalBundle.class)
public class MinimalSampleE2ETest extends SampleSuite {
  static final String PACKAGE = "dev.cetp.samples.minimal";
  static final String AUTHORITY = "dev.cetp.samples.minimal.tools";
  static final String LIBRARY = "cetp_sample_minimal";
  static final String AUTHORIZE = PACKAGE + ".CETP_AUTHORIZE";

  static final int OTHER_UID = 10_124;
  static final String OTHER = "com.example.other";
  static final byte[] OTHER_CERT = "other-signing-cert".getBytes(StandardCharsets.UTF_8);

  public MinimalSampleE2ETest() {
    super(AUTHORITY);
  }

  /** Runs after {@link SampleSuite#startSample}: a second app, and no denials stored either. */
  @Before
  public void installOtherApp() throws Exception {
    PackageManager pm = RuntimeEnvironment.getApplication().getPackageManager();
    Callers.install(pm, OTHER_UID, OTHER, OTHER_CERT);
    JSONObject state = ConsentAdmin.state();
    assertEquals(state.toString(), 0, state.getJSONArray("denials").length());
  }

  private void approveAgent(Access access) {
    ConsentAdmin.of(consumer, AUTHORITY, AGENT_UID).call("greet", "{\"name\":\"Ada\"}").approve(access);
  }

  // ----------------------------------------------------------------------------------------
  // The bundle and discovery

  @Test
  public void jvmIsConfiguredForTheMinimalBundle() {
    TestJvm.requireConfigured();
    assertEquals("minimal", bundle.name());
    assertEquals(LIBRARY, bundle.nativeLibraryName());
    ProviderInfo info = app.manifest.provider(AUTHORITY);
    assertEquals("dev.cetp.CetpToolProvider", info.name);
    assertEquals(PACKAGE, info.packageName);
    assertTrue(info.exported);
    assertEquals(LIBRARY, info.metaData.getString("dev.cetp.library"));
  }

  /** The default permission mode: the merged provider requires no permission, and says so. */
  @Test
  public void byDefaultTheProviderRequiresNoPermissionAndLogsIt() {
    ProviderInfo info = app.manifest.provider(AUTHORITY);
    assertNull(info.readPermission);
    assertNull(info.writePermission);
    // Said on the first call (the provider's onCreate does nothing).
    assertTrue(consumer.listTools(AUTHORITY).isSuccess());
    assertTrue(
        org.robolectric.shadows.ShadowLog.getLogs().stream()
            .anyMatch(l -> l.msg.startsWith("CETP provider: no permission required")));
  }

  @Test
  public void discoveryFindsTheAuthorityWithIntegerVersionOne() {
    List<CetpTransport.Discovered> found = consumer.discover();
    assertEquals(found.toString(), 1, found.size());
    CetpTransport.Discovered d = found.get(0);
    assertEquals(PACKAGE, d.packageName);
    assertEquals("dev.cetp.CetpDiscoveryService", d.serviceClass);
    assertEquals(AUTHORITY, d.authority);
    assertEquals(1, d.version);
    assertEquals(Integer.class, d.rawVersion.getClass());
    assertEquals(1, d.rawVersion);
  }

  // ----------------------------------------------------------------------------------------
  // get_provider_info and list_tools (no approval needed)

  @Test
  public void getProviderInfoNamesTheSampleAndDeclaresNoScopes() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r = consumer.call(form, AUTHORITY, CetpTransport.METHOD_GET_PROVIDER_INFO, new Bundle());
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(List.of("data", "status"), sorted(new ArrayList<>(r.keys())));
      JSONObject info = r.jsonObject();
      assertEquals(List.of("description", "provider_name", "scopes"), sorted(keys(info)));
      assertEquals("Minimal sample", info.getString("provider_name"));
      assertEquals("Greets people; the smallest CETP provider", info.getString("description"));
      assertEquals(0, info.getJSONArray("scopes").length());
    }
  }

  @Test
  public void listToolsDescribesGreetWithItsNameParameter() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r = consumer.call(form, AUTHORITY, CetpTransport.METHOD_LIST_TOOLS, new Bundle());
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(List.of("tools"), keys(r.jsonObject()));
      JSONArray tools = r.tools();
      assertEquals(1, tools.length());
      JSONObject greet = tools.getJSONObject(0);
      V1ClientRules.assertToolFields(greet);
      assertEquals("greet", greet.getString("name"));
      assertEquals(
          "Greets someone by name. Use it to check that the Minimal sample app answers.",
          greet.getString("description"));
      JSONObject params = greet.getJSONObject("parameters");
      assertEquals("object", params.getString("type"));
      assertFalse(params.getBoolean("additionalProperties"));
      assertEquals(List.of("name"), strings(params.getJSONArray("required")));
      JSONObject props = params.getJSONObject("properties");
      assertEquals(List.of("name"), keys(props));
      JSONObject name = props.getJSONObject("name");
      assertEquals("string", name.getString("type"));
      assertEquals(
          "The name of the person to greet. 1 to 100 characters.", name.getString("description"));
      assertEquals(1, name.getInt("minLength"));
      assertEquals(100, name.getInt("maxLength"));
      assertFalse(params.toString(), params.toString().contains("$ref"));
    }
  }

  @Test
  public void discoveryAnswersCallersWithoutPackagesOrApproval() {
    Callers.setCallingUid(10_999); // no package under this UID
    assertTrue(consumer.listTools(AUTHORITY).isSuccess());
    assertTrue(consumer.getProviderInfo(AUTHORITY).isSuccess());
  }

  // ----------------------------------------------------------------------------------------
  // Authorization: user approval

  @Test
  public void greetBeforeApprovalIsAuthRequiredWithHintAndIntent() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r =
          consumer.call(form, AUTHORITY, CetpTransport.METHOD_EXECUTE_TOOL, exec("greet", "{\"name\":\"Ada\"}"));
      assertError(r, "AUTH_REQUIRED", AGENT, "Minimal sample");
      assertEquals(
          "the user has not yet allowed com.example.agent to use Minimal sample; ask the user to"
              + " approve it in the Minimal sample app, then call again",
          r.errorMessage());
      assertEquals("Open Minimal sample (" + PACKAGE + ") and allow com.example.agent to use its tools", r.resolutionHint());
      assertEquals(AUTHORIZE, r.authorizeIntent());
      assertEquals(
          List.of("authorize_intent", "error_code", "error_message", "resolution_hint", "status"),
          sorted(new ArrayList<>(r.keys())));
    }
    // Both calls were recorded as one pending request, with the caller's identity.
    JSONArray pending = ConsentAdmin.pending();
    assertEquals(pending.toString(), 1, pending.length());
    JSONObject request = pending.getJSONObject(0);
    assertEquals(AGENT_UID, request.getInt("uid"));
    JSONArray packages = request.getJSONArray("packages");
    assertEquals(1, packages.length());
    assertEquals(AGENT, packages.getJSONObject(0).getString("name"));
    assertEquals(
        List.of(Callers.sha256Hex(AGENT_CERT)),
        strings(packages.getJSONObject(0).getJSONArray("certificate_sha256")));
    assertEquals(0, request.getJSONArray("scopes").length()); // greet declares no scope
    assertEquals(0, ConsentAdmin.grants().length());
  }

  @Test
  public void argumentsAreNotCheckedBeforeApproval() {
    // Authorization comes before validation: an unapproved caller learns nothing about them.
    assertError(consumer.executeTool(AUTHORITY, "greet", "{}", null), "AUTH_REQUIRED");
    assertError(consumer.executeTool(AUTHORITY, "greet", "{not json", null), "AUTH_REQUIRED");
  }

  @Test
  public void greetAnswersOnceApproved() throws Exception {
    approveAgent(Access.FULL);
    JSONArray grants = ConsentAdmin.grants();
    assertEquals(1, grants.length());
    assertEquals(AGENT, grants.getJSONObject(0).getString("package"));
    assertEquals(Callers.sha256Hex(AGENT_CERT), grants.getJSONObject(0).getString("certificate_sha256"));
    assertEquals("full", grants.getJSONObject(0).getString("access"));
    assertEquals(0, ConsentAdmin.pending().length());

    for (CallForm form : CallForm.values()) {
      ToolReply r =
          consumer.call(form, AUTHORITY, CetpTransport.METHOD_EXECUTE_TOOL, exec("greet", "{\"name\":\"Ada\"}"));
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(List.of("data", "status"), sorted(new ArrayList<>(r.keys())));
      assertEquals("\"Hello, Ada!\"", r.data()); // a JSON string
      assertEquals("Hello, Ada!", r.json());
    }
    // A request id does not change the answer.
    assertEquals(
        "Hello, Grace Hopper!",
        consumer.executeTool(AUTHORITY, "greet", "{\"name\":\"Grace Hopper\"}", "req-1").json());
  }

  @Test
  public void aLimitedApprovalAlsoLetsGreetAnswer() {
    approveAgent(Access.LIMITED);
    assertEquals("Hello, Ada!", consumer.executeTool(AUTHORITY, "greet", "{\"name\":\"Ada\"}", null).json());
  }

  @Test
  public void theApprovalCoversOnlyTheApprovedApp() throws Exception {
    approveAgent(Access.FULL);
    Callers.setCallingUid(OTHER_UID);
    ToolReply other = consumer.executeTool(AUTHORITY, "greet", "{\"name\":\"Ada\"}", null);
    assertError(other, "AUTH_REQUIRED", OTHER);
    assertEquals(OTHER_UID, ConsentAdmin.pendingFrom(OTHER_UID).getInt("uid"));
    // A UID without any package cannot be approved at all.
    Callers.setCallingUid(10_999);
    assertError(consumer.executeTool(AUTHORITY, "greet", "{\"name\":\"Ada\"}", null), "PERMISSION_DENIED", "Minimal sample");
    // The approved agent still gets its answer.
    Callers.setCallingUid(AGENT_UID);
    assertEquals("Hello, Ada!", consumer.executeTool(AUTHORITY, "greet", "{\"name\":\"Ada\"}", null).json());
  }

  @Test
  public void theApprovalIsStoredInTheNoBackupDirAndSurvivesARestart() throws Exception {
    approveAgent(Access.FULL);
    // Never in the files dir, which backups and device transfers copy to other phones.
    File backedUp = new File(RuntimeEnvironment.getApplication().getFilesDir(), "cetp-grants.json");
    assertFalse(backedUp + " exists", backedUp.exists());
    File store = new File(RuntimeEnvironment.getApplication().getNoBackupFilesDir(), "cetp-grants.json");
    assertTrue(store + " exists", store.isFile());
    JSONObject saved = new JSONObject(new String(Files.readAllBytes(store.toPath()), StandardCharsets.UTF_8));
    assertEquals(2, saved.getInt("version"));
    assertEquals(AGENT, saved.getJSONArray("grants").getJSONObject(0).getString("package"));

    app.startProviders(); // a new provider instance (as after a process restart), same files dir
    assertEquals(0, ConsentAdmin.pending().length());
    assertEquals(1, ConsentAdmin.grants().length());
    assertEquals("Hello, Ada!", consumer.executeTool(AUTHORITY, "greet", "{\"name\":\"Ada\"}", null).json());
  }

  // ----------------------------------------------------------------------------------------
  // Arguments and errors (approved agent)

  @Test
  public void greetRoundTripsUnicodeNames() throws Exception {
    approveAgent(Access.FULL);
    for (String name :
        new String[] {"Zoë 🌱", "漢字かな交じり", "𝄞 e\u0301 שלום", "\uD83D\uDC68\u200D\uD83D\uDCBB"}) {
      for (CallForm form : CallForm.values()) {
        ToolReply r =
            consumer.call(
                form,
                AUTHORITY,
                CetpTransport.METHOD_EXECUTE_TOOL,
                exec("greet", new JSONObject().put("name", name).toString()));
        assertTrue(form + ": " + r, r.isSuccess());
        assertEquals("Hello, " + name + "!", r.json());
      }
    }
  }

  @Test
  public void nameLengthIsCountedInCharactersFromOneToAHundred() throws Exception {
    approveAgent(Access.FULL);
    String hundred = "🌱".repeat(100); // 100 code points, 200 UTF-16 units, 400 UTF-8 bytes
    assertEquals("Hello, " + hundred + "!", greet(hundred).json());
    assertEquals("Hello, x!", greet("x").json());
    assertError(greet("a".repeat(101)), "INVALID_ARGS", "`/name`");
    assertError(greet("🌱".repeat(101)), "INVALID_ARGS", "`/name`");
    assertError(greet(""), "INVALID_ARGS", "`/name`");
  }

  @Test
  public void greetRejectsArgumentsOutsideItsSchema() {
    approveAgent(Access.FULL);
    // Missing required: an empty object, no args extra, JSON null.
    assertError(consumer.executeTool(AUTHORITY, "greet", "{}", null), "INVALID_ARGS", "greet", "\"name\"");
    assertError(consumer.executeTool(AUTHORITY, "greet", null, null), "INVALID_ARGS", "\"name\"");
    assertError(consumer.executeTool(AUTHORITY, "greet", "null", null), "INVALID_ARGS", "\"name\"");
    // Wrong types.
    assertError(consumer.executeTool(AUTHORITY, "greet", "{\"name\":42}", null), "INVALID_ARGS", "`/name`");
    assertError(consumer.executeTool(AUTHORITY, "greet", "{\"name\":[\"Ada\"]}", null), "INVALID_ARGS", "`/name`");
    assertError(consumer.executeTool(AUTHORITY, "greet", "{\"name\":null}", null), "INVALID_ARGS", "name");
    // An unknown property.
    assertError(
        consumer.executeTool(AUTHORITY, "greet", "{\"name\":\"Ada\",\"greeting\":\"Hi\"}", null),
        "INVALID_ARGS",
        "greeting");
    // Not a JSON object.
    assertError(consumer.executeTool(AUTHORITY, "greet", "{\"name\":", null), "INVALID_ARGS", "not valid JSON");
    assertError(consumer.executeTool(AUTHORITY, "greet", "[\"Ada\"]", null), "INVALID_ARGS", "JSON object");
    assertError(consumer.executeTool(AUTHORITY, "greet", "\"Ada\"", null), "INVALID_ARGS", "JSON object");
    // Every message ends with the expected parameters.
    ToolReply r = consumer.executeTool(AUTHORITY, "greet", "{}", null);
    assertTrue(r.errorMessage(), r.errorMessage().endsWith("Expected {name: string (required)}."));
  }

  @Test
  public void unknownToolsAndMethodsAreToolNotFoundWithOrWithoutApproval() {
    for (CallForm form : CallForm.values()) {
      // Before approval: the tool check comes first.
      assertError(
          consumer.call(form, AUTHORITY, CetpTransport.METHOD_EXECUTE_TOOL, exec("greet_everyone", "{}")),
          "TOOL_NOT_FOUND",
          "greet_everyone");
    }
    assertEquals(0, ConsentAdmin.pending().length()); // nothing to approve for an unknown tool
    approveAgent(Access.FULL);
    for (CallForm form : CallForm.values()) {
      assertError(
          consumer.call(form, AUTHORITY, CetpTransport.METHOD_EXECUTE_TOOL, exec("Greet", "{\"name\":\"Ada\"}")),
          "TOOL_NOT_FOUND",
          "Greet");
      assertError(consumer.call(form, AUTHORITY, "greet", new Bundle()), "TOOL_NOT_FOUND", "greet");
    }
  }

  // ----------------------------------------------------------------------------------------

  private ToolReply greet(String name) throws Exception {
    return run("greet", new JSONObject().put("name", name).toString());
  }
}
