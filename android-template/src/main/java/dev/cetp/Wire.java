package dev.cetp;

/**
 * The CETP v1 strings the Java side needs. They mirror {@code cetp_provider::wire} in Rust; the
 * Rust test {@code tests/android_template.rs} parses this file and fails if any
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
  /** Extras key holding the agent's optional request id. */
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

  /** Appended to the application id: the consent dialog's action ({@code authorize_intent}). */
  public static final String AUTHORIZE_ACTION_SUFFIX = ".CETP_AUTHORIZE";
  /** Appended to the application id: the list of apps with access (the app's own entry). */
  public static final String MANAGE_ACTION_SUFFIX = ".CETP_MANAGE_GRANTS";

  /** Intent action agents scan for. */
  public static final String DISCOVERY_ACTION = "com.clawseed.action.TOOL_PROVIDER";
  /** Service meta-data key carrying the provider authority. */
  public static final String META_AUTHORITY = "com.clawseed.tools.authority";
  /** Service meta-data key carrying the protocol version. */
  public static final String META_VERSION = "com.clawseed.tools.version";
  /** The protocol version this template speaks. */
  public static final int PROTOCOL_VERSION = 1;

  // CETP v2 (cetp_provider::host::cetp_v2::words): the provider routes on these alone and
  // passes everything else through without knowing a field.

  /** Meta-data listing the versions the provider serves, a string. */
  public static final String META_VERSIONS = "com.clawseed.tools.versions";
  /** {@link #META_VERSIONS} of a provider serving v1 and v2. */
  public static final String VERSIONS_DUAL_STACK = "1,2";
  /** v2's first call, which carries no protocol version. */
  public static final String METHOD_NEGOTIATE = "negotiate";
  /** Extras key naming a call's protocol; a call that names one goes to Rust typed. */
  public static final String EXTRA_PROTOCOL_VERSION = "protocol_version";
  /** v2 extras a typed call passes on by name, with {@link #EXTRA_PROTOCOL_VERSION} and v1's. */
  public static final String EXTRA_SESSION_TOKEN = "session_token";
  public static final String EXTRA_DEADLINE_AT_MS = "deadline_at_ms";
  public static final String EXTRA_RESUME_TOKEN = "resume_token";
  public static final String EXTRA_CONSUMER_VERSIONS = "consumer_versions";
  public static final String EXTRA_CONSUMER_CAPABILITIES = "consumer_capabilities";
  public static final String EXTRA_OPERATION_ID = "operation_id";

  // Typed extras and reply entries across JNI (cetp_provider::host::cetp_v2::extras): key, tag,
  // value as text.

  public static final String TAG_STRING = "s";
  public static final String TAG_INT = "i";
  public static final String TAG_LONG = "l";
  public static final String TAG_BOOLEAN = "b";
  public static final String TAG_INT_ARRAY = "I";
  /** Reply only: the PendingIntent to the consent dialog for the UID in the value. */
  public static final String TAG_RESOLUTION = "r";
  /**
   * Reply only: the large result's file at the path in the value, opened read-only as a
   * ParcelFileDescriptor and unlinked ({@link CetpResultFiles}).
   */
  public static final String TAG_RESULT_FILE = "f";
  /** The permission the CETP v1 manifest puts on the provider. */
  public static final String ACCESS_PERMISSION = "com.clawseed.permission.ACCESS_TOOLS";

  // The consent screens' admin JSON (CetpAdmin, CetpRuntime.admin): cetp_provider::wire::ADMIN_*.

  /** Admin request key: the operation. */
  public static final String ADMIN_OP = "op";
  /** {@link #ADMIN_OP}: read the state. */
  public static final String ADMIN_OP_STATE = "state";
  /** {@link #ADMIN_OP}: approve a pending request. */
  public static final String ADMIN_OP_APPROVE = "approve";
  /** {@link #ADMIN_OP}: deny a pending request. */
  public static final String ADMIN_OP_DENY = "deny";
  /** {@link #ADMIN_OP}: remove an app's grants. */
  public static final String ADMIN_OP_REVOKE = "revoke";
  /** {@link #ADMIN_OP}: let a declined app ask again. */
  public static final String ADMIN_OP_CLEAR_DENIAL = "clear_denial";

  /** Admin key: a pending request's id. */
  public static final String ADMIN_KEY_ID = "id";
  /** Admin key: scopes (an approval's names; declared or requested scopes; a grant's names). */
  public static final String ADMIN_KEY_SCOPES = "scopes";
  /** Admin key: {@link #ADMIN_ACCESS_FULL} or {@link #ADMIN_ACCESS_LIMITED}. */
  public static final String ADMIN_KEY_ACCESS = "access";
  /** Admin request key: how long an approval lasts, in seconds (absent: no expiry). */
  public static final String ADMIN_KEY_DURATION_SECS = "duration_secs";
  /** Admin request key: the UID of the app that opened the screen. */
  public static final String ADMIN_KEY_CALLER_UID = "caller_uid";
  /** Admin request key (any operation): the screen's language, a BCP 47 tag. */
  public static final String ADMIN_KEY_LOCALE = "locale";
  /** Admin key: a package name. */
  public static final String ADMIN_KEY_PACKAGE = "package";
  /** Admin key: a signing certificate's hex SHA-256 (a list on a pending request's package). */
  public static final String ADMIN_KEY_CERTIFICATE_SHA256 = "certificate_sha256";

  /** Admin reply key: whether the operation worked. */
  public static final String ADMIN_KEY_OK = "ok";
  /** Admin reply key: what went wrong. */
  public static final String ADMIN_KEY_ERROR = "error";
  /** Admin reply key: the error's kind (one of the {@code ADMIN_ERROR_*} values, or another). */
  public static final String ADMIN_KEY_KIND = "kind";
  /** Admin reply key: the stored decisions were lost. */
  public static final String ADMIN_KEY_DECISIONS_LOST = "decisions_lost";
  /** Admin reply key: the state after the operation. */
  public static final String ADMIN_KEY_STATE = "state";

  /** Admin state key: the provider's name. */
  public static final String ADMIN_KEY_PROVIDER_NAME = "provider_name";
  /** Admin state key: the requests waiting for the user. */
  public static final String ADMIN_KEY_PENDING = "pending";
  /** Admin state key: the stored grants. */
  public static final String ADMIN_KEY_GRANTS = "grants";
  /** Admin state key: the stored denials. */
  public static final String ADMIN_KEY_DENIALS = "denials";
  /** Admin state key: whether a grant store is open. */
  public static final String ADMIN_KEY_STORE_OPEN = "store_open";
  /** Admin state key: a change is in force but not saved yet. */
  public static final String ADMIN_KEY_UNSAVED_CHANGES = "unsaved_changes";
  /** Admin state key: the provider's clock, in ms since the Unix epoch. */
  public static final String ADMIN_KEY_NOW_MS = "now_ms";
  /** Admin state key: whether the screen offers limited access. */
  public static final String ADMIN_KEY_OFFERS_LIMITED_ACCESS = "offers_limited_access";
  /** Admin state key: the name of a scope or of a pending request's package. */
  public static final String ADMIN_KEY_NAME = "name";
  /** Admin state key: what a scope gives access to, in the provider's words. */
  public static final String ADMIN_KEY_DESCRIPTION = "description";
  /** Admin state key: a pending request's calling UID. */
  public static final String ADMIN_KEY_UID = "uid";
  /** Admin state key: a pending request's packages. */
  public static final String ADMIN_KEY_PACKAGES = "packages";
  /** Admin state key: when a pending request was first made. */
  public static final String ADMIN_KEY_FIRST_REQUESTED_MS = "first_requested_ms";
  /** Admin state key: when a pending request was last made. */
  public static final String ADMIN_KEY_REQUESTED_AT_MS = "requested_at_ms";
  /** Admin state key: when a pending request, a grant or one of its scopes lapses. */
  public static final String ADMIN_KEY_EXPIRES_AT_MS = "expires_at_ms";
  /** Admin state key: a grant's approved scopes, each with its own access and expiry. */
  public static final String ADMIN_KEY_PER_SCOPE = "per_scope";
  /** Admin state key: the scope of a {@link #ADMIN_KEY_PER_SCOPE} entry. */
  public static final String ADMIN_KEY_SCOPE = "scope";
  /** Admin state key: what a grant gives the tools that need no scope (null: nothing). */
  public static final String ADMIN_KEY_NO_SCOPE = "no_scope";
  /** Admin state key: whether a grant's scope (or its no-scope entry) had lapsed at the read. */
  public static final String ADMIN_KEY_EXPIRED = "expired";
  /** Admin state key: a grant's last call. */
  public static final String ADMIN_KEY_LAST_ACCESS_MS = "last_access_ms";
  /** Admin state key: a grant's calls in the last 24 hours. */
  public static final String ADMIN_KEY_CALLS_DAY = "calls_day";
  /** Admin state key: a grant's calls in the last 7 days. */
  public static final String ADMIN_KEY_CALLS_WEEK = "calls_week";
  /** Admin state key: when the user declined an app. */
  public static final String ADMIN_KEY_DENIED_AT_MS = "denied_at_ms";
  /** Admin state key: what the app of a pending request already holds (scopes in force, no_scope). */
  public static final String ADMIN_KEY_HOLDS = "holds";
  /** Admin state key: whether the app of a pending request already holds something. */
  public static final String ADMIN_KEY_ASKS_FOR_MORE = "asks_for_more";

  /** {@link #ADMIN_KEY_ACCESS}: everything the tools return. */
  public static final String ADMIN_ACCESS_FULL = "full";
  /** {@link #ADMIN_KEY_ACCESS}: the reduced view the tools choose. */
  public static final String ADMIN_ACCESS_LIMITED = "limited";

  /** {@link #ADMIN_KEY_KIND}: the request is no longer pending (answered, replaced, expired). */
  public static final String ADMIN_ERROR_UNKNOWN_REQUEST = "unknown_request";
  /** {@link #ADMIN_KEY_KIND}: the approval named a scope the request does not list. */
  public static final String ADMIN_ERROR_SCOPE_NOT_REQUESTED = "scope_not_requested";
  /** {@link #ADMIN_KEY_KIND}: the revocation or cleared denial matched nothing. */
  public static final String ADMIN_ERROR_NOT_FOUND = "not_found";
}
