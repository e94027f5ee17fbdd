//! Authorization through `CetpV1Host::call` (the bridge's entry point), via `testing::Agent`.

use super::support;

use std::time::Duration;

use cetp_provider::auth::admin::{AdminError, AdminResponse};
use cetp_provider::auth::{Approval, Auth, ManualClock, RateLimit};
use cetp_provider::testing::Agent;
use cetp_provider::{
    AccessLevel, App, BuildError, Caller, ErrorCode, Provider, Response, host::CallerPackage,
};
use support::*;

const OK: &str = "ok";
const DENIED: &str = "PERMISSION_DENIED";
const AUTH: &str = "AUTH_REQUIRED";

fn outcome(answer: &Response) -> &'static str {
    match answer.error_code() {
        None => {
            assert!(answer.is_success(), "{answer}");
            OK
        }
        Some(ErrorCode::PermissionDenied) => DENIED,
        Some(ErrorCode::AuthRequired) => AUTH,
        Some(other) => panic!("unexpected {other}: {answer}"),
    }
}

/// Every policy × method × caller kind, gated and ungated discovery.
#[test]
fn policy_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let callers: [(&str, Caller); 6] = [
        ("known", agent()),
        ("unknown", Caller::unknown()),
        (
            "uid-without-packages",
            Caller::from_parts(Some(10_009), vec![]),
        ),
        ("shared-uid", shared_uid()),
        ("spoofed-cert", spoofed()),
        ("stranger", stranger()),
    ];
    // Expected execute_tool outcome per caller (same order), per policy.
    type Policy = (
        &'static str,
        fn(&std::path::Path) -> Auth,
        [&'static str; 6],
    );
    let policies: [Policy; 4] = [
        ("open", |_| Auth::open(), [OK, OK, OK, OK, OK, OK]),
        (
            "allowlist",
            |_| Auth::allowlist().allow(AGENT),
            [OK, DENIED, DENIED, OK, OK, DENIED],
        ),
        (
            "allowlist-pinned",
            |_| Auth::allowlist().allow_signed(AGENT, CERT_A.to_uppercase()),
            [OK, DENIED, DENIED, OK, DENIED, DENIED],
        ),
        (
            "user-approval",
            |dir| Auth::user_approval().store_dir(dir),
            [OK, DENIED, DENIED, OK, AUTH, AUTH],
        ),
    ];
    for (name, make, expected) in policies {
        for gated in [false, true] {
            let store = dir.path().join(format!("{name}-{gated}"));
            let provider = provider(make(&store).gate_discovery(gated));
            if name == "user-approval" {
                approve(&provider, &agent(), "read_notes", |r| {
                    Approval::as_listed(r)
                });
            }
            for ((who, caller), want) in callers.iter().zip(expected) {
                let tested = Agent::new(&provider).as_caller(caller.clone());
                let context = format!("{name}, gated={gated}, {who}");
                assert_eq!(
                    outcome(&tested.execute("read_notes", "{}")),
                    want,
                    "execute: {context}"
                );
                let discovery = if gated { want } else { OK };
                assert_eq!(
                    outcome(&tested.list_tools()),
                    discovery,
                    "list_tools: {context}"
                );
                assert_eq!(
                    outcome(&tested.provider_info()),
                    discovery,
                    "get_provider_info: {context}"
                );
            }
        }
    }
}

#[test]
fn unknown_callers_get_a_clear_permission_denied() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(Auth::user_approval().store_dir(dir.path()));
    let answer = call(&provider, &Caller::unknown(), "ping");
    assert_eq!(answer.error_code(), Some(ErrorCode::PermissionDenied));
    assert!(
        answer
            .error_message()
            .unwrap()
            .contains("could not identify the calling app"),
        "{answer}"
    );
    assert!(provider.authorizer().pending().is_empty());
}

