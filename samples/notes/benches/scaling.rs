//! How calls scale with threads: T threads call one provider in a loop, and the table gives the
//! total throughput against one thread's, for T = 1, 2, 4, 8, 16 (up to the machine's cores).
//! Each thread calls as an approved agent of its own (its own UID, full access) unless the case
//! says otherwise, over the real notes sample and its demo database (plus a trivial tool under
//! the open policy: the SDK's own path and nothing else).
//!
//! `cargo bench -p cetp-sample-notes --bench scaling` measures (each cell the median of three
//! runs of one second); `cargo xtask bench` runs it and writes the table into
//! `docs/benchmarks.md`. Started any other way (`cargo test --bench scaling`, as `cargo xtask
//! test` does) it makes a few calls per case and thread count and checks every answer: the
//! benchmark itself cannot rot, and nothing is timed. Options after `--`: `--markdown PATH`
//! writes the table there; `--seconds S` sets the length of one run.

use std::path::{Path, PathBuf};
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cetp_provider::auth::Auth;
use cetp_provider::testing::Agent;
use cetp_provider::{AccessLevel, Caller, ErrorCode, Provider, Response, tool, tools};
use cetp_sample_notes::{demo, provider_over};

/// Adds two numbers: the least a tool can do.
#[tool]
fn add(
    /// The first term.
    a: i64,
    /// The second term.
    b: i64,
) -> i64 {
    a.wrapping_add(b)
}

const THREADS: [usize; 5] = [1, 2, 4, 8, 16];

/// What a case's calls must answer.
#[derive(Clone, Copy)]
enum Expect {
    Success,
    Error(ErrorCode),
    /// All threads are one agent: success, or `RATE_LIMITED` past its calls in flight.
    SuccessOrRateLimited,
}

struct Case {
    name: &'static str,
    provider: &'static str,
    tool: &'static str,
    args: &'static str,
    expect: Expect,
    one_agent: bool,
}

const CASES: [Case; 5] = [
    Case {
        name: "SDK path only (a trivial tool, open policy)",
        provider: "open",
        tool: "add",
        args: r#"{"a":20,"b":22}"#,
        expect: Expect::Success,
        one_agent: false,
    },
    Case {
        name: "rejected call (notes `notes_between`, `from` after `to`)",
        provider: "notes",
        tool: "notes_between",
        args: r#"{"from":"2023-06-01","to":"2023-01-01"}"#,
        expect: Expect::Error(ErrorCode::InvalidArgs),
        one_agent: false,
    },
    Case {
        name: "notes `get_note`",
        provider: "notes",
        tool: "get_note",
        args: r#"{"id":16}"#,
        expect: Expect::Success,
        one_agent: false,
    },
    Case {
        name: "notes `notes_between`, 100 rows",
        provider: "notes",
        tool: "notes_between",
        args: r#"{"from":"2023-01-01","to":"2023-12-31","limit":100}"#,
        expect: Expect::Success,
        one_agent: false,
    },
    Case {
        name: "notes `get_note`, all threads one agent",
        provider: "notes",
        tool: "get_note",
        args: r#"{"id":16}"#,
        expect: Expect::SuccessOrRateLimited,
        one_agent: true,
    },
];

/// The calls one run made: answered as asked, and refused with `RATE_LIMITED`.
#[derive(Default, Clone, Copy)]
struct Counts {
    answered: u64,
    refused: u64,
}

enum Stop<'a> {
    /// Until the flag is set (measuring).
    Flag(&'a AtomicBool),
    /// After this many calls per thread (checking only).
    Calls(u64),
}

fn agent(i: usize) -> Caller {
    Caller::app(10_100 + i as u32, format!("com.example.agent{i}"))
        .with_certificate(Agent::CERTIFICATE_SHA256)
}

fn check(case: &Case, answer: &Response, counts: &mut Counts) {
    match (case.expect, answer.error_code()) {
        (Expect::Success | Expect::SuccessOrRateLimited, None) => counts.answered += 1,
        (Expect::Error(want), Some(got)) if want == got => counts.answered += 1,
        (Expect::SuccessOrRateLimited, Some(ErrorCode::RateLimited)) => counts.refused += 1,
        _ => panic!("{}: unexpected answer {answer}", case.name),
    }
}

/// One run of `case` on `threads` threads; the calls made and how long they took.
fn run(case: &Case, provider: &Provider, threads: usize, stop: Stop<'_>) -> (Counts, Duration) {
    let start = Barrier::new(threads + 1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let calling_agent =
                    Agent::new(provider).as_caller(agent(if case.one_agent { 0 } else { t }));
                let (start, stop) = (&start, &stop);
                scope.spawn(move || {
                    let mut counts = Counts::default();
                    start.wait();
                    loop {
                        match stop {
                            Stop::Flag(f) if f.load(Ordering::Relaxed) => break,
                            Stop::Calls(n) if counts.answered + counts.refused >= *n => break,
                            _ => {}
                        }
                        for _ in 0..16 {
                            let answer = calling_agent.execute(case.tool, case.args);
                            check(case, &answer, &mut counts);
                        }
                    }
                    counts
                })
            })
            .collect();
        start.wait();
        let began = Instant::now();
        let mut total = Counts::default();
        for worker in workers {
            let counts = worker.join().expect("a benchmark thread panicked");
            total.answered += counts.answered;
            total.refused += counts.refused;
        }
        (total, began.elapsed())
    })
}

