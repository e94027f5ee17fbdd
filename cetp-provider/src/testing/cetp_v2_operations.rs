//! The CETP v2 operation checks: a long-running tool's life as an agent that negotiated
//! `async_operations` and `cancellation` sees it, and those capabilities never used when the
//! session did not negotiate them.

use std::sync::Arc;

use serde_json::Value;

use super::ConformanceError;
use crate::caller::Caller;
use crate::host::cetp_v2::words::{
    CAPABILITY_ASYNC_OPERATIONS, CAPABILITY_CANCELLATION, EXECUTION_SYNC, EXECUTION_SYNC_OR_ASYNC,
    METHOD_CANCEL_OPERATION, METHOD_GET_OPERATION, STATE_CANCELLATION_REQUESTED, STATE_CANCELLED,
    STATE_FAILED, STATE_QUEUED, STATE_RUNNING, STATE_SUCCEEDED,
};
use crate::host::cetp_v2::{CetpV2Host, Code, V2Reply, V2Request};
use crate::provider::Provider;
use crate::wire;

const RUN: &str = "00000000-0000-4000-8000-0000000c0a51";
const CANCEL: &str = "00000000-0000-4000-8000-0000000c0a52";
const PLAIN: &str = "00000000-0000-4000-8000-0000000c0a53";
const UNKNOWN_OPERATION: &str = "op_cetp_conformance_no_such_operation";

/// What [`check_v2_operations`](super::check_v2_operations) checks.
pub(crate) fn check(
    provider: &Arc<Provider>,
    caller: &Caller,
    tool: &str,
    args: &str,
) -> Result<(), ConformanceError> {
    let mut v = Vec::new();
    let host = CetpV2Host::new(Arc::clone(provider));
    let long = provider
        .tools()
        .iter()
        .find(|t| t.name == tool)
        .is_some_and(|t| t.long_running());
    if !long {
        v.push(format!(
            "`{tool}` is not a long-running tool (`#[tool(long_running)]`); name one to check operations"
        ));
        return Err(ConformanceError(v));
    }
    let far = provider.authorizer().clock().now_ms() + 300_000;
    let offered = host.offered_capabilities();
    if !offered.contains(&CAPABILITY_ASYNC_OPERATIONS)
        || !offered.contains(&CAPABILITY_CANCELLATION)
    {
        v.push(format!(
            "v2 negotiate: a provider with a long-running tool offers async_operations and cancellation, offered {offered:?}"
        ));
    }

    // A session without the capabilities: nothing of them is used.
    if let Some(plain) = session(&host, caller, "[]", &mut v) {
        execution_of(&host, caller, &plain, tool, EXECUTION_SYNC, far, &mut v);
        let reply = host.call(&V2Request::execute(tool, args, &plain, PLAIN, far), caller);
        if reply.is_accepted() {
            v.push(
                "v2 execute_tool answered `accepted` in a session without async_operations"
                    .to_owned(),
            );
        }
        let poll = host.call(
            &V2Request::operation(METHOD_GET_OPERATION, UNKNOWN_OPERATION, &plain, PLAIN, far),
            caller,
        );
        expect_code(
            "get_operation without async_operations",
            &poll,
            Code::UnsupportedCapability,
            &mut v,
        );
    }
    if let Some(polling) = session(&host, caller, "[\"async_operations\"]", &mut v) {
        let cancel = host.call(
            &V2Request::operation(
                METHOD_CANCEL_OPERATION,
                UNKNOWN_OPERATION,
                &polling,
                PLAIN,
                far,
            ),
            caller,
        );
        expect_code(
            "cancel_operation without cancellation",
            &cancel,
            Code::UnsupportedCapability,
            &mut v,
        );
    }

    let Some(both) = session(
        &host,
        caller,
        "[\"async_operations\",\"cancellation\"]",
        &mut v,
    ) else {
        return Err(ConformanceError(v));
    };
    execution_of(
        &host,
        caller,
        &both,
        tool,
        EXECUTION_SYNC_OR_ASYNC,
        far,
        &mut v,
    );

    // accepted → queued/running (with progress) → succeeded or failed.
    let first = host.call(&V2Request::execute(tool, args, &both, RUN, far), caller);
    if let Some(op) = accepted(&first, &mut v) {
        stranger_learns_nothing(&host, caller, &op, far, &mut v);
        let end = poll_to_the_end(&host, caller, &both, RUN, &op, far, &mut v);
        if let Some(end) = end {
            if end["state"] == STATE_CANCELLED {
                v.push("v2 get_operation: `cancelled` though nobody cancelled it".to_owned());
            }
        }
    } else if !first.is_success() && first.error().is_none() {
        v.push("v2 execute_tool: neither success, error nor accepted".to_owned());
    }

    // cancel → cancellation_requested → cancelled (or CONFLICT once it had ended).
    let second = host.call(&V2Request::execute(tool, args, &both, CANCEL, far), caller);
    if let Some(op) = accepted(&second, &mut v) {
        let asked = host.call(
            &V2Request::operation(METHOD_CANCEL_OPERATION, &op, &both, CANCEL, far),
            caller,
        );
        let requested = match (asked.data_json(), asked.error_code()) {
            (Ok(data), _) if data["state"] == STATE_CANCELLATION_REQUESTED => true,
            (_, Some(Code::Conflict)) => false,
            _ => {
                v.push(format!(
                    "v2 cancel_operation: expected `cancellation_requested` or CONFLICT, got {}",
                    asked.error_code().map_or("another state", Code::as_str)
                ));
                false
            }
        };
        if let Some(end) = poll_to_the_end(&host, caller, &both, CANCEL, &op, far, &mut v) {
            if requested && end["state"] != STATE_CANCELLED {
                v.push(format!(
                    "v2 get_operation: a cancellation acknowledged ended `{}`, not `cancelled`",
                    end["state"]
                ));
            }
        }
    }
    if v.is_empty() {
        Ok(())
    } else {
        Err(ConformanceError(v))
    }
}