#[test]
fn auth_required_names_exactly_the_missing_scopes() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .authorize_intent("com.example.notes.AUTHORIZE"),
    );
    approve(&provider, &agent(), "read_notes", |r| {
        Approval::as_listed(r)
    });

    let answer = call(&provider, &agent(), "agenda");
    assert_eq!(
        answer.error_code(),
        Some(ErrorCode::AuthRequired),
        "{answer}"
    );
    let message = answer.error_message().unwrap();
    assert!(message.contains("scope `calendar`"), "{message}");
    assert!(!message.contains("notes`"), "{message}");
    assert_eq!(
        answer.get("resolution_hint"),
        Some("Open Notes and allow com.example.agent to read: your calendar events")
    );
    assert_eq!(
        answer.get("authorize_intent"),
        Some("com.example.notes.AUTHORIZE")
    );

    let pending = provider.authorizer().pending();
    assert_eq!(pending.len(), 1);
    let names: Vec<&str> = pending[0].scopes.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["calendar"]);
    assert_eq!(pending[0].scopes[0].description, "your calendar events");

    // Approving the new request adds `calendar` to the grant and keeps `notes`.
    provider
        .authorizer()
        .approve(&pending[0].id, Approval::as_listed(&pending[0]))
        .unwrap();
    assert!(call(&provider, &agent(), "agenda").is_success());
    assert!(call(&provider, &agent(), "read_notes").is_success());
    let grants = provider.authorizer().grants();
    assert_eq!(grants.len(), 1);
    assert_eq!(
        grants[0].scope_names().collect::<Vec<_>>(),
        ["calendar", "notes"]
    );
}

#[test]
fn first_request_lists_every_scope_of_the_tool_and_a_custom_hint() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .resolution_hint("{package} wants {scopes} from {provider}"),
    );
    let answer = call(&provider, &agent(), "agenda");
    assert!(
        answer
            .error_message()
            .unwrap()
            .contains("scopes `notes`, `calendar`"),
        "{answer}"
    );
    assert_eq!(
        answer.get("resolution_hint"),
        Some("com.example.agent wants your notes, your calendar events from Notes")
    );
    // No app package bound and no override: no intent.
    assert_eq!(answer.get("authorize_intent"), None);
}

#[test]
fn limited_access_reaches_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(Auth::user_approval().store_dir(dir.path()));
    approve(&provider, &agent(), "read_notes", |r| {
        Approval::as_listed(r).access(AccessLevel::Limited)
    });
    let data = call(&provider, &agent(), "read_notes").data_json().unwrap();
    assert_eq!(data["access"], "limited");
    assert_eq!(data["tool"], "read_notes");

    let open = provider_with_open();
    let data = call(&open, &stranger(), "read_notes").data_json().unwrap();
    assert_eq!(data["access"], "full");
}

fn provider_with_open() -> Provider {
    provider(Auth::open())
}

#[test]
fn a_tool_without_scopes_still_needs_a_grant() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(Auth::user_approval().store_dir(dir.path()));
    let answer = call(&provider, &agent(), "ping");
    assert_eq!(answer.error_code(), Some(ErrorCode::AuthRequired));
    assert!(
        answer
            .error_message()
            .unwrap()
            .contains("not yet allowed com.example.agent to use Notes"),
        "{answer}"
    );
    assert_eq!(
        answer.get("resolution_hint"),
        Some("Open Notes and allow com.example.agent to use its tools")
    );
    assert!(provider.authorizer().pending()[0].scopes.is_empty());
    // Any grant of the caller covers it, whatever its scopes.
    approve(&provider, &agent(), "read_notes", |r| {
        Approval::as_listed(r)
    });
    assert!(call(&provider, &agent(), "ping").is_success());
    // The `ping` request was merged into the `read_notes` one and is gone with it.
    assert!(provider.authorizer().pending().is_empty());
}

