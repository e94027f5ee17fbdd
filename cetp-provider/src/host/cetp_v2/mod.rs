//! The CETP v2 host (read-only): the same `ContentProvider.call`, told apart from v1 by
//! `protocol_version` = 2 (or the method `negotiate`), answered by a [`CetpV2Host`] through
//! the same core as v1 (authorization, validation, limits and the access log live there once).
//!
//! | method | answered with |
//! |---|---|
//! | `negotiate` | version 2, the app's package as `provider_id`, a session token bound to the caller's UID, the version and the capabilities both sides have, with an expiry; limits at the spec's floors |
//! | `get_provider_info` | `schema_dialect` and every scope with `title`, `access`, `sensitivity` ([`CetpV2`]) |
//! | `list_tools` | a `revision` and every tool with `title`, both schemas, its complete `scopes` and seven annotations |
//! | `execute_tool` | `{"kind":"inline","value":…}`, the value checked against the output schema by the core; over the inline limit, with `large_results` negotiated, `{"kind":"file",…}` and the `result_fd` ([`ResultFile`]) |
//! | anything else | `METHOD_NOT_FOUND` |
//!
//! Every call but `negotiate` carries `request_id` (a UUID), `deadline_at_ms` and
//! `session_token`, checked in that order (`INVALID_REQUEST`, `DEADLINE_EXCEEDED`,
//! `NEGOTIATION_REQUIRED`) before the method is looked at. Every reply carries
//! `protocol_version` and the echoed `request_id`; every error `retryable`. The agent's
//! deadline becomes the call's when it comes first.
//!
//! ```
//! use cetp_provider::host::cetp_v2::{CetpV2Host, Code, V2Request};
//! use cetp_provider::{Caller, Provider, auth::Auth, tool, tools};
//!
//! /// Adds two integers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 { a + b }
//!
//! let provider = Provider::builder("Calc").tools(tools![add]).auth(Auth::open()).build().unwrap();
//! let host = CetpV2Host::new(&provider);
//! let agent = Caller::app(10_200, "com.example.agent");
//! let session = host.call(&V2Request::negotiate(&[2, 1], "[]"), &agent);
//! let token = session.data_json().unwrap()["session_token"].as_str().unwrap().to_owned();
//!
//! let id = "3f2b9c1e-0000-4000-8000-000000000001";
//! let far = u64::MAX / 2;
//! let sum = host.call(&V2Request::execute("add", r#"{"a":2,"b":40}"#, &token, id, far), &agent);
//! assert_eq!(sum.data_json().unwrap(), serde_json::json!({"kind": "inline", "value": 42}));
//! assert_eq!(sum.request_id(), Some(id));
//!
//! let stale = host.call(&V2Request::execute("add", "{}", "forged", id, far), &agent);
//! assert_eq!(stale.error_code(), Some(Code::NegotiationRequired));
//! ```

mod describe;
pub mod extras;
mod large_result;
mod operations;
mod resume;
mod session;
pub mod words;

use std::path::PathBuf;
use std::sync::Arc;

pub use describe::{
    CetpV2, Confirmation, DEFAULT_MAX_LARGE_RESULT_BYTES, Risk, ScopeAccess, Sensitivity,
};
pub use large_result::ResultFile;
pub use words::Code;

use crate::caller::Caller;
use crate::error::ToolError;
use crate::host::HeldProvider;
use crate::log_text::{Escaped, printable};
use crate::provider::{Need, Provider, ToolCall};
use crate::tool::MAX_TOOL_NAME_BYTES;
use crate::wire::{self, ErrorCode, Response};
use operations::State;
use operations::{Operations, Refusal, Started};
use resume::{NoToken, Resume, Resumes};
use session::{Session, Sessions};
use words::{
    CAPABILITY_ASYNC_OPERATIONS, CAPABILITY_CANCELLATION, CAPABILITY_LARGE_RESULTS,
    EXTRA_CONSUMER_CAPABILITIES, EXTRA_DEADLINE_AT_MS, EXTRA_OPERATION_ID, EXTRA_REQUEST_ID,
    EXTRA_RESUME_TOKEN, EXTRA_SESSION_TOKEN, MEDIA_TYPE_JSON, METHOD_CANCEL_OPERATION,
    METHOD_GET_OPERATION, METHOD_NEGOTIATE, MIN_IDEMPOTENCY_WINDOW_SECONDS,
    MIN_INLINE_RESULT_BYTES, MIN_REQUEST_BYTES, PROTOCOL_VERSION, RESULT_KIND_FILE,
    RESULT_KIND_INLINE, STATE_CANCELLATION_REQUESTED, STATE_CANCELLED, STATE_FAILED, STATE_QUEUED,
    STATE_RUNNING, STATE_SUCCEEDED,
};

/// How long a session lasts before the agent negotiates again.
pub const SESSION_LIFETIME_MS: u64 = 60 * 60 * 1000;

/// The longest a refused call stays resumable, whatever its deadline: the user answers the
/// consent dialog within it or the agent calls afresh.
pub const RESUME_LIFETIME_MS: u64 = 15 * 60 * 1000;

/// One v2 `ContentResolver.call`: the method and the extras v2 defines (each `None` when
/// absent). Hosts read only these keys, so unknown extras are ignored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct V2Request<'a> {
    /// The method.
    pub method: &'a str,
    /// `session_token`.
    pub session_token: Option<&'a str>,
    /// `request_id`.
    pub request_id: Option<&'a str>,
    /// `deadline_at_ms`.
    pub deadline_at_ms: Option<i64>,
    /// `tool_name`.
    pub tool_name: Option<&'a str>,
    /// `args`.
    pub args: Option<&'a str>,
    /// `resume_token`.
    pub resume_token: Option<&'a str>,
    /// `consumer_versions` (`negotiate`).
    pub consumer_versions: Option<&'a [i32]>,
    /// `consumer_capabilities` (`negotiate`), a JSON array of strings.
    pub consumer_capabilities: Option<&'a str>,
    /// `operation_id` (`get_operation`, `cancel_operation`).
    pub operation_id: Option<&'a str>,
}

