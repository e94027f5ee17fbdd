//! What the provider logs on every error path, captured line by line (`capture_logs`, its own
//! test binary: a process has one logger): codes, tool names and counts, never a value the
//! caller sent (each carries a marker) nor the text of an error the tool or the validator wrote.

use cetp_provider::auth::Auth;
use cetp_provider::host::Request;
use cetp_provider::host::apex::{Apex, ApexHost};
use cetp_provider::host::cetp_v2::{CetpV2Host, Code, V2Request};
use cetp_provider::schema::SchemaError;
use cetp_provider::testing::{Agent, capture_logs};
use cetp_provider::{
    CallContext, Caller, ErrorCode, Provider, Response, Tool, ToolError, tool, tools,
};
use serde_json::{Value, json};

const MARKER: &str = "ZQXSECRET4711";

/// Looks something up.
#[tool]
fn lookup(
    /// What to look for, e.g. "milk".
    #[schemars(length(max = 20))]
    query: String,
    /// How many answers at most, e.g. 5.
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u32>,
) -> Result<Vec<String>, ToolError> {
    let _ = limit;
    if query.chars().any(char::is_alphabetic) {
        Err(ToolError::invalid_args(format!(
            "the query `{query}` matches no shelf label"
        )))
    } else {
        Ok(Vec::new())
    }
}

/// Fails in a way the app did not plan.
#[tool]
fn explode(
    /// What to fail on, e.g. "x".
    text: String,
) -> String {
    panic!("cannot handle {text}")
}

/// Returns a result that breaks its own output schema, quoting the argument.
struct Mislabeled;

impl Tool for Mislabeled {
    type Args = serde_json::Map<String, Value>;
    type Output = Value;
    const NAME: &'static str = "mislabeled";
    const DESCRIPTION: &'static str = "Returns a count.";

    fn output_schema() -> Option<Result<Value, SchemaError>> {
        Some(Ok(json!({
            "type": "object",
            "properties": {"count": {"type": "integer"}},
        })))
    }

    fn call(&self, args: Self::Args, _: &CallContext) -> Result<Value, ToolError> {
        Ok(json!({"count": args.get("text").cloned().unwrap_or_default()}))
    }
}

fn provider() -> Provider {
    Provider::builder("Shelves")
        .tools(tools![lookup, explode])
        .tool(Mislabeled)
        .auth(Auth::open())
        .max_args_bytes(4_096)
        .host(Apex::new().on_activate(|_| panic!("hook saw {MARKER}")))
        .build()
        .unwrap()
}

fn agent() -> Caller {
    Caller::app(10_001, "com.example.agent").with_certificate("aa")
}

/// `lines` record `response` by its code and quote neither the marker nor its message.
fn assert_private(what: &str, response: &Response, lines: &[String]) {
    let code = response.error_code().expect("an error path");
    assert!(
        lines.iter().any(|l| l.contains(&code.to_string())),
        "{what}: the outcome is logged by its code: {lines:?}"
    );
    let message = response.error_message().unwrap_or_default();
    for line in lines {
        assert!(
            !line.contains(MARKER),
            "{what}: a caller's value in `{line}`"
        );
        assert!(
            message.is_empty() || !line.contains(message),
            "{what}: the error text in `{line}`"
        );
        for app_text in ["matches no shelf label", "cannot handle", "hook saw"] {
            assert!(
                !line.contains(app_text),
                "{what}: the app's text in `{line}`"
            );
        }
    }
}

