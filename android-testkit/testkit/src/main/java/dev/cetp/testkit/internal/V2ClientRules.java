package dev.cetp.testkit.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * What ClawSeed's newest CETP v2 client accepts from a provider, and what the v2 specification
 * requires beyond it, as checks on the JSON a provider answers: the {@code negotiate} data, each
 * tool of {@code list_tools}, the scope catalogue of {@code get_provider_info}. Each check gives a
 * list of problems, empty when the client keeps everything. The client drops a bad tool silently,
 * drops the provider when no tool is left, and discards the whole provider info when one scope is
 * bad; the problems say which of these would happen.
 */
public final class V2ClientRules {
  private V2ClientRules() {}

  /** A tool name the client keeps. */
  public static final Pattern TOOL_NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");
  /** A scope name the specification allows. */
  public static final Pattern SCOPE_NAME = Pattern.compile("[a-z][a-z0-9_.-]{0,127}");

  /** Known {@code annotations.effect} values. */
  public static final Set<String> EFFECTS =
      set("read", "create", "update", "delete", "transaction");
  /** Known {@code annotations.risk} values. */
  public static final Set<String> RISKS = set("low", "moderate", "high");
  /** Known {@code annotations.confirmation} values. */
  public static final Set<String> CONFIRMATIONS = set("never", "provider_policy", "always");
  /** Known {@code annotations.execution} values. */
  public static final Set<String> EXECUTIONS = set("sync", "sync_or_async");
  /** Known scope {@code access} values. */
  public static final Set<String> ACCESSES = set("read", "write");
  /** Known scope {@code sensitivity} values. */
  public static final Set<String> SENSITIVITIES =
      set("public", "personal", "financial", "health", "device", "other");

  /** The limits' floors the client requires, in the order of {@link #LIMIT_NAMES}. */
  private static final long[] LIMIT_FLOORS = {65_536, 262_144, 1, 86_400};

  /** The limits the client reads. */
  public static final List<String> LIMIT_NAMES =
      List.of(
          "max_request_bytes",
          "max_inline_result_bytes",
          "max_concurrent_requests",
          "idempotency_window_seconds");

  /** The most UTF-8 bytes a session token may have. */
  public static final int MAX_SESSION_TOKEN_BYTES = 256;

  /**
   * The client's checks of a successful {@code negotiate}: {@code selected_version} 2, a {@code
   * provider_id} that is the package or under it, a {@code provider_name}, a {@code
   * session_token} of at most 256 bytes, only capabilities asked for, and every limit at or above
   * its floor.
   *
   * @param data the reply's data
   * @param packageName the provider app's package
   * @param asked the capabilities the agent asked for
   * @return the problems (empty: the client accepts the session)
   */
  public static List<String> negotiateProblems(
      JSONObject data, String packageName, Set<String> asked) {
    List<String> problems = new ArrayList<>();
    Object version = data.opt("selected_version");
    if (!(version instanceof Number) || data.optInt("selected_version", -1) != 2) {
      problems.add("selected_version is not 2: " + data.opt("selected_version"));
    }
    String id = string(data, "provider_id");
    if (id == null || id.trim().isEmpty()) {
      problems.add("provider_id is missing or blank");
    } else if (!id.equals(packageName) && !id.startsWith(packageName + ".")) {
      problems.add("provider_id " + id + " is not " + packageName + " or under it");
    }
    String name = string(data, "provider_name");
    if (name == null || name.trim().isEmpty()) {
      problems.add("provider_name is missing or blank");
    }
    String token = string(data, Wire.EXTRA_SESSION_TOKEN);
    if (token == null || token.trim().isEmpty()) {
      problems.add("session_token is missing or blank");
    } else if (token.getBytes(StandardCharsets.UTF_8).length > MAX_SESSION_TOKEN_BYTES) {
      problems.add(
          "session_token has "
              + token.getBytes(StandardCharsets.UTF_8).length
              + " bytes, more than "
              + MAX_SESSION_TOKEN_BYTES);
    }
    Object capabilities = data.opt("capabilities");
    if (capabilities != null && !(capabilities instanceof JSONArray)) {
      problems.add("capabilities is not an array: " + capabilities);
    } else if (capabilities != null) {
      JSONArray granted = (JSONArray) capabilities;
      for (int i = 0; i < granted.length(); i++) {
        Object capability = granted.opt(i);
        if (!(capability instanceof String) || !asked.contains(capability)) {
          problems.add("capability " + capability + " was not asked for");
        }
      }
    }
    JSONObject limits = data.optJSONObject("limits");
    if (limits == null) {
      problems.add("limits are missing");
    } else {
      for (int i = 0; i < LIMIT_NAMES.size(); i++) {
        String limit = LIMIT_NAMES.get(i);
        Object value = limits.opt(limit);
        if (!(value instanceof Number) || ((Number) value).longValue() < LIMIT_FLOORS[i]) {
          problems.add("limits." + limit + " is not at least " + LIMIT_FLOORS[i] + ": " + value);
        }
      }
    }
    return problems;
  }

