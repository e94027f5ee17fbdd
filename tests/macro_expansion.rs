//! What `#[tool]` generates: the function stays callable, the `Tool` constants, the argument
//! schema, context injection, return types, and registration through `tools!`.
#![deny(warnings)]
// The parameters here test the expansion (odd names, shadowing), not their descriptions: the
// warning for a parameter without a doc comment is tested in ui/undocumented_param.rs.
#![allow(deprecated)]

use cetp_provider::auth::Auth;
use cetp_provider::testing::Agent;
use cetp_provider::{
    CallContext, Caller, ErrorCode, Provider, Tool, ToolDescriptor, ToolError, tool, tools,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    title: String,
    tag: Option<String>,
}

/// Searches notes by words in their title or body.
///
/// Returns at most 20 hits,
/// newest first.
#[tool(scopes = ["notes.read", "notes.search"])]
pub fn search_notes(
    /// Words to look for.
    query: String,
    /// Only notes carrying this tag.
    tag: Option<String>,
    ctx: &CallContext,
) -> Result<Vec<Hit>, ToolError> {
    if query.is_empty() {
        return Err(ToolError::invalid_args("`query` must not be empty"));
    }
    let _ = ctx.request_id();
    Ok(vec![Hit { title: query, tag }])
}

/// Gets one note.
#[tool(name = "fetch_note")]
fn get_note(
    /// The note id.
    id: u64,
) -> String {
    format!("note {id}")
}

/// Says who is calling.
#[tool]
fn whoami(
    ctx: &CallContext,
    /** A greeting to prepend. */
    greeting: String,
) -> String {
    format!("{greeting}, {}", ctx.caller().describe())
}

/// Context in the middle.
#[tool]
fn middle(a: i32, ctx: &cetp_provider::CallContext, b: i32) -> (i32, String) {
    (a + b, ctx.tool_name().to_owned())
}

/// Takes nothing, returns nothing.
#[tool]
fn ping() {}

/// Takes nothing and answers.
#[tool]
pub(crate) fn answer() -> u32 {
    42
}

#[derive(Debug)]
pub enum LookupError {
    Missing(String),
}

impl From<LookupError> for ToolError {
    fn from(err: LookupError) -> Self {
        match err {
            LookupError::Missing(what) => ToolError::invalid_args(format!("no such item: {what}")),
        }
    }
}

/// Looks an item up.
#[tool]
fn lookup(
    /// The key.
    key: String,
) -> Result<u32, LookupError> {
    match key.as_str() {
        "one" => Ok(1),
        other => Err(LookupError::Missing(other.to_owned())),
    }
}

/// Reads a file-like thing.
#[tool]
fn io_result(fail: bool) -> std::io::Result<&'static str> {
    if fail {
        Err(std::io::Error::other("disk on fire"))
    } else {
        Ok("fine")
    }
}

/// Filters by kind.
#[tool]
fn r#match(
    /// The kind of thing.
    r#type: String,
    r#in: Option<Vec<String>>,
) -> Value {
    json!({ "type": r#type, "in": r#in })
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Newest first.
    Newest,
    /// Oldest first.
    Oldest,
}

fn twenty() -> u32 {
    20
}

/// Lists notes.
#[tool]
fn list_notes(
    /// How many notes to return.
    #[schemars(range(min = 1, max = 100))]
    #[serde(default = "twenty")]
    limit: u32,
    /// A title prefix.
    #[schemars(length(min = 1, max = 200), regex(pattern = r"^[a-z]+$"))]
    prefix: Option<String>,
    /// The order.
    order: Option<Order>,
    /// Explicitly defaulted option.
    #[serde(default)]
    flag: Option<bool>,
) -> Value {
    json!({ "limit": limit, "prefix": prefix, "order": order.map(|o| format!("{o:?}")), "flag": flag })
}

/// Parameters named like the generated code's internals.
#[tool]
#[allow(non_snake_case)]
fn shadowing(
    args: u8,
    ctx: u8,
    __field0: u8,
    __ignore: u8,
    deserializer: u8,
    __cetp_args: u8,
    __cetp_ctx: u8,
    __CetpArgs_shadowing: u8,
    context: &CallContext,
) -> u32 {
    let _ = context;
    u32::from(args)
        + u32::from(ctx)
        + u32::from(__field0)
        + u32::from(__ignore)
        + u32::from(deserializer)
        + u32::from(__cetp_args)
        + u32::from(__cetp_ctx)
        + u32::from(__CetpArgs_shadowing)
}

/// `mut` bindings are fine.
#[tool]
fn mutable(mut items: Vec<i32>) -> Vec<i32> {
    items.sort();
    items
}

pub mod notes {
    pub mod archive {
        use cetp_provider::tool;

        /// Counts archived notes.
        #[tool]
        pub fn count_archived() -> usize {
            7
        }

        /// Lists registrations made from inside a module.
        pub fn local_tools() -> Vec<cetp_provider::AnyTool> {
            cetp_provider::tools![self::count_archived, super::archive::count_archived]
        }
    }
}

fn descriptor<'p>(provider: &'p Provider, name: &str) -> &'p ToolDescriptor {
    provider
        .tools()
        .iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("tool `{name}` not registered"))
}

