//! `cargo xtask test --stress[=ROUNDS]`: the Rust suites on a machine made busy on purpose, to
//! catch what a quiet machine hides: a test that fails because it is slow, or because another
//! test of the same binary runs beside it.
//!
//! The test binaries are built first, on a quiet machine. Then, for each round (three unless
//! told), one CPU hog per core spins inside this process while `cargo test --workspace` (and the
//! bridge's own suite, `-p cetp-provider --features jni`) runs every test binary with four test
//! threads per core. A round passes only when every suite passes; the first failure stops the
//! run and names its round. Each round's wall time is printed, for the record, never judged.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Instant;

use crate::util;

/// The option, with `=ROUNDS` after it.
pub const STRESS: &str = "--stress";
/// Rounds when none are given: a flaky test rarely passes three busy rounds in a row.
const DEFAULT_ROUNDS: u32 = 3;
/// Test threads per core: more tests at once than the machine can run.
const THREADS_PER_CORE: usize = 4;

/// The `cargo test` runs of one round (each without `--no-run`).
fn suites() -> [Vec<&'static str>; 2] {
    [
        vec!["test", "--workspace"],
        vec!["test", "-p", "cetp-provider", "--features", "jni"],
    ]
}

/// Parses `--stress` or `--stress=ROUNDS`; `None` when `arg` is another option.
pub fn rounds(arg: &str) -> Option<Result<u32, String>> {
    let rest = arg.strip_prefix(STRESS)?;
    if rest.is_empty() {
        return Some(Ok(DEFAULT_ROUNDS));
    }
    let value = rest.strip_prefix('=')?;
    Some(match value.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "{STRESS}= takes a number of rounds, 1 or more (got `{value}`)"
        )),
    })
}

/// Spinning threads, one per core, until dropped.
struct Hogs {
    stop: Arc<AtomicBool>,
    threads: Vec<thread::JoinHandle<()>>,
}

impl Hogs {
    fn start(count: usize) -> Hogs {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..count)
            .map(|_| {
                let stop = Arc::clone(&stop);
                thread::spawn(move || {
                    let mut x: u64 = 1;
                    while !stop.load(Ordering::Relaxed) {
                        // Work the optimizer cannot drop.
                        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005) ^ 1);
                    }
                })
            })
            .collect();
        Hogs { stop, threads }
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for hog in self.threads.drain(..) {
            let _ = hog.join();
        }
    }
}

pub fn run(rounds: u32) -> Result<(), String> {
    let cores = thread::available_parallelism().map_or(2, |n| n.get());
    let threads = cores * THREADS_PER_CORE;
    eprintln!("\n== building the test binaries (quiet machine)");
    for suite in suites() {
        util::run(util::cargo().args(&suite).arg("--no-run"))?;
    }
    let started = Instant::now();
    for round in 1..=rounds {
        eprintln!(
            "\n== stress round {round} of {rounds}: {cores} CPU hogs, {threads} test threads per binary"
        );
        let round_started = Instant::now();
        let hogs = Hogs::start(cores);
        for suite in suites() {
            util::run(
                util::cargo()
                    .args(&suite)
                    .env("RUST_TEST_THREADS", threads.to_string()),
            )
            .map_err(|e| format!("stress round {round} of {rounds}: {e}"))?;
        }
        drop(hogs);
        eprintln!(
            "xtask: stress round {round} passed in {:.0} s",
            round_started.elapsed().as_secs_f64()
        );
    }
    eprintln!(
        "\n== {rounds} stress rounds passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_takes_a_positive_number_of_rounds() {
        assert_eq!(rounds("--stress"), Some(Ok(DEFAULT_ROUNDS)));
        assert_eq!(rounds("--stress=5"), Some(Ok(5)));
        assert!(matches!(rounds("--stress=0"), Some(Err(_))));
        assert!(matches!(rounds("--stress=x"), Some(Err(_))));
        assert_eq!(rounds("--stressed"), None);
        assert_eq!(rounds("--random-order"), None);
    }
}
