package dev.cetp.testkit;

import org.json.JSONObject;

/** One tool as the Apex agent registers it from the plugin's {@code getToolsJson()}. */
public final class ApexTool {
  /** The id the agent hands its model as the function name ({@code <label>__<tool>}). */
  public final String id;
  /** The name shown to people (the id when the plugin gives none). */
  public final String name;
  /** The description (the id when the plugin gives none). */
  public final String description;
  /** The parameters' schema, parsed from {@code parametersSchema}. */
  public final JSONObject schema;

  /**
   * @param id the function name
   * @param name the name shown to people
   * @param description the description
   * @param schema the parameters' schema
   */
  public ApexTool(String id, String name, String description, JSONObject schema) {
    this.id = id;
    this.name = name;
    this.description = description;
    this.schema = schema;
  }

  @Override
  public String toString() {
    return id;
  }
}
