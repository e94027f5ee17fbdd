//! Malformed and oversized input through `CetpV1Host::call`, the path the JNI bridge takes: every
//! one gets a clear error code, nothing panics, replies fit the wire limits as Binder counts
//! them (UTF-16), logs stay one line per record, and gated discovery tells strangers nothing.
// `Limits` is set field by field, as an app must (it is non-exhaustive outside the crate).
#![allow(clippy::field_reassign_with_default)]

use super::support;

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use cetp_provider::auth::Auth;
use cetp_provider::testing::Agent;
use cetp_provider::{
    CallContext, Caller, ErrorCode, Limits, Provider, Response, Tool, ToolError, host::Request,
    wire,
};
use schemars::JsonSchema;
use serde::Deserialize;
use support::*;

#[derive(Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// What to send back.
    pub text: String,
    /// Whether to fail with `text` as the message instead.
    #[serde(default)]
    pub fail: bool,
    /// Whether to panic with `text`.
    #[serde(default)]
    pub panic: bool,
}

/// Echoes its argument, or fails or panics with it.
pub struct Echo;
impl Tool for Echo {
    type Args = EchoArgs;
    type Output = String;
    const NAME: &'static str = "echo";
    const DESCRIPTION: &'static str = "Echoes a text.";
    fn call(&self, args: EchoArgs, _: &CallContext) -> Result<String, ToolError> {
        if args.panic {
            panic!("{}", args.text);
        }
        if args.fail {
            return Err(ToolError::invalid_args(args.text));
        }
        Ok(args.text)
    }
}

fn open_provider(limits: Limits) -> Provider {
    Provider::builder("Echo")
        .tool(Echo)
        .limits(limits)
        .auth(Auth::open())
        .build()
        .unwrap()
}

fn limits(args: usize, result: usize) -> Limits {
    let mut limits = Limits::default();
    limits.max_args_bytes = args;
    limits.max_result_bytes = result;
    limits
}

fn echo_args(text: &str) -> String {
    serde_json::json!({ "text": text }).to_string()
}

/// The reply's key/value pairs, as the Bundle holds them.
fn pairs_of(answer: &Response) -> Vec<(String, String)> {
    answer
        .to_pairs()
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// The request a host builds from `method` and string extras (`None`: a null Bundle).
fn request_of<'a>(method: &'a str, extras: Option<&'a [(&'static str, String)]>) -> Request<'a> {
    let get = |key: &str| {
        extras.and_then(|pairs| {
            pairs
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.as_str())
        })
    };
    Request {
        method,
        tool_name: get(wire::EXTRA_TOOL_NAME),
        args: get(wire::EXTRA_ARGS),
        request_id: get(wire::EXTRA_REQUEST_ID),
    }
}

fn utf16_units(text: &str) -> usize {
    text.encode_utf16().count()
}

/// A reply of `data` costs 2 bytes per UTF-16 unit of every key and value.
fn wire_bytes_of_success(data: &str) -> usize {
    2 * (utf16_units("status") + utf16_units("success") + utf16_units("data") + utf16_units(data))
}

#[test]
fn results_are_measured_in_utf16_wire_bytes_keys_included() {
    let provider = open_provider(limits(64 * 1024, 1_000));
    let agent = Agent::new(&provider);
    // ASCII: 2 wire bytes per character, so 490 characters (492 with the JSON quotes) are
    // over 1,000 wire bytes though they are 492 UTF-8 bytes.
    let fits = "x".repeat(450);
    assert!(wire_bytes_of_success(&format!("\"{fits}\"")) <= 1_000);
    assert!(agent.execute("echo", &echo_args(&fits)).is_success());
    let ascii = "x".repeat(490);
    let answer = agent.execute("echo", &echo_args(&ascii));
    assert_eq!(
        answer.error_code(),
        Some(ErrorCode::InternalError),
        "{answer:?}"
    );
    assert!(
        answer
            .error_message()
            .unwrap()
            .contains("the result of `echo` is 1 KiB on the wire, over the 0 KiB"),
        "{answer:?}"
    );
    // CJK: 3 UTF-8 bytes but one UTF-16 unit each: 400 of them fit in 1,000 wire bytes.
    let cjk = "抹".repeat(400);
    assert!(wire_bytes_of_success(&format!("\"{cjk}\"")) <= 1_000);
    assert!(agent.execute("echo", &echo_args(&cjk)).is_success());
}

#[test]
fn args_are_measured_in_utf16_wire_bytes() {
    let provider = open_provider(limits(100, 256 * 1024));
    let agent = Agent::new(&provider);
    let ok = echo_args(&"a".repeat(30)); // 41 characters: 82 wire bytes
    assert!(agent.execute("echo", &ok).is_success());
    let over = echo_args(&"a".repeat(40)); // 51 characters: 102 wire bytes, 51 UTF-8 bytes
    let answer = agent.execute("echo", &over);
    assert_eq!(
        answer.error_code(),
        Some(ErrorCode::InvalidArgs),
        "{answer:?}"
    );
    assert!(
        answer
            .error_message()
            .unwrap()
            .contains("`args` is 102 bytes on the wire (UTF-16), over the limit of 100 bytes"),
        "{answer:?}"
    );
}

