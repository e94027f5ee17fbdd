package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import android.app.Activity;
import android.content.pm.PackageManager;
import android.content.pm.ProviderInfo;
import android.os.Bundle;
import dev.cetp.testkit.internal.V2ClientRules;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.V2Reply;
import dev.cetp.testkit.V2Session;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Rule;
import org.junit.Test;

/**
 * A CETP v2 agent against a sample, written with the kit's public API alone, as ClawSeed's
 * newest client reads the app: the manifest, {@code negotiate}, the session token's life, the
 * common fields' errors in the specification's order, {@code list_tools}, {@code
 * get_provider_info}, {@code execute_tool} with the approval through the {@code resolution}
 * PendingIntent and the {@code resume_token}, and a CETP v1 agent of the same app still
 * answered in v1. Each sample's class names its package, one tool, arguments for it and
 * arguments it refuses.
 *
 * <p>Surefire does not pick this class up itself (abstract, and its name does not match the
 * default includes); the concrete classes carry the bundle's {@code @Category}.
 */
public abstract class V2AgentSuite {
  @Rule public final CetpTestRule cetp = new CetpTestRule();

  /** @return the sample's package */
  protected abstract String packageName();

  /** @return a tool the user must approve */
  protected abstract String tool();

  /** @return arguments {@link #tool()} answers */
  protected abstract String args();

  /** @return other arguments {@link #tool()} answers */
  protected abstract String otherArgs();

  /** @return arguments {@link #tool()} refuses as not matching its schema */
  protected abstract String invalidArgs();

  /** An agent's session whose first call of {@link #tool()} the user allowed. */
  protected V2Session approved(Agent agent) throws Exception {
    V2Session session = agent.v2();
    V2Reply refused = session.call(tool(), args()).assertError(CetpV2.AUTH_REQUIRED);
    try (ConsentDialog dialog = session.openResolution(refused)) {
      dialog.allow();
      assertEquals(Activity.RESULT_OK, dialog.resultCode());
    }
    session.resume(refused).assertSuccess();
    return session;
  }

  // ----------------------------------------------------------------------------------------
  // Discovery and the session

  @Test
  public void theDiscoveryServiceAdvertisesBothVersionsAsAString() {
    Bundle meta = cetp.discoveryMetaData();
    assertEquals("1,2", meta.getString(CetpV2.META_VERSIONS));
    assertEquals("v1 agents read the integer", 1, meta.getInt(CetpV2.META_VERSION, -1));
    assertEquals(List.of(1, 2), cetp.advertisedVersions());
    ProviderInfo provider =
        cetp.context()
            .getPackageManager()
            .resolveContentProvider(cetp.authority(), PackageManager.GET_META_DATA);
    assertEquals(packageName(), provider.packageName);
    assertEquals("1,2", provider.metaData.getString(CetpV2.META_VERSIONS));
  }

  @Test
  public void negotiateIsAcceptedAsTheNewestClientAcceptsIt() throws Exception {
    V2Session session = cetp.agent("com.example.agent").v2();
    JSONObject data = session.negotiated();
    assertEquals(2, data.getInt("selected_version"));
    assertEquals(packageName(), session.providerId());
    assertTrue(session.sessionToken().getBytes(StandardCharsets.UTF_8).length <= 256);
    JSONArray capabilities = data.optJSONArray("capabilities");
    assertEquals(0, capabilities == null ? 0 : capabilities.length());
    assertNotEquals(
        "a token per negotiation",
        session.sessionToken(),
        cetp.agent("com.example.other").v2().sessionToken());
  }

  @Test
  public void largeResultsAreGrantedToAnAgentThatAsksAndToNoOther() throws Exception {
    V2Session session =
        cetp.agent("com.example.agent")
            .v2("async_operations", "cancellation", CetpV2.CAPABILITY_LARGE_RESULTS);
    assertTrue(session.negotiated(CetpV2.CAPABILITY_LARGE_RESULTS));
    JSONArray granted = session.negotiated().getJSONArray("capabilities");
    for (int i = 0; i < granted.length(); i++) {
      assertTrue(
          granted.getString(i),
          List.of("async_operations", "cancellation", CetpV2.CAPABILITY_LARGE_RESULTS)
              .contains(granted.getString(i)));
    }
    assertFalse(
        cetp.agent("com.example.agent").v2().negotiated(CetpV2.CAPABILITY_LARGE_RESULTS));
  }

  @Test
  public void noCommonVersionIsUnsupportedVersion() {
    cetp.agent("com.example.agent")
        .negotiate(new int[] {3}, "[]")
        .assertError(CetpV2.UNSUPPORTED_VERSION);
  }

