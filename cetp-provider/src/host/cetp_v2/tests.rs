use std::time::Duration;

use serde_json::{Value, json};
use sha2::Digest;

use super::*;
use crate::auth::Auth;
use crate::clock::ManualClock;
use crate::{CallContext, ToolError, tool, tools};

/// Echoes a text.
#[tool(scopes = ["echo.read"], idempotent)]
fn echo_text(
    /// The text.
    #[schemars(length(min = 1))]
    text: String,
) -> String {
    text
}

/// Waits until the agent's deadline, then says how long it had.
#[tool]
fn wait_out(clock: &ManualClock, ctx: &CallContext) -> Result<u64, ToolError> {
    let left = ctx.deadline().time_left();
    assert_eq!(
        left,
        Duration::from_secs(2),
        "the agent's deadline, not the tool's 5 s"
    );
    clock.advance(left + Duration::from_millis(1));
    Ok(u64::try_from(left.as_millis()).unwrap_or(u64::MAX))
}

/// A text of `n` characters.
#[tool]
fn big(
    /// How many characters.
    n: u32,
) -> String {
    "x".repeat(n as usize)
}

const ID: &str = "3f2b9c1e-0000-4000-8000-000000000001";
const NOW: u64 = 1_700_000_000_000;
const LATER: u64 = NOW + 30_000;

fn provider(auth: Auth, clock: &ManualClock) -> Provider {
    Provider::builder("Echo Box")
        .description("Echoes")
        .scope("echo.read", "your echoes")
        .tools(tools![echo_text, wait_out, big])
        .limits(crate::Limits {
            max_result_bytes: 4 * 1024 * 1024,
            ..crate::Limits::default()
        })
        .auth(auth.clock(clock.clone()))
        .state(clock.clone())
        .build()
        .unwrap()
}

fn agent() -> Caller {
    Caller::app(10_300, "com.agent").with_certificate("aa")
}

fn token(host: &CetpV2Host<&Provider>, caller: &Caller) -> String {
    let reply = host.call(&V2Request::negotiate(&[2, 1], "[]"), caller);
    reply.data_json().unwrap()["session_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn negotiate_selects_2_names_the_provider_and_promises_the_spec_floors() {
    for gated in [false, true] {
        negotiate_selects_2_names_the_provider_and_promises_the_spec_floors_on(gated);
    }
}

fn negotiate_selects_2_names_the_provider_and_promises_the_spec_floors_on(gated: bool) {
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open().gate_discovery(gated), &clock);
    let host = CetpV2Host::new(&provider);
    let reply = host.call(
        &V2Request::negotiate(&[2, 1], r#"["large_results","x"]"#),
        &agent(),
    );
    let data = reply.data_json().unwrap();
    assert_eq!(data["selected_version"], 2);
    assert_eq!(data["provider_id"], "Echo Box", "no app: the provider name");
    assert_eq!(data["provider_name"], "Echo Box");
    assert_eq!(
        data["capabilities"],
        json!(["large_results"]),
        "those both sides have"
    );
    assert_eq!(data["expires_at"], "2023-11-14T23:13:20Z");
    let limits = &data["limits"];
    assert!(limits["max_request_bytes"].as_u64().unwrap() >= 65_536);
    assert!(limits["max_inline_result_bytes"].as_u64().unwrap() >= 262_144);
    assert!(limits["max_concurrent_requests"].as_u64().unwrap() >= 1);
    assert!(limits["idempotency_window_seconds"].as_u64().unwrap() >= 86_400);
    let token = data["session_token"].as_str().unwrap();
    assert!(!token.is_empty() && token.len() <= 256);
    let entries = reply.to_entries();
    assert!(entries.contains(&("protocol_version", BundleValue::Int(2))));
    assert!(entries.contains(&("status", BundleValue::Text("success"))));

    let v1_only = host.call(&V2Request::negotiate(&[1], "[]"), &agent());
    assert_eq!(v1_only.error_code(), Some(Code::UnsupportedVersion));
    assert!(!v1_only.error().unwrap().retryable());
    let none = host.call(
        &V2Request {
            method: "negotiate",
            ..V2Request::default()
        },
        &agent(),
    );
    assert_eq!(none.error_code(), Some(Code::UnsupportedVersion));
    let bad = host.call(&V2Request::negotiate(&[2], "{not json"), &agent());
    assert_eq!(bad.error_code(), Some(Code::InvalidRequest));
}

#[test]
fn the_common_fields_are_checked_in_order_before_the_method() {
    for gated in [false, true] {
        the_common_fields_are_checked_in_order_before_the_method_on(gated);
    }
}

fn the_common_fields_are_checked_in_order_before_the_method_on(gated: bool) {
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open().gate_discovery(gated), &clock);
    let host = CetpV2Host::new(&provider);
    let token = token(&host, &agent());
    let code = |request: V2Request<'_>| host.call(&request, &agent()).error_code();
    let ok = V2Request::common("list_tools", &token, ID, LATER);
    assert_eq!(code(ok), None);
    // request_id first: missing or not a UUID, even with every other field wrong too.
    for id in [
        None,
        Some("42"),
        Some("3f2b9c1e-0000-4000-8000-00000000000g"),
    ] {
        let request = V2Request {
            request_id: id,
            deadline_at_ms: None,
            session_token: None,
            method: "nope",
            ..ok
        };
        assert_eq!(code(request), Some(Code::InvalidRequest), "{id:?}");
    }
    // Then the deadline: missing, or passed.
    for deadline in [None, Some(NOW as i64), Some(-1)] {
        let request = V2Request {
            deadline_at_ms: deadline,
            session_token: None,
            method: "nope",
            ..ok
        };
        assert_eq!(code(request), Some(Code::DeadlineExceeded), "{deadline:?}");
    }
    // Then the session.
    let forged = V2Request {
        session_token: Some("forged"),
        method: "nope",
        ..ok
    };
    let reply = host.call(&forged, &agent());
    assert_eq!(reply.error_code(), Some(Code::NegotiationRequired));
    assert!(reply.error().unwrap().retryable());
    assert_eq!(reply.request_id(), Some(ID), "echoed");
    // Only then the method.
    let unknown = host.call(
        &V2Request {
            method: "nope",
            ..ok
        },
        &agent(),
    );
    assert_eq!(unknown.error_code(), Some(Code::MethodNotFound));
    assert_eq!(unknown.request_id(), Some(ID));
    assert!(
        unknown
            .to_entries()
            .contains(&("retryable", BundleValue::Bool(false)))
    );
}

