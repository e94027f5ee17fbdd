//! The words of CETP v2 on the wire, beside v1's (which `crate::wire` holds): methods, extras,
//! reply keys, values and error codes, each spelled once.

/// `negotiate`: select the version, capabilities and limits; the first v2 call.
pub const METHOD_NEGOTIATE: &str = "negotiate";
/// The manifest meta-data listing the major versions a provider serves (`"1,2"`, a string).
pub const META_VERSIONS: &str = "com.clawseed.tools.versions";
/// The versions a dual-stack provider advertises in [`META_VERSIONS`].
pub const VERSIONS_DUAL_STACK: &str = "1,2";
/// The major version of this protocol.
pub const PROTOCOL_VERSION: i32 = 2;

/// Extra (`Int`): the protocol of a call; `2` is v2, anything else (or none) v1.
pub const EXTRA_PROTOCOL_VERSION: &str = "protocol_version";
/// Extra (`String`): the token `negotiate` issued.
pub const EXTRA_SESSION_TOKEN: &str = "session_token";
/// Extra (`String`): a UUID naming one logical call and its retries.
pub const EXTRA_REQUEST_ID: &str = "request_id";
/// Extra (`Long`): when the agent stops waiting, in Unix epoch milliseconds.
pub const EXTRA_DEADLINE_AT_MS: &str = "deadline_at_ms";
/// Extra (`String`): the token that resumes a call after the user acted.
pub const EXTRA_RESUME_TOKEN: &str = "resume_token";
/// Extra of `negotiate` (`int[]`): the agent's major versions, highest first.
pub const EXTRA_CONSUMER_VERSIONS: &str = "consumer_versions";
/// Extra of `negotiate` (`String`): the agent's optional capabilities, a JSON array.
pub const EXTRA_CONSUMER_CAPABILITIES: &str = "consumer_capabilities";

/// Reply key (`Int`): always [`PROTOCOL_VERSION`].
pub const KEY_PROTOCOL_VERSION: &str = "protocol_version";
/// Reply key (`String`): the request id, echoed.
pub const KEY_REQUEST_ID: &str = "request_id";
/// Reply key (`Boolean`): whether the agent may retry as is.
pub const KEY_RETRYABLE: &str = "retryable";
/// Reply key (`Long`): how long to wait before retrying a `RATE_LIMITED` call.
pub const KEY_RETRY_AFTER_MS: &str = "retry_after_ms";
/// Reply key (`PendingIntent`) of `AUTH_REQUIRED`: the provider's own screen where the user
/// answers this call's request; the agent launches it and then resumes the call.
pub const KEY_RESOLUTION: &str = "resolution";
/// Reply key (`String`) of `AUTH_REQUIRED`: the single-use token the resumed call sends back as
/// the extra of the same name ([`EXTRA_RESUME_TOKEN`]).
pub const KEY_RESUME_TOKEN: &str = EXTRA_RESUME_TOKEN;

/// Method (`async_operations`): the state of an operation `execute_tool` answered `accepted`.
pub const METHOD_GET_OPERATION: &str = "get_operation";
/// Method (`cancellation`): asks an operation to stop.
pub const METHOD_CANCEL_OPERATION: &str = "cancel_operation";
/// Extra of `get_operation` and `cancel_operation` (`String`): the operation.
pub const EXTRA_OPERATION_ID: &str = "operation_id";
/// Reply `status` of an `execute_tool` that goes on as an operation.
pub const STATUS_ACCEPTED: &str = "accepted";

/// Optional capability: `execute_tool` may answer with an operation to poll.
pub const CAPABILITY_ASYNC_OPERATIONS: &str = "async_operations";
/// Optional capability: `cancel_operation` is available.
pub const CAPABILITY_CANCELLATION: &str = "cancellation";

/// Tool annotation `execution`: the call is always answered in its reply.
pub const EXECUTION_SYNC: &str = "sync";
/// Tool annotation `execution`: the call may be answered `accepted` with an operation.
pub const EXECUTION_SYNC_OR_ASYNC: &str = "sync_or_async";

/// Operation `state`: accepted, waiting for a thread.
pub const STATE_QUEUED: &str = "queued";
/// Operation `state`: the tool is running.
pub const STATE_RUNNING: &str = "running";
/// Operation `state`: finished with a `result`.
pub const STATE_SUCCEEDED: &str = "succeeded";
/// Operation `state`: finished with an `error`.
pub const STATE_FAILED: &str = "failed";
/// Operation `state`: stopped at the agent's request; nothing more happens.
pub const STATE_CANCELLED: &str = "cancelled";
/// `state` of a `cancel_operation` reply: the request is noted; poll for the outcome.
pub const STATE_CANCELLATION_REQUESTED: &str = "cancellation_requested";