#[test]
fn error_messages_and_hints_are_capped() {
    let huge = "e".repeat(2 * 1024 * 1024);
    let args = serde_json::json!({"text": huge, "fail": true}).to_string();
    let mut big = Limits::default();
    big.max_args_bytes = 8 * 1024 * 1024;
    let provider = open_provider(big);
    let agent_big = Agent::new(&provider);
    let answer = agent_big.execute("echo", &args);
    assert_eq!(answer.error_code(), Some(ErrorCode::InvalidArgs));
    let message = answer.error_message().unwrap();
    assert_eq!(utf16_units(message), 2_048, "capped");
    assert!(message.ends_with('…'));

    // A hint template that grew out of hand.
    let dir = tempfile::tempdir().unwrap();
    let provider = builder()
        .auth(
            Auth::user_approval()
                .store_dir(dir.path())
                .resolution_hint("h".repeat(10_000)),
        )
        .build()
        .unwrap();
    let answer = call(&provider, &agent(), "read_notes");
    let hint = answer.get(wire::KEY_RESOLUTION_HINT).unwrap();
    assert_eq!(utf16_units(hint), 512);
    assert!(hint.ends_with('…'));
}

#[test]
fn gated_discovery_answers_known_and_unknown_tools_alike() {
    let dir = tempfile::tempdir().unwrap();
    let provider = builder()
        .max_args_bytes(64)
        .auth(
            Auth::user_approval()
                .store_dir(dir.path())
                .gate_discovery(true),
        )
        .build()
        .unwrap();
    let stranger = Agent::new(&provider).as_caller(stranger());
    let big = format!("{{\"x\":\"{}\"}}", "y".repeat(100));
    let replies: Vec<_> = [
        stranger.execute("read_notes", "{}"),
        stranger.execute("agenda", "{}"),
        stranger.execute("no_such_tool", "{}"),
        stranger.execute("read_notes", &big),
        stranger.execute("no_such_tool", &big),
        stranger.call(&Request::new(wire::METHOD_EXECUTE_TOOL)),
    ]
    .into_iter()
    .map(|answer| pairs_of(&answer).into_iter().collect::<BTreeMap<_, _>>())
    .collect();
    for reply in &replies {
        assert_eq!(
            reply, &replies[0],
            "every stranger's call gets the same answer"
        );
    }
    assert_eq!(replies[0]["error_code"], "AUTH_REQUIRED");
    let text = format!("{:?}", replies[0]);
    for secret in [
        "read_notes",
        "agenda",
        "calendar`",
        "Expected",
        "no_such_tool",
    ] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
    // Once approved, the caller sees the tools as usual.
    approve(&provider, &stranger.caller().clone(), "read_notes", |r| {
        cetp_provider::auth::Approval::as_listed(r)
    });
    assert_eq!(
        stranger.execute("no_such_tool", "{}").error_code(),
        Some(ErrorCode::ToolNotFound)
    );
}

/// Records every log line, to check that none spans two lines.
struct Capture(Mutex<Vec<String>>);
impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        self.0.lock().unwrap().push(record.args().to_string());
    }
    fn flush(&self) {}
}

fn captured() -> &'static Capture {
    static CAPTURE: OnceLock<&'static Capture> = OnceLock::new();
    CAPTURE.get_or_init(|| {
        let capture: &'static Capture = Box::leak(Box::new(Capture(Mutex::new(Vec::new()))));
        log::set_logger(capture).unwrap();
        log::set_max_level(log::LevelFilter::Trace);
        capture
    })
}

