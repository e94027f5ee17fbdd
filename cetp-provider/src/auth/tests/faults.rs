//! Syscall faults and power loss under the grant store, through its file-system seam
//! ([`StoreFs`]): every step of a save (removing the last good copy; temp open, write, file
//! fsync, rename, directory fsync, for the file and then for the copy)
//! fails with `ENOSPC` or `EIO`, once or for good, for each kind of change; then the power goes
//! out and the unsynced writes are lost.
//!
//! After every fault: memory equals the file once the store has had its retry; a revoke or a
//! deny is in force at once (fails closed); an approval is in force only when it reached the
//! disk; after the power loss the store reopens, uncorrupted, in the state before or after the
//! change, and in the state after it when the change was reported saved.

use super::support;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use cetp_provider::auth::{Approval, Auth, Denial, Grant, ManualClock, RateLimit};
use cetp_provider::{Caller, ErrorCode, Provider};
use serde_json::Value;
use support::sim_fs::{Fault, SimFs, Step};
use support::*;

const ENOSPC: i32 = 28;
const EIO: i32 = 5;

fn dir() -> PathBuf {
    PathBuf::from("/sim/files")
}

fn open(fs: &SimFs, clock: &ManualClock) -> Provider {
    provider(
        Auth::user_approval()
            .store_dir(dir())
            .store_fs(Arc::new(fs.clone()))
            .clock(clock.clone())
            .refused_rate_limit(RateLimit::new(u32::MAX, Duration::from_millis(1))),
    )
}

/// The third app, which has a pending request when a scenario starts.
fn third() -> Caller {
    Caller::app(10_005, "com.example.third").with_certificate(CERT_B)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Approve,
    Deny,
    Revoke,
    ClearDenial,
}

impl Op {
    fn narrows(self) -> bool {
        matches!(self, Op::Deny | Op::Revoke)
    }
}

/// The agent approved, the stranger denied, the third app waiting.
fn setup(fs: &SimFs, clock: &ManualClock) -> Provider {
    let provider = open(fs, clock);
    approve(&provider, &agent(), "read_notes", Approval::as_listed);
    call(&provider, &stranger(), "read_notes");
    let id = pending_id_for(&provider, &stranger());
    provider.authorizer().deny(&id).unwrap();
    assert_eq!(
        call(&provider, &third(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired)
    );
    provider
}

type State = (Vec<Grant>, Vec<Denial>);

fn memory(provider: &Provider) -> State {
    (
        provider.authorizer().grants(),
        provider.authorizer().denials(),
    )
}

/// The file as a reader sees it now, parsed like memory.
fn disk(fs: &SimFs) -> State {
    let bytes = fs
        .read_now(&dir().join("cetp-grants.json"))
        .expect("the file exists");
    let value: Value = serde_json::from_slice(&bytes).expect("the file is JSON");
    (
        serde_json::from_value(value["grants"].clone()).unwrap(),
        serde_json::from_value(value["denials"].clone()).unwrap(),
    )
}

fn run(provider: &Provider, op: Op) -> Result<(), String> {
    let auth = provider.authorizer();
    match op {
        Op::Approve => {
            let id = pending_id_for(provider, &third());
            auth.approve(&id, listed(provider, &id)).map(drop)
        }
        Op::Deny => auth.deny(&pending_id_for(provider, &third())).map(drop),
        Op::Revoke => auth.revoke(AGENT, None).map(drop),
        Op::ClearDenial => auth.clear_denial("com.example.stranger", None).map(drop),
    }
    .map_err(|e| e.to_string())
}

/// Whether the change is in force, judged by calls.
fn in_force(provider: &Provider, op: Op) -> bool {
    let code = |caller: &Caller| call(provider, caller, "read_notes").error_code();
    match op {
        Op::Approve => code(&third()).is_none(),
        Op::Deny => code(&third()) == Some(ErrorCode::PermissionDenied),
        Op::Revoke => code(&agent()) == Some(ErrorCode::AuthRequired),
        Op::ClearDenial => code(&stranger()) == Some(ErrorCode::AuthRequired),
    }
}

fn unsaved(provider: &Provider) -> bool {
    let state: Value =
        serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).expect("admin JSON");
    state["state"]["unsaved_changes"].as_bool().unwrap()
}

/// How many fault-able steps one change takes.
fn steps_of(op: Op) -> usize {
    let fs = SimFs::new();
    let clock = ManualClock::new(1_000);
    let provider = setup(&fs, &clock);
    let before = fs.steps();
    run(&provider, op).unwrap();
    fs.steps() - before
}

#[derive(Default)]
struct Tally {
    scenarios: usize,
    faults: usize,
    failed_closed: usize,
    refused_approvals: usize,
    committed_approvals: usize,
    power_losses: usize,
}

