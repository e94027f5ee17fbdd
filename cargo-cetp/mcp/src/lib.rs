//! The MCP host: a `cetp-provider` provider as a [Model Context Protocol] server, so a
//! developer can call the app's tools from any MCP client (MCP Inspector, a desktop LLM app)
//! before shipping, and see exactly what an on-device agent gets.
//!
//! It is a developer tool, a crate of its own that no app ships: `cargo cetp mcp` builds the
//! app's provider for the desktop, links it with this crate and serves it over stdio through
//! [`McpHost::serve_stdio`].
//! Like every host it decides nothing itself; it answers from the provider's core for one
//! [`Caller`], chosen when the host is made (on a phone the platform names the caller; here the
//! developer does, and approves it or not, to see what an approved, a limited or an unapproved
//! agent gets):
//!
//! | MCP | answered by |
//! |---|---|
//! | `initialize` | the provider's name (`serverInfo.name`), the app's version, its description as `instructions`; the `tools` capability |
//! | `tools/list` | the core's authorization of discovery (`Provider::authorize` with `Need::Discovery`), then every tool as [`mcp_tool`] renders it |
//! | `tools/call` | the core's `Provider::execute` of the tool `Provider::tool` names, rendered by [`call_result`] |
//!
//! # What a tool looks like
//!
//! | CETP (`list_tools`) | MCP (`tools/list`) |
//! |---|---|
//! | `name`, `description` | `name`, `description` |
//! | `parameters` | `inputSchema` (the same normalized schema, validated by the provider) |
//! | `title` | `title` |
//! | `annotations` (`readOnlyHint`, …) | `annotations`, the same four hints |
//! | `output_schema` | `outputSchema`; a result schema that is not an object is wrapped as `{"type":"object","properties":{"result":…},"required":["result"]}`, because MCP's `outputSchema` and `structuredContent` are objects |
//!
//! # What a call returns
//!
//! A success is the result's JSON text as one text block, and, for a tool with an output
//! schema, the same value as `structuredContent` (inside `{"result": …}` when the schema was
//! wrapped). A CETP error is an MCP *tool* error (`isError: true`), never a protocol error, so
//! the client shows it as the model would read it: one text block with the code and message,
//! then the resolution hint and the authorize intent on lines of their own when the provider
//! sent them:
//!
//! ```text
//! AUTH_REQUIRED: the user has not yet allowed com.example.agent to read scope `notes.read` from Notes; ask the user to approve it in the Notes app, then call again
//! Hint: Open Notes (com.example.notes) and allow com.example.agent to read: your notes
//! Authorize intent: com.example.notes.CETP_AUTHORIZE
//! ```
//!
//! A caller that may not discover the provider (gated discovery) gets the refusal as the error
//! of `tools/list`.
//!
//! # Example
//!
//! ```
//! use cetp_mcp::McpHost;
//! use cetp_provider::{Caller, Provider, auth::Auth, tool, tools};
//!
//! /// Adds two integers.
//! #[tool]
//! fn add(
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! let provider = Provider::builder("Calculator").tools(tools![add]).auth(Auth::open()).build().unwrap();
//! let host = McpHost::new(&provider).with_caller(Caller::app(10_123, "com.example.agent"));
//!
//! let tools = host.list_tools().unwrap();
//! assert_eq!(tools[0].name, "add");
//! assert_eq!(tools[0].output_schema.as_ref().unwrap()["properties"]["result"]["type"], "integer");
//!
//! let args = serde_json::json!({"a": 2, "b": 40});
//! let answer = host.call_tool("add", args.as_object());
//! assert_eq!(answer.is_error, Some(false));
//! assert_eq!(answer.structured_content, Some(serde_json::json!({"result": 42})));
//!
//! let wrong = host.call_tool("add", serde_json::json!({"a": "two"}).as_object());
//! assert_eq!(wrong.is_error, Some(true));
//! let text = &wrong.content[0].as_text().unwrap().text;
//! assert!(text.starts_with("INVALID_ARGS: invalid arguments for `add`"), "{text}");
//! ```
//!
//! [Model Context Protocol]: https://modelcontextprotocol.io