impl<'a> V2Request<'a> {
    /// Whether a call is v2's: `protocol_version` is 2, or the method is `negotiate` (which v1
    /// does not have). Everything else is v1's.
    pub fn is_v2(method: &str, protocol_version: Option<i32>) -> bool {
        protocol_version == Some(PROTOCOL_VERSION) || method == METHOD_NEGOTIATE
    }

    /// `negotiate` with the agent's versions and capabilities.
    pub fn negotiate(versions: &'a [i32], capabilities: &'a str) -> Self {
        V2Request {
            method: METHOD_NEGOTIATE,
            consumer_versions: Some(versions),
            consumer_capabilities: Some(capabilities),
            ..V2Request::default()
        }
    }

    /// `method` with the common fields.
    pub fn common(
        method: &'a str,
        token: &'a str,
        request_id: &'a str,
        deadline_at_ms: u64,
    ) -> Self {
        V2Request {
            method,
            session_token: Some(token),
            request_id: Some(request_id),
            deadline_at_ms: Some(i64::try_from(deadline_at_ms).unwrap_or(i64::MAX)),
            ..V2Request::default()
        }
    }

    /// `get_operation` or `cancel_operation` (`method`) of `operation_id`, with the common
    /// fields (`request_id` the one of the `execute_tool` that started it).
    pub fn operation(
        method: &'a str,
        operation_id: &'a str,
        token: &'a str,
        request_id: &'a str,
        deadline_at_ms: u64,
    ) -> Self {
        V2Request {
            operation_id: Some(operation_id),
            ..V2Request::common(method, token, request_id, deadline_at_ms)
        }
    }

    /// `execute_tool` of `tool` with `args` and the common fields.
    pub fn execute(
        tool: &'a str,
        args: &'a str,
        token: &'a str,
        request_id: &'a str,
        deadline_at_ms: u64,
    ) -> Self {
        V2Request {
            tool_name: Some(tool),
            args: Some(args),
            ..V2Request::common(wire::METHOD_EXECUTE_TOOL, token, request_id, deadline_at_ms)
        }
    }
}

/// A v2 error: its code, a message safe to show, and whether the agent may retry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V2Error {
    code: Code,
    message: String,
    resolution_hint: Option<String>,
    retry_after_ms: Option<u64>,
    resume: Option<(u32, String)>,
}

impl V2Error {
    fn new(code: Code, message: impl Into<String>) -> Self {
        V2Error {
            code,
            message: message.into(),
            resolution_hint: None,
            retry_after_ms: None,
            resume: None,
        }
    }

    /// How long to wait before retrying (`retry_after_ms`), when the provider knows.
    pub fn retry_after_ms(&self) -> Option<u64> {
        self.retry_after_ms
    }

    /// The `resume_token` of an `AUTH_REQUIRED` that carries a `resolution`.
    pub fn resume_token(&self) -> Option<&str> {
        self.resume.as_ref().map(|(_, token)| token.as_str())
    }

    /// The UID whose pending request the `resolution` opens, when the reply carries one.
    pub fn resolution_uid(&self) -> Option<u32> {
        self.resume.as_ref().map(|(uid, _)| *uid)
    }

    /// The code.
    pub fn code(&self) -> Code {
        self.code
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the agent may retry the same call.
    pub fn retryable(&self) -> bool {
        self.code.retryable()
    }

    /// What the user should do, if anything.
    pub fn resolution_hint(&self) -> Option<&str> {
        self.resolution_hint.as_deref()
    }
}

/// A value of the reply Bundle, typed as v2 reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundleValue<'a> {
    /// `putString`.
    Text(&'a str),
    /// `putInt`.
    Int(i32),
    /// `putBoolean`.
    Bool(bool),
    /// `putLong`.
    Long(i64),
    /// `putParcelable` of the `resolution` PendingIntent, which only the app can make: explicit
    /// and immutable, opening the consent dialog for the pending request of this UID.
    Resolution(u32),
    /// `putParcelable` of the `result_fd`: the file at this path opened read-only as a
    /// `ParcelFileDescriptor`, then unlinked ([`ResultFile`]).
    ResultFile(&'a str),
}

/// The answer to one v2 call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V2Reply {
    request_id: Option<String>,
    outcome: Result<String, V2Error>,
    /// `status` is `accepted`: `data` names an operation.
    accepted: bool,
    file: Option<Arc<ResultFile>>,
}

/// What a method answers on success: `data`, and the file of a large result.
struct Payload {
    data: String,
    file: Option<ResultFile>,
}

impl From<String> for Payload {
    fn from(data: String) -> Self {
        Payload { data, file: None }
    }
}

impl V2Reply {
    /// Whether this is a success.
    pub fn is_success(&self) -> bool {
        self.outcome.is_ok() && !self.accepted
    }

    /// Whether the call goes on as an operation (`status` `accepted`; `data` holds its
    /// `operation_id` and `poll_after_ms`).
    pub fn is_accepted(&self) -> bool {
        self.accepted
    }

    /// The file of a large result (`data.kind` is `file`): its size and digest, and
    /// [`ResultFile::open_once`] to read it as an agent does.
    pub fn result_file(&self) -> Option<&ResultFile> {
        self.file.as_deref()
    }

