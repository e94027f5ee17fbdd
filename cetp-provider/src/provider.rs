//! [`Provider`]: built once from the app's declaration, then the one core every host calls.
//!
//! A host (the CETP ContentProvider, the Apex plugin Service, a test) turns what arrives into
//! three calls on the provider, and nothing else decides anything:
//!
//! - [`Provider::authorize`] for a [`Need`]: may this caller discover the provider?
//! - [`Provider::tool`]: the tool a name refers to, looked up once;
//! - [`Provider::execute`]: one [`ToolCall`] of a looked-up tool (or of a name that is none),
//!   from the call's admission to the reply: the calls the caller has in flight, authorization
//!   (once), the size limits, argument validation, the tool inside its panic boundary and its
//!   deadline, the output check, the wire-size limit of the reply, the log line.

use std::any::TypeId;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::app::App;
pub use crate::auth::Need;
use crate::auth::{Auth, Authorizer};
use crate::caller::Caller;
use crate::context::{AccessLevel, CallContext, Deadline};
use crate::descriptor::{ToolDescriptor, ToolFacts};
use crate::error::{ToolError, provider_bug};
use crate::limits::{InFlight, Limits, Slot};
use crate::localized::Localized;
use crate::log_text::{Escaped, printable};
use crate::schema::{self, OutputCheck, SchemaError};
use crate::signals::CallSignals;
use crate::state::StateType;
use crate::tool::{MAX_TOOL_NAME_BYTES, Tool, is_valid_tool_name};
use crate::type_map::TypeMap;
use crate::validate::ArgsValidator;
use crate::wire::{self, Response};
use crate::wire_size;

/// The longest `request_id` accepted, in characters.
const MAX_REQUEST_ID_CHARS: usize = 128;

type RunFn = dyn Fn(Value, &CallContext<'_>) -> Result<String, ToolError> + Send + Sync;

/// A tool with its type erased, ready to be added to a [`ProviderBuilder`].
///
/// Made by [`tools!`](crate::tools) from `#[tool]` functions, or with [`AnyTool::new`] from a
/// hand-written [`Tool`].
pub struct AnyTool {
    facts: ToolFacts,
    states: Vec<StateType>,
    schema: fn() -> Result<Value, SchemaError>,
    output_schema: fn() -> Option<Result<Value, SchemaError>>,
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
            facts: ToolFacts {
                name: T::NAME,
                description: T::DESCRIPTION,
                scopes: T::SCOPES,
                title: T::TITLE,
                idempotent: T::IDEMPOTENT,
                open_world: T::OPEN_WORLD,
                long_running: T::LONG_RUNNING,
            },
            states: T::state_types(),
            schema: schema::parameters_schema::<T::Args>,
            output_schema: T::output_schema,
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
        self.facts.name
    }
}

impl fmt::Debug for AnyTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnyTool")
            .field("name", &self.facts.name)
            .finish()
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
    /// [`ProviderBuilder::tool_deadline`] names a tool the provider does not have.
    #[error("a deadline is set for tool `{0}`, which the provider does not have")]
    DeadlineForUnknownTool(String),
    /// The provider name is empty.
    #[error("the provider name is empty")]
    EmptyName,
    /// The authorization settings ([`ProviderBuilder::auth`]) are inconsistent, or the grant
    /// store given with [`Auth::store_dir`] cannot be opened.
    #[error("authorization: {0}")]
    Auth(String),
    /// The settings of one host (given to [`ProviderBuilder::host`]) do not fit the tools.
    #[error("{host}: {reason}")]
    Host {
        /// Which host: `Apex plugin`, ….
        host: &'static str,
        /// What is wrong.
        reason: String,
    },
}

/// Settings a host keeps on the provider (the Apex plugin's tool ids, …): given to
/// [`ProviderBuilder::host`], checked against the tools when it builds, read by the host with
/// [`Provider::host_settings`]. Every host's settings are given the same way.
pub trait HostSettings: std::any::Any + Send + Sync {
    /// The host's name in a [`BuildError::Host`].
    const HOST: &'static str;

    /// Checks the settings against the provider's tools.
    fn check(&self, tools: &[ToolDescriptor]) -> Result<(), String>;
}

type HostCheck = fn(&TypeMap, &[ToolDescriptor]) -> Result<(), BuildError>;

/// Declares a [`Provider`]: its name, description, scopes, tools, state and limits.
#[derive(Debug)]
#[must_use]
pub struct ProviderBuilder {
    name: String,
    description: Localized,
    scopes: Vec<(String, Localized)>,
    tools: Vec<AnyTool>,
    limits: Limits,
    tool_deadlines: Vec<(String, Duration)>,
    auth: Auth,
    full_access_only: bool,
    app: Option<App>,
    states: TypeMap,
    duplicate_state: Option<&'static str>,
    host_settings: TypeMap,
    host_checks: Vec<(TypeId, HostCheck)>,
    restate_constraints: bool,
}

impl ProviderBuilder {
    /// The description `get_provider_info` returns: a text, or a [`Localized`] text with its
    /// translations (`get_provider_info` answers in the phone's language).
    pub fn description(mut self, description: impl Into<Localized>) -> Self {
        self.description = description.into();
        self
    }

