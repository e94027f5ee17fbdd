//! The same tools for the Apex agent: its `IApexPlugin` plugin interface over the [`Provider`].
//!
//! Apex discovers plugins as exported Services answering the intent action
//! [`wire::APEX_PLUGIN_ACTION`], binds one and talks to it through five AIDL methods. The
//! Android template's `dev.cetp.ApexPluginService` implements them with one JNI call each into
//! this module, which answers from the provider every CETP call already goes through:
//!
//! | `IApexPlugin` method | answered by |
//! |---|---|
//! | `getMetadataJson()` | [`ApexPlugin::metadata_json`] |
//! | `getToolsJson()` | [`ApexPlugin::tools_json`] |
//! | `executeTool(toolId, argumentsJson)` | [`ApexPlugin::execute`]: [`Provider::call`] with `execute_tool` |
//! | `onActivate()` / `onDeactivate()` | [`ApexPlugin::activate`] / [`ApexPlugin::deactivate`] |
//!
//! Nothing is decided here: validation, size limits, panic isolation, authorization (grants,
//! denials, scopes, limited access, rate limits, pending requests for the approval screen) all happen
//! in [`Provider::call`], for the caller's Binder identity, exactly as for a CETP consumer. This
//! module only renames tools, renders JSON and turns a [`Response`] into text.
//!
//! # What the host sees
//!
//! Metadata (the app's package and version come from the platform at start-up):
//!
//! ```json
//! {"id":"dev.cetp.samples.notes","name":"Notes","version":3,"versionName":"1.2",
//!  "minHostVersion":1,"description":"The notes you keep in this app"}
//! ```
//!
//! Tools: an array; `parametersSchema` is the **text** of the same normalized schema `list_tools`
//! advertises as `parameters`:
//!
//! ```json
//! [{"id":"notes__search_notes","name":"Search notes","description":"Searches the user's notes…",
//!   "parametersSchema":"{\"type\":\"object\",\"properties\":{…},\"additionalProperties\":false}"}]
//! ```
//!
//! # Tool ids
//!
//! Apex checks id uniqueness only among its built-in tools and then hands the id to the model as
//! the function name. Its own reference plugin uses ids like `workflow/save`, but OpenAI,
//! Anthropic and Gemini reject `/` in function names: the safe set is `^[a-zA-Z0-9_-]{1,64}$`
//! (Gemini also wants a letter or `_` first). So the default scheme, [`ToolIds::AppLabel`], is
//! `<label>__<tool>`, where `<label>` is the last segment of the app's package, lower-cased, with
//! every character outside `[a-z0-9]` replaced by `_` (`dev.cetp.samples.notes` →
//! `notes__search_notes`). It is the name a ClawSeed consumer gives the same tool over CETP, so
//! a tool has one function name for both agents. [`ToolIds::Prefix`] and [`ToolIds::ToolName`]
//! choose otherwise.
//!
//! # Results and errors
//!
//! `executeTool` returns the `data` JSON text of a successful call unchanged. A failure returns
//! one line of text a model can read and a host can detect:
//!
//! ```text
//! Error: INVALID_ARGS: invalid arguments for `search_notes`: at `/limit`: 500 is greater than the maximum of 50. Expected {query: string (required), limit: integer}.
//! ```
//!
//! That is [`wire::APEX_ERROR_PREFIX`], the CETP error code, `": "` and the CETP
//! `error_message`; when CETP would send a `resolution_hint` (for `AUTH_REQUIRED`), a second line
//! [`wire::APEX_HINT_PREFIX`] + the hint follows. A successful result is JSON text, which never
//! starts with `E`, so `text.starts_with("Error: ")` tells the two apart. `executeTool` never
//! throws.
//!
//! # Approval
//!
//! An Apex host that is not yet approved gets `AUTH_REQUIRED` and is recorded as a pending
//! request under its Binder identity (UID, packages, certificate digests), so the app's approval
//! screen lists it next to CETP consumers. Apex has no `authorize_intent`; the template's Service
//! posts a notification that opens the approval screen instead (see `android-template/README.md`).
//!
//! # Example
//!
//! ```
//! use cetp_provider::apex::Apex;
//! use cetp_provider::{App, Caller, Provider, auth::Auth, tool, tools};
//!
//! /// Adds two integers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 { a + b }
//!
//! let provider = Provider::builder("Calculator")
//!     .tools(tools![add])
//!     .auth(Auth::open())
//!     .apex(Apex::new().min_host_version(2))
//!     .app(App::new("com.example.calc", "/data/user/0/com.example.calc/files").with_version(7, "1.7"))
//!     .build()
//!     .unwrap();
//! let plugin = provider.apex();
//! let host = Caller::app(10_200, "com.apex.agent");
//!
//! let meta: serde_json::Value = serde_json::from_str(&plugin.metadata_json(&host)).unwrap();
//! assert_eq!((&meta["id"], &meta["version"], &meta["minHostVersion"]), (&"com.example.calc".into(), &7.into(), &2.into()));
//! let tools: serde_json::Value = serde_json::from_str(&plugin.tools_json(&host)).unwrap();
//! assert_eq!(tools[0]["id"], "calc__add");
//! assert_eq!(tools[0]["name"], "Add");
//!
//! assert_eq!(plugin.execute(Some("calc__add"), Some(r#"{"a":2,"b":40}"#), &host), "42");
//! assert_eq!(
//!     plugin.execute(Some("calc__sub"), None, &host),
//!     "Error: TOOL_NOT_FOUND: no tool has the id `calc__sub`; getToolsJson lists this plugin's tools"
//! );
//! ```

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::app::App;
use crate::context::Caller;
use crate::error::ToolError;
use crate::provider::{BuildError, Provider, ProviderBuilder};
use crate::request::Request;
use crate::tool::ToolDescriptor;
use crate::wire::{self, ErrorCode, Response};