/// One scenario: `op` with faults from its `k`-th step on (`times` of them).
fn scenario(op: Op, k: usize, errno: i32, times: Option<usize>, tally: &mut Tally) {
    let what = format!("{op:?}, fault {errno} at step {k} ({times:?} times)");
    let fs = SimFs::new();
    let clock = ManualClock::new(1_000);
    let provider = setup(&fs, &clock);
    let pre = memory(&provider);
    let injected_before = fs.injected();
    fs.set_fault(Some(Fault {
        from: fs.steps() + k,
        errno,
        times,
    }));
    let outcome = run(&provider, op);
    tally.scenarios += 1;
    tally.faults += fs.injected() - injected_before;
    let post = memory(&provider);
    let forced = in_force(&provider, op);
    if op.narrows() {
        assert!(outcome.is_ok(), "{what}: {outcome:?}");
        assert!(forced, "{what}: a narrowing change fails closed");
        tally.failed_closed += 1;
    } else {
        assert_eq!(forced, outcome.is_ok(), "{what}: {outcome:?}");
        if outcome.is_err() {
            assert_eq!(post, pre, "{what}: a refused widening changes nothing");
            assert_eq!(disk(&fs), pre, "{what}: nor the file");
            tally.refused_approvals += 1;
        } else if times.is_none() {
            tally.committed_approvals += 1;
        }
    }
    let reported_saved = outcome.is_ok() && !unsaved(&provider);
    if times.is_some() {
        // A single fault is absorbed by the retries.
        assert!(reported_saved, "{what}");
    }
    if reported_saved {
        assert_eq!(disk(&fs), post, "{what}: memory equals disk");
    }

    // Power loss now, with the fault still in place.
    let expected = if reported_saved {
        vec![&post]
    } else {
        vec![&pre, &post]
    };
    power_loss(&fs, &clock, provider, &expected, &what);
    tally.power_losses += 1;

    if times.is_none() {
        // The same again, but the disk recovers: the store saves what is in force.
        let fs = SimFs::new();
        let provider = setup(&fs, &clock);
        fs.set_fault(Some(Fault {
            from: fs.steps() + k,
            errno,
            times,
        }));
        let outcome = run(&provider, op);
        tally.faults += fs.injected();
        let post = memory(&provider);
        fs.set_fault(None);
        clock.advance(Duration::from_secs(2));
        // Any call retries (at most once a second).
        call(&provider, &agent(), "ping");
        assert!(!unsaved(&provider), "{what}: saved once the disk recovered");
        assert_eq!(
            disk(&fs),
            post,
            "{what}: memory equals disk after the retry"
        );
        let expected = if outcome.is_ok() { post } else { pre.clone() };
        power_loss(&fs, &clock, provider, &[&expected], &what);
        tally.power_losses += 1;
    }
}