#[test]
fn no_error_path_logs_a_value_or_a_text() {
    let provider = provider();
    let tester = Agent::new(&provider);
    let long = format!("{MARKER}{}", "x".repeat(30));
    let cases: Vec<(&str, String, String)> = vec![
        (
            "too long",
            "lookup".into(),
            json!({ "query": long }).to_string(),
        ),
        (
            "wrong type",
            "lookup".into(),
            json!({ "query": [MARKER] }).to_string(),
        ),
        (
            "out of range",
            "lookup".into(),
            json!({"query": "1", "limit": 500, "note": MARKER}).to_string(),
        ),
        (
            "unknown property",
            "lookup".into(),
            json!({ MARKER: 1 }).to_string(),
        ),
        (
            "not JSON",
            "lookup".into(),
            format!("{{\"query\": {MARKER}"),
        ),
        (
            "the tool's own error",
            "lookup".into(),
            json!({ "query": MARKER }).to_string(),
        ),
        (
            "a panic",
            "explode".into(),
            json!({ "text": MARKER }).to_string(),
        ),
        (
            "a bad result",
            "mislabeled".into(),
            json!({ "text": MARKER }).to_string(),
        ),
        ("an unknown tool", MARKER.into(), "{}".into()),
        (
            "too large",
            "lookup".into(),
            json!({ "query": MARKER.repeat(400) }).to_string(),
        ),
    ];
    for (what, tool, args) in &cases {
        let (response, lines) = capture_logs(|| tester.execute(tool, args));
        if *what == "a bad result" && !cfg!(debug_assertions) {
            // A release build does not check results against the output schema.
            assert!(response.is_success(), "{response}");
            continue;
        }
        assert_private(what, &response, &lines);
    }
    let request = Request {
        request_id: Some(MARKER),
        ..Request::execute("explode", r#"{"text":"ZQXSECRET4711"}"#)
    };
    let (response, lines) = capture_logs(|| tester.call(&request));
    assert_private("a panic with a request id", &response, &lines);
    let (response, lines) = capture_logs(|| tester.call(&Request::new(MARKER)));
    assert_private("an unknown method", &response, &lines);
}

#[test]
fn the_apex_host_logs_no_value_or_text_either() {
    let plugin = ApexHost::new(std::sync::Arc::new(provider()));
    let (text, lines) = capture_logs(|| {
        plugin.execute(
            Some(MARKER),
            Some(&json!({"q": MARKER}).to_string()),
            &agent(),
        )
    });
    assert!(text.starts_with("Error: TOOL_NOT_FOUND"), "{text}");
    let response = plugin.execute_response(Some(MARKER), None, &agent());
    assert_private("an unknown tool id", &response, &lines);
    let id = plugin.tool_ids().next().unwrap().0.to_owned();
    let args = json!({ "query": MARKER }).to_string();
    let (response, lines) =
        capture_logs(|| plugin.execute_response(Some(&id), Some(&args), &agent()));
    assert_private("the tool's own error", &response, &lines);
    let ((), lines) = capture_logs(|| plugin.activate(&agent()));
    assert_eq!(plugin.hook_failures(), 1);
    assert!(
        lines.iter().any(|l| l.contains("hook panicked")),
        "{lines:?}"
    );
    assert!(lines.iter().all(|l| !l.contains(MARKER)), "{lines:?}");
}

#[test]
fn a_host_named_call_is_escaped_in_the_log_line() {
    let provider = provider();
    let forged = "lookup`\nINFO cetp: CETP `lookup` from uid 1 -> success";
    let (_, lines) = capture_logs(|| {
        provider.reply(
            forged,
            &agent(),
            Response::Error(ToolError::new(ErrorCode::InvalidArgs, "no")),
        )
    });
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(!lines[0].contains('\n'), "one line: {:?}", lines[0]);
    assert!(
        lines[0].contains("\\n"),
        "the newline shown escaped: {:?}",
        lines[0]
    );
    assert!(lines[0].contains("INVALID_ARGS"), "{:?}", lines[0]);
}

#[test]
fn a_cetp_v2_unknown_methods_name_stays_out_of_the_log() {
    let provider = Provider::builder("Shelf")
        .tools(tools![lookup])
        .auth(Auth::open())
        .build()
        .unwrap();
    let host = CetpV2Host::new(&provider);
    let agent = Caller::app(10_200, "com.example.agent");
    let negotiated = host.call(&V2Request::negotiate(&[2, 1], "[]"), &agent);
    let session = negotiated.data_json().unwrap()["session_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let method = format!("{MARKER}_method");
    let (reply, lines) = capture_logs(|| {
        host.call(
            &V2Request::common(
                &method,
                &session,
                "3f2b9c1e-0000-4000-8000-000000000001",
                u64::MAX / 2,
            ),
            &agent,
        )
    });
    assert_eq!(reply.error_code(), Some(Code::MethodNotFound));
    assert!(!lines.iter().any(|l| l.contains(MARKER)), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("an unknown method")),
        "{lines:?}"
    );
}