/// Longest tool id every LLM API accepts as a function name.
pub const MAX_TOOL_ID_LEN: usize = 64;

/// How many hosts [`ApexPlugin`] remembers for the admin state (the least recently activated
/// inactive one is forgotten first).
pub const MAX_TRACKED_HOSTS: usize = 32;

/// How tool ids are formed from tool names. See [the module docs](self#tool-ids).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolIds {
    /// `<label>__<tool>`, the label being the last segment of the app's package, lower-cased,
    /// characters outside `[a-z0-9]` replaced by `_` (the default). If an id would exceed 64
    /// characters the label is shortened; a tool name of 62 or more characters is used alone.
    #[default]
    AppLabel,
    /// `<prefix><tool>`. The prefix must be 1 to 32 characters of `[A-Za-z0-9_-]`, start with a
    /// letter or `_`, and leave every id within 64 characters; [`ProviderBuilder::build`] checks.
    Prefix(String),
    /// The tool name alone, for hosts that namespace ids themselves.
    ToolName,
}

type Hook = dyn Fn(&Caller) + Send + Sync;

/// The Apex plugin settings of a provider, given to [`ProviderBuilder::apex`].
///
/// ```
/// use cetp_provider::apex::{Apex, ToolIds};
/// use cetp_provider::Provider;
///
/// let provider = Provider::builder("Notes")
///     .apex(
///         Apex::new()
///             .min_host_version(3)
///             .tool_ids(ToolIds::Prefix("mynotes_".into()))
///             .on_activate(|host| log::info!("{} connected", host.describe()))
///             .on_deactivate(|host| log::info!("{} left", host.describe())),
///     )
///     .build()
///     .unwrap();
/// # let _ = provider;
/// ```
#[must_use]
#[derive(Clone)]
pub struct Apex {
    min_host_version: u32,
    tool_ids: ToolIds,
    on_activate: Option<Arc<Hook>>,
    on_deactivate: Option<Arc<Hook>>,
}

impl Default for Apex {
    fn default() -> Self {
        Apex {
            min_host_version: 1,
            tool_ids: ToolIds::default(),
            on_activate: None,
            on_deactivate: None,
        }
    }
}

impl std::fmt::Debug for Apex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Apex")
            .field("min_host_version", &self.min_host_version)
            .field("tool_ids", &self.tool_ids)
            .field("on_activate", &self.on_activate.is_some())
            .field("on_deactivate", &self.on_deactivate.is_some())
            .finish()
    }
}