    /// Declares a data scope that tools can require and users grant. `description` completes
    /// "Allow an agent to read …" on the consent dialog and in the agent's hint: write what
    /// the data is, in lower case, e.g. `"your notes: titles, dates and text"`. Give a
    /// [`Localized`] text for the screens to show it in the user's language:
    ///
    /// ```
    /// use cetp_provider::{Localized, Provider};
    ///
    /// let provider = Provider::builder("Notes")
    ///     .scope("notes.read", Localized::new("your notes").with("fr", "vos notes"))
    ///     .scope("tags.read", "your tags")
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(provider.scopes()[0].1, "your notes");
    /// assert_eq!(provider.scope_texts()[0].1.get(Some("fr-FR")), "vos notes");
    /// ```
    pub fn scope(mut self, name: impl Into<String>, description: impl Into<Localized>) -> Self {
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
    /// let agent = cetp_provider::testing::Agent::new(&provider);
    /// assert_eq!(agent.execute("greet", r#"{"name":"Ada"}"#).data_json().unwrap(), "Hello, Ada!");
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
    /// assert_eq!(provider.app().map(App::package_name), Some("com.example.notes"));
    /// ```
    pub fn app(mut self, app: App) -> Self {
        self.app = Some(app);
        self
    }

    /// Replaces the limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the largest accepted `args` text in wire bytes.
    pub fn max_args_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_args_bytes = bytes;
        self
    }

    /// Sets the largest reply a call may return in wire bytes.
    pub fn max_result_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_result_bytes = bytes;
        self
    }

    /// Sets how many `execute_tool` calls one caller may have running at once
    /// ([`Limits::max_calls_in_flight_per_caller`]).
    pub fn max_calls_in_flight_per_caller(mut self, calls: usize) -> Self {
        self.limits.max_calls_in_flight_per_caller = calls;
        self
    }

    /// Gives the tool `tool` its own deadline instead of [`Limits::call_deadline`]
    /// (see [`Deadline`]). [`build`](Self::build) fails for a tool the provider does not have.
    ///
    /// ```
    /// use std::time::Duration;
    /// use cetp_provider::{Provider, tool, tools};
    ///
    /// /// Summarizes a year of notes.
    /// #[tool]
    /// fn yearly_summary() -> String { String::new() }
    ///
    /// let provider = Provider::builder("Notes")
    ///     .tools(tools![yearly_summary])
    ///     .tool_deadline("yearly_summary", Duration::from_secs(20))
    ///     .build()
    ///     .unwrap();
    /// # let _ = provider;
    /// ```
    pub fn tool_deadline(mut self, tool: impl Into<String>, deadline: Duration) -> Self {
        self.tool_deadlines.push((tool.into(), deadline));
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

    /// Declares that no tool hides anything from limited callers, so the consent dialog does
    /// not offer the choice between full and limited access. For providers whose tools ignore
    /// [`CallContext::access`](crate::CallContext::access).
    ///
    /// ```
    /// use cetp_provider::Provider;
    /// let provider = Provider::builder("Greeter").full_access_only().build().unwrap();
    /// # let _ = provider;
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

    /// Keeps the settings of one host on the provider (for instance
    /// [`Apex`](crate::host::apex::Apex)); they are checked against the tools when the provider
    /// is built, and the host reads them with [`Provider::host_settings`]. Without them the
    /// host's defaults apply.
    ///
    /// ```
    /// use cetp_provider::host::apex::{Apex, ApexHost};
    /// use cetp_provider::{Caller, Provider};
    /// let provider = Provider::builder("Notes").host(Apex::new().min_host_version(2)).build().unwrap();
    /// let meta = ApexHost::new(&provider).metadata_json(&Caller::unknown());
    /// assert!(meta.contains(r#""minHostVersion":2"#));
    /// ```
    pub fn host<S: HostSettings>(mut self, settings: S) -> Self {
        self.host_settings.set(settings);
        let id = TypeId::of::<S>();
        self.host_checks.retain(|(have, _)| *have != id);
        self.host_checks.push((id, |settings, tools| {
            settings.get::<S>().map_or(Ok(()), |s| {
                s.check(tools).map_err(|reason| BuildError::Host {
                    host: S::HOST,
                    reason,
                })
            })
        }));
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
        let mut by_name = HashMap::with_capacity(self.tools.len());
        let mut entries = Vec::with_capacity(self.tools.len());
        let mut descriptors = Vec::with_capacity(self.tools.len());
        for tool in self.tools {
            let name = tool.facts.name;
            if !is_valid_tool_name(name) {
                return Err(BuildError::InvalidToolName(name.to_owned()));
            }
            if tool.facts.description.trim().is_empty() {
                return Err(BuildError::MissingDescription(name.to_owned()));
            }
            if let Some(scope) = tool.facts.scopes.iter().find(|s| !declared.contains(**s)) {
                return Err(BuildError::UnknownScope {
                    tool: name.to_owned(),
                    scope: (*scope).to_owned(),
                });
            }
            if let Some(state) = tool.states.iter().find(|s| !s.is_in(&self.states)) {
                return Err(BuildError::MissingState {
                    tool: name.to_owned(),
                    state: state.name(),
                });
            }
            let schema_error = |source| BuildError::Schema {
                tool: name.to_owned(),
                source,
            };
            let parameters = (tool.schema)().map_err(schema_error)?;
            let parameters = schema::restate_constraints(parameters, self.restate_constraints);
            let validator = ArgsValidator::new(&parameters)
                .map_err(|e| schema_error(SchemaError::Invalid(e)))?;
            let output_schema = (tool.output_schema)().transpose().map_err(schema_error)?;
            let output = OutputCheck::new(output_schema.as_ref()).map_err(schema_error)?;
            if by_name.insert(name, entries.len()).is_some() {
                return Err(BuildError::DuplicateTool(name.to_owned()));
            }
            descriptors.push(ToolDescriptor::new(&tool.facts, parameters, output_schema));
            entries.push(Entry {
                name,
                validator,
                output,
                run: tool.run,
                deadline: self.limits.call_deadline,
            });
        }
        for (tool, deadline) in &self.tool_deadlines {
            let index = *by_name
                .get(tool.as_str())
                .ok_or_else(|| BuildError::DeadlineForUnknownTool(tool.clone()))?;
            entries[index].deadline = *deadline;
        }
        for (_, check) in &self.host_checks {
            check(&self.host_settings, &descriptors)?;
        }
        let list_tools_json = json!({ "tools": descriptors }).to_string();
        let scopes_json: Vec<Value> = self
            .scopes
            .iter()
            .map(|(name, description)| {
                json!({"name": name, "description": description.default_text()})
            })
            .collect();
        let info_json = json!({
            "provider_name": self.name,
            "description": self.description.default_text(),
            "scopes": scopes_json,
        })
        .to_string();
        let defaults = self
            .scopes
            .iter()
            .map(|(name, text)| (name.clone(), text.default_text().to_owned()))
            .collect();
        let mut auth = Authorizer::new(
            self.auth,
            &self.name,
            defaults,
            &descriptors,
            self.app.as_ref(),
        )
        .map_err(BuildError::Auth)?;
        auth.offers_limited_access = !self.full_access_only;
        auth.scope_texts = self.scopes;
        Ok(Provider {
            name: self.name,
            description: self.description,
            descriptors,
            entries,
            by_name,
            in_flight: InFlight::new(self.limits.max_calls_in_flight_per_caller),
            limits: self.limits,
            list_tools_json,
            info_json,
            reference: AtomicU64::new(1),
            auth,
            app: self.app,
            states: self.states,
            host_settings: self.host_settings,
        })
    }
}

