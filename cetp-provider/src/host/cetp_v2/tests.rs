use std::time::Duration;

use serde_json::{Value, json};

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

/// Waits until the consumer's deadline, then says how long it had.
#[tool]
fn wait_out(clock: &ManualClock, ctx: &CallContext) -> Result<u64, ToolError> {
    let left = ctx.deadline().time_left();
    assert_eq!(
        left,
        Duration::from_secs(2),
        "the consumer's deadline, not the tool's 5 s"
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
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open(), &clock);
    let host = CetpV2Host::new(&provider);
    let reply = host.call(
        &V2Request::negotiate(&[2, 1], r#"["large_results","x"]"#),
        &agent(),
    );
    let data = reply.data_json().unwrap();
    assert_eq!(data["selected_version"], 2);
    assert_eq!(data["provider_id"], "Echo Box", "no app: the provider name");
    assert_eq!(data["provider_name"], "Echo Box");
    assert_eq!(data["capabilities"], json!([]));
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
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open(), &clock);
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
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open(), &clock);
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
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open(), &clock);
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
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open(), &clock);
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
fn the_consumers_deadline_becomes_the_calls_and_its_passing_is_deadline_exceeded() {
    let clock = ManualClock::new(NOW);
    let provider = provider(Auth::open(), &clock);
    let host = CetpV2Host::new(&provider);
    let token = token(&host, &agent());
    // The tool sees the consumer's 2 s rather than its own 5 s, and uses them up.
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