  @Test
  public void theAppConformsToTheNewestClient() {
    cetp.agent("com.example.agent").v2().assertConformant();
  }

  @Test
  public void aSessionFromBeforeARestartIsRenegotiated() {
    V2Session session = cetp.agent("com.example.agent").v2();
    session.listTools().assertSuccess();
    String before = session.sessionToken();
    cetp.restartApp();
    session.listTools().assertError(CetpV2.NEGOTIATION_REQUIRED);
    session.renegotiate();
    assertNotEquals(before, session.sessionToken());
    session.listTools().assertSuccess();
  }

  // ----------------------------------------------------------------------------------------
  // The common fields, in the specification's order: request_id, deadline_at_ms, session_token

  @Test
  public void aMissingRequestIdIsAnInvalidRequest() {
    V2Session session = cetp.agent("com.example.agent").v2();
    Bundle extras = session.extras();
    extras.remove(CetpV2.EXTRA_REQUEST_ID);
    session.send(CetpV2.METHOD_LIST_TOOLS, extras).assertError(CetpV2.INVALID_REQUEST);
  }

  @Test
  public void aRequestIdThatIsNoUuidIsAnInvalidRequest() {
    V2Session session = cetp.agent("com.example.agent").v2();
    for (String id : new String[] {"", "not-a-uuid", "42", UUID.randomUUID() + "x"}) {
      Bundle extras = session.extras();
      extras.putString(CetpV2.EXTRA_REQUEST_ID, id);
      session.send(CetpV2.METHOD_LIST_TOOLS, extras).assertError(CetpV2.INVALID_REQUEST);
    }
  }

  @Test
  public void aMissingOrPastDeadlineIsDeadlineExceeded() {
    V2Session session = cetp.agent("com.example.agent").v2();
    Bundle missing = session.extras();
    missing.remove(CetpV2.EXTRA_DEADLINE_AT_MS);
    session.send(CetpV2.METHOD_LIST_TOOLS, missing).assertError(CetpV2.DEADLINE_EXCEEDED);
    Bundle past = session.extras();
    past.putLong(CetpV2.EXTRA_DEADLINE_AT_MS, System.currentTimeMillis() - 60_000);
    session.send(CetpV2.METHOD_LIST_TOOLS, past).assertError(CetpV2.DEADLINE_EXCEEDED);
    session.call(tool(), args(), System.currentTimeMillis() - 60_000)
        .assertError(CetpV2.DEADLINE_EXCEEDED);
  }

  @Test
  public void aMissingOrForgedTokenNeedsANegotiation() {
    V2Session session = cetp.agent("com.example.agent").v2();
    Bundle missing = session.extras();
    missing.remove(CetpV2.EXTRA_SESSION_TOKEN);
    session.send(CetpV2.METHOD_LIST_TOOLS, missing).assertError(CetpV2.NEGOTIATION_REQUIRED);
    String token = session.sessionToken();
    char last = token.charAt(token.length() - 1);
    for (String forged :
        new String[] {
          "",
          "forged",
          token.substring(0, token.length() - 1) + (last == '0' ? '1' : '0'),
          token + "00"
        }) {
      Bundle extras = session.extras();
      extras.putString(CetpV2.EXTRA_SESSION_TOKEN, forged);
      session.send(CetpV2.METHOD_LIST_TOOLS, extras).assertError(CetpV2.NEGOTIATION_REQUIRED);
    }
  }

  @Test
  public void anotherAppsTokenNeedsANegotiation() {
    V2Session mine = cetp.agent("com.example.agent").v2();
    V2Session theirs = cetp.agent("com.example.other").v2();
    Bundle extras = mine.extras();
    extras.putString(CetpV2.EXTRA_SESSION_TOKEN, theirs.sessionToken());
    mine.send(CetpV2.METHOD_LIST_TOOLS, extras).assertError(CetpV2.NEGOTIATION_REQUIRED);
    Bundle call = mine.extras();
    call.putString(CetpV2.EXTRA_SESSION_TOKEN, theirs.sessionToken());
    call.putString(CetpV2.EXTRA_TOOL_NAME, tool());
    call.putString(CetpV2.EXTRA_ARGS, args());
    mine.send(CetpV2.METHOD_EXECUTE_TOOL, call).assertError(CetpV2.NEGOTIATION_REQUIRED);
  }

