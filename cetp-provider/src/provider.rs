//! [`Provider`]: built once from tools and settings, then answers every CETP call.

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use crate::apex::{Apex, ApexState, Connections};
use crate::app::App;
use crate::auth::{Auth, Authorizer, Need};
use crate::context::{CallContext, Caller};
use crate::error::{ToolError, panic_text, provider_bug};
use crate::log_text::Escaped;
use crate::request::Request;
use crate::schema::{self, OutputCheck, SchemaError};
use crate::state::{StateType, States};
use crate::tool::{Tool, ToolDescriptor, is_valid_tool_name};
use crate::validate::ArgsValidator;
use crate::wire::{self, Response};
use crate::wire_size;

/// The longest `request_id` accepted, in characters.
const MAX_REQUEST_ID_CHARS: usize = 128;
/// The longest method name considered, in characters (CETP v1's are far shorter).
const MAX_METHOD_CHARS: usize = 64;

/// Size limits enforced on every call, in **wire bytes**: what crosses Binder, where the
/// Bundle's keys and string values travel as UTF-16 (two bytes per UTF-16 code unit, so an
/// ASCII text of `n` bytes is `2n` wire bytes). Besides these, `error_message` is capped at
/// 2,048 and `resolution_hint` at 512 UTF-16 code units (cut, ending in `…`), `request_id` at
/// 128 characters.
///
/// ```
/// use cetp_provider::Limits;
/// let limits = Limits::default();
/// assert_eq!(limits.max_args_bytes, 64 * 1024);
/// assert_eq!(limits.max_result_bytes, 256 * 1024);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest accepted `args` text, in wire bytes (UTF-16; default 64 KiB).
    pub max_args_bytes: usize,
    /// Largest reply a call may return, in wire bytes: every key and string value of the reply
    /// Bundle as UTF-16 (default 256 KiB, about 128 Ki ASCII characters of `data`). Binder's
    /// transaction buffer is 1 MiB per process, shared by all calls in flight, so a reply far
    /// below that keeps concurrent calls from failing silently.
    pub max_result_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_args_bytes: 64 * 1024,
            max_result_bytes: 256 * 1024,
        }
    }
}

type RunFn = dyn Fn(Value, &CallContext) -> Result<String, ToolError> + Send + Sync;

/// A tool with its type erased, ready to be added to a [`ProviderBuilder`].
///
/// Made by [`tools!`](crate::tools) from `#[tool]` functions, or with [`AnyTool::new`] from a
/// hand-written [`Tool`].
pub struct AnyTool {
    name: &'static str,
    description: &'static str,
    scopes: &'static [&'static str],
    states: Vec<StateType>,
    schema: fn() -> Result<Value, SchemaError>,
    output_schema: fn() -> Option<Result<Value, SchemaError>>,
    describe: fn(Value, Option<Value>) -> ToolDescriptor,
    run: Box<RunFn>,
}

impl AnyTool {
    /// Erases a [`Tool`].
    ///
    /// ```
    /// use cetp_provider::{AnyTool, tool};
    ///
    /// /// Returns the answer.
    /// #[tool]
    /// fn answer() -> u32 { 42 }
    ///
    /// let erased = AnyTool::new(answer {});
    /// assert_eq!(erased.name(), "answer");
    /// ```
    pub fn new<T: Tool>(tool: T) -> Self {
        AnyTool {
            name: T::NAME,
            description: T::DESCRIPTION,
            scopes: T::SCOPES,
            states: T::state_types(),
            schema: schema::parameters_schema::<T::Args>,
            output_schema: T::output_schema,
            describe: ToolDescriptor::new::<T>,
            run: Box::new(move |args, ctx| {
                let args: T::Args = serde_json::from_value(args).map_err(|e| {
                    ToolError::invalid_args(format!("invalid arguments for `{}`: {e}", T::NAME))
                })?;
                let output = tool.call(args, ctx)?;
                serde_json::to_string(&output).map_err(|e| {
                    ToolError::internal(format!(
                        "the result of `{}` could not be encoded as JSON: {e}",
                        T::NAME
                    ))
                })
            }),
        }
    }

