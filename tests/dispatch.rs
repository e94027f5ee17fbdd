//! `CetpV1Host::call` as an agent drives it: the three methods, the envelope, and a table of
//! malformed calls with the CETP error code each must produce.

mod common;

use cetp_provider::host::Request;
use cetp_provider::testing::{Agent, check_conformance};
use cetp_provider::{ErrorCode, Provider, Response, wire};
use serde_json::json;

#[test]
fn the_test_provider_is_conformant() {
    check_conformance(&common::provider()).unwrap();
}

#[test]
fn list_tools_serves_name_description_and_object_parameters() {
    let provider = common::provider();
    let data = Agent::new(&provider).list_tools().data_json().unwrap();
    let tools = data["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["search", "get_note", "explode", "huge"]);
    let search = &tools[0];
    assert_eq!(
        search["description"],
        "Searches notes by words in their title or body."
    );
    // The length bound is restated for models whose API or gateway drops `maxLength`.
    assert_eq!(
        search["parameters"]["properties"]["query"]["description"],
        "Words to look for. 1 to 100 characters."
    );
    assert_eq!(search["parameters"]["required"], json!(["query"]));
    // The CETP v1 fields, then the additive ones a v1 agent ignores.
    let keys: Vec<&String> = search.as_object().unwrap().keys().collect();
    assert_eq!(keys[..3], ["name", "description", "parameters"]);
    assert_eq!(keys[3..], ["title", "annotations"]); // `Hit` has no JsonSchema: no output_schema
}

#[test]
fn get_provider_info_lists_name_description_and_scopes() {
    let provider = common::provider();
    let data = Agent::new(&provider).provider_info().data_json().unwrap();
    assert_eq!(
        data,
        json!({
            "provider_name": "Test notes",
            "description": "Notes for tests",
            "scopes": [{"name": "notes.read", "description": "Read your notes"}]
        })
    );
}

#[test]
fn execute_tool_runs_the_tool_with_validated_arguments() {
    let provider = common::provider();
    let agent = Agent::new(&provider);
    let hits = agent
        .execute("search", r#"{"query":"milk","limit":2,"kind":"checklist"}"#)
        .data_json()
        .unwrap();
    assert_eq!(
        hits,
        json!([
            {"id": 1, "title": "milk #1 (Some(Checklist))"},
            {"id": 2, "title": "milk #2 (Some(Checklist))"}
        ])
    );
    let note = call(
        &agent,
        wire::METHOD_EXECUTE_TOOL,
        Some(&[
            (wire::EXTRA_TOOL_NAME, "get_note"),
            (wire::EXTRA_ARGS, r#"{"id":7}"#),
            (
                wire::EXTRA_REQUEST_ID,
                "4a7f3c1e-0000-4000-8000-000000000001",
            ),
        ]),
    );
    assert_eq!(
        note.data_json().unwrap()["title"],
        "note 7 for 4a7f3c1e-0000-4000-8000-000000000001"
    );
}

#[test]
fn absent_empty_and_null_args_mean_an_empty_object() {
    let provider = common::provider();
    let agent = Agent::new(&provider);
    for extras in [
        vec![(wire::EXTRA_TOOL_NAME, "explode")],
        vec![(wire::EXTRA_TOOL_NAME, "explode"), (wire::EXTRA_ARGS, "")],
        vec![
            (wire::EXTRA_TOOL_NAME, "explode"),
            (wire::EXTRA_ARGS, "null"),
        ],
        vec![
            (wire::EXTRA_TOOL_NAME, "explode"),
            (wire::EXTRA_ARGS, "  {} "),
        ],
    ] {
        // `explode` takes no arguments, so reaching its panic proves validation passed.
        let answer = call(&agent, wire::METHOD_EXECUTE_TOOL, Some(&extras));
        assert_eq!(
            answer.error_code(),
            Some(ErrorCode::InternalError),
            "{extras:?}"
        );
    }
    // `search` requires `query`, so an absent `args` is a missing property.
    let answer = call(
        &agent,
        wire::METHOD_EXECUTE_TOOL,
        Some(&[(wire::EXTRA_TOOL_NAME, "search")]),
    );
    assert_eq!(answer.error_code(), Some(ErrorCode::InvalidArgs));
    assert!(
        answer
            .error_message()
            .unwrap()
            .contains("\"query\" is a required property")
    );
}

#[test]
fn a_panicking_tool_answers_internal_error_without_leaking_the_panic() {
    let provider = common::provider();
    let answer = call(
        &Agent::new(&provider),
        wire::METHOD_EXECUTE_TOOL,
        Some(&[
            (wire::EXTRA_TOOL_NAME, "explode"),
            (wire::EXTRA_REQUEST_ID, "req-42"),
        ]),
    );
    assert_eq!(answer.error_code(), Some(ErrorCode::InternalError));
    let message = answer.error_message().unwrap();
    assert!(message.contains("request req-42"), "{message}");
    assert!(!message.contains(common::EXPLODE_MESSAGE), "{message}");
}

#[test]
fn an_oversized_result_is_refused_with_advice() {
    let provider = common::provider();
    let agent = Agent::new(&provider);
    // The limit counts wire bytes: the reply's strings as UTF-16, two bytes per ASCII byte.
    assert!(agent.execute("huge", r#"{"kib":127}"#).is_success());
    let answer = agent.execute("huge", r#"{"kib":150}"#);
    assert_eq!(answer.error_code(), Some(ErrorCode::InternalError));
    let message = answer.error_message().unwrap();
    assert!(
        message.starts_with("the result of `huge` is 301 KiB on the wire, over the 256 KiB"),
        "{message}"
    );
    assert!(message.contains("narrow the request"), "{message}");
}

#[test]
fn limits_are_configurable() {
    let provider = Provider::builder("Tight")
        .tools(cetp_provider::tools![common::huge])
        .auth(cetp_provider::auth::Auth::open())
        .max_args_bytes(32)
        .max_result_bytes(2200)
        .build()
        .unwrap();
    let agent = Agent::new(&provider);
    assert!(agent.execute("huge", r#"{"kib":1}"#).is_success());
    assert_eq!(
        agent.execute("huge", r#"{"kib":2}"#).error_code(),
        Some(ErrorCode::InternalError)
    );
    let long = agent.execute("huge", r#"{"kib":         1}"#);
    assert_eq!(long.error_code(), Some(ErrorCode::InvalidArgs));
    assert!(
        long.error_message()
            .unwrap()
            .contains("over the limit of 32 bytes")
    );
}

#[test]
fn a_tool_error_keeps_its_code_and_message() {
    let provider = common::provider();
    let answer = Agent::new(&provider).execute("get_note", r#"{"id":0}"#);
    assert_eq!(answer.error_code(), Some(ErrorCode::InvalidArgs));
    assert_eq!(
        answer.error_message(),
        Some("there is no note 0; ids start at 1")
    );
}

/// Calls `method` with the request a host reads from a Bundle holding the string `extras`
/// (`None` for a null Bundle): the three CETP keys, each absent when not there.
fn call(agent: &Agent<'_>, method: &str, extras: Option<&[(&str, &str)]>) -> Response {
    let extra = |key: &str| {
        extras
            .into_iter()
            .flatten()
            .find_map(|(k, v)| (*k == key).then_some(*v))
    };
    agent.call(&Request {
        method,
        tool_name: extra(wire::EXTRA_TOOL_NAME),
        args: extra(wire::EXTRA_ARGS),
        request_id: extra(wire::EXTRA_REQUEST_ID),
    })
}

/// A malformed call and the error code it must produce.
struct Case {
    what: &'static str,
    method: &'static str,
    extras: Option<&'static [(&'static str, &'static str)]>,
    code: ErrorCode,
    /// A fragment the message must contain, so the model can fix its call.
    says: &'static str,
}

const fn case(
    what: &'static str,
    method: &'static str,
    extras: Option<&'static [(&'static str, &'static str)]>,
    code: ErrorCode,
    says: &'static str,
) -> Case {
    Case {
        what,
        method,
        extras,
        code,
        says,
    }
}

fn search(args: &'static str) -> Option<&'static [(&'static str, &'static str)]> {
    let extras: &'static [(&'static str, &'static str)] = Box::leak(Box::new([
        (wire::EXTRA_TOOL_NAME, "search"),
        (wire::EXTRA_ARGS, args),
    ]));
    Some(extras)
}

fn malformed_cases() -> Vec<Case> {
    use ErrorCode::*;
    let exec = wire::METHOD_EXECUTE_TOOL;
    vec![
        case("empty method", "", None, ToolNotFound, "unknown method ``"),
        case(
            "unknown method",
            "delete_everything",
            None,
            ToolNotFound,
            "unknown method",
        ),
        case(
            "method in upper case",
            "LIST_TOOLS",
            None,
            ToolNotFound,
            "list_tools",
        ),
        case(
            "method with a trailing space",
            "list_tools ",
            None,
            ToolNotFound,
            "unknown method",
        ),
        case(
            "execute with null extras",
            exec,
            None,
            InvalidArgs,
            "tool_name",
        ),
        case(
            "execute with empty extras",
            exec,
            Some(&[]),
            InvalidArgs,
            "tool_name",
        ),
        case(
            "blank tool_name",
            exec,
            Some(&[("tool_name", "  ")]),
            InvalidArgs,
            "tool_name",
        ),
        case(
            "unknown tool",
            exec,
            Some(&[("tool_name", "drop_table")]),
            ToolNotFound,
            "no tool named `drop_table`",
        ),
        case(
            "tool name in another case",
            exec,
            Some(&[("tool_name", "Search")]),
            ToolNotFound,
            "list_tools",
        ),
        case(
            "namespaced tool name",
            exec,
            Some(&[("tool_name", "notes__search")]),
            ToolNotFound,
            "no tool named",
        ),
        case(
            "tool name with a control character",
            exec,
            Some(&[("tool_name", "sea\u{0}rch")]),
            ToolNotFound,
            "sea\\0rch",
        ),
        case(
            "args not JSON",
            exec,
            search("{query: milk}"),
            InvalidArgs,
            "not valid JSON",
        ),
        case(
            "args truncated",
            exec,
            search(r#"{"query":"mi"#),
            InvalidArgs,
            "not valid JSON",
        ),
        case(
            "args an array",
            exec,
            search(r#"["milk"]"#),
            InvalidArgs,
            "not an array",
        ),
        case(
            "args a string",
            exec,
            search(r#""milk""#),
            InvalidArgs,
            "not a string",
        ),
        case(
            "args a number",
            exec,
            search("42"),
            InvalidArgs,
            "not a number",
        ),
        case(
            "args a boolean",
            exec,
            search("true"),
            InvalidArgs,
            "not a boolean",
        ),
        case(
            "missing required property",
            exec,
            search(r#"{"limit":2}"#),
            InvalidArgs,
            "\"query\" is a required property",
        ),
        case(
            "required property null",
            exec,
            search(r#"{"query":null}"#),
            InvalidArgs,
            "at `/query`",
        ),
        case(
            "wrong type",
            exec,
            search(r#"{"query":7}"#),
            InvalidArgs,
            "at `/query`: 7 is not of type \"string\"",
        ),
        case(
            "unknown property",
            exec,
            search(r#"{"query":"a","sort":"date"}"#),
            InvalidArgs,
            "'sort' was unexpected",
        ),
        case(
            "enum value outside the set",
            exec,
            search(r#"{"query":"a","kind":"video"}"#),
            InvalidArgs,
            "at `/kind`",
        ),
        case(
            "number above the maximum",
            exec,
            search(r#"{"query":"a","limit":500}"#),
            InvalidArgs,
            "500 is greater than the maximum of 50",
        ),
        case(
            "number below the minimum",
            exec,
            search(r#"{"query":"a","limit":0}"#),
            InvalidArgs,
            "0 is less than the minimum of 1",
        ),
        case(
            "fractional integer",
            exec,
            search(r#"{"query":"a","limit":2.5}"#),
            InvalidArgs,
            "at `/limit`",
        ),
        case(
            "negative unsigned",
            exec,
            Some(&[("tool_name", "get_note"), ("args", r#"{"id":-1}"#)]),
            InvalidArgs,
            "at `/id`",
        ),
        case(
            "integer too large for u64",
            exec,
            Some(&[
                ("tool_name", "get_note"),
                ("args", r#"{"id":18446744073709551616}"#),
            ]),
            InvalidArgs,
            "get_note",
        ),
        case(
            "string too short",
            exec,
            search(r#"{"query":""}"#),
            InvalidArgs,
            "shorter than 1 character",
        ),
        case(
            "string too long",
            exec,
            search(Box::leak(
                format!(r#"{{"query":"{}"}}"#, "q".repeat(101)).into_boxed_str(),
            )),
            InvalidArgs,
            "longer than 100 characters",
        ),
        case(
            "several violations at once",
            exec,
            search(r#"{"limit":"ten","kind":1}"#),
            InvalidArgs,
            "; at `",
        ),
        case(
            "args over the size limit",
            exec,
            search(Box::leak(
                format!(r#"{{"query":"{}"}}"#, "q".repeat(70_000)).into_boxed_str(),
            )),
            InvalidArgs,
            "over the limit of 65536 bytes",
        ),
    ]
}

#[test]
fn malformed_calls_get_the_right_error_code_and_an_actionable_message() {
    let provider = common::provider();
    let agent = Agent::new(&provider);
    let cases = malformed_cases();
    assert!(cases.len() >= 25);
    let mut failures = Vec::new();
    for case in &cases {
        let answer = call(&agent, case.method, case.extras);
        let message = answer.error_message().unwrap_or("");
        if answer.error_code() != Some(case.code) || !message.contains(case.says) {
            failures.push(format!(
                "{}: expected {} containing {:?}, got {answer}",
                case.what, case.code, case.says
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn invalid_args_messages_remind_the_model_of_the_parameters() {
    let provider = common::provider();
    let answer = Agent::new(&provider).execute("search", r#"{"query":"a","limit":500}"#);
    assert_eq!(
        answer.error_message().unwrap(),
        "invalid arguments for `search`: at `/limit`: 500 is greater than the maximum of 50. \
         Expected {query: string (required), limit: integer, kind: one of \"text\"|\"checklist\"}."
    );
}

#[test]
fn declaration_mistakes_fail_the_build_with_what_to_change() {
    use cetp_provider::BuildError;

    let malformed = Provider::builder("P").scope("notes read", "x").build();
    assert!(matches!(malformed, Err(BuildError::BadScope(s)) if s == "notes read"));
    let twice = Provider::builder("P")
        .scope("notes.read", "a")
        .scope("notes.read", "b")
        .build();
    assert!(matches!(twice, Err(BuildError::BadScope(_))));

    /// Needs a scope nobody declared.
    #[cetp_provider::tool(scopes = ["calendar.read"])]
    fn agenda() -> Vec<String> {
        Vec::new()
    }
    let undeclared = Provider::builder("P")
        .tools(cetp_provider::tools![agenda])
        .build()
        .unwrap_err();
    assert_eq!(
        undeclared.to_string(),
        "tool `agenda` needs scope `calendar.read`, which the provider does not declare; add `.scope(\"calendar.read\", \"…\")`"
    );
    assert!(matches!(
        Provider::builder(" ").build(),
        Err(BuildError::EmptyName)
    ));
}

#[test]
fn a_borrowed_state_must_be_given_once_before_the_provider_builds() {
    use cetp_provider::BuildError;

    /// The app's settings.
    struct Settings(&'static str);

    /// Reads the settings.
    #[cetp_provider::tool]
    fn settings(settings: &Settings) -> &'static str {
        settings.0
    }

    let missing = Provider::builder("P")
        .tools(cetp_provider::tools![settings])
        .build()
        .unwrap_err();
    assert!(
        matches!(&missing, BuildError::MissingState { tool, state } if tool == "settings" && state.ends_with("Settings")),
        "{missing}"
    );
    assert!(missing.to_string().contains("add `.state(…)`"), "{missing}");

    let twice = Provider::builder("P")
        .tools(cetp_provider::tools![settings])
        .state(Settings("a"))
        .state(Settings("b"))
        .build()
        .unwrap_err();
    assert!(matches!(twice, BuildError::DuplicateState(state) if state.ends_with("Settings")));

    let provider = Provider::builder("P")
        .tools(cetp_provider::tools![settings])
        .state(Settings("dark mode"))
        .auth(cetp_provider::auth::Auth::open())
        .build()
        .unwrap();
    let answer = Agent::new(&provider).execute("settings", "{}");
    assert_eq!(answer.data_json().unwrap(), "dark mode");
}