    /// The template took over the reply's file, if it has one (it opens and unlinks it):
    /// dropping the reply leaves the file alone. Until then, a reply that is dropped removes
    /// it.
    pub fn hand_over_file(&self) {
        if let Some(file) = &self.file {
            file.hand_over();
        }
    }

    /// The `data` JSON text of a success (or of an `accepted`).
    pub fn data(&self) -> Option<&str> {
        self.outcome.as_ref().ok().map(String::as_str)
    }

    /// `data` parsed, or the error.
    ///
    /// # Errors
    /// The reply's error, as it is.
    pub fn data_json(&self) -> Result<serde_json::Value, V2Error> {
        match &self.outcome {
            Ok(data) => serde_json::from_str(data)
                .map_err(|e| V2Error::new(Code::InternalError, format!("`data` is not JSON: {e}"))),
            Err(err) => Err(err.clone()),
        }
    }

    /// The error, if this is one.
    pub fn error(&self) -> Option<&V2Error> {
        self.outcome.as_ref().err()
    }

    /// The error code, if this is an error.
    pub fn error_code(&self) -> Option<Code> {
        self.error().map(V2Error::code)
    }

    /// The echoed request id.
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// The entries of the reply Bundle.
    pub fn to_entries(&self) -> Vec<(&'static str, BundleValue<'_>)> {
        let mut entries = vec![(
            words::KEY_PROTOCOL_VERSION,
            BundleValue::Int(PROTOCOL_VERSION),
        )];
        if let Some(id) = &self.request_id {
            entries.push((words::KEY_REQUEST_ID, BundleValue::Text(id)));
        }
        match &self.outcome {
            Ok(data) => {
                let status = if self.accepted {
                    words::STATUS_ACCEPTED
                } else {
                    wire::STATUS_SUCCESS
                };
                entries.push((wire::KEY_STATUS, BundleValue::Text(status)));
                entries.push((wire::KEY_DATA, BundleValue::Text(data)));
                if let Some(file) = &self.file {
                    entries.push((words::KEY_RESULT_FD, BundleValue::ResultFile(file.path())));
                }
            }
            Err(err) => {
                entries.push((wire::KEY_STATUS, BundleValue::Text(wire::STATUS_ERROR)));
                entries.push((wire::KEY_ERROR_CODE, BundleValue::Text(err.code.as_str())));
                entries.push((wire::KEY_ERROR_MESSAGE, BundleValue::Text(&err.message)));
                entries.push((words::KEY_RETRYABLE, BundleValue::Bool(err.retryable())));
                if let Some(hint) = &err.resolution_hint {
                    entries.push((wire::KEY_RESOLUTION_HINT, BundleValue::Text(hint)));
                }
                if let Some(wait) = err.retry_after_ms {
                    let wait = i64::try_from(wait).unwrap_or(i64::MAX);
                    entries.push((words::KEY_RETRY_AFTER_MS, BundleValue::Long(wait)));
                }
                if let Some((uid, token)) = &err.resume {
                    entries.push((words::KEY_RESOLUTION, BundleValue::Resolution(*uid)));
                    entries.push((words::KEY_RESUME_TOKEN, BundleValue::Text(token)));
                }
            }
        }
        entries
    }
}

/// The CETP v2 view of a [`Provider`]: the descriptions v2 gives (built once), and the key of
/// its sessions. Like every host, it is built from the provider it answers from (`&Provider`,
/// or an `Arc<Provider>` to keep it).
pub struct CetpV2Host<P = Arc<Provider>> {
    provider: P,
    settings: CetpV2,
    provider_id: String,
    info_json: String,
    tools_json: String,
    /// `list_tools` for a session with `async_operations`, when this host runs operations.
    tools_json_async: Option<String>,
    sessions: Option<Sessions>,
    resumes: Resumes,
    operations: Option<Operations>,
    results_dir: PathBuf,
}

impl<P: HeldProvider> std::fmt::Debug for CetpV2Host<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CetpV2Host")
            .field("provider", &self.provider.name())
            .field("provider_id", &self.provider_id)
            .finish_non_exhaustive()
    }
}

impl<P: HeldProvider> CetpV2Host<P> {
    /// The v2 view of `provider`, with the settings given to
    /// [`ProviderBuilder::host`](crate::ProviderBuilder::host) (or the defaults), and a fresh
    /// session key: tokens of an earlier host are refused.
    ///
    /// A host holding an `Arc<Provider>` (as the Android runtime does) whose provider has a
    /// `#[tool(long_running)]` offers `async_operations` and `cancellation` (its operations
    /// run on threads of their own, which need the provider shared); one borrowing it offers
    /// none.
    pub fn new(provider: P) -> Self {
        let settings = provider
            .host_settings::<CetpV2>()
            .cloned()
            .unwrap_or_default();
        let provider_id = provider.app().map_or_else(
            || provider.name().to_owned(),
            |app| app.package_name().to_owned(),
        );
        let sessions = Sessions::new()
            .inspect_err(|e| log::error!("CETP v2: no random bytes for session keys: {e}"))
            .ok();
        // An app's own cache directory is swept of files a killed process left; a shared
        // temporary directory (a provider without an app) is not.
        let results_dir = match provider.app() {
            Some(app) => {
                let dir = app.cache_dir().join(large_result::RESULTS_DIR);
                large_result::sweep(&dir);
                dir
            }
            None => large_result::default_dir(),
        };
        let operations = provider
            .shared()
            .filter(|shared| shared.tools().iter().any(|t| t.long_running()))
            .map(|shared| Operations::new(shared, settings.operations));
        CetpV2Host {
            info_json: describe::provider_info(&provider, &provider_id, &settings),
            tools_json: describe::list_tools(&provider, &settings, false),
            tools_json_async: operations
                .as_ref()
                .map(|_| describe::list_tools(&provider, &settings, true)),
            operations,
            results_dir,
            provider,
            settings,
            provider_id,
            sessions,
            resumes: Resumes::default(),
        }
    }

