//! The CETP v2 conformance checks: what a v2 agent requires before it keeps a provider (an
//! agent that sees version 2 advertised never falls back to v1, so one failed check loses
//! it), and the error answers the spec fixes, each as a violation line.

use serde_json::Value;

use super::ConformanceError;
use crate::caller::Caller;
use sha2::{Digest, Sha256};

use crate::host::cetp_v2::words::{
    KEY_RESULT_FD, MEDIA_TYPE_JSON, MIN_IDEMPOTENCY_WINDOW_SECONDS, MIN_INLINE_RESULT_BYTES,
    MIN_REQUEST_BYTES, RESULT_KIND_FILE,
};
use crate::host::cetp_v2::{
    BundleValue, CetpV2Host, Code, DEFAULT_MAX_LARGE_RESULT_BYTES, V2Reply, V2Request,
};
use crate::provider::Provider;
use crate::wire;

const ID: &str = "00000000-0000-4000-8000-00000000c2e7";
/// The one call the kit makes without a request id.
const NO_ID: &str = "a call without request_id";
/// The one call the kit makes with a request id that is no UUID (`42`).
const BAD_ID: &str = "a call whose request_id is no UUID";
const ANNOTATIONS: [(&str, &[&str]); 4] = [
    (
        "effect",
        &["read", "create", "update", "delete", "transaction"],
    ),
    ("risk", &["low", "moderate", "high"]),
    ("confirmation", &["never", "provider_policy", "always"]),
    ("execution", &["sync"]),
];
const FLAGS: [&str; 3] = ["destructive", "idempotent", "open_world"];
const SENSITIVITIES: [&str; 6] = [
    "public",
    "personal",
    "financial",
    "health",
    "device",
    "other",
];

/// What [`Agent::check_v2_conformance`](super::Agent::check_v2_conformance) checks, calling
/// `provider` as `caller`.
pub(crate) fn check_v2(provider: &Provider, caller: &Caller) -> Result<(), ConformanceError> {
    let mut violations = Vec::new();
    let host = CetpV2Host::new(provider);
    let Some(token) = negotiation(&host, caller, &mut violations) else {
        return Err(ConformanceError(violations));
    };
    let later = provider.authorizer().clock().now_ms() + 30_000;
    let common = |method| V2Request::common(method, &token, ID, later);

    let info = host.call(&common(wire::METHOD_GET_PROVIDER_INFO), caller);
    envelope("get_provider_info", &info, &mut violations);
    match info.data_json() {
        Ok(info) => provider_info(&info, &mut violations),
        Err(err) => violations.push(format!("v2 get_provider_info failed: {}", err.code())),
    }
    let list = host.call(&common(wire::METHOD_LIST_TOOLS), caller);
    envelope("list_tools", &list, &mut violations);
    match list.data_json() {
        Ok(list) => tools(provider, &list, &mut violations),
        Err(err) => violations.push(format!("v2 list_tools failed: {}", err.code())),
    }

    let mut expect = |what: &str, reply: V2Reply, code: Code| {
        envelope(what, &reply, &mut violations);
        if reply.error_code() != Some(code) {
            violations.push(format!(
                "v2 {what}: expected {code}, got {}",
                reply.error_code().map_or("success", Code::as_str)
            ));
        }
    };
    let no_id = V2Request {
        request_id: None,
        ..common(wire::METHOD_LIST_TOOLS)
    };
    expect(NO_ID, host.call(&no_id, caller), Code::InvalidRequest);
    let bad_id = V2Request {
        request_id: Some("42"),
        ..common(wire::METHOD_LIST_TOOLS)
    };
    expect(BAD_ID, host.call(&bad_id, caller), Code::InvalidRequest);
    let passed = V2Request {
        deadline_at_ms: Some(1),
        ..common(wire::METHOD_LIST_TOOLS)
    };
    expect(
        "a call past its deadline",
        host.call(&passed, caller),
        Code::DeadlineExceeded,
    );
    let forged = V2Request {
        session_token: Some("forged"),
        ..common(wire::METHOD_LIST_TOOLS)
    };
    expect(
        "a call with a forged session",
        host.call(&forged, caller),
        Code::NegotiationRequired,
    );
    let restarted = CetpV2Host::new(provider);
    expect(
        "a session from before a restart",
        restarted.call(&common(wire::METHOD_LIST_TOOLS), caller),
        Code::NegotiationRequired,
    );
    let other = Caller::from_parts(
        caller.uid().map(|uid| uid.wrapping_add(1)).or(Some(1)),
        Vec::new(),
    );
    expect(
        "another UID's session",
        host.call(&common(wire::METHOD_LIST_TOOLS), &other),
        Code::NegotiationRequired,
    );
    expect(
        "an unknown method",
        host.call(&common("cetp_conformance_no_such_method"), caller),
        Code::MethodNotFound,
    );
    let unknown_tool = V2Request::execute("cetp_conformance_no_such_tool", "{}", &token, ID, later);
    expect(
        "an unknown tool",
        host.call(&unknown_tool, caller),
        Code::ToolNotFound,
    );
    if let Some(tool) = provider.tools().first() {
        let not_an_object = V2Request::execute(&tool.name, "[]", &token, ID, later);
        expect(
            "arguments that are no object",
            host.call(&not_an_object, caller),
            Code::InvalidArgs,
        );
    }
    if let Some(tool) = provider.tools().first() {
        approval(&host, caller, &tool.name, later, &mut violations);
    }
    if violations.is_empty() {
        Ok(())
    } else {
        Err(ConformanceError(violations))
    }
}

