package dev.cetp.testkit.internal;

import android.os.Bundle;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.CetpV2;
import dev.cetp.testkit.V2Reply;
import dev.cetp.testkit.V2Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import org.json.JSONArray;
import org.json.JSONObject;
import org.jspecify.annotations.Nullable;

/**
 * The CETP v2 operation checks of {@link V2Session#operationProblems}: a long-running tool's
 * life as an agent that negotiated {@code async_operations} and {@code cancellation} sees it, and
 * those capabilities never used by a session that did not negotiate them. The same rules as the
 * SDK's Rust check ({@code testing::Agent::check_v2_operations}), through the app's provider.
 */
public final class V2OperationCheck {
  private V2OperationCheck() {}

  /** An operation id no provider issued. */
  public static final String UNKNOWN_OPERATION = "op_cetp_conformance_no_such_operation";

  /** The package of the other app that asks for the agent's operations. */
  public static final String STRANGER = "dev.cetp.conformance.stranger";

  /** How long a poll loop may go on before the check gives up (a failure bound, not a wait). */
  private static final long GIVE_UP_MS = 60_000;

  /**
   * What is wrong with the state an operation method answered ({@code data} of a success): an
   * {@code operation_id}, a known {@code state}, {@code progress} never past its {@code total},
   * {@code succeeded} with an inline {@code result}, {@code failed} with an {@code error} that
   * has a code, a message and {@code retryable}.
   *
   * @param data the reply's data
   * @return the problem, or null
   */
  public static @Nullable String operationProblem(JSONObject data) {
    Object id = data.opt(Wire.EXTRA_OPERATION_ID);
    if (!(id instanceof String) || ((String) id).isEmpty()) {
      return "no operation_id";
    }
    Object state = data.opt("state");
    if (CetpV2.STATE_QUEUED.equals(state) || CetpV2.STATE_RUNNING.equals(state)) {
      JSONObject progress = data.optJSONObject("progress");
      if (progress != null) {
        Object current = progress.opt("current");
        Object total = progress.opt("total");
        if (!(current instanceof Number)) {
          return "progress without a current number";
        }
        if (total != null
            && (!(total instanceof Number)
                || ((Number) current).longValue() > ((Number) total).longValue())) {
          return "progress " + current + " of " + total;
        }
      }
      return null;
    }
    if (CetpV2.STATE_SUCCEEDED.equals(state)) {
      JSONObject result = data.optJSONObject("result");
      if (result == null
          || !CetpV2.RESULT_KIND_INLINE.equals(result.optString("kind", null))
          || !result.has("value")) {
        return "succeeded without an inline result";
      }
      return null;
    }
    if (CetpV2.STATE_FAILED.equals(state)) {
      JSONObject error = data.optJSONObject("error");
      if (error == null
          || !(error.opt(CetpV2.KEY_ERROR_CODE) instanceof String)
          || !(error.opt(CetpV2.KEY_ERROR_MESSAGE) instanceof String)
          || !(error.opt(CetpV2.KEY_RETRYABLE) instanceof Boolean)) {
        return "failed without an error of code, message and retryable";
      }
      return null;
    }
    if (CetpV2.STATE_CANCELLED.equals(state)) {
      return null;
    }
    return "unknown state " + state;
  }

