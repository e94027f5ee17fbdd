//! The `#[tool]` attribute of [cetp-provider](https://docs.rs/cetp-provider).
//!
//! Use it through `cetp_provider::tool`; this crate only holds the procedural macro. The
//! generated code refers to `::cetp_provider`, so the crate using `#[tool]` must depend on
//! `cetp-provider` under that name.
#![deny(missing_docs)]

mod attr;
mod docs;
mod expand;

use proc_macro::TokenStream;

/// Turns a documented function into a CETP tool.
///
/// ```
/// use cetp_provider::{tool, tools, CallContext, Provider, ToolError};
///
/// /// One note that matched.
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// pub struct Hit {
///     /// The note's id.
///     id: u32,
///     /// Its title.
///     title: String,
/// }
///
/// /// Searches notes by words in their title or body.
/// ///
/// /// Returns at most 20 hits, newest first.
/// #[tool(scopes = ["notes.read"])]
/// pub fn search_notes(
///     /// Words to look for.
///     #[schemars(length(min = 1, max = 200))]
///     query: String,
///     /// Only notes carrying this tag.
///     tag: Option<String>,
///     ctx: &CallContext,
/// ) -> Result<Vec<Hit>, ToolError> {
///     let _ = (query, tag, ctx.access()); // look the notes up here
///     Ok(Vec::new())
/// }
///
/// let provider = Provider::builder("Notes")
///     .scope("notes.read", "your notes")
///     .tools(tools![search_notes])
///     .build()?;
/// # Ok::<(), cetp_provider::BuildError>(())
/// ```
///
/// The function stays as written and can still be called directly (the macro only removes the
/// parameter attributes it consumes, and allows `clippy::too_many_arguments` and
/// `clippy::needless_pass_by_value` on it, since every parameter is a JSON property taken by
/// value). Next to it the macro emits
/// a hidden, field-less struct with the same name (it lives in the type namespace, so it does
/// not clash with the function) that implements `cetp_provider::Tool`; `tools![search_notes]`
/// instantiates that struct. The struct has the visibility of the function, so a tool can be
/// registered wherever the function can be called: `tools![search_notes, notes::get_note]`.
///
/// # Attribute arguments
///
/// All are optional and separated by commas: `#[tool]`, `#[tool(name = "...")]`,
/// `#[tool(scopes = [...], title = "...", idempotent)]`.
///
/// - `name = "find_notes"`: the tool name. Defaults to the function name (without `r#`). It
///   must match `[a-z][a-z0-9_]{0,63}`.
/// - `scopes = ["notes.read", ...]`: the scopes a caller must hold (`Tool::SCOPES`). A scope
///   starts with an ASCII letter and contains only ASCII letters, digits, `.`, `_`, `-` and `:`,
///   at most 128 characters; each scope is listed once.
/// - `title = "Search notes"`: a short name for people (`Tool::TITLE`), one line of at most 64
///   characters. Defaults to the tool name with `_` as spaces and a capital first letter
///   (`search_notes` → `Search notes`); `list_tools` sends it as `title`.
/// - `idempotent`: repeating a call with the same arguments gives the same answer while the
///   app's data is unchanged (`annotations.idempotentHint: true`).
/// - `open_world`: the tool reaches beyond the app's own data, e.g. a web service
///   (`annotations.openWorldHint: true`).
/// - `long_running`: the tool may take seconds (a search over everything, a yearly report).
///   A CETP v2 agent that negotiated `async_operations` sees it as `execution:
///   sync_or_async`: a call still running after a short inline window is answered `accepted`
///   with an operation the agent polls (progress from `CallContext::progress`) and may
///   cancel (`CallContext::is_cancelled`). CETP v1, Apex and MCP call it as any other tool,
///   under its deadline (`ProviderBuilder::tool_deadline`).
///
/// Every tool is read-only (`annotations.readOnlyHint: true`, `destructiveHint: false`): there
/// is no attribute for a tool that writes, and `destructive` or `read_only` are compile errors,
/// because agents call tools without the user watching each call.
///
/// # Description
///
/// The function's doc comment is required: it becomes `Tool::DESCRIPTION`, the text the model
/// reads to decide when to call the tool. Common indentation is removed, the lines of a
/// paragraph are joined with spaces, paragraphs are separated by a blank line, and list items,
/// headings, tables and code blocks keep their own lines.
///
/// # Parameters
///
/// Each parameter becomes a property of the JSON arguments object, in declaration order:
///
/// - its name (without `r#`, so `r#type: String` is the property `type`) is the property name;
/// - its doc comment becomes the property's `description`;
/// - its type must implement `serde::Deserialize` and `schemars::JsonSchema`, and is taken by
///   value (`String`, not `&str`);
/// - `Option<T>` parameters are optional: missing (or `null`) means `None`, and they are not
///   listed in `required`. All other parameters are required;
/// - `#[schemars(...)]`, `#[serde(...)]`, `#[validate(...)]` and `#[garde(...)]` attributes on a
///   parameter are moved onto the generated field, so the usual
///   [schemars attributes](https://graham.cool/schemars/deriving/attributes/) constrain it:
///
/// ```
/// use cetp_provider::tool;
///
/// /// A note.
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// pub struct Note {
///     /// Its title.
///     title: String,
/// }
///
/// fn twenty() -> u32 {
///     20
/// }
///
/// /// Lists the newest notes.
/// #[tool]
/// fn recent_notes(
///     /// How many notes to return.
///     #[schemars(range(min = 1, max = 100))]
///     #[serde(default = "twenty")]
///     limit: u32,
///     /// A pattern the title must match.
///     #[schemars(regex(pattern = r"^[a-z]+$"), length(max = 200))]
///     title: Option<String>,
/// ) -> Vec<Note> {
///     let _ = (limit, title); // read the notes here
///     Vec::new()
/// }
/// ```
///
/// Unknown properties are rejected (`additionalProperties: false`).
///
/// Two kinds of reference parameters are injected by the provider and never appear in the
/// schema:
///
/// - one `&CallContext` (in any position) receives the call context: the caller's identity,
///   the request id and the access level;
/// - any other `&T` of a sized type borrows **provider state**, the value of type `T` given to
///   `ProviderBuilder::state` (a database pool, a client, settings); a provider whose tool
///   borrows a type it was not given does not build.
///
/// ```
/// use cetp_provider::{CallContext, Provider, ToolError, tool, tools};
///
/// /// A note.
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// pub struct Note {
///     /// Its title.
///     title: String,
/// }
///
/// /// The app's notes, opened once (a connection pool in a real app).
/// pub struct NotesDb(Vec<String>);
///
/// /// Finds a note by id.
/// #[tool]
/// fn get_note(
///     /// The note's id, from `search_notes`.
///     id: u32,
///     db: &NotesDb,            // provider state: `.state(NotesDb(...))`
///     ctx: &CallContext,       // the call context
/// ) -> Result<Note, ToolError> {
///     let _ = ctx.access();
///     let title = db.0.get(id as usize).ok_or_else(|| ToolError::invalid_args("no such note"))?;
///     Ok(Note { title: title.clone() })
/// }
///
/// let provider = Provider::builder("Notes")
///     .tools(tools![get_note])
///     .state(NotesDb(vec!["Groceries".to_owned()]))
///     .build()?;
/// # Ok::<(), cetp_provider::BuildError>(())
/// ```
///
/// Every other parameter should have a doc comment: it is the only description of the
/// property the model gets. A parameter without one compiles, with a warning at the parameter
/// (lint `deprecated`, the way stable procedural macros can warn).
///
/// # Return type
///
/// - `T` where `T: serde::Serialize`: the value is the tool's result;
/// - `Result<T, E>` (any type whose last path segment is `Result`, e.g. `io::Result<T>`) with
///   `T: Serialize` and `E: Into<cetp_provider::ToolError>`: `Err` becomes a CETP error;
/// - no return type: the result is `null`.
///
/// When the result type (the `T`) implements `schemars::JsonSchema`, its normalized schema is
/// advertised as the tool's `output_schema`, and debug builds check every result against it.
///
/// # Compile errors
///
/// The macro rejects, with a message that says how to fix it:
///
/// - a function without a doc comment;
/// - an invalid tool name, an unknown attribute key, malformed, empty, invalid or duplicate
///   scopes, an empty or multi-line title, a value on a flag (`idempotent = true`), a write
///   hint (`destructive`);
/// - `async fn` (CETP calls arrive on a Binder thread that blocks until the answer: do the
///   work blocking, or call your runtime's `block_on` inside the function), `unsafe fn`, generic
///   functions and `self` receivers;
/// - arguments taken by reference (`&str`, `&[T]`, `&Path`: take `String`, `Vec<T>`,
///   `PathBuf`), `&mut T` parameters (provider state is shared by every call), `impl Trait`
///   parameters or return types, patterns instead of plain names, duplicate names, `#[cfg]` on
///   a parameter, more than one `&CallContext`, and argument attributes (`#[schemars]`,
///   `#[serde]`) on an injected parameter.
///
/// Types that do not implement the required traits are reported by the compiler at the
/// parameter or return type.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}
