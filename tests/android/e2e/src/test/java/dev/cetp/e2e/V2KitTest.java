package dev.cetp.e2e;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import android.app.PendingIntent;
import android.content.ComponentName;
import android.content.Intent;
import android.os.Bundle;
import dev.cetp.testkit.internal.V2ClientRules;
import dev.cetp.testkit.internal.V2OperationCheck;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.V2Reply;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;

/**
 * The kit's CETP v2 agent on its own (no bundle): how it reads a reply's typed keys after a
 * Parcel round trip and what its assertions demand, and the acceptance rules of ClawSeed's newest
 * client on hand-written answers.
 */
@RunWith(RobolectricTestRunner.class)
public class V2KitTest {
  static final String ID = UUID.randomUUID().toString();

  private static Bundle request() {
    Bundle request = new Bundle();
    request.putInt(CetpV2.EXTRA_PROTOCOL_VERSION, 2);
    request.putString(CetpV2.EXTRA_REQUEST_ID, ID);
    return request;
  }

  private static Bundle error(String code, boolean retryable) {
    Bundle reply = new Bundle();
    reply.putInt(CetpV2.KEY_PROTOCOL_VERSION, 2);
    reply.putString(CetpV2.KEY_REQUEST_ID, ID);
    reply.putString(CetpV2.KEY_STATUS, "error");
    reply.putString(CetpV2.KEY_ERROR_CODE, code);
    reply.putString(CetpV2.KEY_ERROR_MESSAGE, "something to read");
    reply.putBoolean(CetpV2.KEY_RETRYABLE, retryable);
    return reply;
  }

  @Test
  public void everyKeyIsReadWithItsTypeAfterAParcelRoundTrip() {
    Bundle reply = error(CetpV2.AUTH_REQUIRED, false);
    reply.putLong(CetpV2.KEY_RETRY_AFTER_MS, 1_500L);
    reply.putString(CetpV2.KEY_RESUME_TOKEN, "opaque");
    Intent screen =
        new Intent().setComponent(new ComponentName("org.robolectric.default", "x.Screen"));
    reply.putParcelable(
        CetpV2.KEY_RESOLUTION,
        PendingIntent.getActivity(
            RuntimeEnvironment.getApplication(), 0, screen, PendingIntent.FLAG_IMMUTABLE));
    V2Reply read = V2Reply.of(CetpV2.METHOD_EXECUTE_TOOL, request(), reply);
    assertEquals(Integer.valueOf(2), read.protocolVersion());
    assertEquals(ID, read.requestId());
    assertEquals(Boolean.FALSE, read.retryable());
    assertEquals(Long.valueOf(1_500L), read.retryAfterMs());
    assertEquals("opaque", read.resumeToken());
    assertEquals("org.robolectric.default", read.resolution().getCreatorPackage());
    assertFalse(read.isV1());
    read.assertError(CetpV2.AUTH_REQUIRED).assertMessageContains("to read");
    assertEquals(ID, read.request().getString(CetpV2.EXTRA_REQUEST_ID));
  }

  @Test
  public void aKeyOfAnotherTypeFailsItsGetter() {
    Bundle reply = error(CetpV2.INVALID_ARGS, false);
    reply.putString(CetpV2.KEY_PROTOCOL_VERSION, "2");
    reply.putString(CetpV2.KEY_RETRYABLE, "false");
    reply.putInt(CetpV2.KEY_RETRY_AFTER_MS, 10);
    V2Reply read = V2Reply.of(CetpV2.METHOD_EXECUTE_TOOL, request(), reply);
    assertThrows(AssertionError.class, read::protocolVersion);
    assertThrows(AssertionError.class, read::retryable);
    assertThrows(AssertionError.class, read::retryAfterMs);
  }