  /**
   * Why the client drops {@code tool} (a {@code list_tools} entry), or null when it keeps it: a
   * name matching {@code [a-z][a-z0-9_]{0,63}}, an {@code input_schema} object, all seven
   * annotations with known values, {@code confirmation: always} for a high-risk tool. Rules the
   * specification adds ({@code always} for deletes, transactions and destructive tools; {@code
   * sync_or_async} only with {@code async_operations}) are reported too, marked as the
   * specification's.
   *
   * @param tool the entry
   * @param capabilities the capabilities of the session
   * @return the reason, or null
   */
  public static String toolProblem(Object tool, Set<String> capabilities) {
    if (!(tool instanceof JSONObject)) {
      return "an entry that is not an object: " + tool;
    }
    JSONObject t = (JSONObject) tool;
    String name = string(t, "name");
    if (name == null || !TOOL_NAME.matcher(name).matches()) {
      return "its name " + t.opt("name") + " does not match " + TOOL_NAME.pattern();
    }
    if (!(t.opt("input_schema") instanceof JSONObject)) {
      return "it has no input_schema object";
    }
    JSONObject a = t.optJSONObject("annotations");
    if (a == null) {
      return "it has no annotations object";
    }
    String problem =
        firstNonNull(
            known(a, "effect", EFFECTS),
            known(a, "risk", RISKS),
            bool(a, "destructive"),
            bool(a, "idempotent"),
            bool(a, "open_world"),
            known(a, "confirmation", CONFIRMATIONS),
            known(a, "execution", EXECUTIONS));
    if (problem != null) {
      return problem;
    }
    String confirmation = a.optString("confirmation");
    if ("high".equals(a.optString("risk")) && !"always".equals(confirmation)) {
      return "it is high-risk without confirmation always";
    }
    String effect = a.optString("effect");
    boolean destructive = a.optBoolean("destructive");
    if (!"always".equals(confirmation)
        && ("delete".equals(effect) || "transaction".equals(effect) || destructive)) {
      return "(the specification) effect "
          + effect
          + (destructive ? ", destructive," : "")
          + " needs confirmation always";
    }
    if ("sync_or_async".equals(a.optString("execution"))
        && !capabilities.contains("async_operations")) {
      return "(the specification) execution sync_or_async without async_operations negotiated";
    }
    Object scopes = t.opt("scopes");
    if (scopes != null && !stringArray(scopes)) {
      return "its scopes are not an array of strings: " + scopes;
    }
    return null;
  }

  /**
   * The client's checks of a whole {@code list_tools} data: a {@code tools} array, a {@code
   * revision}, every tool kept ({@link #toolProblem}), names unique, at least one tool.
   *
   * @param data the reply's data
   * @param capabilities the capabilities of the session
   * @return the problems
   */
  public static List<String> listProblems(JSONObject data, Set<String> capabilities) {
    List<String> problems = new ArrayList<>();
    String revision = string(data, "revision");
    if (revision == null || revision.trim().isEmpty()) {
      problems.add("list_tools has no revision");
    }
    JSONArray tools = data.optJSONArray("tools");
    if (tools == null) {
      problems.add("list_tools has no tools array: the client drops the provider");
      return problems;
    }
    Set<String> names = new HashSet<>();
    int kept = 0;
    for (int i = 0; i < tools.length(); i++) {
      Object tool = tools.opt(i);
      String problem = toolProblem(tool, capabilities);
      String name =
          tool instanceof JSONObject ? String.valueOf(((JSONObject) tool).opt("name")) : "#" + i;
      if (problem != null) {
        problems.add("tool " + name + " is dropped: " + problem);
      } else {
        kept++;
        if (!names.add(name)) {
          problems.add("tool " + name + " is listed twice");
        }
      }
    }
    if (kept == 0) {
      problems.add("no tool is left: the client drops the provider");
    }
    return problems;
  }

