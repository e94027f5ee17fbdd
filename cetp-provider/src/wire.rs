//! The CETP v1 wire vocabulary: method names, Bundle keys, status values, error codes and the
//! response envelope.
//!
//! Every protocol string the SDK sends or reads is spelled here and nowhere else. The Java
//! template in `android-template/` mirrors the keys it needs; a test checks both agree.

use std::fmt;

use crate::error::ToolError;
pub use crate::error::{ErrorCode, UnknownErrorCode};

/// `ContentResolver.call` method that lists the provider's tools.
pub const METHOD_LIST_TOOLS: &str = "list_tools";
/// `ContentResolver.call` method that runs one tool.
pub const METHOD_EXECUTE_TOOL: &str = "execute_tool";
/// `ContentResolver.call` method that describes the provider and its scopes.
pub const METHOD_GET_PROVIDER_INFO: &str = "get_provider_info";

/// Extras key naming the tool to run (`execute_tool`).
pub const EXTRA_TOOL_NAME: &str = "tool_name";
/// Extras key holding the JSON text of the tool arguments (`execute_tool`).
pub const EXTRA_ARGS: &str = "args";
/// Extras key holding the agent's optional request id (`execute_tool`).
pub const EXTRA_REQUEST_ID: &str = "request_id";

/// Response key: `success` or `error`.
pub const KEY_STATUS: &str = "status";
/// Response key: the JSON text of the result (success only).
pub const KEY_DATA: &str = "data";
/// Response key: one of the [`ErrorCode`] strings (error only).
pub const KEY_ERROR_CODE: &str = "error_code";
/// Response key: a human- and model-readable error description (error only).
pub const KEY_ERROR_MESSAGE: &str = "error_message";
/// Response key: what the user should do to resolve an error (optional).
pub const KEY_RESOLUTION_HINT: &str = "resolution_hint";
/// Response key: the intent action that opens the provider's authorization screen (optional).
pub const KEY_AUTHORIZE_INTENT: &str = "authorize_intent";

/// Every key a response Bundle may carry, in the order [`Response::to_pairs`] writes them.
pub const RESPONSE_KEYS: [&str; 6] = [
    KEY_STATUS,
    KEY_DATA,
    KEY_ERROR_CODE,
    KEY_ERROR_MESSAGE,
    KEY_RESOLUTION_HINT,
    KEY_AUTHORIZE_INTENT,
];

/// Value of [`KEY_STATUS`] for a successful call.
pub const STATUS_SUCCESS: &str = "success";
/// Value of [`KEY_STATUS`] for a failed call.
pub const STATUS_ERROR: &str = "error";

/// Intent action agents scan for to discover providers.
pub const DISCOVERY_ACTION: &str = "com.clawseed.action.TOOL_PROVIDER";
/// Service meta-data key carrying the provider authority.
pub const META_AUTHORITY: &str = "com.clawseed.tools.authority";
/// Service meta-data key carrying the protocol version (the integer `1`).
pub const META_VERSION: &str = "com.clawseed.tools.version";
/// The protocol version this SDK speaks.
pub const PROTOCOL_VERSION: u32 = 1;
/// The permission the CETP v1 manifest puts on the provider.
pub const ACCESS_PERMISSION: &str = "com.clawseed.permission.ACCESS_TOOLS";

/// Intent action the Apex agent scans for to discover plugin Services (`IApexPlugin`).
pub const APEX_PLUGIN_ACTION: &str = "com.apex.agent.plugin.PLUGIN";
/// Start of every failed `executeTool` result sent to Apex: `Error: <CODE>: <message>`
/// (see [`crate::host::apex::render`]).
pub const APEX_ERROR_PREFIX: &str = "Error: ";
/// Starts the line that carries the `resolution_hint` in a failed `executeTool` result.
pub const APEX_HINT_PREFIX: &str = "\nHint: ";

