//! The admin JSON's vocabulary is `cetp_provider::wire::ADMIN_*`: every key, operation, access
//! value and error kind the consent screens read or write is one of those constants, and every
//! constant is something the admin types really serialize. The template's Java spells the same
//! constants (`Wire.ADMIN_*`, proven equal by `tests/android_template.rs`), so a field renamed
//! here breaks a test instead of a consent dialog.

use super::support;

use std::collections::BTreeSet;
use std::time::Duration;

use cetp_provider::auth::admin::{AdminError, AdminRequest, LocalizedRequest};
use cetp_provider::auth::{Auth, ManualClock};
use cetp_provider::{AccessLevel, Provider, wire};
use serde_json::Value;
use support::*;

const T0: u64 = 1_767_225_600_000;

/// Every `ADMIN_KEY_*` and the operation key.
const KEYS: &[&str] = wire::ADMIN_KEYS;

/// Every object key anywhere in `value`.
fn keys_of(value: &Value, into: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                into.insert(key.clone());
                keys_of(inner, into);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| keys_of(v, into)),
        _ => {}
    }
}

fn json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).expect("the admin types serialize")
}

/// A provider whose state has something under every key: a pending request, a grant with a
/// limited expiring scope, one for the tools without scope, calls in the access log, a denial.
fn busy_provider(dir: &std::path::Path) -> Provider {
    let clock = ManualClock::new(T0);
    let provider = provider(Auth::user_approval().store_dir(dir).clock(clock.clone()));
    approve(&provider, &agent(), "read_notes", |request| {
        cetp_provider::auth::Approval::as_listed(request)
            .access(AccessLevel::Limited)
            .expires_after(Duration::from_secs(3600))
    });
    approve(
        &provider,
        &stranger(),
        "ping",
        cetp_provider::auth::Approval::as_listed,
    );
    clock.advance(Duration::from_secs(60));
    assert!(call(&provider, &agent(), "read_notes").is_success());
    assert!(call(&provider, &stranger(), "ping").is_success());
    // Refused: the spoofed app is denied, the shared UID keeps waiting.
    assert!(call(&provider, &spoofed(), "read_notes").error().is_some());
    let spoofed_id = pending_id_for(&provider, &spoofed());
    provider.authorizer().deny(&spoofed_id).unwrap();
    assert!(call(&provider, &shared_uid(), "agenda").error().is_some());
    provider
}

/// Every request the screens send, one per operation, with every optional field (the screen's
/// language too).
fn every_request() -> Vec<LocalizedRequest> {
    vec![
        AdminRequest::State {
            caller_uid: Some(10_001),
        },
        AdminRequest::Approve {
            id: "r-1".to_owned(),
            scopes: vec!["notes".to_owned()],
            access: AccessLevel::Limited,
            duration_secs: Some(3600),
            caller_uid: Some(10_001),
        },
        AdminRequest::Deny {
            id: "r-2".to_owned(),
            caller_uid: Some(10_001),
        },
        AdminRequest::Revoke {
            package: AGENT.to_owned(),
            certificate_sha256: Some(CERT_A.to_owned()),
        },
        AdminRequest::ClearDenial {
            package: AGENT.to_owned(),
            certificate_sha256: Some(CERT_A.to_owned()),
        },
    ]
    .into_iter()
    .map(|request| LocalizedRequest::new(request, Some("fr")))
    .collect()
}

