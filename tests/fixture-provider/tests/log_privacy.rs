//! Every error path of the fixture, with its log captured: each line names the code, never a
//! value the caller sent (each carries a marker) nor the text of the error it got back.

use cetp_fixture::provider;
use cetp_provider::testing::{Agent, assert_logged_privately, capture_logs};
use cetp_provider::{App, Response};
use serde_json::json;

const MARKER: &str = "ZQXSECRET4711";

fn assert_private(what: &str, response: &Response, lines: &[String]) {
    assert_logged_privately(what, response, lines, &[MARKER, "fixture failure"]);
}

#[test]
fn no_error_path_logs_an_argument_or_a_message() {
    let files_dir = tempfile::tempdir().unwrap();
    let app = App::new("dev.cetp.fixture", files_dir.path());
    let provider = provider(&app).build().unwrap();
    let agent = Agent::new(&provider);
    let mut cases = vec![
        ("a panic", "boom", json!({ "message": MARKER })),
        ("too large", "oversized", json!({ "kib": 300 })),
        (
            "a bad unit",
            "forecast",
            json!({ "unit": MARKER, "days": 1 }),
        ),
        (
            "a long city",
            "forecast",
            json!({ "unit": "celsius", "days": 1, "city": MARKER.repeat(6) }),
        ),
        ("a wrong type", "echo", json!({ "text": [MARKER] })),
        ("an extra field", "echo", json!({ "text": "x", MARKER: 1 })),
    ];
    for code in [
        "AUTH_REQUIRED",
        "PERMISSION_DENIED",
        "TOOL_NOT_FOUND",
        "INVALID_ARGS",
        "RATE_LIMITED",
        "INTERNAL_ERROR",
    ] {
        cases.push(("the tool's own error", "fail", json!({ "code": code })));
    }
    for (what, tool, args) in &cases {
        let (response, lines) = capture_logs(|| agent.execute(tool, &args.to_string()));
        assert_private(what, &response, &lines);
    }
    let (response, lines) = capture_logs(|| agent.execute(MARKER, "{}"));
    assert_private("an unknown tool", &response, &lines);
}