#[test]
fn a_session_is_bound_to_the_caller_and_ends_at_expiry_or_restart() {
    for gated in [false, true] {
        a_session_is_bound_to_the_caller_and_ends_at_expiry_or_restart_on(gated);
    }
}

fn a_session_is_bound_to_the_caller_and_ends_at_expiry_or_restart_on(gated: bool) {
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open().gate_discovery(gated), &clock);
    let host = CetpV2Host::new(&provider);
    let token = token(&host, &agent());
    let list = |host: &CetpV2Host<&Provider>, caller: &Caller, deadline| {
        host.call(
            &V2Request::common("list_tools", &token, ID, deadline),
            caller,
        )
        .error_code()
    };
    assert_eq!(list(&host, &agent(), LATER), None);
    let other = Caller::app(10_301, "com.other");
    assert_eq!(list(&host, &other, LATER), Some(Code::NegotiationRequired));
    let restarted = CetpV2Host::new(&provider);
    assert_eq!(
        list(&restarted, &agent(), LATER),
        Some(Code::NegotiationRequired)
    );
    clock.advance(Duration::from_millis(SESSION_LIFETIME_MS));
    let later = NOW + SESSION_LIFETIME_MS + 30_000;
    assert_eq!(
        list(&host, &agent(), later),
        Some(Code::NegotiationRequired)
    );
    // Negotiating again works at once.
    let fresh = super::tests::token(&host, &agent());
    let again = host.call(
        &V2Request::common("list_tools", &fresh, ID, later),
        &agent(),
    );
    assert!(again.is_success());
}

#[test]
fn list_tools_and_provider_info_describe_every_tool_and_scope_completely() {
    for gated in [false, true] {
        list_tools_and_provider_info_describe_every_tool_and_scope_completely_on(gated);
    }
}

fn list_tools_and_provider_info_describe_every_tool_and_scope_completely_on(gated: bool) {
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open().gate_discovery(gated), &clock);
    let host = CetpV2Host::new(&provider);
    let token = token(&host, &agent());
    let list = host.call(
        &V2Request::common("list_tools", &token, ID, LATER),
        &agent(),
    );
    let data = list.data_json().unwrap();
    assert!(data["revision"].as_str().unwrap().starts_with("tools-"));
    let echo = &data["tools"][0];
    assert_eq!(echo["name"], "echo_text");
    assert_eq!(echo["title"], "Echo text");
    assert_eq!(echo["scopes"], json!(["echo.read"]));
    assert_eq!(echo["input_schema"]["properties"]["text"]["minLength"], 1);
    assert_eq!(echo["output_schema"]["type"], "string");
    assert_eq!(
        echo["annotations"],
        json!({"effect": "read", "risk": "low", "destructive": false, "idempotent": true,
               "open_world": false, "confirmation": "never", "execution": "sync"})
    );
    let info = host.call(
        &V2Request::common("get_provider_info", &token, ID, LATER),
        &agent(),
    );
    let info = info.data_json().unwrap();
    assert_eq!(
        info["schema_dialect"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        info["scopes"],
        json!([{"name": "echo.read", "title": "your echoes", "description": "your echoes",
                "access": "read", "sensitivity": "personal"}])
    );
}

#[test]
fn settings_override_scope_words_and_annotations_and_user_approval_says_provider_policy() {
    let clock = ManualClock::new(NOW);
    let dir = tempfile::tempdir().unwrap();
    let provider = Provider::builder("Echo Box")
        .scope("echo.read", "your echoes")
        .tools(tools![echo_text])
        .auth(
            Auth::user_approval()
                .store_dir(dir.path())
                .clock(clock.clone()),
        )
        .host(
            CetpV2::new()
                .scope(
                    "echo.read",
                    "Echoes",
                    ScopeAccess::Read,
                    Sensitivity::Public,
                )
                .risk("echo_text", Risk::Moderate),
        )
        .build()
        .unwrap();
    let tools: Value = serde_json::from_str(&describe::list_tools(
        &provider,
        provider.host_settings().unwrap(),
        false,
    ))
    .unwrap();
    assert_eq!(tools["tools"][0]["annotations"]["risk"], "moderate");
    assert_eq!(
        tools["tools"][0]["annotations"]["confirmation"],
        "provider_policy"
    );
    let info: Value = serde_json::from_str(&describe::provider_info(
        &provider,
        "p",
        provider.host_settings().unwrap(),
    ))
    .unwrap();
    assert_eq!(info["scopes"][0]["title"], "Echoes");
    assert_eq!(info["scopes"][0]["sensitivity"], "public");

    let high = Provider::builder("Echo Box")
        .scope("echo.read", "your echoes")
        .tools(tools![echo_text])
        .host(CetpV2::new().risk("echo_text", Risk::High))
        .build();
    let why = high.unwrap_err().to_string();
    assert!(why.contains("high-risk"), "{why}");
}

