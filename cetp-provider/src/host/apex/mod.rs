//! The Apex host: the Apex agent's `IApexPlugin` plugin interface over the [`Provider`].
//!
//! Apex discovers plugins as exported Services answering the intent action
//! [`wire::APEX_PLUGIN_ACTION`], binds one and talks to it through five AIDL methods. The
//! Android template's `dev.cetp.ApexPluginService` implements them with one JNI call each into
//! an [`ApexHost`], which answers from the provider's core, as every CETP call does:
//!
//! | `IApexPlugin` method | answered by |
//! |---|---|
//! | `getMetadataJson()` | [`ApexHost::metadata_json`] |
//! | `getToolsJson()` | [`ApexHost::tools_json`] |
//! | `executeTool(toolId, argumentsJson)` | [`ApexHost::execute`]: [`Provider::execute`] of the tool the id names |
//! | `onActivate()` / `onDeactivate()` | [`ApexHost::activate`] / [`ApexHost::deactivate`] |
//!
//! Nothing is decided here: validation, size limits, panic isolation, authorization (grants,
//! denials, scopes, limited access, rate limits, pending requests for the consent dialog) all
//! happen in the core, for the caller's Binder identity, exactly as for a CETP agent. This
//! host keeps its own tables (tool ids, the tools JSON, connected hosts), renames tools, renders
//! JSON and turns a [`Response`] into text.
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
//! `notes__search_notes`). It is the name a ClawSeed agent gives the same tool over CETP, so
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
//! throws. A caller that may not discover the provider (gated discovery) gets the same answer
//! for every tool id, known or not.
//!
//! # Approval
//!
//! An Apex host that is not yet approved gets `AUTH_REQUIRED` and is recorded as a pending
//! request under its Binder identity (UID, packages, certificate digests), so the app's approval
//! screen lists it next to CETP agents. Apex has no `authorize_intent`; the template's Service
//! posts a notification that opens the consent dialog instead (see `android-template/README.md`).
//!
//! # Lifecycle
//!
//! `onActivate`/`onDeactivate` count bindings per host (one entry per UID, at most
//! [`MAX_TRACKED_AGENTS`], inactive ones forgotten after a day; the consent dialog's state lists
//! them as `connections`). The hooks of [`Apex::on_activate`] / [`Apex::on_deactivate`] run only
//! for a caller that may discover the provider, and only when its first binding opens and its
//! last one closes: a host calling `onActivate` a thousand times runs the hook once. A host
//! with open bindings is never dropped from the table to make room: when all
//! [`MAX_TRACKED_AGENTS`] entries have open bindings, a newcomer is not counted and runs no hook,
//! and a caller the platform names no package for (an isolated process) takes no entry and
//! runs no hook. Hosts holding no grant take at most 24 of the entries, so a host the user
//! approved (or the allowlist names) is counted however many others activate and stay. When
//! the Service's last binding closes (`Service.onUnbind`, [`ApexHost::unbind_all`]), every
//! host's open bindings end, its `on_deactivate` hook runs and its entry stops holding room.
//!
//! # Example
//!
//! ```
//! use cetp_provider::host::apex::{Apex, ApexHost};
//! use cetp_provider::{App, Caller, Provider, auth::Auth, tool, tools};
//!
//! /// Adds two integers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 { a + b }
//!
//! let provider = Provider::builder("Calculator")
//!     .tools(tools![add])
//!     .auth(Auth::open())
//!     .host(Apex::new().min_host_version(2))
//!     .app(App::new("com.example.calc", "/data/user/0/com.example.calc/files").with_version(7, "1.7"))
//!     .build()
//!     .unwrap();
//! let plugin = ApexHost::new(&provider);
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

mod connections;
mod ids;

use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

pub use connections::{AgentConnection, MAX_TRACKED_AGENTS};
pub use ids::{MAX_TOOL_ID_LEN, ToolIds};

use crate::app::App;
use crate::caller::Caller;
use crate::descriptor::ToolDescriptor;
use crate::error::ToolError;
use crate::log_text::{Escaped, printable};
use crate::provider::{HostSettings, Need, Provider, ToolCall};
use crate::wire::{self, ErrorCode, Response};
use connections::{Connections, Transition};