    /// The provider this host answers from.
    pub fn provider(&self) -> &Provider {
        &self.provider
    }

    /// The `provider_id` `negotiate` and `get_provider_info` give: the app's package (the
    /// provider name without an app).
    pub fn provider_id(&self) -> &str {
        &self.provider_id
    }

    /// The settings in force.
    pub fn settings(&self) -> &CetpV2 {
        &self.settings
    }

    /// Answers one v2 call from `caller`. An error is logged by its code, with the method only
    /// when it is one of v2's.
    pub fn call(&self, request: &V2Request<'_>, caller: &Caller) -> V2Reply {
        let reply = self.answer(request, caller);
        if let Err(err) = &reply.outcome {
            // A method is named only when it is one of v2's: anything else is the caller's text.
            let method = [
                METHOD_NEGOTIATE,
                wire::METHOD_GET_PROVIDER_INFO,
                wire::METHOD_LIST_TOOLS,
                wire::METHOD_EXECUTE_TOOL,
                METHOD_GET_OPERATION,
                METHOD_CANCEL_OPERATION,
            ]
            .into_iter()
            .find(|known| *known == request.method)
            .unwrap_or("an unknown method");
            log::info!(
                "CETP v2 `{method}` from {} -> {}",
                Escaped(caller),
                err.code
            );
        }
        reply
    }

    /// The answer to a call whose `protocol_version` is 2 but not an `Int`
    /// ([`Protocol::MistypedV2`](extras::Protocol::MistypedV2)): `INVALID_REQUEST` saying so,
    /// echoing `request_id`, rather than a v1 reply the agent cannot read.
    pub fn mistyped_protocol_version(&self, request_id: Option<&str>, caller: &Caller) -> V2Reply {
        log::info!(
            "CETP v2 call with a mistyped `{}` from {} -> {}",
            words::EXTRA_PROTOCOL_VERSION,
            Escaped(caller),
            Code::InvalidRequest
        );
        V2Reply {
            accepted: false,
            file: None,
            request_id: request_id.map(|id| id.chars().take(128).collect()),
            outcome: Err(V2Error::new(
                Code::InvalidRequest,
                format!(
                    "`{}` must be the Int {PROTOCOL_VERSION} (Bundle.putInt); it came as another type",
                    words::EXTRA_PROTOCOL_VERSION
                ),
            )),
        }
    }

    fn now_ms(&self) -> u64 {
        self.provider.authorizer().clock().now_ms()
    }

    fn answer(&self, request: &V2Request<'_>, caller: &Caller) -> V2Reply {
        if request.method == METHOD_NEGOTIATE {
            return V2Reply {
                request_id: None,
                outcome: self.negotiate(request, caller),
                accepted: false,
                file: None,
            };
        }
        let request_id = request
            .request_id
            .map(|id| id.chars().take(128).collect::<String>());
        let reply = |outcome: Result<Payload, V2Error>| match outcome {
            Ok(Payload { data, file }) => V2Reply {
                request_id: request_id.clone(),
                outcome: Ok(data),
                accepted: false,
                file: file.map(Arc::new),
            },
            Err(err) => V2Reply {
                request_id: request_id.clone(),
                outcome: Err(err),
                accepted: false,
                file: None,
            },
        };
        // The common fields, in this order, before the method is looked at.
        let Some(id) = request.request_id.filter(|id| is_uuid(id)) else {
            return reply(Err(V2Error::new(
                Code::InvalidRequest,
                format!("`{EXTRA_REQUEST_ID}` must be a UUID naming this call"),
            )));
        };
        let now = self.now_ms();
        let deadline = match request.deadline_at_ms.map(u64::try_from) {
            Some(Ok(at)) if at > now => at,
            Some(_) => {
                return reply(Err(V2Error::new(
                    Code::DeadlineExceeded,
                    format!("`{EXTRA_DEADLINE_AT_MS}` has passed; nothing was started"),
                )));
            }
            None => {
                return reply(Err(V2Error::new(
                    Code::DeadlineExceeded,
                    format!(
                        "`{EXTRA_DEADLINE_AT_MS}` is missing or not a Long (epoch milliseconds), so the call has no deadline left"
                    ),
                )));
            }
        };
        let Some(session) = self.session(request.session_token, caller, now) else {
            return reply(Err(V2Error::new(
                Code::NegotiationRequired,
                format!(
                    "`{EXTRA_SESSION_TOKEN}` is missing, expired or from before a restart; call `{METHOD_NEGOTIATE}`"
                ),
            )));
        };
        let outcome = match request.method {
            wire::METHOD_GET_PROVIDER_INFO => {
                self.discovery(caller, &self.info_json).map(Into::into)
            }
            wire::METHOD_LIST_TOOLS => {
                let tools = match &self.tools_json_async {
                    Some(json) if session.capabilities & CAP_ASYNC_OPERATIONS != 0 => json,
                    _ => &self.tools_json,
                };
                self.discovery(caller, tools).map(Into::into)
            }
            wire::METHOD_EXECUTE_TOOL => {
                match self.execute(request, caller, id, deadline, &session) {
                    Ok(Answer::Accepted(data)) => {
                        return V2Reply {
                            request_id: request_id.clone(),
                            outcome: Ok(data),
                            accepted: true,
                            file: None,
                        };
                    }
                    Ok(Answer::Data(data)) => Ok(data),
                    Err(err) => Err(err),
                }
            }
            METHOD_GET_OPERATION | METHOD_CANCEL_OPERATION => self
                .operation(request, caller, id, &session)
                .map(Into::into),
            other => Err(V2Error::new(
                Code::MethodNotFound,
                format!(
                    "unknown method `{}`; CETP v2 methods: `{METHOD_NEGOTIATE}`, `{}`, `{}`, `{}`, `{METHOD_GET_OPERATION}`, `{METHOD_CANCEL_OPERATION}`",
                    printable(&other.chars().take(64).collect::<String>()),
                    wire::METHOD_GET_PROVIDER_INFO,
                    wire::METHOD_LIST_TOOLS,
                    wire::METHOD_EXECUTE_TOOL
                ),
            )),
        };
        reply(outcome)
    }

