//! [`ToolDescriptor`]: what `list_tools` says about a tool, and its [`Annotations`].

use serde::Serialize;

/// What a tool declares about itself (a [`Tool`](crate::Tool)'s constants), from which its
/// descriptor is made once its schemas are.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolFacts {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) scopes: &'static [&'static str],
    pub(crate) title: Option<&'static str>,
    pub(crate) idempotent: bool,
    pub(crate) open_world: bool,
    pub(crate) long_running: bool,
}

/// A tool as `list_tools` describes it.
///
/// The CETP v1 fields come first (`name`, `description`, `parameters`); `title`,
/// `annotations` and `output_schema` are additive (v1 agents ignore unknown fields).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDescriptor {
    /// The tool name.
    pub name: String,
    /// The description shown to the model.
    pub description: String,
    /// The normalized JSON Schema of the arguments (always an object schema).
    pub parameters: serde_json::Value,
    /// The scopes the tool needs; not part of the CETP v1 `list_tools` answer.
    #[serde(skip)]
    pub scopes: Vec<String>,
    title: String,
    annotations: Annotations,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<serde_json::Value>,
    /// Not part of the CETP v1 `list_tools` answer: v2 says it as `execution`.
    #[serde(skip)]
    long_running: bool,
}

impl ToolDescriptor {
    pub(crate) fn new(
        facts: &ToolFacts,
        parameters: serde_json::Value,
        output_schema: Option<serde_json::Value>,
    ) -> Self {
        ToolDescriptor {
            name: facts.name.to_owned(),
            description: facts.description.trim().to_owned(),
            parameters,
            scopes: facts.scopes.iter().map(|s| (*s).to_owned()).collect(),
            title: facts
                .title
                .map_or_else(|| default_title(facts.name), str::to_owned),
            annotations: Annotations {
                read_only_hint: true,
                destructive_hint: false,
                idempotent_hint: facts.idempotent,
                open_world_hint: facts.open_world,
            },
            output_schema,
            long_running: facts.long_running,
        }
    }

    /// A descriptor with default metadata, for unit tests of code that reads descriptors.
    #[cfg(test)]
    pub(crate) fn for_test(name: &str, parameters: serde_json::Value) -> Self {
        ToolDescriptor {
            name: name.to_owned(),
            description: format!("The {name} tool."),
            parameters,
            scopes: Vec::new(),
            title: default_title(name),
            annotations: Annotations {
                read_only_hint: true,
                destructive_hint: false,
                idempotent_hint: false,
                open_world_hint: false,
            },
            output_schema: None,
            long_running: false,
        }
    }

    /// A short name for people: `#[tool(title = "…")]`, or else the tool name with `_` as
    /// spaces and a capital first letter.
    ///
    /// ```
    /// use cetp_provider::{Provider, tool, tools};
    ///
    /// /// Searches the notes.
    /// #[tool]
    /// fn search_notes() -> Vec<String> { Vec::new() }
    ///
    /// /// Lists the tags.
    /// #[tool(title = "Your tags")]
    /// fn list_tags() -> Vec<String> { Vec::new() }
    ///
    /// let provider = Provider::builder("Notes").tools(tools![search_notes, list_tags]).build().unwrap();
    /// assert_eq!(provider.tools()[0].title(), "Search notes");
    /// assert_eq!(provider.tools()[1].title(), "Your tags");
    /// ```
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The behaviour hints, MCP's `ToolAnnotations`.
    pub fn annotations(&self) -> Annotations {
        self.annotations
    }

    /// Whether the tool may run long (`#[tool(long_running)]`, [`Tool::LONG_RUNNING`]): CETP
    /// v2's `execution: sync_or_async` for an agent that negotiated `async_operations`.
    ///
    /// [`Tool::LONG_RUNNING`]: crate::Tool::LONG_RUNNING
    pub fn long_running(&self) -> bool {
        self.long_running
    }

    /// The normalized JSON Schema of the result, when the result type has one.
    pub fn output_schema(&self) -> Option<&serde_json::Value> {
        self.output_schema.as_ref()
    }
}

/// `search_notes` → `Search notes`.
fn default_title(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// What a tool does to the world, in MCP's vocabulary (`readOnlyHint`, `destructiveHint`,
/// `idempotentHint`, `openWorldHint`, spelled as MCP spells them so an agent that bridges to
/// MCP passes the object through unchanged).
///
/// Every CETP v1 tool is read-only: `readOnlyHint` is always `true` and `destructiveHint`
/// always `false`. A tool that writes has no place in this SDK by design (`#[tool]` has no
/// attribute for it), because an agent calls tools without the user watching each call.
/// `#[tool(idempotent, open_world)]` set the other two.
///
/// In `list_tools`: `"annotations":{"readOnlyHint":true,"destructiveHint":false,
/// "idempotentHint":false,"openWorldHint":false}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    read_only_hint: bool,
    destructive_hint: bool,
    idempotent_hint: bool,
    open_world_hint: bool,
}

impl Annotations {
    /// Always `true`: the tool does not change anything.
    pub fn read_only(&self) -> bool {
        self.read_only_hint
    }

    /// Always `false`: the tool destroys nothing.
    pub fn destructive(&self) -> bool {
        self.destructive_hint
    }

    /// Whether repeating a call with the same arguments gives the same answer while the data
    /// stays the same.
    pub fn idempotent(&self) -> bool {
        self.idempotent_hint
    }

    /// Whether the tool reaches beyond the app's own data.
    pub fn open_world(&self) -> bool {
        self.open_world_hint
    }
}

#[cfg(test)]
mod tests {
    use super::default_title;

    #[test]
    fn default_titles() {
        assert_eq!(default_title("search_notes"), "Search notes");
        assert_eq!(default_title("a"), "A");
        assert_eq!(default_title("notes_between_2"), "Notes between 2");
    }
}
