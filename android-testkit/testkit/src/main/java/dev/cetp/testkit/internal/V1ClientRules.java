package dev.cetp.testkit.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * {@code list_tools} read the way a CETP v1 agent written before any additive field reads it
 * (the ClawSeed Kotlin client's shape): {@code data} parsed as an object, {@code tools} as an
 * array, and of each entry only {@code name}, {@code description} and {@code parameters}, with
 * {@code parameters} taken as an object (missing: {@code {}}), every other field ignored. An
 * entry without a usable name is dropped; the model sees {@code {label}__{name}}, which LLM APIs
 * accept only as {@code ^[a-zA-Z0-9_-]{1,64}$}.
 */
public final class V1ClientRules {
  /** The three fields CETP v1 defines for a tool. */
  public static final Set<String> V1_FIELDS = Set.of("name", "description", "parameters");
  /** The fields the SDK adds, which a v1 agent must be able to ignore. */
  public static final Set<String> ADDITIVE_FIELDS = Set.of("title", "annotations", "output_schema");

  private static final Pattern LLM_FUNCTION_NAME = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");

  private V1ClientRules() {}

  /** One tool as the agent keeps it. */
  public static final class Tool {
    /** The tool's name. */
    public final String name;
    /** Its description. */
    public final String description;
    /** Its parameters' schema. */
    public final JSONObject parameters;

    Tool(String name, String description, JSONObject parameters) {
      this.name = name;
      this.description = description;
      this.parameters = parameters;
    }
  }

  /** The tools a lenient v1 agent keeps from a {@code list_tools} {@code data} text. */
  public static List<Tool> parse(String data) throws JSONException {
    List<Tool> tools = new ArrayList<>();
    JSONArray array = new JSONObject(data).optJSONArray("tools");
    if (array == null) {
      return tools;
    }
    for (int i = 0; i < array.length(); i++) {
      JSONObject entry = array.optJSONObject(i);
      if (entry == null) {
        continue;
      }
      String name = entry.optString("name", "");
      if (name.trim().isEmpty()) {
        continue;
      }
      JSONObject parameters = entry.optJSONObject("parameters");
      tools.add(
          new Tool(
              name,
              entry.optString("description", ""),
              parameters == null ? new JSONObject() : parameters));
    }
    return tools;
  }

  /** The function name the model sees for {@code tool} of the app {@code packageName}. */
  public static String namespaced(String packageName, String tool) {
    String last = packageName.substring(packageName.lastIndexOf('.') + 1);
    return last.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_") + "__" + tool;
  }

  /** Whether an LLM API accepts {@code name} as a function name. */
  public static boolean isLlmFunctionName(String name) {
    return LLM_FUNCTION_NAME.matcher(name).matches();
  }

  /**
   * Asserts that a {@code list_tools} entry has the three v1 fields and otherwise only the
   * additive ones (always {@code title} and {@code annotations}; {@code output_schema} when the
   * result type has a schema).
   */
  public static void assertToolFields(JSONObject tool) throws JSONException {
    List<String> extra = new ArrayList<>();
    for (Iterator<String> keys = tool.keys(); keys.hasNext(); ) {
      String key = keys.next();
      if (!V1_FIELDS.contains(key)) {
        extra.add(key);
      }
    }
    for (String field : V1_FIELDS) {
      assertTrue(field + " missing in " + tool, tool.has(field));
    }
    assertTrue("unexpected fields " + extra + " in " + tool, ADDITIVE_FIELDS.containsAll(extra));
    assertTrue("title missing in " + tool, tool.has("title"));
    JSONObject annotations = tool.getJSONObject("annotations");
    assertEquals(tool.toString(), true, annotations.getBoolean("readOnlyHint"));
    assertEquals(tool.toString(), false, annotations.getBoolean("destructiveHint"));
  }
}