/// `getMetadataJson` / `getToolsJson` key: the plugin's id (the app's package) or a tool's id.
pub const APEX_KEY_ID: &str = "id";
/// `getMetadataJson` / `getToolsJson` key: the plugin's or a tool's name for people.
pub const APEX_KEY_NAME: &str = "name";
/// `getMetadataJson` / `getToolsJson` key: what the plugin or the tool does.
pub const APEX_KEY_DESCRIPTION: &str = "description";
/// `getMetadataJson` key: the app's version code.
pub const APEX_KEY_VERSION: &str = "version";
/// `getMetadataJson` key: the app's version name.
pub const APEX_KEY_VERSION_NAME: &str = "versionName";
/// `getMetadataJson` key: the oldest host version the plugin works with.
pub const APEX_KEY_MIN_HOST_VERSION: &str = "minHostVersion";
/// `getToolsJson` key: the text of a tool's parameter schema.
pub const APEX_KEY_PARAMETERS_SCHEMA: &str = "parametersSchema";

/// Appended to the app's package name to form the default `authorize_intent` action:
/// `com.example.notes` → `com.example.notes.CETP_AUTHORIZE`. The consent dialog's intent
/// filter uses the same action.
pub const AUTHORIZE_ACTION_SUFFIX: &str = ".CETP_AUTHORIZE";
/// Appended to the app's package to form the action of the list of apps with access, the
/// screen the app itself opens from its settings (not reachable from other apps).
pub const MANAGE_ACTION_SUFFIX: &str = ".CETP_MANAGE_GRANTS";

// The consent screens' admin JSON (`auth::admin::AdminRequest` in, `AdminResponse` out). It never leaves the provider app, but its keys
// are a contract between this crate and the template's Java screens, so they are spelled here once
// and the Java side mirrors them (`Wire.ADMIN_*`). `src/auth/tests/admin_wire.rs` proves
// that these are exactly the keys the admin types serialize. They are not API for apps (an app
// never speaks the admin JSON; the template's screens do), so they are hidden from the docs.

#[doc(hidden)]
/// Admin request key: the operation, one of the `ADMIN_OP_*` values.
///
/// ```
/// use cetp_provider::{App, Provider, wire};
/// use serde_json::{Map, Value};
///
/// let dir = tempfile::tempdir().unwrap();
/// let provider = Provider::builder("Notes")
///     .app(App::new("com.example.notes", dir.path()))
///     .build()
///     .unwrap();
/// let mut request = Map::new();
/// request.insert(wire::ADMIN_OP.into(), wire::ADMIN_OP_STATE.into());
/// let reply: Value =
///     serde_json::from_str(&provider.handle_admin_json(&Value::from(request).to_string()))
///         .unwrap();
/// assert_eq!(reply[wire::ADMIN_KEY_OK], true);
/// assert_eq!(reply[wire::ADMIN_KEY_STATE][wire::ADMIN_KEY_STORE_OPEN], true);
/// ```
pub const ADMIN_OP: &str = "op";
#[doc(hidden)]
/// [`ADMIN_OP`]: read the state.
pub const ADMIN_OP_STATE: &str = "state";
#[doc(hidden)]
/// [`ADMIN_OP`]: approve a pending request.
pub const ADMIN_OP_APPROVE: &str = "approve";
#[doc(hidden)]
/// [`ADMIN_OP`]: deny a pending request.
pub const ADMIN_OP_DENY: &str = "deny";
#[doc(hidden)]
/// [`ADMIN_OP`]: remove an app's grants.
pub const ADMIN_OP_REVOKE: &str = "revoke";
#[doc(hidden)]
/// [`ADMIN_OP`]: remove an app's denials, so that it may ask again.
pub const ADMIN_OP_CLEAR_DENIAL: &str = "clear_denial";

#[doc(hidden)]
/// Admin key: a pending request's id (in a decision, and in the state's `pending`).
pub const ADMIN_KEY_ID: &str = "id";
#[doc(hidden)]
/// Admin key: scopes. An approval's scope names; the provider's declared scopes and a pending
/// request's scopes (objects with [`ADMIN_KEY_NAME`] and [`ADMIN_KEY_DESCRIPTION`]); a grant's
/// approved scope names.
pub const ADMIN_KEY_SCOPES: &str = "scopes";
#[doc(hidden)]
/// Admin key: an access level, [`ADMIN_ACCESS_FULL`] or [`ADMIN_ACCESS_LIMITED`].
pub const ADMIN_KEY_ACCESS: &str = "access";
#[doc(hidden)]
/// Admin request key: how long an approval lasts, in seconds (absent: no expiry).
pub const ADMIN_KEY_DURATION_SECS: &str = "duration_secs";
#[doc(hidden)]
/// Admin request key: the UID of the app that opened the screen.
pub const ADMIN_KEY_CALLER_UID: &str = "caller_uid";
#[doc(hidden)]
/// Admin request key (any operation): the language of the screen, a BCP 47 tag (`"fr"`,
/// `"pt-BR"`), in which the reply describes the scopes.
pub const ADMIN_KEY_LOCALE: &str = "locale";
#[doc(hidden)]
/// Admin key: a package name (a revocation, a grant, a denial).
pub const ADMIN_KEY_PACKAGE: &str = "package";
#[doc(hidden)]
/// Admin key: the hex SHA-256 of a signing certificate (one string on a grant, a denial or a
/// revocation; a list on a pending request's package).
pub const ADMIN_KEY_CERTIFICATE_SHA256: &str = "certificate_sha256";

