//! The pending list against many look-alikes, through `CetpV1Host::call` and the authorizer:
//! UIDs showing one signed package share one request, and an identity the user already
//! approved is recorded even while never-seen identities fill the list.

use super::support;

use std::time::Duration;

use cetp_provider::auth::{Approval, Auth, DEFAULT_MAX_PENDING, ManualClock, RateLimit};
use cetp_provider::{Caller, ErrorCode, Provider};
use support::*;

/// User approval with refused calls never rate limited (each call below asks).
fn unlimited(dir: &std::path::Path, clock: &ManualClock, max_pending: usize) -> Provider {
    provider(
        Auth::user_approval()
            .store_dir(dir)
            .clock(clock.clone())
            .max_pending(max_pending)
            .refused_rate_limit(RateLimit::new(u32::MAX, Duration::from_millis(1))),
    )
}

fn asks(provider: &Provider, caller: &Caller, tool: &str) {
    assert_eq!(
        call(provider, caller, tool).error_code(),
        Some(ErrorCode::AuthRequired)
    );
}

#[test]
fn uids_showing_one_signed_package_hold_one_slot() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000_000);
    let provider = unlimited(dir.path(), &clock, DEFAULT_MAX_PENDING);
    let look_alike =
        |n: u32| Caller::app(20_000 + n, "com.clawseed.android").with_certificate(CERT_EVIL);
    // As many UIDs as the list has slots, each asking again and again.
    for _ in 0..3 {
        for n in 0..DEFAULT_MAX_PENDING as u32 {
            asks(&provider, &look_alike(n), "read_notes");
            clock.advance(Duration::from_millis(10));
        }
    }
    let pending = provider.authorizer().pending();
    let uids: Vec<Option<u32>> = pending.iter().map(|p| p.uid).collect();
    assert_eq!(
        uids,
        [Some(20_000)],
        "one request for one identity, under its first UID"
    );
    // The real agent is still recorded, and the user can approve it.
    asks(&provider, &agent(), "read_notes");
    let id = pending_id_for(&provider, &agent());
    provider
        .authorizer()
        .approve(&id, listed(&provider, &id))
        .unwrap();
    assert!(call(&provider, &agent(), "read_notes").is_success());
    // The look-alikes are not admitted by it (another certificate).
    assert_eq!(
        call(&provider, &look_alike(3), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired)
    );
}

#[test]
fn an_identity_the_user_approved_is_recorded_while_strangers_fill_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000_000);
    let provider = unlimited(dir.path(), &clock, 2);
    approve(&provider, &agent(), "read_notes", Approval::as_listed);
    let stranger =
        |n: u32| Caller::app(30_000 + n, format!("com.example.s{n}")).with_certificate(CERT_B);
    asks(&provider, &stranger(0), "read_notes");
    asks(&provider, &stranger(1), "read_notes");
    asks(&provider, &stranger(2), "read_notes");
    assert_eq!(provider.authorizer().pending().len(), 2, "the list is full");
    // The approved agent asks for a scope it lacks: recorded all the same.
    asks(&provider, &agent(), "agenda");
    let id = pending_id_for(&provider, &agent());
    provider
        .authorizer()
        .approve(&id, listed(&provider, &id))
        .unwrap();
    assert!(call(&provider, &agent(), "agenda").is_success());
    assert!(call(&provider, &agent(), "read_notes").is_success());
    // Strangers still cannot use the reserved slots.
    asks(&provider, &stranger(3), "read_notes");
    let pending = provider.authorizer().pending();
    assert_eq!(pending.len(), 2, "{pending:?}");
    assert!(pending.iter().all(|p| p.uid != Some(30_003)));
}