    /// The tool name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl std::fmt::Debug for AnyTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnyTool").field("name", &self.name).finish()
    }
}

/// Why a provider could not be built. Every case is a programming error in the app, reported
/// once at start-up instead of at call time.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Two tools share a name.
    #[error("two tools are named `{0}`; tool names must be unique within a provider")]
    DuplicateTool(String),
    /// A tool name does not match `[a-z][a-z0-9_]{{0,63}}`.
    #[error(
        "tool name `{0}` is invalid: use 1 to 64 characters of lower-case ASCII letters, digits and `_`, starting with a letter"
    )]
    InvalidToolName(String),
    /// A tool's description is empty.
    #[error(
        "tool `{0}` has no description; the model relies on it to decide when to call the tool"
    )]
    MissingDescription(String),
    /// A tool's argument schema could not be generated.
    #[error("tool `{tool}`: {source}")]
    Schema {
        /// The tool.
        tool: String,
        /// What went wrong.
        #[source]
        source: SchemaError,
    },
    /// A tool needs a scope the provider does not declare.
    #[error(
        "tool `{tool}` needs scope `{scope}`, which the provider does not declare; add `.scope(\"{scope}\", \"…\")`"
    )]
    UnknownScope {
        /// The tool.
        tool: String,
        /// The undeclared scope.
        scope: String,
    },
    /// A scope is declared twice or its name is malformed.
    #[error(
        "scope `{0}` is declared twice or malformed: a scope starts with an ASCII letter and contains only ASCII letters, digits, `.`, `_`, `-` and `:` (at most 128 characters), e.g. `notes.read`"
    )]
    BadScope(String),
    /// A tool borrows a state type no [`ProviderBuilder::state`] call gave.
    #[error(
        "tool `{tool}` borrows state of type `{state}`, which the provider was not given; add `.state(…)` with a `{state}` to the builder"
    )]
    MissingState {
        /// The tool.
        tool: String,
        /// The state type's name.
        state: &'static str,
    },
    /// [`ProviderBuilder::state`] was given two values of one type.
    #[error(
        "the provider was given two states of type `{0}`; tools find state by its type, so give one value per type (wrap values in distinct types if you need two)"
    )]
    DuplicateState(&'static str),
    /// The provider name is empty.
    #[error("the provider name is empty")]
    EmptyName,
    /// The authorization settings ([`ProviderBuilder::auth`]) are inconsistent, or the grant
    /// store given with [`Auth::store_dir`] cannot be opened.
    #[error("authorization: {0}")]
    Auth(String),
    /// The Apex plugin settings ([`ProviderBuilder::apex`]) are invalid.
    #[error("Apex plugin: {0}")]
    Apex(String),
}

/// Declares a [`Provider`]: its name, description, scopes, tools, state and limits.
#[derive(Debug)]
#[must_use]
pub struct ProviderBuilder {
    name: String,
    description: String,
    scopes: Vec<(String, String)>,
    tools: Vec<AnyTool>,
    limits: Limits,
    auth: Auth,
    full_access_only: bool,
    apex: Apex,
    app: Option<App>,
    states: States,
    duplicate_state: Option<&'static str>,
    restate_constraints: bool,
}

impl ProviderBuilder {
    /// [`ProviderBuilder::apex`], defined with the rest of the Apex view in `apex.rs`.
    pub(crate) fn with_apex(mut self, apex: Apex) -> Self {
        self.apex = apex;
        self
    }

    /// The description `get_provider_info` returns.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Declares a data scope that tools can require and users grant.
    pub fn scope(mut self, name: impl Into<String>, description: impl Into<String>) -> Self {
        self.scopes.push((name.into(), description.into()));
        self
    }