#[doc(hidden)]
/// Admin reply key: whether the operation worked.
pub const ADMIN_KEY_OK: &str = "ok";
#[doc(hidden)]
/// Admin reply key: what went wrong, an object with [`ADMIN_KEY_KIND`] and [`ADMIN_KEY_MESSAGE`].
pub const ADMIN_KEY_ERROR: &str = "error";
#[doc(hidden)]
/// Admin reply key: the error's kind ([`AdminError::kind`](crate::auth::AdminError::kind)).
pub const ADMIN_KEY_KIND: &str = "kind";
#[doc(hidden)]
/// Admin reply key: the error's sentence, for the developer's log.
pub const ADMIN_KEY_MESSAGE: &str = "message";
#[doc(hidden)]
/// Admin reply key: the stored decisions were found unreadable and lost.
pub const ADMIN_KEY_DECISIONS_LOST: &str = "decisions_lost";
#[doc(hidden)]
/// Admin reply key: the state after the operation.
pub const ADMIN_KEY_STATE: &str = "state";

#[doc(hidden)]
/// Admin state key: the provider's name.
pub const ADMIN_KEY_PROVIDER_NAME: &str = "provider_name";
#[doc(hidden)]
/// Admin state key: the requests waiting for the user.
pub const ADMIN_KEY_PENDING: &str = "pending";
#[doc(hidden)]
/// Admin state key: the stored grants.
pub const ADMIN_KEY_GRANTS: &str = "grants";
#[doc(hidden)]
/// Admin state key: the stored denials.
pub const ADMIN_KEY_DENIALS: &str = "denials";
#[doc(hidden)]
/// Admin state key: whether a grant store is open.
pub const ADMIN_KEY_STORE_OPEN: &str = "store_open";
#[doc(hidden)]
/// Admin state key: a change is in force but not saved yet.
pub const ADMIN_KEY_UNSAVED_CHANGES: &str = "unsaved_changes";
#[doc(hidden)]
/// Admin state key: the provider's clock, in ms since the Unix epoch.
pub const ADMIN_KEY_NOW_MS: &str = "now_ms";
#[doc(hidden)]
/// Admin state key: whether the screen offers limited access.
pub const ADMIN_KEY_OFFERS_LIMITED_ACCESS: &str = "offers_limited_access";
#[doc(hidden)]
/// Admin state key: the name of a scope, of a pending request's package or of a tool.
pub const ADMIN_KEY_NAME: &str = "name";
#[doc(hidden)]
/// Admin state key: what a scope gives access to, in the provider's words.
pub const ADMIN_KEY_DESCRIPTION: &str = "description";
#[doc(hidden)]
/// Admin state key: a pending request's calling UID (`null` when unknown).
pub const ADMIN_KEY_UID: &str = "uid";
#[doc(hidden)]
/// Admin state key: a pending request's packages.
pub const ADMIN_KEY_PACKAGES: &str = "packages";
#[doc(hidden)]
/// Admin state key: when a pending request was first made, in ms since the Unix epoch.
pub const ADMIN_KEY_FIRST_REQUESTED_MS: &str = "first_requested_ms";
#[doc(hidden)]
/// Admin state key: when a pending request was last made, in ms since the Unix epoch.
pub const ADMIN_KEY_REQUESTED_AT_MS: &str = "requested_at_ms";
#[doc(hidden)]
/// Admin state key: when a pending request or a grant (or one of its scopes) lapses, in ms
/// since the Unix epoch (`null` on a grant: never).
pub const ADMIN_KEY_EXPIRES_AT_MS: &str = "expires_at_ms";
#[doc(hidden)]
/// Admin state key: when a grant (or one of its scopes) was approved, in ms since the Unix epoch.
pub const ADMIN_KEY_GRANTED_AT_MS: &str = "granted_at_ms";
#[doc(hidden)]
/// Admin state key: a grant's approved scopes, each with its own access and expiry.
pub const ADMIN_KEY_PER_SCOPE: &str = "per_scope";
#[doc(hidden)]
/// Admin state key: the scope's name in a [`ADMIN_KEY_PER_SCOPE`] entry.
pub const ADMIN_KEY_SCOPE: &str = "scope";
#[doc(hidden)]
/// Admin state key: what a grant gives the tools that need no scope (`null` when nothing).
pub const ADMIN_KEY_NO_SCOPE: &str = "no_scope";
#[doc(hidden)]
/// Admin state key: whether a grant's scope (a [`ADMIN_KEY_PER_SCOPE`] entry, or its
/// [`ADMIN_KEY_NO_SCOPE`]) had lapsed at the state's [`ADMIN_KEY_NOW_MS`]. Apps with access words
/// an entry from it, never from the times.
pub const ADMIN_KEY_EXPIRED: &str = "expired";
#[doc(hidden)]
/// Admin state key: a grant's (or one tool's) last call, in ms since the Unix epoch.
pub const ADMIN_KEY_LAST_ACCESS_MS: &str = "last_access_ms";
#[doc(hidden)]
/// Admin state key: calls in the last 24 hours.
pub const ADMIN_KEY_CALLS_DAY: &str = "calls_day";
#[doc(hidden)]
/// Admin state key: calls in the last 7 days.
pub const ADMIN_KEY_CALLS_WEEK: &str = "calls_week";
#[doc(hidden)]
/// Admin state key: a grant's calls per tool.
pub const ADMIN_KEY_TOOLS: &str = "tools";
#[doc(hidden)]
/// Admin state key: when the user declined an app, in ms since the Unix epoch.
pub const ADMIN_KEY_DENIED_AT_MS: &str = "denied_at_ms";

