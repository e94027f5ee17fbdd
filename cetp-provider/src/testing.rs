//! Test a provider from `cargo test` the way an agent app sees it.
//!
//! [`Agent`] calls [`CetpV1Host::call`], the entry point the Android bridge uses, and hands back
//! the same [`Response`] the bridge writes into the reply Bundle. [`check_conformance`] audits a
//! provider against CETP v1 in one line; [`check_noninterference`] checks that Limited answers
//! do not depend on the data Limited hides. [`capture_logs`] collects what a call logs, to check
//! that no argument value or app text reaches the log.
//!
//! The module comes with the `test-util` feature, which an app enables for its tests only:
//!
//! ```toml
//! [dependencies]
//! cetp-provider = { version = "0.1", features = ["jni"] }
//!
//! [dev-dependencies]
//! cetp-provider = { version = "0.1", features = ["test-util"] }
//! ```
//!
//! ```
//! use cetp_provider::{ErrorCode, Provider, tool, tools};
//! use cetp_provider::testing::{Agent, check_conformance};
//!
//! /// Greets someone.
//! #[tool]
//! fn greet(
//!     /// Who to greet.
//!     name: String,
//! ) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! let provider = Provider::builder("Greeter")
//!     .tools(tools![greet])
//!     .auth(cetp_provider::auth::Auth::open())
//!     .build()
//!     .unwrap();
//! check_conformance(&provider).expect("CETP v1 conformant");
//!
//! let agent = Agent::new(&provider);
//! assert_eq!(agent.execute("greet", r#"{"name":"Ada"}"#).data_json().unwrap(), "Hello, Ada!");
//! let bad = agent.execute("greet", r#"{"name":7}"#);
//! assert_eq!(bad.error_code(), Some(ErrorCode::InvalidArgs));
//! ```

mod cetp_v2;
mod cetp_v2_operations;
mod logs;
mod noninterference;

pub use logs::{assert_logged_privately, capture_logs};
pub use noninterference::{NoninterferenceError, check_noninterference};

use serde_json::Value;

use crate::auth::Approval;
use crate::caller::Caller;
use crate::context::AccessLevel;
use crate::host::{CetpV1Host, Request};
use crate::provider::Provider;
use crate::tool::is_valid_tool_name;
use crate::wire::{self, ErrorCode, Response};

/// An agent app, on the host: calls one provider as CETP v1 agents do, as one caller identity.
#[derive(Debug, Clone)]
pub struct Agent<'p> {
    provider: &'p Provider,
    caller: Caller,
}

impl<'p> Agent<'p> {
    /// The lower-case hex SHA-256 digest of the signing certificate [`Agent::new`]'s caller
    /// presents (grants are always pinned to a certificate, so a test agent needs one).
    pub const CERTIFICATE_SHA256: &'static str =
        "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0";

    /// An agent calling as `com.example.consumer` under UID 10 001, signed with the
    /// certificate whose SHA-256 digest is [`Agent::CERTIFICATE_SHA256`].
    pub fn new(provider: &'p Provider) -> Self {
        Agent {
            provider,
            caller: Caller::app(10_001, "com.example.consumer")
                .with_certificate(Self::CERTIFICATE_SHA256),
        }
    }

    /// The same agent calling as someone else.
    pub fn as_caller(&self, caller: Caller) -> Self {
        Agent {
            provider: self.provider,
            caller,
        }
    }

