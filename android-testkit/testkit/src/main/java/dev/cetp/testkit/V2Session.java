package dev.cetp.testkit;

import android.os.Bundle;
import dev.cetp.testkit.internal.V2ClientRules;
import dev.cetp.testkit.internal.V2OperationCheck;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.json.JSONArray;
import org.json.JSONObject;
import org.jspecify.annotations.Nullable;

/**
 * A CETP v2 session of one agent, as ClawSeed's newest client holds it: {@link Agent#v2()}
 * negotiated it ({@code consumer_versions} {@code {2, 1}}, no optional capability unless {@link
 * Agent#v2(String...)} asked for some) and accepted
 * the answer only as that client does. Every call carries {@code protocol_version} 2, the
 * session token, a fresh UUID {@code request_id} and a {@code deadline_at_ms} of now plus 30
 * seconds, or 5 minutes for a tool whose {@code confirmation} is not {@code never} (the time the
 * client gives the user to approve). A refused call is resumed with the same request and the
 * reply's {@code resume_token} ({@link #resume(V2Reply)}) after the user answered the
 * provider's screen ({@link #openResolution(V2Reply)}).
 *
 * <pre>{@code
 * V2Session session = cetp.agent("com.example.agent").v2();
 * V2Reply refused =
 *     session.call("find_items", "{\"words\":\"soup\"}").assertError(CetpV2.AUTH_REQUIRED);
 * try (ConsentDialog dialog = session.openResolution(refused)) {
 *   dialog.allow();
 * }
 * Object items = session.resume(refused).assertSuccess().value();
 * }</pre>
 *
 * <p>Nothing is retried behind the test's back: a {@code NEGOTIATION_REQUIRED} is the test's to
 * see, and {@link #renegotiate()} is what the client does next.
 */
public final class V2Session {
  /** The deadline the client gives a call of a tool that never asks the user. */
  public static final long SHORT_DEADLINE_MS = 30_000;
  /** The deadline the client gives a call of a tool that may ask the user. */
  public static final long LONG_DEADLINE_MS = 5 * 60_000;

  private final Agent agent;
  private final CetpTestRule rule;
  private JSONObject negotiated;
  private final Map<String, JSONObject> tools = new LinkedHashMap<>();
  /** The {@code request_id} of the {@code execute_tool} that started each operation seen. */
  private final Map<String, String> operations = new HashMap<>();

  private V2Session(Agent agent, CetpTestRule rule, JSONObject negotiated) {
    this.agent = agent;
    this.rule = rule;
    this.negotiated = negotiated;
  }

  static V2Session negotiate(Agent agent, CetpTestRule rule) {
    return new V2Session(agent, rule, accepted(agent, rule));
  }

  private static JSONObject accepted(Agent agent, CetpTestRule rule, String... capabilities) {
    JSONArray asked = new JSONArray();
    for (String capability : capabilities) {
      asked.put(capability);
    }
    V2Reply reply = agent.negotiate(new int[] {2, 1}, asked.toString()).assertSuccess();
    JSONObject data = reply.jsonObject();
    List<String> problems =
        V2ClientRules.negotiateProblems(
            data, rule.packageName(), new java.util.HashSet<>(Arrays.asList(capabilities)));
    if (!problems.isEmpty()) {
      throw new AssertionError(
          "the client refuses the negotiated session:\n  " + String.join("\n  ", problems));
    }
    return data;
  }

  /** @return the agent of this session */
  public Agent agent() {
    return agent;
  }

  /** @return the {@code negotiate} data the session was accepted with */
  public JSONObject negotiated() {
    return negotiated;
  }

  /** @return the session token every call carries */
  public String sessionToken() {
    return negotiated.optString(CetpV2.EXTRA_SESSION_TOKEN);
  }

  /** @return the provider id of the session */
  public String providerId() {
    return negotiated.optString("provider_id");
  }

  /**
   * Negotiates again, as the client does after {@code NEGOTIATION_REQUIRED}; later calls carry
   * the new token.
   *
   * @return this session
   */
  public V2Session renegotiate() {
    negotiated = accepted(agent, rule);
    tools.clear();
    return this;
  }

  /**
   * Negotiates again asking for {@code capabilities}; later calls carry the new token, and a
   * reply using a capability the provider did not grant fails.
   *
   * @param capabilities the optional capabilities to ask for
   * @return this session
   */
  public V2Session renegotiate(String... capabilities) {
    negotiated = accepted(agent, rule, capabilities);
    tools.clear();
    return this;
  }