/// Admin state key: what the app of a pending request already holds, an object with
/// [`ADMIN_KEY_SCOPES`] (entries like [`ADMIN_KEY_PER_SCOPE`]'s, only those in force, for the
/// request's own packages and certificates) and [`ADMIN_KEY_NO_SCOPE`].
pub const ADMIN_KEY_HOLDS: &str = "holds";

/// Admin state key: whether the app of a pending request already holds something, so that the
/// consent dialog asks for more access rather than first access.
pub const ADMIN_KEY_ASKS_FOR_MORE: &str = "asks_for_more";

#[doc(hidden)]
/// [`ADMIN_KEY_ACCESS`]: everything the tools return.
pub const ADMIN_ACCESS_FULL: &str = "full";
#[doc(hidden)]
/// [`ADMIN_KEY_ACCESS`]: the reduced view the tools choose.
pub const ADMIN_ACCESS_LIMITED: &str = "limited";

#[doc(hidden)]
/// [`ADMIN_KEY_KIND`] of a decision on a request that is no longer pending (answered,
/// replaced or expired).
pub const ADMIN_ERROR_UNKNOWN_REQUEST: &str = "unknown_request";
#[doc(hidden)]
/// [`ADMIN_KEY_KIND`] of an approval naming a scope the request does not list.
pub const ADMIN_ERROR_SCOPE_NOT_REQUESTED: &str = "scope_not_requested";
#[doc(hidden)]
/// [`ADMIN_KEY_KIND`] of a revocation or cleared denial that matched nothing.
pub const ADMIN_ERROR_NOT_FOUND: &str = "not_found";
#[doc(hidden)]
/// [`ADMIN_KEY_KIND`] of a change that could not be saved (nothing changed).
pub const ADMIN_ERROR_PERSIST_FAILED: &str = "persist_failed";
#[doc(hidden)]
/// Every key of the admin JSON ([`ADMIN_OP`] and the `ADMIN_KEY_*`), for the tests that hold
/// the serialized types and the Java screens to them.
pub const ADMIN_KEYS: &[&str] = &[
    ADMIN_OP,
    ADMIN_KEY_ID,
    ADMIN_KEY_SCOPES,
    ADMIN_KEY_ACCESS,
    ADMIN_KEY_DURATION_SECS,
    ADMIN_KEY_CALLER_UID,
    ADMIN_KEY_LOCALE,
    ADMIN_KEY_PACKAGE,
    ADMIN_KEY_CERTIFICATE_SHA256,
    ADMIN_KEY_OK,
    ADMIN_KEY_ERROR,
    ADMIN_KEY_KIND,
    ADMIN_KEY_MESSAGE,
    ADMIN_KEY_DECISIONS_LOST,
    ADMIN_KEY_STATE,
    ADMIN_KEY_PROVIDER_NAME,
    ADMIN_KEY_PENDING,
    ADMIN_KEY_GRANTS,
    ADMIN_KEY_DENIALS,
    ADMIN_KEY_STORE_OPEN,
    ADMIN_KEY_UNSAVED_CHANGES,
    ADMIN_KEY_NOW_MS,
    ADMIN_KEY_OFFERS_LIMITED_ACCESS,
    ADMIN_KEY_NAME,
    ADMIN_KEY_DESCRIPTION,
    ADMIN_KEY_UID,
    ADMIN_KEY_PACKAGES,
    ADMIN_KEY_FIRST_REQUESTED_MS,
    ADMIN_KEY_REQUESTED_AT_MS,
    ADMIN_KEY_EXPIRES_AT_MS,
    ADMIN_KEY_GRANTED_AT_MS,
    ADMIN_KEY_PER_SCOPE,
    ADMIN_KEY_SCOPE,
    ADMIN_KEY_NO_SCOPE,
    ADMIN_KEY_EXPIRED,
    ADMIN_KEY_LAST_ACCESS_MS,
    ADMIN_KEY_CALLS_DAY,
    ADMIN_KEY_CALLS_WEEK,
    ADMIN_KEY_TOOLS,
    ADMIN_KEY_DENIED_AT_MS,
    ADMIN_KEY_HOLDS,
    ADMIN_KEY_ASKS_FOR_MORE,
];
#[doc(hidden)]
/// Every value word of the admin JSON (the `ADMIN_OP_*`, `ADMIN_ACCESS_*` and `ADMIN_ERROR_*`).
pub const ADMIN_VALUES: &[&str] = &[
    ADMIN_OP_STATE,
    ADMIN_OP_APPROVE,
    ADMIN_OP_DENY,
    ADMIN_OP_REVOKE,
    ADMIN_OP_CLEAR_DENIAL,
    ADMIN_ACCESS_FULL,
    ADMIN_ACCESS_LIMITED,
    ADMIN_ERROR_UNKNOWN_REQUEST,
    ADMIN_ERROR_SCOPE_NOT_REQUESTED,
    ADMIN_ERROR_NOT_FOUND,
    ADMIN_ERROR_PERSIST_FAILED,
];