impl Apex {
    /// The defaults: `minHostVersion` 1, [`ToolIds::AppLabel`], no hooks.
    pub fn new() -> Self {
        Apex::default()
    }

    /// The oldest Apex host version this plugin works with (`minHostVersion`, default 1).
    pub fn min_host_version(mut self, version: u32) -> Self {
        self.min_host_version = version;
        self
    }

    /// How tool ids are formed (default [`ToolIds::AppLabel`]).
    pub fn tool_ids(mut self, scheme: ToolIds) -> Self {
        self.tool_ids = scheme;
        self
    }

    /// Runs `hook` when a host calls `onActivate()` (its binding is established), e.g. to open
    /// a resource. A panic in it is caught and logged; the host sees nothing.
    pub fn on_activate(mut self, hook: impl Fn(&Caller) + Send + Sync + 'static) -> Self {
        self.on_activate = Some(Arc::new(hook));
        self
    }

    /// Runs `hook` when a host calls `onDeactivate()` (its binding is dropped). A panic in it is
    /// caught and logged.
    pub fn on_deactivate(mut self, hook: impl Fn(&Caller) + Send + Sync + 'static) -> Self {
        self.on_deactivate = Some(Arc::new(hook));
        self
    }

    /// Checks the settings against the tools: a [`ToolIds::Prefix`] must be valid and leave
    /// every id within [`MAX_TOOL_ID_LEN`].
    pub(crate) fn check(&self, tools: &[ToolDescriptor]) -> Result<(), BuildError> {
        if let ToolIds::Prefix(prefix) = &self.tool_ids {
            let valid = (1..=32).contains(&prefix.len())
                && prefix
                    .bytes()
                    .next()
                    .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                && prefix
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !valid {
                return Err(BuildError::Apex(format!(
                    "the tool id prefix `{prefix}` is invalid: use 1 to 32 characters of ASCII letters, digits, `_` and `-`, starting with a letter or `_`"
                )));
            }
            if let Some(long) = tools
                .iter()
                .find(|t| prefix.len() + t.name.len() > MAX_TOOL_ID_LEN)
            {
                return Err(BuildError::Apex(format!(
                    "the tool id `{prefix}{}` is longer than {MAX_TOOL_ID_LEN} characters, which LLM APIs reject as a function name; use a shorter prefix or tool name",
                    long.name
                )));
            }
        }
        Ok(())
    }
}

impl ProviderBuilder {
    /// Sets how the provider answers the Apex agent's `IApexPlugin` interface (see
    /// [`crate::apex`]). Without it the defaults of [`Apex::new`] apply; whether the app serves
    /// Apex at all is decided in its manifest (see `android-template/README.md`).
    ///
    /// ```
    /// use cetp_provider::{Caller, Provider, apex::Apex};
    /// let provider = Provider::builder("Notes").apex(Apex::new().min_host_version(2)).build().unwrap();
    /// let meta = provider.apex().metadata_json(&Caller::unknown());
    /// assert!(meta.contains(r#""minHostVersion":2"#));
    /// ```
    pub fn apex(self, apex: Apex) -> Self {
        self.with_apex(apex)
    }
}

/// The tool ids, computed once.
#[derive(Debug)]
struct IdTable {
    /// `(id, tool name)` in declaration order.
    ids: Vec<(String, String)>,
    tools_json: String,
}

/// One host that called `onActivate`, as the admin state lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HostConnection {
    /// Which host interface (`"apex"`).
    pub host: String,
    /// The host's UID, if known.
    pub uid: Option<u32>,
    /// The package names under that UID.
    pub packages: Vec<String>,
    /// How many times it called `onActivate`.
    pub activations: u64,
    /// Activations not yet matched by `onDeactivate` (bindings currently open).
    pub active: u64,
}

/// Activations per host, bounded by [`MAX_TRACKED_HOSTS`].
#[derive(Debug, Default)]
pub(crate) struct Connections {
    hosts: Mutex<Vec<(u64, HostConnection)>>,
    tick: AtomicU64,
}