/// The JSON Schema dialect of every schema a v2 provider advertises.
pub const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";
/// `data.kind` of a result carried in the reply.
pub const RESULT_KIND_INLINE: &str = "inline";
/// `data.kind` of a result carried by a descriptor ([`KEY_RESULT_FD`]).
pub const RESULT_KIND_FILE: &str = "file";
/// Reply key (`ParcelFileDescriptor`, read-only) of a large result: its bytes are the result's
/// JSON text, described by `data` (`kind` file, `media_type`, `size_bytes`, `sha256`).
pub const KEY_RESULT_FD: &str = "result_fd";
/// `data.media_type` of a large result: the JSON text of the tool's result.
pub const MEDIA_TYPE_JSON: &str = "application/json";

/// Optional capability: results over the inline limit travel as a descriptor ([`KEY_RESULT_FD`]).
pub const CAPABILITY_LARGE_RESULTS: &str = "large_results";

/// The spec's floor for `limits.max_request_bytes` (UTF-8 bytes of `args`).
pub const MIN_REQUEST_BYTES: u64 = 65_536;
/// The spec's floor for `limits.max_inline_result_bytes` (UTF-8 bytes of `data`).
pub const MIN_INLINE_RESULT_BYTES: u64 = 262_144;
/// The spec's floor for `limits.idempotency_window_seconds`.
pub const MIN_IDEMPOTENCY_WINDOW_SECONDS: u64 = 86_400;

/// A v2 error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    /// No common protocol version.
    UnsupportedVersion,
    /// The session is absent, expired, or from before a restart (retryable).
    NegotiationRequired,
    /// The user must grant access in the provider app.
    AuthRequired,
    /// The user declined.
    UserCancelled,
    /// The caller may not have this.
    PermissionDenied,
    /// No such tool (or hidden from this caller).
    ToolNotFound,
    /// No such method.
    MethodNotFound,
    /// The arguments do not match the input schema.
    InvalidArgs,
    /// The envelope, token or request id is invalid.
    InvalidRequest,
    /// Too many calls (retryable).
    RateLimited,
    /// The agent's deadline passed.
    DeadlineExceeded,
    /// The result does not fit inline and no other transport was negotiated.
    ResultTooLarge,
    /// The call uses an optional capability the session did not negotiate.
    UnsupportedCapability,
    /// The current state prevents it (an operation that already finished cannot be cancelled).
    Conflict,
    /// The operation was cancelled.
    Cancelled,
    /// The operation is unknown to this caller, or its result is no longer kept.
    ResultExpired,
    /// The provider cannot answer now (retryable).
    Unavailable,
    /// The provider failed.
    InternalError,
}

impl Code {
    /// Every code, for tests that compare spellings.
    pub const ALL: [Code; 18] = [
        Code::UnsupportedVersion,
        Code::NegotiationRequired,
        Code::AuthRequired,
        Code::UserCancelled,
        Code::PermissionDenied,
        Code::ToolNotFound,
        Code::MethodNotFound,
        Code::InvalidArgs,
        Code::InvalidRequest,
        Code::RateLimited,
        Code::DeadlineExceeded,
        Code::ResultTooLarge,
        Code::Unavailable,
        Code::InternalError,
        Code::UnsupportedCapability,
        Code::Conflict,
        Code::Cancelled,
        Code::ResultExpired,
    ];

    /// The code as the wire spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Code::UnsupportedVersion => "UNSUPPORTED_VERSION",
            Code::NegotiationRequired => "NEGOTIATION_REQUIRED",
            Code::AuthRequired => "AUTH_REQUIRED",
            Code::UserCancelled => "USER_CANCELLED",
            Code::PermissionDenied => "PERMISSION_DENIED",
            Code::ToolNotFound => "TOOL_NOT_FOUND",
            Code::MethodNotFound => "METHOD_NOT_FOUND",
            Code::InvalidArgs => "INVALID_ARGS",
            Code::InvalidRequest => "INVALID_REQUEST",
            Code::RateLimited => "RATE_LIMITED",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
            Code::ResultTooLarge => "RESULT_TOO_LARGE",
            Code::Unavailable => "UNAVAILABLE",
            Code::InternalError => "INTERNAL_ERROR",
            Code::UnsupportedCapability => "UNSUPPORTED_CAPABILITY",
            Code::Conflict => "CONFLICT",
            Code::Cancelled => "CANCELLED",
            Code::ResultExpired => "RESULT_EXPIRED",
        }
    }

    /// The code spelled `text`, if any.
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|code| code.as_str() == text)
    }

    /// Whether the spec lets an agent retry a call that got this code unchanged.
    pub const fn retryable(self) -> bool {
        matches!(
            self,
            Code::NegotiationRequired | Code::RateLimited | Code::Unavailable
        )
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