/// The answer to one CETP call: the result as JSON text, or a [`ToolError`].
///
/// It is the one reply type of the SDK: [`CetpV1Host::call`](crate::host::CetpV1Host::call) returns it,
/// the Android bridge writes its [`to_pairs`](Self::to_pairs) into the reply Bundle, and host
/// tests read it through [`get`](Self::get), [`data_json`](Self::data_json) and
/// [`error_code`](Self::error_code).
///
/// ```
/// use cetp_provider::{ErrorCode, Response, ToolError};
/// let ok = Response::success("{\"n\":1}".to_owned());
/// assert_eq!(ok.to_pairs(), vec![("status", "success"), ("data", "{\"n\":1}")]);
/// assert_eq!(ok.data_json().unwrap()["n"], 1);
///
/// let err = Response::from(ToolError::tool_not_found("no tool `x`"));
/// assert_eq!(err.error_code(), Some(ErrorCode::ToolNotFound));
/// assert_eq!(err.get("error_message"), Some("no tool `x`"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    /// `status = "success"` with the JSON text of the result (`data`).
    Success(String),
    /// `status = "error"` with the error's code, message and optional hint and intent.
    Error(ToolError),
}

impl Response {
    /// A success carrying `data`, which must be JSON text.
    pub fn success(data: String) -> Self {
        Response::Success(data)
    }