type Hook = dyn Fn(&Caller) + Send + Sync;

/// The Apex plugin settings of a provider, given to [`ProviderBuilder::host`](crate::ProviderBuilder::host).
/// Without them the defaults of [`Apex::new`] apply; whether the app serves Apex at all is
/// decided in its manifest (see `android-template/README.md`).
///
/// ```
/// use cetp_provider::host::apex::{Apex, ToolIds};
/// use cetp_provider::Provider;
///
/// let provider = Provider::builder("Notes")
///     .host(
///         Apex::new()
///             .min_host_version(3)
///             .tool_ids(ToolIds::Prefix("mynotes_".into()))
///             .on_activate(|host| log::info!("{host} connected"))
///             .on_deactivate(|host| log::info!("{host} left")),
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

impl fmt::Debug for Apex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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

    /// Runs `hook` when a host that may discover the provider opens its first binding
    /// (`onActivate()`), e.g. to open a resource. A panic in it is caught and logged; the host
    /// sees nothing.
    pub fn on_activate(mut self, hook: impl Fn(&Caller) + Send + Sync + 'static) -> Self {
        self.on_activate = Some(Arc::new(hook));
        self
    }

    /// Runs `hook` when such a host closes its last binding (`onDeactivate()`). A panic in it
    /// is caught and logged.
    pub fn on_deactivate(mut self, hook: impl Fn(&Caller) + Send + Sync + 'static) -> Self {
        self.on_deactivate = Some(Arc::new(hook));
        self
    }
}

impl HostSettings for Apex {
    const HOST: &'static str = "Apex plugin";

    fn check(&self, tools: &[ToolDescriptor]) -> Result<(), String> {
        self.tool_ids.check(tools)
    }
}

/// The `IApexPlugin` view of a [`Provider`]: the provider, and the tables this host keeps of
/// its own (tool ids, the tools JSON, connected hosts). Like every host, it is built from the
/// provider it answers from (`&Provider`, or an `Arc<Provider>` to keep it). Build it once,
/// next to the provider.
pub struct ApexHost<P = Arc<Provider>> {
    provider: P,
    settings: Apex,
    /// `(id, tool index)` in declaration order.
    ids: Vec<String>,
    by_id: HashMap<String, usize>,
    tools_json: String,
    connections: Connections,
    hook_failures: AtomicU64,
}

impl<P: Deref<Target = Provider>> fmt::Debug for ApexHost<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApexHost")
            .field("provider", &self.provider.name())
            .field("settings", &self.settings)
            .field("ids", &self.ids)
            .finish_non_exhaustive()
    }
}

impl<P: Deref<Target = Provider>> ApexHost<P> {
    /// The Apex view of `provider`, with the settings given to [`ProviderBuilder::host`](crate::ProviderBuilder::host) (or
    /// the defaults).
    pub fn new(provider: P) -> Self {
        let settings = provider
            .host_settings::<Apex>()
            .cloned()
            .unwrap_or_default();
        let label = ids::label(provider.app().map_or(provider.name(), App::package_name));
        let ids: Vec<String> = provider
            .tools()
            .iter()
            .map(|t| settings.tool_ids.id(&label, &t.name))
            .collect();
        let by_id = ids
            .iter()
            .enumerate()
            .map(|(index, id)| (id.clone(), index))
            .collect();
        let entries: Vec<Value> = provider
            .tools()
            .iter()
            .zip(&ids)
            .map(|(tool, id)| {
                object([
                    (wire::APEX_KEY_ID, id.as_str().into()),
                    (wire::APEX_KEY_NAME, tool.title().into()),
                    (wire::APEX_KEY_DESCRIPTION, tool.description.as_str().into()),
                    (
                        wire::APEX_KEY_PARAMETERS_SCHEMA,
                        tool.parameters.to_string().into(),
                    ),
                ])
            })
            .collect();
        ApexHost {
            tools_json: Value::Array(entries).to_string(),
            provider,
            settings,
            ids,
            by_id,
            connections: Connections::default(),
            hook_failures: AtomicU64::new(0),
        }
    }