  @Test
  public void anErrorNeedsTheV2Envelope() {
    V2Reply good =
        V2Reply.of(CetpV2.METHOD_LIST_TOOLS, request(), error(CetpV2.INVALID_REQUEST, false));
    good.assertError(CetpV2.INVALID_REQUEST);
    assertThrows(AssertionError.class, () -> good.assertError(CetpV2.INVALID_ARGS));

    Bundle noRetryable = error(CetpV2.INVALID_REQUEST, false);
    noRetryable.remove(CetpV2.KEY_RETRYABLE);
    assertThrows(
        AssertionError.class,
        () -> V2Reply.of("list_tools", request(), noRetryable).assertError(CetpV2.INVALID_REQUEST));

    // The specification fixes retryable for these codes.
    assertThrows(
        AssertionError.class,
        () ->
            V2Reply.of("list_tools", request(), error(CetpV2.NEGOTIATION_REQUIRED, false))
                .assertError(CetpV2.NEGOTIATION_REQUIRED));
    assertThrows(
        AssertionError.class,
        () ->
            V2Reply.of("list_tools", request(), error(CetpV2.USER_CANCELLED, true))
                .assertError(CetpV2.USER_CANCELLED));

    Bundle otherId = error(CetpV2.INVALID_ARGS, false);
    otherId.putString(CetpV2.KEY_REQUEST_ID, UUID.randomUUID().toString());
    assertThrows(
        AssertionError.class,
        () -> V2Reply.of("execute_tool", request(), otherId).assertError(CetpV2.INVALID_ARGS));

    Bundle v1 = error(CetpV2.INVALID_ARGS, false);
    v1.remove(CetpV2.KEY_PROTOCOL_VERSION);
    V2Reply old = V2Reply.of("execute_tool", request(), v1);
    assertTrue(old.isV1());
    assertNull(old.protocolVersion());
    assertThrows(AssertionError.class, () -> old.assertError(CetpV2.INVALID_ARGS));
  }

  @Test
  public void aResultIsAnInlineEnvelope() throws Exception {
    Bundle reply = new Bundle();
    reply.putInt(CetpV2.KEY_PROTOCOL_VERSION, 2);
    reply.putString(CetpV2.KEY_REQUEST_ID, ID);
    reply.putString(CetpV2.KEY_STATUS, "success");
    reply.putString(CetpV2.KEY_DATA, "{\"kind\":\"inline\",\"value\":[1,2]}");
    V2Reply read = V2Reply.of(CetpV2.METHOD_EXECUTE_TOOL, request(), reply).assertSuccess();
    assertEquals(2, ((JSONArray) read.value()).length());

    reply.putString(CetpV2.KEY_DATA, "[1,2]");
    V2Reply bare = V2Reply.of(CetpV2.METHOD_EXECUTE_TOOL, request(), reply).assertSuccess();
    assertThrows(AssertionError.class, bare::value);
    reply.putString(CetpV2.KEY_DATA, "{\"kind\":\"file\"}");
    assertThrows(
        AssertionError.class, () -> V2Reply.of("execute_tool", request(), reply).value());
    assertThrows(AssertionError.class, () -> V2Reply.of("execute_tool", request(), null));
  }

  // ----------------------------------------------------------------------------------------
  // The client's acceptance rules

  private static JSONObject tool() throws Exception {
    return new JSONObject()
        .put("name", "find_items")
        .put("description", "Finds items")
        .put("input_schema", new JSONObject().put("type", "object"))
        .put("scopes", new JSONArray().put("items.read"))
        .put(
            "annotations",
            new JSONObject()
                .put("effect", "read")
                .put("risk", "low")
                .put("destructive", false)
                .put("idempotent", true)
                .put("open_world", false)
                .put("confirmation", "provider_policy")
                .put("execution", "sync"));
  }

  private static String problem(JSONObject tool) {
    return V2ClientRules.toolProblem(tool, Set.of());
  }