use std::ops::Deref;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::IntoTransport;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

use cetp_provider::host::{CallSignals, Need, Progress, ToolCall, ToolDescriptor, printable};
use cetp_provider::{Caller, Provider, Response, ToolError};

/// The property a result that is not a JSON object is wrapped in, for MCP's `outputSchema` and
/// `structuredContent` (both objects).
pub const RESULT_PROPERTY: &str = "result";

/// Why serving MCP stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpServeError {
    /// The async runtime or the standard streams could not be set up.
    #[error("cannot start the MCP server: {0}")]
    Start(#[source] std::io::Error),
    /// The client did not complete the `initialize` handshake.
    #[error("the MCP client did not initialize the session: {0}")]
    Initialize(String),
    /// The session's task failed.
    #[error("the MCP session failed: {0}")]
    Session(String),
}

/// An MCP server over a [`Provider`], answering as one [`Caller`]. Like every host, it is
/// built from the provider it answers from (`&Provider`, or an `Arc<Provider>`, which serving
/// over stdio needs). Cheap to clone.
pub struct McpHost<P = Arc<Provider>> {
    inner: Arc<Inner<P>>,
    caller: Caller,
}

impl<P> Clone for McpHost<P> {
    fn clone(&self) -> Self {
        McpHost {
            inner: Arc::clone(&self.inner),
            caller: self.caller.clone(),
        }
    }
}

struct Inner<P> {
    provider: P,
    tools: Vec<Tool>,
    wrapped: Vec<bool>,
}

impl<P: Deref<Target = Provider>> std::fmt::Debug for McpHost<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHost")
            .field("provider", &self.inner.provider.name())
            .field("caller", &self.caller)
            .finish_non_exhaustive()
    }
}

impl<P: Deref<Target = Provider>> McpHost<P> {
    /// The MCP view of `provider`, every call made as an unknown caller until
    /// [`with_caller`](Self::with_caller) names one.
    pub fn new(provider: P) -> Self {
        let tools: Vec<Tool> = provider.tools().iter().map(mcp_tool).collect();
        let wrapped = provider
            .tools()
            .iter()
            .map(|t| t.output_schema().is_some_and(|s| !is_object_schema(s)))
            .collect();
        McpHost {
            inner: Arc::new(Inner {
                provider,
                tools,
                wrapped,
            }),
            caller: Caller::unknown(),
        }
    }

    /// Every call made as `caller`.
    #[must_use]
    pub fn with_caller(mut self, caller: Caller) -> Self {
        self.caller = caller;
        self
    }

    /// The provider this host answers from.
    pub fn provider(&self) -> &Provider {
        &self.inner.provider
    }

    /// The identity every call is made with.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// `tools/list`: every tool, if the caller may discover the provider.
    ///
    /// # Errors
    /// The refusal (`AUTH_REQUIRED`, `PERMISSION_DENIED`, `RATE_LIMITED`) when discovery is
    /// gated and the caller is not admitted.
    pub fn list_tools(&self) -> Result<Vec<Tool>, ToolError> {
        let inner = &self.inner;
        match inner.provider.authorize(&self.caller, Need::Discovery) {
            Ok(_) => Ok(inner.tools.clone()),
            Err(refused) => {
                let reply =
                    inner
                        .provider
                        .reply("tools/list", &self.caller, Response::Error(refused));
                Err(reply.error().cloned().unwrap_or_else(|| {
                    ToolError::internal("discovery was refused without an error")
                }))
            }
        }
    }

    /// `tools/call` of `name` with `arguments` (absent: `{}`), answered by the provider's core
    /// and rendered by [`call_result`]. Blocks while the tool runs.
    pub fn call_tool(&self, name: &str, arguments: Option<&JsonObject>) -> CallToolResult {
        self.call_tool_with(name, arguments, None)
    }