  /**
   * @param capability an optional capability, e.g. {@link CetpV2#CAPABILITY_LARGE_RESULTS}
   * @return whether this session negotiated it
   */
  public boolean negotiated(String capability) {
    return capabilities().contains(capability);
  }

  /**
   * The common fields of a new call: {@code protocol_version} 2, the session token, a fresh UUID
   * {@code request_id} and {@code deadline_at_ms} 30 seconds from now. Change them and {@link
   * #send} them to see how the provider answers what the client never sends.
   *
   * @return a new Bundle
   */
  public Bundle extras() {
    Bundle extras = new Bundle();
    extras.putInt(CetpV2.EXTRA_PROTOCOL_VERSION, CetpV2.PROTOCOL_VERSION);
    extras.putString(CetpV2.EXTRA_SESSION_TOKEN, sessionToken());
    extras.putString(CetpV2.EXTRA_REQUEST_ID, UUID.randomUUID().toString());
    extras.putLong(CetpV2.EXTRA_DEADLINE_AT_MS, System.currentTimeMillis() + SHORT_DEADLINE_MS);
    return extras;
  }

  /**
   * Calls {@code method} with exactly {@code extras}, from this agent, the reply read after a
   * {@code Parcel} round trip. Nothing is added: without {@code protocol_version} the call is
   * CETP v1's. A large result or an {@code accepted} in a session that did not negotiate its
   * capability fails; the {@code request_id} of an {@code accepted} call is kept for {@link
   * #getOperation(String)} and {@link #cancelOperation(String)}.
   *
   * @param method any method name
   * @param extras what to send (null: no Bundle)
   * @return the reply
   */
  public V2Reply send(String method, @Nullable Bundle extras) {
    V2Reply reply = agent.send(method, extras);
    if (!negotiated(CetpV2.CAPABILITY_LARGE_RESULTS) && reply.usesLargeResult()) {
      throw new AssertionError(
          "a large result in a session that did not negotiate "
              + CetpV2.CAPABILITY_LARGE_RESULTS
              + ": "
              + reply);
    }
    if (reply.isAccepted()) {
      if (!negotiated(CetpV2.CAPABILITY_ASYNC_OPERATIONS)) {
        throw new AssertionError(
            "an accepted reply in a session that did not negotiate "
                + CetpV2.CAPABILITY_ASYNC_OPERATIONS
                + ": "
                + reply);
      }
      String operationId = reply.operationId();
      String requestId = reply.request().getString(CetpV2.EXTRA_REQUEST_ID);
      if (operationId != null && requestId != null) {
        operations.put(operationId, requestId);
      }
    }
    return reply;
  }

  /**
   * {@code get_operation} of an operation this session started: the {@code request_id} of the
   * {@code execute_tool} that was answered {@code accepted} with {@code operationId}, as the
   * specification requires (an id this session never saw is sent with a fresh one).
   *
   * @param operationId the {@code operation_id} of an {@code accepted} reply
   * @return the reply: its {@link V2Reply#state()}, {@link V2Reply#progressCurrent()}, {@link
   *     V2Reply#operationValue()}, {@link V2Reply#operationError()}…
   * @throws IllegalStateException when the session did not negotiate {@code async_operations}
   */
  public V2Reply getOperation(String operationId) {
    return getOperation(requestIdOf(operationId), operationId);
  }

  /**
   * {@code get_operation} with the given {@code request_id}: how an agent started again (a new
   * session under the same UID) reads the outcome of an operation an earlier session started,
   * with the ids it kept, and how a test asks for another app's operation.
   *
   * @param requestId the {@code request_id} of the {@code execute_tool} that started it
   * @param operationId its {@code operation_id}
   * @return the reply
   * @throws IllegalStateException when the session did not negotiate {@code async_operations}
   */
  public V2Reply getOperation(String requestId, String operationId) {
    require(CetpV2.CAPABILITY_ASYNC_OPERATIONS, CetpV2.METHOD_GET_OPERATION);
    return send(CetpV2.METHOD_GET_OPERATION, operationExtras(requestId, operationId));
  }

  /**
   * {@code cancel_operation} of an operation this session started (its {@code request_id} as
   * {@link #getOperation(String)} finds it). The answer only acknowledges: {@code state} {@code
   * cancellation_requested} (or {@code cancelled} when it already was), or {@code CONFLICT}
   * when it had finished; only a {@code get_operation} that reads {@code cancelled} says it
   * stopped.
   *
   * @param operationId the {@code operation_id} of an {@code accepted} reply
   * @return the reply
   * @throws IllegalStateException when the session did not negotiate {@code cancellation}
   */
  public V2Reply cancelOperation(String operationId) {
    return cancelOperation(requestIdOf(operationId), operationId);
  }