  @Test
  public void aToolIsKeptOnlyAsTheClientKeepsIt() throws Exception {
    assertNull(problem(tool()));
    for (String name : new String[] {"Find", "1find", "find-items", "a".repeat(65), ""}) {
      assertTrue(name, problem(tool().put("name", name)).contains("name"));
    }
    assertNull(problem(tool().put("name", "a".repeat(64))));
    JSONObject noSchema = tool();
    noSchema.remove("input_schema");
    assertTrue(problem(noSchema).contains("input_schema"));
    assertTrue(problem(tool().put("input_schema", "{}")).contains("input_schema"));
    for (String key :
        new String[] {
          "effect", "risk", "destructive", "idempotent", "open_world", "confirmation", "execution"
        }) {
      JSONObject t = tool();
      t.getJSONObject("annotations").remove(key);
      assertTrue(key, problem(t).contains(key));
      JSONObject unknown = tool();
      unknown.getJSONObject("annotations").put(key, "sometimes");
      assertTrue(key, problem(unknown).contains(key));
    }
    JSONObject high = tool();
    high.getJSONObject("annotations").put("risk", "high");
    assertTrue(problem(high).contains("high-risk"));
    high.getJSONObject("annotations").put("confirmation", "always");
    assertNull(problem(high));
    JSONObject delete = tool();
    delete.getJSONObject("annotations").put("effect", "delete");
    assertTrue(problem(delete).contains("specification"));
    JSONObject async = tool();
    async.getJSONObject("annotations").put("execution", "sync_or_async");
    assertTrue(problem(async).contains("async_operations"));
    assertNull(V2ClientRules.toolProblem(async, Set.of("async_operations")));
  }

  @Test
  public void aListNeedsARevisionAndOneToolLeft() throws Exception {
    JSONObject list =
        new JSONObject().put("revision", "r1").put("tools", new JSONArray().put(tool()));
    assertEquals(List.of(), V2ClientRules.listProblems(list, Set.of()));
    list.remove("revision");
    assertEquals(1, V2ClientRules.listProblems(list, Set.of()).size());
    JSONObject none =
        new JSONObject()
            .put("revision", "r1")
            .put("tools", new JSONArray().put(tool().put("name", "Bad")));
    List<String> problems = V2ClientRules.listProblems(none, Set.of());
    String last = problems.get(problems.size() - 1);
    assertTrue(problems.toString(), last.contains("drops the provider"));
    JSONObject twice =
        new JSONObject().put("revision", "r").put("tools", new JSONArray().put(tool()).put(tool()));
    assertTrue(V2ClientRules.listProblems(twice, Set.of()).toString().contains("twice"));
  }

  private static String problems(JSONObject info) {
    return V2ClientRules.providerInfoProblems(info, "com.example.app").toString();
  }

  @Test
  public void providerInfoScopesNeedKnownAccessAndSensitivity() throws Exception {
    JSONObject scope =
        new JSONObject()
            .put("name", "items.read")
            .put("title", "Read items")
            .put("access", "read")
            .put("sensitivity", "personal");
    JSONObject info =
        new JSONObject()
            .put("provider_id", "com.example.app")
            .put("provider_name", "Example")
            .put("schema_dialect", CetpV2.SCHEMA_DIALECT)
            .put("scopes", new JSONArray().put(scope));
    assertEquals(List.of(), V2ClientRules.providerInfoProblems(info, "com.example.app"));
    assertEquals(1, V2ClientRules.providerInfoProblems(info, "com.example.other").size());
    scope.put("access", "admin");
    assertTrue(problems(info).contains("discards"));
    scope.put("access", "write").remove("sensitivity");
    assertTrue(problems(info).contains("sensitivity"));
    JSONObject unknown = tool().put("scopes", new JSONArray().put("x.y"));
    JSONObject list = new JSONObject().put("tools", new JSONArray().put(unknown));
    assertEquals(
        1, V2ClientRules.scopeCoverageProblems(list, V2ClientRules.scopeNames(info)).size());
  }