    /// The identity this agent calls with.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// Plays the user approving this agent for every tool, the way the consent dialog does:
    /// calls each tool once with arguments no schema accepts (so the provider records a pending
    /// request from this caller, with every scope the tools need, and no tool body runs), then
    /// approves this caller's pending requests at `access` with no expiry. The provider must use
    /// user approval (its grants are kept in memory when it was given neither
    /// [`ProviderBuilder::app`](crate::ProviderBuilder::app) nor
    /// [`crate::auth::Auth::store_dir`]).
    ///
    /// ```
    /// use cetp_provider::testing::Agent;
    /// use cetp_provider::{AccessLevel, App, CallContext, ErrorCode, Provider, tool, tools};
    ///
    /// /// Tells the caller how much it may see.
    /// #[tool(scopes = ["profile.read"])]
    /// fn access(ctx: &CallContext) -> String {
    ///     format!("{:?}", ctx.access())
    /// }
    ///
    /// let files = tempfile::tempdir().unwrap();
    /// let provider = Provider::builder("Profile")
    ///     .scope("profile.read", "your profile")
    ///     .tools(tools![access])
    ///     .app(App::new("com.example.profile", files.path()))
    ///     .build()
    ///     .unwrap();
    ///
    /// let agent = Agent::new(&provider);
    /// assert_eq!(agent.execute("access", "{}").error_code(), Some(ErrorCode::AuthRequired));
    /// agent.approve(AccessLevel::Limited).unwrap();
    /// assert_eq!(agent.execute("access", "{}").data_json().unwrap(), "Limited");
    /// ```
    ///
    /// # Errors
    /// [`ApprovalError`] if the provider recorded no pending request for this caller (open or
    /// allowlist policy, no grant store, a denied caller) or refused the approval.
    pub fn approve(&self, access: AccessLevel) -> Result<(), ApprovalError> {
        for tool in self.provider.tools() {
            self.execute(&tool.name, NEVER_VALID_ARGS);
        }
        self.approve_pending(access)
    }

    /// Plays the user approving what this agent's refused calls asked for so far (its pending
    /// request: the tools and scopes of every `AUTH_REQUIRED` it got), at `access` with no
    /// expiry. Nothing is called: [`Agent::approve`] without asking for every tool first, so a
    /// test can approve fewer scopes than the provider has.
    ///
    /// ```
    /// use cetp_provider::testing::Agent;
    /// use cetp_provider::{AccessLevel, App, ErrorCode, Provider, tool, tools};
    ///
    /// /// Counts the user's notes.
    /// #[tool(scopes = ["notes.read"])]
    /// fn count_notes() -> u32 { 3 }
    ///
    /// /// Counts the user's tags.
    /// #[tool(scopes = ["tags.read"])]
    /// fn count_tags() -> u32 { 2 }
    ///
    /// let files = tempfile::tempdir().unwrap();
    /// let provider = Provider::builder("Notes")
    ///     .scope("notes.read", "your notes")
    ///     .scope("tags.read", "your tags")
    ///     .tools(tools![count_notes, count_tags])
    ///     .app(App::new("com.example.notes", files.path()))
    ///     .build()
    ///     .unwrap();
    /// let agent = Agent::new(&provider);
    /// assert_eq!(agent.execute("count_tags", "{}").error_code(), Some(ErrorCode::AuthRequired));
    /// agent.approve_pending(AccessLevel::Full).unwrap();
    /// assert!(agent.execute("count_tags", "{}").is_success());
    /// // Only what it asked for: the notes were never asked for.
    /// assert_eq!(agent.execute("count_notes", "{}").error_code(), Some(ErrorCode::AuthRequired));
    /// ```
    ///
    /// # Errors
    /// [`ApprovalError`] if the provider holds no pending request from this caller, or refused
    /// the approval.
    pub fn approve_pending(&self, access: AccessLevel) -> Result<(), ApprovalError> {
        let auth = self.provider.authorizer();
        let mine: Vec<_> = auth
            .pending()
            .into_iter()
            .filter(|request| {
                request.uid == self.caller.uid()
                    && request
                        .packages
                        .iter()
                        .any(|p| self.caller.package_names().any(|name| name == p.name))
            })
            .collect();
        if mine.is_empty() && auth.holds_grant(&self.caller) {
            return Err(ApprovalError(format!(
                "{} is approved already (a grant in force, as after check_conformance, which \
                 approves its own agent, or an earlier approve): nothing is pending, so there is \
                 nothing to approve; approve another agent (as_caller), or revoke this one \
                 first to approve it at another access",
                self.caller.describe()
            )));
        }
        if mine.is_empty() {
            return Err(ApprovalError(format!(
                "the provider recorded no pending request from {}; approval needs the user-approval policy (and a caller it does not deny)",
                self.caller.describe()
            )));
        }
        for request in mine {
            auth.approve(&request.id, Approval::as_listed(&request).access(access))
                .map_err(|e| ApprovalError(format!("approval refused: {e}")))?;
        }
        Ok(())
    }