  /**
   * {@code cancel_operation} with the given {@code request_id} (see {@link
   * #getOperation(String, String)}).
   *
   * @param requestId the {@code request_id} of the {@code execute_tool} that started it
   * @param operationId its {@code operation_id}
   * @return the reply
   * @throws IllegalStateException when the session did not negotiate {@code cancellation}
   */
  public V2Reply cancelOperation(String requestId, String operationId) {
    require(CetpV2.CAPABILITY_CANCELLATION, CetpV2.METHOD_CANCEL_OPERATION);
    return send(CetpV2.METHOD_CANCEL_OPERATION, operationExtras(requestId, operationId));
  }

  /**
   * Polls {@code get_operation} until the operation reaches a terminal state ({@code
   * succeeded}, {@code failed} or {@code cancelled}), without waiting between polls (a test has
   * no reason to honour {@code poll_after_ms}); every reply on the way must be a success whose
   * {@code state} is known and whose {@code progress} never passes its {@code total}.
   *
   * @param accepted the {@code accepted} reply of this session's {@code execute_tool}
   * @return the {@code get_operation} reply with the terminal state
   * @throws AssertionError when a reply breaks those rules, or the operation is still not done
   *     when the call's {@code deadline_at_ms} (or 30 s from now) has passed
   */
  public V2Reply awaitOperation(V2Reply accepted) {
    String operationId = Objects.requireNonNull(accepted.assertAccepted().operationId());
    String requestId = accepted.request().getString(CetpV2.EXTRA_REQUEST_ID, "");
    long giveUp =
        Math.max(
            accepted.request().getLong(CetpV2.EXTRA_DEADLINE_AT_MS),
            System.currentTimeMillis() + SHORT_DEADLINE_MS);
    while (true) {
      V2Reply reply = getOperation(requestId, operationId);
      String problem = V2OperationCheck.operationProblem(reply.assertSuccess().jsonObject());
      if (problem != null) {
        throw new AssertionError(problem + ": " + reply);
      }
      if (reply.isTerminal()) {
        return reply;
      }
      if (System.currentTimeMillis() > giveUp) {
        throw new AssertionError("the operation is not done by its deadline: " + reply);
      }
      Thread.yield();
    }
  }

  private String requestIdOf(String operationId) {
    String requestId = operations.get(operationId);
    return requestId != null ? requestId : UUID.randomUUID().toString();
  }

  private Bundle operationExtras(String requestId, String operationId) {
    Bundle extras = extras();
    extras.putString(CetpV2.EXTRA_REQUEST_ID, requestId);
    extras.putString(CetpV2.EXTRA_OPERATION_ID, operationId);
    return extras;
  }

  /** The client never calls a method of a capability the session did not negotiate. */
  private void require(String capability, String method) {
    if (!negotiated(capability)) {
      throw new IllegalStateException(
          method
              + " needs the capability "
              + capability
              + ", which this session did not negotiate (granted: "
              + capabilities()
              + "); ask for it with agent.v2(\""
              + capability
              + "\", …) or renegotiate(…), or send() the request to see the provider refuse it");
    }
  }

  /**
   * {@code list_tools}; the tools' annotations set the deadlines of later {@link #call}s.
   *
   * @return the reply
   */
  public V2Reply listTools() {
    V2Reply reply = send(CetpV2.METHOD_LIST_TOOLS, extras());
    if (reply.isSuccess()) {
      tools.clear();
      JSONArray list = reply.jsonObject().optJSONArray("tools");
      for (int i = 0; list != null && i < list.length(); i++) {
        JSONObject tool = list.optJSONObject(i);
        if (tool != null && tool.opt("name") instanceof String) {
          tools.put(tool.optString("name"), tool);
        }
      }
    }
    return reply;
  }

  /** @return {@code get_provider_info} */
  public V2Reply providerInfo() {
    return send(CetpV2.METHOD_GET_PROVIDER_INFO, extras());
  }

  /** @return the names of the tools the client keeps from {@code list_tools} */
  public List<String> toolNames() {
    V2Reply reply = listTools().assertSuccess();
    List<String> names = new ArrayList<>();
    JSONArray list = reply.jsonObject().optJSONArray("tools");
    for (int i = 0; list != null && i < list.length(); i++) {
      if (V2ClientRules.toolProblem(list.opt(i), capabilities()) == null) {
        names.add(list.optJSONObject(i).optString("name"));
      }
    }
    return names;
  }

