//! The [`Tool`] trait `#[tool]` implements, and the tool-name rule.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::context::CallContext;
use crate::error::ToolError;
use crate::schema::SchemaError;
use crate::state::StateType;

/// A read-only operation an agent can call through `execute_tool`.
///
/// You rarely implement this by hand: put `#[tool]` on a function instead. The macro derives
/// `Args` from the function's parameters (their doc comments become the schema descriptions),
/// takes `DESCRIPTION` from the function's doc comment and forwards [`Tool::call`] to the body.
///
/// A hand-written tool looks like this:
///
/// ```
/// use cetp_provider::{CallContext, Tool, ToolError};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct EchoArgs {
///     /// Text to send back.
///     text: String,
/// }
///
/// struct Echo;
///
/// impl Tool for Echo {
///     type Args = EchoArgs;
///     type Output = String;
///     const NAME: &'static str = "echo";
///     const DESCRIPTION: &'static str = "Returns its input.";
///
///     fn call(&self, args: EchoArgs, _ctx: &CallContext) -> Result<String, ToolError> {
///         Ok(args.text)
///     }
/// }
/// ```
///
/// A hand-written tool reads provider state with [`CallContext::state`] and lists the types
/// it reads in [`Tool::state_types`], so that a provider missing one fails to build:
///
/// ```
/// use cetp_provider::{BuildError, CallContext, Provider, StateType, Tool, ToolError};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct NoArgs {}
///
/// struct Greeting(String);
/// struct Greet;
///
/// impl Tool for Greet {
///     type Args = NoArgs;
///     type Output = String;
///     const NAME: &'static str = "greet";
///     const DESCRIPTION: &'static str = "Says the configured greeting.";
///
///     fn state_types() -> Vec<StateType> {
///         vec![StateType::of::<Greeting>()]
///     }
///
///     fn call(&self, _args: NoArgs, ctx: &CallContext) -> Result<String, ToolError> {
///         let greeting = ctx.state::<Greeting>().ok_or_else(|| ToolError::internal("no greeting"))?;
///         Ok(greeting.0.clone())
///     }
/// }
///
/// let missing = Provider::builder("Greeter").tool(Greet).build();
/// assert!(matches!(missing, Err(BuildError::MissingState { .. })));
/// let provider = Provider::builder("Greeter")
///     .tool(Greet)
///     .state(Greeting("Hello!".into()))
///     .build()
///     .unwrap();
/// # let _ = provider;
/// ```
pub trait Tool: Send + Sync + 'static {
    /// The arguments, deserialized from the `args` JSON object after schema validation.
    type Args: DeserializeOwned + schemars::JsonSchema;
    /// The result, serialized into `data`.
    type Output: Serialize;
    /// The tool name: `[a-z][a-z0-9_]{0,63}`, unique within the provider.
    const NAME: &'static str;
    /// What the tool does, written for the model that decides when to call it.
    const DESCRIPTION: &'static str;
    /// The scopes a caller must hold to run the tool (see [`crate::auth`]).
    const SCOPES: &'static [&'static str] = &[];
    /// A short human-readable name (`None`: derived from [`Tool::NAME`], see
    /// [`ToolDescriptor::title`](crate::ToolDescriptor::title)).
    const TITLE: Option<&'static str> = None;
    /// Calling the tool again with the same arguments gives the same answer while the app's
    /// data stays the same (MCP's `idempotentHint`).
    const IDEMPOTENT: bool = false;
    /// The tool reaches beyond the app's own data, e.g. a web service (MCP's `openWorldHint`).
    const OPEN_WORLD: bool = false;
    /// The tool may take seconds (`#[tool(long_running)]`). A CETP v2 agent that negotiated
    /// `async_operations` sees it as `execution: sync_or_async` and gets an operation to poll
    /// when a call outlasts the inline window; every other host calls it as any tool, under
    /// its deadline. Such a tool reports [`CallContext::progress`] and stops when
    /// [`CallContext::is_cancelled`].
    const LONG_RUNNING: bool = false;

    /// The JSON Schema of [`Tool::Output`], advertised as `output_schema` and checked against
    /// every result in debug builds. `None` (the default) advertises none; `#[tool]` fills it
    /// in whenever the result type implements `schemars::JsonSchema`. A hand-written tool
    /// returns `Some(cetp_provider::schema::output_schema::<Self::Output>())`.
    fn output_schema() -> Option<Result<serde_json::Value, SchemaError>> {
        None
    }

    /// The provider state types [`call`](Self::call) reads with [`CallContext::state`]. The
    /// provider refuses to build if one was not given to
    /// [`ProviderBuilder::state`](crate::ProviderBuilder::state). `#[tool]` lists the types of
    /// its `&T` parameters here; the default is none.
    fn state_types() -> Vec<StateType> {
        Vec::new()
    }

    /// Runs the tool.
    fn call(&self, args: Self::Args, ctx: &CallContext<'_>) -> Result<Self::Output, ToolError>;
}

/// The longest a tool name can be, in bytes ([`is_valid_tool_name`]): a longer `tool_name` names
/// no tool of any provider.
pub const MAX_TOOL_NAME_BYTES: usize = 64;

/// Whether `name` is a valid tool name: `[a-z][a-z0-9_]{0,63}`. The one rule: the provider
/// checks every tool with it when it builds, and `#[tool]` with it at compile time.
///
/// Agents prefix tool names with a namespace and LLM APIs accept at most 64 characters of
/// `[a-zA-Z0-9_-]`, so names stay short, lower-case ASCII.
pub const fn is_valid_tool_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_TOOL_NAME_BYTES || !bytes[0].is_ascii_lowercase() {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !(b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::is_valid_tool_name;

    #[test]
    fn the_tool_name_rule() {
        for valid in ["search_notes", "a", "notes_2", &"a".repeat(64)] {
            assert!(is_valid_tool_name(valid), "{valid}");
        }
        for invalid in [
            "",
            "_a",
            "1a",
            "Search",
            "search-notes",
            "é",
            &"a".repeat(65),
        ] {
            assert!(!is_valid_tool_name(invalid), "{invalid}");
        }
    }
}