impl Connections {
    fn update(&self, caller: &Caller, activate: bool) {
        let packages: Vec<String> = caller.package_names().map(str::to_owned).collect();
        let tick = self.tick.fetch_add(1, Ordering::Relaxed);
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        let found = hosts
            .iter_mut()
            .find(|(_, h)| h.uid == caller.uid() && h.packages == packages);
        let entry = match found {
            Some(entry) => entry,
            None if !activate => return,
            None => {
                if hosts.len() >= MAX_TRACKED_HOSTS {
                    // Forget the least recently seen host, inactive ones first.
                    if let Some(oldest) = hosts
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, (seen, h))| (h.active > 0, *seen))
                        .map(|(i, _)| i)
                    {
                        hosts.remove(oldest);
                    }
                }
                hosts.push((
                    tick,
                    HostConnection {
                        host: "apex".to_owned(),
                        uid: caller.uid(),
                        packages,
                        activations: 0,
                        active: 0,
                    },
                ));
                hosts.last_mut().expect("just pushed")
            }
        };
        entry.0 = tick;
        if activate {
            entry.1.activations += 1;
            entry.1.active += 1;
        } else {
            entry.1.active = entry.1.active.saturating_sub(1);
        }
    }

    /// The tracked hosts, most recently seen first.
    pub(crate) fn snapshot(&self) -> Vec<HostConnection> {
        let hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out: Vec<&(u64, HostConnection)> = hosts.iter().collect();
        out.sort_by_key(|(seen, _)| std::cmp::Reverse(*seen));
        out.into_iter().map(|(_, h)| h.clone()).collect()
    }
}

/// The Apex state a [`Provider`] keeps: settings, the id table.
pub(crate) struct ApexState {
    settings: Apex,
    ids: OnceLock<IdTable>,
    hook_failures: AtomicU64,
}

impl ApexState {
    pub(crate) fn new(settings: Apex) -> Self {
        ApexState {
            settings,
            ids: OnceLock::new(),
            hook_failures: AtomicU64::new(0),
        }
    }
}

/// The `IApexPlugin` view of a [`Provider`], from [`Provider::apex`]. See [the module
/// docs](self).
#[derive(Clone, Copy)]
pub struct ApexPlugin<'a> {
    provider: &'a Provider,
    state: &'a ApexState,
}

impl std::fmt::Debug for ApexPlugin<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApexPlugin")
            .field("provider", &self.provider.name())
            .field("settings", &self.state.settings)
            .finish()
    }
}

impl Provider {
    /// The provider as the Apex agent sees it through `IApexPlugin` (see [`crate::apex`]).
    pub fn apex(&self) -> ApexPlugin<'_> {
        ApexPlugin {
            provider: self,
            state: self.apex_state(),
        }
    }
}

impl<'a> ApexPlugin<'a> {
    /// `getMetadataJson()`: `{id, name, version, versionName, minHostVersion, description}`.
    ///
    /// `id` is the app's package (the provider name without an [`App`]),
    /// `name`/`description` the provider's, `version`/`versionName` the app's own. A caller
    /// that may not discover the provider ([`Auth::gate_discovery`](crate::auth::Auth::gate_discovery))
    /// gets the error text instead, which a host refuses as metadata.
    pub fn metadata_json(&self, caller: &Caller) -> String {
        if let Some(refused) = self.discovery_refusal(Request::provider_info(), caller) {
            return refused;
        }
        let app = self.provider.app();
        json!({
            "id": app.map_or(self.provider.name(), App::package_name),
            "name": self.provider.name(),
            "version": app.map_or(0, App::version_code),
            "versionName": app.map_or("", App::version_name),
            "minHostVersion": self.state.settings.min_host_version,
            "description": self.provider.description(),
        })
        .to_string()
    }

    /// `getToolsJson()`: one `{id, name, description, parametersSchema}` per tool, in
    /// declaration order; `name` is the tool's title ([`ToolDescriptor::title`]: `#[tool(title =
    /// "…")]`, else derived from the name), `parametersSchema` the text of the tool's
    /// `list_tools` schema. A
    /// caller that may not discover the provider gets the error text instead.
    pub fn tools_json(&self, caller: &Caller) -> String {
        if let Some(refused) = self.discovery_refusal(Request::list_tools(), caller) {
            return refused;
        }
        self.id_table().tools_json.clone()
    }