#[test]
fn grants_expire_with_the_clock() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_700_000_000_000);
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .clock(clock.clone()),
    );
    approve(&provider, &agent(), "read_notes", |r| {
        Approval::as_listed(r).expires_after(Duration::from_secs(3600))
    });
    assert_eq!(
        provider.authorizer().grants()[0].expires_at_ms(),
        Some(1_700_000_000_000 + 3_600_000)
    );
    clock.advance(Duration::from_secs(3599));
    assert!(call(&provider, &agent(), "read_notes").is_success());
    clock.advance(Duration::from_secs(1));
    let answer = call(&provider, &agent(), "read_notes");
    assert_eq!(answer.error_code(), Some(ErrorCode::AuthRequired));
    assert!(
        answer.error_message().unwrap().contains("has expired"),
        "{answer}"
    );
    let pending = provider.authorizer().pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].requested_at_ms, 1_700_000_000_000 + 3_600_000);
    // Re-approving replaces the expired grant.
    provider
        .authorizer()
        .approve(&pending[0].id, Approval::as_listed(&pending[0]))
        .unwrap();
    clock.advance(Duration::from_secs(10 * 365 * 24 * 3600));
    assert!(call(&provider, &agent(), "read_notes").is_success());
    assert_eq!(provider.authorizer().grants().len(), 1);
}

#[test]
fn denial_is_remembered_until_cleared() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(Auth::user_approval().store_dir(dir.path()));
    assert_eq!(outcome(&call(&provider, &agent(), "read_notes")), AUTH);
    let id = pending_id_for(&provider, &agent());
    let denials = provider.authorizer().deny(&id).unwrap();
    assert_eq!(denials.len(), 1);
    assert_eq!(denials[0].certificate_sha256.as_deref(), Some(CERT_A));
    assert!(provider.authorizer().pending().is_empty());

    for tool in ["read_notes", "ping"] {
        let answer = call(&provider, &agent(), tool);
        assert_eq!(answer.error_code(), Some(ErrorCode::PermissionDenied));
        let message = answer.error_message().unwrap();
        assert!(message.contains("declined"), "{message}");
        assert!(message.contains("in the Notes app"), "{message}");
    }
    // No new pending request while denied.
    assert!(provider.authorizer().pending().is_empty());
    // The denial is pinned: an app signed with another key under the same name is not "denied"
    // (it is simply unknown).
    assert_eq!(outcome(&call(&provider, &spoofed(), "read_notes")), AUTH);

    assert_eq!(provider.authorizer().clear_denial(AGENT, None), Ok(1));
    assert_eq!(
        provider.authorizer().clear_denial(AGENT, None),
        Err(AdminError::NotFound(AGENT.to_owned()))
    );
    assert_eq!(outcome(&call(&provider, &agent(), "read_notes")), AUTH);
    // Approving a denied app later lifts the denial too.
    let id = pending_id_for(&provider, &agent());
    provider
        .authorizer()
        .approve(&id, listed(&provider, &id))
        .unwrap();
    assert!(provider.authorizer().denials().is_empty());
    assert!(call(&provider, &agent(), "read_notes").is_success());
}

#[test]
fn deny_removes_an_existing_grant() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(Auth::user_approval().store_dir(dir.path()));
    approve(&provider, &agent(), "read_notes", |r| {
        Approval::as_listed(r)
    });
    assert_eq!(outcome(&call(&provider, &agent(), "agenda")), AUTH);
    let id = pending_id_for(&provider, &agent());
    provider.authorizer().deny(&id).unwrap();
    assert!(provider.authorizer().grants().is_empty());
    assert_eq!(outcome(&call(&provider, &agent(), "read_notes")), DENIED);
}

#[test]
fn revoke_brings_back_auth_required() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(Auth::user_approval().store_dir(dir.path()));
    approve(&provider, &agent(), "read_notes", |r| {
        Approval::as_listed(r)
    });
    assert!(call(&provider, &agent(), "read_notes").is_success());
    // A pin that does not match revokes nothing.
    assert_eq!(
        provider.authorizer().revoke(AGENT, Some(CERT_EVIL)),
        Err(AdminError::NotFound(AGENT.to_owned()))
    );
    assert_eq!(
        provider
            .authorizer()
            .revoke(AGENT, Some(&CERT_A.to_uppercase())),
        Ok(1)
    );
    assert_eq!(outcome(&call(&provider, &agent(), "read_notes")), AUTH);
    assert_eq!(provider.authorizer().pending().len(), 1);
}

