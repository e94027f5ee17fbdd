//! What one CETP call costs inside the provider, side by side with calling the same Rust
//! function directly: the price of the envelope, schema validation, (de)serialization and panic
//! isolation. Run with `cargo bench -p cetp-provider --bench dispatch`; results are recorded in
//! `docs/benchmarks.md`.
//!
//! For instruction counts, `CETP_CALLS=<v1|v2|none>:<n>` makes the binary skip criterion and
//! make `n` validated calls over that host (or none, to subtract what building costs), for
//! `valgrind --tool=callgrind` (see `docs/benchmarks.md`).

use std::hint::black_box;

use cetp_provider::auth::Auth;
use cetp_provider::host::cetp_v2::{CetpV2Host, V2Request};
use cetp_provider::host::{CetpV1Host, Request};
use cetp_provider::{Caller, Provider, tool, tools};
use criterion::{Criterion, criterion_group};
use serde::Serialize;

/// One search hit.
#[derive(Serialize)]
pub struct Hit {
    id: u32,
    title: String,
}

/// Searches titles.
#[tool]
fn search(
    /// Words to look for.
    #[schemars(length(min = 1, max = 200))]
    query: String,
    /// How many hits.
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u32>,
) -> Vec<Hit> {
    (1..=limit.unwrap_or(5))
        .map(|id| Hit {
            id,
            title: format!("{query} {id}"),
        })
        .collect()
}

/// A note as a listing shows it.
#[derive(Serialize)]
pub struct Summary {
    id: i64,
    title: String,
    created: String,
    tags: Vec<String>,
}

/// The notes of a period with their total, like the notes sample's `notes_between`.
#[derive(Serialize)]
pub struct Listing {
    total: u64,
    notes: Vec<Summary>,
}

/// Lists notes written in a date range.
#[tool]
fn listing(
    /// First day, `YYYY-MM-DD`.
    #[schemars(length(min = 10, max = 10))]
    from: String,
    /// Last day, `YYYY-MM-DD`.
    #[schemars(length(min = 10, max = 10))]
    to: String,
    /// How many notes, 1 to 200.
    #[schemars(range(min = 1, max = 200))]
    limit: Option<u32>,
) -> Listing {
    let limit = limit.unwrap_or(50);
    Listing {
        total: 160,
        notes: (1..=i64::from(limit))
            .map(|id| Summary {
                id,
                title: format!("Note {id} from {from} to {to}: groceries, café and 抹茶"),
                created: format!(
                    "2023-{:02}-{:02}T10:{:02}:00",
                    id % 12 + 1,
                    id % 28 + 1,
                    id % 60
                ),
                tags: vec!["travel".to_owned(), "weekend".to_owned()],
            })
            .collect(),
    }
}