    /// [`check_conformance`] calling as this agent's caller, which the provider must admit to
    /// every tool: nothing is approved.
    ///
    /// ```
    /// use cetp_provider::testing::Agent;
    /// use cetp_provider::{Caller, Provider, auth::Auth, tool, tools};
    ///
    /// /// Says hello.
    /// #[tool]
    /// fn hello() -> &'static str { "hello" }
    ///
    /// let provider = Provider::builder("Hello").tools(tools![hello]).auth(Auth::open()).build().unwrap();
    /// let agent = Agent::new(&provider).as_caller(Caller::app(10_001, "com.example.agent"));
    /// agent.check_conformance().unwrap();
    /// ```
    ///
    /// # Errors
    /// [`ConformanceError`] listing every violation.
    pub fn check_conformance(&self) -> Result<Conformance, ConformanceError> {
        let mut audit = Audit::default();

        let list = self.list_tools();
        let mut names = Vec::new();
        if let Some(data) = audit.success("list_tools", &list) {
            match data.get("tools").and_then(Value::as_array) {
                None => audit.fail("list_tools: `data` has no `tools` array"),
                Some(tools) => {
                    for tool in tools {
                        audit.tool(tool, &mut names);
                    }
                }
            }
        }

        if let Some(info) = audit.success("get_provider_info", &self.provider_info()) {
            if !info.get("provider_name").is_some_and(Value::is_string) {
                audit.fail("get_provider_info: `provider_name` is not a string");
            }
            if !info.get("description").is_some_and(Value::is_string) {
                audit.fail("get_provider_info: `description` is not a string");
            }
            match info.get("scopes").and_then(Value::as_array) {
                None => audit.fail("get_provider_info: `scopes` is not an array"),
                Some(scopes) => {
                    for scope in scopes {
                        if !scope.get("name").is_some_and(Value::is_string)
                            || !scope.get("description").is_some_and(Value::is_string)
                        {
                            audit.fail(format!(
                                "get_provider_info: scope {scope} lacks a string `name`/`description`"
                            ));
                        }
                    }
                }
            }
        }

        let unknown_tool = "cetp_conformance_no_such_tool";
        let expectations: Vec<(String, Response, ErrorCode)> = vec![
            (
                "an unknown method".into(),
                self.call(&Request::new("cetp_conformance_no_such_method")),
                ErrorCode::ToolNotFound,
            ),
            (
                "an unknown tool".into(),
                self.execute(unknown_tool, "{}"),
                ErrorCode::ToolNotFound,
            ),
            (
                "execute_tool without `tool_name`".into(),
                self.call(&Request::new(wire::METHOD_EXECUTE_TOOL).with_args("{}")),
                ErrorCode::InvalidArgs,
            ),
            (
                "execute_tool with null extras".into(),
                self.call(&Request::new(wire::METHOD_EXECUTE_TOOL)),
                ErrorCode::InvalidArgs,
            ),
        ];
        let mut expectations = expectations;
        for name in &names {
            for (what, args) in [
                ("non-JSON args", "{not json"),
                ("non-object args", "[1,2]"),
                ("an unknown property", r#"{"cetp_conformance_unknown":1}"#),
            ] {
                expectations.push((
                    format!("`{name}` with {what}"),
                    self.execute(name, args),
                    ErrorCode::InvalidArgs,
                ));
            }
        }
        for (what, answer, expected) in expectations {
            audit.envelope(&what, &answer);
            if answer.error_code() != Some(expected) {
                audit.fail(format!("{what}: expected {expected}, got {answer}"));
            }
        }
        audit.finish()
    }

    /// Checks the provider against CETP v2 as an agent calling as this agent's caller (one the
    /// provider admits to every tool, as for [`Agent::check_conformance`]):
    /// negotiation and its limits, the provider info and tool list as the newest agent accepts
    /// them (names, scopes, all seven annotations with known values, high risk confirmed always),
    /// the common-field errors in order, `METHOD_NOT_FOUND`, `TOOL_NOT_FOUND`, `INVALID_ARGS`,
    /// sessions bound to the caller and to the host instance, approval (an app the provider does
    /// not know yet gets `AUTH_REQUIRED` with a `resolution` and a single-use `resume_token`, and
    /// resuming before the user answered is `USER_CANCELLED`), and every reply's
    /// `protocol_version`, echoed `request_id` and `retryable`.
    ///
    /// ```
    /// use cetp_provider::testing::Agent;
    /// use cetp_provider::{Caller, Provider, auth::Auth, tool, tools};
    ///
    /// /// Adds two integers.
    /// #[tool]
    /// fn add(
    ///     /// The first addend.
    ///     a: i64,
    ///     /// The second addend.
    ///     b: i64,
    /// ) -> i64 { a + b }
    ///
    /// let provider = Provider::builder("Calc").tools(tools![add]).auth(Auth::open()).build().unwrap();
    /// Agent::new(&provider)
    ///     .as_caller(Caller::app(10_001, "com.example.agent"))
    ///     .check_v2_conformance()
    ///     .unwrap();
    /// ```
    ///
    /// # Errors
    /// [`ConformanceError`] listing every violation.
    pub fn check_v2_conformance(&self) -> Result<(), ConformanceError> {
        cetp_v2::check_v2(self.provider, &self.caller)
    }

    /// Checks a CETP v2 large result as ClawSeed's client reads one: `tool` called with `args`
    /// (a call whose result is over the 256 KiB a reply carries) answers, in a session that
    /// negotiated `large_results`, `{"kind":"file"}` with `media_type` JSON, `size_bytes` and
    /// `sha256`, and a `result_fd` that is read-only, read once, and holds exactly that many
    /// bytes with that digest; in a session that did not, `RESULT_TOO_LARGE` and no descriptor.
    ///
    /// # Errors
    /// [`ConformanceError`] listing every violation.
    ///
    /// ```
    /// use cetp_provider::testing::Agent;
    /// use cetp_provider::{Caller, Provider, auth::Auth, tool, tools};
    ///
    /// /// Lists `n` numbers.
    /// #[tool]
    /// fn numbers(
    ///     /// How many.
    ///     n: u32,
    /// ) -> Vec<u32> { (0..n).collect() }
    ///
    /// let provider = Provider::builder("Count").tools(tools![numbers]).auth(Auth::open()).build().unwrap();
    /// let value = Agent::new(&provider)
    ///     .as_caller(Caller::app(10_001, "com.example.agent"))
    ///     .check_v2_large_result("numbers", r#"{"n":100000}"#)
    ///     .unwrap();
    /// assert_eq!(value.as_array().map(Vec::len), Some(100_000));
    /// ```
    pub fn check_v2_large_result(
        &self,
        tool: &str,
        args: &str,
    ) -> Result<serde_json::Value, ConformanceError> {
        cetp_v2::check_large_result(self.provider, &self.caller, tool, args)
    }

    /// Checks a long-running tool (`#[tool(long_running)]`) as a CETP v2 agent that negotiated
    /// `async_operations` and `cancellation` sees it, calling `tool` with `args` as this agent: the
    /// provider offers both capabilities; in a session without them the tool is listed `sync`,
    /// never answered `accepted`, and `get_operation` / `cancel_operation` are
    /// `UNSUPPORTED_CAPABILITY`; in a session with them it is listed `sync_or_async`, an
    /// `accepted` names an operation and a `poll_after_ms` within 100 ms to 10 s, the operation
    /// goes through `queued`/`running` (progress never past its total) to `succeeded` with an
    /// inline `result` (or `failed` with a known code), another app asking for it gets the answer
    /// for an id never issued, and a cancellation acknowledged always ends `cancelled`. Operations
    /// run on threads of their own, so the agent's provider is given again, shared (`shared`). An inline answer (the tool
    /// finished within the window) is accepted as it is.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use cetp_provider::testing::Agent;
    /// use cetp_provider::{Caller, Provider, auth::Auth, tool, tools};
    ///
    /// /// Counts to a number.
    /// #[tool(long_running)]
    /// fn count_to(
    ///     /// Where to stop.
    ///     n: u32,
    /// ) -> u32 { n }
    ///
    /// let provider = Arc::new(
    ///     Provider::builder("Counter").tools(tools![count_to]).auth(Auth::open()).build().unwrap(),
    /// );
    /// let agent = Agent::new(&provider).as_caller(Caller::app(10_001, "com.example.agent"));
    /// agent.check_v2_operations(&provider, "count_to", r#"{"n":3}"#).unwrap();
    /// assert!(agent.check_v2_operations(&provider, "no_such_tool", "{}").is_err());
    /// ```
    ///
    /// # Errors
    /// [`ConformanceError`] listing every violation.
    pub fn check_v2_operations(
        &self,
        shared: &std::sync::Arc<Provider>,
        tool: &str,
        args: &str,
    ) -> Result<(), ConformanceError> {
        if !std::ptr::eq(&**shared, self.provider) {
            return Err(ConformanceError(vec![
                "check_v2_operations: `shared` must be the agent's own provider, in an `Arc`"
                    .to_owned(),
            ]));
        }
        cetp_v2_operations::check(shared, &self.caller, tool, args)
    }

    /// `list_tools`.
    pub fn list_tools(&self) -> Response {
        self.call(&Request::list_tools())
    }

    /// `get_provider_info`.
    pub fn provider_info(&self) -> Response {
        self.call(&Request::provider_info())
    }

    /// `execute_tool` with `args` as JSON text.
    pub fn execute(&self, tool: &str, args: &str) -> Response {
        self.call(&Request::execute(tool, args))
    }

    /// Any request.
    pub fn call(&self, request: &Request<'_>) -> Response {
        CetpV1Host::new(self.provider).call(request, &self.caller)
    }
}

/// Arguments no `#[tool]` schema accepts (an unknown property): a call with them is refused or
/// answered `INVALID_ARGS` before any tool body runs.
const NEVER_VALID_ARGS: &str = r#"{"cetp_conformance_unknown":1}"#;

/// [`Agent::approve`] could not approve the agent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ApprovalError(String);

/// The CETP v1 rules a provider broke, one line each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("provider is not CETP v1 conformant:\n- {}", .0.join("\n- "))]
pub struct ConformanceError(pub Vec<String>);

/// What [`check_conformance`] found besides violations: the tools it audited, each with the
/// `parameters` `list_tools` served.
///
/// What CETP allows but some LLM API would not (each tool's `parameters` against every API's
/// rules) is the tooling crate `cetp-schema-report`'s to say (its `ConformanceExt`): those
/// findings are warnings, because agents and gateways adapt schemas per model.
///
/// ```
/// use cetp_provider::testing::check_conformance;
/// use cetp_provider::{Provider, tool, tools};
///
/// /// Counts to `n`.
/// #[tool]
/// fn count(
///     /// Where to stop.
///     #[schemars(range(max = 10))]
///     n: u8,
/// ) -> Vec<u8> {
///     (1..=n).collect()
/// }
///
/// let provider = Provider::builder("Counter")
///     .tools(tools![count])
///     .auth(cetp_provider::auth::Auth::open())
///     .build()
///     .unwrap();
/// let conformance = check_conformance(&provider).unwrap();
/// assert_eq!(conformance.tools().map(|(name, _)| name).collect::<Vec<_>>(), ["count"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conformance {
    tools: Vec<(String, Value)>,
}