/// What [`Agent::check_v2_large_result`](super::Agent::check_v2_large_result) checks: `tool`
/// called with `args` in a session that negotiated `large_results` answers a large result
/// whose descriptor is read once, read-only, of the announced size and digest, with JSON text;
/// the same call in a session that did not negotiate it is `RESULT_TOO_LARGE`, with no
/// descriptor. The result's value, parsed.
pub(crate) fn check_large_result(
    provider: &Provider,
    caller: &Caller,
    tool: &str,
    args: &str,
) -> Result<Value, ConformanceError> {
    let mut violations = Vec::new();
    let host = CetpV2Host::new(provider);
    let later = provider.authorizer().clock().now_ms() + 30_000;
    let session = |asked: &str| {
        host.call(&V2Request::negotiate(&[2, 1], asked), caller)
            .data_json()
            .ok()
            .and_then(|data| data["session_token"].as_str().map(str::to_owned))
    };
    let (Some(with), Some(without)) = (session(r#"["large_results"]"#), session("[]")) else {
        return Err(ConformanceError(vec![
            "v2 negotiate failed; see check_v2_conformance".to_owned(),
        ]));
    };
    let refused = host.call(&V2Request::execute(tool, args, &without, ID, later), caller);
    envelope(
        "a large result without large_results",
        &refused,
        &mut violations,
    );
    if refused.error_code() != Some(Code::ResultTooLarge) {
        violations.push(format!(
            "v2 a large result without large_results: expected RESULT_TOO_LARGE, got {}",
            refused.error_code().map_or("success", Code::as_str)
        ));
    }
    unnegotiated_file(
        "a large result without large_results",
        &refused,
        &mut violations,
    );
    let reply = host.call(&V2Request::execute(tool, args, &with, ID, later), caller);
    envelope("a large result", &reply, &mut violations);
    let value = match reply.data_json() {
        Ok(data) if data["kind"] == RESULT_KIND_FILE => {
            large_result(&data, &reply, &mut violations)
        }
        Ok(data) => {
            violations.push(format!(
                "v2 `{tool}`: expected a large result (`kind` file), got `kind` {}",
                data["kind"]
            ));
            None
        }
        Err(err) => {
            violations.push(format!(
                "v2 `{tool}` failed: {}: {}",
                err.code(),
                err.message()
            ));
            None
        }
    };
    match value {
        Some(value) if violations.is_empty() => Ok(value),
        _ => Err(ConformanceError(violations)),
    }
}

/// A large result as ClawSeed's client reads it: `media_type` JSON, `size_bytes` within its
/// 16 MiB, `sha256` 64 lowercase hex digits, a descriptor that reads exactly that many bytes
/// with that digest, is read-only, and is read once; the bytes are one JSON value.
fn large_result(data: &Value, reply: &V2Reply, violations: &mut Vec<String>) -> Option<Value> {
    let mut problem = |text: &str| violations.push(format!("v2 a large result: {text}"));
    if data["media_type"] != MEDIA_TYPE_JSON {
        problem("`media_type` is not application/json");
    }
    let Some(size) = data["size_bytes"].as_u64() else {
        problem("`size_bytes` is not a non-negative integer");
        return None;
    };
    if size > DEFAULT_MAX_LARGE_RESULT_BYTES {
        problem("`size_bytes` is over the 16 MiB the client reads");
    }
    let digest = data["sha256"].as_str().unwrap_or_default();
    if digest.len() != 64
        || !digest
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        problem("`sha256` is not 64 lowercase hex digits");
    }
    let has_fd = reply
        .to_entries()
        .iter()
        .any(|(key, value)| *key == KEY_RESULT_FD && matches!(value, BundleValue::ResultFile(_)));
    let Some(file) = reply.result_file().filter(|_| has_fd) else {
        problem("no `result_fd` in the reply");
        return None;
    };
    let mut opened = match file.open_once() {
        Some(Ok(opened)) => opened,
        _ => {
            problem("the `result_fd` cannot be opened");
            return None;
        }
    };
    if file.open_once().is_some() {
        problem("the file can be opened a second time");
    }
    let mut bytes = Vec::new();
    if std::io::Read::read_to_end(&mut opened, &mut bytes).is_err() {
        problem("the `result_fd` cannot be read");
        return None;
    }
    if std::io::Write::write_all(&mut opened, b" ").is_ok() {
        problem("the `result_fd` is writable");
    }
    if bytes.len() as u64 != size {
        problem(&format!(
            "{} bytes where `size_bytes` says {size}",
            bytes.len()
        ));
    }
    let actual: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    if actual != digest {
        problem("the bytes do not have the announced `sha256`");
    }
    match serde_json::from_slice(&bytes) {
        Ok(value) => Some(value),
        Err(_) => {
            problem("the bytes are not one JSON value");
            None
        }
    }
}

