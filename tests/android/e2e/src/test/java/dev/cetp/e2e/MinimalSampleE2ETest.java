package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import android.content.pm.ProviderInfo;
import android.os.Bundle;
import dev.cetp.e2e.category.MinimalBundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.CallForm;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.ToolReply;
// Internal: discovery as a whole, calls from a UID without a package, admin state, JVM setup.
import dev.cetp.testkit.internal.Callers;
import dev.cetp.testkit.internal.CetpTransport;
import dev.cetp.testkit.internal.ConsentAdmin;
import dev.cetp.testkit.internal.TestJvm;
import dev.cetp.testkit.internal.V1ClientRules;
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

/**
 * The minimal sample ({@code samples/minimal}) end to end through its host bundle: the merged
 * manifest, the template's provider, the JNI bridge and the sample's Rust library, called as an
 * agent app would ({@code ContentResolver.call}, both forms, every reply parcelled). The sample
 * uses the default policy, user approval, so a tool answers only after the user approved the agent
 * ({@link Agent#approvePending}, through the consent dialog's admin interface). Runs in {@code
 * bundle-minimal}.
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

  private Agent other;

  /** Runs after {@link SampleSuite#startSample}: a second app, and no denials stored either. */
  @Before
  public void installOtherApp() throws Exception {
    other = cetp.agent(OTHER, null, OTHER_UID, OTHER_CERT);
    JSONObject state = ConsentAdmin.state();
    assertEquals(state.toString(), 0, state.getJSONArray("denials").length());
  }

  /** The agent asks for greet (refused, recorded as pending); the user approves it. */
  private void approveAgent(Approval approval) {
    agent.call("greet", "{\"name\":\"Ada\"}").assertError("AUTH_REQUIRED");
    agent.approvePending(approval);
  }

  // ----------------------------------------------------------------------------------------
  // The bundle and discovery

  @Test
  public void jvmIsConfiguredForTheMinimalBundle() {
    TestJvm.requireConfigured();
    assertEquals("minimal", bundle().name());
    assertEquals(LIBRARY, bundle().nativeLibraryName());
    ProviderInfo info = manifest().provider(AUTHORITY);
    assertEquals("dev.cetp.CetpToolProvider", info.name);
    assertEquals(PACKAGE, info.packageName);
    assertTrue(info.exported);
    assertEquals(LIBRARY, info.metaData.getString("dev.cetp.library"));
  }

  /** The default permission mode: the merged provider requires no permission, and says so. */
  @Test
  public void byDefaultTheProviderRequiresNoPermissionAndLogsIt() {
    ProviderInfo info = manifest().provider(AUTHORITY);
    assertNull(info.readPermission);
    assertNull(info.writePermission);
    // Said on the first call (the provider's onCreate does nothing).
    assertTrue(agent.listTools().isSuccess());
    assertTrue(
        org.robolectric.shadows.ShadowLog.getLogs().stream()
            .anyMatch(l -> l.msg.startsWith("CETP provider: no permission required")));
  }

  @Test
  public void discoveryFindsTheAuthorityWithIntegerVersionOne() {
    List<CetpTransport.Discovered> found = new CetpTransport().discover();
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
      ToolReply r = agent.request(form, CetpV2.METHOD_GET_PROVIDER_INFO, new Bundle());
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
      ToolReply r = agent.request(form, CetpV2.METHOD_LIST_TOOLS, new Bundle());
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
    CetpTransport transport = new CetpTransport();
    Callers.setCallingUid(10_999); // no package under this UID
    assertTrue(transport.listTools(AUTHORITY).isSuccess());
    assertTrue(transport.getProviderInfo(AUTHORITY).isSuccess());
  }

  // ----------------------------------------------------------------------------------------
  // Authorization: user approval

  @Test
  public void greetBeforeApprovalIsAuthRequiredWithHintAndIntent() throws Exception {
    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.call(form, "greet", "{\"name\":\"Ada\"}");
      assertError(r, "AUTH_REQUIRED", AGENT, "Minimal sample");
      assertEquals(
          "the user has not yet allowed com.example.agent to use Minimal sample; ask the user to"
              + " approve it in the Minimal sample app, then call again",
          r.errorMessage());
      assertEquals(
          "Open Minimal sample (" + PACKAGE + ") and allow com.example.agent to use its tools",
          r.resolutionHint());
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
        List.of(agent.certificateSha256()),
        strings(packages.getJSONObject(0).getJSONArray("certificate_sha256")));
    assertEquals(0, request.getJSONArray("scopes").length()); // greet declares no scope
    assertEquals(0, ConsentAdmin.grants().length());
  }

  @Test
  public void argumentsAreNotCheckedBeforeApproval() {
    // Authorization comes before validation: an unapproved caller learns nothing about them.
    assertError(agent.call("greet", "{}"), "AUTH_REQUIRED");
    assertError(agent.call("greet", "{not json"), "AUTH_REQUIRED");
  }

  @Test
  public void greetAnswersOnceApproved() throws Exception {
    approveAgent(Approval.full());
    JSONArray grants = ConsentAdmin.grants();
    assertEquals(1, grants.length());
    assertEquals(AGENT, grants.getJSONObject(0).getString("package"));
    assertEquals(
        agent.certificateSha256(), grants.getJSONObject(0).getString("certificate_sha256"));
    assertEquals("full", grants.getJSONObject(0).getString("access"));
    assertEquals(0, ConsentAdmin.pending().length());

    for (CallForm form : CallForm.values()) {
      ToolReply r = agent.call(form, "greet", "{\"name\":\"Ada\"}");
      assertTrue(form + ": " + r, r.isSuccess());
      assertEquals(List.of("data", "status"), sorted(new ArrayList<>(r.keys())));
      assertEquals("\"Hello, Ada!\"", r.data()); // a JSON string
      assertEquals("Hello, Ada!", r.json());
    }
    // A request id does not change the answer.
    assertEquals(
        "Hello, Grace Hopper!",
        agent.call("greet", "{\"name\":\"Grace Hopper\"}", "req-1").json());
  }

  @Test
  public void aLimitedApprovalAlsoLetsGreetAnswer() {
    approveAgent(Approval.limited());
    assertEquals("Hello, Ada!", agent.call("greet", "{\"name\":\"Ada\"}").json());
  }

  @Test
  public void theApprovalCoversOnlyTheApprovedApp() throws Exception {
    approveAgent(Approval.full());
    ToolReply refused = other.call("greet", "{\"name\":\"Ada\"}");
    assertError(refused, "AUTH_REQUIRED", OTHER);
    assertEquals(OTHER_UID, ConsentAdmin.pendingFrom(OTHER_UID).getInt("uid"));
    // A UID without any package cannot be approved at all.
    Callers.setCallingUid(10_999);
    assertError(
        new CetpTransport().executeTool(AUTHORITY, "greet", "{\"name\":\"Ada\"}", null),
        "PERMISSION_DENIED",
        "Minimal sample");
    // The approved agent still gets its answer.
    assertEquals("Hello, Ada!", agent.call("greet", "{\"name\":\"Ada\"}").json());
  }

  @Test
  public void theApprovalIsStoredInTheNoBackupDirAndSurvivesARestart() throws Exception {
    approveAgent(Approval.full());
    // Never in the files dir, which backups and device transfers copy to other phones.
    File backedUp = new File(cetp.context().getFilesDir(), "cetp-grants.json");
    assertFalse(backedUp + " exists", backedUp.exists());
    File store = new File(cetp.context().getNoBackupFilesDir(), "cetp-grants.json");
    assertTrue(store + " exists", store.isFile());
    JSONObject saved =
        new JSONObject(new String(Files.readAllBytes(store.toPath()), StandardCharsets.UTF_8));
    assertEquals(2, saved.getInt("version"));
    assertEquals(AGENT, saved.getJSONArray("grants").getJSONObject(0).getString("package"));

    // A new runtime and provider instance, as after a process restart; the same files dirs.
    cetp.restartApp();
    assertEquals(0, ConsentAdmin.pending().length());
    assertEquals(1, ConsentAdmin.grants().length());
    assertEquals("Hello, Ada!", agent.call("greet", "{\"name\":\"Ada\"}").json());
  }

  // ----------------------------------------------------------------------------------------
  // Arguments and errors (approved agent)

  @Test
  public void greetRoundTripsUnicodeNames() throws Exception {
    approveAgent(Approval.full());
    for (String name :
        new String[] {"Zoë 🌱", "漢字かな交じり", "𝄞 e\u0301 שלום", "\uD83D\uDC68\u200D\uD83D\uDCBB"}) {
      for (CallForm form : CallForm.values()) {
        ToolReply r = agent.call(form, "greet", new JSONObject().put("name", name).toString());
        assertTrue(form + ": " + r, r.isSuccess());
        assertEquals("Hello, " + name + "!", r.json());
      }
    }
  }

  @Test
  public void nameLengthIsCountedInCharactersFromOneToAHundred() throws Exception {
    approveAgent(Approval.full());
    String hundred = "🌱".repeat(100); // 100 code points, 200 UTF-16 units, 400 UTF-8 bytes
    assertEquals("Hello, " + hundred + "!", greet(hundred).json());
    assertEquals("Hello, x!", greet("x").json());
    assertError(greet("a".repeat(101)), "INVALID_ARGS", "`/name`");
    assertError(greet("🌱".repeat(101)), "INVALID_ARGS", "`/name`");
    assertError(greet(""), "INVALID_ARGS", "`/name`");
  }

  @Test
  public void greetRejectsArgumentsOutsideItsSchema() {
    approveAgent(Approval.full());
    // Missing required: an empty object, no args extra, JSON null.
    assertError(agent.call("greet", "{}"), "INVALID_ARGS", "greet", "\"name\"");
    assertError(agent.call("greet", null), "INVALID_ARGS", "\"name\"");
    assertError(agent.call("greet", "null"), "INVALID_ARGS", "\"name\"");
    // Wrong types.
    assertError(agent.call("greet", "{\"name\":42}"), "INVALID_ARGS", "`/name`");
    assertError(agent.call("greet", "{\"name\":[\"Ada\"]}"), "INVALID_ARGS", "`/name`");
    assertError(agent.call("greet", "{\"name\":null}"), "INVALID_ARGS", "name");
    // An unknown property.
    assertError(
        agent.call("greet", "{\"name\":\"Ada\",\"greeting\":\"Hi\"}"), "INVALID_ARGS", "greeting");
    // Not a JSON object.
    assertError(agent.call("greet", "{\"name\":"), "INVALID_ARGS", "not valid JSON");
    assertError(agent.call("greet", "[\"Ada\"]"), "INVALID_ARGS", "JSON object");
    assertError(agent.call("greet", "\"Ada\""), "INVALID_ARGS", "JSON object");
    // Every message ends with the expected parameters.
    ToolReply r = agent.call("greet", "{}");
    assertTrue(r.errorMessage(), r.errorMessage().endsWith("Expected {name: string (required)}."));
  }

  @Test
  public void unknownToolsAndMethodsAreToolNotFoundWithOrWithoutApproval() {
    for (CallForm form : CallForm.values()) {
      // Before approval: the tool check comes first.
      assertError(agent.call(form, "greet_everyone", "{}"), "TOOL_NOT_FOUND", "greet_everyone");
    }
    assertEquals(0, ConsentAdmin.pending().length()); // nothing to approve for an unknown tool
    approveAgent(Approval.full());
    for (CallForm form : CallForm.values()) {
      assertError(agent.call(form, "Greet", "{\"name\":\"Ada\"}"), "TOOL_NOT_FOUND", "Greet");
      assertError(agent.request(form, "greet", new Bundle()), "TOOL_NOT_FOUND", "greet");
    }
  }

  // ----------------------------------------------------------------------------------------

  private ToolReply greet(String name) throws Exception {
    return run("greet", new JSONObject().put("name", name).toString());
  }
}