  @Test
  public void negotiateIsAcceptedOnlyWithinTheClientsBounds() throws Exception {
    JSONObject good =
        new JSONObject()
            .put("selected_version", 2)
            .put("provider_id", "com.example.app")
            .put("provider_name", "Example")
            .put("session_token", "t".repeat(256))
            .put("capabilities", new JSONArray())
            .put(
                "limits",
                new JSONObject()
                    .put("max_request_bytes", 65_536)
                    .put("max_inline_result_bytes", 262_144)
                    .put("max_concurrent_requests", 1)
                    .put("idempotency_window_seconds", 86_400));
    assertEquals(List.of(), V2ClientRules.negotiateProblems(good, "com.example.app", Set.of()));
    assertEquals(
        List.of(),
        V2ClientRules.negotiateProblems(
            new JSONObject(good.toString()).put("provider_id", "com.example.app.tools"),
            "com.example.app",
            Set.of()));
    Object[][] bad = {
      {"selected_version", 1},
      {"provider_id", "com.example.application"},
      {"provider_id", " "},
      {"provider_name", ""},
      {"session_token", "t".repeat(257)},
      {"session_token", "é".repeat(129)},
      {"capabilities", new JSONArray().put("large_results")},
    };
    for (Object[] change : bad) {
      JSONObject data = new JSONObject(good.toString()).put((String) change[0], change[1]);
      assertEquals(
          change[0] + "=" + change[1],
          1,
          V2ClientRules.negotiateProblems(data, "com.example.app", Set.of()).size());
    }
    for (String limit : V2ClientRules.LIMIT_NAMES) {
      JSONObject data = new JSONObject(good.toString());
      JSONObject limits = data.getJSONObject("limits");
      limits.put(limit, limits.getLong(limit) - 1);
      assertEquals(
          limit, 1, V2ClientRules.negotiateProblems(data, "com.example.app", Set.of()).size());
    }
  }

  private static Bundle success(String status, String data) {
    Bundle reply = new Bundle();
    reply.putInt(CetpV2.KEY_PROTOCOL_VERSION, 2);
    reply.putString(CetpV2.KEY_REQUEST_ID, ID);
    reply.putString(CetpV2.KEY_STATUS, status);
    reply.putString(CetpV2.KEY_DATA, data);
    return reply;
  }

  @Test
  public void anAcceptedReplyNamesItsOperationAndWhenToPoll() {
    V2Reply accepted =
        V2Reply.of(
                CetpV2.METHOD_EXECUTE_TOOL,
                request(),
                success("accepted", "{\"operation_id\":\"op_1\",\"poll_after_ms\":1000}"))
            .assertAccepted();
    assertTrue(accepted.isAccepted());
    assertFalse(accepted.isSuccess());
    assertEquals("op_1", accepted.operationId());
    assertEquals(Long.valueOf(1000), accepted.pollAfterMs());
    assertThrows(AssertionError.class, accepted::assertSuccess);

    for (String data :
        new String[] {
          "{\"poll_after_ms\":1000}",
          "{\"operation_id\":\"\",\"poll_after_ms\":1000}",
          "{\"operation_id\":7,\"poll_after_ms\":1000}",
          "{\"operation_id\":\"op_1\"}",
          "[1]",
        }) {
      V2Reply bad = V2Reply.of(CetpV2.METHOD_EXECUTE_TOOL, request(), success("accepted", data));
      assertThrows(data, AssertionError.class, bad::assertAccepted);
    }
    Bundle otherId = success("accepted", "{\"operation_id\":\"op_1\",\"poll_after_ms\":1}");
    otherId.putString(CetpV2.KEY_REQUEST_ID, UUID.randomUUID().toString());
    assertThrows(
        AssertionError.class,
        () -> V2Reply.of(CetpV2.METHOD_EXECUTE_TOOL, request(), otherId).assertAccepted());
    assertThrows(
        AssertionError.class,
        () ->
            V2Reply.of(CetpV2.METHOD_EXECUTE_TOOL, request(), success("success", "{}"))
                .assertAccepted());
  }

