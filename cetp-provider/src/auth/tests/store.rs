//! The grant store: file format, atomic writes, round trips, corruption recovery, concurrency.

use super::support;

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use cetp_provider::auth::{Approval, Auth, ManualClock, RateLimit, STORE_FILE_NAME};
use cetp_provider::{AccessLevel, App, BuildError, Caller, ErrorCode, Provider};
use serde_json::Value;
use support::*;

fn store_file(dir: &Path) -> std::path::PathBuf {
    dir.join(STORE_FILE_NAME)
}

fn read_json(dir: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(store_file(dir)).unwrap()).unwrap()
}

const LAST_GOOD: &str = "cetp-grants.json.last-good";

/// The files in `dir` apart from the lock file.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "cetp-grants.json.lock")
        .collect();
    names.sort();
    names
}

fn user_approval(dir: &Path) -> Provider {
    // Hammered from many threads by one caller at once: no cap on its calls in flight.
    builder()
        .auth(
            Auth::user_approval()
                .store_dir(dir)
                .clock(ManualClock::new(1_000))
                .refused_rate_limit(RateLimit::new(u32::MAX, Duration::from_millis(1))),
        )
        .max_calls_in_flight_per_caller(usize::MAX)
        .build()
        .expect("valid provider")
}

#[test]
fn writes_leave_one_complete_documented_file() {
    let dir = tempfile::tempdir().unwrap();
    let provider = user_approval(dir.path());
    assert_eq!(
        names_in(dir.path()),
        Vec::<String>::new(),
        "opening writes nothing"
    );
    approve(&provider, &agent(), "read_notes", |r| {
        Approval::as_listed(r).access(AccessLevel::Limited)
    });
    assert_eq!(
        names_in(dir.path()),
        [STORE_FILE_NAME, LAST_GOOD],
        "no temp file left behind"
    );
    assert_eq!(
        fs::read(store_file(dir.path())).unwrap(),
        fs::read(dir.path().join(LAST_GOOD)).unwrap(),
        "the last good copy is the file"
    );
    let text = fs::read_to_string(store_file(dir.path())).unwrap();
    assert!(
        text.ends_with("}\n") && text.contains("\n  \"grants\""),
        "pretty: {text}"
    );
    assert_eq!(
        read_json(dir.path()),
        serde_json::json!({
            "version": 2,
            "grants": [{
                "package": AGENT,
                "certificate_sha256": CERT_A,
                "scopes": {
                    "notes": {"access": "limited", "granted_at_ms": 1000, "expires_at_ms": null}
                }
            }],
            "denials": []
        })
    );
}

#[test]
fn grants_and_denials_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let provider = user_approval(dir.path());
        approve(&provider, &agent(), "agenda", |_| {
            Approval::scopes(["calendar"])
        });
        assert_eq!(
            call(&provider, &stranger(), "ping").error_code(),
            Some(ErrorCode::AuthRequired)
        );
        let id = pending_id_for(&provider, &stranger());
        provider.authorizer().deny(&id).unwrap();
    }
    let reopened = user_approval(dir.path());
    let grants = reopened.authorizer().grants();
    assert_eq!(grants.len(), 1);
    assert_eq!(grants[0].scope_names().collect::<Vec<_>>(), ["calendar"]);
    assert_eq!(reopened.authorizer().denials().len(), 1);
    // The agent holds `calendar` only: `agenda` still lacks `notes`.
    let answer = call(&reopened, &agent(), "agenda");
    assert!(
        answer.error_message().unwrap().contains("scope `notes`"),
        "{answer}"
    );
    assert_eq!(
        call(&reopened, &stranger(), "ping").error_code(),
        Some(ErrorCode::PermissionDenied)
    );
    // A change made by the second instance keeps what the first one wrote.
    let before = fs::read_to_string(store_file(dir.path())).unwrap();
    reopened
        .authorizer()
        .clear_denial("com.example.stranger", None)
        .unwrap();
    let after = read_json(dir.path());
    assert_eq!(after["denials"], serde_json::json!([]));
    let before: Value = serde_json::from_str(&before).unwrap();
    assert_eq!(after["grants"], before["grants"]);
}