    /// Adds one tool.
    pub fn tool<T: Tool>(mut self, tool: T) -> Self {
        self.tools.push(AnyTool::new(tool));
        self
    }

    /// Adds tools, usually from [`tools!`](crate::tools).
    pub fn tools(mut self, tools: impl IntoIterator<Item = AnyTool>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Gives the tools a value to borrow: a database pool, a client, settings. A `#[tool]`
    /// function receives it through a `&T` parameter (any reference parameter other than
    /// `&CallContext`); hand-written tools call [`CallContext::state`]. One value per type;
    /// [`build`](Self::build) fails if a tool borrows a type no call gave.
    ///
    /// Tools run on many Binder threads at once, so `T` is `Send + Sync`: keep what changes
    /// behind a `Mutex` or use a pool, as the notes sample does with its SQLite connections.
    ///
    /// ```
    /// use cetp_provider::{Provider, tool, tools};
    ///
    /// struct Greeting {
    ///     word: String,
    /// }
    ///
    /// /// Greets someone with the app's greeting.
    /// #[tool]
    /// fn greet(
    ///     /// Who to greet.
    ///     name: String,
    ///     greeting: &Greeting,
    /// ) -> String {
    ///     format!("{}, {name}!", greeting.word)
    /// }
    ///
    /// let provider = Provider::builder("Greeter")
    ///     .tools(tools![greet])
    ///     .state(Greeting { word: "Hello".into() })
    ///     .auth(cetp_provider::auth::Auth::open())
    ///     .build()
    ///     .unwrap();
    /// let consumer = cetp_provider::testing::Consumer::new(&provider);
    /// assert_eq!(consumer.execute("greet", r#"{"name":"Ada"}"#).data_json().unwrap(), "Hello, Ada!");
    ///
    /// // Without the state, the provider does not build.
    /// let missing = Provider::builder("Greeter").tools(tools![greet]).build().unwrap_err();
    /// assert!(missing.to_string().contains("`greet` borrows state of type"));
    /// ```
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        if self.states.insert(value).is_err() {
            self.duplicate_state
                .get_or_insert(std::any::type_name::<T>());
        }
        self
    }

    /// The app the provider runs in: its grant store opens under [`App::no_backup_dir`] when
    /// the provider is built (unless [`Auth::store_dir`] names another directory), and the default
    /// `authorize_intent` is derived from [`App::package_name`]. On Android the runtime behind
    /// `export_provider!` (feature `jni`) sets it; host tests set it themselves.
    ///
    /// ```
    /// use cetp_provider::{App, Provider};
    /// let files = tempfile::tempdir().unwrap();
    /// let provider = Provider::builder("Notes")
    ///     .app(App::new("com.example.notes", files.path()))
    ///     .build()
    ///     .unwrap();
    /// assert!(provider.authorizer().store_path().is_some());
    /// assert_eq!(provider.app().map(App::package_name), Some("com.example.notes"));
    /// ```
    pub fn app(mut self, app: App) -> Self {
        self.app = Some(app);
        self
    }