    /// The provider this host answers from.
    pub fn provider(&self) -> &Provider {
        &self.provider
    }

    /// `getMetadataJson()`: `{id, name, version, versionName, minHostVersion, description}`.
    ///
    /// `id` is the app's package (the provider name without an [`App`]),
    /// `name`/`description` the provider's, `version`/`versionName` the app's own. A caller
    /// that may not discover the provider ([`Auth::gate_discovery`](crate::auth::Auth::gate_discovery))
    /// gets the error text instead, which a host refuses as metadata.
    pub fn metadata_json(&self, caller: &Caller) -> String {
        if let Err(refused) = self.discover(caller, "getMetadataJson") {
            return refused;
        }
        let provider = &self.provider;
        let app = provider.app();
        object([
            (
                wire::APEX_KEY_ID,
                app.map_or(provider.name(), App::package_name).into(),
            ),
            (wire::APEX_KEY_NAME, provider.name().into()),
            (
                wire::APEX_KEY_VERSION,
                app.map_or(0, App::version_code).into(),
            ),
            (
                wire::APEX_KEY_VERSION_NAME,
                app.map_or("", App::version_name).into(),
            ),
            (
                wire::APEX_KEY_MIN_HOST_VERSION,
                self.settings.min_host_version.into(),
            ),
            (wire::APEX_KEY_DESCRIPTION, provider.description().into()),
        ])
        .to_string()
    }

    /// `getToolsJson()`: one `{id, name, description, parametersSchema}` per tool, in
    /// declaration order; `name` is the tool's title ([`ToolDescriptor::title`]: `#[tool(title =
    /// "…")]`, else derived from the name), `parametersSchema` the text of the tool's
    /// `list_tools` schema. A caller that may not discover the provider gets the error text
    /// instead.
    pub fn tools_json(&self, caller: &Caller) -> String {
        match self.discover(caller, "getToolsJson") {
            Ok(()) => self.tools_json.clone(),
            Err(refused) => refused,
        }
    }

    /// The id every tool has for Apex, as `(id, tool name)` pairs in declaration order.
    pub fn tool_ids(&self) -> impl Iterator<Item = (&str, &str)> {
        self.ids
            .iter()
            .zip(self.provider.tools())
            .map(|(id, tool)| (id.as_str(), tool.name.as_str()))
    }

    /// `executeTool(toolId, argumentsJson)` rendered as the host gets it ([`render`]).
    pub fn execute(
        &self,
        tool_id: Option<&str>,
        arguments_json: Option<&str>,
        caller: &Caller,
    ) -> String {
        render(&self.execute_response(tool_id, arguments_json, caller))
    }

    /// `executeTool(toolId, argumentsJson)`: [`Provider::execute`] of the tool `tool_id` names,
    /// for `caller`. Either argument may be null on the wire.
    pub fn execute_response(
        &self,
        tool_id: Option<&str>,
        arguments_json: Option<&str>,
        caller: &Caller,
    ) -> Response {
        let tool = match tool_id {
            // No id is longer: a longer one is not looked up or echoed.
            Some(id) if id.len() > MAX_TOOL_ID_LEN => Err(ToolError::tool_not_found(format!(
                "no tool has an id of {} bytes (at most {MAX_TOOL_ID_LEN}); getToolsJson lists this plugin's tools",
                id.len()
            ))),
            Some(id) => self
                .by_id
                .get(id)
                .and_then(|&index| self.provider.tool_at(index))
                .ok_or_else(|| {
                    ToolError::tool_not_found(format!(
                        "no tool has the id `{}`; getToolsJson lists this plugin's tools",
                        printable(id)
                    ))
                }),
            None => Err(ToolError::tool_not_found(
                "executeTool needs a tool id; getToolsJson lists this plugin's tools",
            )),
        };
        self.provider
            .execute(ToolCall::new(tool).maybe_args(arguments_json), caller)
    }

    /// `onActivate()`: counts a binding of `caller` and, for its first one, runs the
    /// [`Apex::on_activate`] hook (containing a panic). Nothing happens for a caller that may
    /// not discover the provider.
    pub fn activate(&self, caller: &Caller) {
        self.lifecycle(caller, true);
    }

