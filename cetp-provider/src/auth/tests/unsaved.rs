//! A narrowing change the disk refused, through the file-system seam and the admin JSON: it is
//! in force at once, the state says `unsaved_changes: true` while it lasts, the next decision
//! saves it, and a store closed after the disk recovered saves it too, so a restart (even
//! followed by a power loss) keeps it.

use super::support;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use cetp_provider::auth::{Approval, Auth, ManualClock, RateLimit};
use cetp_provider::{ErrorCode, Provider};
use serde_json::Value;
use support::sim_fs::{Fault, SimFs};
use support::*;

const ENOSPC: i32 = 28;

fn open(fs: &SimFs, clock: &ManualClock) -> Provider {
    provider(
        Auth::user_approval()
            .store_dir(PathBuf::from("/sim/files"))
            .store_fs(Arc::new(fs.clone()))
            .clock(clock.clone())
            .refused_rate_limit(RateLimit::new(u32::MAX, Duration::from_millis(1))),
    )
}

fn unsaved(provider: &Provider) -> bool {
    let reply: Value =
        serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
    reply["state"]["unsaved_changes"].as_bool().unwrap()
}

fn revoked(provider: &Provider) -> bool {
    call(provider, &agent(), "read_notes").error_code() == Some(ErrorCode::AuthRequired)
}

/// The agent approved, then revoked while every write to the disk fails.
fn revoke_on_a_full_disk(fs: &SimFs, clock: &ManualClock) -> Provider {
    let provider = open(fs, clock);
    approve(&provider, &agent(), "read_notes", Approval::as_listed);
    assert!(call(&provider, &agent(), "read_notes").is_success());
    fs.set_fault(Some(Fault {
        from: fs.steps(),
        errno: ENOSPC,
        times: None,
    }));
    provider.authorizer().revoke(AGENT, None).unwrap();
    assert!(revoked(&provider), "in force at once");
    assert!(unsaved(&provider), "and the state says it is not saved");
    provider
}

fn restart(fs: &SimFs, clock: &ManualClock, provider: Provider) -> Provider {
    drop(provider);
    fs.lose_power();
    open(fs, clock)
}

#[test]
fn the_next_decision_saves_a_narrowing_the_disk_refused() {
    let fs = SimFs::new();
    let clock = ManualClock::new(1_000);
    let provider = revoke_on_a_full_disk(&fs, &clock);
    fs.set_fault(None);
    // Another decision, within the same second (no throttled retry ran).
    call(&provider, &stranger(), "read_notes");
    let id = pending_id_for(&provider, &stranger());
    provider.authorizer().deny(&id).unwrap();
    assert!(!unsaved(&provider));
    let provider = restart(&fs, &clock, provider);
    assert!(revoked(&provider), "the revoke survived the restart");
    assert!(!unsaved(&provider));
}

#[test]
fn a_store_closed_after_the_disk_recovered_saves_the_narrowing() {
    let fs = SimFs::new();
    let clock = ManualClock::new(1_000);
    let provider = revoke_on_a_full_disk(&fs, &clock);
    // The disk recovers; nothing calls and nobody decides before the provider closes.
    fs.set_fault(None);
    let provider = restart(&fs, &clock, provider);
    assert!(
        revoked(&provider),
        "the revoked grant came back after a restart"
    );
    assert!(!unsaved(&provider));
}

#[test]
fn calls_retry_the_save_once_a_second_until_the_disk_recovers() {
    let fs = SimFs::new();
    let clock = ManualClock::new(1_000);
    let provider = revoke_on_a_full_disk(&fs, &clock);
    // Calls retry at most once a second, and keep saying it while the disk is full.
    clock.advance(Duration::from_secs(2));
    assert!(revoked(&provider));
    assert!(unsaved(&provider));
    fs.set_fault(None);
    clock.advance(Duration::from_secs(2));
    assert!(revoked(&provider), "a call retries the save");
    assert!(!unsaved(&provider));
    let provider = restart(&fs, &clock, provider);
    assert!(revoked(&provider));
}