    /// Asks the provider whether `caller` may discover it (the same check as for a CETP
    /// consumer); the error text if not.
    fn discovery_refusal(&self, request: Request<'_>, caller: &Caller) -> Option<String> {
        match self.provider.call(&request, caller) {
            Response::Success(_) => None,
            refused => Some(render(&refused)),
        }
    }

    /// The id every tool has for Apex, as `(id, tool name)` pairs in declaration order.
    pub fn tool_ids(&self) -> &[(String, String)] {
        &self.id_table().ids
    }

    /// `executeTool(toolId, argumentsJson)`: runs the tool through [`Provider::call`] for
    /// `caller` and renders the answer ([`render`]). Either argument may be null on the wire.
    pub fn execute(
        &self,
        tool_id: Option<&str>,
        arguments_json: Option<&str>,
        caller: &Caller,
    ) -> String {
        let table = self.id_table();
        let Some(name) = tool_id.and_then(|id| {
            table
                .ids
                .iter()
                .find(|(known, _)| known == id)
                .map(|(_, name)| name.as_str())
        }) else {
            let response = Response::Error(ToolError::tool_not_found(match tool_id {
                Some(id) => format!(
                    "no tool has the id `{}`; getToolsJson lists this plugin's tools",
                    printable(id)
                ),
                None => {
                    "executeTool needs a tool id; getToolsJson lists this plugin's tools".to_owned()
                }
            }));
            log::info!(
                "Apex executeTool from {} -> TOOL_NOT_FOUND",
                caller.describe()
            );
            return render(&response);
        };
        let mut request = Request::new(wire::METHOD_EXECUTE_TOOL).with_tool_name(name);
        if let Some(args) = arguments_json {
            request = request.with_args(args);
        }
        render(&self.provider.call(&request, caller))
    }

    /// `onActivate()`: counts the activation for `caller` and runs the
    /// [`Apex::on_activate`] hook, containing a panic.
    pub fn activate(&self, caller: &Caller) {
        self.provider.connections().update(caller, true);
        self.run_hook(
            "onActivate",
            self.state.settings.on_activate.as_deref(),
            caller,
        );
    }

    /// `onDeactivate()`: ends one activation of `caller` and runs the [`Apex::on_deactivate`]
    /// hook, containing a panic.
    pub fn deactivate(&self, caller: &Caller) {
        self.provider.connections().update(caller, false);
        self.run_hook(
            "onDeactivate",
            self.state.settings.on_deactivate.as_deref(),
            caller,
        );
    }

    /// The hosts that activated the plugin, most recent first (also in the admin state's
    /// `connections`).
    pub fn connections(&self) -> Vec<HostConnection> {
        self.provider.connections().snapshot()
    }

    /// How many lifecycle hooks have panicked since start-up.
    pub fn hook_failures(&self) -> u64 {
        self.state.hook_failures.load(Ordering::Relaxed)
    }

    fn run_hook(&self, what: &str, hook: Option<&Hook>, caller: &Caller) {
        let Some(hook) = hook else { return };
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| hook(caller))) {
            let count = self.state.hook_failures.fetch_add(1, Ordering::Relaxed) + 1;
            let text = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("<non-string panic payload>");
            log::error!(
                "Apex {what} hook panicked for {} (failure {count}): {text}",
                caller.describe()
            );
        }
    }

    fn id_table(&self) -> &IdTable {
        self.state.ids.get_or_init(|| {
            let label = label(
                self.provider
                    .app()
                    .map_or(self.provider.name(), App::package_name),
            );
            let tools = self.provider.tools();
            let ids: Vec<(String, String)> = tools
                .iter()
                .map(|t| {
                    (
                        tool_id(&self.state.settings.tool_ids, &label, &t.name),
                        t.name.clone(),
                    )
                })
                .collect();
            let entries: Vec<serde_json::Value> = tools
                .iter()
                .zip(&ids)
                .map(|(t, (id, _))| {
                    json!({
                        "id": id,
                        "name": t.title(),
                        "description": t.description,
                        "parametersSchema": t.parameters.to_string(),
                    })
                })
                .collect();
            IdTable {
                ids,
                tools_json: serde_json::Value::Array(entries).to_string(),
            }
        })
    }
}

