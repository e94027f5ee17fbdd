//! [`ToolError`]: what a tool returns when it cannot answer, and the six CETP [`ErrorCode`]s.

use std::fmt;

/// The six CETP v1 error codes.
///
/// `#[non_exhaustive]`: CETP may define more codes, and a later version of this crate then
/// adds them, so a `match` on a code needs a `_` arm (or use [`ErrorCode::as_str`]).
///
/// ```
/// use cetp_provider::ErrorCode;
/// assert_eq!(ErrorCode::InvalidArgs.as_str(), "INVALID_ARGS");
/// assert_eq!("RATE_LIMITED".parse::<ErrorCode>(), Ok(ErrorCode::RateLimited));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// The user must first authenticate or authorize the caller in the provider app.
    AuthRequired,
    /// The caller is not allowed to use the provider.
    PermissionDenied,
    /// The requested method or tool does not exist.
    ToolNotFound,
    /// The arguments do not match the tool's schema.
    InvalidArgs,
    /// The caller is calling too often.
    RateLimited,
    /// The provider failed internally.
    InternalError,
}

impl ErrorCode {
    /// Every code, in protocol order.
    pub const ALL: [ErrorCode; 6] = [
        ErrorCode::AuthRequired,
        ErrorCode::PermissionDenied,
        ErrorCode::ToolNotFound,
        ErrorCode::InvalidArgs,
        ErrorCode::RateLimited,
        ErrorCode::InternalError,
    ];

    /// The code as it appears on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::AuthRequired => "AUTH_REQUIRED",
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::ToolNotFound => "TOOL_NOT_FOUND",
            ErrorCode::InvalidArgs => "INVALID_ARGS",
            ErrorCode::RateLimited => "RATE_LIMITED",
            ErrorCode::InternalError => "INTERNAL_ERROR",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The string is not one of the six CETP v1 error codes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a CETP v1 error code")]
pub struct UnknownErrorCode(pub String);

impl std::str::FromStr for ErrorCode {
    type Err = UnknownErrorCode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ErrorCode::ALL
            .into_iter()
            .find(|code| code.as_str() == s)
            .ok_or_else(|| UnknownErrorCode(s.to_owned()))
    }
}

/// A tool failure that becomes a CETP error response.
///
/// Pick the constructor for the code an agent should see. Messages are shown to the model,
/// so say what went wrong and how to call the tool differently.
///
/// ```
/// use cetp_provider::{ErrorCode, ToolError};
///
/// let err = ToolError::invalid_args("`from` must be before `to`");
/// assert_eq!(err.code(), ErrorCode::InvalidArgs);
/// assert_eq!(err.to_string(), "INVALID_ARGS: `from` must be before `to`");
///
/// // I/O and JSON failures convert with `?` and become INTERNAL_ERROR.
/// fn read() -> Result<String, ToolError> {
///     Ok(std::fs::read_to_string("/definitely/not/here")?)
/// }
/// assert_eq!(read().unwrap_err().code(), ErrorCode::InternalError);
/// ```
///
/// # When the thing asked for does not exist
///
/// Two different answers, depending on what the call asked:
///
/// - **A search or a list** ("notes about X", "expenses in March") that finds nothing is a
///   success with an empty result (`[]`, or `{"notes":[]}`): the call was right, there is just
///   nothing to show. An error would tell the model its call was wrong and make it retry.
/// - **One thing by its id** (`get_note` with `id: 42`) that does not exist is
///   [`ToolError::invalid_args`]: the argument is wrong. Name the id and say where valid ids
///   come from (the tool that lists them), so the model can recover in one step. Do not use
///   [`ToolError::tool_not_found`]: that code means the *tool* does not exist, and agents
///   treat it that way.
///
/// ```
/// use cetp_provider::{ErrorCode, ToolError};
///
/// struct Note { id: u32, title: String }
/// let notes = [Note { id: 7, title: "Groceries".into() }];
///
/// fn search_notes(notes: &[Note], words: &str) -> Vec<String> {
///     // Nothing found is not an error.
///     notes.iter().filter(|n| n.title.contains(words)).map(|n| n.title.clone()).collect()
/// }
///
/// fn get_note(notes: &[Note], id: u32) -> Result<String, ToolError> {
///     notes.iter().find(|n| n.id == id).map(|n| n.title.clone()).ok_or_else(|| {
///         ToolError::invalid_args(format!(
///             "no note has the id {id}; `search_notes` returns the ids of existing notes"
///         ))
///     })
/// }
///
/// assert!(search_notes(&notes, "taxes").is_empty());
/// let missing = get_note(&notes, 42).unwrap_err();
/// assert_eq!(missing.code(), ErrorCode::InvalidArgs);
/// assert_eq!(get_note(&notes, 7).unwrap(), "Groceries");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    code: ErrorCode,
    message: String,
    resolution_hint: Option<String>,
    authorize_intent: Option<String>,
    retry_after_ms: Option<u64>,
}