    /// [`call_tool`](Self::call_tool) with the call's signals: the tool's progress goes to
    /// them, and cancelling them stops the tool (as MCP's `notifications/cancelled` does).
    pub fn call_tool_with(
        &self,
        name: &str,
        arguments: Option<&JsonObject>,
        signals: Option<&Arc<CallSignals>>,
    ) -> CallToolResult {
        let inner = &self.inner;
        let provider = &inner.provider;
        let tool = provider.tool(name).ok_or_else(|| {
            ToolError::tool_not_found(format!(
                "no tool named `{}`; `tools/list` lists this server's tools",
                printable(name)
            ))
        });
        let wrapped = tool.as_ref().ok().is_some_and(|t| inner.wrapped[t.index()]);
        let structured = tool
            .as_ref()
            .ok()
            .is_some_and(|t| t.descriptor().output_schema().is_some());
        let args = arguments.map(|a| Value::Object(a.clone()).to_string());
        let mut call = ToolCall::new(tool).maybe_args(args.as_deref());
        if let Some(signals) = signals {
            call = call.signals(signals);
        }
        let response = provider.execute(call, &self.caller);
        call_result(&response, structured, wrapped)
    }
}

impl<P: Deref<Target = Provider> + Send + Sync + 'static> McpHost<P> {
    /// Serves MCP over `transport` until the client closes the session.
    ///
    /// # Errors
    /// [`McpServeError`] when the client does not initialize the session or the session fails.
    pub async fn serve<T, E, A>(self, transport: T) -> Result<(), McpServeError>
    where
        T: IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let running = ServiceExt::serve(self, transport)
            .await
            .map_err(|e| McpServeError::Initialize(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| McpServeError::Session(e.to_string()))?;
        Ok(())
    }

    /// Serves MCP over the process's stdin and stdout until the client closes stdin, on a
    /// runtime of its own (blocking the calling thread).
    ///
    /// stdout carries only MCP messages: on Unix the server writes them to a duplicate of the
    /// original stdout and points file descriptor 1 at stderr first, so a stray `println!` in
    /// a tool lands in stderr instead of breaking the client's stream. Logs belong on stderr.
    ///
    /// # Errors
    /// [`McpServeError`] when stdio or the runtime cannot be set up, or the session fails.
    pub fn serve_stdio(self) -> Result<(), McpServeError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(McpServeError::Start)?;
        runtime.block_on(async move {
            let output = protocol_stdout().map_err(McpServeError::Start)?;
            self.serve((tokio::io::stdin(), output)).await
        })
    }
}