/// Drops `provider`, loses power, reopens: the store must load uncorrupted into one of
/// `expected`.
fn power_loss(
    fs: &SimFs,
    clock: &ManualClock,
    provider: Provider,
    expected: &[&State],
    what: &str,
) {
    drop(provider);
    fs.set_fault(None);
    fs.lose_power();
    let reopened = open(fs, clock);
    let found = memory(&reopened);
    assert!(
        expected.contains(&&found),
        "{what}: after power loss the store holds {found:?}, expected one of {expected:?}"
    );
    let state: Value =
        serde_json::from_str(&reopened.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
    assert_eq!(
        state["decisions_lost"], false,
        "{what}: nothing was corrupt"
    );
    assert!(
        fs.names()
            .iter()
            .all(|n| !n.to_string_lossy().contains(".corrupt-")),
        "{what}: {:?}",
        fs.names()
    );
}

#[test]
fn every_fault_at_every_step_fails_closed_and_memory_equals_disk() {
    let mut tally = Tally::default();
    for op in [Op::Approve, Op::Deny, Op::Revoke, Op::ClearDenial] {
        let steps = steps_of(op);
        assert_eq!(
            steps, 11,
            "{op:?}: removing the copy, then five steps for the file and five for the copy"
        );
        for k in 0..steps {
            for errno in [ENOSPC, EIO] {
                for times in [Some(1), None] {
                    scenario(op, k, errno, times, &mut tally);
                }
            }
        }
    }
    eprintln!(
        "{} scenarios, {} faults injected, {} narrowing changes failed closed, {} widening changes refused unchanged, {} committed despite a lasting fault, {} power losses survived",
        tally.scenarios,
        tally.faults,
        tally.failed_closed,
        tally.refused_approvals,
        tally.committed_approvals,
        tally.power_losses
    );
    assert_eq!(tally.scenarios, 4 * 11 * 2 * 2);
    // A lasting fault refuses a widening change up to the file's rename (the copy's removal
    // and the file's first four steps); after it (the file's directory fsync, the copy's five
    // steps) the change is on disk and in force.
    assert_eq!(tally.refused_approvals, 2 * 5 * 2);
    assert_eq!(tally.committed_approvals, 2 * 6 * 2);
}

#[test]
fn a_save_is_the_documented_steps_in_order() {
    let fs = SimFs::new();
    let clock = ManualClock::new(1_000);
    let provider = setup(&fs, &clock);
    let before = fs.steps();
    run(&provider, Op::Revoke).unwrap();
    let save = [
        Step::Open,
        Step::Write,
        Step::FileSync,
        Step::Rename,
        Step::DirSync,
    ];
    // The copy goes first, then the file is written (its directory fsync makes the removal
    // durable too), then the copy again.
    assert_eq!(
        fs.step_kinds()[before..],
        [&[Step::Remove][..], &save, &save].concat()
    );
}

/// Power lost right after each acknowledged change (no faults): the change is durable.
#[test]
fn acknowledged_changes_survive_power_loss() {
    let clock = ManualClock::new(1_000);
    for op in [Op::Approve, Op::Deny, Op::Revoke, Op::ClearDenial] {
        let fs = SimFs::new();
        let provider = setup(&fs, &clock);
        run(&provider, op).unwrap();
        let post = memory(&provider);
        power_loss(&fs, &clock, provider, &[&post], &format!("{op:?}"));
    }
}

/// Power lost in the middle of a save, after each step: the store reopens in the state
/// before or after the change, never corrupt.
#[test]
fn power_loss_inside_a_save_leaves_the_old_or_the_new_state() {
    let clock = ManualClock::new(1_000);
    let mut losses = 0;
    for op in [Op::Approve, Op::Deny, Op::Revoke, Op::ClearDenial] {
        for k in 0..steps_of(op) {
            let fs = SimFs::new();
            let provider = setup(&fs, &clock);
            let pre = memory(&provider);
            // Everything from step k on fails, as if the machine had stopped there.
            fs.set_fault(Some(Fault {
                from: fs.steps() + k,
                errno: EIO,
                times: None,
            }));
            let _ = run(&provider, op);
            let mut post = memory(&provider);
            if post == pre {
                // A refused approval: what it would have written.
                let probe = SimFs::new();
                let probe_provider = setup(&probe, &clock);
                run(&probe_provider, op).unwrap();
                post = memory(&probe_provider);
            }
            power_loss(
                &fs,
                &clock,
                provider,
                &[&pre, &post],
                &format!("{op:?} at {k}"),
            );
            losses += 1;
        }
    }
    assert_eq!(losses, 44);
}

#[test]
fn the_lock_admits_one_store_at_a_time() {
    let fs = SimFs::new();
    let clock = ManualClock::new(1_000);
    let first = open(&fs, &clock);
    let second = Provider::builder("Notes")
        .auth(
            Auth::user_approval()
                .store_dir(dir())
                .store_fs(Arc::new(fs.clone())),
        )
        .build();
    let err = second.expect_err("the directory is locked").to_string();
    assert!(err.contains("another process holds"), "{err}");
    drop(first);
    let _third = open(&fs, &clock);
}

/// The first save of a store, with two faults: the file's rename fails (EIO) and the last good
/// copy cannot be removed either. The approval is refused (`persist_failed`), and it stays
/// refused after a restart: nothing on disk may hold a change that never committed.
#[test]
fn a_refused_first_approval_is_not_brought_back_by_its_copy() {
    let fs = SimFs::new();
    let clock = ManualClock::new(1_000);
    let provider = open(&fs, &clock);
    assert_eq!(
        call(&provider, &agent(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired)
    );
    let id = pending_id_for(&provider, &agent());
    fs.fail(Step::Rename, "cetp-grants.json", EIO);
    fs.fail(Step::Remove, "cetp-grants.json.last-good", EIO);
    let err = provider
        .authorizer()
        .approve(&id, listed(&provider, &id))
        .unwrap_err();
    assert_eq!(err.kind(), "persist_failed", "{err}");
    assert_eq!(
        call(&provider, &agent(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired)
    );
    // A plain restart (no power loss): whatever the directory holds is what the next start
    // reads.
    drop(provider);
    fs.clear_rules();
    let reopened = open(&fs, &clock);
    assert!(reopened.authorizer().grants().is_empty());
    assert_eq!(
        call(&reopened, &agent(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired),
        "the refused approval came back from {:?}",
        fs.names()
    );
}

/// A revoke whose file committed but whose copy could not be written again, then the file is
/// damaged: the store recovers without the revoked grant, because the old copy was removed
/// before the file changed.
#[test]
fn a_stale_copy_cannot_bring_back_a_revoked_grant() {
    let fs = SimFs::new();
    let clock = ManualClock::new(1_000);
    let provider = setup(&fs, &clock);
    fs.fail(Step::Rename, "cetp-grants.json.last-good", EIO);
    provider.authorizer().revoke(AGENT, None).unwrap();
    assert!(!unsaved(&provider), "the file holds the revoke");
    drop(provider);
    fs.clear_rules();
    fs.put(&dir().join("cetp-grants.json"), b"{\"version\":2,\"gr");
    let reopened = open(&fs, &clock);
    assert_eq!(
        call(&reopened, &agent(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired),
        "the revoked grant came back"
    );
}