    /// The session `token` names for `caller` at `now`. A token is issued
    /// [`SESSION_LIFETIME_MS`] before its expiry, so one whose issue lies after `now` (the clock
    /// was set back since) is refused: setting the clock back never lengthens a session.
    fn session(&self, token: Option<&str>, caller: &Caller, now: u64) -> Option<Session> {
        let session = self.sessions.as_ref()?.check(token?, caller.uid(), now)?;
        let issued_at = session.expires_at_ms.saturating_sub(SESSION_LIFETIME_MS);
        (session.version == PROTOCOL_VERSION as u8 && issued_at <= now).then_some(session)
    }

    fn negotiate(&self, request: &V2Request<'_>, caller: &Caller) -> Result<String, V2Error> {
        let versions = request.consumer_versions.unwrap_or_default();
        if !versions.contains(&PROTOCOL_VERSION) {
            return Err(V2Error::new(
                Code::UnsupportedVersion,
                format!(
                    "no common version: `{METHOD_NEGOTIATE}` selects CETP 2, the agent offered {versions:?}; a CETP 1 agent calls without negotiating"
                ),
            ));
        }
        let asked = request.consumer_capabilities.unwrap_or("[]");
        let Ok(asked) = serde_json::from_str::<Vec<String>>(asked) else {
            return Err(V2Error::new(
                Code::InvalidRequest,
                format!("`{EXTRA_CONSUMER_CAPABILITIES}` must be a JSON array of strings"),
            ));
        };
        let capabilities = self.capabilities_for(&asked);
        if caller.uid().is_none() {
            // A session is a MAC over the caller's UID: callers the platform did not name
            // would all share one.
            return Err(V2Error::new(
                Code::PermissionDenied,
                "the platform did not name the calling app (no UID), so it cannot have a session",
            ));
        }
        let Some(sessions) = &self.sessions else {
            return Err(V2Error::new(
                Code::Unavailable,
                "the provider cannot issue sessions now; try again",
            ));
        };
        let expires_at_ms = self.now_ms().saturating_add(SESSION_LIFETIME_MS);
        let session = Session {
            version: PROTOCOL_VERSION as u8,
            capabilities,
            expires_at_ms,
        };
        let token = sessions.issue(caller.uid(), session).map_err(|_| {
            V2Error::new(
                Code::Unavailable,
                "the provider cannot issue sessions now; try again",
            )
        })?;
        let limits = self.provider.limits();
        Ok(serde_json::json!({
            "selected_version": PROTOCOL_VERSION,
            "provider_id": self.provider_id,
            "provider_name": self.provider.name(),
            "session_token": token,
            "expires_at": rfc3339(expires_at_ms),
            // What both offer, and nothing the agent did not ask for.
            "capabilities": capability_names(capabilities),
            "limits": {
                "max_request_bytes": self.max_request_bytes(),
                "max_inline_result_bytes": self.max_inline_result_bytes(),
                "max_concurrent_requests": limits.max_calls_in_flight_per_caller.max(1),
                "idempotency_window_seconds": MIN_IDEMPOTENCY_WINDOW_SECONDS,
            },
        })
        .to_string())
    }

    fn discovery(&self, caller: &Caller, data: &str) -> Result<String, V2Error> {
        match self.provider.authorize(caller, Need::Discovery) {
            Ok(_) => Ok(data.to_owned()),
            Err(refused) => Err(from_core(&refused, false)),
        }
    }

    /// The largest `args` this host accepts, in UTF-8 bytes as v2 counts: the spec's floor,
    /// whatever [`Limits`](crate::Limits) say in wire bytes for v1 and Apex (v2 agents rely
    /// on the floor, and a limit far above it would not fit Binder's buffer).
    pub fn max_request_bytes(&self) -> usize {
        usize::try_from(MIN_REQUEST_BYTES).unwrap_or(usize::MAX)
    }

    /// The largest inline `data` this host returns, in UTF-8 bytes: the spec's floor (at most
    /// twice that on the wire, half of Binder's buffer).
    pub fn max_inline_result_bytes(&self) -> usize {
        usize::try_from(MIN_INLINE_RESULT_BYTES).unwrap_or(usize::MAX)
    }