/// The stream MCP messages go to: stdout, moved away from file descriptor 1 on Unix so that
/// nothing else written to stdout can reach the client.
#[cfg(unix)]
fn protocol_stdout() -> std::io::Result<tokio::fs::File> {
    use std::os::fd::FromRawFd;
    // Safety: `dup` and `dup2` take plain descriptor numbers; the new descriptor is checked and
    // owned by exactly one `File` from here on.
    let fd = unsafe { libc::dup(libc::STDOUT_FILENO) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // Safety: `fd` is a fresh descriptor no other object owns.
    let file = unsafe { std::fs::File::from_raw_fd(fd) };
    // Safety: as above; fd 1 now refers to stderr's open file.
    if unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(tokio::fs::File::from_std(file))
}

#[cfg(not(unix))]
fn protocol_stdout() -> std::io::Result<tokio::io::Stdout> {
    Ok(tokio::io::stdout())
}

impl<P: Deref<Target = Provider> + Send + Sync + 'static> ServerHandler for McpHost<P> {
    fn get_info(&self) -> ServerConfig {
        let provider = self.provider();
        let version = provider
            .app()
            .map(|app| app.version_name())
            .filter(|v| !v.is_empty())
            .unwrap_or("0");
        let mut config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(provider.name(), version));
        if !provider.description().trim().is_empty() {
            config = config.with_instructions(provider.description());
        }
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.list_tools()
            .map(ListToolsResult::with_all_items)
            .map_err(|refused| ErrorData::invalid_request(error_text(&refused), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let host = self.clone();
        // Progress goes out as `notifications/progress` when the client gave a token; the
        // tool reports on its own thread, so reports are queued for this task to send.
        let token = context.meta.get_progress_token();
        let (sender, mut reports) = tokio::sync::mpsc::unbounded_channel::<Progress>();
        let signals = Arc::new(match token {
            Some(_) => CallSignals::observed(move |progress| {
                let _ = sender.send(progress.clone());
            }),
            None => CallSignals::new(),
        });
        let forwarding = token.map(|token| {
            let peer = context.peer.clone();
            tokio::spawn(async move {
                while let Some(progress) = reports.recv().await {
                    #[allow(clippy::cast_precision_loss)] // Display data.
                    let mut param =
                        ProgressNotificationParam::new(token.clone(), progress.current as f64);
                    #[allow(clippy::cast_precision_loss)]
                    {
                        param.total = progress.total.map(|total| total as f64);
                    }
                    param.message = progress.message;
                    if peer.notify_progress(param).await.is_err() {
                        return;
                    }
                }
            })
        });
        // `notifications/cancelled` cancels the call's signals: the tool sees it, and its
        // deadline is past. The watcher holds them weakly, so the reports end with the call.
        let watched = Arc::downgrade(&signals);
        let cancelled = context.ct.clone();
        let watcher = tokio::spawn(async move {
            cancelled.cancelled().await;
            if let Some(signals) = watched.upgrade() {
                signals.cancel();
            }
        });
        // Tools block (a database, a file): keep them off the task that reads the stream.
        let result = tokio::task::spawn_blocking(move || {
            host.call_tool_with(&request.name, request.arguments.as_ref(), Some(&signals))
        })
        .await;
        watcher.abort();
        if let Some(forwarding) = forwarding {
            // Every report is sent before the result.
            let _ = forwarding.await;
        }
        let result = result.map_err(|e| {
            ErrorData::internal_error(format!("the tool call did not finish: {e}"), None)
        })?;
        Ok(result.into())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.tools.iter().find(|t| t.name == name).cloned()
    }
}

/// One tool as `tools/list` shows it: name, title, description, `inputSchema`, the four
/// annotations and, when the result type has a schema, `outputSchema` (wrapped in
/// `{"result": …}` when it is not an object schema).
///
/// ```
/// use cetp_mcp::mcp_tool;
/// use cetp_provider::{Provider, tool, tools};
///
/// /// Lists the user's tags.
/// #[tool(idempotent)]
/// fn list_tags() -> Vec<String> { Vec::new() }
///
/// let provider = Provider::builder("Notes").tools(tools![list_tags]).build().unwrap();
/// let tool = mcp_tool(&provider.tools()[0]);
/// let json = serde_json::to_value(&tool).unwrap();
/// assert_eq!(json["title"], "List tags");
/// assert_eq!(json["annotations"]["readOnlyHint"], true);
/// assert_eq!(json["annotations"]["idempotentHint"], true);
/// assert_eq!(json["inputSchema"]["type"], "object");
/// assert_eq!(json["outputSchema"]["properties"]["result"]["type"], "array");
/// ```
pub fn mcp_tool(descriptor: &ToolDescriptor) -> Tool {
    let annotations = descriptor.annotations();
    let mut tool = Tool::new(
        descriptor.name.clone(),
        descriptor.description.clone(),
        object(&descriptor.parameters),
    )
    .with_title(descriptor.title())
    .with_annotations(ToolAnnotations::from_raw(
        None,
        Some(annotations.read_only()),
        Some(annotations.destructive()),
        Some(annotations.idempotent()),
        Some(annotations.open_world()),
    ));
    if let Some(schema) = descriptor.output_schema() {
        let schema = if is_object_schema(schema) {
            schema.clone()
        } else {
            json!({
                "type": "object",
                "properties": { RESULT_PROPERTY: schema },
                "required": [RESULT_PROPERTY],
                "additionalProperties": false,
            })
        };
        tool = tool.with_raw_output_schema(Arc::new(object(&schema)));
    }
    tool
}

/// A CETP answer as MCP's `tools/call` result: a success's JSON text (plus `structuredContent`
/// when `structured`, inside `{"result": …}` when `wrapped`), or a tool error (`isError: true`)
/// whose one text block reads `CODE: message`, then `Hint: …` and `Authorize intent: …` lines
/// when the answer has them.
///
/// ```
/// use cetp_mcp::call_result;
/// use cetp_provider::{Response, ToolError};
///
/// let refused = ToolError::auth_required("not yet allowed")
///     .with_hint("Open Notes and allow it")
///     .with_authorize_intent("com.example.notes.CETP_AUTHORIZE");
/// let result = call_result(&Response::Error(refused), false, false);
/// assert_eq!(result.is_error, Some(true));
/// assert_eq!(
///     result.content[0].as_text().unwrap().text,
///     "AUTH_REQUIRED: not yet allowed\nHint: Open Notes and allow it\nAuthorize intent: com.example.notes.CETP_AUTHORIZE"
/// );
///
/// let ok = call_result(&Response::success("{\"n\":1}".into()), true, false);
/// assert_eq!(ok.structured_content, Some(serde_json::json!({"n": 1})));
/// ```
pub fn call_result(response: &Response, structured: bool, wrapped: bool) -> CallToolResult {
    match response {
        Response::Success(data) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(data.clone())]);
            if structured && let Ok(value) = serde_json::from_str::<Value>(data) {
                result.structured_content = Some(if wrapped {
                    json!({ RESULT_PROPERTY: value })
                } else {
                    value
                });
            }
            result
        }
        Response::Error(err) => CallToolResult::error(vec![ContentBlock::text(error_text(err))]),
    }
}

