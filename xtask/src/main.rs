//! `cargo xtask <task>`: development tasks of cetp-rs (matklad's xtask convention; the alias
//! lives in `.cargo/config.toml`).
//!
//! - `demo`: the notes sample and two agent apps (CETP, Apex), told in about ninety lines
//!   (`demo.rs`).
//! - `host-build <crate-dir> [--release]`: a host bundle for the JVM end-to-end suite
//!   (see `docs/host-bundle.md`).
//! - `android-check`: the Android build checks that run without an NDK or the Android Gradle
//!   Plugin (see `android-template/README.md`).
//! - `bench [--quick | --sizes]`: the SDK against a hand-written provider, the Rust half, library
//!   sizes; writes `docs/benchmarks.md` (`bench.rs`).
//! - `lines`: the samples' integration line counts against their budgets (`lines.rs`).
//! - `schema-report`: the samples' LLM API compatibility tables (`schema_report.rs`).
//! - `release --dry-run`: every artifact packaged as published, and apps made and tested from
//!   those alone, outside the checkout (`release.rs`).
//! - `test`: every check the project has, as CI runs it (`test.rs`); `test --stress`, the Rust
//!   suites on a busy machine (`stress.rs`).

mod android_check;
mod bench;
mod demo;
mod host_build;
mod lines;
mod package;
mod release;
mod schema_report;
mod stress;
mod test;
mod util;

use std::process::ExitCode;

const HELP: &str = "\
cargo xtask <task>

Tasks:
  demo
      The notes sample as an agent app meets it: discovery, list_tools, AUTH_REQUIRED, the
      consent dialog, the approved call, a limited answer, INVALID_ARGS; then the Apex agent
      through its plugin Service: discovery, tools, refused until approved, answered. Builds the
      notes host bundle and runs one Robolectric class (Maven downloads its dependencies on the
      first run; the AIDL compiler must be installed, see README).
  host-build <crate-dir> [--release]
      Build a host bundle for the JVM end-to-end suite with `cargo cetp build`'s code: the crate
      as a host cdylib, the Android template's Java (+ the app's Java) compiled against
      android-all, the resources (aapt) and the merged manifest, in
      target/cetp-host/<dir-name>/. `cargo xtask host-build --help`; docs/host-bundle.md.
  android-check
      rustup target add aarch64-linux-android; cargo check of cetp-provider (feature jni) and
      cetp-validator, staticlib builds of cetp-provider (feature jni) and the fixture provider for
      that target; javac of the Android template against android-all with -Werror. See
      android-template/README.md.
  test
      Every check: fmt, clippy, rustdoc, cargo test, the schema report, a new app made by
      `cargo cetp new` outside the workspace (its tests, `cargo cetp check`, MCP sessions,
      `cargo cetp build`, `test` and `preview`), the
      MSRV, packaging, android-check, host bundles of the fixture and every sample, and the
      Maven + Robolectric end-to-end suite (with one short round of the benchmarks).
      The suites' classes run in alphabetical order.
  test --random-order[=SEED]
      Only the host bundles and the Maven suite, its classes in a random order (the seed is
      printed; pass it to repeat that order). CI runs it after `test`.
  test --stress[=ROUNDS]
      The Rust suites (`cargo test --workspace`, and cetp-provider with the jni feature) on a
      machine made busy on purpose: one CPU hog per core and four test threads per core, for
      ROUNDS rounds (3 unless given); fails on the first failing round. Each round's time is
      printed.
  bench [--quick | --sizes]
      What a call costs: the notes sample (release build) against a hand-written provider in one
      Robolectric JVM, the criterion benchmark of the Rust half, and each sample's release
      library size; writes docs/benchmarks.md. --quick: fewer rounds, for trying changes.
      --sizes: only the library sizes (x86_64 and aarch64-linux-android, stripped, and where
      the bytes go), written over their part of docs/benchmarks.md. The Android figures need
      Debian's gcc-aarch64-linux-gnu and libc6-dev-arm64-cross (checked before building).
  schema-report [--check | --write]
      The samples' tool schemas checked against the rules of OpenAI, OpenAI strict, Anthropic,
      Anthropic strict, Gemini and the portable core: one Markdown table per sample, from each
      provider built for the host as `cargo cetp check` builds it (fails when a tool breaks
      OpenAI's or Anthropic's non-strict rules). --check compares the README's copy, --write
      updates it.
  lines
      The integration line count of every sample, file by file, against its budget (fails when a
      sample is over). The counting rules are in samples/README.md.
  release --dry-run [--keep]
      Every crate packaged into a directory registry, the test kit deployed into a local Maven
      repository; then, outside this checkout, cargo-cetp installed from that registry, and
      `cargo cetp new` and `cargo cetp init` (on a copy of an existing Compose app) each with
      `cargo test`, `cargo cetp check` and `cargo cetp test`, everything resolved by version.
      Fails if a generated file names a path into the checkout. Part of `test`.
  help
      This text.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("demo") => demo::run(&args[1..]),
        Some("host-build") => host_build::run(&args[1..]),
        Some("android-check") => android_check::run(&args[1..]),
        Some("test") => test::run(&args[1..]),
        Some("lines") => lines::run(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("schema-report") => schema_report::run(&args[1..]),
        Some("release") => release::run(&args[1..]),
        None | Some("help" | "--help" | "-h") => {
            print!("{HELP}");
            Ok(())
        }
        Some(other) => Err(format!("unknown task `{other}`\n\n{HELP}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: error: {message}");
            ExitCode::FAILURE
        }
    }
}