/// One malformed call: what it is, the method, the extras (`None`: a null Bundle), the code.
type Case = (
    &'static str,
    String,
    Option<Vec<(&'static str, String)>>,
    ErrorCode,
);

/// Malformed calls of every kind: each gets its documented code, none panics, every log
/// record stays on one line, and no reply exceeds the wire limit.
#[test]
fn malformed_inputs_get_clear_codes_and_cannot_forge_log_lines() {
    let capture = captured();
    let provider = open_provider(Limits::default());
    let agent = Agent::new(&provider);
    let forged = "x\nI cetp: CETP `execute_tool` from uid 0 -> success\r\u{202e}";
    let long_id = "r".repeat(900 * 1024);
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let big_args = format!("{{\"text\":\"{}\"}}", "a".repeat(40 * 1024));
    let cases: Vec<Case> = vec![
        (
            "unknown method",
            "delete_everything".into(),
            None,
            ErrorCode::ToolNotFound,
        ),
        (
            "method with a newline",
            forged.into(),
            None,
            ErrorCode::ToolNotFound,
        ),
        (
            "method of 1 MB",
            "m".repeat(1 << 20),
            None,
            ErrorCode::ToolNotFound,
        ),
        (
            "no extras (a null Bundle)",
            wire::METHOD_EXECUTE_TOOL.into(),
            None,
            ErrorCode::InvalidArgs,
        ),
        (
            "blank tool name",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![(wire::EXTRA_TOOL_NAME, " ".into())]),
            ErrorCode::InvalidArgs,
        ),
        (
            "unknown tool",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![(wire::EXTRA_TOOL_NAME, "nope".into())]),
            ErrorCode::ToolNotFound,
        ),
        (
            "tool name with a newline and bidi",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![(wire::EXTRA_TOOL_NAME, forged.into())]),
            ErrorCode::ToolNotFound,
        ),
        (
            "tool name of 1 MB",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![(wire::EXTRA_TOOL_NAME, "t".repeat(1 << 20))]),
            ErrorCode::ToolNotFound,
        ),
        (
            "args not JSON",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![
                (wire::EXTRA_TOOL_NAME, "echo".into()),
                (wire::EXTRA_ARGS, "{text:".into()),
            ]),
            ErrorCode::InvalidArgs,
        ),
        (
            "args an array",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![
                (wire::EXTRA_TOOL_NAME, "echo".into()),
                (wire::EXTRA_ARGS, "[1]".into()),
            ]),
            ErrorCode::InvalidArgs,
        ),
        (
            "args nested 10,000 deep",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![
                (wire::EXTRA_TOOL_NAME, "echo".into()),
                (wire::EXTRA_ARGS, deep),
            ]),
            ErrorCode::InvalidArgs,
        ),
        (
            "args over the limit",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![
                (wire::EXTRA_TOOL_NAME, "echo".into()),
                (wire::EXTRA_ARGS, big_args),
            ]),
            ErrorCode::InvalidArgs,
        ),
        (
            "args of the wrong type",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![
                (wire::EXTRA_TOOL_NAME, "echo".into()),
                (wire::EXTRA_ARGS, r#"{"text":7}"#.into()),
            ]),
            ErrorCode::InvalidArgs,
        ),
        (
            "an unknown argument",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![
                (wire::EXTRA_TOOL_NAME, "echo".into()),
                (wire::EXTRA_ARGS, r#"{"text":"a","sudo":true}"#.into()),
            ]),
            ErrorCode::InvalidArgs,
        ),
        (
            "request_id of 900 KB",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![
                (wire::EXTRA_TOOL_NAME, "echo".into()),
                (wire::EXTRA_ARGS, echo_args("a")),
                (wire::EXTRA_REQUEST_ID, long_id),
            ]),
            ErrorCode::InvalidArgs,
        ),
        (
            "request_id of 129 characters",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![
                (wire::EXTRA_TOOL_NAME, "echo".into()),
                (wire::EXTRA_ARGS, echo_args("a")),
                (wire::EXTRA_REQUEST_ID, "i".repeat(129)),
            ]),
            ErrorCode::InvalidArgs,
        ),
        (
            "a tool error with a forged line",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![
                (wire::EXTRA_TOOL_NAME, "echo".into()),
                (
                    wire::EXTRA_ARGS,
                    serde_json::json!({"text": forged, "fail": true}).to_string(),
                ),
            ]),
            ErrorCode::InvalidArgs,
        ),
        (
            "a panic with a forged line and a forged request_id",
            wire::METHOD_EXECUTE_TOOL.into(),
            Some(vec![
                (wire::EXTRA_TOOL_NAME, "echo".into()),
                (
                    wire::EXTRA_ARGS,
                    serde_json::json!({"text": forged, "panic": true}).to_string(),
                ),
                (wire::EXTRA_REQUEST_ID, "a\nb".into()),
            ]),
            ErrorCode::InternalError,
        ),
    ];
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for (what, method, extras, code) in &cases {
        let answer = agent.call(&request_of(method, extras.as_deref()));
        assert_eq!(answer.error_code(), Some(*code), "{what}: {answer:?}");
        let message = answer.error_message().unwrap();
        assert!(utf16_units(message) <= 2_048, "{what}: a bounded message");
        let size: usize = pairs_of(&answer)
            .iter()
            .map(|(k, v)| 2 * (utf16_units(k) + utf16_units(v)))
            .sum();
        assert!(size <= 256 * 1024, "{what}: {size} wire bytes");
        *tally.entry(code.as_str().to_owned()).or_default() += 1;
    }
    // A request_id of 128 characters is fine.
    let (args, id) = (echo_args("a"), "i".repeat(128));
    let ok = agent.call(&Request::execute("echo", &args).with_request_id(&id));
    assert!(ok.is_success(), "{ok:?}");
    // A caller whose package claims a newline cannot forge a line either.
    let odd = Agent::new(&provider).as_caller(Caller::app(1, forged));
    odd.call(&Request::new(forged));

    let lines = capture.0.lock().unwrap();
    assert!(lines.len() >= cases.len(), "{} records", lines.len());
    for line in lines.iter() {
        assert!(
            !line.contains('\n') && !line.contains('\r') && !line.contains('\u{202e}'),
            "a record spans lines or carries a bidi override: {line:?}"
        );
        assert!(line.chars().count() < 4_096, "a bounded record");
    }
    eprintln!("{} malformed inputs: {tally:?}", cases.len());
}