    fn execute(
        &self,
        request: &V2Request<'_>,
        caller: &Caller,
        id: &str,
        deadline: u64,
        session: &Session,
    ) -> Result<Answer, V2Error> {
        let Some(name) = request.tool_name.filter(|n| !n.trim().is_empty()) else {
            return Err(V2Error::new(
                Code::InvalidRequest,
                format!(
                    "`execute_tool` needs the extra `{}` naming the tool to run",
                    wire::EXTRA_TOOL_NAME
                ),
            ));
        };
        // No tool has a longer name: one is not read further, and is answered below as an
        // unknown tool (its refusal under gated discovery included), resumable as every such
        // name alike.
        let long_name = name.len() > MAX_TOOL_NAME_BYTES;
        let record_name = if long_name { "" } else { name };
        let max_request = self.max_request_bytes();
        if let Some(size) = request.args.map(str::len).filter(|s| *s > max_request) {
            return Err(V2Error::new(
                Code::InvalidArgs,
                format!("`args` is {size} bytes, over the negotiated {max_request}"),
            ));
        }
        let now = self.now_ms();
        // The call as a resume token binds it (a caller the platform did not name gets none).
        let this_call = caller.uid().map(|uid| {
            Resume::new(
                uid,
                record_name,
                request.args,
                id,
                now,
                deadline.min(now.saturating_add(RESUME_LIFETIME_MS)),
            )
        });
        let resumed = match request.resume_token {
            None => false,
            Some(token) => {
                // Only its own caller spends a token; for anyone else it is unknown.
                let held = caller.uid().and_then(|uid| self.resumes.take(token, uid));
                let same = match (&held, &this_call) {
                    (Some(held), Some(call)) => held.matches(call, now),
                    _ => false,
                };
                if !same {
                    return Err(V2Error::new(
                        Code::InvalidRequest,
                        format!(
                            "`{EXTRA_RESUME_TOKEN}` is unknown, used, expired or from another call; it resumes only the call it was given for (same tool, `args` and `request_id`), once"
                        ),
                    ));
                }
                true
            }
        };
        let tool = self.provider.tool_named(name);
        let asynchronous = session.capabilities & CAP_ASYNC_OPERATIONS != 0;
        if let (Some(operations), Ok(found), Some(uid), true) =
            (&self.operations, &tool, caller.uid(), asynchronous)
        {
            if found.descriptor().long_running() {
                // A retry of a call that goes on as an operation gets that operation.
                if let Some(op) = operations.started_by(uid, id) {
                    if op.tool() != found.name() {
                        return Err(V2Error::new(
                            Code::InvalidRequest,
                            format!(
                                "`{EXTRA_REQUEST_ID}` already names an operation of another tool; a new call needs a new `{EXTRA_REQUEST_ID}`"
                            ),
                        ));
                    }
                    return Ok(Answer::Accepted(self.accepted_data(op.id())));
                }
                // Admitted here, as any call; only the tool runs on the operations' threads,
                // under its own deadline (the agent polls past its reply's).
                let call = ToolCall::new(tool)
                    .maybe_args(request.args)
                    .request_id(Some(id))
                    .utf8_sizes(max_request);
                let admitted = match self.provider.admit(call, caller) {
                    Ok(admitted) => admitted,
                    Err(err) => {
                        let logged = self.provider.reply(name, caller, Response::Error(err));
                        return self
                            .render(logged, name, (resumed, this_call), (deadline, now), session)
                            .map(Answer::Data);
                    }
                };
                return match operations.start(admitted, caller, uid, id, deadline) {
                    Ok(Started::Inline(response)) => self
                        .render(
                            response,
                            name,
                            (resumed, this_call),
                            (deadline, now),
                            session,
                        )
                        .map(Answer::Data),
                    Ok(Started::Accepted(op)) => Ok(Answer::Accepted(self.accepted_data(op.id()))),
                    Err(refusal) => Err(refused_operation(refusal)),
                };
            }
        }
        let call = ToolCall::new(tool)
            .maybe_args(request.args)
            .request_id(Some(id))
            .deadline_at_ms(Some(deadline))
            .utf8_sizes(max_request);
        let response = self.provider.execute(call, caller);
        self.render(
            response,
            name,
            (resumed, this_call),
            (deadline, now),
            session,
        )
        .map(Answer::Data)
    }

    /// The `data` of a successful `execute_tool`: the result inline when its envelope fits the
    /// inline limit; else, for a session that negotiated `large_results`, written to a file
    /// ([`ResultFile`]) up to the cap of [`CetpV2::max_large_result_bytes`]; else
    /// `RESULT_TOO_LARGE`.
    fn result(&self, value: &str, session: &Session) -> Result<Payload, V2Error> {
        let envelope = format!("{{\"kind\":\"{RESULT_KIND_INLINE}\",\"value\":{value}}}");
        let max = self.max_inline_result_bytes();
        if envelope.len() <= max {
            return Ok(envelope.into());
        }
        drop(envelope);
        let size = value.len() as u64;
        if session.capabilities & CAP_LARGE_RESULTS == 0 {
            return Err(V2Error::new(
                Code::ResultTooLarge,
                format!(
                    "the result is {} KiB, over the {} KiB a reply carries, and this session did not negotiate `{CAPABILITY_LARGE_RESULTS}`; narrow the request",
                    size.div_ceil(1024),
                    max / 1024
                ),
            ));
        }
        let cap = self.settings.large_result_cap();
        if size > cap {
            return Err(V2Error::new(
                Code::ResultTooLarge,
                format!(
                    "the result is {} KiB, over the {} KiB this provider sends as a file; narrow the request",
                    size.div_ceil(1024),
                    cap / 1024
                ),
            ));
        }
        let file = ResultFile::write(&self.results_dir, value).map_err(|e| {
            log::error!(
                "CETP v2: a large result could not be written ({:?})",
                e.kind()
            );
            V2Error::new(
                Code::Unavailable,
                "the provider could not write the result to a file now; try again",
            )
        })?;
        let data = serde_json::json!({
            "kind": RESULT_KIND_FILE,
            "media_type": MEDIA_TYPE_JSON,
            "size_bytes": file.size(),
            "sha256": file.sha256(),
        })
        .to_string();
        Ok(Payload {
            data,
            file: Some(file),
        })
    }

    /// The `data` of a success: the inline envelope, or `RESULT_TOO_LARGE` when it does not fit
    /// (an operation's result, which `get_operation` carries inline).
    fn inline(&self, value: &str) -> Result<String, V2Error> {
        let envelope = format!("{{\"kind\":\"{RESULT_KIND_INLINE}\",\"value\":{value}}}");
        let max = self.max_inline_result_bytes();
        if envelope.len() > max {
            return Err(V2Error::new(
                Code::ResultTooLarge,
                format!(
                    "the result is {} KiB, over the {} KiB a reply carries; narrow the request",
                    envelope.len().div_ceil(1024),
                    max / 1024
                ),
            ));
        }
        Ok(envelope)
    }