    /// Replaces the size limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the largest accepted `args` text in bytes.
    pub fn max_args_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_args_bytes = bytes;
        self
    }

    /// Sets the largest `data` a call may return in bytes.
    pub fn max_result_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_result_bytes = bytes;
        self
    }

    /// Sets who may call and what they see (default [`Auth::user_approval`]); see
    /// [`crate::auth`].
    ///
    /// ```
    /// use cetp_provider::{Provider, auth::Auth};
    /// let provider = Provider::builder("Public data").auth(Auth::open()).build().unwrap();
    /// # let _ = provider;
    /// ```
    pub fn auth(mut self, auth: Auth) -> Self {
        self.auth = auth;
        self
    }

    /// Declares that no tool hides anything from limited callers, so the approval
    /// screen does not offer the choice between full and limited access. For providers whose
    /// tools ignore [`CallContext::access`](crate::CallContext::access).
    ///
    /// ```
    /// use cetp_provider::Provider;
    /// let provider = Provider::builder("Greeter").full_access_only().build().unwrap();
    /// assert!(!provider.authorizer().state().offers_limited_access);
    /// ```
    pub fn full_access_only(mut self) -> Self {
        self.full_access_only = true;
        self
    }

    /// Whether a constraint some LLM APIs or gateways drop is also written into the property's
    /// description, in short words: `1 to 50`, `at most 200 characters`, `a date,
    /// YYYY-MM-DD`, `pattern ^[a-z]+$`, `1 to 9 items` (default `true`).
    ///
    /// The default is on because the keywords do not reach every model: Anthropic's strict
    /// mode rejects numeric and length bounds (its SDKs move them into the description), Gemini
    /// knows no `format` beyond `date-time` and no non-string `enum`, and gateways such as
    /// ClawSeed's strip `minimum`, `maxLength`, `pattern`, `format` and the like before a Gemini
    /// model sees the schema. The provider still enforces every keyword. A description that
    /// already states a constraint (`1 to 50`, `YYYY-MM-DD`, …) is left as written.
    ///
    /// ```
    /// use cetp_provider::{Provider, tool, tools};
    ///
    /// /// Lists the newest notes.
    /// #[tool]
    /// fn recent(
    ///     /// How many notes to return.
    ///     #[schemars(range(min = 1, max = 50))]
    ///     limit: u32,
    /// ) -> Vec<String> { vec![String::new(); limit as usize] }
    ///
    /// let provider = Provider::builder("Notes").tools(tools![recent]).build().unwrap();
    /// let limit = &provider.tools()[0].parameters["properties"]["limit"];
    /// assert_eq!(limit["description"], "How many notes to return. 1 to 50.");
    ///
    /// let plain = Provider::builder("Notes").tools(tools![recent]).restate_constraints(false);
    /// let plain = plain.build().unwrap();
    /// let limit = &plain.tools()[0].parameters["properties"]["limit"];
    /// assert_eq!(limit["description"], "How many notes to return.");
    /// ```
    pub fn restate_constraints(mut self, restate: bool) -> Self {
        self.restate_constraints = restate;
        self
    }

    /// Checks the declaration, generates every schema and builds the provider.
    ///
    /// ```
    /// use cetp_provider::{BuildError, Provider, tool, tools};
    ///
    /// /// Counts to three.
    /// #[tool]
    /// fn count() -> [u8; 3] { [1, 2, 3] }
    ///
    /// let twice = Provider::builder("Counter").tools(tools![count, count]).build();
    /// assert!(matches!(twice, Err(BuildError::DuplicateTool(name)) if name == "count"));
    /// ```
    pub fn build(self) -> Result<Provider, BuildError> {
        if self.name.trim().is_empty() {
            return Err(BuildError::EmptyName);
        }
        if let Some(state) = self.duplicate_state {
            return Err(BuildError::DuplicateState(state));
        }
        let mut declared = HashSet::new();
        for (scope, _) in &self.scopes {
            if !is_valid_scope(scope) || !declared.insert(scope.as_str()) {
                return Err(BuildError::BadScope(scope.clone()));
            }
        }
        let mut entries = HashMap::with_capacity(self.tools.len());
        let mut descriptors = Vec::with_capacity(self.tools.len());
        for tool in self.tools {
            if !is_valid_tool_name(tool.name) {
                return Err(BuildError::InvalidToolName(tool.name.to_owned()));
            }
            if tool.description.trim().is_empty() {
                return Err(BuildError::MissingDescription(tool.name.to_owned()));
            }
            if let Some(scope) = tool.scopes.iter().find(|s| !declared.contains(**s)) {
                return Err(BuildError::UnknownScope {
                    tool: tool.name.to_owned(),
                    scope: (*scope).to_owned(),
                });
            }
            if let Some(state) = tool.states.iter().find(|s| !self.states.contains(**s)) {
                return Err(BuildError::MissingState {
                    tool: tool.name.to_owned(),
                    state: state.name(),
                });
            }
            let parameters = (tool.schema)().map_err(|source| BuildError::Schema {
                tool: tool.name.to_owned(),
                source,
            })?;
            let parameters = schema::restate_constraints(parameters, self.restate_constraints);
            let validator = ArgsValidator::new(&parameters).map_err(|e| BuildError::Schema {
                tool: tool.name.to_owned(),
                source: SchemaError::Invalid(e),
            })?;
            let schema_error = |source| BuildError::Schema {
                tool: tool.name.to_owned(),
                source,
            };
            let output_schema = (tool.output_schema)().transpose().map_err(schema_error)?;
            let output = OutputCheck::new(output_schema.as_ref()).map_err(schema_error)?;
            let descriptor = (tool.describe)(parameters, output_schema);
            if entries.contains_key(tool.name) {
                return Err(BuildError::DuplicateTool(tool.name.to_owned()));
            }
            descriptors.push(descriptor);
            entries.insert(
                tool.name,
                Entry {
                    validator,
                    output,
                    run: tool.run,
                    scopes: tool.scopes.iter().map(|s| (*s).to_owned()).collect(),
                },
            );
        }
        self.apex.check(&descriptors)?;
        let mut auth = Authorizer::new(
            self.auth,
            &self.name,
            &self.scopes,
            &descriptors,
            self.app.as_ref(),
        )
        .map_err(BuildError::Auth)?;
        auth.offers_limited_access = !self.full_access_only;
        let list_tools_json = json!({ "tools": descriptors }).to_string();
        let scopes_json: Vec<Value> = self
            .scopes
            .iter()
            .map(|(name, description)| json!({"name": name, "description": description}))
            .collect();
        let info_json = json!({
            "provider_name": self.name,
            "description": self.description,
            "scopes": scopes_json,
        })
        .to_string();
        Ok(Provider {
            name: self.name,
            description: self.description,
            apex: ApexState::new(self.apex),
            scopes: self.scopes,
            descriptors,
            entries,
            limits: self.limits,
            list_tools_json,
            info_json,
            reference: AtomicU64::new(1),
            auth,
            app: self.app,
            states: Arc::new(self.states),
        })
    }
}