#[test]
fn approval_only_through_recorded_pending_ids() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(Auth::user_approval().store_dir(dir.path()));
    let auth = provider.authorizer();
    assert_eq!(
        auth.approve("no-such-id", Approval::scopes(["notes"])),
        Err(AdminError::UnknownRequest("no-such-id".to_owned()))
    );
    assert_eq!(
        auth.deny("no-such-id"),
        Err(AdminError::UnknownRequest("no-such-id".to_owned()))
    );
    assert!(auth.grants().is_empty() && auth.denials().is_empty());
    assert!(
        !dir.path().join("cetp-grants.json").exists(),
        "nothing was written"
    );

    let caller = shared_uid();
    assert_eq!(outcome(&call(&provider, &caller, "read_notes")), AUTH);
    let id = pending_id_for(&provider, &caller);
    // Scopes the request did not ask for are refused, and nothing changes.
    assert_eq!(
        auth.approve(&id, Approval::scopes(["notes", "calendar"])),
        Err(AdminError::ScopeNotRequested("calendar".to_owned()))
    );
    assert!(auth.grants().is_empty());
    assert_eq!(auth.pending().len(), 1);

    let grants = auth.approve(&id, Approval::scopes(["notes"])).unwrap();
    // One grant per recorded package, pinned to the recorded certificate.
    let mut recorded: Vec<(String, Option<String>)> = grants
        .iter()
        .map(|g| (g.package.clone(), g.certificate_sha256.clone()))
        .collect();
    recorded.sort();
    assert_eq!(
        recorded,
        [
            (AGENT.to_owned(), Some(CERT_A.to_owned())),
            ("com.example.helper".to_owned(), Some(CERT_B.to_owned())),
        ]
    );
    // The id is spent.
    assert_eq!(
        auth.approve(&id, Approval::scopes(["notes"])),
        Err(AdminError::UnknownRequest(id.clone()))
    );
    assert_eq!(auth.grants().len(), 2);
    // Both packages of the shared UID now pass, each on its own, with its own certificate only.
    assert!(call(&provider, &agent(), "read_notes").is_success());
    assert!(
        call(
            &provider,
            &Caller::app(10_002, "com.example.helper").with_certificate(CERT_B),
            "read_notes"
        )
        .is_success()
    );
    assert_eq!(outcome(&call(&provider, &spoofed(), "read_notes")), AUTH);
}

#[test]
fn the_most_specific_grant_wins_for_a_shared_uid() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(Auth::user_approval().store_dir(dir.path()));
    // The agent with full access, the helper limited: a shared UID holding both gets the
    // grant that covers the scopes; with both covering, the first pinned match in the store.
    approve(&provider, &agent(), "read_notes", |r| {
        Approval::as_listed(r).access(AccessLevel::Full)
    });
    let helper = Caller::app(10_002, "com.example.helper").with_certificate(CERT_B);
    approve(&provider, &helper, "agenda", |r| {
        Approval::as_listed(r).access(AccessLevel::Limited)
    });
    let data = call(&provider, &shared_uid(), "agenda")
        .data_json()
        .unwrap();
    assert_eq!(
        data["access"], "limited",
        "only the helper's grant covers `calendar`"
    );
    // The agent's grant is pinned: an app installed under its name with another key gets nothing.
    assert_eq!(outcome(&call(&provider, &spoofed(), "read_notes")), AUTH);
}

#[test]
fn a_caller_without_a_known_certificate_cannot_be_approved() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(Auth::user_approval().store_dir(dir.path()));
    let unsigned = Caller::app(10_001, AGENT);
    assert_eq!(outcome(&call(&provider, &unsigned, "read_notes")), AUTH);
    let id = pending_id_for(&provider, &unsigned);
    let err = provider
        .authorizer()
        .approve(&id, listed(&provider, &id))
        .unwrap_err();
    assert_eq!(err.kind(), "no_certificate");
    assert!(err.to_string().contains(AGENT), "{err}");
    assert!(provider.authorizer().grants().is_empty());
    // The request stays pending; an impostor under the same name still gets nothing.
    assert_eq!(provider.authorizer().pending().len(), 1);
    assert_eq!(outcome(&call(&provider, &spoofed(), "read_notes")), AUTH);
    // Denying it is fine: a denial without a certificate only refuses more.
    provider.authorizer().deny(&id).unwrap();
    assert_eq!(outcome(&call(&provider, &spoofed(), "read_notes")), DENIED);
}

