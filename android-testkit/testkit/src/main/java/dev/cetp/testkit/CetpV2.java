package dev.cetp.testkit;

import dev.cetp.testkit.internal.Wire;

/**
 * The words of CETP v2 as an agent spells them: methods, request extras, reply keys, error
 * codes and the manifest's meta-data, from the v2 specification. The SDK spells them once in
 * Rust ({@code cetp_provider::host::cetp_v2::words} and {@code cetp_provider::wire}) and once in
 * Java, the Android template's {@code dev.cetp.Wire}. The words that class has (those v2 shares
 * with v1, and the few the provider routes v2 calls on) are taken from it: the kit compiles a
 * copy of the template's {@code Wire.java} as {@code dev.cetp.testkit.internal.Wire}, and each
 * constant here is that constant. The words the template passes through without reading (the
 * session token, deadlines, resume tokens, {@code retryable}, the error codes only v2 has, the
 * schema dialect) are spelled here alone. The workspace test {@code tests/testkit_words.rs}
 * proves every constant here equal to its Rust counterpart, and no source of the kit spelling a
 * word of {@code Wire.java} itself.
 *
 * <pre>{@code
 * V2Session session = agent.v2();
 * Bundle extras = session.extras();
 * extras.remove(CetpV2.EXTRA_REQUEST_ID);
 * session.send(CetpV2.METHOD_LIST_TOOLS, extras).assertError(CetpV2.INVALID_REQUEST);
 * }</pre>
 */
public final class CetpV2 {
  private CetpV2() {}

  /** The protocol's major version, the value of {@link #EXTRA_PROTOCOL_VERSION}. */
  public static final int PROTOCOL_VERSION = 2;

  /** The discovery Service's meta-data listing the versions served ({@code "1,2"}, a string). */
  public static final String META_VERSIONS = Wire.META_VERSIONS;
  /** The discovery Service's meta-data of CETP v1 (the integer {@code 1}). */
  public static final String META_VERSION = Wire.META_VERSION;
  /** The discovery Service's meta-data naming the provider's authority. */
  public static final String META_AUTHORITY = Wire.META_AUTHORITY;

  /** Method: select version, capabilities and limits; the first v2 call. */
  public static final String METHOD_NEGOTIATE = Wire.METHOD_NEGOTIATE;
  /** Method: the tools visible to the caller. */
  public static final String METHOD_LIST_TOOLS = Wire.METHOD_LIST_TOOLS;
  /** Method: identity, description and scope catalogue. */
  public static final String METHOD_GET_PROVIDER_INFO = Wire.METHOD_GET_PROVIDER_INFO;
  /** Method: start or resume one tool execution. */
  public static final String METHOD_EXECUTE_TOOL = Wire.METHOD_EXECUTE_TOOL;

  /** Extra ({@code int}): {@code 2} on every v2 call but {@code negotiate}. */
  public static final String EXTRA_PROTOCOL_VERSION = Wire.EXTRA_PROTOCOL_VERSION;
  /** Extra ({@code String}): the token {@code negotiate} issued. */
  public static final String EXTRA_SESSION_TOKEN = Wire.EXTRA_SESSION_TOKEN;
  /** Extra ({@code String}): a UUID naming one logical call and its retries. */
  public static final String EXTRA_REQUEST_ID = Wire.EXTRA_REQUEST_ID;
  /** Extra ({@code long}): when the agent stops waiting, Unix epoch milliseconds. */
  public static final String EXTRA_DEADLINE_AT_MS = Wire.EXTRA_DEADLINE_AT_MS;
  /** Extra ({@code String}): the token of a refused call, sent again with the retry. */
  public static final String EXTRA_RESUME_TOKEN = Wire.EXTRA_RESUME_TOKEN;
  /** Extra of {@code negotiate} ({@code int[]}): the agent's versions, highest first. */
  public static final String EXTRA_CONSUMER_VERSIONS = Wire.EXTRA_CONSUMER_VERSIONS;
  /** Extra of {@code negotiate} ({@code String}): the agent's optional capabilities, JSON. */
  public static final String EXTRA_CONSUMER_CAPABILITIES = Wire.EXTRA_CONSUMER_CAPABILITIES;
  /** Extra of {@code execute_tool} ({@code String}): the tool's name. */
  public static final String EXTRA_TOOL_NAME = Wire.EXTRA_TOOL_NAME;
  /** Extra of {@code execute_tool} ({@code String}): the arguments' JSON text. */
  public static final String EXTRA_ARGS = Wire.EXTRA_ARGS;

  /** Reply key ({@code String}): {@code success} or {@code error}. */
  public static final String KEY_STATUS = Wire.KEY_STATUS;
  /** Reply key ({@code String}): the JSON text of a success. */
  public static final String KEY_DATA = Wire.KEY_DATA;
  /** Reply key ({@code String}): the error code. */
  public static final String KEY_ERROR_CODE = Wire.KEY_ERROR_CODE;
  /** Reply key ({@code String}): the error message, safe to display. */
  public static final String KEY_ERROR_MESSAGE = Wire.KEY_ERROR_MESSAGE;
  /** Reply key ({@code String}): what the user should do. */
  public static final String KEY_RESOLUTION_HINT = Wire.KEY_RESOLUTION_HINT;
  /** Reply key ({@code int}): the protocol version, echoed. */
  public static final String KEY_PROTOCOL_VERSION = Wire.EXTRA_PROTOCOL_VERSION;
  /** Reply key ({@code String}): the request id, echoed. */
  public static final String KEY_REQUEST_ID = Wire.EXTRA_REQUEST_ID;
  /** Reply key ({@code boolean}): whether the agent may retry the call unchanged. */
  public static final String KEY_RETRYABLE = "retryable";
  /** Reply key ({@code long}): how long to wait before a retry. */
  public static final String KEY_RETRY_AFTER_MS = "retry_after_ms";
  /** Reply key ({@code PendingIntent}): the provider's screen that resolves a refusal. */
  public static final String KEY_RESOLUTION = "resolution";
  /** Reply key ({@code String}): the token the retry after the resolution sends. */
  public static final String KEY_RESUME_TOKEN = Wire.EXTRA_RESUME_TOKEN;