impl Conformance {
    /// The audited tools as `(name, parameters)`, in `list_tools` order.
    pub fn tools(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.tools
            .iter()
            .map(|(name, params)| (name.as_str(), params))
    }
}

/// Audits `provider` against CETP v1, calling as the default [`Agent`]
/// (`com.example.consumer`, UID 10 001, certificate [`Agent::CERTIFICATE_SHA256`]).
///
/// Checks the envelope of every answer (`status`, `data` a JSON string, known error codes with
/// messages), the `list_tools` and `get_provider_info` shapes, tool names (valid and unique),
/// that every `parameters` is an object schema with `properties` and no `$ref`, and the error
/// codes for an unknown method, an unknown tool, a missing `tool_name`, non-JSON, non-object and
/// unknown-property arguments. No tool body runs: every `execute_tool` it sends is refused
/// before the tool would run.
///
/// # What it does to the provider's grants
///
/// Under user approval (the default policy) those probes need an approved caller. So when a
/// probe answers `AUTH_REQUIRED`, the check approves its own agent first, exactly as
/// [`Agent::approve`] with [`AccessLevel::Full`] does: it calls each tool once (refused,
/// which records a pending request), then approves that request with every scope the tools
/// need, full access and no expiry. The grant is saved in the provider's grant store (in
/// memory for a provider given no app or store directory) and stays there after the check,
/// pinned to [`Agent::CERTIFICATE_SHA256`]. Nothing is approved when the probes are not
/// refused (an open policy, an already approved agent), and nothing else in the store
/// changes. A provider that does not admit the agent (an allowlist, a denial) fails the
/// check with a line saying so; use [`Agent::check_conformance`] with a caller it admits.
///
/// On success it returns the audited tools ([`Conformance`]).
///
/// ```
/// use cetp_provider::testing::{Agent, check_conformance};
/// use cetp_provider::{App, Caller, ErrorCode, Provider, tool, tools};
///
/// /// Counts the user's notes.
/// #[tool(scopes = ["notes.read"])]
/// fn count_notes() -> u32 { 3 }
///
/// let files = tempfile::tempdir().unwrap();
/// let provider = Provider::builder("Notes")
///     .scope("notes.read", "your notes")
///     .tools(tools![count_notes])
///     .app(App::new("com.example.notes", files.path())) // user approval, grants stored here
///     .build()
///     .unwrap();
/// check_conformance(&provider).unwrap();
/// // The check's own agent is now approved, and nobody else.
/// assert!(Agent::new(&provider).execute("count_notes", "{}").is_success());
/// let other = Agent::new(&provider).as_caller(Caller::app(10_001, "com.example.other"));
/// assert_eq!(other.execute("count_notes", "{}").error_code(), Some(ErrorCode::AuthRequired));
/// ```
///
/// # Errors
/// [`ConformanceError`] listing every violation.
pub fn check_conformance(provider: &Provider) -> Result<Conformance, ConformanceError> {
    let agent = Agent::new(provider);
    let codes: Vec<Option<ErrorCode>> = provider
        .tools()
        .iter()
        .map(|tool| agent.execute(&tool.name, NEVER_VALID_ARGS).error_code())
        .collect();
    if codes.contains(&Some(ErrorCode::AuthRequired)) {
        if let Err(why) = agent.approve(AccessLevel::Full) {
            return Err(ConformanceError(vec![format!(
                "the provider asks for the user's approval (`AUTH_REQUIRED`) but its agent \
                 could not be approved: {why}; use `Agent::check_conformance` with a caller it admits"
            )]));
        }
    }
    agent.check_conformance()
}