/// A reply in a session that did not negotiate `large_results` never carries a file.
fn unnegotiated_file(what: &str, reply: &V2Reply, violations: &mut Vec<String>) {
    let kind_file = reply
        .data_json()
        .is_ok_and(|data| data["kind"] == RESULT_KIND_FILE);
    if reply.result_file().is_some() || kind_file {
        violations.push(format!(
            "v2 {what}: a file result in a session that did not negotiate large_results"
        ));
    }
}

/// When the provider asks the user about an app it does not know yet: `AUTH_REQUIRED` carries
/// a `resolution` for that app and a `resume_token`; the call resumed without an answer from
/// the user is `USER_CANCELLED` (an agent resumes after any result of the screen, so
/// `AUTH_REQUIRED` again would loop), and the token works once. Providers whose policy decides
/// without the user are not asked. The check leaves a pending request from a made-up app.
fn approval(
    host: &CetpV2Host<&Provider>,
    caller: &Caller,
    tool: &str,
    deadline: u64,
    violations: &mut Vec<String>,
) {
    let uid = caller.uid().map_or(2, |uid| uid.wrapping_add(2));
    let stranger =
        Caller::app(uid, "dev.cetp.conformance.stranger").with_certificate("c2".repeat(32));
    let negotiated = host.call(&V2Request::negotiate(&[2, 1], "[]"), &stranger);
    let Some(session) = negotiated
        .data_json()
        .ok()
        .and_then(|data| data["session_token"].as_str().map(str::to_owned))
    else {
        return;
    };
    let call = V2Request::execute(tool, "{}", &session, ID, deadline);
    let first = host.call(&call, &stranger);
    unnegotiated_file(
        "a call in a session without capabilities",
        &first,
        violations,
    );
    let Some(refused) = first.error().filter(|e| e.code() == Code::AuthRequired) else {
        return;
    };
    envelope("a call waiting for the user", &first, violations);
    let Some(token) = refused.resume_token() else {
        violations.push("v2 AUTH_REQUIRED: no resume_token".to_owned());
        return;
    };
    if refused.resolution_uid() != Some(uid) {
        violations.push("v2 AUTH_REQUIRED: no resolution for the caller it refused".to_owned());
    }
    let resumed = V2Request {
        resume_token: Some(token),
        ..call
    };
    for (what, code) in [
        (
            "a call resumed before the user answered",
            Code::UserCancelled,
        ),
        ("a resume_token presented twice", Code::InvalidRequest),
    ] {
        let reply = host.call(&resumed, &stranger);
        envelope(what, &reply, violations);
        if reply.error_code() != Some(code) {
            violations.push(format!(
                "v2 {what}: expected {code}, got {}",
                reply.error_code().map_or("success", Code::as_str)
            ));
        }
    }
}

