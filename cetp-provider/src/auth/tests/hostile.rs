//! A hostile agent app against the provider, through `CetpV1Host::call` (as the JNI bridge
//! calls it) and the consent dialog's JSON: flooding while unapproved, steering the approval
//! screen, growing a request after the user saw it, impersonating the agent.

use super::support;

use std::time::Duration;

use cetp_provider::auth::admin::AdminResponse;
use cetp_provider::auth::{Approval, Auth, ManualClock, RateLimit};
use cetp_provider::{Caller, ErrorCode, Provider};
use serde_json::Value;
use support::*;

fn user_approval(dir: &std::path::Path, clock: &ManualClock) -> Provider {
    provider(
        Auth::user_approval()
            .store_dir(dir)
            .clock(clock.clone())
            .rate_limit(RateLimit::per_minute(1)),
    )
}

fn admin(provider: &Provider, request: &str) -> AdminResponse {
    serde_json::from_str(&provider.handle_admin_json(request)).expect("admin JSON")
}

/// A look-alike of the agent: another app (its own UID and key), polling.
fn look_alike() -> Caller {
    Caller::app(10_066, "com.clawseed.android.helper").with_certificate(CERT_EVIL)
}

#[test]
fn an_unapproved_caller_is_rate_limited_and_cannot_refresh_its_request() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000_000);
    let provider = user_approval(dir.path(), &clock);
    let mut auth_required = 0;
    let mut rate_limited = 0;
    for _ in 0..20_000 {
        match call(&provider, &look_alike(), "read_notes").error_code() {
            Some(ErrorCode::AuthRequired) => auth_required += 1,
            Some(ErrorCode::RateLimited) => rate_limited += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(auth_required, 30, "the default burst of refused calls");
    assert_eq!(rate_limited, 20_000 - 30);
    let limited = call(&provider, &look_alike(), "read_notes");
    assert!(
        limited
            .error_message()
            .unwrap()
            .contains("too many refused calls"),
        "{limited}"
    );

    // While limited, calls do not touch its pending request.
    let before = provider.authorizer().pending()[0].clone();
    clock.advance(Duration::from_millis(1_500));
    assert_eq!(
        call(&provider, &look_alike(), "agenda").error_code(),
        Some(ErrorCode::RateLimited)
    );
    assert_eq!(provider.authorizer().pending()[0], before);
    // One token comes back every 2 s.
    clock.advance(Duration::from_millis(500));
    assert_eq!(
        call(&provider, &look_alike(), "agenda").error_code(),
        Some(ErrorCode::AuthRequired)
    );

    // A denied app is limited the same way.
    let id = pending_id_for(&provider, &look_alike());
    provider.authorizer().deny(&id).unwrap();
    let denied = (0..100)
        .filter(|_| {
            call(&provider, &look_alike(), "read_notes").error_code()
                == Some(ErrorCode::PermissionDenied)
        })
        .count();
    assert!(denied <= 30, "{denied}");
    // Others are not affected.
    assert_eq!(
        call(&provider, &agent(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired)
    );
}

#[test]
fn the_approval_screen_offers_only_the_launching_apps_request_in_first_request_order() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(5_000);
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .clock(clock.clone()),
    );
    // The look-alike asks, then the real agent, then the look-alike keeps polling.
    call(&provider, &look_alike(), "read_notes");
    clock.advance(Duration::from_secs(1));
    call(&provider, &agent(), "read_notes");
    for _ in 0..20 {
        clock.advance(Duration::from_secs(1));
        call(&provider, &look_alike(), "read_notes");
    }
    let all = admin(&provider, r#"{"op":"state"}"#).state.pending;
    let uids: Vec<_> = all.iter().map(|p| p.uid).collect();
    assert_eq!(
        uids,
        [look_alike().uid(), agent().uid()],
        "in order of first request: polling does not move the look-alike"
    );
    let raw: Value =
        serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
    assert_eq!(raw["state"]["pending"][0]["first_requested_ms"], 5_000);
    assert_eq!(raw["state"]["pending"][0]["requested_at_ms"], 26_000);
    assert_eq!(raw["state"]["pending"][1]["first_requested_ms"], 6_000);

    // The screen the agent opened shows only the agent's request.
    let agent_uid = agent().uid().unwrap();
    let mine = admin(
        &provider,
        &format!(r#"{{"op":"state","caller_uid":{agent_uid}}}"#),
    );
    assert_eq!(mine.state.pending.len(), 1);
    assert_eq!(mine.state.pending[0].packages[0].name, AGENT);

    // Approving the look-alike's request from the agent's screen fails.
    let other = &all[0];
    let steered = admin(
        &provider,
        &format!(
            r#"{{"op":"approve","id":"{}","scopes":["notes"],"caller_uid":{agent_uid}}}"#,
            other.id
        ),
    );
    assert_eq!(steered.error.unwrap().kind, "unknown_request");
    assert!(steered.state.grants.is_empty());
    assert_eq!(steered.state.pending.len(), 1, "still filtered");
    let steered = admin(
        &provider,
        &format!(
            r#"{{"op":"deny","id":"{}","caller_uid":{agent_uid}}}"#,
            other.id
        ),
    );
    assert_eq!(steered.error.unwrap().kind, "unknown_request");

    let approved = admin(
        &provider,
        &format!(
            r#"{{"op":"approve","id":"{}","scopes":["notes"],"caller_uid":{agent_uid}}}"#,
            mine.state.pending[0].id
        ),
    );
    assert!(approved.ok, "{approved:?}");
    assert!(call(&provider, &agent(), "read_notes").is_success());
    assert_eq!(
        call(&provider, &look_alike(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired)
    );
}

#[test]
fn an_approval_grants_only_the_scopes_the_user_saw() {
    let dir = tempfile::tempdir().unwrap();
    let provider = provider(Auth::user_approval().store_dir(dir.path()));
    call(&provider, &agent(), "read_notes");
    // The screen draws the request: `notes`.
    let seen = provider.authorizer().pending().remove(0);
    // Meanwhile the app asks for more under the same request.
    call(&provider, &agent(), "agenda");
    let grown = provider.authorizer().pending().remove(0);
    assert_eq!(grown.id, seen.id);
    assert_eq!(grown.scopes.len(), 2);

    // The user approves what was shown.
    let grants = provider
        .authorizer()
        .approve(&seen.id, Approval::as_listed(&seen))
        .unwrap();
    assert_eq!(grants[0].scope_names().collect::<Vec<_>>(), ["notes"]);
    assert!(call(&provider, &agent(), "read_notes").is_success());
    assert_eq!(
        call(&provider, &agent(), "agenda").error_code(),
        Some(ErrorCode::AuthRequired),
        "`calendar` was never shown, so never approved"
    );
    // The JSON interface has no "everything requested" form.
    let id = provider.authorizer().pending()[0].id.clone();
    let reply = admin(&provider, &format!(r#"{{"op":"approve","id":"{id}"}}"#));
    assert_eq!(reply.error.unwrap().kind, "bad_request");
}

#[test]
fn the_hint_names_the_provider_package_for_set_package() {
    let dir = tempfile::tempdir().unwrap();
    let app = || cetp_provider::App::new("com.example.notes", dir.path());
    let provider = support::builder()
        .auth(Auth::user_approval())
        .app(app())
        .build()
        .unwrap();
    let answer = call(&provider, &agent(), "read_notes");
    assert_eq!(
        answer.get("authorize_intent"),
        Some("com.example.notes.CETP_AUTHORIZE")
    );
    assert_eq!(
        answer.get("resolution_hint"),
        Some("Open Notes (com.example.notes) and allow com.example.agent to read: your notes")
    );
    let custom = support::builder()
        .auth(
            Auth::user_approval()
                .store_dir(dir.path())
                .resolution_hint("Approve {package} in {provider} ({provider_package})"),
        )
        .app(app())
        .build()
        .unwrap();
    assert_eq!(
        call(&custom, &agent(), "read_notes").get("resolution_hint"),
        Some("Approve com.example.agent in Notes (com.example.notes)")
    );
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct CodeArgs {
    /// A code.
    #[schemars(regex(pattern = r"^(a|a)+\1b$"))]
    pub code: String,
}

/// A tool whose pattern needs a backtracking engine.
pub struct Codes;
impl cetp_provider::Tool for Codes {
    type Args = CodeArgs;
    type Output = usize;
    const NAME: &'static str = "codes";
    const DESCRIPTION: &'static str = "Counts codes.";
    fn call(
        &self,
        args: CodeArgs,
        _: &cetp_provider::CallContext,
    ) -> Result<usize, cetp_provider::ToolError> {
        Ok(args.code.len())
    }
}

/// A backtracking pattern cost 17 s of CPU for one call of 100 items; the linear-time engine
/// cannot compile it, so the provider refuses to build and says which pattern and why.
#[test]
fn a_pattern_the_linear_engine_cannot_run_is_refused_at_build() {
    let err = Provider::builder("Codes")
        .tool(Codes)
        .auth(Auth::open())
        .build()
        .expect_err("the pattern needs backtracking");
    let text = err.to_string();
    assert!(
        matches!(err, cetp_provider::BuildError::Schema { ref tool, .. } if tool == "codes"),
        "{text}"
    );
    assert!(
        text.contains(r"the pattern `^(a|a)+\1b$`") && text.contains("linear-time"),
        "{text}"
    );
}

const MINUTE_MS: u64 = 60_000;

fn pending_json(provider: &Provider) -> Vec<Value> {
    let raw: Value =
        serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
    raw["state"]["pending"].as_array().unwrap().clone()
}

/// A request lives 10 minutes after the last call that asked for it, and 30 minutes at most;
/// a call answered `RATE_LIMITED` does not count as asking.
#[test]
fn pending_requests_expire_and_rate_limited_calls_do_not_keep_them_alive() {
    let dir = tempfile::tempdir().unwrap();
    let t0 = 1_000_000;
    let clock = ManualClock::new(t0);
    // One refused call an hour: after its first call, the look-alike is always rate limited.
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .clock(clock.clone())
            .refused_rate_limit(RateLimit::new(1, Duration::from_secs(3600))),
    );
    assert_eq!(
        call(&provider, &look_alike(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired)
    );
    let listed = pending_json(&provider);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["expires_at_ms"], t0 + 10 * MINUTE_MS);
    let id = listed[0]["id"].as_str().unwrap().to_owned();
    // Polling every second, always rate limited, for 12 minutes.
    let mut limited = 0;
    for _ in 0..12 * 60 {
        clock.advance(Duration::from_secs(1));
        if call(&provider, &look_alike(), "read_notes").error_code() == Some(ErrorCode::RateLimited)
        {
            limited += 1;
        }
    }
    assert_eq!(limited, 12 * 60);
    assert!(
        pending_json(&provider).is_empty(),
        "expired 10 minutes after the last call that was not rate limited"
    );
    let late = admin(
        &provider,
        &format!(r#"{{"op":"approve","id":"{id}","scopes":["notes"]}}"#),
    );
    assert_eq!(late.error.unwrap().kind, "unknown_request");
    assert!(late.state.grants.is_empty());
}

/// A caller asking within its refused-call limit keeps its request for 30 minutes at most;
/// then a new request (a new id, listed after the ones made meanwhile) replaces it.
#[test]
fn a_polling_caller_keeps_its_place_for_thirty_minutes_at_most() {
    let dir = tempfile::tempdir().unwrap();
    let t0 = 1_000_000;
    let clock = ManualClock::new(t0);
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .clock(clock.clone()),
    );
    call(&provider, &look_alike(), "read_notes");
    let first = pending_json(&provider)[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Every 2 s, which the default limit allows: each call refreshes the request.
    for _ in 0..(29 * 60 / 2) {
        clock.advance(Duration::from_secs(2));
        assert_eq!(
            call(&provider, &look_alike(), "read_notes").error_code(),
            Some(ErrorCode::AuthRequired)
        );
    }
    let listed = pending_json(&provider);
    assert_eq!(listed[0]["id"], first.as_str());
    assert_eq!(listed[0]["first_requested_ms"], t0);
    assert_eq!(listed[0]["expires_at_ms"], t0 + 30 * MINUTE_MS, "capped");
    // The agent asks at minute 29.
    call(&provider, &agent(), "read_notes");
    clock.advance(Duration::from_secs(61));
    call(&provider, &look_alike(), "read_notes");
    let listed = pending_json(&provider);
    let uids: Vec<u64> = listed.iter().map(|p| p["uid"].as_u64().unwrap()).collect();
    assert_eq!(
        uids,
        [
            u64::from(agent().uid().unwrap()),
            u64::from(look_alike().uid().unwrap())
        ],
        "the look-alike's new request comes after the agent's"
    );
    assert_ne!(listed[1]["id"], first.as_str());
}

/// One UID cannot push other apps' requests off the list, however many identities it
/// presents (a shared UID whose packages change, for instance): each UID has one request.
#[test]
fn one_uid_cannot_evict_other_apps_requests() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000_000);
    let provider = provider(
        Auth::user_approval()
            .store_dir(dir.path())
            .clock(clock.clone())
            .refused_rate_limit(RateLimit::new(u32::MAX, Duration::from_millis(1))),
    );
    call(&provider, &agent(), "read_notes");
    let agent_request = pending_id_for(&provider, &agent());
    for i in 0..100 {
        let churn = Caller::app(10_066, format!("com.example.evil{i}")).with_certificate(CERT_EVIL);
        assert_eq!(
            call(&provider, &churn, "read_notes").error_code(),
            Some(ErrorCode::AuthRequired)
        );
    }
    let listed = pending_json(&provider);
    let uids: Vec<&Value> = listed.iter().map(|p| &p["uid"]).collect();
    assert_eq!(
        uids,
        [10_001, 10_066],
        "one request per UID, the agent's kept"
    );
    assert_eq!(listed[0]["id"], agent_request.as_str());
    assert_eq!(listed[1]["packages"][0]["name"], "com.example.evil99");
    provider
        .authorizer()
        .approve(&agent_request, listed_approval(&provider, &agent_request))
        .unwrap();
    assert!(call(&provider, &agent(), "read_notes").is_success());
}

fn listed_approval(provider: &Provider, id: &str) -> Approval {
    support::listed(provider, id)
}