struct Entry {
    name: &'static str,
    validator: ArgsValidator,
    output: OutputCheck,
    run: Box<RunFn>,
    deadline: Duration,
}

/// A CETP v1 tool provider: its tools, scopes, limits and authorization, built once.
///
/// Build it once (when the app starts on Android) and share it: every method takes `&self` and
/// is safe to call from many Binder threads at once. It never panics: every failure, including
/// a panicking tool, becomes an error [`Response`]. It speaks no protocol: the hosts of
/// [`crate::host`] (CETP v1 and v2, Apex, MCP) are built from it and reach it through the three
/// calls of the core ([`authorize`](Self::authorize), [`tool`](Self::tool),
/// [`execute`](Self::execute)).
pub struct Provider {
    name: String,
    description: Localized,
    descriptors: Vec<ToolDescriptor>,
    entries: Vec<Entry>,
    by_name: HashMap<&'static str, usize>,
    in_flight: InFlight,
    limits: Limits,
    list_tools_json: String,
    info_json: String,
    reference: AtomicU64,
    auth: Authorizer,
    app: Option<App>,
    states: TypeMap,
    host_settings: TypeMap,
}

impl fmt::Debug for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Provider")
            .field("name", &self.name)
            .field("tools", &self.descriptors.len())
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// One tool of a [`Provider`], looked up once by [`Provider::tool`].
#[derive(Clone, Copy)]
pub struct ToolRef<'p> {
    provider: &'p Provider,
    index: usize,
}

impl fmt::Debug for ToolRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ToolRef").field(&self.name()).finish()
    }
}

impl<'p> ToolRef<'p> {
    /// The tool name.
    pub fn name(&self) -> &'static str {
        self.entry().name
    }

    /// The tool as `list_tools` describes it.
    pub fn descriptor(&self) -> &'p ToolDescriptor {
        &self.provider.descriptors[self.index]
    }

    /// Its place in declaration order (the index into [`Provider::tools`]).
    pub fn index(&self) -> usize {
        self.index
    }

    /// What running it needs from [`Provider::authorize`].
    pub fn need(&self) -> Need<'p> {
        Need::Tool {
            name: self.name(),
            scopes: &self.descriptor().scopes,
        }
    }

    fn entry(&self) -> &'p Entry {
        &self.provider.entries[self.index]
    }
}

/// One `execute_tool` as a host hands it to [`Provider::execute`].
///
/// ```
/// use cetp_provider::host::ToolCall;
/// use cetp_provider::{Caller, Provider, ToolError, tool, tools};
///
/// /// Adds two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// let provider = Provider::builder("Calc")
///     .tools(tools![add])
///     .auth(cetp_provider::auth::Auth::open())
///     .build()
///     .unwrap();
/// let name = "add";
/// let tool = provider
///     .tool(name)
///     .ok_or_else(|| ToolError::tool_not_found(format!("no tool `{name}`")));
/// let answer = provider.execute(ToolCall::new(tool).args(r#"{"a":2,"b":40}"#), &Caller::unknown());
/// assert_eq!(answer.data(), Some("42"));
/// ```
#[derive(Debug)]
pub struct ToolCall<'a> {
    tool: Result<ToolRef<'a>, ToolError>,
    args: Option<&'a str>,
    request_id: Option<&'a str>,
    deadline_at_ms: Option<u64>,
    utf8_args_limit: Option<usize>,
    signals: Option<&'a Arc<CallSignals>>,
}

impl<'a> ToolCall<'a> {
    /// A call of `tool`: the looked-up tool, or what to answer when there is none (the host's
    /// `TOOL_NOT_FOUND`, or its `INVALID_ARGS` for a call that names no tool). With gated
    /// discovery that answer goes only to callers that may discover the provider.
    pub fn new(tool: Result<ToolRef<'a>, ToolError>) -> Self {
        ToolCall {
            tool,
            args: None,
            request_id: None,
            deadline_at_ms: None,
            utf8_args_limit: None,
            signals: None,
        }
    }

    /// Where the tool's progress goes and its cancellation comes from (see [`CallSignals`]);
    /// a call without them reports nowhere and is never cancelled.
    #[must_use]
    pub fn signals(mut self, signals: &'a Arc<CallSignals>) -> Self {
        self.signals = Some(signals);
        self
    }

    /// Sizes counted in UTF-8 bytes, as a host whose protocol promises them that way (CETP v2)
    /// counts: `args` may have up to `max_args_bytes`, and the result's size is left to the
    /// host, which checks it against what it advertised. Without this, both are counted in wire
    /// bytes (UTF-16) against [`Limits`].
    #[must_use]
    pub fn utf8_sizes(mut self, max_args_bytes: usize) -> Self {
        self.utf8_args_limit = Some(max_args_bytes);
        self
    }

