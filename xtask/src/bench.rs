//! `cargo xtask bench [--quick]`: what a call costs, measured side by side, written to
//! `docs/benchmarks.md` (between the `bench:begin` / `bench:end` markers; the text around them is
//! kept).
//!
//! 1. a release host bundle of `samples/notes` (`target/cetp-host-release/notes`) and the demo
//!    database written by the sample's `notes-demo-db` (so the cold start does not create it);
//! 2. one JVM (Maven module `tests/android/bench`, Robolectric): the notes sample against a
//!    hand-written provider on the same SQLite file, interleaved rounds, median and spread,
//!    PackageManager queries per call, RSS and Java heap growth, the cold start;
//! 3. the Rust half alone: the criterion benchmark `cetp-provider/benches/dispatch.rs`;
//! 4. how throughput scales with threads: `samples/notes/benches/scaling.rs` (one agent per
//!    thread, up to 16 threads or the machine's cores; no JVM);
//! 5. the size of each sample's release `cdylib`, stripped, for x86_64 Linux and for
//!    `aarch64-linux-android` (linked here without the NDK, see `bench/sizes.rs`), and where the
//!    bytes of two of them go.
//!
//! `--quick` runs 3 rounds and 10⁴ memory calls instead of 15 and 10⁵ (for trying changes;
//! the committed figures come from a full run). `--sizes` runs step 5 alone and rewrites only
//! its part of the generated section ("Release libraries").
//!
//! The tools the Android size figures need (Debian's aarch64 cross compiler and C library
//! headers) are checked before anything is built.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::host_build;
use crate::util::{self, cargo_target_dir, workspace_root};

mod sizes;

const BEGIN: &str = "<!-- bench:begin (written by `cargo xtask bench`; edit around it) -->";
const END: &str = "<!-- bench:end -->";
/// The heading of the size figures in the generated section (what `--sizes` rewrites).
const SIZES_HEADING: &str = "### Release libraries";

