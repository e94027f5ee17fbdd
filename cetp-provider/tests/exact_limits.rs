//! Lines that a one-character edit could break unnoticed, each pinned through a public entry
//! point: a limit exactly at and just past its value, a capped error that keeps what the agent
//! acts on, the kept discovery reply under gated discovery, and `const` in an output schema.

use cetp_provider::auth::Auth;
use cetp_provider::host::{CetpV1Host, Request};
use cetp_provider::schema::SchemaError;
use cetp_provider::testing::Agent;
use cetp_provider::{
    AnyTool, CallContext, Caller, ErrorCode, Provider, Response, Tool, ToolError, tool, tools, wire,
};
use serde_json::{Value, json};

/// Returns its text.
#[tool]
fn echo(
    /// The text to send back, e.g. "hello".
    text: String,
) -> String {
    text
}

fn caller() -> Caller {
    Caller::app(10_001, "com.example.agent").with_certificate("aa")
}

/// Wire bytes of a reply as the provider measures them: every key and value as UTF-16.
fn wire_bytes(response: &Response) -> usize {
    response
        .to_pairs()
        .iter()
        .map(|(key, value)| 2 * (key.encode_utf16().count() + value.encode_utf16().count()))
        .sum()
}

#[test]
fn gated_discovery_keeps_no_reply_for_every_caller() {
    let gated = Provider::builder("Echo")
        .tools(tools![echo])
        .auth(Auth::user_approval().gate_discovery(true))
        .build()
        .unwrap();
    for (method, request) in [
        (wire::METHOD_LIST_TOOLS, Request::list_tools()),
        (wire::METHOD_GET_PROVIDER_INFO, Request::provider_info()),
    ] {
        assert_eq!(
            CetpV1Host::new(&gated).constant_reply(method),
            None,
            "{method}"
        );
        // What a caller nobody approved gets instead.
        let answer = CetpV1Host::new(&gated).call(&request, &caller());
        assert_eq!(
            answer.error_code(),
            Some(ErrorCode::AuthRequired),
            "{answer}"
        );
    }
    let open = Provider::builder("Echo")
        .tools(tools![echo])
        .auth(Auth::open())
        .build()
        .unwrap();
    let kept = CetpV1Host::new(&open)
        .constant_reply(wire::METHOD_LIST_TOOLS)
        .unwrap();
    assert_eq!(
        kept,
        CetpV1Host::new(&open).call(&Request::list_tools(), &caller())
    );
}

#[test]
fn a_capped_auth_required_keeps_its_authorize_intent() {
    let provider = Provider::builder("Echo").build().unwrap();
    let long = "x".repeat(10_000);
    let refused = ToolError::new(ErrorCode::AuthRequired, long.clone())
        .with_hint(long)
        .with_authorize_intent("dev.cetp.action.AUTHORIZE");
    let Response::Error(capped) = provider.reply("echo", &caller(), Response::Error(refused))
    else {
        panic!("an error stays an error");
    };
    assert!(capped.message().len() < 10_000, "the message was capped");
    assert!(
        capped.resolution_hint().unwrap().len() < 10_000,
        "so was the hint"
    );
    assert_eq!(capped.code(), ErrorCode::AuthRequired);
    assert_eq!(
        capped.authorize_intent(),
        Some("dev.cetp.action.AUTHORIZE"),
        "the intent the agent launches survives the cap"
    );
}

#[test]
fn a_reply_of_exactly_the_limit_passes_and_one_unit_more_does_not() {
    let envelope = wire_bytes(&Response::success(String::new()));
    // ASCII (measured by its UTF-8 length) and two-byte characters (counted unit by unit).
    for unit in ["a", "é"] {
        let data = |units: usize| format!("\"{}\"", unit.repeat(units - 2));
        let limit = envelope + 2 * 1_000;
        let provider = Provider::builder("Echo")
            .max_result_bytes(limit)
            .build()
            .unwrap();
        let at_limit = Response::success(data(1_000));
        assert_eq!(wire_bytes(&at_limit), limit);
        let reply = provider.reply("echo", &caller(), at_limit.clone());
        assert_eq!(reply, at_limit, "{unit}: exactly the limit is sent");
        let over = provider.reply("echo", &caller(), Response::success(data(1_001)));
        assert_eq!(over.error_code(), Some(ErrorCode::InternalError), "{unit}");
        assert!(
            over.error_message().unwrap().contains("on the wire"),
            "{over}"
        );
    }
}

#[test]
fn args_of_exactly_the_limit_are_read_and_one_unit_more_are_not() {
    let args = |units: usize| {
        let frame = r#"{"text":""}"#.len();
        format!(r#"{{"text":"{}"}}"#, "a".repeat(units - frame))
    };
    let limit = 2 * 500;
    let provider = Provider::builder("Echo")
        .tools(tools![echo])
        .auth(Auth::open())
        .max_args_bytes(limit)
        .build()
        .unwrap();
    let agent = Agent::new(&provider);
    let at_limit = args(500);
    assert_eq!(at_limit.encode_utf16().count() * 2, limit);
    let answer = agent.execute("echo", &at_limit);
    assert!(answer.is_success(), "{answer}");
    let over = agent.execute("echo", &args(501));
    assert_eq!(over.error_code(), Some(ErrorCode::InvalidArgs), "{over}");
    assert!(
        over.error_message().unwrap().contains("over the limit"),
        "{over}"
    );
}

/// A tool whose result breaks the `const` of its own output schema.
struct WrongVersion;

impl Tool for WrongVersion {
    type Args = serde_json::Map<String, Value>;
    type Output = Value;
    const NAME: &'static str = "format_version";
    const DESCRIPTION: &'static str = "Says which data format the app writes.";

    fn output_schema() -> Option<Result<Value, SchemaError>> {
        Some(Ok(json!({
            "type": "object",
            "properties": {"version": {"const": 2}},
            "required": ["version"],
        })))
    }

    fn call(&self, _: Self::Args, _: &CallContext) -> Result<Value, ToolError> {
        Ok(json!({"version": 3}))
    }
}

#[test]
fn a_result_breaking_an_output_const_is_caught() {
    let provider = Provider::builder("Formats")
        .tools([AnyTool::new(WrongVersion)])
        .auth(Auth::open())
        .build()
        .unwrap();
    let answer = Agent::new(&provider).execute("format_version", "{}");
    if cfg!(debug_assertions) {
        assert_eq!(
            answer.error_code(),
            Some(ErrorCode::InternalError),
            "{answer}"
        );
        assert!(
            answer.error_message().unwrap().contains("/version"),
            "{answer}"
        );
    } else {
        // A release build advertises the schema and checks nothing.
        assert!(answer.is_success(), "{answer}");
    }
}