  /** Each field checked only once the one before it passed. */
  @Test
  public void theCommonFieldsAreCheckedInTheSpecificationsOrder() {
    V2Session session = cetp.agent("com.example.agent").v2();
    for (String method : new String[] {CetpV2.METHOD_LIST_TOOLS, CetpV2.METHOD_EXECUTE_TOOL}) {
      Bundle extras = session.extras();
      extras.putString(CetpV2.EXTRA_TOOL_NAME, tool());
      extras.putString(CetpV2.EXTRA_ARGS, args());
      extras.putString(CetpV2.EXTRA_REQUEST_ID, "not-a-uuid");
      extras.remove(CetpV2.EXTRA_DEADLINE_AT_MS);
      extras.putString(CetpV2.EXTRA_SESSION_TOKEN, "forged");
      session.send(method, extras).assertError(CetpV2.INVALID_REQUEST);
      extras.putString(CetpV2.EXTRA_REQUEST_ID, UUID.randomUUID().toString());
      session.send(method, extras).assertError(CetpV2.DEADLINE_EXCEEDED);
      extras.putLong(CetpV2.EXTRA_DEADLINE_AT_MS, System.currentTimeMillis() + 30_000);
      session.send(method, extras).assertError(CetpV2.NEGOTIATION_REQUIRED);
      extras.putString(CetpV2.EXTRA_SESSION_TOKEN, session.sessionToken());
      V2Reply passed = session.send(method, extras);
      assertNotEquals(passed.toString(), CetpV2.NEGOTIATION_REQUIRED, passed.errorCode());
      assertEquals(passed.toString(), 2, (int) passed.protocolVersion());
    }
  }

  @Test
  public void anUnknownMethodIsMethodNotFound() {
    V2Session session = cetp.agent("com.example.agent").v2();
    session.send("delete_everything", session.extras()).assertError(CetpV2.METHOD_NOT_FOUND);
    // A method of an optional capability the session did not negotiate is not unknown: it
    // needs the capability.
    session.send("get_operation", session.extras()).assertError(CetpV2.UNSUPPORTED_CAPABILITY);
  }

  // ----------------------------------------------------------------------------------------
  // list_tools and get_provider_info

  @Test
  public void listToolsGivesARevisionAndToolsTheClientKeeps() throws Exception {
    V2Session session = cetp.agent("com.example.agent").v2();
    V2Reply reply = session.listTools().assertSuccess();
    JSONObject data = reply.jsonObject();
    assertFalse(data.toString(), data.getString("revision").trim().isEmpty());
    assertEquals(List.of(), V2ClientRules.listProblems(data, java.util.Set.of()));
    JSONArray tools = data.getJSONArray("tools");
    assertTrue(data.toString(), tools.length() > 0);
    for (int i = 0; i < tools.length(); i++) {
      JSONObject tool = tools.getJSONObject(i);
      assertNotNull(
          tool.getString("name") + " has an output_schema", tool.optJSONObject("output_schema"));
      assertTrue(tool.toString(), tool.has("scopes"));
    }
    JSONObject info = session.providerInfo().assertSuccess().jsonObject();
    assertEquals(
        List.of(),
        V2ClientRules.scopeCoverageProblems(data, V2ClientRules.scopeNames(info)));
    assertEquals(
        "the same revision for the same tools",
        data.getString("revision"),
        session.listTools().assertSuccess().jsonObject().getString("revision"));
    assertTrue(session.toolNames().contains(tool()));
  }

  @Test
  public void getProviderInfoDescribesEveryScope() throws Exception {
    V2Session session = cetp.agent("com.example.agent").v2();
    JSONObject info = session.providerInfo().assertSuccess().jsonObject();
    assertEquals(packageName(), info.getString("provider_id"));
    assertFalse(info.getString("provider_name").trim().isEmpty());
    assertEquals(CetpV2.SCHEMA_DIALECT, info.getString("schema_dialect"));
    assertEquals(List.of(), V2ClientRules.providerInfoProblems(info, session.providerId()));
    JSONArray scopes = info.getJSONArray("scopes");
    for (int i = 0; i < scopes.length(); i++) {
      JSONObject scope = scopes.getJSONObject(i);
      assertFalse(scope.toString(), scope.getString("title").trim().isEmpty());
      assertTrue(scope.toString(), V2ClientRules.ACCESSES.contains(scope.getString("access")));
      assertTrue(
          scope.toString(), V2ClientRules.SENSITIVITIES.contains(scope.getString("sensitivity")));
    }
  }

  // ----------------------------------------------------------------------------------------
  // execute_tool and the approval