struct Entry {
    validator: ArgsValidator,
    output: OutputCheck,
    run: Box<RunFn>,
    scopes: Vec<String>,
}

/// A CETP v1 tool provider: answers `list_tools`, `get_provider_info` and `execute_tool`.
///
/// Build it once (when the app starts on Android) and share it: [`Provider::call`] takes
/// `&self` and is safe to call from many Binder threads at once. It never panics: every
/// failure, including a panicking tool, becomes an error [`Response`].
///
/// ```
/// use cetp_provider::{Caller, ErrorCode, Provider, Request};
///
/// let provider = Provider::builder("Empty").build().unwrap();
/// let answer = provider.call(&Request::new("no_such_method"), &Caller::unknown());
/// assert_eq!(answer.error_code(), Some(ErrorCode::ToolNotFound));
/// let list = provider.call(&Request::list_tools(), &Caller::unknown());
/// assert_eq!(list.data(), Some(r#"{"tools":[]}"#));
/// ```
pub struct Provider {
    name: String,
    description: String,
    apex: ApexState,
    scopes: Vec<(String, String)>,
    descriptors: Vec<ToolDescriptor>,
    entries: HashMap<&'static str, Entry>,
    limits: Limits,
    list_tools_json: String,
    info_json: String,
    reference: AtomicU64,
    auth: Authorizer,
    app: Option<App>,
    states: Arc<States>,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("name", &self.name)
            .field("tools", &self.descriptors.len())
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Provider {
    /// Starts declaring a provider named `name` (the `provider_name` consumers show).
    pub fn builder(name: impl Into<String>) -> ProviderBuilder {
        ProviderBuilder {
            name: name.into(),
            description: String::new(),
            scopes: Vec::new(),
            tools: Vec::new(),
            limits: Limits::default(),
            auth: Auth::default(),
            full_access_only: false,
            apex: Apex::default(),
            app: None,
            states: States::default(),
            duplicate_state: None,
            restate_constraints: true,
        }
    }

    /// The provider name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The description `get_provider_info` returns.
    pub fn description(&self) -> &str {
        &self.description
    }

    pub(crate) fn apex_state(&self) -> &ApexState {
        &self.apex
    }

    pub(crate) fn connections(&self) -> &Connections {
        self.auth.connections()
    }

    /// The tools, in declaration order, as `list_tools` describes them.
    pub fn tools(&self) -> &[ToolDescriptor] {
        &self.descriptors
    }

    /// The declared scopes as `(name, description)` pairs.
    pub fn scopes(&self) -> &[(String, String)] {
        &self.scopes
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The authorization state: pending requests, grants, and the approval screen's operations.
    pub fn authorizer(&self) -> &Authorizer {
        &self.auth
    }

    /// The app given to [`ProviderBuilder::app`], if any.
    pub fn app(&self) -> Option<&App> {
        self.app.as_ref()
    }

    /// The approval screen's JSON interface; see [`Authorizer::handle_admin_json`].
    pub fn handle_admin_json(&self, request: &str) -> String {
        self.auth.handle_admin_json(request)
    }

    /// Answers one call: `request` as it arrived, from `caller` (who the platform says is
    /// calling). Every host (the Android bridge, host tests) calls this.
    pub fn call(&self, request: &Request<'_>, caller: &Caller) -> Response {
        let method = Escaped(request.method);
        let what = match request.tool_name {
            Some(tool) if request.method == wire::METHOD_EXECUTE_TOOL => printable(tool),
            _ => printable(request.method),
        };
        let response = match self.dispatch(request, caller) {
            Ok(data) => Response::Success(data),
            Err(err) => Response::Error(err),
        };
        match wire_size::fit(response, &what, self.limits.max_result_bytes) {
            Response::Success(data) => {
                let who = caller.describe();
                log::debug!("CETP `{method}` from {} -> success", Escaped(&who));
                Response::Success(data)
            }
            Response::Error(err) => {
                let (who, text) = (caller.describe(), err.to_string());
                log::info!(
                    "CETP `{method}` from {} -> {}",
                    Escaped(&who),
                    Escaped(&text)
                );
                Response::Error(err)
            }
        }
    }

    fn dispatch(&self, request: &Request<'_>, caller: &Caller) -> Result<String, ToolError> {
        match request.method {
            wire::METHOD_LIST_TOOLS => {
                self.auth.authorize(caller, Need::Discovery)?;
                Ok(self.list_tools_json.clone())
            }
            wire::METHOD_GET_PROVIDER_INFO => {
                self.auth.authorize(caller, Need::Discovery)?;
                Ok(self.info_json.clone())
            }
            wire::METHOD_EXECUTE_TOOL => self.execute(request, caller),
            other if other.chars().count() > MAX_METHOD_CHARS => {
                Err(ToolError::tool_not_found(format!(
                    "unknown method (a name of {} characters); this provider speaks CETP v1: `{}`, `{}`, `{}`",
                    other.chars().count(),
                    wire::METHOD_LIST_TOOLS,
                    wire::METHOD_EXECUTE_TOOL,
                    wire::METHOD_GET_PROVIDER_INFO
                )))
            }
            other => Err(ToolError::tool_not_found(format!(
                "unknown method `{}`; this provider speaks CETP v1: `{}`, `{}`, `{}`",
                printable(other),
                wire::METHOD_LIST_TOOLS,
                wire::METHOD_EXECUTE_TOOL,
                wire::METHOD_GET_PROVIDER_INFO
            ))),
        }
    }

    fn execute(&self, request: &Request<'_>, caller: &Caller) -> Result<String, ToolError> {
        // One authorization per call, before anything else: with gated discovery a stranger
        // learns nothing, not which tools exist, nor their scopes or parameters.
        let known = request
            .tool_name
            .and_then(|n| self.entries.get_key_value(n));
        let need = match known {
            Some((name, entry)) => Need::Tool {
                name,
                scopes: &entry.scopes,
            },
            None => Need::UnknownTool,
        };
        let decision = self.auth.authorize(caller, need)?;
        if let Some(id) = request
            .request_id
            .filter(|id| id.chars().count() > MAX_REQUEST_ID_CHARS)
        {
            return Err(ToolError::invalid_args(format!(
                "`{}` is {} characters long; send at most {MAX_REQUEST_ID_CHARS}",
                wire::EXTRA_REQUEST_ID,
                id.chars().count()
            )));
        }
        let name = request
            .tool_name
            .filter(|n| !n.trim().is_empty())
            .ok_or_else(|| {
                ToolError::invalid_args(format!(
                    "`execute_tool` needs the extra `{}` naming the tool to run",
                    wire::EXTRA_TOOL_NAME
                ))
            })?;
        let entry = self.entries.get(name).ok_or_else(|| {
            ToolError::tool_not_found(format!(
                "no tool named `{}`; call `{}` for the tools this provider offers",
                printable(name),
                wire::METHOD_LIST_TOOLS
            ))
        })?;
        let request_id = request.request_id;
        let args = request.args;
        if let Some(size) = args
            .map(wire_size::utf16_bytes)
            .filter(|size| *size > self.limits.max_args_bytes)
        {
            return Err(entry.validator.invalid(
                name,
                &format!(
                    "`args` is {size} bytes on the wire (UTF-16), over the limit of {} bytes; send shorter values",
                    self.limits.max_args_bytes
                ),
            ));
        }
        let value = entry.validator.check(name, args)?;
        self.auth.record_read(name, &decision);
        let mut ctx = CallContext::new(caller.clone())
            .with_access(decision.access())
            .with_tool(name, &self.states);
        if let Some(id) = request_id {
            ctx = ctx.with_request_id(id);
        }
        // The one panic boundary around app code: the tool body (and its arguments' and
        // result's serde impls).
        match catch_unwind(AssertUnwindSafe(|| (entry.run)(value, &ctx))) {
            Ok(result) => entry.output.check(name, result?),
            Err(payload) => {
                let reference = self.next_reference();
                log::error!(
                    "tool `{name}` panicked (request {}, ref {reference}, {}): {}",
                    Escaped(request_id.unwrap_or("-")),
                    Escaped(&caller.describe()),
                    Escaped(panic_text(&*payload))
                );
                Err(internal_failure(name, request_id, reference))
            }
        }
    }

    fn next_reference(&self) -> u64 {
        self.reference.fetch_add(1, Ordering::Relaxed)
    }
}

fn internal_failure(what: &str, request_id: Option<&str>, reference: u64) -> ToolError {
    let id = match request_id {
        Some(id) => format!("request {}, ", printable(id)),
        None => String::new(),
    };
    provider_bug(format_args!(
        "`{what}` failed unexpectedly inside the provider app ({id}ref {reference})"
    ))
}

/// `[A-Za-z][A-Za-z0-9._:-]*`, at most 128 characters: the rule `#[tool(scopes = …)]` enforces.
fn is_valid_scope(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 128
        && bytes[0].is_ascii_alphabetic()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b".-_:".contains(b))
}

/// Caller-supplied text echoed in a message: at most 80 characters, control characters escaped.
fn printable(text: &str) -> String {
    let mut out: String = text.chars().take(80).flat_map(char::escape_debug).collect();
    if text.chars().nth(80).is_some() {
        out.push('…');
    }
    out
}