#[test]
fn the_admin_keys_are_exactly_the_wire_constants() {
    let constants: BTreeSet<String> = KEYS.iter().map(|k| (*k).to_owned()).collect();
    assert_eq!(constants.len(), KEYS.len(), "two constants spell one key");

    let dir = tempfile::tempdir().unwrap();
    let provider = busy_provider(dir.path());
    let mut seen = BTreeSet::new();
    for request in every_request() {
        keys_of(&json(&request), &mut seen);
    }
    // A reply that worked and one that did not, and the state on its own.
    keys_of(
        &json(
            &provider
                .authorizer()
                .admin(AdminRequest::State { caller_uid: None }),
        ),
        &mut seen,
    );
    let failed = provider.authorizer().admin(AdminRequest::Deny {
        id: "no-such-request".to_owned(),
        caller_uid: None,
    });
    assert!(!failed.ok);
    keys_of(&json(&failed), &mut seen);
    let state = json(&provider.authorizer().state());
    keys_of(&state, &mut seen);

    // Something was under every key (nothing was null where the screens look deeper).
    let grants = state[wire::ADMIN_KEY_GRANTS].as_array().unwrap();
    assert!(
        grants
            .iter()
            .any(|g| !g[wire::ADMIN_KEY_NO_SCOPE].is_null()),
        "{state}"
    );
    assert!(
        grants
            .iter()
            .any(|g| !g[wire::ADMIN_KEY_TOOLS].as_array().unwrap().is_empty())
    );
    assert!(
        !state[wire::ADMIN_KEY_PENDING]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(
        !state[wire::ADMIN_KEY_DENIALS]
            .as_array()
            .unwrap()
            .is_empty()
    );

    let unnamed: Vec<_> = seen.difference(&constants).collect();
    assert!(
        unnamed.is_empty(),
        "admin JSON keys without a wire::ADMIN_* constant: {unnamed:?}"
    );
    let unused: Vec<_> = constants.difference(&seen).collect();
    assert!(
        unused.is_empty(),
        "wire::ADMIN_* constants no admin type serializes: {unused:?}"
    );
}

#[test]
fn the_operations_are_the_wire_constants() {
    let ops: Vec<Value> = every_request()
        .iter()
        .map(|r| json(r)[wire::ADMIN_OP].clone())
        .collect();
    assert_eq!(
        ops,
        [
            wire::ADMIN_OP_STATE,
            wire::ADMIN_OP_APPROVE,
            wire::ADMIN_OP_DENY,
            wire::ADMIN_OP_REVOKE,
            wire::ADMIN_OP_CLEAR_DENIAL,
        ]
    );
    // And they parse back: what the Java side writes is what the provider reads.
    for request in every_request() {
        let text = serde_json::to_string(&request).unwrap();
        assert_eq!(
            serde_json::from_str::<LocalizedRequest>(&text).unwrap(),
            request
        );
    }
}

#[test]
fn the_access_values_are_the_wire_constants() {
    for (level, spelled) in [
        (AccessLevel::Full, wire::ADMIN_ACCESS_FULL),
        (AccessLevel::Limited, wire::ADMIN_ACCESS_LIMITED),
    ] {
        let request = AdminRequest::Approve {
            id: "r".to_owned(),
            scopes: Vec::new(),
            access: level,
            duration_secs: None,
            caller_uid: None,
        };
        assert_eq!(json(&request)[wire::ADMIN_KEY_ACCESS], spelled);
    }
    let dir = tempfile::tempdir().unwrap();
    let provider = busy_provider(dir.path());
    let state = json(&provider.authorizer().state());
    let agent_grant = state[wire::ADMIN_KEY_GRANTS]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g[wire::ADMIN_KEY_PACKAGE] == AGENT)
        .unwrap()
        .clone();
    assert_eq!(
        agent_grant[wire::ADMIN_KEY_PER_SCOPE][0][wire::ADMIN_KEY_ACCESS],
        wire::ADMIN_ACCESS_LIMITED
    );
}

