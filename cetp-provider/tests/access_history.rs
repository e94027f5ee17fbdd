//! The on-device access log through the public path: what a consumer's calls leave in the
//! approval screen's `state` (each grant's `last_access_ms`, `calls_day`, `calls_week`, `tools`),
//! that refused calls do not count, and that revoking clears the history.

use std::path::Path;
use std::time::Duration;

use cetp_provider::auth::{ACCESS_LOG_FILE_NAME, Approval, Auth, ManualClock};
use cetp_provider::testing::Consumer;
use cetp_provider::{Caller, Provider, tool, tools};
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

/// A shared UID: only the package whose grant admitted the call is recorded, not every
/// package under the UID.
#[test]
fn only_the_package_whose_grant_admitted_the_call_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let provider = notes(dir.path(), &clock);
    let agent = Caller::app(10_002, "com.example.agent").with_certificate("aa");
    let helper = Caller::app(10_003, "com.example.helper").with_certificate("bb");
    let shared = Caller::app(10_004, "com.example.helper")
        .with_certificate("bb")
        .with_package("com.example.agent")
        .with_certificate("aa");
    for caller in [&agent, &helper] {
        assert!(
            !Consumer::new(&provider)
                .as_caller(caller.clone())
                .execute("count_notes", "{}")
                .is_success()
        );
    }
    // The user approves the agent only; the shared UID gets in through the agent's grant.
    let auth = provider.authorizer();
    let request = auth
        .pending()
        .into_iter()
        .find(|r| r.uid == agent.uid())
        .unwrap();
    auth.approve(&request.id, Approval::as_listed(&request))
        .unwrap();
    for _ in 0..3 {
        assert!(
            Consumer::new(&provider)
                .as_caller(shared.clone())
                .execute("count_notes", "{}")
                .is_success()
        );
    }
    // Later the helper is approved too: it has made no call of its own.
    let request = auth
        .pending()
        .into_iter()
        .find(|r| r.uid == helper.uid())
        .unwrap();
    auth.approve(&request.id, Approval::as_listed(&request))
        .unwrap();
    let grants = state(&provider)["grants"].clone();
    let history = |package: &str| {
        grants
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["package"] == package)
            .unwrap()["calls_day"]
            .clone()
    };
    assert_eq!(history("com.example.agent"), 3, "{grants}");
    assert_eq!(history("com.example.helper"), 0, "{grants}");
}

/// A call whose arguments are invalid never ran the tool: it is not a read.
#[test]
fn calls_with_invalid_arguments_are_not_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let provider = notes(dir.path(), &clock);
    let agent = Consumer::new(&provider);
    assert!(!agent.execute("count_notes", "{}").is_success());
    approve(&provider);
    for args in [r#"{"unknown":1}"#, "[1]", "{not json"] {
        assert_eq!(
            agent.execute("count_notes", args).error_code(),
            Some(cetp_provider::ErrorCode::InvalidArgs),
            "{args}"
        );
    }
    let grant = state(&provider)["grants"][0].clone();
    assert_eq!(grant["calls_day"], 0, "{grant}");
    assert!(grant["last_access_ms"].is_null(), "{grant}");
    assert!(agent.execute("count_notes", "{}").is_success());
    assert_eq!(state(&provider)["grants"][0]["calls_day"], 1);
}
