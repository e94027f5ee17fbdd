package dev.cetp;

/**
 * The CETP v1 strings the Java side needs. They mirror {@code cetp_provider::wire} in Rust; the
 * Rust test {@code cetp-provider/tests/android_template.rs} parses this file and fails if any
 * constant differs from (or is missing in) the Rust crate.
 */
public final class Wire {
  private Wire() {}

  /** Method that lists the provider's tools. */
  public static final String METHOD_LIST_TOOLS = "list_tools";
  /** Method that runs one tool. */
  public static final String METHOD_EXECUTE_TOOL = "execute_tool";
  /** Method that describes the provider. */
  public static final String METHOD_GET_PROVIDER_INFO = "get_provider_info";

  /** Extras key naming the tool to run. */
  public static final String EXTRA_TOOL_NAME = "tool_name";
  /** Extras key holding the JSON text of the arguments. */
  public static final String EXTRA_ARGS = "args";
  /** Extras key holding the consumer's optional request id. */
  public static final String EXTRA_REQUEST_ID = "request_id";

  /** Response key: {@code success} or {@code error}. */
  public static final String KEY_STATUS = "status";
  /** Response key: the JSON text of the result. */
  public static final String KEY_DATA = "data";
  /** Response key: the error code. */
  public static final String KEY_ERROR_CODE = "error_code";
  /** Response key: the error message. */
  public static final String KEY_ERROR_MESSAGE = "error_message";
  /** Response key: what the user should do (optional). */
  public static final String KEY_RESOLUTION_HINT = "resolution_hint";
  /** Response key: the intent action of the authorization screen (optional). */
  public static final String KEY_AUTHORIZE_INTENT = "authorize_intent";

  /** {@link #KEY_STATUS} of a success. */
  public static final String STATUS_SUCCESS = "success";
  /** {@link #KEY_STATUS} of a failure. */
  public static final String STATUS_ERROR = "error";

  /** The error code of a caller the user has not approved yet. */
  public static final String CODE_AUTH_REQUIRED = "AUTH_REQUIRED";
  /** The error code of a caller the provider refuses. */
  public static final String CODE_PERMISSION_DENIED = "PERMISSION_DENIED";
  /** The error code of an unknown method or tool. */
  public static final String CODE_TOOL_NOT_FOUND = "TOOL_NOT_FOUND";
  /** The error code of arguments that do not match the tool's schema. */
  public static final String CODE_INVALID_ARGS = "INVALID_ARGS";
  /** The error code of a caller calling too often. */
  public static final String CODE_RATE_LIMITED = "RATE_LIMITED";
  /** The error code of a provider-side failure. */
  public static final String CODE_INTERNAL_ERROR = "INTERNAL_ERROR";

  /** Intent action the Apex agent scans for to discover plugin Services. */
  public static final String APEX_PLUGIN_ACTION = "com.apex.agent.plugin.PLUGIN";
  /** Start of every failed Apex {@code executeTool} result: {@code Error: <CODE>: <message>}. */
  public static final String APEX_ERROR_PREFIX = "Error: ";
  /** Apex metadata and tools key: the plugin's id (the app's package) or a tool's id. */
  public static final String APEX_KEY_ID = "id";
  /** Apex metadata and tools key: the name for people. */
  public static final String APEX_KEY_NAME = "name";
  /** Apex metadata and tools key: what the plugin or tool does. */
  public static final String APEX_KEY_DESCRIPTION = "description";
  /** Apex metadata key: the app's version code. */
  public static final String APEX_KEY_VERSION = "version";
  /** Apex metadata key: the app's version name. */
  public static final String APEX_KEY_VERSION_NAME = "versionName";
  /** Apex metadata key: the oldest host version the plugin works with. */
  public static final String APEX_KEY_MIN_HOST_VERSION = "minHostVersion";

  /** Appended to the application id: the approval screen's action ({@code authorize_intent}). */
  public static final String AUTHORIZE_ACTION_SUFFIX = ".CETP_AUTHORIZE";
  /** Appended to the application id: the list of apps with access (the app's own entry). */
  public static final String MANAGE_ACTION_SUFFIX = ".CETP_MANAGE_GRANTS";

  /** Intent action consumers scan for. */
  public static final String DISCOVERY_ACTION = "com.clawseed.action.TOOL_PROVIDER";
  /** Service meta-data key carrying the provider authority. */
  public static final String META_AUTHORITY = "com.clawseed.tools.authority";
  /** Service meta-data key carrying the protocol version. */
  public static final String META_VERSION = "com.clawseed.tools.version";
  /** The protocol version this template speaks. */
  public static final int PROTOCOL_VERSION = 1;
  /** The permission the CETP v1 manifest puts on the provider. */
  public static final String ACCESS_PERMISSION = "com.clawseed.permission.ACCESS_TOOLS";
}
