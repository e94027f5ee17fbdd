//! The on-device access log through the public path: what a consumer's calls leave in the
//! approval screen's `state` (each grant's `last_access_ms`, `calls_day`, `calls_week`, `tools`),
//! that refused calls do not count, and that revoking clears the history.

use std::path::Path;
use std::time::Duration;

use cetp_provider::auth::{ACCESS_LOG_FILE_NAME, Approval, Auth, ManualClock};
use cetp_provider::testing::Consumer;
use cetp_provider::{Provider, tool, tools};
use serde_json::Value;

const T0: u64 = 1_767_225_600_000;
const DAY_MS: u64 = 24 * 3600 * 1000;

/// Counts notes.
#[tool(scopes = ["notes"])]
fn count_notes() -> u32 {
    3
}

fn state(provider: &Provider) -> Value {
    let reply: Value =
        serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
    reply["state"].clone()
}

/// The provider under test, its grants (and access log) in `dir`.
fn notes(dir: &Path, clock: &ManualClock) -> Provider {
    Provider::builder("Notes")
        .scope("notes", "your notes")
        .tools(tools![count_notes])
        .auth(Auth::user_approval().store_dir(dir).clock(clock.clone()))
        .build()
        .unwrap()
}

fn approve(provider: &Provider) {
    let auth = provider.authorizer();
    let request = auth.pending().remove(0);
    auth.approve(&request.id, Approval::as_listed(&request))
        .unwrap();
}

#[test]
fn grants_show_their_history_and_revoke_clears_it() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let provider = notes(dir.path(), &clock);
    let agent = Consumer::new(&provider);
    assert!(!agent.execute("count_notes", "{}").is_success());
    approve(&provider);
    for _ in 0..3 {
        assert!(agent.execute("count_notes", "{}").is_success());
    }
    clock.advance(Duration::from_millis(2 * DAY_MS));
    assert!(agent.execute("count_notes", "{}").is_success());

    let grant = state(&provider)["grants"][0].clone();
    assert_eq!(grant["calls_day"], 1, "{grant}");
    assert_eq!(grant["calls_week"], 4, "{grant}");
    assert_eq!(grant["last_access_ms"], T0 + 2 * DAY_MS, "{grant}");
    assert_eq!(grant["tools"][0]["name"], "count_notes", "{grant}");
    assert_eq!(grant["tools"][0]["calls_week"], 4, "{grant}");
    assert_eq!(
        grant["scopes"][0], "notes",
        "the grant's own fields stay: {grant}"
    );
    assert!(
        dir.path().join(ACCESS_LOG_FILE_NAME).is_file(),
        "saved when the screen reads it"
    );

    // The history survives a restart of the provider.
    drop(provider);
    let provider = notes(dir.path(), &clock);
    assert_eq!(state(&provider)["grants"][0]["calls_week"], 4);

    // Revoked: the history goes with the grant; a new approval starts from nothing.
    let package = grant["package"].as_str().unwrap().to_owned();
    provider.authorizer().revoke(&package, None).unwrap();
    let agent = Consumer::new(&provider);
    assert!(!agent.execute("count_notes", "{}").is_success());
    approve(&provider);
    let fresh = state(&provider)["grants"][0].clone();
    assert_eq!(fresh["calls_week"], 0, "{fresh}");
    assert!(fresh["last_access_ms"].is_null(), "{fresh}");
    assert_eq!(fresh["tools"], serde_json::json!([]), "{fresh}");
}

#[test]
fn the_state_says_whether_limited_access_is_offered() {
    let notes = Provider::builder("Notes").build().unwrap();
    assert_eq!(state(&notes)["offers_limited_access"], true);
    let greeter = Provider::builder("Greeter")
        .full_access_only()
        .build()
        .unwrap();
    assert_eq!(state(&greeter)["offers_limited_access"], false);
}