    /// Whether this is a success.
    pub fn is_success(&self) -> bool {
        matches!(self, Response::Success(_))
    }

    /// The `data` JSON text, if this is a success.
    pub fn data(&self) -> Option<&str> {
        match self {
            Response::Success(data) => Some(data),
            Response::Error(_) => None,
        }
    }

    /// The error, if this is one.
    pub fn error(&self) -> Option<&ToolError> {
        match self {
            Response::Success(_) => None,
            Response::Error(err) => Some(err),
        }
    }

    /// The error code, if this is an error.
    pub fn error_code(&self) -> Option<ErrorCode> {
        self.error().map(ToolError::code)
    }

    /// The `error_message`, if this is an error.
    pub fn error_message(&self) -> Option<&str> {
        self.error().map(ToolError::message)
    }

    /// `data` parsed as JSON.
    ///
    /// # Errors
    /// The [`ToolError`] of a failed call, or an `INTERNAL_ERROR` if `data` is not JSON.
    pub fn data_json(&self) -> Result<serde_json::Value, ToolError> {
        match self {
            Response::Success(data) => serde_json::from_str(data)
                .map_err(|e| ToolError::internal(format_args!("`data` is not JSON: {e}"))),
            Response::Error(err) => Err(err.clone()),
        }
    }

    /// The value the reply Bundle holds under `key` (one of [`RESPONSE_KEYS`]), if any.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.to_pairs()
            .into_iter()
            .find_map(|(k, v)| (k == key).then_some(v))
    }

    /// The key/value pairs of the reply Bundle, in the order of [`RESPONSE_KEYS`]. All values
    /// are strings.
    pub fn to_pairs(&self) -> Vec<(&'static str, &str)> {
        match self {
            Response::Success(data) => vec![(KEY_STATUS, STATUS_SUCCESS), (KEY_DATA, data)],
            Response::Error(err) => {
                let mut pairs = vec![
                    (KEY_STATUS, STATUS_ERROR),
                    (KEY_ERROR_CODE, err.code().as_str()),
                    (KEY_ERROR_MESSAGE, err.message()),
                ];
                if let Some(hint) = err.resolution_hint() {
                    pairs.push((KEY_RESOLUTION_HINT, hint));
                }
                if let Some(action) = err.authorize_intent() {
                    pairs.push((KEY_AUTHORIZE_INTENT, action));
                }
                pairs
            }
        }
    }
}

impl From<ToolError> for Response {
    fn from(err: ToolError) -> Self {
        Response::Error(err)
    }
}

impl fmt::Display for Response {
    /// `success: <data>` or `<CODE>: <message>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Response::Success(data) => write!(f, "success: {data}"),
            Response::Error(err) => err.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_admin_word_is_in_one_list() {
        let source = include_str!("wire.rs");
        let declared = source
            .lines()
            .filter(|l| l.starts_with("pub const ADMIN_") && l.contains(": &str ="))
            .count();
        assert_eq!(
            super::ADMIN_KEYS.len() + super::ADMIN_VALUES.len(),
            declared,
            "a new ADMIN_* constant goes into ADMIN_KEYS or ADMIN_VALUES"
        );
        // Keys are distinct words (a value such as `state` may also be a key).
        let mut keys = super::ADMIN_KEYS.to_vec();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), super::ADMIN_KEYS.len(), "a key is listed twice");
    }

    use super::*;

    #[test]
    fn codes_round_trip_through_their_wire_spelling() {
        for code in ErrorCode::ALL {
            assert_eq!(code.as_str().parse::<ErrorCode>(), Ok(code));
        }
        assert!("auth_required".parse::<ErrorCode>().is_err());
    }

    #[test]
    fn error_pairs_carry_optional_fields_only_when_set() {
        let plain = Response::from(ToolError::internal("boom"));
        assert_eq!(plain.to_pairs().len(), 3);
        let auth = Response::from(
            ToolError::auth_required("m")
                .with_hint("h")
                .with_authorize_intent("a"),
        );
        assert_eq!(
            auth.to_pairs(),
            vec![
                ("status", "error"),
                ("error_code", "AUTH_REQUIRED"),
                ("error_message", "m"),
                ("resolution_hint", "h"),
                ("authorize_intent", "a"),
            ]
        );
    }
}