  /** {@code status} of a success. */
  public static final String STATUS_SUCCESS = Wire.STATUS_SUCCESS;
  /** {@code status} of an error. */
  public static final String STATUS_ERROR = Wire.STATUS_ERROR;
  /** {@code data.kind} of a result carried in the reply. */
  public static final String RESULT_KIND_INLINE = "inline";
  /** {@code data.kind} of a large result, carried by {@link #KEY_RESULT_FD}. */
  public static final String RESULT_KIND_FILE = "file";
  /** Reply key ({@code ParcelFileDescriptor}, read-only): the bytes of a large result. */
  public static final String KEY_RESULT_FD = "result_fd";
  /** {@code data.media_type} of a large result: JSON text. */
  public static final String MEDIA_TYPE_JSON = "application/json";
  /** Optional capability: results over the inline limit come as {@link #KEY_RESULT_FD}. */
  public static final String CAPABILITY_LARGE_RESULTS = "large_results";
  /** The JSON Schema dialect v2 uses by default. */
  public static final String SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

  /** Error: no common protocol version. */
  public static final String UNSUPPORTED_VERSION = "UNSUPPORTED_VERSION";
  /** Error: the session is absent, expired or from before a restart (retryable). */
  public static final String NEGOTIATION_REQUIRED = "NEGOTIATION_REQUIRED";
  /** Error: the user must grant access in the provider app. */
  public static final String AUTH_REQUIRED = Wire.CODE_AUTH_REQUIRED;
  /** Error: the user declined or left the confirmation. */
  public static final String USER_CANCELLED = "USER_CANCELLED";
  /** Error: the caller may not have this. */
  public static final String PERMISSION_DENIED = Wire.CODE_PERMISSION_DENIED;
  /** Error: no such tool (or hidden from this caller). */
  public static final String TOOL_NOT_FOUND = Wire.CODE_TOOL_NOT_FOUND;
  /** Error: no such method. */
  public static final String METHOD_NOT_FOUND = "METHOD_NOT_FOUND";
  /** Error: the arguments do not match the input schema. */
  public static final String INVALID_ARGS = Wire.CODE_INVALID_ARGS;
  /** Error: the envelope, a token or the request id is invalid. */
  public static final String INVALID_REQUEST = "INVALID_REQUEST";
  /** Error: too many calls (retryable). */
  public static final String RATE_LIMITED = Wire.CODE_RATE_LIMITED;
  /** Error: the deadline passed (or none was given). */
  public static final String DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED";
  /** Error: the result does not fit inline and no other transport was negotiated. */
  public static final String RESULT_TOO_LARGE = "RESULT_TOO_LARGE";
  /** Error: the provider cannot answer now (retryable). */
  public static final String UNAVAILABLE = "UNAVAILABLE";
  /** Error: the provider failed. */
  public static final String INTERNAL_ERROR = Wire.CODE_INTERNAL_ERROR;
  /** Error: the call uses an optional capability the session did not negotiate. */
  public static final String UNSUPPORTED_CAPABILITY = "UNSUPPORTED_CAPABILITY";
  /** Error: the current state prevents it (an operation that finished cannot be cancelled). */
  public static final String CONFLICT = "CONFLICT";
  /** Error: the operation was cancelled. */
  public static final String CANCELLED = "CANCELLED";
  /** Error: the operation is unknown to this caller, or no longer kept. */
  public static final String RESULT_EXPIRED = "RESULT_EXPIRED";

  /** Method ({@link #CAPABILITY_ASYNC_OPERATIONS}): the state of an operation. */
  public static final String METHOD_GET_OPERATION = "get_operation";
  /** Method ({@link #CAPABILITY_CANCELLATION}): asks an operation to stop. */
  public static final String METHOD_CANCEL_OPERATION = "cancel_operation";
  /** Extra (String) of the operation methods: the operation. */
  public static final String EXTRA_OPERATION_ID = Wire.EXTRA_OPERATION_ID;
  /** Reply {@code status} of a call that goes on as an operation. */
  public static final String STATUS_ACCEPTED = "accepted";
  /** Optional capability: {@code execute_tool} may answer with an operation. */
  public static final String CAPABILITY_ASYNC_OPERATIONS = "async_operations";
  /** Optional capability: {@code cancel_operation} is available. */
  public static final String CAPABILITY_CANCELLATION = "cancellation";
  /** Tool annotation {@code execution}: answered in the reply. */
  public static final String EXECUTION_SYNC = "sync";
  /** Tool annotation {@code execution}: may be answered with an operation. */
  public static final String EXECUTION_SYNC_OR_ASYNC = "sync_or_async";
  /** Operation state: waiting for a thread. */
  public static final String STATE_QUEUED = "queued";
  /** Operation state: the tool runs. */
  public static final String STATE_RUNNING = "running";
  /** Operation state: finished with a {@code result}. */
  public static final String STATE_SUCCEEDED = "succeeded";
  /** Operation state: finished with an {@code error}. */
  public static final String STATE_FAILED = "failed";
  /** Operation state: stopped at the agent's request. */
  public static final String STATE_CANCELLED = "cancelled";
  /** State of a {@code cancel_operation} reply: noted; poll for the outcome. */
  public static final String STATE_CANCELLATION_REQUESTED = "cancellation_requested";
}