    /// The instant (Unix epoch milliseconds) the agent stops waiting: the call's deadline
    /// when it comes before the tool's own.
    #[must_use]
    pub fn deadline_at_ms(mut self, deadline_at_ms: Option<u64>) -> Self {
        self.deadline_at_ms = deadline_at_ms;
        self
    }

    /// The JSON text of the arguments (absent, empty or `null`: `{}`).
    #[must_use]
    pub fn args(mut self, args: &'a str) -> Self {
        self.args = Some(args);
        self
    }

    /// The arguments, when the host may not have any.
    #[must_use]
    pub fn maybe_args(mut self, args: Option<&'a str>) -> Self {
        self.args = args;
        self
    }

    /// The caller's request id, for logs (at most 128 characters).
    #[must_use]
    pub fn request_id(mut self, request_id: Option<&'a str>) -> Self {
        self.request_id = request_id;
        self
    }
}

impl Provider {
    /// Starts declaring a provider named `name` (the `provider_name` agents show).
    pub fn builder(name: impl Into<String>) -> ProviderBuilder {
        ProviderBuilder {
            name: name.into(),
            description: Localized::default(),
            scopes: Vec::new(),
            tools: Vec::new(),
            limits: Limits::default(),
            tool_deadlines: Vec::new(),
            auth: Auth::default(),
            full_access_only: false,
            app: None,
            states: TypeMap::default(),
            duplicate_state: None,
            host_settings: TypeMap::default(),
            host_checks: Vec::new(),
            restate_constraints: true,
        }
    }

    /// The provider name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The description `get_provider_info` returns, in the default language.
    pub fn description(&self) -> &str {
        self.description.default_text()
    }

    /// The description with its translations.
    #[doc(hidden)]
    pub fn description_text(&self) -> &Localized {
        &self.description
    }

    /// The tools, in declaration order, as `list_tools` describes them.
    #[doc(hidden)]
    pub fn tools(&self) -> &[ToolDescriptor] {
        &self.descriptors
    }

    /// The declared scopes as `(name, description)` pairs, the descriptions in the default
    /// language.
    #[doc(hidden)]
    pub fn scopes(&self) -> &[(String, String)] {
        self.auth.scopes()
    }

    /// The declared scopes with their descriptions' translations, in declaration order.
    #[doc(hidden)]
    pub fn scope_texts(&self) -> &[(String, Localized)] {
        &self.auth.scope_texts
    }

    /// The app's texts that have no translation for the language `locale` (a BCP 47 tag): `"description"`
    /// for the provider's description, `"scope <name>"` for a scope's. Empty texts need none.
    #[doc(hidden)]
    pub fn untranslated(&self, locale: &str) -> Vec<String> {
        let mut out = Vec::new();
        let lacks = |text: &Localized| {
            !text.default_text().trim().is_empty() && text.translation(locale).is_none()
        };
        if lacks(&self.description) {
            out.push("description".to_owned());
        }
        for (name, text) in self.scope_texts() {
            if lacks(text) {
                out.push(format!("scope {name}"));
            }
        }
        out
    }

    /// The limits in force.
    #[doc(hidden)]
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The authorization state: pending requests, grants, and the consent dialog's operations.
    pub(crate) fn authorizer(&self) -> &Authorizer {
        &self.auth
    }

    /// The app given to [`ProviderBuilder::app`], if any.
    #[doc(hidden)]
    pub fn app(&self) -> Option<&App> {
        self.app.as_ref()
    }

    /// The consent screens' JSON interface: an admin request as JSON in (`{"op": "state"}`,
    /// `"approve"`, `"deny"`, `"revoke"`, `"clear_denial"`, with a `locale`), the reply with the
    /// state as JSON out. Never panics; malformed JSON gets `{"ok": false, "error": {"kind":
    /// "bad_request", …}, …}`. The JNI bridge gives it to the template's screens only; no agent
    /// ever reaches it. Keys: `wire::ADMIN_*`.
    #[doc(hidden)]
    pub fn handle_admin_json(&self, request: &str) -> String {
        self.auth.handle_admin_json(request)
    }

    /// The `data` of `list_tools`: `{"tools":[…]}`, built once.
    #[doc(hidden)]
    pub fn list_tools_json(&self) -> &str {
        &self.list_tools_json
    }

    /// The `data` of `get_provider_info`: `{"provider_name","description","scopes"}`, built once.
    #[doc(hidden)]
    pub fn provider_info_json(&self) -> &str {
        &self.info_json
    }

    /// The settings of type `S` given to [`ProviderBuilder::host`], if any.
    #[doc(hidden)]
    pub fn host_settings<S: HostSettings>(&self) -> Option<&S> {
        self.host_settings.get::<S>()
    }