fn negotiation(
    host: &CetpV2Host<&Provider>,
    caller: &Caller,
    violations: &mut Vec<String>,
) -> Option<String> {
    let old = host.call(&V2Request::negotiate(&[1], "[]"), caller);
    if old.error_code() != Some(Code::UnsupportedVersion) {
        violations
            .push("v2 negotiate without version 2 must answer UNSUPPORTED_VERSION".to_owned());
    }
    let reply = host.call(
        &V2Request::negotiate(
            &[2, 1],
            r#"["async_operations","cancellation","large_results"]"#,
        ),
        caller,
    );
    let data = match reply.data_json() {
        Ok(data) => data,
        Err(err) => {
            violations.push(format!(
                "v2 negotiate failed: {}: {}",
                err.code(),
                err.message()
            ));
            return None;
        }
    };
    if data["selected_version"] != 2 {
        violations.push("v2 negotiate must select version 2".to_owned());
    }
    for key in ["provider_id", "provider_name"] {
        if data[key].as_str().is_none_or(|s| s.trim().is_empty()) {
            violations.push(format!("v2 negotiate: `{key}` is blank"));
        }
    }
    if !data["capabilities"].as_array().is_some_and(|c| {
        c.iter().all(|c| {
            c.as_str()
                .is_some_and(|c| ["async_operations", "cancellation", "large_results"].contains(&c))
        })
    }) {
        violations.push("v2 negotiate: `capabilities` must be among those asked for".to_owned());
    }
    let bare = host.call(&V2Request::negotiate(&[2, 1], "[]"), caller);
    if bare.data_json().is_ok_and(|data| {
        data["capabilities"]
            .as_array()
            .is_none_or(|c| !c.is_empty())
    }) {
        violations
            .push("v2 negotiate: an agent that asks for no capability must get none".to_owned());
    }
    let limits = &data["limits"];
    for (key, floor) in [
        ("max_request_bytes", MIN_REQUEST_BYTES),
        ("max_inline_result_bytes", MIN_INLINE_RESULT_BYTES),
        ("max_concurrent_requests", 1),
        ("idempotency_window_seconds", MIN_IDEMPOTENCY_WINDOW_SECONDS),
    ] {
        if limits[key].as_u64().is_none_or(|v| v < floor) {
            violations.push(format!("v2 negotiate: `limits.{key}` is below {floor}"));
        }
    }
    let token = data["session_token"].as_str().unwrap_or_default();
    if token.is_empty() || token.len() > 256 {
        violations.push("v2 negotiate: `session_token` must have 1 to 256 bytes".to_owned());
        return None;
    }
    Some(token.to_owned())
}

/// `protocol_version` 2 and the echoed `request_id` on every reply, `retryable` on errors.
fn envelope(what: &str, reply: &V2Reply, violations: &mut Vec<String>) {
    let entries = reply.to_entries();
    if !entries.contains(&("protocol_version", BundleValue::Int(2))) {
        violations.push(format!("v2 {what}: the reply lacks protocol_version 2"));
    }
    // The kit sends `ID` on every call but two: one without, one with "42".
    let sent = match what {
        NO_ID => None,
        BAD_ID => Some("42"),
        _ => Some(ID),
    };
    let echoed = entries.iter().find_map(|(k, v)| match (k, v) {
        (&"request_id", BundleValue::Text(id)) => Some(*id),
        _ => None,
    });
    if echoed != sent {
        violations.push(format!("v2 {what}: the reply does not echo request_id"));
    }
    if !reply.is_success()
        && !entries
            .iter()
            .any(|(k, v)| *k == "retryable" && matches!(v, BundleValue::Bool(_)))
    {
        violations.push(format!("v2 {what}: the error lacks retryable"));
    }
}

fn is_scope_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || b"_.-".contains(c))
}

fn provider_info(info: &Value, violations: &mut Vec<String>) {
    for key in ["provider_id", "provider_name", "schema_dialect"] {
        if info[key].as_str().is_none_or(|s| s.trim().is_empty()) {
            violations.push(format!("v2 get_provider_info: `{key}` is missing"));
        }
    }
    for scope in info["scopes"].as_array().into_iter().flatten() {
        let name = scope["name"].as_str().unwrap_or_default();
        if !is_scope_name(name) {
            violations.push(format!(
                "v2 scope `{name}`: the name must match [a-z][a-z0-9_.-]{{0,127}}"
            ));
        }
        if !matches!(scope["access"].as_str(), Some("read" | "write")) {
            violations.push(format!("v2 scope `{name}`: `access` must be read or write"));
        }
        if !scope["sensitivity"]
            .as_str()
            .is_some_and(|s| SENSITIVITIES.contains(&s))
        {
            violations.push(format!("v2 scope `{name}`: unknown `sensitivity`"));
        }
        if scope["title"].as_str().is_none_or(|s| s.trim().is_empty()) {
            violations.push(format!("v2 scope `{name}`: `title` is missing"));
        }
    }
}