#[test]
fn execute_answers_an_inline_envelope_and_maps_every_core_error() {
    for gated in [false, true] {
        execute_answers_an_inline_envelope_and_maps_every_core_error_on(gated);
    }
}

fn execute_answers_an_inline_envelope_and_maps_every_core_error_on(gated: bool) {
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open().gate_discovery(gated), &clock);
    let host = CetpV2Host::new(&provider);
    let token = token(&host, &agent());
    let run = |tool, args| host.call(&V2Request::execute(tool, args, &token, ID, LATER), &agent());
    let ok = run("echo_text", r#"{"text":"hi"}"#);
    assert_eq!(
        ok.data_json().unwrap(),
        json!({"kind": "inline", "value": "hi"})
    );
    assert_eq!(ok.request_id(), Some(ID));
    assert_eq!(
        run("echo_text", r#"{"text":""}"#).error_code(),
        Some(Code::InvalidArgs)
    );
    assert_eq!(
        run("echo_text", "[1]").error_code(),
        Some(Code::InvalidArgs)
    );
    assert_eq!(
        run("no_such_tool", "{}").error_code(),
        Some(Code::ToolNotFound)
    );
    let unnamed = V2Request {
        tool_name: None,
        ..V2Request::execute("x", "{}", &token, ID, LATER)
    };
    assert_eq!(
        host.call(&unnamed, &agent()).error_code(),
        Some(Code::InvalidRequest)
    );
    let huge = format!(r#"{{"text":"{}"}}"#, "a".repeat(70_000));
    assert_eq!(
        run("echo_text", &huge).error_code(),
        Some(Code::InvalidArgs)
    );
    assert_eq!(
        run("big", r#"{"n":300000}"#).error_code(),
        Some(Code::ResultTooLarge)
    );
    assert!(run("big", r#"{"n":1000}"#).is_success());
}

#[test]
fn the_agents_deadline_becomes_the_calls_and_its_passing_is_deadline_exceeded() {
    for gated in [false, true] {
        the_agents_deadline_becomes_the_calls_and_its_passing_is_deadline_exceeded_on(gated);
    }
}

fn the_agents_deadline_becomes_the_calls_and_its_passing_is_deadline_exceeded_on(gated: bool) {
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open().gate_discovery(gated), &clock);
    let host = CetpV2Host::new(&provider);
    let token = token(&host, &agent());
    // The tool sees the agent's 2 s rather than its own 5 s, and uses them up.
    let reply = host.call(
        &V2Request::execute("wait_out", "{}", &token, ID, NOW + 2_000),
        &agent(),
    );
    assert_eq!(
        reply.error_code(),
        Some(Code::DeadlineExceeded),
        "{reply:?}"
    );
}

#[test]
fn refusals_keep_their_meaning_and_discovery_follows_the_policy() {
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::allowlist().allow("com.friend"), &clock);
    let host = CetpV2Host::new(&provider);
    let stranger = Caller::app(10_400, "com.stranger");
    let token = token(&host, &stranger);
    let run = host.call(
        &V2Request::execute("echo_text", r#"{"text":"a"}"#, &token, ID, LATER),
        &stranger,
    );
    assert_eq!(run.error_code(), Some(Code::PermissionDenied));
    assert!(!run.error().unwrap().retryable());
}

#[test]
fn v1_and_v2_are_told_apart_by_protocol_version_or_negotiate() {
    assert!(V2Request::is_v2("list_tools", Some(2)));
    assert!(V2Request::is_v2("negotiate", None));
    assert!(!V2Request::is_v2("list_tools", None));
    assert!(!V2Request::is_v2("list_tools", Some(1)));
    assert!(!V2Request::is_v2("list_tools", Some(3)));
}

#[test]
fn words_are_spelled_once_and_parse_back() {
    for code in Code::ALL {
        assert_eq!(Code::parse(code.as_str()), Some(code));
    }
    assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
    assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00Z");
    assert!(is_uuid(ID) && !is_uuid(&ID.replace('-', "_")));
}

/// A provider asking the user (the echo tool under scope `echo.read`), its clock at `NOW` and
/// its grant store in a directory of its own, kept while the test holds `_dir`.
struct Approving {
    clock: ManualClock,
    provider: Provider,
    _dir: tempfile::TempDir,
}

fn approving(gated: bool) -> Approving {
    let clock = ManualClock::new(NOW);
    let dir = tempfile::tempdir().unwrap();
    let provider = Provider::builder("Echo Box")
        .scope("echo.read", "your echoes")
        .tools(tools![echo_text])
        .auth(
            Auth::user_approval()
                .store_dir(dir.path())
                .gate_discovery(gated)
                .clock(clock.clone()),
        )
        .build()
        .unwrap();
    Approving {
        clock,
        provider,
        _dir: dir,
    }
}

/// The refused first call: `AUTH_REQUIRED` with a `resolution` for the caller's UID and a token.
fn refused(host: &CetpV2Host<&Provider>, session: &str, args: &str) -> String {
    let reply = host.call(
        &V2Request::execute("echo_text", args, session, ID, LATER),
        &agent(),
    );
    let err = reply.error().expect("refused").clone();
    assert_eq!(err.code(), Code::AuthRequired);
    assert_eq!(err.resolution_uid(), Some(10_300));
    let token = err.resume_token().unwrap().to_owned();
    let entries = reply.to_entries();
    assert!(entries.contains(&("resolution", BundleValue::Resolution(10_300))));
    assert!(entries.contains(&("resume_token", BundleValue::Text(&token))));
    assert!(
        !entries.iter().any(|(key, _)| *key == "authorize_intent"),
        "v2 has no authorize_intent"
    );
    token
}

/// The user allows the first pending request as it was asked.
fn approve_first_pending(provider: &Provider) {
    let auth = provider.authorizer();
    let request = auth.pending().remove(0);
    auth.approve(&request.id, crate::auth::Approval::as_listed(&request))
        .unwrap();
}

fn resume(
    host: &CetpV2Host<&Provider>,
    session: &str,
    args: &str,
    token: &str,
    caller: &Caller,
) -> V2Reply {
    let request = V2Request {
        resume_token: Some(token),
        ..V2Request::execute("echo_text", args, session, ID, LATER)
    };
    host.call(&request, caller)
}

#[test]
fn an_approved_call_resumes_once_with_its_token_and_only_as_it_was() {
    for gated in [false, true] {
        an_approved_call_resumes_once_with_its_token_and_only_as_it_was_on(gated);
    }
}

fn an_approved_call_resumes_once_with_its_token_and_only_as_it_was_on(gated: bool) {
    let Approving { provider, _dir, .. } = approving(gated);
    let host = CetpV2Host::new(&provider);
    let session = token(&host, &agent());
    let args = r#"{"text":"hi"}"#;
    let token = refused(&host, &session, args);
    approve_first_pending(&provider);

    // Its own caller with other arguments: refused, and that spends the token.
    let changed = resume(&host, &session, r#"{"text":"other"}"#, &token, &agent());
    assert_eq!(changed.error_code(), Some(Code::InvalidRequest));
    assert_eq!(
        resume(&host, &session, args, &token, &agent()).error_code(),
        Some(Code::InvalidRequest),
        "a token its caller presented once is gone"
    );

    let token = refused_after_approval(&host, &session, args, &provider);
    let ok = resume(&host, &session, args, &token, &agent());
    assert_eq!(
        ok.data_json().unwrap(),
        json!({"kind": "inline", "value": "hi"})
    );
    assert_eq!(ok.request_id(), Some(ID));
    let again = resume(&host, &session, args, &token, &agent());
    assert_eq!(again.error_code(), Some(Code::InvalidRequest), "once only");
    assert!(!again.error().unwrap().retryable());
}

/// A fresh token for the same call: the grant is revoked so the call is refused again, then
/// the request approved once more.
fn refused_after_approval(
    host: &CetpV2Host<&Provider>,
    session: &str,
    args: &str,
    provider: &Provider,
) -> String {
    let auth = provider.authorizer();
    for grant in auth.grants() {
        auth.revoke(&grant.package, None).unwrap();
    }
    let token = refused(host, session, args);
    approve_first_pending(provider);
    token
}

#[test]
fn a_declined_or_unanswered_request_resumes_as_user_cancelled_never_as_auth_required() {
    for gated in [false, true] {
        a_declined_or_unanswered_request_resumes_as_user_cancelled_never_as_auth_required_on(gated);
    }
}

fn a_declined_or_unanswered_request_resumes_as_user_cancelled_never_as_auth_required_on(
    gated: bool,
) {
    let Approving { provider, _dir, .. } = approving(gated);
    let host = CetpV2Host::new(&provider);
    let session = token(&host, &agent());
    let args = r#"{"text":"hi"}"#;

    // The user closed the dialog without answering.
    let token = refused(&host, &session, args);
    let unanswered = resume(&host, &session, args, &token, &agent());
    assert_eq!(unanswered.error_code(), Some(Code::UserCancelled));
    assert!(!unanswered.error().unwrap().retryable());
    assert!(unanswered.error().unwrap().resume_token().is_none());

    // The user declined.
    let token = refused(&host, &session, args);
    let auth = provider.authorizer();
    let request = auth.pending().remove(0);
    auth.deny(&request.id).unwrap();
    let declined = resume(&host, &session, args, &token, &agent());
    assert_eq!(declined.error_code(), Some(Code::UserCancelled));
}

#[test]
fn a_resume_token_lapses_with_the_calls_deadline() {
    for gated in [false, true] {
        a_resume_token_lapses_with_the_calls_deadline_on(gated);
    }
}

fn a_resume_token_lapses_with_the_calls_deadline_on(gated: bool) {
    let Approving {
        clock,
        provider,
        _dir,
    } = approving(gated);
    let host = CetpV2Host::new(&provider);
    let session = token(&host, &agent());
    let args = r#"{"text":"hi"}"#;
    let token = refused(&host, &session, args);
    approve_first_pending(&provider);
    // Past the first call's deadline the retry is a new call: the agent must not resume.
    clock.advance(Duration::from_millis(LATER - NOW));
    let request = V2Request {
        resume_token: Some(&token),
        ..V2Request::execute("echo_text", args, &session, ID, LATER + 30_000)
    };
    assert_eq!(
        host.call(&request, &agent()).error_code(),
        Some(Code::InvalidRequest)
    );
}

#[test]
fn a_rate_limited_call_says_when_to_retry() {
    let clock = ManualClock::new(NOW);
    let provider = Provider::builder("Echo Box")
        .scope("echo.read", "your echoes")
        .tools(tools![echo_text])
        .auth(
            Auth::open()
                .rate_limit(crate::auth::RateLimit::per_second(1))
                .clock(clock.clone()),
        )
        .build()
        .unwrap();
    let host = CetpV2Host::new(&provider);
    let session = token(&host, &agent());
    let run = || {
        host.call(
            &V2Request::execute("echo_text", r#"{"text":"a"}"#, &session, ID, LATER),
            &agent(),
        )
    };
    assert!(run().is_success());
    let limited = run();
    let err = limited.error().unwrap();
    assert_eq!(err.code(), Code::RateLimited);
    assert!(err.retryable());
    let wait = err.retry_after_ms().unwrap();
    assert!((1..=1_000).contains(&wait), "{wait}");
    assert!(
        limited
            .to_entries()
            .contains(&("retry_after_ms", BundleValue::Long(wait as i64)))
    );
}

#[test]
fn sizes_are_counted_in_utf8_as_negotiated() {
    let clock = ManualClock::new(NOW);
    // v1's limits are in wire bytes (UTF-16) and set low here; v2 promises the spec's floors
    // in UTF-8 bytes and keeps them.
    let provider = Provider::builder("Echo Box")
        .scope("echo.read", "your echoes")
        .tools(tools![echo_text, big])
        .limits(crate::Limits {
            max_args_bytes: 1024,
            max_result_bytes: 1024,
            ..crate::Limits::default()
        })
        .auth(Auth::open().clock(clock.clone()))
        .build()
        .unwrap();
    let host = CetpV2Host::new(&provider);
    let session = token(&host, &agent());
    let run = |tool, args: &str| {
        host.call(
            &V2Request::execute(tool, args, &session, ID, LATER),
            &agent(),
        )
    };
    let max = host.max_request_bytes();
    assert_eq!(max, 65_536);
    // 60 KiB of ASCII is 120 KiB on the wire: within v2's 64 KiB of UTF-8.
    let ascii = format!(r#"{{"text":"{}"}}"#, "a".repeat(60 * 1024));
    assert!(run("echo_text", &ascii).is_success());
    // Exactly at the limit in UTF-8 bytes, with two-byte characters.
    let frame = r#"{"text":""}"#.len();
    let text = |n| format!(r#"{{"text":"a{}"}}"#, "é".repeat(n));
    let at_limit = text((max - frame - 1) / 2);
    assert_eq!(at_limit.len(), max);
    assert!(run("echo_text", &at_limit).is_success());
    let over = text((max - frame - 1) / 2 + 1);
    assert_eq!(
        run("echo_text", &over).error_code(),
        Some(Code::InvalidArgs)
    );
    // A result of 200 Ki ASCII characters (400 KiB on the wire) is within 256 KiB inline.
    assert!(run("big", r#"{"n":204800}"#).is_success());
    assert_eq!(
        run("big", r#"{"n":262144}"#).error_code(),
        Some(Code::ResultTooLarge)
    );
}

#[test]
fn a_resume_token_presented_by_another_app_is_unknown_and_stays_its_callers() {
    for gated in [false, true] {
        let Approving { provider, _dir, .. } = approving(gated);
        let host = CetpV2Host::new(&provider);
        let session = token(&host, &agent());
        let args = r#"{"text":"hi"}"#;
        let token = refused(&host, &session, args);
        approve_first_pending(&provider);
        let other = Caller::app(10_301, "com.other").with_certificate("bb");
        let other_session = super::tests::token(&host, &other);
        let stolen = resume(&host, &other_session, args, &token, &other);
        assert_eq!(stolen.error_code(), Some(Code::InvalidRequest));
        let ok = resume(&host, &session, args, &token, &agent());
        assert_eq!(
            ok.data_json().unwrap(),
            json!({"kind": "inline", "value": "hi"}),
            "the token is still its caller's"
        );
    }
}

#[test]
fn a_resume_token_lapses_at_15_minutes_however_far_the_deadline() {
    let Approving {
        clock,
        provider,
        _dir,
    } = approving(false);
    let host = CetpV2Host::new(&provider);
    let session = token(&host, &agent());
    let args = r#"{"text":"hi"}"#;
    let far = NOW + 24 * 60 * 60 * 1000;
    let call = |resume_token| V2Request {
        resume_token,
        ..V2Request::execute("echo_text", args, &session, ID, far)
    };
    let first = host.call(&call(None), &agent());
    let token = first.error().unwrap().resume_token().unwrap().to_owned();
    let second = host.call(&call(None), &agent());
    let kept = second.error().unwrap().resume_token().unwrap().to_owned();
    approve_first_pending(&provider);
    clock.set_ms(NOW + RESUME_LIFETIME_MS - 1);
    assert!(
        host.call(&call(Some(&kept)), &agent()).is_success(),
        "within 15 min"
    );
    clock.set_ms(NOW + RESUME_LIFETIME_MS);
    assert_eq!(
        host.call(&call(Some(&token)), &agent()).error_code(),
        Some(Code::InvalidRequest),
        "lapsed at 15 min, long before the deadline"
    );
}

#[test]
fn setting_the_clock_back_lengthens_no_session_and_no_resume_token() {
    let Approving {
        clock,
        provider,
        _dir,
    } = approving(false);
    let host = CetpV2Host::new(&provider);
    let session = token(&host, &agent());
    let args = r#"{"text":"hi"}"#;
    let token = refused(&host, &session, args);
    approve_first_pending(&provider);
    // An hour back: the session and the token would each live an hour longer.
    clock.set_ms(NOW - 60 * 60 * 1000);
    let list = host.call(
        &V2Request::common("list_tools", &session, ID, LATER),
        &agent(),
    );
    assert_eq!(list.error_code(), Some(Code::NegotiationRequired));
    let fresh = super::tests::token(&host, &agent());
    assert_eq!(
        resume(&host, &fresh, args, &token, &agent()).error_code(),
        Some(Code::InvalidRequest)
    );
}

#[test]
fn a_caller_without_a_uid_gets_no_session() {
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open(), &clock);
    let host = CetpV2Host::new(&provider);
    let reply = host.call(&V2Request::negotiate(&[2, 1], "[]"), &Caller::unknown());
    assert_eq!(reply.error_code(), Some(Code::PermissionDenied));
    assert!(!reply.error().unwrap().retryable());
    assert!(reply.error().unwrap().message().contains("UID"));
}

#[test]
fn a_tool_name_longer_than_any_tool_is_an_unknown_tool_on_every_host() {
    let long = "n".repeat(512 * 1024);
    let echoed = "n".repeat(65);
    for gated in [false, true] {
        let clock = ManualClock::new(NOW);
        let provider = provider(Auth::open().gate_discovery(gated), &clock);
        let host = CetpV2Host::new(&provider);
        let session = token(&host, &agent());
        let reply = host.call(
            &V2Request::execute(&long, "{}", &session, ID, LATER),
            &agent(),
        );
        let err = reply.error().unwrap();
        assert_eq!(err.code(), Code::ToolNotFound);
        assert!(!err.message().contains(&echoed), "{}", err.message());
        let v1 = crate::host::CetpV1Host::new(&provider)
            .call(&crate::host::Request::execute(&long, "{}"), &agent());
        assert_eq!(v1.error_code(), Some(ErrorCode::ToolNotFound));
        assert!(!v1.error().unwrap().message().contains(&echoed));
    }
    // Under gated discovery an unapproved app gets what it gets for any unknown name: a
    // refusal, resumable like any other.
    let Approving { provider, _dir, .. } = approving(true);
    let host = CetpV2Host::new(&provider);
    let session = token(&host, &agent());
    let short = host.call(
        &V2Request::execute("nope", "{}", &session, ID, LATER),
        &agent(),
    );
    let long = host.call(
        &V2Request::execute(&long, "{}", &session, ID, LATER),
        &agent(),
    );
    let (short, long) = (short.error().unwrap(), long.error().unwrap());
    assert_eq!(long.code(), Code::AuthRequired);
    assert_eq!(
        (long.code(), long.message(), long.resolution_hint()),
        (short.code(), short.message(), short.resolution_hint())
    );
    assert!(long.resume_token().is_some());
}

#[test]
fn when_no_resume_token_can_be_held_the_refusal_is_unavailable() {
    let Approving { provider, _dir, .. } = approving(false);
    let host = CetpV2Host::new(&provider);
    // Other apps' refused calls fill the table, the first lapsing in a minute.
    let mut uid = 20_000;
    loop {
        let other = Resume::new(
            uid,
            "echo_text",
            None,
            ID,
            NOW,
            NOW + 60_000 + u64::from(uid),
        );
        if host.resumes.issue(other, NOW).is_err() {
            break;
        }
        uid += 1;
    }
    let held = host.resumes.len();
    let session = token(&host, &agent());
    let reply = host.call(
        &V2Request::execute("echo_text", r#"{"text":"hi"}"#, &session, ID, LATER),
        &agent(),
    );
    let err = reply.error().unwrap();
    assert_eq!(err.code(), Code::Unavailable, "{err:?}");
    assert!(err.retryable());
    assert_eq!(err.retry_after_ms(), Some(60_000 + 20_000));
    assert!(err.resume_token().is_none());
    assert!(
        !reply
            .to_entries()
            .iter()
            .any(|(key, _)| *key == "resolution")
    );
    assert_eq!(host.resumes.len(), held, "nobody's token was dropped");
}

#[test]
fn under_gated_discovery_a_stranger_cannot_tell_a_tool_from_another_name() {
    let Approving { provider, _dir, .. } = approving(true);
    let host = CetpV2Host::new(&provider);
    let session = token(&host, &agent());
    let run = |tool| {
        host.call(
            &V2Request::execute(tool, r#"{"text":"hi"}"#, &session, ID, LATER),
            &agent(),
        )
    };
    let (tool, unknown) = (run("echo_text"), run("no_such_tool"));
    let (tool, unknown) = (tool.error().unwrap(), unknown.error().unwrap());
    assert_eq!(unknown.code(), Code::AuthRequired);
    assert_eq!(
        (tool.code(), tool.message(), tool.resolution_hint()),
        (unknown.code(), unknown.message(), unknown.resolution_hint())
    );
    assert!(!format!("{tool:?}").contains("your echoes"));
}

#[test]
fn under_gated_discovery_list_tools_and_provider_info_need_a_grant() {
    let Approving { provider, _dir, .. } = approving(true);
    let host = CetpV2Host::new(&provider);
    let session = token(&host, &agent());
    let ask = |method| host.call(&V2Request::common(method, &session, ID, LATER), &agent());
    for method in ["list_tools", "get_provider_info"] {
        let refused = ask(method);
        assert_eq!(refused.error_code(), Some(Code::AuthRequired), "{method}");
        assert!(!refused.data().is_some_and(|data| data.contains("echo")));
    }
    approve_first_pending(&provider);
    for method in ["list_tools", "get_provider_info"] {
        assert!(ask(method).is_success(), "{method} once approved");
    }
}

#[test]
fn under_gated_discovery_an_app_whose_grants_lapsed_is_told_no_scope() {
    let Approving {
        clock,
        provider,
        _dir,
    } = approving(true);
    let host = CetpV2Host::new(&provider);
    let session = token(&host, &agent());
    let _ = refused(&host, &session, r#"{"text":"hi"}"#);
    let auth = provider.authorizer();
    let request = auth.pending().remove(0);
    let approval =
        crate::auth::Approval::as_listed(&request).expires_after(Duration::from_secs(60));
    auth.approve(&request.id, approval).unwrap();
    let run = |tool| {
        host.call(
            &V2Request::execute(tool, r#"{"text":"hi"}"#, &session, ID, NOW + 3_600_000),
            &agent(),
        )
    };
    assert!(run("echo_text").is_success(), "in force");
    clock.advance(Duration::from_secs(61));
    let (lapsed, unknown) = (run("echo_text"), run("no_such_tool"));
    let (lapsed, unknown) = (lapsed.error().unwrap(), unknown.error().unwrap());
    assert_eq!(lapsed.code(), Code::AuthRequired);
    for text in [
        lapsed.message(),
        lapsed.resolution_hint().unwrap_or_default(),
    ] {
        assert!(
            !text.contains("your echoes") && !text.contains("echo.read"),
            "{text}"
        );
    }
    assert_eq!(
        (lapsed.message(), lapsed.resolution_hint()),
        (unknown.message(), unknown.resolution_hint())
    );
}

#[test]
fn every_code_is_retryable_exactly_as_the_spec_says() {
    // The spec's table (section 5); its "Conditional" codes are not retryable as they come
    // from this provider: AUTH_REQUIRED needs the user, a passed deadline a new call, and an
    // INTERNAL_ERROR is the provider's bug.
    for code in Code::ALL {
        let retryable = match code {
            Code::NegotiationRequired | Code::RateLimited | Code::Unavailable => true,
            Code::UnsupportedVersion
            | Code::AuthRequired
            | Code::UserCancelled
            | Code::PermissionDenied
            | Code::ToolNotFound
            | Code::MethodNotFound
            | Code::InvalidArgs
            | Code::InvalidRequest
            | Code::DeadlineExceeded
            | Code::ResultTooLarge
            | Code::UnsupportedCapability
            | Code::Conflict
            | Code::Cancelled
            | Code::ResultExpired
            | Code::InternalError => false,
        };
        assert_eq!(code.retryable(), retryable, "{code}");
        let reply = V2Reply {
            request_id: Some(ID.to_owned()),
            outcome: Err(V2Error::new(code, "m")),
            file: None,
            accepted: false,
        };
        assert!(
            reply
                .to_entries()
                .contains(&("retryable", BundleValue::Bool(retryable))),
            "{code}"
        );
    }
}

#[test]
fn a_result_of_exactly_the_inline_limit_is_sent_and_one_byte_more_is_too_large() {
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open(), &clock);
    let host = CetpV2Host::new(&provider);
    let session = token(&host, &agent());
    let max = host.max_inline_result_bytes();
    assert_eq!(max, 262_144);
    let frame = r#"{"kind":"inline","value":""}"#.len();
    let run = |n: usize| {
        host.call(
            &V2Request::execute("big", &format!(r#"{{"n":{n}}}"#), &session, ID, LATER),
            &agent(),
        )
    };
    let exact = run(max - frame);
    assert_eq!(exact.data().map(str::len), Some(max));
    assert_eq!(
        run(max - frame + 1).error_code(),
        Some(Code::ResultTooLarge)
    );
}

/// A provider of the app in `dir`, so that large results go to `dir/cache/cetp-results`.
fn app_provider(dir: &std::path::Path, settings: CetpV2, clock: &ManualClock) -> Provider {
    let files = dir.join("files");
    Provider::builder("Echo Box")
        .app(crate::App::new("com.example.echo", &files))
        .scope("echo.read", "your echoes")
        .tools(tools![echo_text, big])
        .host(settings)
        .auth(Auth::open().clock(clock.clone()))
        .build()
        .unwrap()
}

fn session_with(host: &CetpV2Host<&Provider>, capabilities: &str) -> String {
    let reply = host.call(&V2Request::negotiate(&[2, 1], capabilities), &agent());
    reply.data_json().unwrap()["session_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn results_in(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir.join("cache").join("cetp-results"))
        .map(|entries| entries.count())
        .unwrap_or(0)
}

#[test]
fn capabilities_are_granted_only_when_the_agent_asks_for_them() {
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open(), &clock);
    let host = CetpV2Host::new(&provider);
    for (asked, granted) in [
        ("[]", json!([])),
        (r#"["async_operations"]"#, json!([])),
        (r#"["large_results"]"#, json!(["large_results"])),
    ] {
        let reply = host.call(&V2Request::negotiate(&[2, 1], asked), &agent());
        assert_eq!(
            reply.data_json().unwrap()["capabilities"],
            granted,
            "{asked}"
        );
    }
}

#[test]
fn a_large_result_is_a_read_only_file_with_its_size_and_digest_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(NOW);
    let provider = app_provider(dir.path(), CetpV2::new(), &clock);
    let host = CetpV2Host::new(&provider);
    let session = session_with(&host, r#"["async_operations","large_results"]"#);
    let n = 1024 * 1024;
    let reply = host.call(
        &V2Request::execute("big", &format!(r#"{{"n":{n}}}"#), &session, ID, LATER),
        &agent(),
    );
    let data = reply.data_json().unwrap();
    let expected = format!("\"{}\"", "x".repeat(n));
    let digest: String = sha2::Sha256::digest(expected.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        data,
        json!({
            "kind": "file",
            "media_type": "application/json",
            "size_bytes": expected.len(),
            "sha256": digest,
        })
    );
    assert_eq!(reply.request_id(), Some(ID));
    let file = reply.result_file().unwrap();
    let entries = reply.to_entries();
    assert!(entries.contains(&("result_fd", BundleValue::ResultFile(file.path()))));
    assert!(
        file.path().starts_with(
            dir.path()
                .join("cache")
                .join("cetp-results")
                .to_str()
                .unwrap()
        ),
        "in the app's cache directory"
    );
    let mut opened = file.open_once().unwrap().unwrap();
    assert!(
        !std::path::Path::new(file.path()).exists(),
        "unlinked once opened"
    );
    let mut text = String::new();
    std::io::Read::read_to_string(&mut opened, &mut text).unwrap();
    assert!(text == expected, "the result's JSON text");
    assert!(
        std::io::Write::write_all(&mut opened, b"x").is_err(),
        "the descriptor is read-only"
    );
    assert!(file.open_once().is_none(), "read once");

    // A result that fits stays inline in the same session.
    let small = host.call(
        &V2Request::execute("big", r#"{"n":3}"#, &session, ID, LATER),
        &agent(),
    );
    assert_eq!(
        small.data_json().unwrap(),
        json!({"kind": "inline", "value": "xxx"})
    );
    assert!(small.result_file().is_none());
    assert!(
        !small
            .to_entries()
            .iter()
            .any(|(key, _)| *key == "result_fd")
    );
}

#[test]
fn without_large_results_negotiated_a_large_result_is_result_too_large_and_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(NOW);
    let provider = app_provider(dir.path(), CetpV2::new(), &clock);
    let host = CetpV2Host::new(&provider);
    let session = session_with(&host, r#"["async_operations","cancellation"]"#);
    let reply = host.call(
        &V2Request::execute("big", r#"{"n":300000}"#, &session, ID, LATER),
        &agent(),
    );
    let err = reply.error().unwrap();
    assert_eq!(err.code(), Code::ResultTooLarge);
    assert!(!err.retryable());
    assert!(err.message().contains("large_results"), "{}", err.message());
    assert!(reply.result_file().is_none());
    assert!(
        !reply
            .to_entries()
            .iter()
            .any(|(key, _)| *key == "result_fd")
    );
    assert_eq!(results_in(dir.path()), 0, "nothing was written");
}

#[test]
fn a_result_over_the_providers_cap_is_result_too_large_and_the_cap_is_settable() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(NOW);
    let settings = CetpV2::new().max_large_result_bytes(300 * 1024);
    let provider = app_provider(dir.path(), settings, &clock);
    let host = CetpV2Host::new(&provider);
    let session = session_with(&host, r#"["large_results"]"#);
    let run = |n: usize| {
        host.call(
            &V2Request::execute("big", &format!(r#"{{"n":{n}}}"#), &session, ID, LATER),
            &agent(),
        )
    };
    // The cap counts the result's JSON text: the characters and their two quotes.
    assert!(run(300 * 1024 - 2).result_file().is_some());
    let over = run(300 * 1024 - 1);
    assert_eq!(over.error_code(), Some(Code::ResultTooLarge));
    assert!(over.error().unwrap().message().contains("300 KiB"));
    assert_eq!(
        CetpV2::new().large_result_cap(),
        16 * 1024 * 1024,
        "the default: what ClawSeed's client reads at most"
    );
}

#[test]
fn a_large_result_nobody_took_is_removed_and_one_the_template_took_is_left_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(NOW);
    let provider = app_provider(dir.path(), CetpV2::new(), &clock);
    let host = CetpV2Host::new(&provider);
    let session = session_with(&host, r#"["large_results"]"#);
    let run = || {
        host.call(
            &V2Request::execute("big", r#"{"n":300000}"#, &session, ID, LATER),
            &agent(),
        )
    };
    // A reply that never reached the template (a failed JNI crossing drops it).
    let dropped = run();
    let copy = dropped.clone();
    drop(dropped);
    assert_eq!(results_in(dir.path()), 1, "a clone still holds it");
    drop(copy);
    assert_eq!(results_in(dir.path()), 0);
    // A reply the template took: it opens and unlinks the file itself.
    let taken = run();
    taken.hand_over_file();
    let path = taken.result_file().unwrap().path().to_owned();
    drop(taken);
    assert!(std::path::Path::new(&path).exists());
    // The next process sweeps what a killed one left; this one's files stay.
    let stale = dir
        .path()
        .join("cache/cetp-results/1-0123456789abcdef01234567.json");
    std::fs::write(&stale, "[]").unwrap();
    let _next = CetpV2Host::new(&provider);
    assert!(!stale.exists());
    assert!(std::path::Path::new(&path).exists());
}

#[test]
fn a_large_result_that_cannot_be_written_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    // The cache directory is a file: nothing can be written under it.
    std::fs::write(dir.path().join("cache"), "").unwrap();
    let clock = ManualClock::new(NOW);
    let provider = app_provider(dir.path(), CetpV2::new(), &clock);
    let host = CetpV2Host::new(&provider);
    let session = session_with(&host, r#"["large_results"]"#);
    let reply = host.call(
        &V2Request::execute("big", r#"{"n":300000}"#, &session, ID, LATER),
        &agent(),
    );
    let err = reply.error().unwrap();
    assert_eq!(err.code(), Code::Unavailable);
    assert!(err.retryable());
}

#[test]
fn a_cap_below_the_inline_limit_does_not_build() {
    let err = Provider::builder("Echo Box")
        .tools(tools![big])
        .host(CetpV2::new().max_large_result_bytes(262_143))
        .build()
        .unwrap_err();
    assert!(
        err.to_string().contains("at least the inline limit"),
        "{err}"
    );
    assert!(
        Provider::builder("Echo Box")
            .tools(tools![big])
            .host(CetpV2::new().max_large_result_bytes(262_144))
            .build()
            .is_ok()
    );
}