    /// The tool named `name`, looked up once.
    #[doc(hidden)]
    pub fn tool(&self, name: &str) -> Option<ToolRef<'_>> {
        self.by_name.get(name).map(|&index| ToolRef {
            provider: self,
            index,
        })
    }

    /// The tool an `execute_tool` names, as every host that takes a tool name looks it up: the
    /// tool, or `TOOL_NOT_FOUND`. A name longer than any tool can have
    /// ([`MAX_TOOL_NAME_BYTES`]) is not read further (not looked up, not echoed); a shorter
    /// one is echoed escaped and cut. Like any unknown tool, the answer reaches only callers
    /// that may discover the provider ([`execute`](Self::execute) decides).
    #[doc(hidden)]
    pub fn tool_named(&self, name: &str) -> Result<ToolRef<'_>, ToolError> {
        let found = if name.len() > MAX_TOOL_NAME_BYTES {
            None
        } else {
            self.tool(name)
        };
        found.ok_or_else(|| {
            let none = if name.len() > MAX_TOOL_NAME_BYTES {
                format!(
                    "no tool has a name of {} bytes (at most {MAX_TOOL_NAME_BYTES})",
                    name.len()
                )
            } else {
                format!("no tool named `{}`", printable(name))
            };
            ToolError::tool_not_found(format!(
                "{none}; call `{}` for the tools this provider offers",
                wire::METHOD_LIST_TOOLS
            ))
        })
    }

    /// The tool at `index` of [`tools`](Self::tools).
    #[doc(hidden)]
    pub fn tool_at(&self, index: usize) -> Option<ToolRef<'_>> {
        (index < self.entries.len()).then_some(ToolRef {
            provider: self,
            index,
        })
    }

    /// Whether discovery answers every caller alike (it is not gated), so a host may keep the
    /// `list_tools` and `get_provider_info` replies and serve them without identifying the
    /// caller.
    #[doc(hidden)]
    pub fn discovery_is_open(&self) -> bool {
        self.auth.discovery_is_open()
    }

    /// Decides whether `caller` may have what it `need`s: one decision of the provider's
    /// authorization ([`crate::auth`]), counted against the caller's limits when refused.
    ///
    /// # Errors
    /// The refusal as the caller should get it (`AUTH_REQUIRED`, `PERMISSION_DENIED`,
    /// `RATE_LIMITED`).
    #[doc(hidden)]
    pub fn authorize(&self, caller: &Caller, need: Need<'_>) -> Result<AccessLevel, ToolError> {
        self.auth
            .authorize(caller, need)
            .map(|decision| decision.access())
    }

    /// Runs one `execute_tool`, from its admission to the reply, for `caller` (who the platform
    /// says is calling). In order: the calls `caller` has in flight
    /// ([`Limits::max_calls_in_flight_per_caller`]), authorization before anything else when
    /// discovery is gated, the `request_id`, the tool itself, the `args` size, authorization
    /// (once per call), the arguments against the schema, the tool inside the panic boundary
    /// with its [`Deadline`], the output check, and the reply's wire size. The outcome is
    /// logged: the tool and caller escaped, an error by its code only.
    #[doc(hidden)]
    pub fn execute(&self, call: ToolCall<'_>, caller: &Caller) -> Response {
        let tool = call.tool.as_ref().ok().map(ToolRef::name);
        let result_limit = match call.utf8_args_limit {
            // The host measures the result itself.
            Some(_) => usize::MAX,
            None => self.limits.max_result_bytes,
        };
        let response = match self.run(call, caller) {
            Ok(data) => Response::Success(data),
            Err(err) => Response::Error(err),
        };
        self.reply_within(
            tool.unwrap_or(wire::METHOD_EXECUTE_TOOL),
            caller,
            response,
            result_limit,
        )
    }

    /// A reply made ready for the wire and logged: a result over
    /// [`Limits::max_result_bytes`] becomes an `INTERNAL_ERROR` saying so, long error texts are
    /// capped, and one log line records the outcome (`what` names the call, escaped; an error
    /// by its code, never its message, which may quote the caller's values). Hosts pass every
    /// answer they make themselves through it; [`execute`](Self::execute) already does.
    #[doc(hidden)]
    pub fn reply(&self, what: &str, caller: &Caller, response: Response) -> Response {
        self.reply_within(what, caller, response, self.limits.max_result_bytes)
    }

    fn reply_within(
        &self,
        what: &str,
        caller: &Caller,
        response: Response,
        max_result_bytes: usize,
    ) -> Response {
        let response = wire_size::fit(response, what, max_result_bytes);
        match &response {
            Response::Success(_) => {
                log::debug!(
                    "CETP `{}` from {} -> success",
                    Escaped(what),
                    Escaped(caller)
                );
            }
            Response::Error(err) => {
                // The code only: a message may quote the caller's values or the app's text.
                log::info!(
                    "CETP `{}` from {} -> {}",
                    Escaped(what),
                    Escaped(caller),
                    err.code()
                );
            }
        }
        response
    }

    fn run(&self, call: ToolCall<'_>, caller: &Caller) -> Result<String, ToolError> {
        let signals = call.signals;
        let admitted = self.admit(call, caller)?;
        self.finish(admitted, caller, signals)
    }

    /// The first half of [`execute`](Self::execute), on the thread the call arrived on: the
    /// caller's slot, authorization, the sizes and the arguments, and the access log's record.
    /// What it returns owns everything the tool needs, so [`finish`](Self::finish) may run on
    /// another thread (CETP v2's operations); the caller's slot is held until then.
    ///
    /// # Errors
    /// The call's refusal, as [`execute`](Self::execute) would answer it.
    #[doc(hidden)]
    pub fn admit(&self, call: ToolCall<'_>, caller: &Caller) -> Result<Admitted, ToolError> {
        let slot = self.in_flight.enter(self.auth.callers(), caller)?;
        // One authorization per call, before anything else: a caller that may not run a tool
        // learns nothing about it (with gated discovery, not even whether it exists).
        let need = match &call.tool {
            Ok(tool) => tool.need(),
            Err(_) => Need::UnknownTool,
        };
        let decision = self.auth.authorize_as(Some(slot.entry()), caller, need)?;
        if let Some(id) = call
            .request_id
            .filter(|id| id.chars().count() > MAX_REQUEST_ID_CHARS)
        {
            return Err(ToolError::invalid_args(format!(
                "`{}` is {} characters long; send at most {MAX_REQUEST_ID_CHARS}",
                wire::EXTRA_REQUEST_ID,
                id.chars().count()
            )));
        }
        let tool = call.tool?;
        let entry = tool.entry();
        let name = entry.name;
        let (size, limit, unit) = match (call.args, call.utf8_args_limit) {
            (None, _) => (0, 0, ""),
            (Some(args), Some(limit)) => (args.len(), limit, "UTF-8"),
            (Some(args), None) => (
                wire_size::utf16_bytes(args),
                self.limits.max_args_bytes,
                "on the wire (UTF-16)",
            ),
        };
        if size > limit {
            return Err(entry.validator.invalid(
                name,
                &format!(
                    "`args` is {size} bytes {unit}, over the limit of {limit} bytes; send shorter values"
                ),
            ));
        }
        let value = entry.validator.check(name, call.args)?;
        self.auth.record_read(name, &decision, slot.entry());
        // The deadline counts from the instant the call was decided (no second clock read).
        let allowed = match call.deadline_at_ms {
            Some(at) => entry
                .deadline
                .min(Duration::from_millis(at.saturating_sub(decision.at_ms()))),
            None => entry.deadline,
        };
        Ok(Admitted {
            _slot: slot,
            index: tool.index(),
            value,
            access: decision.access(),
            decided_at_ms: decision.at_ms(),
            allowed,
            request_id: call.request_id.map(str::to_owned),
        })
    }

    /// The second half of [`execute`](Self::execute): the tool inside the panic boundary with
    /// its [`Deadline`] (and `signals`, when the host gave some), then the output check. A call
    /// cancelled while it ran ends as [`ToolError::cancelled`], one past its deadline as that,
    /// whatever the tool returned. The caller's slot is given back when it returns.
    ///
    /// # Errors
    /// The tool's error, a panic, the deadline, the cancellation, or an output that does not
    /// match the tool's schema.
    #[doc(hidden)]
    pub fn finish(
        &self,
        admitted: Admitted,
        caller: &Caller,
        signals: Option<&Arc<CallSignals>>,
    ) -> Result<String, ToolError> {
        let entry = &self.entries[admitted.index];
        let name = entry.name;
        let mut deadline =
            Deadline::after(self.auth.clock(), admitted.decided_at_ms, admitted.allowed);
        if let Some(signals) = signals {
            deadline = deadline.or_cancelled(signals);
        }
        let mut ctx = CallContext::new(caller)
            .with_access(admitted.access)
            .for_tool(name, &self.states, deadline.clone());
        if let Some(id) = &admitted.request_id {
            ctx = ctx.with_request_id(id);
        }
        if let Some(signals) = signals {
            ctx = ctx.with_signals(signals);
        }
        // The one panic boundary around app code: the tool body (and its arguments' and
        // result's serde impls).
        let value = admitted.value;
        let result = match catch_unwind(AssertUnwindSafe(|| (entry.run)(value, &ctx))) {
            Ok(result) => result,
            Err(payload) => {
                // Neither the panic's text (the app's, which may quote anything) nor the
                // caller's `request_id` is logged; the reference ties the line to the reply.
                drop(payload);
                let reference = self.reference.fetch_add(1, Ordering::Relaxed);
                log::error!(
                    "tool `{name}` panicked (ref {reference}, {})",
                    Escaped(caller)
                );
                return Err(internal_failure(
                    name,
                    admitted.request_id.as_deref(),
                    reference,
                ));
            }
        };
        if signals.is_some_and(|s| s.is_cancelled()) {
            return Err(ToolError::cancelled());
        }
        if deadline.is_past() {
            return Err(past_deadline(name, admitted.allowed));
        }
        entry.output.check(name, result?)
    }

    /// [`finish`](Self::finish) made a reply and logged, as [`execute`](Self::execute) makes
    /// one (the result's size left to the host, as with [`ToolCall::utf8_sizes`]).
    #[doc(hidden)]
    pub fn finish_reply(
        &self,
        admitted: Admitted,
        caller: &Caller,
        signals: Option<&Arc<CallSignals>>,
    ) -> Response {
        let name = self.entries[admitted.index].name;
        let response = match self.finish(admitted, caller, signals) {
            Ok(data) => Response::Success(data),
            Err(err) => Response::Error(err),
        };
        self.reply_within(name, caller, response, usize::MAX)
    }
}