    /// `onDeactivate()`: ends one binding of `caller` and, after its last one, runs the
    /// [`Apex::on_deactivate`] hook (containing a panic).
    pub fn deactivate(&self, caller: &Caller) {
        self.lifecycle(caller, false);
    }

    /// The Service's last binding closed (`Service.onUnbind`: every host unbound, or its
    /// process died): no host has a binding open any more. Each counted host that had one runs
    /// the [`Apex::on_deactivate`] hook (containing a panic) and its entry becomes inactive, the
    /// first to make room. The platform names no host here, and a host's own unbinding or
    /// death is told to the Service only when it was the last binding.
    pub fn unbind_all(&self) {
        for caller in self.connections.unbind_all(self.now_ms()) {
            if let Some(hook) = self.settings.on_deactivate.as_deref() {
                self.run_hook(hook, &caller, "onUnbind");
            }
        }
    }

    /// The hosts that activated the plugin, most recent first (also in the admin state's
    /// `connections`).
    pub fn connections(&self) -> Vec<AgentConnection> {
        self.connections.snapshot(self.now_ms())
    }

    /// How many lifecycle hooks have panicked since start-up.
    pub fn hook_failures(&self) -> u64 {
        self.hook_failures.load(Ordering::Relaxed)
    }

    fn now_ms(&self) -> u64 {
        self.provider.authorizer().clock().now_ms()
    }

    /// Whether `caller` may discover the provider; else the refusal as the host gets it.
    fn discover(&self, caller: &Caller, what: &str) -> Result<(), String> {
        match self.provider.authorize(caller, Need::Discovery) {
            Ok(_) => Ok(()),
            Err(refused) => Err(render(&self.provider.reply(
                what,
                caller,
                Response::Error(refused),
            ))),
        }
    }

    fn lifecycle(&self, caller: &Caller, activate: bool) {
        let what = if activate {
            "onActivate"
        } else {
            "onDeactivate"
        };
        if self.discover(caller, what).is_err() {
            return;
        }
        let granted = || self.provider.authorizer().holds_grant(caller);
        let hook = match self
            .connections
            .update(caller, activate, self.now_ms(), granted)
        {
            Transition::Connected => self.settings.on_activate.as_deref(),
            Transition::Disconnected => self.settings.on_deactivate.as_deref(),
            Transition::Unchanged => None,
        };
        if let Some(hook) = hook {
            self.run_hook(hook, caller, what);
        }
    }

    fn run_hook(&self, hook: &Hook, caller: &Caller, what: &str) {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| hook(caller))) {
            let count = self.hook_failures.fetch_add(1, Ordering::Relaxed) + 1;
            // The panic's text is the app's and may quote anything: it is not logged.
            drop(payload);
            log::error!(
                "Apex {what} hook panicked for {} (failure {count})",
                Escaped(caller)
            );
        }
    }
}

/// A JSON object of `entries`, in their order.
fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    let mut map = Map::with_capacity(N);
    for (key, value) in entries {
        map.insert(key.to_owned(), value);
    }
    Value::Object(map)
}

/// Renders a CETP [`Response`] as `executeTool` returns it: the `data` text of a success, else
/// `Error: <CODE>: <message>` plus, with a resolution hint, a line `Hint: <hint>`.
///
/// ```
/// use cetp_provider::host::{Response, apex};
/// use cetp_provider::ToolError;
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
/// use cetp_provider::ErrorCode;
/// use cetp_provider::host::apex;
/// assert_eq!(apex::error_code("Error: AUTH_REQUIRED: ask the user"), Some(ErrorCode::AuthRequired));
/// assert_eq!(apex::error_code(r#"{"hits":[]}"#), None);
/// ```
pub fn error_code(result: &str) -> Option<ErrorCode> {
    let rest = result.strip_prefix(wire::APEX_ERROR_PREFIX)?;
    let (code, _) = rest.split_once(": ")?;
    code.parse().ok()
}

#[cfg(test)]
mod tests;