#[test]
fn an_unpinned_grant_from_an_older_store_admits_nobody() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(cetp_provider::auth::STORE_FILE_NAME),
        format!(
            r#"{{"version":2,"grants":[{{"package":"{AGENT}","certificate_sha256":null,
                "scopes":{{"notes":{{"access":"full","granted_at_ms":0,"expires_at_ms":null}}}}}}],
                "denials":[]}}"#
        ),
    )
    .unwrap();
    let provider = provider(Auth::user_approval().store_dir(dir.path()));
    assert_eq!(
        provider.authorizer().grants().len(),
        1,
        "still listed for the screen"
    );
    assert_eq!(outcome(&call(&provider, &agent(), "read_notes")), AUTH);
    assert_eq!(outcome(&call(&provider, &spoofed(), "read_notes")), AUTH);
}

#[test]
fn pending_requests_are_bounded_and_coalesced() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000_000);
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .clock(clock.clone())
            .max_pending(4),
    );
    for uid in 0..6u32 {
        let caller = Caller::app(20_000 + uid, format!("com.example.app{uid}"));
        assert_eq!(outcome(&call(&provider, &caller, "ping")), AUTH);
    }
    // Full: the last two were refused like the others but not recorded; nobody was dropped
    // for them.
    let pending = provider.authorizer().pending();
    let uids: Vec<Option<u32>> = pending.iter().map(|p| p.uid).collect();
    assert_eq!(
        uids,
        [Some(20_000), Some(20_001), Some(20_002), Some(20_003)]
    );

    // Repeats from one caller merge into one request with the union of the scopes.
    let caller = Caller::app(20_001, "com.example.app1");
    let id_before = pending_id_for(&provider, &caller);
    call(&provider, &caller, "read_notes");
    call(&provider, &caller, "agenda");
    call(&provider, &caller, "read_notes");
    let pending = provider.authorizer().pending();
    assert_eq!(pending.len(), 4);
    // Asking again never moves a request ahead: the list stays in order of first request.
    let uids: Vec<Option<u32>> = pending.iter().map(|p| p.uid).collect();
    assert_eq!(
        uids,
        [Some(20_000), Some(20_001), Some(20_002), Some(20_003)]
    );
    let merged = &pending[1];
    assert_eq!(merged.id, id_before);
    assert_eq!(
        merged
            .scopes
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["notes", "calendar"]
    );
    assert_eq!(
        merged.packages,
        [serde_json::from_value(serde_json::json!({
            "name": "com.example.app1", "certificate_sha256": []
        }))
        .unwrap()]
    );

    // Ten minutes on, only the request asked for again is left, and a newcomer gets a place.
    clock.advance(Duration::from_secs(9 * 60));
    call(&provider, &caller, "ping");
    clock.advance(Duration::from_secs(60));
    let late = Caller::app(20_005, "com.example.app5");
    call(&provider, &late, "ping");
    let uids: Vec<Option<u32>> = provider
        .authorizer()
        .pending()
        .iter()
        .map(|p| p.uid)
        .collect();
    assert_eq!(uids, [Some(20_001), Some(20_005)]);
}

