//! Every error path of the sample, with its log captured: each line names the code, never a value
//! the agent sent (each carries a marker, or a distinctive number or day) nor the text of the
//! error it got back (the sample's own, which quote the query, the id or the days).

use cetp_provider::testing::{Agent, assert_logged_privately, capture_logs};
use cetp_provider::{AccessLevel, App, Response};
use serde_json::json;

const MARKER: &str = "ZQXSECRET4711";
const MARKED_ID: i64 = 987_654_321;
const MARKED_DAY: &str = "1987-06-05";

fn assert_private(what: &str, response: &Response, lines: &[String]) {
    assert_logged_privately(
        what,
        response,
        lines,
        &[
            MARKER,
            &MARKED_ID.to_string(),
            MARKED_DAY,
            "%%%",
            "has no words",
        ],
    );
}

#[test]
fn no_error_path_logs_an_argument_or_a_message() {
    let files_dir = tempfile::tempdir().unwrap();
    let database = files_dir.path().join("notes.db");
    cetp_sample_notes::demo::create(&database).unwrap();
    let provider = cetp_sample_notes::provider_over(database)
        .app(App::new("dev.cetp.samples.notes", files_dir.path()))
        .build()
        .unwrap();
    let agent = Agent::new(&provider);
    let search = json!({ "query": MARKER }).to_string();
    let (refused, lines) = capture_logs(|| agent.execute("search_notes", &search));
    assert_private("before approval", &refused, &lines);
    agent.approve(AccessLevel::Full).unwrap();
    let cases = [
        (
            "a query without words",
            "search_notes",
            json!({ "query": "%%%" }),
        ),
        (
            "too long",
            "search_notes",
            json!({ "query": MARKER.repeat(20) }),
        ),
        (
            "a bad tag",
            "search_notes",
            json!({ "query": "x", "tag": MARKER.repeat(6) }),
        ),
        (
            "a bad limit",
            "search_notes",
            json!({ "query": "x", "limit": MARKED_ID }),
        ),
        ("no such note", "get_note", json!({ "id": MARKED_ID })),
        ("a negative id", "get_note", json!({ "id": -MARKED_ID })),
        ("a wrong type", "get_note", json!({ "id": MARKER })),
        (
            "days reversed",
            "notes_between",
            json!({ "from": "1988-01-01", "to": MARKED_DAY }),
        ),
        (
            "too many days",
            "notes_between",
            json!({ "from": MARKED_DAY, "to": "1999-01-01" }),
        ),
        (
            "not a day",
            "notes_between",
            json!({ "from": MARKER, "to": MARKED_DAY }),
        ),
        ("an extra field", "list_tags", json!({ MARKER: true })),
    ];
    for (what, tool, args) in &cases {
        let (response, lines) = capture_logs(|| agent.execute(tool, &args.to_string()));
        assert_private(what, &response, &lines);
    }
    let (response, lines) = capture_logs(|| agent.execute("search_notes", &format!("{{{MARKER}")));
    assert_private("not JSON", &response, &lines);
}