type Corrupt = Box<dyn Fn(&Path)>;

/// A store that cannot be used: its content, or a path that cannot be read as a file.
fn corrupt_cases(valid: &str) -> Vec<(&'static str, Corrupt)> {
    let truncated = valid[..valid.len() / 2].to_owned();
    vec![
        (
            "garbage",
            Box::new(|p: &Path| fs::write(p, b"\x00\xffnot json at all").unwrap()),
        ),
        ("empty", Box::new(|p: &Path| fs::write(p, b"").unwrap())),
        (
            "truncated",
            Box::new(move |p: &Path| fs::write(p, &truncated).unwrap()),
        ),
        (
            "wrong version",
            Box::new(|p: &Path| fs::write(p, r#"{"version":3,"grants":[],"denials":[]}"#).unwrap()),
        ),
        // Version 1 of the format (one level and expiry per grant) was never released: a
        // file of it is as unusable as one of a version to come.
        (
            "version 1",
            Box::new(|p: &Path| {
                fs::write(
                    p,
                    r#"{"version":1,"grants":[{"package":"com.example.agent","certificate_sha256":"5f2a","scopes":["notes"],"access":"full","granted_at_ms":0}],"denials":[]}"#,
                )
                .unwrap()
            }),
        ),
        (
            "wrong shape",
            Box::new(|p: &Path| fs::write(p, r#"{"version":2,"grants":{}}"#).unwrap()),
        ),
        (
            "bad certificate",
            Box::new(|p: &Path| {
                fs::write(
                    p,
                    r#"{"version":2,"grants":[{"package":"com.example.agent","certificate_sha256":"zz","scopes":{"notes":{"access":"full","granted_at_ms":0}}}],"denials":[]}"#,
                )
                .unwrap()
            }),
        ),
        (
            "unreadable (a directory)",
            Box::new(|p: &Path| {
                fs::create_dir(p).unwrap();
                fs::write(p.join("inside"), b"x").unwrap();
            }),
        ),
    ]
}

#[test]
fn a_corrupt_store_is_set_aside_and_everyone_reapproves() {
    // A valid store that grants the agent, to corrupt in various ways.
    let template = tempfile::tempdir().unwrap();
    approve(
        &user_approval(template.path()),
        &agent(),
        "read_notes",
        Approval::as_listed,
    );
    let valid = fs::read_to_string(store_file(template.path())).unwrap();

    for (what, corrupt) in corrupt_cases(&valid) {
        let dir = tempfile::tempdir().unwrap();
        corrupt(&store_file(dir.path()));
        let provider = user_approval(dir.path());
        assert!(provider.authorizer().grants().is_empty(), "{what}");

        let answer = call(&provider, &agent(), "read_notes");
        assert_eq!(
            answer.error_code(),
            Some(ErrorCode::AuthRequired),
            "{what}: {answer}"
        );
        assert!(
            answer
                .error_message()
                .unwrap()
                .contains("unreadable and have been reset"),
            "{what}: {answer}"
        );
        // The bad file is kept aside, untouched; an empty store that says decisions were
        // lost replaces it.
        let names = names_in(dir.path());
        assert_eq!(names.len(), 3, "{what}: {names:?}");
        assert!(
            names[0] == STORE_FILE_NAME
                && names[1].starts_with("cetp-grants.json.corrupt-1000")
                && names[2] == LAST_GOOD,
            "{what}: {names:?}"
        );
        assert_eq!(read_json(dir.path())["decisions_lost"], true, "{what}");
        let state: serde_json::Value =
            serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
        assert_eq!(state["decisions_lost"], true, "{what}");

        // The next approval starts a fresh, valid store.
        let id = pending_id_for(&provider, &agent());
        provider
            .authorizer()
            .approve(&id, listed(&provider, &id))
            .unwrap();
        assert_eq!(read_json(dir.path())["version"], 2, "{what}");
        assert_eq!(read_json(dir.path()).get("decisions_lost"), None, "{what}");
        assert_eq!(names_in(dir.path()).len(), 3, "{what}");
        let answer = call(&provider, &agent(), "read_notes");
        assert!(answer.is_success(), "{what}: {answer}");
        // And a restart reads it back.
        drop(provider);
        assert_eq!(
            user_approval(dir.path()).authorizer().grants().len(),
            1,
            "{what}"
        );
    }
}

#[test]
fn stale_temp_files_are_removed_on_open() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("cetp-grants.json.tmp-4242"),
        b"{\"version\":1,\"gra",
    )
    .unwrap();
    let provider = user_approval(dir.path());
    assert!(names_in(dir.path()).is_empty());
    assert!(provider.authorizer().grants().is_empty());
}

/// A corrupt file is recovered from its last good copy: no decision is lost, and a denied app
/// stays denied (it cannot prompt the user again).
#[test]
fn a_corrupt_store_is_recovered_from_its_last_good_copy() {
    let dir = tempfile::tempdir().unwrap();
    {
        let provider = user_approval(dir.path());
        approve(&provider, &agent(), "read_notes", Approval::as_listed);
        call(&provider, &stranger(), "read_notes");
        let id = pending_id_for(&provider, &stranger());
        provider.authorizer().deny(&id).unwrap();
    }
    let good = fs::read(store_file(dir.path())).unwrap();
    for (what, corrupt) in corrupt_cases(&String::from_utf8(good.clone()).unwrap()) {
        if fs::symlink_metadata(store_file(dir.path())).is_ok_and(|m| m.is_dir()) {
            fs::remove_dir_all(store_file(dir.path())).unwrap();
        } else {
            let _ = fs::remove_file(store_file(dir.path()));
        }
        corrupt(&store_file(dir.path()));
        let provider = user_approval(dir.path());
        assert_eq!(provider.authorizer().grants().len(), 1, "{what}");
        assert!(
            call(&provider, &agent(), "read_notes").is_success(),
            "{what}"
        );
        assert_eq!(
            call(&provider, &stranger(), "read_notes").error_code(),
            Some(ErrorCode::PermissionDenied),
            "{what}: the denial survived"
        );
        let state: serde_json::Value =
            serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
        assert_eq!(state["decisions_lost"], false, "{what}");
        // The file itself is whole again.
        assert_eq!(fs::read(store_file(dir.path())).unwrap(), good, "{what}");
    }
}

#[test]
fn a_failed_save_changes_nothing() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("store");
    let provider = user_approval(&dir);
    assert_eq!(
        call(&provider, &agent(), "ping").error_code(),
        Some(ErrorCode::AuthRequired)
    );
    let id = pending_id_for(&provider, &agent());
    // The directory disappears under the provider: the temp file cannot be created.
    fs::remove_dir_all(&dir).unwrap();
    let err = provider
        .authorizer()
        .approve(&id, listed(&provider, &id))
        .unwrap_err();
    assert_eq!(err.kind(), "persist_failed", "{err}");
    assert!(provider.authorizer().grants().is_empty());
    assert_eq!(
        provider.authorizer().pending().len(),
        1,
        "the request stays pending"
    );
    assert_eq!(
        call(&provider, &agent(), "ping").error_code(),
        Some(ErrorCode::AuthRequired)
    );

    fs::create_dir(&dir).unwrap();
    provider
        .authorizer()
        .approve(&id, listed(&provider, &id))
        .unwrap();
    assert!(call(&provider, &agent(), "ping").is_success());
}

#[test]
fn the_apps_no_backup_dir_is_created_and_each_build_opens_the_store_there() {
    let parent = tempfile::tempdir().unwrap();
    let with_app = |dir: &Path| {
        builder()
            .auth(Auth::user_approval())
            .app(App::new("com.example.notes", dir))
            .build()
    };
    let first = parent.path().join("a/files");
    let provider = with_app(&first).unwrap();
    approve(&provider, &agent(), "ping", Approval::as_listed);
    assert!(store_file(&parent.path().join("a/no_backup")).exists());
    assert!(!first.exists() || names_in(&first).is_empty());

    let second = parent.path().join("b/files");
    assert!(with_app(&second).unwrap().authorizer().grants().is_empty());
    assert_eq!(with_app(&first).unwrap().authorizer().grants().len(), 1);

    // A path under a regular file cannot be a directory: the provider does not build.
    let file = parent.path().join("plain");
    fs::write(&file, b"x").unwrap();
    assert!(matches!(
        with_app(&file.join("files")),
        Err(BuildError::Auth(_))
    ));
    // The provider built before keeps its store.
    assert_eq!(provider.authorizer().grants().len(), 1);
}

/// Many threads call while others approve and revoke: every answer is a success or
/// AUTH_REQUIRED, a call made after an approval returned succeeds, and memory matches disk.
#[test]
fn concurrent_calls_and_grant_changes_stay_consistent() {
    const CALLERS: u32 = 12;
    const CALLING_THREADS: usize = 6;
    let dir = tempfile::tempdir().unwrap();
    let provider = Arc::new(user_approval(dir.path()));
    let caller = |i: u32| {
        Caller::app(30_000 + i, format!("com.example.c{i}")).with_certificate(format!("{i:064x}"))
    };

    // Every caller asks once, so each has a pending request for `notes`.
    for i in 0..CALLERS {
        assert_eq!(
            call(&provider, &caller(i), "read_notes").error_code(),
            Some(ErrorCode::AuthRequired)
        );
    }

    let (approved_tx, approved_rx) = mpsc::channel::<u32>();
    let approved_rx = Arc::new(std::sync::Mutex::new(approved_rx));
    let mut workers = Vec::new();
    for t in 0..CALLING_THREADS {
        let provider = Arc::clone(&provider);
        let approved_rx = Arc::clone(&approved_rx);
        workers.push(thread::spawn(move || {
            let mut checked_after_approval = 0;
            loop {
                // Hammer every caller; only success or AUTH_REQUIRED are acceptable.
                for i in 0..CALLERS {
                    let answer = call(
                        &provider,
                        &caller(i),
                        if i % 2 == 0 { "ping" } else { "read_notes" },
                    );
                    assert!(
                        answer.is_success() || answer.error_code() == Some(ErrorCode::AuthRequired),
                        "thread {t}: {answer}"
                    );
                }
                let next = approved_rx.lock().unwrap().try_recv();
                match next {
                    Ok(i) => {
                        // Approved before we received it: must pass now (callers with an even
                        // index are revoked later, but never before all workers stopped).
                        let answer = call(&provider, &caller(i), "read_notes");
                        assert!(answer.is_success(), "thread {t}, caller {i}: {answer}");
                        checked_after_approval += 1;
                    }
                    Err(mpsc::TryRecvError::Empty) => {}
                    Err(mpsc::TryRecvError::Disconnected) => return checked_after_approval,
                }
            }
        }));
    }
    let admin = {
        let provider = Arc::clone(&provider);
        thread::spawn(move || {
            for i in 0..CALLERS {
                let id = provider
                    .authorizer()
                    .pending()
                    .into_iter()
                    .find(|p| p.uid == Some(30_000 + i))
                    .expect("still pending")
                    .id;
                provider
                    .authorizer()
                    .approve(&id, listed(&provider, &id))
                    .unwrap();
                approved_tx.send(i).unwrap();
            }
        })
    };
    admin.join().unwrap();
    let checked: usize = workers.into_iter().map(|w| w.join().unwrap()).sum();
    assert_eq!(checked, CALLERS as usize);

    // Revoke half from several threads at once while others keep calling.
    let revokers: Vec<_> = (0..CALLERS)
        .filter(|i| i % 2 == 0)
        .map(|i| {
            let provider = Arc::clone(&provider);
            thread::spawn(move || {
                provider
                    .authorizer()
                    .revoke(&format!("com.example.c{i}"), None)
                    .unwrap();
                call(&provider, &caller(i + 1), "read_notes").is_success()
            })
        })
        .collect();
    for r in revokers {
        assert!(r.join().unwrap(), "an odd caller kept its grant");
    }
    for i in 0..CALLERS {
        let answer = call(&provider, &caller(i), "read_notes");
        assert_eq!(answer.is_success(), i % 2 == 1, "caller {i}: {answer}");
    }
    // Memory and disk agree.
    let on_disk = read_json(dir.path());
    let in_memory = serde_json::to_value(provider.authorizer().grants()).unwrap();
    assert_eq!(on_disk["grants"], in_memory);
    assert_eq!(in_memory.as_array().unwrap().len(), CALLERS as usize / 2);
    // The store, its last good copy and the access log (written when a revoke removes
    // history); no temp file left.
    assert_eq!(
        names_in(dir.path()),
        [
            cetp_provider::auth::ACCESS_LOG_FILE_NAME,
            STORE_FILE_NAME,
            LAST_GOOD
        ]
    );
}

/// Two providers on one directory (two binds, two builds) share one store: no approval is
/// lost to the other's write, and no temp file of one is removed by the other. Another process
/// cannot open the store while it is open (advisory lock).
#[test]
fn two_providers_on_one_directory_lose_no_update() {
    const PER_PROVIDER: u32 = 25;
    let dir = tempfile::tempdir().unwrap();
    let both = [user_approval(dir.path()), user_approval(dir.path())];
    let caller = |side: u32, i: u32| {
        Caller::app(50_000 + side * 100 + i, format!("com.example.s{side}.a{i}"))
            .with_certificate(format!("{:064x}", side * 100 + i))
    };
    thread::scope(|s| {
        for (side, provider) in both.iter().enumerate() {
            let side = u32::try_from(side).unwrap();
            s.spawn(move || {
                for i in 0..PER_PROVIDER {
                    approve(
                        provider,
                        &caller(side, i),
                        "read_notes",
                        Approval::as_listed,
                    );
                }
            });
        }
    });
    for provider in &both {
        assert_eq!(
            provider.authorizer().grants().len(),
            2 * PER_PROVIDER as usize
        );
    }
    assert_eq!(
        read_json(dir.path())["grants"].as_array().unwrap().len(),
        2 * PER_PROVIDER as usize
    );
    assert_eq!(names_in(dir.path()), [STORE_FILE_NAME, LAST_GOOD]);

    // The lock is held while the store is open, by this process: a second lock on the file is
    // refused here without touching it (closing a descriptor of it would release the lock).
    let lock = dir.path().join("cetp-grants.json.lock");
    let Err(err) = cetp_provider::auth::StoreFs::lock(&cetp_provider::auth::OsFs, &lock) else {
        panic!("locked while open");
    };
    assert_eq!(err.kind(), std::io::ErrorKind::ResourceBusy);
    drop(both);
    let _guard = cetp_provider::auth::StoreFs::lock(&cetp_provider::auth::OsFs, &lock)
        .expect("released once closed");
    // Held by something else than a store, the store does not open. (Held by another process:
    // `crash::store_survives_sigkill_at_any_point`.)
    let err = builder()
        .auth(Auth::user_approval().store_dir(dir.path()))
        .build()
        .expect_err("locked by someone else")
        .to_string();
    assert!(err.contains("this process already holds"), "{err}");
}

/// A copy holds a committed state (it is written after its file): when the file is missing it
/// is used. One of another format version (1, never released, saved the copy before the
/// file) is unusable like the file beside it: the decisions start over, saying so.
#[test]
fn only_a_copy_written_after_its_file_committed_is_trusted() {
    let dir = tempfile::tempdir().unwrap();
    {
        let provider = user_approval(dir.path());
        approve(&provider, &agent(), "read_notes", Approval::as_listed);
    }
    fs::remove_file(store_file(dir.path())).unwrap();
    let provider = user_approval(dir.path());
    assert!(call(&provider, &agent(), "read_notes").is_success());
    assert!(store_file(dir.path()).exists(), "rewritten from the copy");
    drop(provider);

    let v1 = format!(
        r#"{{"version":1,"grants":[{{"package":"{AGENT}","certificate_sha256":"{CERT_A}",
            "scopes":["notes"],"access":"full","granted_at_ms":0,"expires_at_ms":null}}],
            "denials":[]}}"#
    );
    fs::write(dir.path().join(LAST_GOOD), v1).unwrap();
    fs::write(store_file(dir.path()), b"{\"version\":2,\"gra").unwrap();
    let provider = user_approval(dir.path());
    assert_eq!(
        call(&provider, &agent(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired)
    );
    let state: Value =
        serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
    assert_eq!(state["decisions_lost"], true);
}