/// Renders a CETP [`Response`] as `executeTool` returns it: the `data` text of a success, else
/// `Error: <CODE>: <message>` plus, with a resolution hint, a line `Hint: <hint>`.
///
/// ```
/// use cetp_provider::{Response, ToolError, apex};
/// assert_eq!(apex::render(&Response::success("[1,2]".into())), "[1,2]");
/// assert_eq!(
///     apex::render(&Response::Error(ToolError::rate_limited("too many calls"))),
///     "Error: RATE_LIMITED: too many calls"
/// );
/// ```
pub fn render(response: &Response) -> String {
    match response {
        Response::Success(data) => data.clone(),
        Response::Error(err) => {
            let mut text = format!(
                "{}{}: {}",
                wire::APEX_ERROR_PREFIX,
                err.code(),
                err.message()
            );
            if let Some(hint) = err.resolution_hint() {
                text.push_str(wire::APEX_HINT_PREFIX);
                text.push_str(hint);
            }
            text
        }
    }
}

/// The CETP error code of an `executeTool` result, if it is an error ([`render`]'s shape).
///
/// ```
/// use cetp_provider::{ErrorCode, apex};
/// assert_eq!(apex::error_code("Error: AUTH_REQUIRED: ask the user"), Some(ErrorCode::AuthRequired));
/// assert_eq!(apex::error_code(r#"{"hits":[]}"#), None);
/// ```
pub fn error_code(result: &str) -> Option<ErrorCode> {
    let rest = result.strip_prefix(wire::APEX_ERROR_PREFIX)?;
    let (code, _) = rest.split_once(": ")?;
    code.parse().ok()
}