#[derive(Default)]
struct Audit {
    violations: Vec<String>,
    tools: Vec<(String, Value)>,
}

impl Audit {
    fn fail(&mut self, violation: impl Into<String>) {
        self.violations.push(violation.into());
    }

    fn envelope(&mut self, what: &str, answer: &Response) {
        for (key, _) in answer.to_pairs() {
            if !wire::RESPONSE_KEYS.contains(&key) {
                self.fail(format!("{what}: unexpected key `{key}`"));
            }
        }
        match answer.get(wire::KEY_STATUS) {
            Some(wire::STATUS_SUCCESS) => {
                if answer.get(wire::KEY_ERROR_CODE).is_some() {
                    self.fail(format!("{what}: success carries an `error_code`"));
                }
            }
            Some(wire::STATUS_ERROR) => {
                if answer.error_code().is_none() {
                    self.fail(format!("{what}: error without a CETP v1 `error_code`"));
                }
                if answer.error_message().is_none_or(str::is_empty) {
                    self.fail(format!("{what}: error without an `error_message`"));
                }
                if answer.get(wire::KEY_DATA).is_some() {
                    self.fail(format!("{what}: error carries `data`"));
                }
            }
            other => self.fail(format!("{what}: bad `status` {other:?}")),
        }
    }

    fn success(&mut self, what: &str, answer: &Response) -> Option<Value> {
        self.envelope(what, answer);
        match answer.data_json() {
            Ok(data) if data.is_object() => Some(data),
            Ok(data) => {
                self.fail(format!("{what}: `data` is {data}, not a JSON object"));
                None
            }
            Err(e) => {
                self.fail(format!("{what}: {e}"));
                None
            }
        }
    }