fn session(host: &CetpV2Host, caller: &Caller, asked: &str, v: &mut Vec<String>) -> Option<String> {
    let reply = host.call(&V2Request::negotiate(&[2, 1], asked), caller);
    let data = match reply.data_json() {
        Ok(data) => data,
        Err(err) => {
            v.push(format!("v2 negotiate {asked}: {}", err.code()));
            return None;
        }
    };
    let granted: Vec<String> =
        serde_json::from_value(data["capabilities"].clone()).unwrap_or_default();
    let asked: Vec<String> = serde_json::from_str(asked).unwrap_or_default();
    if granted.iter().any(|c| !asked.contains(c)) {
        v.push(format!(
            "v2 negotiate: capabilities {granted:?} beyond those asked, {asked:?}"
        ));
    }
    data["session_token"].as_str().map(str::to_owned)
}

fn execution_of(
    host: &CetpV2Host,
    caller: &Caller,
    token: &str,
    tool: &str,
    expected: &str,
    far: u64,
    v: &mut Vec<String>,
) {
    let list = host.call(
        &V2Request::common(wire::METHOD_LIST_TOOLS, token, PLAIN, far),
        caller,
    );
    let Ok(list) = list.data_json() else {
        v.push("v2 list_tools failed".to_owned());
        return;
    };
    let execution = list["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["name"] == tool)
        .map(|t| t["annotations"]["execution"].clone());
    if execution != Some(Value::from(expected)) {
        v.push(format!(
            "v2 list_tools: `{tool}` says execution {execution:?}, expected `{expected}` in this session"
        ));
    }
}

fn expect_code(what: &str, reply: &V2Reply, code: Code, v: &mut Vec<String>) {
    if reply.error_code() != Some(code) {
        v.push(format!(
            "v2 {what}: expected {code}, got {}",
            reply.error_code().map_or("success", Code::as_str)
        ));
    }
}

/// The operation id of an `accepted` reply (checked), `None` for any other reply.
fn accepted(reply: &V2Reply, v: &mut Vec<String>) -> Option<String> {
    if !reply.is_accepted() {
        return None;
    }
    let data = reply.data_json().ok()?;
    let poll = data["poll_after_ms"].as_u64();
    if !poll.is_some_and(|ms| (100..=10_000).contains(&ms)) {
        v.push(format!(
            "v2 accepted: `poll_after_ms` {poll:?} outside 100..=10000"
        ));
    }
    let op = data["operation_id"].as_str().filter(|op| !op.is_empty());
    if op.is_none() {
        v.push("v2 accepted: no `operation_id`".to_owned());
    }
    op.map(str::to_owned)
}

/// Another UID asking for the operation gets what it gets for an id never issued.
fn stranger_learns_nothing(
    host: &CetpV2Host,
    caller: &Caller,
    op: &str,
    far: u64,
    v: &mut Vec<String>,
) {
    let uid = caller.uid().map_or(3, |uid| uid.wrapping_add(3));
    let stranger = Caller::app(uid, "dev.cetp.conformance.stranger");
    let Some(theirs) = session(
        host,
        &stranger,
        "[\"async_operations\",\"cancellation\"]",
        v,
    ) else {
        return;
    };
    for method in [METHOD_GET_OPERATION, METHOD_CANCEL_OPERATION] {
        let guessed = host.call(
            &V2Request::operation(method, op, &theirs, RUN, far),
            &stranger,
        );
        let unknown = host.call(
            &V2Request::operation(method, UNKNOWN_OPERATION, &theirs, RUN, far),
            &stranger,
        );
        if guessed.error_code().is_none() || guessed.error() != unknown.error() {
            v.push(format!(
                "v2 {method} of another app's operation: must answer as for an unknown id"
            ));
        }
    }
}

/// Polls until a terminal state, checking each state and progress on the way.
fn poll_to_the_end(
    host: &CetpV2Host,
    caller: &Caller,
    token: &str,
    id: &str,
    op: &str,
    far: u64,
    v: &mut Vec<String>,
) -> Option<Value> {
    loop {
        let reply = host.call(
            &V2Request::operation(METHOD_GET_OPERATION, op, token, id, far),
            caller,
        );
        let data = match reply.data_json() {
            Ok(data) => data,
            Err(err) => {
                v.push(format!(
                    "v2 get_operation of its own operation: {}",
                    err.code()
                ));
                return None;
            }
        };
        match data["state"].as_str() {
            Some(STATE_QUEUED | STATE_RUNNING) => {
                let progress = &data["progress"];
                if let (Some(current), Some(total)) =
                    (progress["current"].as_u64(), progress["total"].as_u64())
                {
                    if current > total {
                        v.push(format!("v2 get_operation: progress {current} of {total}"));
                    }
                }
                std::thread::yield_now();
            }
            Some(STATE_SUCCEEDED) => {
                if data["result"]["kind"] != "inline" {
                    v.push("v2 get_operation: `succeeded` without an inline `result`".to_owned());
                }
                return Some(data);
            }
            Some(STATE_FAILED) => {
                if data["error"]["error_code"]
                    .as_str()
                    .and_then(Code::parse)
                    .is_none()
                {
                    v.push(
                        "v2 get_operation: `failed` without a known `error.error_code`".to_owned(),
                    );
                }
                return Some(data);
            }
            Some(STATE_CANCELLED) => return Some(data),
            other => {
                v.push(format!("v2 get_operation: unknown state {other:?}"));
                return None;
            }
        }
    }
}