/// The namespace label of a package or name: its last `.` segment, lower-cased, every character
/// outside `[a-z0-9]` replaced by `_`, with `_` in front if it would start with a digit.
fn label(package: &str) -> String {
    let last = package.rsplit('.').next().unwrap_or(package);
    let mut out: String = last
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn tool_id(scheme: &ToolIds, label: &str, name: &str) -> String {
    match scheme {
        ToolIds::ToolName => name.to_owned(),
        ToolIds::Prefix(prefix) => format!("{prefix}{name}"),
        ToolIds::AppLabel => {
            let room = MAX_TOOL_ID_LEN.saturating_sub(name.len() + 2);
            if room == 0 {
                return name.to_owned();
            }
            let short: String = label.chars().take(room).collect();
            format!("{short}__{name}")
        }
    }
}

/// Caller-supplied text echoed in a message: at most 80 characters, control characters escaped.
fn printable(text: &str) -> String {
    let mut out: String = text.chars().take(80).flat_map(char::escape_debug).collect();
    if text.chars().nth(80).is_some() {
        out.push('…');
    }
    out
}

/// Every tool id in a tools JSON array is a valid function name for LLM APIs.
#[cfg(test)]
fn valid_function_name(id: &str) -> bool {
    (1..=MAX_TOOL_ID_LEN).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && id
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{Approval, Auth};
    use crate::{AnyTool, CallContext, Tool, ToolError};

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct EchoArgs {
        /// Text to send back.
        #[schemars(length(min = 1, max = 10))]
        text: String,
    }

    struct Echo;

    impl Tool for Echo {
        type Args = EchoArgs;
        type Output = String;
        const NAME: &'static str = "echo_text";
        const DESCRIPTION: &'static str = "Returns its input.";
        const SCOPES: &'static [&'static str] = &["echo"];

        fn call(&self, args: EchoArgs, _ctx: &CallContext) -> Result<String, ToolError> {
            Ok(args.text)
        }
    }

    fn provider(auth: Auth, apex: Apex) -> Provider {
        Provider::builder("Echo Box")
            .description("Echoes")
            .scope("echo", "your echoes")
            .tools([AnyTool::new(Echo)])
            .auth(auth)
            .apex(apex)
            .build()
            .unwrap()
    }

    fn provider_in(app: App, auth: Auth, apex: Apex) -> Provider {
        Provider::builder("Echo Box")
            .description("Echoes")
            .scope("echo", "your echoes")
            .tools([AnyTool::new(Echo)])
            .auth(auth)
            .apex(apex)
            .app(app)
            .build()
            .unwrap()
    }

    fn host() -> Caller {
        Caller::app(10_300, "com.apex.agent").with_certificate("aa")
    }

    #[test]
    fn metadata_reports_the_app_and_the_provider() {
        let dir = tempfile::tempdir().unwrap();
        let app = App::new("com.example.echo", dir.path()).with_version(12, "1.2.0");
        let p = provider_in(app, Auth::open(), Apex::new().min_host_version(4));
        let meta: serde_json::Value =
            serde_json::from_str(&p.apex().metadata_json(&host())).unwrap();
        assert_eq!(
            meta,
            json!({"id": "com.example.echo", "name": "Echo Box", "version": 12,
                   "versionName": "1.2.0", "minHostVersion": 4, "description": "Echoes"})
        );
    }

    #[test]
    fn tools_carry_ids_titles_and_the_list_tools_schema_as_text() {
        let dir = tempfile::tempdir().unwrap();
        let app = App::new("com.example.Echo-Box", dir.path());
        let p = provider_in(app, Auth::open(), Apex::new());
        let tools: serde_json::Value = serde_json::from_str(&p.apex().tools_json(&host())).unwrap();
        let tool = &tools[0];
        assert_eq!(tool["id"], "echo_box__echo_text");
        assert_eq!(tool["name"], "Echo text");
        assert_eq!(tool["description"], "Returns its input.");
        let schema: serde_json::Value =
            serde_json::from_str(tool["parametersSchema"].as_str().unwrap()).unwrap();
        assert_eq!(schema, p.tools()[0].parameters);
        assert!(valid_function_name(tool["id"].as_str().unwrap()));
    }

    #[test]
    fn ids_follow_the_scheme_and_stay_valid_function_names() {
        assert_eq!(tool_id(&ToolIds::AppLabel, "notes", "get"), "notes__get");
        assert_eq!(tool_id(&ToolIds::ToolName, "notes", "get"), "get");
        assert_eq!(tool_id(&ToolIds::Prefix("n-".into()), "x", "get"), "n-get");
        assert_eq!(label("dev.cetp.samples.notes"), "notes");
        assert_eq!(label("com.example.3d"), "_3d");
        let long_label = "l".repeat(80);
        let name = "n".repeat(50);
        let id = tool_id(&ToolIds::AppLabel, &long_label, &name);
        assert_eq!(id.len(), 64);
        assert!(valid_function_name(&id), "{id}");
        let longest = "n".repeat(64);
        assert_eq!(tool_id(&ToolIds::AppLabel, "notes", &longest), longest);
    }

    #[test]
    fn a_bad_prefix_fails_the_build() {
        for prefix in ["", "has/slash", "9lives", &"p".repeat(33)] {
            let err = Provider::builder("P")
                .apex(Apex::new().tool_ids(ToolIds::Prefix(prefix.to_owned())))
                .build()
                .unwrap_err();
            assert!(matches!(err, BuildError::Apex(_)), "{prefix}: {err}");
        }
        struct Long;
        impl Tool for Long {
            type Args = serde_json::Map<String, serde_json::Value>;
            type Output = u8;
            const NAME: &'static str = "a_tool_name_that_is_thirty_three3";
            const DESCRIPTION: &'static str = "Long.";
            fn call(&self, _: Self::Args, _: &CallContext) -> Result<u8, ToolError> {
                Ok(0)
            }
        }
        let err = Provider::builder("P")
            .tools([AnyTool::new(Long)])
            .apex(Apex::new().tool_ids(ToolIds::Prefix("p".repeat(32))))
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("longer than 64"), "{err}");
    }

    #[test]
    fn execute_goes_through_authorization_and_validation() {
        let dir = tempfile::tempdir().unwrap();
        let app = App::new("com.example.echo", dir.path());
        let p = provider_in(app, Auth::user_approval(), Apex::new());
        let plugin = p.apex();
        let first = plugin.execute(Some("echo__echo_text"), Some(r#"{"text":"hi"}"#), &host());
        assert_eq!(error_code(&first), Some(ErrorCode::AuthRequired), "{first}");
        assert!(first.contains("\nHint: Open Echo Box"), "{first}");
        let pending = p.authorizer().pending();
        assert_eq!(pending[0].uid, Some(10_300));
        assert_eq!(pending[0].packages[0].name, "com.apex.agent");
        p.authorizer()
            .approve(&pending[0].id, Approval::as_listed(&pending[0]))
            .unwrap();
        assert_eq!(
            plugin.execute(Some("echo__echo_text"), Some(r#"{"text":"hi"}"#), &host()),
            r#""hi""#
        );
        let invalid = plugin.execute(Some("echo__echo_text"), Some(r#"{"text":""}"#), &host());
        assert!(
            invalid
                .starts_with("Error: INVALID_ARGS: invalid arguments for `echo_text`: at `/text`"),
            "{invalid}"
        );
        let direct = p.call(&Request::execute("echo_text", r#"{"text":""}"#), &host());
        assert_eq!(invalid, render(&direct));
        assert_eq!(
            error_code(&plugin.execute(None, None, &host())),
            Some(ErrorCode::ToolNotFound)
        );
        // The bare tool name is not an id under the default scheme.
        assert_eq!(
            error_code(&plugin.execute(Some("echo_text"), None, &host())),
            Some(ErrorCode::ToolNotFound)
        );
    }

    #[test]
    fn gated_discovery_applies_to_metadata_and_tools() {
        let dir = tempfile::tempdir().unwrap();
        let app = App::new("com.example.echo", dir.path());
        let p = provider_in(app, Auth::user_approval().gate_discovery(true), Apex::new());
        let plugin = p.apex();
        for text in [plugin.metadata_json(&host()), plugin.tools_json(&host())] {
            assert_eq!(error_code(&text), Some(ErrorCode::AuthRequired), "{text}");
            assert!(serde_json::from_str::<serde_json::Value>(&text).is_err());
        }
        let request = p.authorizer().pending().remove(0);
        p.authorizer()
            .approve(&request.id, Approval::as_listed(&request))
            .unwrap();
        let tools: serde_json::Value = serde_json::from_str(&plugin.tools_json(&host())).unwrap();
        assert_eq!(tools[0]["id"], "echo__echo_text");
    }

    #[test]
    fn activations_are_counted_per_host_and_hooks_are_contained() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let p = provider(
            Auth::open(),
            Apex::new()
                .on_activate(move |c| log.lock().unwrap().push(c.describe()))
                .on_deactivate(|_| panic!("release failed")),
        );
        let plugin = p.apex();
        plugin.activate(&host());
        plugin.activate(&host());
        plugin.deactivate(&host());
        plugin.activate(&Caller::app(10_301, "com.other.host"));
        assert_eq!(seen.lock().unwrap().len(), 3);
        assert_eq!(plugin.hook_failures(), 1);
        let hosts = plugin.connections();
        assert_eq!(hosts.len(), 2);
        assert_eq!(hosts[0].packages, ["com.other.host"]);
        assert_eq!((hosts[1].activations, hosts[1].active), (2, 1));
        let state: serde_json::Value =
            serde_json::from_str(&p.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
        assert_eq!(state["state"]["connections"][1]["activations"], 2);
        // A deactivation from a host never seen does not create an entry.
        plugin.deactivate(&Caller::app(1, "never.activated"));
        assert_eq!(plugin.connections().len(), 2);
    }

    #[test]
    fn the_host_table_is_bounded() {
        let p = provider(Auth::open(), Apex::new());
        for uid in 0..(MAX_TRACKED_HOSTS as u32 + 5) {
            p.apex().activate(&Caller::app(uid, format!("host.n{uid}")));
            p.apex()
                .deactivate(&Caller::app(uid, format!("host.n{uid}")));
        }
        assert_eq!(p.apex().connections().len(), MAX_TRACKED_HOSTS);
    }

    #[test]
    fn render_and_error_code_agree() {
        for code in ErrorCode::ALL {
            let text = render(&Response::Error(ToolError::new(code, "m")));
            assert_eq!(error_code(&text), Some(code));
        }
        assert_eq!(error_code("Error: NOPE: x"), None);
        assert_eq!(error_code("\"Error: INVALID_ARGS: x\""), None);
    }
}