/// A provider given neither an app nor a store directory (a host test) keeps the user's
/// decisions in memory: the agent is asked, approved and answered like on a device, and a
/// new provider starts with nothing approved. With the app, the store is on disk.
#[test]
fn without_a_directory_approvals_are_kept_in_memory_and_the_app_brings_a_store() {
    let in_memory = provider(Auth::user_approval());
    assert_eq!(in_memory.authorizer().store_path(), None);
    let answer = call(&in_memory, &agent(), "read_notes");
    assert_eq!(
        answer.error_code(),
        Some(ErrorCode::AuthRequired),
        "{answer}"
    );
    let request = in_memory.authorizer().pending().remove(0);
    in_memory
        .authorizer()
        .approve(&request.id, Approval::as_listed(&request))
        .unwrap();
    assert!(call(&in_memory, &agent(), "read_notes").is_success());
    assert!(Agent::new(&in_memory).list_tools().is_success());
    let again = provider(Auth::user_approval());
    assert_eq!(
        call(&again, &agent(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired),
        "nothing outlives the provider"
    );

    let dir = tempfile::tempdir().unwrap();
    let provider = builder()
        .auth(Auth::user_approval())
        .app(App::new("com.example.notes", dir.path()))
        .build()
        .unwrap();
    assert!(provider.authorizer().store_path().is_some());
    let answer = call(&provider, &agent(), "read_notes");
    assert_eq!(answer.error_code(), Some(ErrorCode::AuthRequired));
    assert_eq!(
        answer.get("authorize_intent"),
        Some("com.example.notes.CETP_AUTHORIZE")
    );
}

#[test]
fn rate_limits_per_caller_and_per_tool() {
    let clock = ManualClock::new(0);
    let provider = provider(
        Auth::open()
            .clock(clock.clone())
            .rate_limit(RateLimit::new(2, Duration::from_secs(1)))
            .tool_rate_limit("agenda", RateLimit::new(1, Duration::from_secs(3))),
    );
    let a = agent();
    let b = stranger();
    assert!(call(&provider, &a, "read_notes").is_success());
    assert!(call(&provider, &a, "ping").is_success());
    let limited = call(&provider, &a, "read_notes");
    assert_eq!(limited.error_code(), Some(ErrorCode::RateLimited));
    assert!(
        limited.error_message().unwrap().ends_with("retry in 1 s"),
        "{limited}"
    );
    // Other callers have their own buckets; the per-tool limit has its own bucket too.
    assert!(call(&provider, &b, "read_notes").is_success());
    assert!(call(&provider, &a, "agenda").is_success());
    let limited = call(&provider, &a, "agenda");
    assert!(
        limited.error_message().unwrap().ends_with("retry in 3 s"),
        "{limited}"
    );
    clock.advance(Duration::from_millis(1500));
    let limited = call(&provider, &a, "agenda");
    assert!(
        limited.error_message().unwrap().ends_with("retry in 2 s"),
        "{limited}"
    );
    // 1.5 s refilled one token of the shared bucket (and a half).
    assert!(call(&provider, &a, "ping").is_success());
    assert_eq!(
        outcome_code(&call(&provider, &a, "ping")),
        Some(ErrorCode::RateLimited)
    );
    clock.advance(Duration::from_millis(1500));
    assert!(call(&provider, &a, "agenda").is_success());
    assert!(call(&provider, &a, "ping").is_success());
}

fn outcome_code(answer: &Response) -> Option<ErrorCode> {
    answer.error_code()
}

#[test]
fn rate_limits_apply_after_authorization() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(0);
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .clock(clock.clone())
            .rate_limit(RateLimit::new(1, Duration::from_secs(60))),
    );
    // An unapproved caller never reaches the bucket: always AUTH_REQUIRED.
    for _ in 0..5 {
        assert_eq!(outcome(&call(&provider, &agent(), "ping")), AUTH);
    }
    let id = pending_id_for(&provider, &agent());
    provider
        .authorizer()
        .approve(&id, listed(&provider, &id))
        .unwrap();
    assert!(call(&provider, &agent(), "ping").is_success());
    assert_eq!(
        call(&provider, &agent(), "ping").error_code(),
        Some(ErrorCode::RateLimited)
    );
}