  /**
   * Runs the checks with {@code agent} calling {@code tool} with {@code argsJson}.
   *
   * @param agent the agent (the provider must let it call the tool)
   * @param stranger another app, which asks for the agent's operations
   * @param tool a long-running tool
   * @param argsJson arguments it answers
   * @return the problems, empty when the app conforms
   */
  public static List<String> problems(
      Agent agent, Agent stranger, String tool, @Nullable String argsJson) {
    List<String> v = new ArrayList<>();
    V2Session both =
        agent.v2(CetpV2.CAPABILITY_ASYNC_OPERATIONS, CetpV2.CAPABILITY_CANCELLATION);
    if (!both.negotiated(CetpV2.CAPABILITY_ASYNC_OPERATIONS)
        || !both.negotiated(CetpV2.CAPABILITY_CANCELLATION)) {
      v.add(
          "negotiate: a provider with a long-running tool grants async_operations and"
              + " cancellation to an agent that asks, granted "
              + both.negotiated().optJSONArray("capabilities"));
      return v;
    }
    String listed = execution(both, tool);
    if (!CetpV2.EXECUTION_SYNC_OR_ASYNC.equals(listed)) {
      v.add(
          tool + " is listed with execution " + listed + " in a session with async_operations,"
              + " not sync_or_async: it is not a long-running tool");
      return v;
    }

    // A session without the capabilities: nothing of them is used.
    V2Session plain = agent.v2();
    String plainExecution = execution(plain, tool);
    if (!CetpV2.EXECUTION_SYNC.equals(plainExecution)) {
      v.add(
          "list_tools without async_operations: " + tool + " says execution " + plainExecution
              + ", not sync");
    }
    V2Reply sync = agent.send(CetpV2.METHOD_EXECUTE_TOOL, execute(plain, tool, argsJson));
    if (sync.isAccepted()) {
      v.add("execute_tool answered accepted in a session without async_operations");
    }
    expectCode(
        "get_operation without async_operations",
        agent.send(
            CetpV2.METHOD_GET_OPERATION,
            operation(plain, UUID.randomUUID().toString(), UNKNOWN_OPERATION)),
        CetpV2.UNSUPPORTED_CAPABILITY,
        v);
    V2Session polling = agent.v2(CetpV2.CAPABILITY_ASYNC_OPERATIONS);
    expectCode(
        "cancel_operation without cancellation",
        agent.send(
            CetpV2.METHOD_CANCEL_OPERATION,
            operation(polling, UUID.randomUUID().toString(), UNKNOWN_OPERATION)),
        CetpV2.UNSUPPORTED_CAPABILITY,
        v);

    // accepted → queued/running (with progress) → succeeded or failed.
    V2Reply first = both.call(tool, argsJson);
    String refused = first.errorCode();
    if (CetpV2.AUTH_REQUIRED.equals(refused)
        || CetpV2.PERMISSION_DENIED.equals(refused)
        || CetpV2.TOOL_NOT_FOUND.equals(refused)
        || CetpV2.INVALID_ARGS.equals(refused)) {
      v.add(
          "execute_tool " + tool + " was refused (" + first
              + "): the checks need an agent the provider lets call it, with arguments it takes");
      return v;
    }
    if (first.isAccepted()) {
      if (accepted(first, v)) {
        strangerLearnsNothing(stranger, first, v);
        V2Reply end = pollToTheEnd(both, first, v);
        if (end != null && CetpV2.STATE_CANCELLED.equals(end.state())) {
          v.add("get_operation: cancelled though nobody cancelled it");
        }
      }
    } else if (!first.isSuccess() && first.errorCode() == null) {
      v.add("execute_tool: neither success, error nor accepted: " + first);
    }

    // cancel → cancellation_requested → cancelled (or CONFLICT once it had ended).
    V2Reply second = both.call(tool, argsJson);
    if (second.isAccepted() && accepted(second, v)) {
      V2Reply asked = both.cancelOperation(second.operationId());
      boolean requested = false;
      if (asked.isSuccess()
          && CetpV2.STATE_CANCELLATION_REQUESTED.equals(asked.jsonObject().opt("state"))) {
        requested = true;
      } else if (!CetpV2.CONFLICT.equals(asked.errorCode())) {
        v.add("cancel_operation: expected cancellation_requested or CONFLICT, got " + asked);
      }
      V2Reply end = pollToTheEnd(both, second, v);
      if (end != null && requested && !CetpV2.STATE_CANCELLED.equals(end.state())) {
        v.add(
            "get_operation: a cancellation acknowledged ended " + end.state()
                + ", not cancelled");
      }
    }
    return v;
  }

