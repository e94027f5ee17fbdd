//! Every error path of the sample, with its log captured: each line names the code, never a value
//! the agent sent (each carries a marker, or a distinctive number or day) nor the text of the
//! error it got back.

use cetp_provider::testing::{Agent, assert_logged_privately, capture_logs};
use cetp_provider::{AccessLevel, App, Response};
use cetp_sample_expenses::ledger::Ledger;
use serde_json::{Value, json};

const MARKER: &str = "ZQXSECRET4711";
const MARKED_DAY: &str = "1987-06-05";
const MARKED_AMOUNT: f64 = 4_711_471.5;

fn assert_private(what: &str, response: &Response, lines: &[String]) {
    assert_logged_privately(what, response, lines, &[MARKER, MARKED_DAY, "4711471"]);
}

fn range() -> Value {
    json!({ "from": "2024-01-01", "to": "2024-03-31" })
}

fn run(access: AccessLevel, cases: &[(&str, &str, Value)]) {
    let files_dir = tempfile::tempdir().unwrap();
    let provider = cetp_sample_expenses::provider(Ledger::demo())
        .app(App::new("dev.cetp.samples.expenses", files_dir.path()))
        .build()
        .unwrap();
    let agent = Agent::new(&provider);
    let args = json!({ "range": range(), "filter": { "merchant": MARKER } }).to_string();
    let (refused, lines) = capture_logs(|| agent.execute("top_merchants", &args));
    assert_private("before approval", &refused, &lines);
    agent.approve(access).unwrap();
    for (what, tool, args) in cases {
        let (response, lines) = capture_logs(|| agent.execute(tool, &args.to_string()));
        assert_private(what, &response, &lines);
    }
}

#[test]
fn no_error_path_logs_an_argument_or_a_message() {
    run(
        AccessLevel::Full,
        &[
            (
                "days reversed",
                "spending_by_category",
                json!({ "range": { "from": "1990-01-01", "to": MARKED_DAY } }),
            ),
            (
                "too many days",
                "spending_over_time",
                json!({ "range": { "from": MARKED_DAY, "to": "2020-01-01" }, "period": "day" }),
            ),
            (
                "not a day",
                "spending_by_category",
                json!({ "range": { "from": MARKER, "to": MARKED_DAY } }),
            ),
            (
                "an unknown period",
                "spending_over_time",
                json!({ "range": range(), "period": MARKER }),
            ),
            (
                "an unknown category",
                "spending_by_category",
                json!({ "range": range(), "filter": { "categories": [MARKER] } }),
            ),
            (
                "an amount out of range",
                "spending_by_category",
                json!({ "range": range(), "filter": { "min_amount": MARKED_AMOUNT } }),
            ),
            (
                "amounts reversed",
                "spending_by_category",
                json!({ "range": range(), "filter": { "min_amount": 4711.0, "max_amount": 1.0 } }),
            ),
            (
                "a long merchant",
                "top_merchants",
                json!({ "range": range(), "filter": { "merchant": MARKER.repeat(6) } }),
            ),
            (
                "a bad limit",
                "top_merchants",
                json!({ "range": range(), "limit": 4711, "note": MARKER }),
            ),
        ],
    );
}

#[test]
fn no_error_path_of_limited_access_logs_an_argument_or_a_message() {
    run(
        AccessLevel::Limited,
        &[
            (
                "merchants hidden",
                "top_merchants",
                json!({ "range": range() }),
            ),
            (
                "a merchant filter",
                "spending_by_category",
                json!({ "range": range(), "filter": { "merchant": MARKER } }),
            ),
        ],
    );
}