  @Test
  public void anAllowedCallIsResumedOnceAndSucceeds() throws Exception {
    V2Session session = cetp.agent("com.example.agent").v2();
    V2Reply refused = session.call(tool(), args()).assertError(CetpV2.AUTH_REQUIRED);
    assertNotNull(refused.resolution());
    assertNotNull(refused.resumeToken());
    assertNotNull("a hint names what to do", refused.resolutionHint());
    assertEquals(session.deadlineFor(tool()), V2Session.LONG_DEADLINE_MS);
    try (ConsentDialog dialog = session.openResolution(refused)) {
      assertFalse(dialog.text(), dialog.texts().isEmpty());
      dialog.allow();
      assertEquals(Activity.RESULT_OK, dialog.resultCode());
      assertTrue(dialog.isFinishing());
    }
    V2Reply done = session.resume(refused).assertSuccess();
    assertEquals(refused.requestId(), done.requestId());
    assertEquals(CetpV2.RESULT_KIND_INLINE, done.jsonObject().getString("kind"));
    assertNotNull(done.value());

    session.resume(refused).assertError(CetpV2.INVALID_REQUEST);
    // Allowed now: a new call runs at once, under its own request id.
    V2Reply again = session.call(tool(), args()).assertSuccess();
    assertNotEquals(refused.requestId(), again.requestId());
    assertEquals(done.value().toString(), again.value().toString());
  }

  @Test
  public void aResumeWithOtherArgumentsIsRefused() throws Exception {
    V2Session session = cetp.agent("com.example.agent").v2();
    V2Reply refused = session.call(tool(), args()).assertError(CetpV2.AUTH_REQUIRED);
    try (ConsentDialog dialog = session.openResolution(refused)) {
      dialog.allow();
    }
    Bundle changed = refused.request();
    changed.putString(CetpV2.EXTRA_ARGS, otherArgs());
    changed.putString(CetpV2.EXTRA_RESUME_TOKEN, refused.resumeToken());
    session.send(CetpV2.METHOD_EXECUTE_TOOL, changed).assertError(CetpV2.INVALID_REQUEST);
    Bundle otherId = refused.request();
    otherId.putString(CetpV2.EXTRA_REQUEST_ID, UUID.randomUUID().toString());
    otherId.putString(CetpV2.EXTRA_RESUME_TOKEN, refused.resumeToken());
    session.send(CetpV2.METHOD_EXECUTE_TOOL, otherId).assertError(CetpV2.INVALID_REQUEST);
    Bundle unknown = refused.request();
    unknown.putString(CetpV2.EXTRA_RESUME_TOKEN, "not-a-token");
    session.send(CetpV2.METHOD_EXECUTE_TOOL, unknown).assertError(CetpV2.INVALID_REQUEST);
  }

  @Test
  public void anotherAppCannotResumeTheCall() throws Exception {
    V2Session mine = cetp.agent("com.example.agent").v2();
    V2Reply refused = mine.call(tool(), args()).assertError(CetpV2.AUTH_REQUIRED);
    try (ConsentDialog dialog = mine.openResolution(refused)) {
      dialog.allow();
    }
    V2Session theirs = cetp.agent("com.example.other").v2();
    Bundle stolen = refused.request();
    stolen.putString(CetpV2.EXTRA_SESSION_TOKEN, theirs.sessionToken());
    stolen.putString(CetpV2.EXTRA_RESUME_TOKEN, refused.resumeToken());
    theirs.send(CetpV2.METHOD_EXECUTE_TOOL, stolen).assertError(CetpV2.INVALID_REQUEST);
  }

  /** Each agent's resolution opens its own request: allowing one lets the other wait. */
  @Test
  public void eachAgentsResolutionOpensItsOwnRequest() throws Exception {
    V2Session first = cetp.agent("com.example.first").v2();
    V2Session second = cetp.agent("com.example.second").v2();
    V2Reply firstRefused = first.call(tool(), args()).assertError(CetpV2.AUTH_REQUIRED);
    V2Reply secondRefused = second.call(tool(), args()).assertError(CetpV2.AUTH_REQUIRED);
    try (ConsentDialog dialog = second.openResolution(secondRefused)) {
      assertTrue(dialog.text(), dialog.texts().contains("com.example.second"));
      assertFalse(dialog.text(), dialog.text().contains("com.example.first"));
      dialog.allow();
    }
    second.resume(secondRefused).assertSuccess();
    first.resume(firstRefused).assertError(CetpV2.USER_CANCELLED);
  }