#[test]
fn admin_json_interface() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(5_000);
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .clock(clock.clone()),
    );
    let admin = |request: &str| -> AdminResponse {
        serde_json::from_str(&provider.handle_admin_json(request)).expect("an AdminResponse")
    };
    assert_eq!(outcome(&call(&provider, &agent(), "agenda")), AUTH);
    let state = admin(r#"{"op":"state"}"#);
    assert!(state.ok && state.error.is_none());
    assert_eq!(state.state.provider_name, "Notes");
    assert_eq!(state.state.scopes.len(), 2);
    assert_eq!(state.state.now_ms, 5_000);
    let request = &state.state.pending[0];
    assert_eq!(request.uid, Some(10_001));
    assert_eq!(request.packages[0].certificate_sha256, [CERT_A]);
    assert_eq!(request.requested_at_ms, 5_000);

    // A misspelt field is rejected rather than approving everything.
    let typo = admin(&format!(
        r#"{{"op":"approve","id":"{}","scope":["notes"]}}"#,
        request.id
    ));
    assert!(!typo.ok);
    assert_eq!(typo.error.unwrap().kind, "bad_request");
    assert!(typo.state.grants.is_empty());

    for (bad, kind) in [
        ("not json", "bad_request"),
        (r#"{"op":"grant_everything"}"#, "bad_request"),
        (
            r#"{"op":"approve","id":"nope","scopes":["notes"]}"#,
            "unknown_request",
        ),
        // The scopes are required: an approval never means "whatever is requested by now".
        (r#"{"op":"approve","id":"nope"}"#, "bad_request"),
        (
            r#"{"op":"approve","id":"nope","access":"total"}"#,
            "bad_request",
        ),
        (r#"{"op":"revoke","package":"com.nobody"}"#, "not_found"),
    ] {
        let reply = admin(bad);
        assert!(!reply.ok, "{bad}");
        assert_eq!(reply.error.unwrap().kind, kind, "{bad}");
    }

    let approved = admin(&format!(
        r#"{{"op":"approve","id":"{}","scopes":["notes"],"access":"limited","duration_secs":60}}"#,
        request.id
    ));
    assert!(approved.ok, "{approved:?}");
    assert!(approved.state.pending.is_empty());
    let grant = &approved.state.grants[0];
    assert_eq!(grant.package, AGENT);
    assert_eq!(grant.access, AccessLevel::Limited);
    assert_eq!(grant.expires_at_ms, Some(65_000));
    assert_eq!(
        call(&provider, &agent(), "read_notes").data_json().unwrap()["access"],
        "limited"
    );

    let raw: serde_json::Value =
        serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
    assert_eq!(raw["state"]["grants"][0]["access"], "limited");
    assert_eq!(
        raw["state"]["grants"][0]["scopes"],
        serde_json::json!(["notes"])
    );

    let revoked = admin(&format!(
        r#"{{"op":"revoke","package":"{AGENT}","certificate_sha256":"{CERT_A}"}}"#
    ));
    assert!(revoked.ok && revoked.state.grants.is_empty());

    assert_eq!(outcome(&call(&provider, &agent(), "read_notes")), AUTH);
    let id = admin(r#"{"op":"state"}"#).state.pending[0].id.clone();
    let denied = admin(&format!(r#"{{"op":"deny","id":"{id}"}}"#));
    assert!(denied.ok && denied.state.denials.len() == 1);
    assert_eq!(outcome(&call(&provider, &agent(), "read_notes")), DENIED);
    let cleared = admin(&format!(r#"{{"op":"clear_denial","package":"{AGENT}"}}"#));
    assert!(cleared.ok && cleared.state.denials.is_empty());
}

#[test]
fn inconsistent_settings_fail_the_build() {
    let cases: [(Auth, &str); 5] = [
        (Auth::open().allow(AGENT), "no effect with `Auth::open()`"),
        (
            Auth::allowlist().allow_signed(AGENT, "abc"),
            "64 hex digits",
        ),
        (
            Auth::open().tool_rate_limit("nope", RateLimit::per_second(1)),
            "does not have",
        ),
        (
            Auth::open().rate_limit(RateLimit::new(0, Duration::from_secs(1))),
            "at least 1",
        ),
        (Auth::open().authorize_intent(" "), "empty"),
    ];
    for (auth, needle) in cases {
        match builder().auth(auth).build() {
            Err(BuildError::Auth(message)) => assert!(message.contains(needle), "{message}"),
            other => panic!("expected an auth build error containing {needle:?}, got {other:?}"),
        }
    }
}

#[test]
fn certificates_are_compared_without_regard_to_case() {
    let provider = provider(Auth::allowlist().allow_signed(AGENT, CERT_A));
    let caller = Caller::from_parts(
        Some(10_001),
        vec![CallerPackage {
            name: AGENT.to_owned(),
            certificate_sha256: vec![CERT_A.to_uppercase()],
        }],
    );
    assert!(call(&provider, &caller, "ping").is_success());
}

#[test]
fn allowed_apps_skip_the_prompt_under_user_approval() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .allow_signed(AGENT, CERT_A),
    );
    let data = call(&provider, &agent(), "agenda").data_json().unwrap();
    assert_eq!(data["access"], "full");
    assert!(provider.authorizer().pending().is_empty());
    // Everyone else goes through the user, the impostor included.
    assert_eq!(outcome(&call(&provider, &spoofed(), "agenda")), AUTH);
    assert_eq!(outcome(&call(&provider, &stranger(), "agenda")), AUTH);
}

/// A clock that counts how often it is read.
#[derive(Clone)]
struct CountingClock {
    clock: ManualClock,
    reads: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl cetp_provider::auth::Clock for CountingClock {
    fn now_ms(&self) -> u64 {
        self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.clock.now_ms()
    }
}

impl CountingClock {
    fn take(&self) -> usize {
        self.reads.swap(0, std::sync::atomic::Ordering::SeqCst)
    }
}

/// Every call is authorized once, at one instant: with gated discovery the gate, the scopes,
/// the expiry and the rate limit are one decision (a grant cannot expire between two checks
/// of one call), and the read is recorded at the time it was decided. A call that ran its tool
/// reads the clock once more, after the tool, for its deadline (which counts from the decision).
#[test]
fn each_call_is_decided_once_at_one_instant() {
    let dir = tempfile::tempdir().unwrap();
    let clock = CountingClock {
        clock: ManualClock::new(1_700_000_000_000),
        reads: Default::default(),
    };
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .gate_discovery(true)
            .clock(clock.clone())
            .rate_limit(RateLimit::per_second(100)),
    );
    approve(&provider, &agent(), "read_notes", |r| {
        Approval::as_listed(r).expires_after(Duration::from_secs(60))
    });
    let approved = Agent::new(&provider).as_caller(agent());
    let stranger = Agent::new(&provider).as_caller(stranger());
    let calls: [&dyn Fn() -> Response; 5] = [
        &|| approved.execute("read_notes", "{}"),
        &|| approved.execute("agenda", "{}"),
        &|| approved.execute("no_such_tool", "{}"),
        &|| approved.list_tools(),
        &|| stranger.execute("read_notes", "{}"),
    ];
    let mut reads = Vec::new();
    for answer in calls {
        clock.take();
        let answer = answer();
        reads.push((answer.error_code(), clock.take()));
    }
    assert_eq!(
        reads,
        [
            (None, 2),
            (Some(ErrorCode::AuthRequired), 1),
            (Some(ErrorCode::ToolNotFound), 1),
            (None, 1),
            (Some(ErrorCode::AuthRequired), 1),
        ]
    );
}

/// With gated discovery a name that is no tool is refused like a tool, and counts against the
/// refused-call limit like any refusal.
#[test]
fn gated_unknown_tools_count_against_the_refused_call_limit() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(0);
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .gate_discovery(true)
            .clock(clock.clone()),
    );
    let codes: Vec<_> = (0..31)
        .map(|i| call(&provider, &stranger(), &format!("nothing_{i}")).error_code())
        .collect();
    assert!(
        codes[..30]
            .iter()
            .all(|c| *c == Some(ErrorCode::AuthRequired))
    );
    assert_eq!(codes[30], Some(ErrorCode::RateLimited));
}