/// `CODE: message`, then the hint and the authorize intent on lines of their own.
fn error_text(err: &ToolError) -> String {
    let mut text = format!("{}: {}", err.code(), err.message());
    if let Some(hint) = err.resolution_hint() {
        text.push_str("\nHint: ");
        text.push_str(hint);
    }
    if let Some(intent) = err.authorize_intent() {
        text.push_str("\nAuthorize intent: ");
        text.push_str(intent);
    }
    text
}

fn is_object_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::from("object"))
}

fn object(value: &Value) -> JsonObject {
    match value {
        Value::Object(map) => map.clone(),
        _ => JsonObject::new(),
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use super::*;
    use cetp_provider::auth::Auth;
    use cetp_provider::testing::Agent;
    use cetp_provider::{AccessLevel, App, CallContext, ErrorCode, tool, tools};

    /// What the caller may see.
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Seen {
        /// `Full` or `Limited`.
        access: String,
        /// The words asked for.
        words: String,
    }

    /// Echoes the words, and how much the caller may see.
    #[tool(scopes = ["words.read"], idempotent)]
    fn echo(
        /// The words to echo.
        #[schemars(length(min = 1, max = 20))]
        words: String,
        ctx: &CallContext,
    ) -> Seen {
        Seen {
            access: format!("{:?}", ctx.access()),
            words,
        }
    }

    /// Counts to three.
    #[tool]
    fn count() -> Vec<u8> {
        vec![1, 2, 3]
    }

    /// Whether `wait` saw its cancellation.
    #[derive(Clone, Default)]
    struct SawCancel(Arc<std::sync::atomic::AtomicBool>);

    /// Reports two steps of progress; with `until_cancelled`, then waits until the call is
    /// cancelled.
    #[tool(long_running)]
    fn wait(
        /// Whether to wait for the cancellation.
        until_cancelled: bool,
        saw: &SawCancel,
        ctx: &CallContext,
    ) -> Result<u8, ToolError> {
        ctx.progress(1, 2, "Half");
        ctx.progress(2, 2, "Done");
        if until_cancelled {
            // No timing: the loop ends when the cancellation arrives, however late.
            while !ctx.deadline().is_past() {
                std::thread::yield_now();
            }
            saw.0
                .store(ctx.is_cancelled(), std::sync::atomic::Ordering::SeqCst);
            ctx.check_cancelled()?;
        }
        Ok(2)
    }

    fn provider(files: &std::path::Path, auth: Option<Auth>) -> Provider {
        provider_watched(files, auth, SawCancel::default())
    }

    fn provider_watched(files: &std::path::Path, auth: Option<Auth>, saw: SawCancel) -> Provider {
        let builder = Provider::builder("Words")
            .description("Words the user keeps")
            .scope("words.read", "your words")
            .tools(tools![echo, count, wait])
            .tool_deadline("wait", std::time::Duration::from_secs(24 * 3600))
            .state(saw)
            .app(App::new("com.example.words", files).with_version(3, "1.3"));
        match auth {
            Some(auth) => builder.auth(auth),
            None => builder,
        }
        .build()
        .unwrap()
    }

    fn agent() -> Caller {
        Caller::app(10_123, "com.example.agent").with_certificate("ab".repeat(32))
    }

    fn text(result: &CallToolResult) -> &str {
        &result.content[0].as_text().expect("a text block").text
    }

    #[test]
    fn tools_carry_title_annotations_and_output_schemas() {
        let dir = tempfile::tempdir().unwrap();
        let host =
            McpHost::new(Arc::new(provider(dir.path(), Some(Auth::open())))).with_caller(agent());
        let tools = host.list_tools().unwrap();
        let json: Vec<Value> = tools
            .iter()
            .map(|t| serde_json::to_value(t).unwrap())
            .collect();
        let cetp: Value = serde_json::from_str(host.provider().list_tools_json()).unwrap();
        assert_eq!(json[0]["name"], "echo");
        assert_eq!(json[0]["title"], "Echo");
        assert_eq!(json[0]["inputSchema"], cetp["tools"][0]["parameters"]);
        assert_eq!(json[0]["description"], cetp["tools"][0]["description"]);
        assert_eq!(
            json[0]["annotations"],
            json!({"readOnlyHint": true, "destructiveHint": false,
                   "idempotentHint": true, "openWorldHint": false})
        );
        // An object result schema is passed through, anything else is wrapped.
        assert_eq!(json[0]["outputSchema"], cetp["tools"][0]["output_schema"]);
        assert_eq!(
            json[1]["outputSchema"],
            json!({"type": "object", "properties": {"result": cetp["tools"][1]["output_schema"]},
                   "required": ["result"], "additionalProperties": false})
        );
    }

    #[test]
    fn calls_answer_structured_content_and_tool_errors() {
        let dir = tempfile::tempdir().unwrap();
        let host =
            McpHost::new(Arc::new(provider(dir.path(), Some(Auth::open())))).with_caller(agent());
        let ok = host.call_tool("echo", json!({"words": "hi"}).as_object());
        assert_eq!(ok.is_error, Some(false));
        assert_eq!(text(&ok), r#"{"access":"Full","words":"hi"}"#);
        assert_eq!(
            ok.structured_content,
            Some(json!({"access": "Full", "words": "hi"}))
        );
        let counted = host.call_tool("count", None);
        assert_eq!(
            counted.structured_content,
            Some(json!({"result": [1, 2, 3]}))
        );

        let long = host.call_tool("echo", json!({"words": "x".repeat(21)}).as_object());
        assert_eq!(long.is_error, Some(true));
        assert_eq!(long.structured_content, None);
        assert!(
            text(&long).starts_with("INVALID_ARGS: invalid arguments for `echo`: at `/words`"),
            "{}",
            text(&long)
        );
        let unknown = host.call_tool("nope", None);
        assert!(
            text(&unknown).starts_with("TOOL_NOT_FOUND: no tool named `nope`"),
            "{}",
            text(&unknown)
        );
    }

    #[test]
    fn the_caller_gets_what_its_approval_allows() {
        let dir = tempfile::tempdir().unwrap();
        let provider = Arc::new(provider(dir.path(), None));
        let host = McpHost::new(Arc::clone(&provider)).with_caller(agent());
        let refused = host.call_tool("echo", json!({"words": "hi"}).as_object());
        assert_eq!(refused.is_error, Some(true));
        let lines: Vec<&str> = text(&refused).lines().collect();
        assert!(lines[0].starts_with("AUTH_REQUIRED: "), "{lines:?}");
        assert_eq!(
            lines[1],
            "Hint: Open Words (com.example.words) and allow com.example.agent to read: your words"
        );
        assert_eq!(
            lines[2],
            "Authorize intent: com.example.words.CETP_AUTHORIZE"
        );

        Agent::new(&provider)
            .as_caller(agent())
            .approve(AccessLevel::Limited)
            .unwrap();
        let limited = host.call_tool("echo", json!({"words": "hi"}).as_object());
        assert_eq!(
            limited.structured_content,
            Some(json!({"access": "Limited", "words": "hi"}))
        );
    }

    #[test]
    fn gated_discovery_refuses_the_tool_list() {
        let dir = tempfile::tempdir().unwrap();
        let gated = Auth::user_approval().gate_discovery(true);
        let host = McpHost::new(Arc::new(provider(dir.path(), Some(gated)))).with_caller(agent());
        let refused = host.list_tools().unwrap_err();
        assert_eq!(refused.code(), ErrorCode::AuthRequired);
    }

    /// A whole session over an in-process pipe, as a client sends it.
    #[test]
    fn a_session_over_a_pipe() {
        let dir = tempfile::tempdir().unwrap();
        let host =
            McpHost::new(Arc::new(provider(dir.path(), Some(Auth::open())))).with_caller(agent());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let answers = runtime.block_on(async move {
            let (client, server) = tokio::io::duplex(1 << 16);
            let serving = tokio::spawn(host.serve(tokio::io::split(server)));
            let (read, mut write) = tokio::io::split(client);
            let mut lines = BufReader::new(read).lines();
            let mut answers = Vec::new();
            for message in [
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"}}}),
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"words": "hi"}}}),
                json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {}}}),
            ] {
                let has_id = message.get("id").is_some();
                write
                    .write_all(format!("{message}\n").as_bytes())
                    .await
                    .unwrap();
                if has_id {
                    let line = lines.next_line().await.unwrap().unwrap();
                    answers.push(serde_json::from_str::<Value>(&line).unwrap());
                }
            }
            // The client hangs up: both halves of its end closed.
            drop((write, lines));
            serving.await.unwrap().unwrap();
            answers
        });
        let init = &answers[0]["result"];
        assert_eq!(init["protocolVersion"], "2025-06-18");
        assert_eq!(init["serverInfo"]["name"], "Words");
        assert_eq!(init["serverInfo"]["version"], "1.3");
        assert_eq!(init["instructions"], "Words the user keeps");
        assert!(init["capabilities"]["tools"].is_object(), "{init}");
        let tools = &answers[1]["result"]["tools"];
        assert_eq!(tools[0]["name"], "echo");
        assert_eq!(tools[1]["name"], "count");
        let ok = &answers[2]["result"];
        assert_eq!(ok["isError"], false);
        assert_eq!(
            ok["structuredContent"],
            json!({"access": "Full", "words": "hi"})
        );
        let bad = &answers[3]["result"];
        assert_eq!(bad["isError"], true);
        let message = bad["content"][0]["text"].as_str().unwrap();
        assert!(
            message.starts_with("INVALID_ARGS: invalid arguments for `echo`"),
            "{message}"
        );
    }

    /// Writes each message as one line.
    async fn send_all(write: &mut (impl tokio::io::AsyncWrite + Unpin), messages: &[Value]) {
        for message in messages {
            write
                .write_all(format!("{message}\n").as_bytes())
                .await
                .unwrap();
        }
    }

    /// Reads messages into `seen` until `done(last message, how many this call read)`.
    async fn read_until(
        lines: &mut tokio::io::Lines<impl tokio::io::AsyncBufRead + Unpin>,
        seen: &mut Vec<Value>,
        done: impl Fn(&Value, usize) -> bool,
    ) {
        let mut read = 0;
        loop {
            let line = lines.next_line().await.unwrap().unwrap();
            let message: Value = serde_json::from_str(&line).unwrap();
            read += 1;
            let stop = done(&message, read);
            seen.push(message);
            if stop {
                return;
            }
        }
    }

    /// A long tool with a progress token sends `notifications/progress` before its result;
    /// `notifications/cancelled` stops a tool that waits for it.
    #[test]
    fn progress_notifications_and_cancellation() {
        let dir = tempfile::tempdir().unwrap();
        let saw = SawCancel::default();
        let provider = Arc::new(provider_watched(
            dir.path(),
            Some(Auth::open()),
            saw.clone(),
        ));
        let host = McpHost::new(provider).with_caller(agent());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let lines = runtime.block_on(async move {
            let (client, server) = tokio::io::duplex(1 << 16);
            let serving = tokio::spawn(host.serve(tokio::io::split(server)));
            let (read, mut write) = tokio::io::split(client);
            let mut lines = BufReader::new(read).lines();
            let mut seen = Vec::new();
            send_all(
                &mut write,
                &[
                    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                        "protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "test", "version": "1"}}}),
                    json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                        "name": "wait", "arguments": {"until_cancelled": false},
                        "_meta": {"progressToken": "p2"}}}),
                ],
            )
            .await;
            // The initialize answer, two progress notifications, the result.
            read_until(&mut lines, &mut seen, |_, read| read == 4).await;
            // A call that waits for its cancellation; its two progress notifications say it
            // runs.
            send_all(
                &mut write,
                &[
                    json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                    "name": "wait", "arguments": {"until_cancelled": true},
                    "_meta": {"progressToken": "p3"}}}),
                ],
            )
            .await;
            read_until(&mut lines, &mut seen, |_, read| read == 2).await;
            // Then the cancellation, then a list, whose answer ends the exchange.
            send_all(
                &mut write,
                &[
                    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": 3, "reason": "the user stopped it"}}),
                    json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
                ],
            )
            .await;
            read_until(&mut lines, &mut seen, |last, _| last["id"] == 4).await;
            drop((write, lines));
            let _ = serving.await;
            seen
        });
        let progress: Vec<&Value> = lines[1..3].iter().collect();
        for (n, note) in progress.iter().enumerate() {
            assert_eq!(note["method"], "notifications/progress", "{note}");
            assert_eq!(note["params"]["progressToken"], "p2");
            assert_eq!(note["params"]["progress"], json!(n as f64 + 1.0));
            assert_eq!(note["params"]["total"], json!(2.0));
        }
        assert_eq!(lines[1]["params"]["message"], "Half");
        assert_eq!(lines[3]["id"], 2, "the result after its progress");
        assert_eq!(lines[3]["result"]["isError"], false);
        assert_eq!(lines[4]["params"]["progressToken"], "p3");
        // The cancelled call stops: the tool saw the cancellation.
        while !saw.0.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::yield_now();
        }
    }

    /// A client of MCP's 2026-07-28 revision: stateless, no `initialize`; it discovers the
    /// server with `server/discover` and sends its protocol version and capabilities in every
    /// request's `_meta`.
    #[test]
    fn a_stateless_session_of_the_2026_07_28_revision() {
        let dir = tempfile::tempdir().unwrap();
        let host =
            McpHost::new(Arc::new(provider(dir.path(), Some(Auth::open())))).with_caller(agent());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        });
        let answers = runtime.block_on(async move {
            let (client, server) = tokio::io::duplex(1 << 16);
            let serving = tokio::spawn(host.serve(tokio::io::split(server)));
            let (read, mut write) = tokio::io::split(client);
            let mut lines = BufReader::new(read).lines();
            let mut answers = Vec::new();
            for message in [
                json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                       "params": {"_meta": meta}}),
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                       "params": {"_meta": meta}}),
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"words": "hi"}, "_meta": meta}}),
            ] {
                write
                    .write_all(format!("{message}\n").as_bytes())
                    .await
                    .unwrap();
                let line = lines.next_line().await.unwrap().unwrap();
                answers.push(serde_json::from_str::<Value>(&line).unwrap());
            }
            drop((write, lines));
            let _ = serving.await;
            answers
        });
        let discovered = &answers[0]["result"];
        assert!(
            discovered["capabilities"]["tools"].is_object(),
            "{}",
            answers[0]
        );
        let tools = &answers[1]["result"]["tools"];
        assert_eq!(tools[0]["name"], "echo", "{}", answers[1]);
        let ok = &answers[2]["result"];
        assert_eq!(ok["isError"], false, "{}", answers[2]);
        assert_eq!(
            ok["structuredContent"],
            json!({"access": "Full", "words": "hi"})
        );
    }
}