  /**
   * {@code execute_tool} as the client calls it: a fresh request id, the deadline the tool's
   * {@code confirmation} gives it (the tools are listed first if they were not).
   *
   * @param tool the tool's name
   * @param argsJson the arguments as JSON text (null: no {@code args})
   * @return the reply
   */
  public V2Reply call(String tool, @Nullable String argsJson) {
    return call(tool, argsJson, System.currentTimeMillis() + deadlineFor(tool));
  }

  /**
   * {@code execute_tool} with the given deadline.
   *
   * @param tool the tool's name
   * @param argsJson the arguments as JSON text (null: no {@code args})
   * @param deadlineAtMs {@code deadline_at_ms}, Unix epoch milliseconds
   * @return the reply
   */
  public V2Reply call(String tool, @Nullable String argsJson, long deadlineAtMs) {
    Bundle extras = extras();
    extras.putLong(CetpV2.EXTRA_DEADLINE_AT_MS, deadlineAtMs);
    extras.putString(CetpV2.EXTRA_TOOL_NAME, tool);
    if (argsJson != null) {
      extras.putString(CetpV2.EXTRA_ARGS, argsJson);
    }
    return send(CetpV2.METHOD_EXECUTE_TOOL, extras);
  }

  /**
   * The client's wait for the user: 30 seconds for a tool whose {@code confirmation} is {@code
   * never} (or that is not listed), 5 minutes otherwise.
   *
   * @param tool the tool's name
   * @return milliseconds
   */
  public long deadlineFor(String tool) {
    if (tools.isEmpty()) {
      listTools();
    }
    JSONObject listed = tools.get(tool);
    JSONObject annotations = listed == null ? null : listed.optJSONObject("annotations");
    String confirmation = annotations == null ? "never" : annotations.optString("confirmation");
    return "never".equals(confirmation) ? SHORT_DEADLINE_MS : LONG_DEADLINE_MS;
  }

  /**
   * Retries a refused call after the user acted, as the client does: the same {@code tool_name},
   * {@code args}, {@code request_id} and {@code deadline_at_ms}, the session's token, and the
   * reply's {@code resume_token}.
   *
   * @param refused the {@code AUTH_REQUIRED} or {@code USER_ACTION_REQUIRED} reply
   * @return the reply to the retry
   */
  public V2Reply resume(V2Reply refused) {
    String token = refused.resumeToken();
    if (token == null) {
      throw new AssertionError("the refused call carries no resume_token: " + refused);
    }
    Bundle extras = refused.request();
    extras.putString(CetpV2.EXTRA_SESSION_TOKEN, sessionToken());
    extras.putString(CetpV2.EXTRA_RESUME_TOKEN, token);
    return send(refused.method(), extras);
  }

  /**
   * Opens the {@code resolution} of a refused call as the client does ({@code
   * startIntentSenderForResult}): the PendingIntent must be immutable, created by the provider's
   * app, for an Activity, with an explicit Intent naming a component of that app; its Intent is
   * started as that app (a PendingIntent runs as its creator).
   *
   * @param refused the {@code AUTH_REQUIRED} or {@code USER_ACTION_REQUIRED} reply
   * @return the dialog, closed when the test ends
   */
  public ConsentDialog openResolution(V2Reply refused) {
    if (refused.resumeToken() == null) {
      throw new AssertionError("the client needs a resume_token beside the resolution: " + refused);
    }
    if (refused.resolution() == null) {
      throw new AssertionError("the refused call carries no resolution: " + refused);
    }
    return rule.track(ConsentDialog.openResolution(rule.packageName(), refused.resolution()));
  }