/// A run that stops after `seconds`.
fn timed(case: &Case, provider: &Provider, threads: usize, seconds: f64) -> (f64, f64) {
    let flag = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let measuring = scope.spawn(|| run(case, provider, threads, Stop::Flag(&flag)));
        std::thread::sleep(Duration::from_secs_f64(seconds));
        flag.store(true, Ordering::Relaxed);
        let (counts, took) = measuring.join().expect("the run finished");
        let secs = took.as_secs_f64();
        let all = (counts.answered + counts.refused) as f64;
        (
            counts.answered as f64 / secs,
            if all > 0.0 {
                counts.refused as f64 / all
            } else {
                0.0
            },
        )
    })
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

struct Providers {
    open: Provider,
    notes: Provider,
    _files: tempfile::TempDir,
}

impl Providers {
    fn start(db: &Path, agents: usize) -> Providers {
        let open = Provider::builder("Bench")
            .auth(Auth::open())
            .tools(tools![add])
            .build()
            .expect("the open provider builds");
        let files = tempfile::tempdir().expect("a temporary files dir");
        let notes = provider_over(db.to_owned())
            .app(cetp_provider::App::new(
                "dev.cetp.samples.notes",
                files.path(),
            ))
            .build()
            .expect("the notes provider builds");
        for i in 0..agents {
            Agent::new(&notes)
                .as_caller(agent(i))
                .approve(AccessLevel::Full)
                .expect("the agent is approved");
        }
        Providers {
            open,
            notes,
            _files: files,
        }
    }

    fn get(&self, name: &str) -> &Provider {
        if name == "open" {
            &self.open
        } else {
            &self.notes
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut measure = false;
    let mut markdown: Option<PathBuf> = None;
    let mut seconds = 1.0;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bench" => measure = true,
            "--markdown" => markdown = args.next().map(PathBuf::from),
            "--seconds" => {
                seconds = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("--seconds takes a number")
            }
            // What the test harness passes (filters, --nocapture, …) is ignored.
            _ => {}
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Checking runs one and two threads wherever it runs; measuring, up to the cores.
    let most = if measure { cores } else { 2 };
    let threads: Vec<usize> = THREADS.into_iter().filter(|t| *t <= most.max(1)).collect();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("notes.db");
    demo::create(&db).expect("the demo database is written");
    let providers = Providers::start(&db, *threads.last().unwrap_or(&1));

    if !measure {
        for case in &CASES {
            for &t in &threads {
                let (counts, _) = run(case, providers.get(case.provider), t, Stop::Calls(32));
                assert!(counts.answered > 0, "{}: no call answered", case.name);
            }
        }
        println!(
            "scaling: every case answered as expected on {threads:?} threads (not measured; `cargo bench` measures)"
        );
        return;
    }

    let mut table = format!(
        "Throughput of T threads against one thread's, {cores} cores, each cell the median of three {seconds} s runs.\n\n| case | 1 thread |"
    );
    for t in &threads[1..] {
        table.push_str(&format!(" {t} |"));
    }
    table.push_str("\n|---|---|");
    for _ in &threads[1..] {
        table.push_str("---|");
    }
    table.push('\n');
    for case in &CASES {
        let provider = providers.get(case.provider);
        // Warm up: the pool's connections opened, the caches filled.
        run(case, provider, threads[threads.len() - 1], Stop::Calls(64));
        let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new(); threads.len()];
        for _ in 0..3 {
            for (i, &t) in threads.iter().enumerate() {
                runs[i].push(timed(case, provider, t, seconds));
            }
        }
        let rates: Vec<f64> = runs
            .iter()
            .map(|r| median(r.iter().map(|(rate, _)| *rate).collect()))
            .collect();
        let refused: Vec<f64> = runs
            .iter()
            .map(|r| median(r.iter().map(|(_, share)| *share).collect()))
            .collect();
        let one = rates[0];
        let per_second = if one >= 10_000.0 {
            format!("{:.0} k/s", one / 1000.0)
        } else {
            format!("{:.2} k/s", one / 1000.0)
        };
        table.push_str(&format!("| {} | {per_second} |", case.name));
        for (i, rate) in rates.iter().enumerate().skip(1) {
            table.push_str(&format!(" {:.2}×", rate / one));
            if refused[i] > 0.0 {
                table.push_str(&format!(
                    " ({:.0} % refused `RATE_LIMITED`)",
                    refused[i] * 100.0
                ));
            }
            table.push_str(" |");
        }
        table.push('\n');
        eprintln!("scaling: {}", case.name);
    }
    println!("{table}");
    if let Some(path) = markdown {
        std::fs::write(&path, &table)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
}
