//! Every error path of the sample, with its log captured: each line names the code, never a value
//! the agent sent (each carries a marker) nor the text of the error it got back.

use cetp_provider::testing::{Agent, assert_logged_privately, capture_logs};
use cetp_provider::{AccessLevel, App, Provider, Response};
use serde_json::json;

const MARKER: &str = "ZQXSECRET4711";

fn assert_private(what: &str, response: &Response, lines: &[String]) {
    assert_logged_privately(what, response, lines, &[MARKER]);
}

#[test]
fn no_error_path_logs_an_argument_or_a_message() {
    let files_dir = tempfile::tempdir().unwrap();
    let app = App::new("dev.cetp.samples.minimal", files_dir.path());
    let provider: Provider = cetp_sample_minimal::provider(&app)
        .app(app)
        .build()
        .unwrap();
    let agent = Agent::new(&provider);
    let greet = json!({ "name": MARKER }).to_string();
    let (refused, lines) = capture_logs(|| agent.execute("greet", &greet));
    assert_private("before approval", &refused, &lines);
    agent.approve(AccessLevel::Full).unwrap();
    let cases = [
        (
            "too long",
            "greet",
            json!({ "name": MARKER.repeat(10) }).to_string(),
        ),
        (
            "empty",
            "greet",
            json!({ "name": "", "extra": MARKER }).to_string(),
        ),
        (
            "wrong type",
            "greet",
            json!({ "name": [MARKER] }).to_string(),
        ),
        ("not JSON", "greet", format!("{{\"name\": {MARKER}")),
        ("unknown tool", MARKER, "{}".to_owned()),
    ];
    for (what, tool, args) in &cases {
        let (response, lines) = capture_logs(|| agent.execute(tool, args));
        assert_private(what, &response, &lines);
    }
}