/// A call [`Provider::admit`] let in, ready for [`Provider::finish`] on any thread: it owns the
/// caller's slot (given back when it is dropped), the checked arguments and the call's
/// deadline. Dropping it unfinished ends the call without running the tool.
pub struct Admitted {
    _slot: Slot,
    index: usize,
    value: Value,
    access: AccessLevel,
    decided_at_ms: u64,
    allowed: Duration,
    request_id: Option<String>,
}

impl fmt::Debug for Admitted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Admitted")
            .field("tool", &self.index)
            .finish_non_exhaustive()
    }
}

impl Admitted {
    /// The index of the tool into [`Provider::tools`].
    pub fn tool_index(&self) -> usize {
        self.index
    }
}

fn past_deadline(tool: &str, deadline: Duration) -> ToolError {
    ToolError::internal(format!(
        "`{tool}` did not finish within its deadline of {} ms and was stopped; ask for less (a narrower query, a shorter range or a smaller limit) and try again",
        deadline.as_millis()
    ))
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

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Condvar, Mutex};

    use std::collections::BTreeSet;

    use super::*;
    use crate::auth::trace::{self, Kind};
    use crate::auth::{Approval, RateLimit};
    use crate::clock::ManualClock;
    use crate::{ErrorCode, tool, tools};

    /// A tool that waits until the test lets it go, or until its deadline passes.
    #[tool]
    fn wait_for_release(gate: &Gate, ctx: &CallContext) -> Result<String, ToolError> {
        gate.wait(ctx.deadline())?;
        Ok("released".to_owned())
    }

    /// A tool that answers at once.
    #[tool]
    fn quick() -> &'static str {
        "quick"
    }

    #[derive(Default)]
    struct Gate {
        open: Mutex<bool>,
        changed: Condvar,
        waiting: Mutex<usize>,
        refused: std::sync::atomic::AtomicUsize,
        arrived: Condvar,
    }

    impl Gate {
        fn wait(&self, deadline: &Deadline) -> Result<(), ToolError> {
            *self.waiting.lock().unwrap() += 1;
            self.arrived.notify_all();
            let mut open = self.open.lock().unwrap();
            while !*open {
                deadline.check()?;
                open = self
                    .changed
                    .wait_timeout(open, std::time::Duration::from_millis(5))
                    .unwrap()
                    .0;
            }
            Ok(())
        }

        /// Counts a call that came back without entering the tool.
        fn turned_away(&self) {
            self.refused.fetch_add(1, Ordering::SeqCst);
            let _waiting = self.waiting.lock().unwrap();
            self.arrived.notify_all();
        }

        /// Waits until `n` calls either wait in the tool or came back; returns how many wait.
        fn until_settled(&self, n: usize) -> usize {
            let mut waiting = self.waiting.lock().unwrap();
            while *waiting + self.refused.load(Ordering::SeqCst) < n {
                waiting = self.arrived.wait(waiting).unwrap();
            }
            *waiting
        }

        fn until_waiting(&self, n: usize) {
            let mut waiting = self.waiting.lock().unwrap();
            while *waiting < n {
                waiting = self.arrived.wait(waiting).unwrap();
            }
        }

        fn release(&self) {
            *self.open.lock().unwrap() = true;
            self.changed.notify_all();
        }
    }

    fn provider(clock: &ManualClock) -> Arc<Provider> {
        Arc::new(
            Provider::builder("Slow")
                .tools(tools![wait_for_release, quick])
                .state(Gate::default())
                .auth(Auth::open().clock(clock.clone()))
                .build()
                .unwrap(),
        )
    }

    fn call(provider: &Provider, name: &str, caller: &Caller) -> Response {
        let tool = provider
            .tool(name)
            .ok_or_else(|| ToolError::tool_not_found("none"));
        provider.execute(ToolCall::new(tool), caller)
    }

    /// Reads a page.
    #[tool(scopes = ["pages.read"])]
    fn page(
        /// Which page.
        n: u32,
    ) -> u32 {
        n
    }

    /// The locks one call of `page` takes: (exclusive, shared) addresses.
    fn locks_of(provider: &Provider, caller: &Caller) -> (BTreeSet<usize>, BTreeSet<usize>) {
        let tool = provider
            .tool("page")
            .ok_or_else(|| ToolError::tool_not_found("none"));
        let call = ToolCall::new(tool).args(r#"{"n":3}"#);
        let (answer, taken) = trace::record(|| provider.execute(call, caller));
        assert_eq!(answer.data_json().unwrap(), 3, "{answer}");
        let of = |kind| {
            taken
                .iter()
                .filter(|(_, k)| *k == kind)
                .map(|(address, _)| *address)
                .collect()
        };
        (of(Kind::Exclusive), of(Kind::Shared))
    }

    /// Two approved callers' calls (user approval, a grant store, rate limits, the access log)
    /// take no lock exclusively that the other takes at all: they never wait for each other.
    #[test]
    fn two_approved_callers_never_share_a_lock_they_hold_alone() {
        let provider = Provider::builder("Pages")
            .scope("pages.read", "your pages")
            .tools(tools![page])
            .auth(
                Auth::user_approval()
                    .rate_limit(RateLimit::per_second(1000))
                    .tool_rate_limit("page", RateLimit::per_second(1000))
                    .clock(ManualClock::new(1_767_225_600_000)),
            )
            .build()
            .unwrap();
        let agent = |uid: u32| {
            Caller::app(uid, format!("com.example.agent{uid}")).with_certificate("ab".repeat(32))
        };
        let (one, two) = (agent(10_101), agent(10_102));
        for caller in [&one, &two] {
            let tool = provider
                .tool("page")
                .ok_or_else(|| ToolError::tool_not_found("none"));
            let refused = provider.execute(ToolCall::new(tool).args(r#"{"n":3}"#), caller);
            assert_eq!(refused.error_code(), Some(ErrorCode::AuthRequired));
        }
        for request in provider.authorizer().pending() {
            provider
                .authorizer()
                .approve(&request.id, Approval::as_listed(&request))
                .unwrap();
        }
        // The first calls make each caller's state; the steady state is what follows.
        locks_of(&provider, &one);
        locks_of(&provider, &two);
        let (one_alone, one_shared) = locks_of(&provider, &one);
        let (two_alone, two_shared) = locks_of(&provider, &two);
        assert!(
            one_alone.len() >= 2 && two_alone.len() >= 2,
            "the buckets and the log buffer are locked: {one_alone:?} {two_alone:?}"
        );
        assert!(
            one_alone.is_disjoint(&two_alone),
            "{one_alone:?} {two_alone:?}"
        );
        assert!(one_alone.is_disjoint(&two_shared));
        assert!(two_alone.is_disjoint(&one_shared));
        // Not even a read lock is taken by both (a read lock writes its reader count, a cache
        // line every reader then fights over): the grant store's state is not read on the
        // steady path, and these two UIDs fall in different shards of the caller table.
        assert!(
            one_shared.is_disjoint(&two_shared),
            "a lock both callers read-lock: {:?}",
            one_shared.intersection(&two_shared).collect::<Vec<_>>()
        );
        // The same caller's next call takes the same locks: they are its own.
        assert_eq!(locks_of(&provider, &one).0, one_alone);
    }

    /// What a caller's entry keeps of the grant store follows every change at the caller's
    /// very next call: a revocation, a denial, a new approval, an approval lapsing on the
    /// clock, and another app taking over the UID.
    #[test]
    fn a_change_of_the_grant_store_reaches_the_callers_next_call() {
        let clock = ManualClock::new(1_767_225_600_000);
        let provider = Provider::builder("Pages")
            .scope("pages.read", "your pages")
            .tools(tools![page])
            .auth(Auth::user_approval().clock(clock.clone()))
            .build()
            .unwrap();
        let cert = "ab".repeat(32);
        let agent = Caller::app(10_101, "com.example.agent").with_certificate(cert.clone());
        let code = |caller: &Caller| {
            let tool = provider
                .tool("page")
                .ok_or_else(|| ToolError::tool_not_found("none"));
            provider
                .execute(ToolCall::new(tool).args(r#"{"n":3}"#), caller)
                .error_code()
        };
        let auth = provider.authorizer();
        let approve = |approval: fn(&crate::auth::PendingRequest) -> Approval| {
            let request = auth.pending().remove(0);
            auth.approve(&request.id, approval(&request)).unwrap();
        };
        assert_eq!(code(&agent), Some(ErrorCode::AuthRequired));
        approve(Approval::as_listed);
        assert_eq!(code(&agent), None);
        assert_eq!(code(&agent), None);
        auth.revoke("com.example.agent", Some(&cert)).unwrap();
        assert_eq!(code(&agent), Some(ErrorCode::AuthRequired));
        approve(|r| Approval::as_listed(r).expires_after(std::time::Duration::from_secs(60)));
        assert_eq!(code(&agent), None);
        // Same UID, another signing certificate: not the app the user approved.
        let look_alike = Caller::app(10_101, "com.example.agent").with_certificate("cd".repeat(32));
        assert_eq!(code(&look_alike), Some(ErrorCode::AuthRequired));
        assert_eq!(code(&agent), None);
        clock.advance(std::time::Duration::from_secs(60));
        assert_eq!(code(&agent), Some(ErrorCode::AuthRequired));
        let request = auth.pending().remove(0);
        auth.deny(&request.id).unwrap();
        assert_eq!(code(&agent), Some(ErrorCode::PermissionDenied));
    }

    #[test]
    fn one_caller_cannot_hold_every_thread_and_slots_come_back() {
        const CALLS: usize = 16;
        let clock = ManualClock::new(0);
        let provider = provider(&clock);
        let hostile = Caller::app(10_666, "com.hostile");
        let agent = Caller::app(10_001, "com.agent");
        let max = provider.limits().max_calls_in_flight_per_caller;
        let gate = provider.states.get::<Gate>().unwrap();
        let (done, answers) = std::sync::mpsc::channel();
        let threads: Vec<_> = (0..CALLS)
            .map(|_| {
                let (provider, hostile, done) =
                    (Arc::clone(&provider), hostile.clone(), done.clone());
                std::thread::spawn(move || {
                    let answer = call(&provider, "wait_for_release", &hostile);
                    let refused = !answer.is_success();
                    done.send(answer).unwrap();
                    if refused {
                        provider.states.get::<Gate>().unwrap().turned_away();
                    }
                })
            })
            .collect();
        // Every call either waits in the tool or came back: counted together, so a wrong
        // limit fails the assertions below instead of leaving the test waiting.
        let entered = gate.until_settled(CALLS);
        let refused: Vec<Response> = answers.try_iter().collect();
        let running = provider
            .in_flight
            .running(provider.auth.callers(), &hostile);
        // The approved agent is served while the hostile app's calls hang.
        let served = (0..100)
            .filter(|_| call(&provider, "quick", &agent).data() == Some("\"quick\""))
            .count();
        gate.release();
        let released: Vec<Response> = (0..entered).map(|_| answers.recv().unwrap()).collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!((entered, running), (max, max), "calls in the tool at once");
        assert_eq!(refused.len(), CALLS - max);
        for answer in &refused {
            assert_eq!(
                answer.error_code(),
                Some(ErrorCode::RateLimited),
                "{answer}"
            );
        }
        assert_eq!(served, 100);
        assert!(released.iter().all(|a| a.data() == Some("\"released\"")));
        assert_eq!(
            provider
                .in_flight
                .running(provider.auth.callers(), &hostile),
            0
        );
    }

    #[test]
    fn a_call_past_its_deadline_answers_an_error_and_frees_its_slot() {
        let clock = ManualClock::new(0);
        let provider = provider(&clock);
        let caller = Caller::app(10_002, "com.agent");
        let waiting = {
            let (provider, caller) = (Arc::clone(&provider), caller.clone());
            std::thread::spawn(move || call(&provider, "wait_for_release", &caller))
        };
        provider.states.get::<Gate>().unwrap().until_waiting(1);
        clock.advance(provider.limits().call_deadline);
        let answer = waiting.join().unwrap();
        assert_eq!(answer.error_code(), Some(ErrorCode::InternalError));
        assert!(
            answer
                .error_message()
                .unwrap()
                .contains("deadline of 5000 ms"),
            "{answer}"
        );
        assert_eq!(
            provider.in_flight.running(provider.auth.callers(), &caller),
            0
        );
        assert!(call(&provider, "quick", &caller).is_success());
    }

    /// A tool that panics.
    #[tool]
    fn explode() -> Result<String, ToolError> {
        panic!("the app's own bug")
    }

    /// A tool's panic gives its slot back: with one call in flight allowed, every call after a
    /// panic is admitted, and none stays counted.
    #[test]
    fn a_panicking_tool_gives_its_slot_back() {
        let provider = Provider::builder("Fragile")
            .tools(tools![explode, quick])
            .auth(Auth::open().clock(ManualClock::new(0)))
            .max_calls_in_flight_per_caller(1)
            .build()
            .unwrap();
        let caller = Caller::app(10_003, "com.agent");
        for _ in 0..3 {
            let answer = call(&provider, "explode", &caller);
            assert_eq!(
                answer.error_code(),
                Some(ErrorCode::InternalError),
                "{answer}"
            );
            assert_eq!(
                provider.in_flight.running(provider.auth.callers(), &caller),
                0
            );
            let answer = call(&provider, "quick", &caller);
            assert_eq!(answer.data(), Some("\"quick\""), "{answer}");
        }
    }

    #[test]
    fn a_deadline_for_an_unknown_tool_does_not_build() {
        let err = Provider::builder("P")
            .tools(tools![quick])
            .tool_deadline("slow", Duration::from_secs(1))
            .build()
            .unwrap_err();
        assert!(matches!(err, BuildError::DeadlineForUnknownTool(t) if t == "slow"));
    }
}