  @Test
  public void anOperationsStateIsReadWithItsProgressResultOrError() throws Exception {
    V2Reply running =
        V2Reply.of(
            CetpV2.METHOD_GET_OPERATION,
            request(),
            success(
                "success",
                "{\"operation_id\":\"op_1\",\"state\":\"running\",\"poll_after_ms\":500,"
                    + "\"progress\":{\"current\":40,\"total\":100,\"message\":\"Synchronizing\"}}"));
    running.assertState(CetpV2.STATE_RUNNING);
    assertFalse(running.isTerminal());
    assertEquals("op_1", running.operationId());
    assertEquals(Long.valueOf(40), running.progressCurrent());
    assertEquals(Long.valueOf(100), running.progressTotal());
    assertEquals("Synchronizing", running.progressMessage());
    assertEquals(Long.valueOf(500), running.pollAfterMs());
    assertThrows(AssertionError.class, () -> running.assertState(CetpV2.STATE_SUCCEEDED));
    assertThrows(AssertionError.class, running::operationValue);
    assertNull(V2OperationCheck.operationProblem(running.jsonObject()));

    V2Reply succeeded =
        V2Reply.of(
            CetpV2.METHOD_GET_OPERATION,
            request(),
            success(
                "success",
                "{\"operation_id\":\"op_1\",\"state\":\"succeeded\","
                    + "\"result\":{\"kind\":\"inline\",\"value\":[1,2]}}"));
    assertTrue(succeeded.isTerminal());
    assertNull(succeeded.progressCurrent());
    assertEquals("[1,2]", succeeded.operationValue().toString());
    assertEquals("inline", succeeded.operationResult().getString("kind"));
    assertNull(V2OperationCheck.operationProblem(succeeded.jsonObject()));

    V2Reply failed =
        V2Reply.of(
            CetpV2.METHOD_GET_OPERATION,
            request(),
            success(
                "success",
                "{\"operation_id\":\"op_1\",\"state\":\"failed\",\"error\":{"
                    + "\"error_code\":\"INTERNAL_ERROR\",\"error_message\":\"broke\","
                    + "\"retryable\":false}}"));
    assertTrue(failed.isTerminal());
    assertEquals(CetpV2.INTERNAL_ERROR, failed.operationErrorCode());
    assertNotNull(failed.operationError());
    assertNull(failed.operationResult());
    assertThrows(AssertionError.class, failed::operationValue);
    assertNull(V2OperationCheck.operationProblem(failed.jsonObject()));

    V2Reply requested =
        V2Reply.of(
            CetpV2.METHOD_CANCEL_OPERATION,
            request(),
            success(
                "success",
                "{\"operation_id\":\"op_1\",\"state\":\"cancellation_requested\","
                    + "\"poll_after_ms\":500}"));
    requested.assertState(CetpV2.STATE_CANCELLATION_REQUESTED);
    assertFalse(requested.isTerminal());
  }

  @Test
  public void theOperationRulesFindWhatTheSpecificationForbids() throws Exception {
    for (String data :
        new String[] {
          "{\"state\":\"running\"}",
          "{\"operation_id\":\"op_1\",\"state\":\"sleeping\"}",
          "{\"operation_id\":\"op_1\",\"state\":\"running\","
              + "\"progress\":{\"current\":101,\"total\":100}}",
          "{\"operation_id\":\"op_1\",\"state\":\"running\",\"progress\":{\"total\":1}}",
          "{\"operation_id\":\"op_1\",\"state\":\"succeeded\"}",
          "{\"operation_id\":\"op_1\",\"state\":\"succeeded\",\"result\":{\"kind\":\"file\"}}",
          "{\"operation_id\":\"op_1\",\"state\":\"failed\",\"error\":{\"error_code\":\"X\"}}",
        }) {
      assertNotNull(data, V2OperationCheck.operationProblem(new JSONObject(data)));
    }
    assertNull(
        V2OperationCheck.operationProblem(
            new JSONObject("{\"operation_id\":\"op_1\",\"state\":\"cancelled\"}")));
    assertNull(
        V2OperationCheck.operationProblem(
            new JSONObject(
                "{\"operation_id\":\"op_1\",\"state\":\"queued\",\"progress\":{\"current\":3}}")));
  }
}