pub fn run(args: &[String]) -> Result<(), String> {
    let mut quick = false;
    let mut only_sizes = false;
    for arg in args {
        match arg.as_str() {
            "--quick" => quick = true,
            "--sizes" => only_sizes = true,
            other => return Err(format!("bench: unknown argument `{other}`")),
        }
    }
    sizes::cross_gcc()?;
    let root = workspace_root();
    if only_sizes {
        if quick {
            return Err("bench: --sizes builds each library once; --quick does not apply".into());
        }
        return sizes_only(&root);
    }
    let work = root.join("target").join("cetp-bench");
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;

    step("release host bundle of samples/notes");
    let bundle = host_build::build(&host_build::resolve_dir("samples/notes")?, true)?;
    let db = work.join("notes.db");
    util::run(
        util::cargo()
            .args([
                "run",
                "--release",
                "-q",
                "-p",
                "cetp-sample-notes",
                "--bin",
                "notes-demo-db",
                "--",
            ])
            .arg(&db),
    )?;

    step("JVM: the notes sample against a hand-written provider (one JVM)");
    let jvm_report = work.join("jvm.md");
    let _ = fs::remove_file(&jvm_report);
    let (rounds, memory_calls) = if quick { (3, 10_000) } else { (15, 100_000) };
    let mut mvn = crate::util::mvn();
    mvn.current_dir(&root).args([
        "-q",
        "--no-transfer-progress",
        "-f",
        "tests/android/pom.xml",
        "-pl",
        "bench",
        "-am",
        "test",
        "-Dcetp.skip.bench=false",
        "-Dsurefire.failIfNoSpecifiedTests=false",
    ]);
    mvn.arg(format!("-Dcetp.bundle.notes={}", bundle.display()))
        .arg(format!("-Dcetp.bench.db={}", db.display()))
        .arg(format!("-Dcetp.bench.out={}", jvm_report.display()))
        .arg(format!("-Dcetp.bench.rounds={rounds}"))
        .arg(format!("-Dcetp.bench.memoryCalls={memory_calls}"));
    util::run(&mut mvn)?;
    let jvm = fs::read_to_string(&jvm_report).map_err(|e| {
        format!(
            "the benchmark wrote no report to {}: {e}",
            jvm_report.display()
        )
    })?;

    step("Rust: criterion (cetp-provider/benches/dispatch.rs)");
    util::run(util::cargo().args([
        "bench",
        "-p",
        "cetp-provider",
        "--bench",
        "dispatch",
        "--",
        "--warm-up-time",
        "1",
        "--measurement-time",
        if quick { "1" } else { "4" },
    ]))?;
    let criterion = criterion_table()?;

    step("Rust: scaling with threads (samples/notes/benches/scaling.rs)");
    let scaling_report = work.join("scaling.md");
    let _ = fs::remove_file(&scaling_report);
    let mut scaling = util::cargo();
    scaling.args([
        "bench",
        "-p",
        "cetp-sample-notes",
        "--bench",
        "scaling",
        "--",
        "--markdown",
    ]);
    scaling.arg(&scaling_report);
    if quick {
        scaling.args(["--seconds", "0.3"]);
    }
    util::run(&mut scaling)?;
    let scaling = fs::read_to_string(&scaling_report).map_err(|e| {
        format!(
            "the scaling benchmark wrote no table to {}: {e}",
            scaling_report.display()
        )
    })?;

    step("library sizes");
    let sizes = sizes::table()?;

    let machine = machine();
    let mut section = String::new();
    section.push_str(BEGIN);
    section.push_str(&format!(
        "\n\nMeasured by `cargo xtask bench{}` on {machine}.\n\n",
        if quick { " --quick" } else { "" }
    ));
    section.push_str("### One JVM: the notes sample against a hand-written provider\n\n");
    section.push_str(jvm.trim_end());
    section.push_str("\n\n### The Rust half alone (criterion)\n\n");
    section.push_str(&criterion);
    section.push_str("\n### Scaling with threads (one agent per thread)\n\n");
    section.push_str(scaling.trim_end());
    section.push_str("\n\n");
    section.push_str(SIZES_HEADING);
    section.push_str("\n\n");
    section.push_str(&sizes);
    section.push('\n');
    section.push_str(END);

    let doc_path = root.join("docs/benchmarks.md");
    let doc = fs::read_to_string(&doc_path).unwrap_or_default();
    let updated = match (doc.find(BEGIN), doc.find(END)) {
        (Some(b), Some(e)) if e > b => format!("{}{section}{}", &doc[..b], &doc[e + END.len()..]),
        _ => format!("{doc}\n{section}\n"),
    };
    fs::write(&doc_path, updated)
        .map_err(|e| format!("cannot write {}: {e}", doc_path.display()))?;
    println!("{section}");
    eprintln!("xtask: wrote {}", doc_path.display());
    Ok(())
}

/// `--sizes`: the size figures alone, written over the "Release libraries" part of the
/// generated section (the rest of it, from the last full run, is kept).
fn sizes_only(root: &Path) -> Result<(), String> {
    step("library sizes");
    let sizes = sizes::table()?;
    let doc_path = root.join("docs/benchmarks.md");
    let doc = fs::read_to_string(&doc_path)
        .map_err(|e| format!("cannot read {}: {e}", doc_path.display()))?;
    let part = format!(
        "Measured by `cargo xtask bench --sizes` on {}.\n\n{sizes}",
        machine()
    );
    let updated = replace_sizes(&doc, &part)?;
    fs::write(&doc_path, updated)
        .map_err(|e| format!("cannot write {}: {e}", doc_path.display()))?;
    println!("{part}");
    eprintln!("xtask: wrote {}", doc_path.display());
    Ok(())
}