fn dispatch(c: &mut Criterion) {
    let provider = Provider::builder("Bench")
        .tools(tools![search, listing])
        .auth(Auth::open())
        .build()
        .unwrap();
    let host = CetpV1Host::new(&provider);
    let caller = Caller::app(10_001, "com.example.agent");
    let valid = Request::execute("search", r#"{"query":"milk","limit":5}"#)
        .with_request_id("3f2b9c1e-0000-4000-8000-000000000001");
    let invalid = Request::execute("search", r#"{"query":"","limit":500}"#);

    let hundred = Request::execute(
        "listing",
        r#"{"from":"2023-01-01","to":"2023-12-31","limit":100}"#,
    );

    let mut group = c.benchmark_group("call");
    group.bench_function("direct function call + serde_json::to_string", |b| {
        b.iter(|| serde_json::to_string(&search(black_box("milk".to_owned()), Some(5))).unwrap())
    });
    group.bench_function("execute_tool (validated, 5 hits)", |b| {
        b.iter(|| host.call(black_box(&valid), &caller))
    });
    group.bench_function("execute_tool rejected (INVALID_ARGS)", |b| {
        b.iter(|| host.call(black_box(&invalid), &caller))
    });
    group.bench_function(
        "direct function call + serde_json::to_string, 100 rows",
        |b| {
            b.iter(|| {
                serde_json::to_string(&listing(
                    black_box("2023-01-01".to_owned()),
                    "2023-12-31".to_owned(),
                    Some(100),
                ))
                .unwrap()
            })
        },
    );
    group.bench_function("execute_tool (validated, 100 rows)", |b| {
        b.iter(|| host.call(black_box(&hundred), &caller))
    });
    group.bench_function("list_tools (cached)", |b| {
        b.iter(|| host.call(black_box(&Request::list_tools()), &caller))
    });

    // The same call over CETP v2: the common fields, the session token's MAC, the envelope.
    let v2 = CetpV2Host::new(&provider);
    let negotiated = v2.call(&V2Request::negotiate(&[2, 1], "[]"), &caller);
    let token = negotiated.data_json().unwrap()["session_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let v2_valid = V2Request::execute(
        "search",
        r#"{"query":"milk","limit":5}"#,
        &token,
        "3f2b9c1e-0000-4000-8000-000000000001",
        u64::MAX / 2,
    );
    group.bench_function("CETP v2 execute_tool (validated, 5 hits)", |b| {
        b.iter(|| v2.call(black_box(&v2_valid), &caller).to_entries().len())
    });
    group.finish();
}

/// `CETP_CALLS=<v1|v2|none>:<n>`: `n` validated `search` calls over that host, nothing else.
fn counted_calls(spec: &str) {
    let (host, n) = spec.split_once(':').expect("CETP_CALLS=<v1|v2|none>:<n>");
    let n: u32 = n.parse().expect("a count");
    let provider = Provider::builder("Bench")
        .tools(tools![search, listing])
        .auth(Auth::open())
        .build()
        .unwrap();
    let caller = Caller::app(10_001, "com.example.agent");
    let id = "3f2b9c1e-0000-4000-8000-000000000001";
    let args = r#"{"query":"milk","limit":5}"#;
    let v1 = CetpV1Host::new(&provider);
    let v2 = CetpV2Host::new(&provider);
    let negotiated = v2.call(&V2Request::negotiate(&[2, 1], "[]"), &caller);
    let token = negotiated.data_json().unwrap()["session_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let v1_call = Request::execute("search", args).with_request_id(id);
    let v2_call = V2Request::execute("search", args, &token, id, u64::MAX / 2);
    for _ in 0..n {
        match host {
            "v1" => assert!(v1.call(black_box(&v1_call), &caller).is_success()),
            "v2" => assert!(v2.call(black_box(&v2_call), &caller).is_success()),
            _ => {}
        }
    }
}

/// A text of `n` characters.
#[tool]
fn text(
    /// How many characters.
    n: u32,
) -> String {
    "x".repeat(n as usize)
}

/// A large result against an inline one, on the provider's side: the tool, the core and the
/// v2 host; for the descriptor also the file's write, its SHA-256, and the read-only open and
/// unlink the template makes (`ResultFile::open_once`). Binder and JNI are not in it (the inline
/// reply's text crosses JNI as UTF-16 and Binder once more; the descriptor's bytes never do).
fn results(c: &mut Criterion) {
    let provider = Provider::builder("Bench")
        .tools(tools![text])
        .auth(Auth::open())
        .build()
        .unwrap();
    let caller = Caller::app(10_001, "com.example.agent");
    let v2 = CetpV2Host::new(&provider);
    let negotiated = v2.call(
        &V2Request::negotiate(&[2, 1], r#"["large_results"]"#),
        &caller,
    );
    let token = negotiated.data_json().unwrap()["session_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let id = "3f2b9c1e-0000-4000-8000-000000000001";
    // The envelope `{"kind":"inline","value":"…"}` at exactly 256 KiB.
    let inline_chars = 262_144 - r#"{"kind":"inline","value":""}"#.len();
    let inline_args = format!(r#"{{"n":{inline_chars}}}"#);
    let inline = V2Request::execute("text", &inline_args, &token, id, u64::MAX / 2);
    // A result whose JSON text is exactly 1 MiB.
    let large_args = format!(r#"{{"n":{}}}"#, 1024 * 1024 - 2);
    let large = V2Request::execute("text", &large_args, &token, id, u64::MAX / 2);
    assert!(v2.call(&inline, &caller).result_file().is_none());
    assert!(v2.call(&large, &caller).result_file().is_some());

    let mut group = c.benchmark_group("result");
    group.throughput(criterion::Throughput::Bytes(262_144));
    group.bench_function("CETP v2 result inline, 256 KiB", |b| {
        b.iter(|| v2.call(black_box(&inline), &caller).to_entries().len())
    });
    group.throughput(criterion::Throughput::Bytes(1024 * 1024));
    group.bench_function("CETP v2 large result by descriptor, 1 MiB", |b| {
        b.iter(|| {
            let reply = v2.call(black_box(&large), &caller);
            let entries = reply.to_entries().len();
            let file = reply.result_file().unwrap().open_once().unwrap().unwrap();
            drop(file);
            entries
        })
    });
    group.finish();
}

criterion_group!(benches, dispatch, results);

fn main() {
    match std::env::var("CETP_CALLS") {
        Ok(spec) => counted_calls(&spec),
        Err(_) => {
            benches();
            Criterion::default().configure_from_args().final_summary();
        }
    }
}