impl ToolError {
    /// An error with any code.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            resolution_hint: None,
            authorize_intent: None,
            retry_after_ms: None,
        }
    }

    /// `INVALID_ARGS`: the arguments are well-formed but make no sense (an unknown id, a reversed
    /// range). Schema violations are caught before the tool runs. For an unknown id, say where
    /// valid ids come from (see [When the thing asked for does not
    /// exist](ToolError#when-the-thing-asked-for-does-not-exist)).
    pub fn invalid_args(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgs, message)
    }

    /// `INTERNAL_ERROR`: the provider failed (storage, a bug). The message reaches the model.
    pub fn internal(message: impl fmt::Display) -> Self {
        Self::new(ErrorCode::InternalError, message.to_string())
    }

    /// The call was cancelled ([`CallContext::check_cancelled`](crate::CallContext::check_cancelled)
    /// returns it): a tool that sees [`CallContext::is_cancelled`](crate::CallContext::is_cancelled)
    /// returns this and stops. Only a cancelled call gets it (CETP v2 reports the operation
    /// `cancelled`, whatever the tool returned once it was asked to stop); its code is
    /// `INTERNAL_ERROR`, the only one v1 and Apex have for a call that did not finish.
    pub fn cancelled() -> Self {
        Self::internal("the agent cancelled the call before it finished")
    }

    /// `PERMISSION_DENIED`: this caller may not have this data.
    pub fn permission_denied(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PermissionDenied, message)
    }

    /// `AUTH_REQUIRED`: the user must act in the provider app first.
    pub fn auth_required(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::AuthRequired, message)
    }

    /// `RATE_LIMITED`: the caller should retry later.
    pub fn rate_limited(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::RateLimited, message)
    }

    /// `TOOL_NOT_FOUND`: the tool does not exist (hosts answer it; a tool whose *data* was not
    /// found answers an empty result or `INVALID_ARGS` instead).
    pub fn tool_not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ToolNotFound, message)
    }

    /// Adds a `resolution_hint` telling the user what to do.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.resolution_hint = Some(hint.into());
        self
    }

    /// Adds an `authorize_intent` action the agent can launch.
    pub fn with_authorize_intent(mut self, action: impl Into<String>) -> Self {
        self.authorize_intent = Some(action.into());
        self
    }

    /// Adds how long the caller should wait before trying again (a rate limit's refill time).
    #[must_use]
    pub(crate) fn with_retry_after(mut self, wait: std::time::Duration) -> Self {
        self.retry_after_ms = Some(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1));
        self
    }

    /// The same error with another message and hint (everything else kept).
    pub(crate) fn with_texts(mut self, message: String, hint: Option<String>) -> Self {
        self.message = message;
        self.resolution_hint = hint;
        self
    }

    /// The CETP error code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The error message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The resolution hint, if any.
    pub fn resolution_hint(&self) -> Option<&str> {
        self.resolution_hint.as_deref()
    }

    /// The authorize intent action, if any.
    pub fn authorize_intent(&self) -> Option<&str> {
        self.authorize_intent.as_deref()
    }

    /// How many milliseconds a rate-limited caller should wait before calling again, when the
    /// provider knows (CETP v2 sends it as `retry_after_ms`; v1's message says it in words).
    pub fn retry_after_ms(&self) -> Option<u64> {
        self.retry_after_ms
    }
}

/// The `INTERNAL_ERROR` for a failure that is the provider app's fault (a panicking tool, a
/// provider that did not start): `what` happened, and the agent is told its call was fine.
/// Every such message in the SDK is made here.
pub(crate) fn provider_bug(what: impl fmt::Display) -> ToolError {
    ToolError::internal(format_args!(
        "{what}; this is a bug in the provider app, not in your call"
    ))
}

/// The message of a caught panic: the reason a provider's build function gave at start-up.
/// Never logged for a call (a tool's panic may quote anything).
#[cfg(feature = "jni")]
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("<non-string panic payload>")
}

impl From<std::io::Error> for ToolError {
    fn from(err: std::io::Error) -> Self {
        ToolError::internal(format_args!("I/O error: {err}"))
    }
}

impl From<serde_json::Error> for ToolError {
    fn from(err: serde_json::Error) -> Self {
        ToolError::internal(format_args!("JSON error: {err}"))
    }
}

impl From<std::fmt::Error> for ToolError {
    fn from(_: std::fmt::Error) -> Self {
        ToolError::internal("formatting failed")
    }
}

impl From<Box<dyn std::error::Error + Send + Sync>> for ToolError {
    fn from(err: Box<dyn std::error::Error + Send + Sync>) -> Self {
        ToolError::internal(err)
    }
}

impl From<std::convert::Infallible> for ToolError {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}
