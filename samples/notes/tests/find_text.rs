//! `find_text`, the notes sample's long-running tool: synchronous on CETP v1, an operation with
//! progress and cancellation on CETP v2.

use std::path::PathBuf;
use std::sync::{Arc, LazyLock, Mutex, OnceLock, Weak};
use std::time::Duration;

use cetp_provider::host::cetp_v2::{CetpV2Host, Code, V2Reply, V2Request};
use cetp_provider::host::{CallSignals, CetpV2, ToolCall};
use cetp_provider::testing::Agent;
use cetp_provider::{AccessLevel, ErrorCode, Provider, ToolError};
use cetp_sample_notes::queries::SCAN_BATCH;
use cetp_sample_notes::{demo, provider_over};
use serde_json::json;
use tempfile::TempDir;

static DATABASE: LazyLock<PathBuf> = LazyLock::new(|| {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cetp-sample-notes-find.db");
    demo::create(&path).expect("the demo database is written");
    path
});

const ID: &str = "6b1d3c2a-0000-4000-8000-00000000f1e7";
const FAR: u64 = u64::MAX / 2;
const BOTH: &str = r#"["async_operations","cancellation"]"#;

struct App {
    provider: Arc<Provider>,
    _files_dir: TempDir,
}

/// The notes provider with the default agent approved for notes with full access.
fn approved(settings: CetpV2) -> App {
    let files_dir = tempfile::tempdir().unwrap();
    let provider = provider_over(DATABASE.clone())
        .app(cetp_provider::App::new(
            "dev.cetp.samples.notes",
            files_dir.path(),
        ))
        .host(settings)
        .build()
        .unwrap();
    let agent = Agent::new(&provider);
    assert_eq!(
        agent.execute("get_note", r#"{"id":1}"#).error_code(),
        Some(ErrorCode::AuthRequired)
    );
    agent.approve_pending(AccessLevel::Full).unwrap();
    App {
        provider: Arc::new(provider),
        _files_dir: files_dir,
    }
}

fn session(host: &CetpV2Host, agent: &Agent<'_>, capabilities: &str) -> String {
    let reply = host.call(&V2Request::negotiate(&[2, 1], capabilities), agent.caller());
    reply.data_json().unwrap()["session_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn find(host: &CetpV2Host, token: &str, agent: &Agent<'_>, args: &str) -> V2Reply {
    host.call(
        &V2Request::execute("find_text", args, token, ID, FAR),
        agent.caller(),
    )
}

#[test]
fn v1_calls_find_text_synchronously_and_it_reads_every_note() {
    let app = approved(CetpV2::new());
    let agent = Agent::new(&app.provider);
    let found = agent
        .execute("find_text", r#"{"text":"a","limit":50}"#)
        .data_json()
        .unwrap();
    let total = found["total"].as_u64().unwrap();
    assert_eq!(total, demo::NOTE_COUNT as u64);
    assert_eq!(found["notes"].as_array().unwrap().len(), 50);
    let nothing = agent
        .execute("find_text", r#"{"text":"zzqqxx-no-such-text"}"#)
        .data_json()
        .unwrap();
    assert_eq!(nothing["read"], total, "it read every note");
    assert_eq!(nothing["notes"], json!([]));
}

#[test]
fn v2_offers_operations_and_lists_find_text_as_sync_or_async() {
    let app = approved(CetpV2::new());
    let host = CetpV2Host::new(Arc::clone(&app.provider));
    let agent = Agent::new(&app.provider);
    assert_eq!(
        host.offered_capabilities(),
        ["async_operations", "cancellation", "large_results"]
    );
    let token = session(&host, &agent, BOTH);
    let list = host.call(
        &V2Request::common("list_tools", &token, ID, FAR),
        agent.caller(),
    );
    let tools = list.data_json().unwrap()["tools"].clone();
    for tool in tools.as_array().unwrap() {
        let expected = if tool["name"] == "find_text" {
            "sync_or_async"
        } else {
            "sync"
        };
        assert_eq!(
            tool["annotations"]["execution"], expected,
            "{}",
            tool["name"]
        );
    }
}

#[test]
fn find_text_passes_the_kits_operation_checks() {
    for window in [Duration::ZERO, Duration::from_secs(3600)] {
        let app = approved(CetpV2::new().inline_window(window));
        let agent = Agent::new(&app.provider);
        agent
            .check_v2_operations(&app.provider, "find_text", r#"{"text":"basil","limit":2}"#)
            .unwrap();
    }
}

#[test]
fn v2_find_text_within_the_inline_window_answers_in_its_reply() {
    let app = approved(CetpV2::new().inline_window(Duration::from_secs(3600)));
    let host = CetpV2Host::new(Arc::clone(&app.provider));
    let agent = Agent::new(&app.provider);
    let token = session(&host, &agent, BOTH);
    let reply = find(&host, &token, &agent, r#"{"text":"zzqqxx"}"#);
    assert!(reply.is_success(), "{reply:?}");
    let data = reply.data_json().unwrap();
    assert_eq!(data["kind"], "inline");
    assert_eq!(data["value"]["notes"], json!([]));
}

/// With no inline window the search goes on as an operation (unless it had already finished):
/// polled to its end, it gives the same result as the synchronous call.
#[test]
fn v2_find_text_as_an_operation_ends_with_its_result() {
    let app = approved(CetpV2::new().inline_window(Duration::ZERO));
    let host = CetpV2Host::new(Arc::clone(&app.provider));
    let agent = Agent::new(&app.provider);
    let token = session(&host, &agent, BOTH);
    let reply = find(&host, &token, &agent, r#"{"text":"a","limit":3}"#);
    let value = if reply.is_accepted() {
        let op = reply.data_json().unwrap()["operation_id"]
            .as_str()
            .unwrap()
            .to_owned();
        loop {
            let state = host
                .call(
                    &V2Request::operation("get_operation", &op, &token, ID, FAR),
                    agent.caller(),
                )
                .data_json()
                .unwrap();
            match state["state"].as_str().unwrap() {
                "queued" | "running" => std::thread::yield_now(),
                "succeeded" => break state["result"]["value"].clone(),
                other => panic!("{other}: {state}"),
            }
        }
    } else {
        reply.data_json().unwrap()["value"].clone()
    };
    let sync = Agent::new(&app.provider)
        .execute("find_text", r#"{"text":"a","limit":3}"#)
        .data_json()
        .unwrap();
    assert_eq!(value, sync);
    // Another app learns nothing of it.
    let other = Agent::new(&app.provider)
        .as_caller(cetp_provider::Caller::app(10_777, "com.example.other"));
    let theirs = session(&host, &other, BOTH);
    let guessed = host.call(
        &V2Request::operation("get_operation", "op_0", &theirs, ID, FAR),
        other.caller(),
    );
    assert_eq!(guessed.error_code(), Some(Code::ResultExpired));
}

/// A progress report: how far, of how much.
type Seen = (u64, Option<u64>);

/// The agent cancels once the first batch was read: the next batch never starts (the SQLite
/// progress handler looks at the same deadline), and the call ends cancelled.
#[test]
fn a_cancelled_find_text_stops_after_the_batch_it_was_reading() {
    let app = approved(CetpV2::new());
    let agent = Agent::new(&app.provider);
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let me: Arc<OnceLock<Weak<CallSignals>>> = Arc::default();
    let signals = {
        let (seen, me) = (Arc::clone(&seen), Arc::clone(&me));
        Arc::new(CallSignals::observed(move |progress| {
            seen.lock()
                .unwrap()
                .push((progress.current, progress.total));
            if progress.current > 0
                && let Some(signals) = me.get().and_then(Weak::upgrade)
            {
                signals.cancel();
            }
        }))
    };
    me.set(Arc::downgrade(&signals)).unwrap();
    let call = ToolCall::new(Ok(app.provider.tool("find_text").unwrap()))
        .args(r#"{"text":"zzqqxx"}"#)
        .signals(&signals);
    let admitted = app.provider.admit(call, agent.caller()).unwrap();
    let outcome = app
        .provider
        .finish(admitted, agent.caller(), Some(&signals));
    assert_eq!(outcome.unwrap_err(), ToolError::cancelled());
    let total = demo::NOTE_COUNT as u64;
    assert_eq!(
        *seen.lock().unwrap(),
        [(0, Some(total)), (u64::from(SCAN_BATCH), Some(total))],
        "one batch read, then stopped"
    );
}