/// `doc` with the text under the generated section's "Release libraries" heading, up to the
/// section's end, replaced by `part`.
fn replace_sizes(doc: &str, part: &str) -> Result<String, String> {
    let missing = || {
        format!(
            "docs/benchmarks.md has no generated \"{SIZES_HEADING}\" part to replace: run \
             `cargo xtask bench` once"
        )
    };
    let begin = doc.find(BEGIN).ok_or_else(missing)?;
    let end = doc[begin..].find(END).ok_or_else(missing)? + begin;
    let heading = doc[begin..end].find(SIZES_HEADING).ok_or_else(missing)? + begin;
    let from = heading + SIZES_HEADING.len();
    Ok(format!(
        "{}\n\n{}\n\n{}",
        &doc[..from],
        part.trim_end(),
        &doc[end..]
    ))
}

fn step(title: &str) {
    eprintln!("\n== bench: {title}");
}

/// The median of every criterion benchmark of the `dispatch` bench, from its estimates files.
fn criterion_table() -> Result<String, String> {
    let dir = cargo_target_dir().join("criterion").join("call");
    let mut rows = Vec::new();
    let entries =
        fs::read_dir(&dir).map_err(|e| format!("no criterion output in {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let estimates = entry.path().join("new").join("estimates.json");
        let bench = entry.path().join("new").join("benchmark.json");
        let (Some(estimates), Some(meta)) = (json(&estimates), json(&bench)) else {
            continue;
        };
        let name = meta["function_id"].as_str().map_or_else(
            || entry.file_name().to_string_lossy().into_owned(),
            str::to_owned,
        );
        let Some(median) = estimates["median"]["point_estimate"].as_f64() else {
            continue;
        };
        rows.push((name, median));
    }
    if rows.is_empty() {
        return Err(format!("no criterion estimates under {}", dir.display()));
    }
    rows.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut out = String::from("| benchmark | median |\n|---|---|\n");
    for (name, ns) in rows {
        out.push_str(&format!("| {name} | {} |\n", nanos(ns)));
    }
    Ok(out)
}

fn nanos(ns: f64) -> String {
    if ns >= 1000.0 {
        format!("{:.2} µs", ns / 1000.0)
    } else {
        format!("{ns:.0} ns")
    }
}

/// A JSON file criterion wrote, if it is there and parses.
fn json(path: &Path) -> Option<serde_json::Value> {
    serde_json::from_str(&fs::read_to_string(path).ok()?).ok()
}

/// CPU model, core count, OS, Rust and Java versions.
fn machine() -> String {
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let rustc = output(Command::new("rustc").arg("--version"));
    let java = output(util::jdk_tool("java").arg("-version"));
    let java = java.lines().next().unwrap_or("java ?").to_owned();
    format!(
        "{cpu}, {cores} cores, {}; {rustc}; {java}",
        std::env::consts::OS
    )
}

fn output(cmd: &mut Command) -> String {
    cmd.output()
        .map(|o| {
            let text = if o.stdout.is_empty() {
                o.stderr
            } else {
                o.stdout
            };
            String::from_utf8_lossy(&text).trim().to_owned()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--sizes` replaces what follows its heading up to the section's end, and nothing else.
    #[test]
    fn sizes_replace_only_their_part() {
        let doc = format!(
            "intro\n{BEGIN}\n\n### One JVM\n\nkept\n\n{SIZES_HEADING}\n\nold table\n\nold text\n{END}\noutro\n"
        );
        let updated = replace_sizes(&doc, "new table\n").unwrap();
        assert_eq!(
            updated,
            format!(
                "intro\n{BEGIN}\n\n### One JVM\n\nkept\n\n{SIZES_HEADING}\n\nnew table\n\n{END}\noutro\n"
            )
        );
        // Applied again, the same text.
        assert_eq!(replace_sizes(&updated, "new table\n").unwrap(), updated);
    }

    /// Without a generated section, or without its size part, `--sizes` says to run the whole
    /// bench once instead of writing the figures somewhere else.
    #[test]
    fn sizes_need_a_generated_section() {
        for doc in [
            "no section\n".to_owned(),
            format!("{BEGIN}\n### One JVM\n{END}\n"),
            format!("{SIZES_HEADING}\n{BEGIN}\n{END}\n"),
        ] {
            let err = replace_sizes(&doc, "x").unwrap_err();
            assert!(err.contains("`cargo xtask bench`"), "{doc}: {err}");
        }
    }
}
