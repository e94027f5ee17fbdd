//! CETP v2 operations: `accepted`, `get_operation`, `cancel_operation`, their binding to the
//! caller, their bounds and expiry. Nothing here waits on real time: the tool moves one step
//! each time the test opens its gate, and the inline window and expiry follow a `ManualClock`.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use serde_json::json;

use super::*;
use crate::auth::Auth;
use crate::clock::ManualClock;
use crate::{CallContext, ToolError, tool, tools};

const NOW: u64 = 1_700_000_000_000;
/// The agent's deadline: far enough for every call of a test, however far it moves the clock.
const LATER: u64 = u64::MAX / 2;
const ID: &str = "3f2b9c1e-0000-4000-8000-0000000000a1";
const OTHER_ID: &str = "3f2b9c1e-0000-4000-8000-0000000000a2";
const BOTH: &str = r#"["async_operations","cancellation"]"#;

/// Where the `crawl` tools are: each opening of the gate lets one step of one tool pass.
#[derive(Clone, Default)]
struct Gate(Arc<(Mutex<GateState>, Condvar)>);

#[derive(Default)]
struct GateState {
    opened: u32,
    passed: u32,
    waiting: u32,
    runs: u32,
    saw_cancel: bool,
}

impl Gate {
    fn with<R>(&self, f: impl FnOnce(&mut GateState) -> R) -> R {
        let (lock, changed) = &*self.0;
        let mut state = lock.lock().unwrap_or_else(PoisonError::into_inner);
        let out = f(&mut state);
        changed.notify_all();
        out
    }

