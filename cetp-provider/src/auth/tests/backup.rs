//! Nothing the SDK persists travels to another phone: the grant store and the access log live
//! in the app's no-backup directory (`Context.getNoBackupFilesDir()`, which Auto Backup and
//! device-to-device transfer never include), never in the files dir, which they copy. A store
//! an earlier version left in the files dir moves there once, and a move cut short at any step
//! leaves exactly one usable location.

use super::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use cetp_provider::auth::{ACCESS_LOG_FILE_NAME, Approval, Auth, ManualClock, RateLimit};
use cetp_provider::{App, ErrorCode, Provider};
use serde_json::json;
use support::sim_fs::{Fault, SimFs, Step};
use support::*;

const PACKAGE: &str = "com.example.notes";
const T0: u64 = 1_767_225_600_000;
const EIO: i32 = 5;

fn open_app(files: &Path, clock: &ManualClock) -> Provider {
    builder()
        .auth(
            Auth::user_approval()
                .clock(clock.clone())
                .refused_rate_limit(RateLimit::new(u32::MAX, Duration::from_millis(1))),
        )
        .app(App::new(PACKAGE, files))
        .build()
        .expect("the provider builds")
}

/// Every file under `from`, copied to `to` (what a backup restores, or a transfer carries).
fn copy_tree(from: &Path, to: &Path) -> usize {
    fs::create_dir_all(to).unwrap();
    let mut copied = 0;
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copied += copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
            copied += 1;
        }
    }
    copied
}