  /**
   * The client's checks of {@code get_provider_info} data (every scope has a name, a known {@code
   * access} and a known {@code sensitivity}, or the client discards the whole info), with the
   * specification's: the {@code provider_id} of the session, a {@code provider_name}, a {@code
   * schema_dialect} string, scope names matching {@code [a-z][a-z0-9_.-]{0,127}}.
   *
   * @param info the reply's data
   * @param providerId the session's provider id
   * @return the problems
   */
  public static List<String> providerInfoProblems(JSONObject info, String providerId) {
    List<String> problems = new ArrayList<>();
    if (!providerId.equals(string(info, "provider_id"))) {
      problems.add(
          "provider_id " + info.opt("provider_id") + " is not the session's " + providerId);
    }
    String name = string(info, "provider_name");
    if (name == null || name.trim().isEmpty()) {
      problems.add("provider_name is missing or blank");
    }
    if (info.has("schema_dialect") && string(info, "schema_dialect") == null) {
      problems.add("schema_dialect is not a string");
    }
    Object scopes = info.opt("scopes");
    if (scopes == null) {
      return problems;
    }
    if (!(scopes instanceof JSONArray)) {
      problems.add("scopes is not an array: the client discards the provider info");
      return problems;
    }
    JSONArray list = (JSONArray) scopes;
    for (int i = 0; i < list.length(); i++) {
      JSONObject scope = list.optJSONObject(i);
      if (scope == null) {
        problems.add("scope #" + i + " is not an object: the client discards the provider info");
        continue;
      }
      String scopeName = string(scope, "name");
      String problem =
          firstNonNull(
              scopeName == null || !SCOPE_NAME.matcher(scopeName).matches()
                  ? "its name does not match " + SCOPE_NAME.pattern()
                  : null,
              known(scope, "access", ACCESSES),
              known(scope, "sensitivity", SENSITIVITIES));
      if (problem != null) {
        problems.add(
            "scope "
                + scope.opt("name")
                + ": "
                + problem
                + ": the client discards the provider info");
      }
    }
    return problems;
  }

  /** The scope names of {@code get_provider_info} data. */
  public static Set<String> scopeNames(JSONObject info) {
    Set<String> names = new LinkedHashSet<>();
    JSONArray scopes = info.optJSONArray("scopes");
    for (int i = 0; scopes != null && i < scopes.length(); i++) {
      JSONObject scope = scopes.optJSONObject(i);
      if (scope != null && string(scope, "name") != null) {
        names.add(scope.optString("name"));
      }
    }
    return names;
  }

  /** Every scope a tool of {@code listData} names must be in {@code catalogue}. */
  public static List<String> scopeCoverageProblems(JSONObject listData, Set<String> catalogue) {
    List<String> problems = new ArrayList<>();
    JSONArray tools = listData.optJSONArray("tools");
    for (int i = 0; tools != null && i < tools.length(); i++) {
      JSONObject tool = tools.optJSONObject(i);
      JSONArray scopes = tool == null ? null : tool.optJSONArray("scopes");
      for (int j = 0; scopes != null && j < scopes.length(); j++) {
        if (!catalogue.contains(scopes.optString(j))) {
          problems.add(
              "tool " + tool.opt("name") + " needs scope " + scopes.opt(j)
                  + ", which get_provider_info does not describe");
        }
      }
    }
    return problems;
  }

  private static String known(JSONObject o, String key, Set<String> values) {
    Object value = o.opt(key);
    if (!(value instanceof String) || !values.contains(value)) {
      return key + " is " + (value == null ? "missing" : "not one of " + values + ": " + value);
    }
    return null;
  }

  private static String bool(JSONObject o, String key) {
    return o.opt(key) instanceof Boolean ? null : key + " is not a boolean: " + o.opt(key);
  }

  private static boolean stringArray(Object value) {
    if (!(value instanceof JSONArray)) {
      return false;
    }
    JSONArray array = (JSONArray) value;
    for (int i = 0; i < array.length(); i++) {
      if (!(array.opt(i) instanceof String)) {
        return false;
      }
    }
    return true;
  }

  /** {@code o[key]} when it is a String, else null. */
  public static String string(JSONObject o, String key) {
    Object value = o.opt(key);
    return value instanceof String ? (String) value : null;
  }

  private static String firstNonNull(String... values) {
    for (String value : values) {
      if (value != null) {
        return value;
      }
    }
    return null;
  }

  private static Set<String> set(String... values) {
    return Set.copyOf(Arrays.asList(values));
  }
}