#[test]
fn the_error_kinds_the_screens_act_on_are_the_wire_constants() {
    for (error, kind) in [
        (
            AdminError::UnknownRequest("r".to_owned()),
            wire::ADMIN_ERROR_UNKNOWN_REQUEST,
        ),
        (
            AdminError::ScopeNotRequested("s".to_owned()),
            wire::ADMIN_ERROR_SCOPE_NOT_REQUESTED,
        ),
        (
            AdminError::NotFound("p".to_owned()),
            wire::ADMIN_ERROR_NOT_FOUND,
        ),
        (
            AdminError::Persist("disk full".to_owned()),
            wire::ADMIN_ERROR_PERSIST_FAILED,
        ),
    ] {
        assert_eq!(error.kind(), kind);
    }
    // As a reply carries them.
    let dir = tempfile::tempdir().unwrap();
    let provider = busy_provider(dir.path());
    let reply: Value = serde_json::from_str(
        &provider.handle_admin_json(r#"{"op":"revoke","package":"com.example.nobody"}"#),
    )
    .unwrap();
    assert_eq!(
        reply[wire::ADMIN_KEY_ERROR][wire::ADMIN_KEY_KIND],
        wire::ADMIN_ERROR_NOT_FOUND
    );
}

/// The state a screen opened by one app reads: only that app's requests, none lapsed, each
/// saying what the app already holds for its own package and certificate; the screens filter
/// and compare nothing themselves.
#[test]
fn a_screen_reads_only_its_apps_live_requests_with_what_that_app_holds() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .clock(clock.clone()),
    );
    approve(&provider, &agent(), "read_notes", |request| {
        cetp_provider::auth::Approval::as_listed(request)
            .access(AccessLevel::Limited)
            .expires_after(Duration::from_secs(5 * 60))
    });
    // The agent asks for more; an app under its name, signed by someone else, asks too.
    assert!(call(&provider, &agent(), "agenda").error().is_some());
    assert!(call(&provider, &spoofed(), "agenda").error().is_some());
    let state = |uid: u32| -> Value {
        let reply: Value = serde_json::from_str(
            &provider.handle_admin_json(&format!(r#"{{"op":"state","caller_uid":{uid}}}"#)),
        )
        .unwrap();
        reply[wire::ADMIN_KEY_STATE][wire::ADMIN_KEY_PENDING].clone()
    };
    let scopes_held = |request: &Value| -> Vec<Value> {
        request[wire::ADMIN_KEY_HOLDS][wire::ADMIN_KEY_SCOPES]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s[wire::ADMIN_KEY_SCOPE].clone())
            .collect()
    };

    let mine = state(agent().uid().unwrap());
    let [request] = mine.as_array().unwrap().as_slice() else {
        panic!("one request: {mine}")
    };
    assert_eq!(request[wire::ADMIN_KEY_UID], agent().uid().unwrap());
    assert_eq!(request[wire::ADMIN_KEY_ASKS_FOR_MORE], true);
    assert_eq!(scopes_held(request), ["notes"]);
    assert_eq!(
        request[wire::ADMIN_KEY_HOLDS][wire::ADMIN_KEY_SCOPES][0][wire::ADMIN_KEY_ACCESS],
        wire::ADMIN_ACCESS_LIMITED
    );
    // The look-alike: the agent's name, another certificate: it holds nothing.
    let theirs = state(spoofed().uid().unwrap());
    let [request] = theirs.as_array().unwrap().as_slice() else {
        panic!("one request: {theirs}")
    };
    assert_eq!(request[wire::ADMIN_KEY_UID], spoofed().uid().unwrap());
    assert_eq!(request[wire::ADMIN_KEY_ASKS_FOR_MORE], false);
    assert!(scopes_held(request).is_empty());
    // An app that asked for nothing reads no request.
    assert_eq!(state(stranger().uid().unwrap()), Value::Array(Vec::new()));

    // The grant lapses: the agent holds nothing any more, though its request still waits.
    clock.advance(Duration::from_secs(6 * 60));
    let mine = state(agent().uid().unwrap());
    assert_eq!(mine[0][wire::ADMIN_KEY_ASKS_FOR_MORE], false, "{mine}");
    assert!(scopes_held(&mine[0]).is_empty());
    // The requests lapse: no screen reads them.
    clock.advance(Duration::from_secs(5 * 60));
    assert_eq!(state(agent().uid().unwrap()), Value::Array(Vec::new()));
    assert_eq!(state(spoofed().uid().unwrap()), Value::Array(Vec::new()));
}
