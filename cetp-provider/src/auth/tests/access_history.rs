//! The on-device access log through the public path: what an agent's calls leave in the
//! consent dialog's `state` (each grant's `last_access_ms`, `calls_day`, `calls_week`, `tools`),
//! that refused calls do not count, and that revoking clears the history.

use super::support::sim_fs;

use std::path::{Path, PathBuf};
use std::time::Duration;

use cetp_provider::auth::{ACCESS_LOG_FILE_NAME, Approval, Auth, ManualClock};
use cetp_provider::testing::Agent;
use cetp_provider::{Caller, Provider, tool, tools};
use serde_json::Value;
use sim_fs::{Fault, SimFs};

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
    let agent = Agent::new(&provider);
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
    let agent = Agent::new(&provider);
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

fn notes_in(dir: &Path, clock: &ManualClock, fs: Option<&SimFs>) -> Provider {
    let mut auth = Auth::user_approval().store_dir(dir).clock(clock.clone());
    if let Some(fs) = fs {
        auth = auth.store_fs(std::sync::Arc::new(fs.clone()));
    }
    Provider::builder("Notes")
        .scope("notes", "your notes")
        .tools(tools![count_notes])
        .auth(auth)
        .build()
        .unwrap()
}

/// Two providers on one directory (two binds, two builds in one process) share one log: no
/// call is lost to the other's save.
#[test]
fn two_providers_on_one_directory_lose_no_history() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let both = [notes(dir.path(), &clock), notes(dir.path(), &clock)];
    assert!(
        !Agent::new(&both[0])
            .execute("count_notes", "{}")
            .is_success()
    );
    approve(&both[0]);
    for provider in &both {
        for _ in 0..10 {
            assert!(
                Agent::new(provider)
                    .execute("count_notes", "{}")
                    .is_success()
            );
        }
    }
    assert_eq!(state(&both[1])["grants"][0]["calls_day"], 20);
    drop(both);
    let reopened = notes(dir.path(), &clock);
    assert_eq!(state(&reopened)["grants"][0]["calls_day"], 20);
}

/// Temp files a crash or a full disk left next to the log are removed when it opens.
#[test]
fn leftover_temp_files_of_the_log_are_removed_on_open() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "cetp-access-log.json.tmp-4242",
        "cetp-access-log.json.tmp-4242-7",
    ] {
        std::fs::write(dir.path().join(name), b"").unwrap();
    }
    let provider = notes(dir.path(), &ManualClock::new(T0));
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert_eq!(left, Vec::<String>::new());
    drop(provider);
}

/// The log is written through the store's file-system seam, with the store's discipline: a
/// full disk leaves no temp file, and a saved log survives a power loss.
#[test]
fn the_log_is_saved_durably_through_the_store_seam() {
    let sim_dir = PathBuf::from("/sim/files");
    let fs = SimFs::new();
    let clock = ManualClock::new(T0);
    let provider = notes_in(&sim_dir, &clock, Some(&fs));
    assert!(
        !Agent::new(&provider)
            .execute("count_notes", "{}")
            .is_success()
    );
    approve(&provider);
    assert!(
        Agent::new(&provider)
            .execute("count_notes", "{}")
            .is_success()
    );
    // The disk is full when the screen reads the state: nothing is left half written.
    let full = fs.names_in(&sim_dir);
    fs.set_fault(Some(Fault {
        from: fs.steps(),
        errno: 28,
        times: None,
    }));
    assert_eq!(state(&provider)["grants"][0]["calls_day"], 1);
    assert_eq!(fs.names_in(&sim_dir), full, "no temp file left");
    fs.set_fault(None);
    // Saved once the disk has room again, then the power goes out.
    assert_eq!(state(&provider)["grants"][0]["calls_day"], 1);
    assert!(
        fs.names_in(&sim_dir)
            .contains(&ACCESS_LOG_FILE_NAME.to_owned())
    );
    fs.lose_power();
    drop(provider);
    let reopened = notes_in(&sim_dir, &clock, Some(&fs));
    assert_eq!(state(&reopened)["grants"][0]["calls_day"], 1);
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
            !Agent::new(&provider)
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
            Agent::new(&provider)
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
    let agent = Agent::new(&provider);
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