  /**
   * Everything the newest client would drop, discard or refuse in this app's v2 answers, and the
   * specification's rules it does not check itself: the manifest (the {@code versions} string
   * with 2, {@code version} 1 kept for v1 agents), {@code list_tools} (a revision; every tool
   * kept: name, {@code input_schema}, all seven annotations with known values, {@code always}
   * for high risk; at least one tool), {@code get_provider_info} (the session's provider id;
   * every scope with a name, known {@code access} and {@code sensitivity}), every scope a tool
   * names described, and no tool with effects in the CETP v1 list.
   *
   * @return the problems, empty when the app conforms
   */
  public List<String> conformanceProblems() {
    List<String> problems = new ArrayList<>();
    Bundle meta = rule.discoveryMetaData();
    if (!rule.advertisedVersions().contains(CetpV2.PROTOCOL_VERSION)) {
      problems.add("the manifest's " + CetpV2.META_VERSIONS + " string does not list 2");
    }
    if (meta.getInt(CetpV2.META_VERSION, -1) != 1) {
      problems.add("the manifest's " + CetpV2.META_VERSION + " is not the integer 1");
    }
    V2Reply list = listTools();
    V2Reply info = providerInfo();
    if (!list.isSuccess()) {
      problems.add("list_tools failed: " + list + ": the client drops the provider");
      return problems;
    }
    JSONObject listData = list.assertSuccess().jsonObject();
    problems.addAll(V2ClientRules.listProblems(listData, capabilities()));
    if (!info.isSuccess()) {
      problems.add("get_provider_info failed: " + info);
    } else {
      JSONObject infoData = info.assertSuccess().jsonObject();
      problems.addAll(V2ClientRules.providerInfoProblems(infoData, providerId()));
      problems.addAll(
          V2ClientRules.scopeCoverageProblems(listData, V2ClientRules.scopeNames(infoData)));
    }
    for (String name : agent.toolNames()) {
      JSONObject v2 = tools.get(name);
      JSONObject annotations = v2 == null ? null : v2.optJSONObject("annotations");
      if (annotations != null && !"read".equals(annotations.optString("effect"))) {
        problems.add(
            "the CETP v1 list_tools has " + name + ", whose effect is "
                + annotations.optString("effect") + " (v1 lists read-only tools alone)");
      }
    }
    return problems;
  }

  /**
   * Fails with every {@link #conformanceProblems() problem} there is.
   *
   * @return this session
   */
  public V2Session assertConformant() {
    List<String> problems = conformanceProblems();
    if (!problems.isEmpty()) {
      throw new AssertionError(
          rule.packageName() + " does not conform to CETP v2 as the client reads it:\n  "
              + String.join("\n  ", problems));
    }
    return this;
  }

  /**
   * Everything wrong with how this app runs the long-running {@code tool} for this session's
   * agent, as an agent that negotiated {@code async_operations} and {@code cancellation} sees it
   * (the rules of the SDK's Rust check, {@code Agent::check_v2_operations}): the provider grants
   * both capabilities; in a session without them the tool is listed {@code sync}, never answered
   * {@code accepted}, and {@code get_operation} / {@code cancel_operation} are {@code
   * UNSUPPORTED_CAPABILITY}; in a session with them it is listed {@code sync_or_async}, an {@code
   * accepted} names an operation and a {@code poll_after_ms} of 100 ms to 10 s, the operation goes
   * through {@code queued} / {@code running} (progress never past its total) to {@code
   * succeeded} with an inline {@code result} (or {@code failed} with an error), another app
   * asking for it gets exactly the answer for an id never issued, and a cancellation
   * acknowledged ends {@code cancelled}. The tool is called three times (once in a session
   * without the capabilities); an answer within the inline window (the tool finished first) is
   * accepted as it is, and a refusal of the call (the agent not allowed, arguments refused) is a
   * problem of its own. The checks negotiate sessions of
   * their own: this one is left as it was.
   *
   * @param tool a tool declared {@code #[tool(long_running)]}, which this agent may call
   * @param argsJson arguments it answers
   * @return the problems, empty when the app conforms
   */
  public List<String> operationProblems(String tool, @Nullable String argsJson) {
    return V2OperationCheck.problems(
        agent, rule.agent(V2OperationCheck.STRANGER), tool, argsJson);
  }

  /**
   * Fails with every {@link #operationProblems(String, String) problem} there is.
   *
   * @param tool a long-running tool this agent may call
   * @param argsJson arguments it answers
   * @return this session
   */
  public V2Session assertOperationsConformant(String tool, @Nullable String argsJson) {
    List<String> problems = operationProblems(tool, argsJson);
    if (!problems.isEmpty()) {
      throw new AssertionError(
          rule.packageName() + " does not run " + tool + " as CETP v2 operations require:\n  "
              + String.join("\n  ", problems));
    }
    return this;
  }

  private Set<String> capabilities() {
    Set<String> out = new java.util.HashSet<>();
    JSONArray granted = negotiated.optJSONArray("capabilities");
    for (int i = 0; granted != null && i < granted.length(); i++) {
      out.add(granted.optString(i));
    }
    return out;
  }

  @Override
  public String toString() {
    return "CETP v2 session of " + agent + " with " + providerId();
  }
}