    fn tool(&mut self, tool: &Value, names: &mut Vec<String>) {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            self.fail(format!(
                "list_tools: a tool without a string `name`: {tool}"
            ));
            return;
        };
        if !is_valid_tool_name(name) {
            self.fail(format!(
                "list_tools: tool name `{name}` does not match [a-z][a-z0-9_]{{0,63}}"
            ));
        }
        if names.iter().any(|n| n == name) {
            self.fail(format!("list_tools: tool name `{name}` appears twice"));
        }
        names.push(name.to_owned());
        if tool
            .get("description")
            .and_then(Value::as_str)
            .is_none_or(|d| d.trim().is_empty())
        {
            self.fail(format!("list_tools: `{name}` has no description"));
        }
        match tool.get("parameters") {
            Some(params) if params.is_object() => {
                if params.get("type") != Some(&Value::from("object")) {
                    self.fail(format!(
                        "list_tools: `{name}` parameters are not `type: object`"
                    ));
                }
                if !params.get("properties").is_some_and(Value::is_object) {
                    self.fail(format!("list_tools: `{name}` parameters lack `properties`"));
                }
                if params.to_string().contains("\"$ref\"") {
                    self.fail(format!("list_tools: `{name}` parameters use `$ref`"));
                }
                self.tools.push((name.to_owned(), params.clone()));
            }
            _ => self.fail(format!("list_tools: `{name}` parameters are not an object")),
        }
    }

    fn finish(self) -> Result<Conformance, ConformanceError> {
        if self.violations.is_empty() {
            Ok(Conformance { tools: self.tools })
        } else {
            Err(ConformanceError(self.violations))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{App, tool, tools};

    /// Counts the user's notes.
    #[tool(scopes = ["notes.read"])]
    fn count_notes() -> u32 {
        3
    }

    fn notes(app: Option<App>) -> Provider {
        let builder = Provider::builder("Notes")
            .scope("notes.read", "your notes")
            .tools(tools![count_notes]);
        match app {
            Some(app) => builder.app(app),
            None => builder,
        }
        .build()
        .unwrap()
    }

    #[test]
    fn conformance_passes_under_user_approval_by_approving_its_own_agent() {
        let dir = tempfile::tempdir().unwrap();
        let provider = notes(Some(App::new("com.example.notes", dir.path())));
        let stranger = Caller::app(10_002, "com.example.other").with_certificate("ab".repeat(32));
        check_conformance(&provider).unwrap();
        let grants = provider.authorizer().grants();
        assert_eq!(grants.len(), 1, "{grants:?}");
        assert_eq!(grants[0].package, "com.example.consumer");
        assert_eq!(
            grants[0].certificate_sha256.as_deref(),
            Some(Agent::CERTIFICATE_SHA256)
        );
        assert!(provider.authorizer().pending().is_empty());
        // Nobody else was let in.
        let other = Agent::new(&provider).as_caller(stranger);
        assert_eq!(
            other.execute("count_notes", "{}").error_code(),
            Some(ErrorCode::AuthRequired)
        );
        // A second check finds its agent approved and changes nothing.
        check_conformance(&provider).unwrap();
        assert_eq!(provider.authorizer().grants(), grants);
    }

    #[test]
    fn v2_conformance_holds_under_gated_discovery() {
        let open = Provider::builder("Open")
            .scope("notes.read", "your notes")
            .tools(tools![count_notes])
            .auth(crate::auth::Auth::open().gate_discovery(true))
            .build()
            .unwrap();
        Agent::new(&open).check_v2_conformance().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let gated = Provider::builder("Notes")
            .scope("notes.read", "your notes")
            .tools(tools![count_notes])
            .app(App::new("com.example.notes", dir.path()))
            .auth(crate::auth::Auth::user_approval().gate_discovery(true))
            .build()
            .unwrap();
        let agent = Agent::new(&gated);
        agent.approve(AccessLevel::Full).unwrap();
        agent.check_v2_conformance().unwrap();
    }

    #[test]
    fn approving_an_agent_approved_already_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let provider = notes(Some(App::new("com.example.notes", dir.path())));
        check_conformance(&provider).unwrap();
        let why = Agent::new(&provider)
            .approve(AccessLevel::Full)
            .unwrap_err()
            .to_string();
        assert!(why.contains("is approved already"), "{why}");
        assert!(!why.contains("no pending request"), "{why}");
        // A new agent still has nothing pending until it asks.
        let other = Agent::new(&provider).as_caller(Caller::app(10_002, "com.example.other"));
        let why = other
            .approve_pending(AccessLevel::Full)
            .unwrap_err()
            .to_string();
        assert!(why.contains("no pending request"), "{why}");
    }

    #[test]
    fn conformance_passes_without_an_app_too() {
        // No app, no store directory: the approval is kept in memory for the provider's life.
        let provider = notes(None);
        check_conformance(&provider).unwrap();
        assert!(provider.authorizer().store_path().is_none());
        assert_eq!(provider.authorizer().grants().len(), 1);
    }
}