  /** The {@code execution} annotation {@code tool} is listed with in {@code session}. */
  private static @Nullable String execution(V2Session session, String tool) {
    V2Reply list = session.listTools();
    if (!list.isSuccess()) {
      return "(list_tools failed: " + list + ")";
    }
    JSONArray tools = list.jsonObject().optJSONArray("tools");
    for (int i = 0; tools != null && i < tools.length(); i++) {
      JSONObject entry = tools.optJSONObject(i);
      if (entry != null && tool.equals(entry.optString("name"))) {
        JSONObject annotations = entry.optJSONObject("annotations");
        return annotations == null ? null : annotations.optString("execution", null);
      }
    }
    return "(not listed)";
  }

  private static Bundle execute(V2Session session, String tool, @Nullable String argsJson) {
    Bundle extras = session.extras();
    extras.putString(CetpV2.EXTRA_TOOL_NAME, tool);
    if (argsJson != null) {
      extras.putString(CetpV2.EXTRA_ARGS, argsJson);
    }
    return extras;
  }

  private static Bundle operation(V2Session session, String requestId, String operationId) {
    Bundle extras = session.extras();
    extras.putString(CetpV2.EXTRA_REQUEST_ID, requestId);
    extras.putString(CetpV2.EXTRA_OPERATION_ID, operationId);
    return extras;
  }

  private static void expectCode(String what, V2Reply reply, String code, List<String> v) {
    if (!code.equals(reply.errorCode())) {
      v.add(what + ": expected " + code + ", got " + reply);
    }
  }

  /** Whether an {@code accepted} reply is as the specification says (problems noted). */
  private static boolean accepted(V2Reply reply, List<String> v) {
    try {
      reply.assertAccepted();
    } catch (AssertionError e) {
      v.add(e.getMessage());
      return false;
    }
    long poll = Objects.requireNonNull(reply.pollAfterMs());
    if (poll < 100 || poll > 10_000) {
      v.add("accepted: poll_after_ms " + poll + " outside 100 to 10,000");
    }
    return true;
  }

  /** Another UID asking for the operation gets what it gets for an id never issued. */
  private static void strangerLearnsNothing(Agent stranger, V2Reply accepted, List<String> v) {
    V2Session theirs =
        stranger.v2(CetpV2.CAPABILITY_ASYNC_OPERATIONS, CetpV2.CAPABILITY_CANCELLATION);
    String requestId = Objects.requireNonNull(accepted.requestId());
    String operationId = Objects.requireNonNull(accepted.operationId());
    List<Function<String, V2Reply>> methods =
        List.of(
            id -> theirs.getOperation(requestId, id), id -> theirs.cancelOperation(requestId, id));
    for (int i = 0; i < methods.size(); i++) {
      String method = i == 0 ? CetpV2.METHOD_GET_OPERATION : CetpV2.METHOD_CANCEL_OPERATION;
      V2Reply guessed = methods.get(i).apply(operationId);
      V2Reply unknown = methods.get(i).apply(UNKNOWN_OPERATION);
      if (guessed.errorCode() == null
          || !Objects.equals(guessed.errorCode(), unknown.errorCode())
          || !Objects.equals(guessed.errorMessage(), unknown.errorMessage())
          || !guessed.keys().equals(unknown.keys())) {
        v.add(
            method + " of another app's operation must answer as for an unknown id: got "
                + guessed + ", for an unknown id " + unknown);
      }
    }
  }

  /** Polls until a terminal state, checking each state on the way. */
  private static @Nullable V2Reply pollToTheEnd(
      V2Session session, V2Reply accepted, List<String> v) {
    long giveUp = System.currentTimeMillis() + GIVE_UP_MS;
    while (true) {
      V2Reply reply =
          session.getOperation(
              Objects.requireNonNull(accepted.requestId()),
              Objects.requireNonNull(accepted.operationId()));
      if (!reply.isSuccess()) {
        v.add("get_operation of its own operation: " + reply);
        return null;
      }
      String problem = operationProblem(reply.jsonObject());
      if (problem != null) {
        v.add("get_operation: " + problem + ": " + reply);
        return null;
      }
      if (reply.isTerminal()) {
        return reply;
      }
      if (System.currentTimeMillis() > giveUp) {
        v.add("get_operation: still " + reply.state() + " after a minute of polling");
        return null;
      }
      Thread.yield();
    }
  }
}