fn provider() -> Provider {
    Provider::builder("Macro tests")
        .auth(Auth::open())
        .scope("notes.read", "Read notes")
        .scope("notes.search", "Search notes")
        .tools(tools![
            search_notes,
            get_note,
            whoami,
            middle,
            ping,
            answer,
            lookup,
            io_result,
            r#match,
            list_notes,
            shadowing,
            mutable,
            notes::archive::count_archived,
        ])
        .build()
        .expect("the provider builds")
}

fn data(provider: &Provider, tool: &str, args: &str) -> Value {
    let answer = Agent::new(provider).execute(tool, args);
    assert!(
        answer.is_success(),
        "{tool}({args}) failed: {:?}",
        answer.error_message()
    );
    answer.data_json().expect("JSON data")
}

#[test]
fn functions_stay_callable() {
    let caller = Caller::app(10_001, "com.example");
    let ctx = CallContext::new(&caller);
    assert_eq!(
        search_notes("milk".into(), None, &ctx).unwrap(),
        vec![Hit {
            title: "milk".into(),
            tag: None
        }]
    );
    assert_eq!(get_note(3), "note 3");
    assert_eq!(middle(1, &ctx, 2).0, 3);
    ping();
    assert_eq!(answer(), 42);
    assert!(lookup("two".into()).is_err());
    assert_eq!(r#match("x".into(), None)["type"], "x");
    assert_eq!(notes::archive::count_archived(), 7);
    assert_eq!(mutable(vec![3, 1, 2]), [1, 2, 3]);
}

#[test]
fn constants() {
    assert_eq!(search_notes::NAME, "search_notes");
    assert_eq!(
        search_notes::DESCRIPTION,
        "Searches notes by words in their title or body.\n\nReturns at most 20 hits, newest first."
    );
    assert_eq!(search_notes::SCOPES, ["notes.read", "notes.search"]);
    assert_eq!(<get_note as Tool>::NAME, "fetch_note");
    assert_eq!(<get_note as Tool>::DESCRIPTION, "Gets one note.");
    assert!(<get_note as Tool>::SCOPES.is_empty());
    assert_eq!(<r#match as Tool>::NAME, "match");
    assert_eq!(
        <notes::archive::count_archived as Tool>::NAME,
        "count_archived"
    );
}

#[test]
fn schema_of_documented_parameters() {
    let provider = provider();
    let d = descriptor(&provider, "search_notes");
    assert_eq!(d.scopes, ["notes.read", "notes.search"]);
    assert_eq!(
        d.parameters,
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words to look for."},
                "tag": {"type": "string", "description": "Only notes carrying this tag."}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    );
}

#[test]
fn scoped_tool_runs() {
    let provider = provider();
    assert_eq!(
        data(
            &provider,
            "search_notes",
            r#"{"query": "milk", "tag": "food"}"#
        ),
        json!([{"title": "milk", "tag": "food"}])
    );
    let empty = Agent::new(&provider).execute("search_notes", r#"{"query": ""}"#);
    assert_eq!(empty.error_code(), Some(ErrorCode::InvalidArgs));
}

#[test]
fn name_override() {
    let provider = provider();
    assert!(provider.tools().iter().all(|d| d.name != "get_note"));
    assert_eq!(data(&provider, "fetch_note", r#"{"id": 9}"#), "note 9");
}

#[test]
fn context_is_injected_in_any_position() {
    let provider = provider();
    let whoami_schema = &descriptor(&provider, "whoami").parameters;
    assert_eq!(
        whoami_schema["properties"],
        json!({"greeting": {"type": "string", "description": "A greeting to prepend."}})
    );
    let answer = Agent::new(&provider)
        .as_caller(Caller::app(10_042, "com.example.agent"))
        .execute("whoami", r#"{"greeting": "hi"}"#);
    assert_eq!(
        answer.data_json().unwrap(),
        "hi, uid 10042 (com.example.agent)"
    );

    let middle_schema = &descriptor(&provider, "middle").parameters;
    assert_eq!(middle_schema["required"], json!(["a", "b"]));
    assert_eq!(
        data(&provider, "middle", r#"{"a": 1, "b": 2}"#),
        json!([3, "middle"])
    );
}

#[test]
fn optional_parameters() {
    let provider = provider();
    assert_eq!(
        descriptor(&provider, "search_notes").parameters["required"],
        json!(["query"])
    );
    assert_eq!(
        data(&provider, "match", r#"{"type": "t"}"#),
        json!({"type": "t", "in": null})
    );
    // Models often send `null` for an optional parameter.
    assert_eq!(
        data(&provider, "match", r#"{"type": "t", "in": null}"#),
        json!({"type": "t", "in": null})
    );
    let missing = Agent::new(&provider).execute("match", r#"{"in": []}"#);
    assert_eq!(missing.error_code(), Some(ErrorCode::InvalidArgs));
}

#[test]
fn no_parameters() {
    let provider = provider();
    for tool in ["ping", "answer", "count_archived"] {
        assert_eq!(
            descriptor(&provider, tool).parameters,
            json!({"type": "object", "properties": {}, "additionalProperties": false})
        );
    }
    assert_eq!(data(&provider, "ping", "{}"), Value::Null);
    assert_eq!(data(&provider, "answer", ""), 42);
    assert_eq!(data(&provider, "count_archived", "{}"), 7);
    let extra = Agent::new(&provider).execute("answer", r#"{"x": 1}"#);
    assert_eq!(extra.error_code(), Some(ErrorCode::InvalidArgs));
}

#[test]
fn result_returns() {
    let provider = provider();
    assert_eq!(data(&provider, "lookup", r#"{"key": "one"}"#), 1);
    let missing = Agent::new(&provider).execute("lookup", r#"{"key": "two"}"#);
    assert_eq!(missing.error_code(), Some(ErrorCode::InvalidArgs));
    assert!(
        missing
            .error_message()
            .unwrap()
            .contains("no such item: two")
    );

    assert_eq!(data(&provider, "io_result", r#"{"fail": false}"#), "fine");
    let failed = Agent::new(&provider).execute("io_result", r#"{"fail": true}"#);
    assert_eq!(failed.error_code(), Some(ErrorCode::InternalError));
}

#[test]
fn raw_identifiers_lose_their_prefix() {
    let provider = provider();
    let schema = &descriptor(&provider, "match").parameters;
    assert_eq!(schema["required"], json!(["type"]));
    assert_eq!(
        schema["properties"]["type"],
        json!({"type": "string", "description": "The kind of thing."})
    );
    assert_eq!(schema["properties"]["in"]["type"], "array");
    assert_eq!(
        data(&provider, "match", r#"{"type": "t", "in": ["a"]}"#),
        json!({"type": "t", "in": ["a"]})
    );
}

#[test]
fn forwarded_attributes_constrain_the_schema() {
    let provider = provider();
    let schema = &descriptor(&provider, "list_notes").parameters;
    assert!(schema.get("required").is_none(), "{schema}");
    let props = &schema["properties"];
    assert_eq!(props["limit"]["minimum"], 1);
    assert_eq!(props["limit"]["maximum"], 100);
    assert_eq!(props["limit"]["default"], 20);
    assert_eq!(props["prefix"]["minLength"], 1);
    assert_eq!(props["prefix"]["maxLength"], 200);
    assert_eq!(props["prefix"]["pattern"], "^[a-z]+$");
    assert_eq!(props["prefix"]["type"], "string");
    assert_eq!(props["order"]["enum"], json!(["newest", "oldest"]));
    assert_eq!(props["flag"]["type"], "boolean");

    assert_eq!(
        data(&provider, "list_notes", "{}"),
        json!({"limit": 20, "prefix": null, "order": null, "flag": null})
    );
    assert_eq!(
        data(
            &provider,
            "list_notes",
            r#"{"limit": 5, "prefix": "ab", "order": "oldest", "flag": true}"#
        ),
        json!({"limit": 5, "prefix": "ab", "order": "Oldest", "flag": true})
    );
    let agent = Agent::new(&provider);
    for bad in [
        r#"{"limit": 0}"#,
        r#"{"limit": 101}"#,
        r#"{"prefix": "AB"}"#,
        r#"{"prefix": ""}"#,
        r#"{"order": "random"}"#,
        r#"{"unknown": 1}"#,
    ] {
        let answer = agent.execute("list_notes", bad);
        assert_eq!(answer.error_code(), Some(ErrorCode::InvalidArgs), "{bad}");
    }
}

#[test]
fn internal_names_do_not_clash() {
    let provider = provider();
    let schema = &descriptor(&provider, "shadowing").parameters;
    assert_eq!(
        schema["required"],
        json!([
            "args",
            "ctx",
            "__field0",
            "__ignore",
            "deserializer",
            "__cetp_args",
            "__cetp_ctx",
            "__CetpArgs_shadowing"
        ])
    );
    let args = r#"{"args":1,"ctx":2,"__field0":3,"__ignore":4,"deserializer":5,
        "__cetp_args":6,"__cetp_ctx":7,"__CetpArgs_shadowing":8}"#;
    assert_eq!(data(&provider, "shadowing", args), 36);
}

#[test]
fn tools_in_modules() {
    let provider = provider();
    assert_eq!(data(&provider, "count_archived", "{}"), 7);
    let local = notes::archive::local_tools();
    assert_eq!(local.len(), 2);
    assert!(local.iter().all(|t| t.name() == "count_archived"));
}

#[test]
fn tools_inside_functions() {
    /// A tool declared in a function body.
    #[tool]
    fn inner(
        /// A number.
        n: i64,
    ) -> i64 {
        n * 2
    }

    assert_eq!(inner(2), 4);
    let provider = Provider::builder("Inner")
        .auth(Auth::open())
        .tools(tools![inner])
        .build()
        .unwrap();
    assert_eq!(data(&provider, "inner", r#"{"n": 21}"#), 42);
}

#[test]
fn empty_tools_list() {
    let none: Vec<cetp_provider::AnyTool> = tools![];
    assert!(none.is_empty());
}