fn tools(provider: &Provider, list: &Value, violations: &mut Vec<String>) {
    if list["revision"].as_str().is_none_or(str::is_empty) {
        violations.push("v2 list_tools: `revision` is missing".to_owned());
    }
    let listed = list["tools"].as_array().map_or(&[][..], Vec::as_slice);
    if listed.len() != provider.tools().len() {
        violations.push(format!(
            "v2 list_tools lists {} of {} tools",
            listed.len(),
            provider.tools().len()
        ));
    }
    let declared: Vec<&str> = provider.scopes().iter().map(|(n, _)| n.as_str()).collect();
    for tool in listed {
        let name = tool["name"].as_str().unwrap_or_default();
        let mut fail = |what: String| violations.push(format!("v2 tool `{name}`: {what}"));
        let lower = name
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_');
        if !lower || name.len() > 64 || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
            fail("the name must match [a-z][a-z0-9_]{0,63}".to_owned());
        }
        for key in ["input_schema", "output_schema"] {
            if !tool[key].is_object() {
                fail(format!("`{key}` is not a JSON object"));
            }
        }
        let scopes = tool["scopes"].as_array();
        if !scopes.is_some_and(|s| {
            s.iter()
                .all(|s| s.as_str().is_some_and(|s| declared.contains(&s)))
        }) {
            fail("`scopes` must list declared scopes only".to_owned());
        }
        let annotations = &tool["annotations"];
        for (key, allowed) in ANNOTATIONS {
            if !annotations[key]
                .as_str()
                .is_some_and(|v| allowed.contains(&v))
            {
                fail(format!("annotation `{key}` must be one of {allowed:?}"));
            }
        }
        for key in FLAGS {
            if !annotations[key].is_boolean() {
                fail(format!("annotation `{key}` must be a boolean"));
            }
        }
        if annotations["effect"] != "read" {
            fail("a #[tool] is read-only: `effect` must be read".to_owned());
        }
        let severe = annotations["risk"] == "high" || annotations["destructive"] == true;
        if severe && annotations["confirmation"] != "always" {
            fail("high risk needs `confirmation` always".to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Auth;
    use crate::{tool, tools};

    /// Reads a secret.
    #[tool(scopes = ["Secrets:Read"])]
    fn read_secret() -> &'static str {
        "s"
    }

    #[test]
    fn a_scope_name_v2_agents_refuse_is_a_violation() {
        let provider = Provider::builder("Vault")
            .scope("Secrets:Read", "your secrets")
            .tools(tools![read_secret])
            .auth(Auth::open())
            .build()
            .unwrap();
        let violations = check_v2(&provider, &Caller::app(10_001, "com.agent"))
            .unwrap_err()
            .0;
        assert_eq!(
            violations,
            ["v2 scope `Secrets:Read`: the name must match [a-z][a-z0-9_.-]{0,127}"]
        );
    }

    /// Reads a note.
    #[tool(scopes = ["notes.read"])]
    fn read_note() -> &'static str {
        "n"
    }

    #[test]
    fn under_user_approval_the_approval_flow_is_checked_too() {
        let dir = tempfile::tempdir().unwrap();
        let provider = Provider::builder("Notes")
            .scope("notes.read", "your notes")
            .tools(tools![read_note])
            .auth(Auth::user_approval().store_dir(dir.path()))
            .build()
            .unwrap();
        let agent = Caller::app(10_001, "com.agent").with_certificate("ab".repeat(32));
        let as_agent = crate::testing::Agent::new(&provider).as_caller(agent.clone());
        assert!(!as_agent.execute("read_note", "{}").is_success());
        let auth = provider.authorizer();
        let request = auth.pending().remove(0);
        auth.approve(&request.id, crate::auth::Approval::as_listed(&request))
            .unwrap();
        check_v2(&provider, &agent).unwrap();
        let asked: Vec<String> = auth
            .pending()
            .iter()
            .flat_map(|r| r.packages.iter().map(|p| p.name.clone()))
            .collect();
        assert_eq!(
            asked,
            ["dev.cetp.conformance.stranger"],
            "the check asked as a new app"
        );
    }

    /// Lists `n` numbers.
    #[tool]
    fn numbers(
        /// How many.
        n: u32,
    ) -> Vec<u32> {
        (0..n).collect()
    }

    #[test]
    fn a_result_that_is_not_large_is_a_violation_of_the_large_result_check() {
        let provider = Provider::builder("Count")
            .tools(tools![numbers])
            .auth(Auth::open())
            .build()
            .unwrap();
        let agent = Caller::app(10_001, "com.example.agent");
        let err = check_large_result(&provider, &agent, "numbers", r#"{"n":3}"#).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("expected RESULT_TOO_LARGE"), "{text}");
        assert!(text.contains("expected a large result"), "{text}");
        let value = check_large_result(&provider, &agent, "numbers", r#"{"n":70000}"#).unwrap();
        assert_eq!(value.as_array().map(Vec::len), Some(70_000));
    }
}