    /// The reply to an `execute_tool` the core answered with `response`.
    fn render(
        &self,
        response: Response,
        name: &str,
        (resumed, this_call): (bool, Option<Resume>),
        (deadline, now): (u64, u64),
        session: &Session,
    ) -> Result<Payload, V2Error> {
        match response {
            Response::Success(value) => self.result(&value, session),
            Response::Error(err) => {
                let refused = matches!(
                    err.code(),
                    ErrorCode::AuthRequired | ErrorCode::PermissionDenied
                );
                if resumed && refused {
                    // The user declined, or left the dialog without answering: the agent
                    // resumes after any result of the screen, and must not loop.
                    return Err(V2Error::new(
                        Code::UserCancelled,
                        format!(
                            "the user did not allow this app to use `{}`; ask again only when the user wants to",
                            printable(name)
                        ),
                    ));
                }
                let mut v2 = from_core(&err, self.now_ms() >= deadline);
                if v2.code == Code::AuthRequired {
                    // The spec's AUTH_REQUIRED always carries a `resolution` and a
                    // `resume_token`: without a token to give, the refusal is UNAVAILABLE.
                    let issued = match this_call {
                        Some(call) => {
                            let uid = call.uid();
                            self.resumes.issue(call, now).map(|token| (uid, token))
                        }
                        None => Err(NoToken::NoRandom),
                    };
                    match issued {
                        Ok(resume) => v2.resume = Some(resume),
                        Err(why) => return Err(no_resume_token(why)),
                    }
                }
                Err(v2)
            }
        }
    }

    /// The optional capabilities this host offers, as session bits: `async_operations` and
    /// `cancellation` when it runs operations.
    fn offered(&self) -> u8 {
        if self.operations.is_some() {
            CAP_LARGE_RESULTS | CAP_ASYNC_OPERATIONS | CAP_CANCELLATION
        } else {
            CAP_LARGE_RESULTS
        }
    }

    /// The capabilities a session gets: those both sides offer (`cancellation` only with
    /// `async_operations`, which it acts on).
    fn capabilities_for(&self, asked: &[String]) -> u8 {
        let asked = asked
            .iter()
            .filter_map(|name| capability_bit(name))
            .fold(0, |bits, bit| bits | bit);
        let mut both = asked & self.offered();
        if both & CAP_ASYNC_OPERATIONS == 0 {
            both &= !CAP_CANCELLATION;
        }
        both
    }

    /// The optional capabilities this host offers, by name (what `cargo cetp check` reports).
    pub fn offered_capabilities(&self) -> Vec<&'static str> {
        capability_names(self.offered())
    }

    fn accepted_data(&self, operation_id: &str) -> String {
        let poll = self
            .operations
            .as_ref()
            .map_or(1000, |ops| ops.settings().poll_after_ms());
        serde_json::json!({"operation_id": operation_id, "poll_after_ms": poll}).to_string()
    }

    /// `get_operation` and `cancel_operation`.
    fn operation(
        &self,
        request: &V2Request<'_>,
        caller: &Caller,
        id: &str,
        session: &Session,
    ) -> Result<String, V2Error> {
        let cancel = request.method == METHOD_CANCEL_OPERATION;
        let (needed, name) = if cancel {
            (CAP_CANCELLATION, CAPABILITY_CANCELLATION)
        } else {
            (CAP_ASYNC_OPERATIONS, CAPABILITY_ASYNC_OPERATIONS)
        };
        if session.capabilities & needed == 0 {
            return Err(V2Error::new(
                Code::UnsupportedCapability,
                format!(
                    "`{}` needs the capability `{name}`, which this session did not negotiate",
                    request.method
                ),
            ));
        }
        let Some(operation_id) = request.operation_id.filter(|op| !op.is_empty()) else {
            return Err(V2Error::new(
                Code::InvalidRequest,
                format!(
                    "`{}` needs the extra `{EXTRA_OPERATION_ID}` that `execute_tool` answered",
                    request.method
                ),
            ));
        };
        // Another caller's operation is answered exactly as one never issued.
        let found = match (&self.operations, caller.uid()) {
            (Some(operations), Some(uid)) => operations.find(uid, operation_id),
            _ => None,
        };
        let Some(op) = found else {
            return Err(V2Error::new(
                Code::ResultExpired,
                "no such operation: it is unknown, or finished too long ago to be kept; call the tool again",
            ));
        };
        if op.request_id() != id {
            return Err(V2Error::new(
                Code::InvalidRequest,
                format!(
                    "`{EXTRA_REQUEST_ID}` must be the one of the `execute_tool` that started the operation"
                ),
            ));
        }
        let poll = self
            .operations
            .as_ref()
            .map_or(1000, |ops| ops.settings().poll_after_ms());
        if cancel {
            return match op.cancel() {
                Ok(true) => {
                    log::info!(
                        "CETP v2 operation of `{}` from {} -> cancellation requested",
                        op.tool(),
                        Escaped(caller)
                    );
                    Ok(serde_json::json!({
                        "operation_id": op.id(),
                        "state": STATE_CANCELLATION_REQUESTED,
                        "poll_after_ms": poll,
                    })
                    .to_string())
                }
                Ok(false) => Ok(serde_json::json!({
                    "operation_id": op.id(),
                    "state": STATE_CANCELLED,
                })
                .to_string()),
                Err(()) => Err(V2Error::new(
                    Code::Conflict,
                    format!(
                        "the operation has already finished; `{METHOD_GET_OPERATION}` gives its outcome"
                    ),
                )),
            };
        }
        let (state, progress) = op.look();
        let mut data = serde_json::json!({"operation_id": op.id()});
        let fields = data.as_object_mut().expect("an object");
        let state_name = match state {
            State::Queued => STATE_QUEUED,
            State::Running => STATE_RUNNING,
            State::Cancelled => STATE_CANCELLED,
            State::Done(Response::Success(value)) => match self.inline(&value) {
                Ok(envelope) => {
                    let result =
                        serde_json::from_str::<serde_json::Value>(&envelope).unwrap_or_default();
                    fields.insert("result".to_owned(), result);
                    STATE_SUCCEEDED
                }
                Err(err) => {
                    fields.insert("error".to_owned(), error_object(&err));
                    STATE_FAILED
                }
            },
            State::Done(Response::Error(err)) => {
                fields.insert("error".to_owned(), error_object(&from_core(&err, false)));
                STATE_FAILED
            }
        };
        fields.insert("state".to_owned(), state_name.into());
        if matches!(state_name, STATE_QUEUED | STATE_RUNNING) {
            fields.insert("poll_after_ms".to_owned(), poll.into());
            if let Some(progress) = progress {
                let mut shown = serde_json::json!({"current": progress.current});
                if let Some(total) = progress.total {
                    shown["total"] = total.into();
                }
                if let Some(message) = progress.message {
                    shown["message"] = message.into();
                }
                fields.insert("progress".to_owned(), shown);
            }
        }
        Ok(data.to_string())
    }
}