    fn wait_until(&self, done: impl Fn(&GateState) -> bool) {
        let (lock, changed) = &*self.0;
        let mut state = lock.lock().unwrap_or_else(PoisonError::into_inner);
        while !done(&state) {
            state = changed.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// A tool waits here until the test opened the gate once more.
    fn pass(&self) {
        let (lock, changed) = &*self.0;
        let mut state = lock.lock().unwrap_or_else(PoisonError::into_inner);
        state.waiting += 1;
        changed.notify_all();
        while state.opened <= state.passed {
            state = changed.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        state.passed += 1;
        state.waiting -= 1;
        changed.notify_all();
    }

    fn open(&self, steps: u32) {
        self.with(|s| s.opened += steps);
    }

    /// Until `passed` steps have passed and a tool waits at the gate.
    fn until_waiting_after(&self, passed: u32) {
        self.wait_until(|s| s.passed == passed && s.waiting > 0);
    }

    fn runs(&self) -> u32 {
        self.with(|s| s.runs)
    }

    fn saw_cancel(&self) -> bool {
        self.with(|s| s.saw_cancel)
    }
}

/// Crawls `steps` steps, one each time the gate opens, reporting progress and stopping when
/// cancelled.
#[tool(long_running)]
fn crawl(
    /// How many steps.
    steps: u32,
    gate: &Gate,
    ctx: &CallContext,
) -> Result<u32, ToolError> {
    gate.with(|s| s.runs += 1);
    for step in 0..steps {
        ctx.progress(u64::from(step), u64::from(steps), "Crawling");
        gate.pass();
        if ctx.is_cancelled() {
            gate.with(|s| s.saw_cancel = true);
            return Err(ToolError::cancelled());
        }
    }
    Ok(steps)
}

/// Says hello.
#[tool]
fn hello() -> String {
    "hello".to_owned()
}

struct Fixture {
    clock: ManualClock,
    gate: Gate,
    provider: Arc<Provider>,
}

fn fixture_with(settings: CetpV2, limits: crate::Limits) -> Fixture {
    let clock = ManualClock::new(NOW);
    let gate = Gate::default();
    let provider = Provider::builder("Crawler")
        .tools(tools![crawl, hello])
        .state(gate.clone())
        .limits(limits)
        .host(settings)
        .auth(Auth::open().clock(clock.clone()))
        .build()
        .unwrap();
    Fixture {
        clock,
        gate,
        provider: Arc::new(provider),
    }
}

/// Answers `accepted` unless the tool has already finished: the window is zero.
fn fixture() -> Fixture {
    fixture_with(
        CetpV2::new().inline_window(Duration::ZERO),
        crate::Limits::default(),
    )
}

fn agent() -> Caller {
    Caller::app(10_300, "com.agent")
}

fn intruder() -> Caller {
    Caller::app(10_666, "com.intruder")
}

fn session(host: &CetpV2Host, caller: &Caller, capabilities: &str) -> String {
    let reply = host.call(&V2Request::negotiate(&[2, 1], capabilities), caller);
    reply.data_json().unwrap()["session_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn crawl_call(host: &CetpV2Host, token: &str, id: &str, steps: u32, caller: &Caller) -> V2Reply {
    let args = format!(r#"{{"steps":{steps}}}"#);
    host.call(
        &V2Request::execute("crawl", &args, token, id, LATER),
        caller,
    )
}

/// Starts a crawl that is answered `accepted`; its operation id.
fn started(host: &CetpV2Host, token: &str, id: &str, steps: u32, caller: &Caller) -> String {
    let reply = crawl_call(host, token, id, steps, caller);
    assert!(reply.is_accepted(), "{reply:?}");
    assert!(!reply.is_success());
    assert!(
        reply
            .to_entries()
            .contains(&("status", BundleValue::Text("accepted")))
    );
    assert_eq!(reply.request_id(), Some(id));
    let data = reply.data_json().unwrap();
    assert_eq!(data["poll_after_ms"], 1000);
    data["operation_id"].as_str().unwrap().to_owned()
}

fn get(host: &CetpV2Host, token: &str, id: &str, op: &str, caller: &Caller) -> V2Reply {
    host.call(
        &V2Request::operation("get_operation", op, token, id, LATER),
        caller,
    )
}

fn cancel(host: &CetpV2Host, token: &str, id: &str, op: &str, caller: &Caller) -> V2Reply {
    host.call(
        &V2Request::operation("cancel_operation", op, token, id, LATER),
        caller,
    )
}

fn settle(host: &CetpV2Host, caller: &Caller, op: &str) {
    let uid = caller.uid().unwrap();
    let held = host.operations.as_ref().unwrap().find(uid, op).unwrap();
    held.settle();
}

#[test]
fn negotiate_offers_operations_with_a_long_running_tool_and_a_shared_provider() {
    let f = fixture();
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    let offered = |asked: &str| {
        let reply = host.call(&V2Request::negotiate(&[2], asked), &agent());
        reply.data_json().unwrap()["capabilities"].clone()
    };
    assert_eq!(offered(BOTH), json!(["async_operations", "cancellation"]));
    assert_eq!(
        offered(r#"["cancellation","large_results","async_operations","x"]"#),
        json!(["async_operations", "cancellation", "large_results"])
    );
    assert_eq!(
        offered(r#"["async_operations"]"#),
        json!(["async_operations"])
    );
    assert_eq!(
        offered(r#"["cancellation"]"#),
        json!([]),
        "cancellation acts on operations"
    );
    assert_eq!(offered("[]"), json!([]));
    assert_eq!(
        host.offered_capabilities(),
        ["async_operations", "cancellation", "large_results"]
    );

    // A host that only borrows the provider cannot hand it to threads: it offers no operations.
    let borrowed = CetpV2Host::new(&*f.provider);
    let reply = borrowed.call(&V2Request::negotiate(&[2], BOTH), &agent());
    assert_eq!(reply.data_json().unwrap()["capabilities"], json!([]));
    // Nor does a provider without a long-running tool (`BOTH` does not ask for large results).
    let plain = Arc::new(
        Provider::builder("Plain")
            .tools(tools![hello])
            .auth(Auth::open())
            .build()
            .unwrap(),
    );
    let host = CetpV2Host::new(plain);
    let reply = host.call(&V2Request::negotiate(&[2], BOTH), &agent());
    assert_eq!(reply.data_json().unwrap()["capabilities"], json!([]));
    assert_eq!(host.offered_capabilities(), ["large_results"]);
}

#[test]
fn list_tools_says_sync_or_async_only_to_a_session_with_async_operations() {
    let f = fixture();
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    let execution = |capabilities: &str| -> Vec<(String, String)> {
        let token = session(&host, &agent(), capabilities);
        let reply = host.call(
            &V2Request::common("list_tools", &token, ID, LATER),
            &agent(),
        );
        let data = reply.data_json().unwrap();
        data["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["name"].as_str().unwrap().to_owned(),
                    t["annotations"]["execution"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let pairs = |a: &str, b: &str| {
        vec![
            ("crawl".to_owned(), a.to_owned()),
            ("hello".to_owned(), b.to_owned()),
        ]
    };
    assert_eq!(execution(BOTH), pairs("sync_or_async", "sync"));
    assert_eq!(execution("[]"), pairs("sync", "sync"));
    // CETP v1 lists the tool as before: no annotation of v2's.
    let v1 = f.provider.list_tools_json();
    assert!(
        !v1.contains("execution") && !v1.contains("long_running"),
        "{v1}"
    );
}

#[test]
fn an_operation_goes_from_accepted_through_running_with_progress_to_succeeded() {
    let f = fixture();
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    let token = session(&host, &agent(), BOTH);
    let op = started(&host, &token, ID, 3, &agent());
    assert!(op.starts_with("op_") && op.len() == 35, "{op}");

    f.gate.until_waiting_after(0);
    f.gate.open(1);
    f.gate.until_waiting_after(1);
    let running = get(&host, &token, ID, &op, &agent());
    assert!(running.is_success());
    assert_eq!(running.request_id(), Some(ID));
    assert_eq!(
        running.data_json().unwrap(),
        json!({
            "operation_id": op,
            "state": "running",
            "progress": {"current": 1, "total": 3, "message": "Crawling"},
            "poll_after_ms": 1000,
        })
    );

    f.gate.open(2);
    settle(&host, &agent(), &op);
    let done = json!({
        "operation_id": op,
        "state": "succeeded",
        "result": {"kind": "inline", "value": 3},
    });
    assert_eq!(
        get(&host, &token, ID, &op, &agent()).data_json().unwrap(),
        done
    );
    assert_eq!(
        get(&host, &token, ID, &op, &agent()).data_json().unwrap(),
        done,
        "read as often as the agent asks"
    );
    assert_eq!(f.gate.runs(), 1);
}

#[test]
fn a_long_running_tool_that_finishes_within_the_window_answers_inline() {
    let f = fixture_with(
        CetpV2::new().inline_window(Duration::from_secs(3600)),
        crate::Limits::default(),
    );
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    let token = session(&host, &agent(), BOTH);
    let reply = crawl_call(&host, &token, ID, 0, &agent());
    assert!(reply.is_success(), "{reply:?}");
    assert_eq!(
        reply.data_json().unwrap(),
        json!({"kind": "inline", "value": 0})
    );
    assert_eq!(
        host.operations.as_ref().unwrap().held(),
        0,
        "no operation kept"
    );
}

#[test]
fn the_inline_window_is_measured_on_the_providers_clock() {
    let f = fixture_with(CetpV2::new(), crate::Limits::default());
    let host = Arc::new(CetpV2Host::new(Arc::clone(&f.provider)));
    let token = session(&host, &agent(), BOTH);
    let waiting = {
        let host = Arc::clone(&host);
        let token = token.clone();
        std::thread::spawn(move || crawl_call(&host, &token, ID, 1, &agent()))
    };
    f.gate.until_waiting_after(0);
    // The agent's call waits for the tool until the window (1 s on the provider's clock) ends.
    f.clock.advance(Duration::from_millis(1000));
    let reply = waiting.join().unwrap();
    assert!(reply.is_accepted(), "{reply:?}");
    f.gate.open(1);
}

#[test]
fn cancel_stops_the_tool_and_the_operation_ends_cancelled() {
    let f = fixture();
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    let token = session(&host, &agent(), BOTH);
    let op = started(&host, &token, ID, 5, &agent());
    f.gate.until_waiting_after(0);

    let asked = cancel(&host, &token, ID, &op, &agent());
    assert_eq!(
        asked.data_json().unwrap(),
        json!({"operation_id": op, "state": "cancellation_requested", "poll_after_ms": 1000})
    );
    f.gate.open(1);
    settle(&host, &agent(), &op);
    assert!(f.gate.saw_cancel(), "the tool saw it and stopped");
    assert_eq!(
        get(&host, &token, ID, &op, &agent()).data_json().unwrap(),
        json!({"operation_id": op, "state": "cancelled"})
    );
    // Asking again is harmless.
    assert_eq!(
        cancel(&host, &token, ID, &op, &agent())
            .data_json()
            .unwrap()["state"],
        "cancelled"
    );

    // A finished operation cannot be cancelled.
    let done = started(&host, &token, OTHER_ID, 1, &agent());
    f.gate.open(1);
    settle(&host, &agent(), &done);
    let late = cancel(&host, &token, OTHER_ID, &done, &agent());
    assert_eq!(late.error_code(), Some(Code::Conflict));
    assert_eq!(
        get(&host, &token, OTHER_ID, &done, &agent())
            .data_json()
            .unwrap()["state"],
        "succeeded"
    );
}

#[test]
fn a_queued_operation_cancelled_never_runs_its_tool() {
    let f = fixture_with(
        CetpV2::new()
            .inline_window(Duration::ZERO)
            .operation_threads(1),
        crate::Limits::default(),
    );
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    let token = session(&host, &agent(), BOTH);
    let first = started(&host, &token, ID, 1, &agent());
    f.gate.until_waiting_after(0);
    // The one thread is busy: the second waits its turn.
    let second = started(&host, &token, OTHER_ID, 1, &agent());
    assert_eq!(
        get(&host, &token, OTHER_ID, &second, &agent())
            .data_json()
            .unwrap()["state"],
        "queued"
    );
    assert_eq!(
        cancel(&host, &token, OTHER_ID, &second, &agent())
            .data_json()
            .unwrap()["state"],
        "cancellation_requested"
    );
    f.gate.open(1);
    settle(&host, &agent(), &first);
    settle(&host, &agent(), &second);
    assert_eq!(
        get(&host, &token, OTHER_ID, &second, &agent())
            .data_json()
            .unwrap()["state"],
        "cancelled"
    );
    assert_eq!(f.gate.runs(), 1, "the cancelled one never ran");
}

/// Whichever comes first, the outcome is whole: an acknowledged cancellation always ends
/// `cancelled`, and a cancellation refused as too late always leaves `succeeded`.
#[test]
fn a_cancel_racing_completion_either_wins_whole() {
    let f = fixture();
    let host = Arc::new(CetpV2Host::new(Arc::clone(&f.provider)));
    let token = session(&host, &agent(), BOTH);
    let (mut cancelled, mut succeeded) = (0, 0);
    for n in 0..40u32 {
        let id = format!("3f2b9c1e-0000-4000-8000-{n:012}");
        let op = started(&host, &token, &id, 1, &agent());
        f.gate.until_waiting_after(n);
        let racer = {
            let (host, token, id, op) = (Arc::clone(&host), token.clone(), id.clone(), op.clone());
            std::thread::spawn(move || cancel(&host, &token, &id, &op, &agent()))
        };
        f.gate.open(1);
        let asked = racer.join().unwrap();
        settle(&host, &agent(), &op);
        let state = get(&host, &token, &id, &op, &agent()).data_json().unwrap()["state"].clone();
        match asked.error_code() {
            None => {
                assert_eq!(
                    asked.data_json().unwrap()["state"],
                    "cancellation_requested"
                );
                assert_eq!(state, "cancelled");
                cancelled += 1;
            }
            Some(Code::Conflict) => {
                assert_eq!(state, "succeeded");
                succeeded += 1;
            }
            other => panic!("{other:?}"),
        }
        // Make room: a read outcome gives way to the next operation.
    }
    assert_eq!(cancelled + succeeded, 40);
}

#[test]
fn another_caller_learns_nothing_of_an_operation() {
    let f = fixture();
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    let token = session(&host, &agent(), BOTH);
    let op = started(&host, &token, ID, 1, &agent());
    f.gate.until_waiting_after(0);

    let theirs = session(&host, &intruder(), BOTH);
    let unknown = "op_00000000000000000000000000000000";
    for method in ["get_operation", "cancel_operation"] {
        let call = |op: &str| {
            host.call(
                &V2Request::operation(method, op, &theirs, ID, LATER),
                &intruder(),
            )
        };
        let guessed = call(&op);
        let never_issued = call(unknown);
        assert_eq!(guessed.error_code(), Some(Code::ResultExpired), "{method}");
        assert_eq!(
            guessed, never_issued,
            "{method}: the same answer as an id never issued"
        );
    }
    // The intruder's cancel did nothing.
    f.gate.open(1);
    settle(&host, &agent(), &op);
    assert_eq!(
        get(&host, &token, ID, &op, &agent()).data_json().unwrap()["state"],
        "succeeded"
    );
    // The owner must name the call that started it.
    let wrong = get(&host, &token, OTHER_ID, &op, &agent());
    assert_eq!(wrong.error_code(), Some(Code::InvalidRequest));
}

#[test]
fn operations_need_the_capability_they_use() {
    let f = fixture();
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    // Without `async_operations`, the tool is called as any other: in the call's reply.
    let plain = session(&host, &agent(), "[]");
    let reply = crawl_call(&host, &plain, ID, 0, &agent());
    assert_eq!(
        reply.data_json().unwrap(),
        json!({"kind": "inline", "value": 0})
    );
    assert_eq!(host.operations.as_ref().unwrap().held(), 0);
    let op = "op_00000000000000000000000000000000";
    for method in ["get_operation", "cancel_operation"] {
        let reply = host.call(
            &V2Request::operation(method, op, &plain, ID, LATER),
            &agent(),
        );
        assert_eq!(
            reply.error_code(),
            Some(Code::UnsupportedCapability),
            "{method}"
        );
    }
    // `async_operations` alone: polling, but no cancelling.
    let polling = session(&host, &agent(), r#"["async_operations"]"#);
    let started_op = started(&host, &polling, OTHER_ID, 1, &agent());
    let refused = cancel(&host, &polling, OTHER_ID, &started_op, &agent());
    assert_eq!(refused.error_code(), Some(Code::UnsupportedCapability));
    assert!(!refused.error().unwrap().retryable());
    f.gate.open(1);
    settle(&host, &agent(), &started_op);
    let missing = host.call(
        &V2Request::common("get_operation", &polling, OTHER_ID, LATER),
        &agent(),
    );
    assert_eq!(missing.error_code(), Some(Code::InvalidRequest));
}

#[test]
fn a_retried_call_gets_the_same_operation() {
    let f = fixture();
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    let token = session(&host, &agent(), BOTH);
    let op = started(&host, &token, ID, 1, &agent());
    f.gate.until_waiting_after(0);
    assert_eq!(started(&host, &token, ID, 1, &agent()), op);
    f.gate.open(1);
    settle(&host, &agent(), &op);
    assert_eq!(f.gate.runs(), 1, "one run for one request id");
}

#[test]
fn an_operation_holds_its_callers_slot_as_a_call_does() {
    let f = fixture_with(
        CetpV2::new().inline_window(Duration::ZERO),
        crate::Limits {
            max_calls_in_flight_per_caller: 1,
            ..crate::Limits::default()
        },
    );
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    let token = session(&host, &agent(), BOTH);
    let op = started(&host, &token, ID, 1, &agent());
    f.gate.until_waiting_after(0);
    let busy = host.call(
        &V2Request::execute("hello", "{}", &token, OTHER_ID, LATER),
        &agent(),
    );
    assert_eq!(busy.error_code(), Some(Code::RateLimited));
    f.gate.open(1);
    settle(&host, &agent(), &op);
    let free = host.call(
        &V2Request::execute("hello", "{}", &token, OTHER_ID, LATER),
        &agent(),
    );
    assert!(free.is_success(), "the slot came back: {free:?}");
}

#[test]
fn operations_are_bounded_per_caller_and_in_total() {
    let f = fixture_with(
        CetpV2::new()
            .inline_window(Duration::ZERO)
            .operations_per_caller(2)
            .operations_in_all(3),
        crate::Limits::default(),
    );
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    let token = session(&host, &agent(), BOTH);
    let ids: Vec<String> = (0..4)
        .map(|n| format!("3f2b9c1e-0000-4000-8000-{n:012}"))
        .collect();
    let first = started(&host, &token, &ids[0], 1, &agent());
    let _second = started(&host, &token, &ids[1], 1, &agent());
    let third = crawl_call(&host, &token, &ids[2], 1, &agent());
    assert_eq!(third.error_code(), Some(Code::RateLimited));

    // Another caller has its own share, up to the total.
    let theirs = session(&host, &intruder(), BOTH);
    let _own = started(&host, &theirs, &ids[0], 1, &intruder());
    let over = crawl_call(&host, &theirs, &ids[1], 1, &intruder());
    assert_eq!(over.error_code(), Some(Code::Unavailable));
    assert!(over.error().unwrap().retryable());

    // A finished operation whose outcome was read gives way to a new one.
    f.gate.open(10);
    settle(&host, &agent(), &first);
    let unread = crawl_call(&host, &token, &ids[2], 0, &agent());
    assert_eq!(unread.error_code(), Some(Code::RateLimited), "not read yet");
    assert_eq!(
        get(&host, &token, &ids[0], &first, &agent())
            .data_json()
            .unwrap()["state"],
        "succeeded"
    );
    let next = crawl_call(&host, &token, &ids[3], 1, &agent());
    assert!(next.error_code().is_none(), "{next:?}");
    assert_eq!(
        get(&host, &token, &ids[0], &first, &agent()).error_code(),
        Some(Code::ResultExpired),
        "the read one went"
    );
}

#[test]
fn a_finished_operation_is_kept_for_its_retention_then_forgotten() {
    let f = fixture();
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    let token = session(&host, &agent(), BOTH);
    let op = started(&host, &token, ID, 1, &agent());
    f.gate.open(1);
    settle(&host, &agent(), &op);
    f.clock
        .advance(Duration::from_secs(86_400) - Duration::from_millis(1));
    let token = session(&host, &agent(), BOTH);
    assert_eq!(
        get(&host, &token, ID, &op, &agent()).data_json().unwrap()["state"],
        "succeeded"
    );
    f.clock.advance(Duration::from_millis(1));
    let gone = get(&host, &token, ID, &op, &agent());
    assert_eq!(gone.error_code(), Some(Code::ResultExpired));
    assert_eq!(host.operations.as_ref().unwrap().held(), 0);
}

/// The agent's process dies while its operation runs: the tool runs on, and the agent, started
/// again under the same UID, reads the outcome in a new session. When the provider's process
/// dies instead, the operation goes with it: renegotiate, then `RESULT_EXPIRED`.
#[test]
fn an_operation_outlives_its_callers_process_but_not_the_providers() {
    let f = fixture();
    let host = CetpV2Host::new(Arc::clone(&f.provider));
    let first_life = session(&host, &agent(), BOTH);
    let op = started(&host, &first_life, ID, 2, &agent());
    f.gate.until_waiting_after(0);
    drop(first_life); // The agent's process is gone, its session with it.
    f.gate.open(2);
    settle(&host, &agent(), &op);
    let second_life = session(&host, &agent(), BOTH);
    assert_eq!(
        get(&host, &second_life, ID, &op, &agent())
            .data_json()
            .unwrap(),
        json!({"operation_id": op, "state": "succeeded", "result": {"kind": "inline", "value": 2}})
    );

    let restarted = CetpV2Host::new(Arc::clone(&f.provider));
    let stale = get(&restarted, &second_life, ID, &op, &agent());
    assert_eq!(stale.error_code(), Some(Code::NegotiationRequired));
    let fresh = session(&restarted, &agent(), BOTH);
    let lost = get(&restarted, &fresh, ID, &op, &agent());
    assert_eq!(lost.error_code(), Some(Code::ResultExpired));
}

#[test]
fn v1_calls_a_long_running_tool_synchronously_under_its_deadline() {
    let f = fixture();
    let v1 = crate::host::CetpV1Host::new(Arc::clone(&f.provider));
    let request = crate::host::Request {
        method: "execute_tool",
        tool_name: Some("crawl"),
        args: Some(r#"{"steps":0}"#),
        request_id: None,
    };
    let reply = v1.call(&request, &agent());
    assert_eq!(reply.data(), Some("0"));
}