fn names(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_copy_of_the_files_dir_on_another_phone_grants_nothing() {
    let clock = ManualClock::new(T0);
    let phone = tempfile::tempdir().unwrap();
    let files = phone.path().join("files");
    fs::create_dir_all(&files).unwrap();
    fs::write(files.join("notes.db"), b"the app's own data").unwrap();
    {
        let provider = open_app(&files, &clock);
        approve(&provider, &agent(), "read_notes", Approval::as_listed);
        for _ in 0..3 {
            assert!(call(&provider, &agent(), "read_notes").is_success());
        }
        call(&provider, &stranger(), "ping");
        let id = pending_id_for(&provider, &stranger());
        provider.authorizer().deny(&id).unwrap();
        // The screen reads the state (the access log is saved).
        provider.handle_admin_json(r#"{"op":"state"}"#);
    }
    // Another phone gets every file of the files dir.
    let other = tempfile::tempdir().unwrap();
    let restored = other.path().join("files");
    copy_tree(&files, &restored);
    let provider = open_app(&restored, &clock);
    assert_eq!(
        call(&provider, &agent(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired)
    );
    assert!(provider.authorizer().grants().is_empty());
    assert!(provider.authorizer().denials().is_empty());

    // The SDK wrote nothing into the files dir; everything is in its no-backup sibling.
    assert_eq!(names(&files), ["notes.db"]);
    let no_backup = phone.path().join("no_backup");
    assert!(
        names(&no_backup).contains(&"cetp-grants.json".to_owned()),
        "{:?}",
        names(&no_backup)
    );
    assert!(names(&no_backup).contains(&ACCESS_LOG_FILE_NAME.to_owned()));
}

/// What an earlier version left in the files dir: the store and its copy, its lock, a temp
/// file, the access log and an empty temp file of the log.
fn legacy_store() -> Vec<(&'static str, Vec<u8>)> {
    let store = json!({
        "version": 2,
        "grants": [{"package": AGENT, "certificate_sha256": CERT_A,
                    "scopes": {"notes": {"access": "full", "granted_at_ms": T0 - 1000,
                                         "expires_at_ms": null}}}],
        "denials": [{"package": "com.example.stranger", "certificate_sha256": CERT_B,
                     "denied_at_ms": T0 - 500}]
    })
    .to_string();
    let log = json!({
        "version": 1,
        "entries": [[{"package": AGENT, "certificate_sha256": CERT_A, "tool": "read_notes"},
                     {"last_ms": T0 - 100, "hours": [[(T0 - 100) / 3_600_000, 4]]}]]
    })
    .to_string();
    vec![
        ("cetp-grants.json", store.clone().into_bytes()),
        ("cetp-grants.json.last-good", store.into_bytes()),
        ("cetp-grants.json.lock", Vec::new()),
        ("cetp-grants.json.tmp-77-3", b"{\"vers".to_vec()),
        (ACCESS_LOG_FILE_NAME, log.into_bytes()),
        ("cetp-access-log.json.tmp-77", Vec::new()),
    ]
}

fn calls_week(provider: &Provider) -> u64 {
    let state: serde_json::Value =
        serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
    state["state"]["grants"][0]["calls_week"].as_u64().unwrap()
}

#[test]
fn a_store_in_the_files_dir_moves_to_the_no_backup_dir_once() {
    let clock = ManualClock::new(T0);
    let phone = tempfile::tempdir().unwrap();
    let files = phone.path().join("files");
    fs::create_dir_all(&files).unwrap();
    for (name, bytes) in legacy_store() {
        fs::write(files.join(name), bytes).unwrap();
    }
    {
        let provider = open_app(&files, &clock);
        assert!(call(&provider, &agent(), "read_notes").is_success());
        assert_eq!(
            call(&provider, &stranger(), "read_notes").error_code(),
            Some(ErrorCode::PermissionDenied)
        );
        assert_eq!(calls_week(&provider), 5, "the history moved too");
        assert_eq!(names(&files), Vec::<String>::new(), "nothing left behind");
    }
    let no_backup = phone.path().join("no_backup");
    let moved: serde_json::Value =
        serde_json::from_slice(&fs::read(no_backup.join("cetp-grants.json")).unwrap()).unwrap();
    assert_eq!(moved["version"], 2);
    assert_eq!(moved["grants"][0]["package"], AGENT);

    // The user revokes the agent. Files of the old location that come back (a restore of an
    // old backup) are not read again: the new location is the live one.
    let provider = open_app(&files, &clock);
    provider.authorizer().revoke(AGENT, None).unwrap();
    drop(provider);
    for (name, bytes) in legacy_store() {
        fs::write(files.join(name), bytes).unwrap();
    }
    let provider = open_app(&files, &clock);
    assert_eq!(
        call(&provider, &agent(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired),
        "a revoked grant came back"
    );
    assert_eq!(names(&files), Vec::<String>::new(), "and they are removed");
}

/// A copy in format 1 (never released; it wrote the copy before the file) without its file
/// is unusable, as a copy of any other version: it admits nobody, and the decisions start
/// over, saying so.
#[test]
fn a_version_1_copy_without_its_file_is_not_used() {
    let clock = ManualClock::new(T0);
    let phone = tempfile::tempdir().unwrap();
    let files = phone.path().join("files");
    fs::create_dir_all(&files).unwrap();
    let store = json!({
        "version": 1,
        "grants": [{"package": AGENT, "certificate_sha256": CERT_A, "scopes": ["notes"],
                    "access": "full", "granted_at_ms": T0 - 1000, "expires_at_ms": null}],
        "denials": []
    });
    fs::write(files.join("cetp-grants.json.last-good"), store.to_string()).unwrap();
    let provider = open_app(&files, &clock);
    assert_eq!(
        call(&provider, &agent(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired)
    );
    let state: serde_json::Value =
        serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
    assert_eq!(state["decisions_lost"], true, "{state}");
    assert_eq!(names(&files), Vec::<String>::new());
}

fn sim_files() -> PathBuf {
    PathBuf::from("/sim/data/files")
}

fn sim_no_backup() -> PathBuf {
    PathBuf::from("/sim/data/no_backup")
}

fn open_sim(fs: &SimFs, clock: &ManualClock) -> Provider {
    builder()
        .auth(
            Auth::user_approval()
                .clock(clock.clone())
                .store_fs(Arc::new(fs.clone()))
                .refused_rate_limit(RateLimit::new(u32::MAX, Duration::from_millis(1))),
        )
        .app(App::new(PACKAGE, sim_files()))
        .build()
        .expect("the provider builds")
}

fn legacy_sim() -> SimFs {
    let fs = SimFs::new();
    for (name, bytes) in legacy_store() {
        fs.put(&sim_files().join(name), &bytes);
    }
    fs
}

fn is_store_file(name: &str) -> bool {
    name.starts_with("cetp-grants.json") && !name.ends_with(".lock")
}

/// The move, stopped at each of its steps (every step from there on fails, as if the
/// machine had stopped), then the power goes out: the old location or the new one holds the
/// store, the next start finishes the move, and the decisions are the ones the old store
/// held, no more.
#[test]
fn a_move_cut_short_at_any_step_leaves_one_usable_location() {
    let clock = ManualClock::new(T0);
    let steps = {
        let fs = legacy_sim();
        drop(open_sim(&fs, &clock));
        fs.steps()
    };
    assert!(steps >= 12, "{steps}");
    let (mut old_held, mut new_held) = (0, 0);
    for k in 0..steps {
        let fs = legacy_sim();
        fs.set_fault(Some(Fault {
            from: k,
            errno: EIO,
            times: None,
        }));
        let provider = open_sim(&fs, &clock);
        // In force at once, from whichever location holds it.
        assert!(call(&provider, &agent(), "read_notes").is_success(), "{k}");
        drop(provider);
        fs.lose_power();
        let old_live = fs
            .durable_names_in(&sim_files())
            .iter()
            .any(|n| n == "cetp-grants.json");
        let new_live = fs
            .durable_names_in(&sim_no_backup())
            .iter()
            .any(|n| is_store_file(n));
        assert!(
            old_live || new_live,
            "{k}: neither location holds the store"
        );
        old_held += usize::from(!new_live);
        new_held += usize::from(new_live);

        fs.set_fault(None);
        let provider = open_sim(&fs, &clock);
        assert!(call(&provider, &agent(), "read_notes").is_success(), "{k}");
        assert_eq!(
            call(&provider, &stranger(), "read_notes").error_code(),
            Some(ErrorCode::PermissionDenied),
            "{k}"
        );
        assert_eq!(provider.authorizer().grants().len(), 1, "{k}");
        assert!(
            fs.names_in(&sim_files()).is_empty(),
            "{k}: left in the files dir: {:?}",
            fs.names_in(&sim_files())
        );
    }
    eprintln!(
        "a move of {steps} steps cut short at each: the old location held the store {old_held} times, the new one {new_held} times"
    );
    assert!(
        old_held > 0 && new_held > 0,
        "both halves of the move were cut"
    );
}

/// Old files that cannot be removed stay behind, but once the new location holds the store
/// they are never read again: a grant revoked since does not come back.
#[test]
fn old_files_that_could_not_be_removed_bring_nothing_back() {
    let clock = ManualClock::new(T0);
    let fs = legacy_sim();
    for (name, _) in legacy_store() {
        fs.fail_in(Step::Remove, &sim_files(), name, EIO);
    }
    let provider = open_sim(&fs, &clock);
    assert!(call(&provider, &agent(), "read_notes").is_success());
    provider.authorizer().revoke(AGENT, None).unwrap();
    drop(provider);
    assert!(
        fs.names_in(&sim_files())
            .contains(&"cetp-grants.json".to_owned())
    );
    fs.lose_power();
    fs.clear_rules();
    let provider = open_sim(&fs, &clock);
    assert_eq!(
        call(&provider, &agent(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired),
        "a revoked grant came back"
    );
    assert!(fs.names_in(&sim_files()).is_empty());
}