/// What `execute_tool` answers: a `success`'s `data`, or an `accepted`'s.
enum Answer {
    Data(Payload),
    Accepted(String),
}

/// Session bit: `async_operations`.
const CAP_ASYNC_OPERATIONS: u8 = 1;
/// Session bit: `cancellation`.
const CAP_CANCELLATION: u8 = 1 << 1;
/// Session bit: `large_results`.
const CAP_LARGE_RESULTS: u8 = session::LARGE_RESULTS;

/// The session bit of the capability `name`, if this SDK knows it.
fn capability_bit(name: &str) -> Option<u8> {
    match name {
        CAPABILITY_ASYNC_OPERATIONS => Some(CAP_ASYNC_OPERATIONS),
        CAPABILITY_CANCELLATION => Some(CAP_CANCELLATION),
        CAPABILITY_LARGE_RESULTS => Some(CAP_LARGE_RESULTS),
        _ => None,
    }
}

/// The names of the capabilities in `bits`, in the spec's order.
fn capability_names(bits: u8) -> Vec<&'static str> {
    [
        (CAP_ASYNC_OPERATIONS, CAPABILITY_ASYNC_OPERATIONS),
        (CAP_CANCELLATION, CAPABILITY_CANCELLATION),
        (CAP_LARGE_RESULTS, CAPABILITY_LARGE_RESULTS),
    ]
    .into_iter()
    .filter(|(bit, _)| bits & bit != 0)
    .map(|(_, name)| name)
    .collect()
}

/// An operation's `error`, with the fields of an error reply.
fn error_object(err: &V2Error) -> serde_json::Value {
    let mut object = serde_json::json!({
        "error_code": err.code.as_str(),
        "error_message": err.message,
        "retryable": err.retryable(),
    });
    if let Some(wait) = err.retry_after_ms {
        object["retry_after_ms"] = wait.into();
    }
    object
}

/// The answer to a call that could not become an operation.
fn refused_operation(refusal: Refusal) -> V2Error {
    match refusal {
        Refusal::CallerFull(max) => V2Error::new(
            Code::RateLimited,
            format!(
                "this app already holds {max} operations here, running or finished and not yet read; read their outcome with `{METHOD_GET_OPERATION}` before starting another"
            ),
        ),
        Refusal::Full => V2Error::new(
            Code::Unavailable,
            "the provider holds as many operations as it keeps; try again later",
        ),
        Refusal::Unavailable => V2Error::new(
            Code::Unavailable,
            "the provider cannot start an operation now; try again",
        ),
    }
}

/// The answer to a refused call that gets no `resume_token`: the provider holds as many as it
/// keeps for other apps (or has no random bytes), so the agent retries later.
fn no_resume_token(why: NoToken) -> V2Error {
    let mut err = V2Error::new(
        Code::Unavailable,
        "this call needs the user's approval, and the provider cannot hold another request to resume now; try again later",
    );
    if let NoToken::Full { retry_after_ms } = why {
        err.retry_after_ms = Some(retry_after_ms);
    }
    err
}

/// The v2 error for what the core answered; an `INTERNAL_ERROR` once the agent's deadline
/// has passed is that deadline's.
fn from_core(err: &ToolError, past_deadline: bool) -> V2Error {
    let code = match err.code() {
        ErrorCode::InvalidArgs => Code::InvalidArgs,
        ErrorCode::ToolNotFound => Code::ToolNotFound,
        ErrorCode::PermissionDenied => Code::PermissionDenied,
        ErrorCode::AuthRequired => Code::AuthRequired,
        ErrorCode::RateLimited => Code::RateLimited,
        ErrorCode::InternalError if past_deadline => Code::DeadlineExceeded,
        _ => Code::InternalError,
    };
    V2Error {
        code,
        message: err.message().to_owned(),
        resolution_hint: err.resolution_hint().map(str::to_owned),
        retry_after_ms: err.retry_after_ms(),
        resume: None,
    }
}

/// `8-4-4-4-12` hexadecimal digits.
fn is_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// `ms` since the epoch as RFC 3339 UTC, to the second.
fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod operation_tests;
#[cfg(test)]
mod tests;