  @Test
  public void aDeniedCallIsUserCancelled() throws Exception {
    V2Session session = cetp.agent("com.example.agent").v2();
    V2Reply refused = session.call(tool(), args()).assertError(CetpV2.AUTH_REQUIRED);
    try (ConsentDialog dialog = session.openResolution(refused)) {
      dialog.deny();
      assertTrue(dialog.isFinishing());
    }
    session.resume(refused).assertError(CetpV2.USER_CANCELLED);
    session.resume(refused).assertError(CetpV2.INVALID_REQUEST);
    // The user's answer stands: no new prompt.
    session.call(tool(), args()).assertError(CetpV2.PERMISSION_DENIED);
  }

  @Test
  public void aDialogLeftWithoutDecidingIsUserCancelled() throws Exception {
    V2Session session = cetp.agent("com.example.agent").v2();
    V2Reply refused = session.call(tool(), args()).assertError(CetpV2.AUTH_REQUIRED);
    try (ConsentDialog dialog = session.openResolution(refused)) {
      dialog.dismiss();
      assertEquals(Activity.RESULT_CANCELED, dialog.resultCode());
    }
    V2Reply cancelled = session.resume(refused).assertError(CetpV2.USER_CANCELLED);
    assertNull(cancelled.resolution());
    // Nothing was decided: the next call asks again, and the user may allow it then.
    V2Reply again = session.call(tool(), args()).assertError(CetpV2.AUTH_REQUIRED);
    try (ConsentDialog dialog = session.openResolution(again)) {
      dialog.allow();
    }
    session.resume(again).assertSuccess();
    session.resume(refused).assertError(CetpV2.INVALID_REQUEST);
  }

  @Test
  public void invalidArgumentsAreInvalidArgs() throws Exception {
    V2Session session = approved(cetp.agent("com.example.agent"));
    session.call(tool(), invalidArgs()).assertError(CetpV2.INVALID_ARGS);
    session.call(tool(), "not json").assertError(CetpV2.INVALID_ARGS);
    session.call(tool(), otherArgs()).assertSuccess();
  }

  @Test
  public void anUnknownToolIsToolNotFound() throws Exception {
    V2Session session = approved(cetp.agent("com.example.agent"));
    session.call("no_such_tool", "{}").assertError(CetpV2.TOOL_NOT_FOUND);
  }

  // ----------------------------------------------------------------------------------------
  // CETP v1 beside it

  /** What a v1 agent sends (no {@code protocol_version}, or another number) stays v1. */
  @Test
  public void aV1AgentOfTheSameAppIsAnsweredInV1() throws Exception {
    Agent agent = cetp.agent("com.example.agent");
    V2Reply list = agent.send(CetpV2.METHOD_LIST_TOOLS, new Bundle());
    assertTrue(list.toString(), list.isV1() && list.isSuccess());
    JSONArray tools = list.jsonObject().getJSONArray("tools");
    for (int i = 0; i < tools.length(); i++) {
      assertTrue(tools.getJSONObject(i).toString(), tools.getJSONObject(i).has("parameters"));
    }
    assertTrue(list.toString(), agent.send(CetpV2.METHOD_GET_PROVIDER_INFO, null).isV1());

    Bundle call = new Bundle();
    call.putString(CetpV2.EXTRA_TOOL_NAME, tool());
    call.putString(CetpV2.EXTRA_ARGS, args());
    call.putString(CetpV2.EXTRA_REQUEST_ID, UUID.randomUUID().toString());
    V2Reply refused = agent.send(CetpV2.METHOD_EXECUTE_TOOL, call);
    assertTrue(refused.toString(), refused.isV1());
    assertEquals(refused.toString(), CetpV2.AUTH_REQUIRED, refused.errorCode());
    assertNull(refused.toString(), refused.resolution());
    assertFalse(refused.toString(), refused.keys().contains(CetpV2.KEY_RETRYABLE));
    assertEquals(packageName() + ".CETP_AUTHORIZE", agent.call(tool(), args()).authorizeIntent());

    Bundle one = new Bundle(call);
    one.putInt(CetpV2.EXTRA_PROTOCOL_VERSION, 1);
    assertTrue(agent.send(CetpV2.METHOD_EXECUTE_TOOL, one).isV1());
    // A 2 of another type than the spec's Int names v2 all the same: not a v1 answer, but v2's
    // refusal of the envelope.
    Bundle text = new Bundle(call);
    text.putString(CetpV2.EXTRA_PROTOCOL_VERSION, "2");
    agent.send(CetpV2.METHOD_EXECUTE_TOOL, text).assertError(CetpV2.INVALID_REQUEST);
    Bundle wide = new Bundle(call);
    wide.putLong(CetpV2.EXTRA_PROTOCOL_VERSION, 2L);
    agent.send(CetpV2.METHOD_EXECUTE_TOOL, wide).assertError(CetpV2.INVALID_REQUEST);
  }
}
