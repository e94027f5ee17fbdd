//! `cargo xtask test`: every check the project has, in the order that fails fastest.
//!
//! 0. the AIDL compiler (`aidl`) and the resource compiler (`aapt`), installed with apt-get when
//!    missing and running as root, as in CI: the host bundles and the Maven suite need the first
//!    for the Apex plugin interface, `android-check` and the host bundles the second for the
//!    template's and the apps' resources;
//! 1. formatting, clippy (`-D warnings`, with and without the `jni` feature) and rustdoc
//!    (`-D warnings`);
//! 2. `cargo test --workspace`: unit, integration, doc, trybuild, golden, property, crash tests
//!    and the sample line budgets; the tooling features of `cetp-provider` (`mcp`,
//!    `schema-report`); then the samples' LLM API compatibility report, checked against the
//!    README's copy; then `cargo cetp` end to end on a new app outside the workspace (`new`, its
//!    `cargo test`, `check`, scripted MCP sessions, `build`, `test` with its Java test through
//!    the test kit, `preview`: `cargo-cetp/tests/new_app.rs`);
//! 3. the MSRV: `cargo +1.85 check` of the two published crates (the toolchain is installed with
//!    rustup's minimal profile when missing);
//! 4. `cargo package --no-verify` of the two published crates;
//! 5. `android-check` (Android target compile, template javac);
//! 6. a host bundle of the fixture provider and of every sample, then the Maven + Robolectric
//!    end-to-end suite over all of them (with the test kit, `android-testkit/`, in its reactor), plus one short round of the JVM benchmark
//!    (`tests/android/bench`), of the criterion benchmark and of the scaling benchmark's checks,
//!    so none can rot (the real measurement is `cargo xtask bench`).

use std::process::Command;

use crate::util::{self, workspace_root};
use crate::{android_check, host_build, schema_report};

/// The Rust version `cetp-provider` and `cetp-macros` promise (`rust-version` in Cargo.toml).
const MSRV: &str = "1.85";

/// Every feature of `cetp-provider`: the bridge and the two tooling features.
const TOOLING_FEATURES: &str = "jni,mcp,schema-report";

/// Crates that get a host bundle and an end-to-end run.
const BUNDLES: &[&str] = &[
    "tests/fixture-provider",
    "tests/auth-provider",
    "samples/minimal",
    "samples/notes",
    "samples/expenses",
];

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("test takes no arguments (got `{extra}`)"));
    }
    // The host bundles and the Maven suite compile the Apex plugin interface with it.
    step("AIDL compiler");
    let aidl = util::aidl()?;
    eprintln!("xtask: using {}", aidl.display());
    step("Android resource compiler");
    eprintln!("xtask: using {}", util::aapt()?.display());

    step("formatting");
    util::run(util::cargo().args(["fmt", "--all", "--", "--check"]))?;

    step("clippy");
    util::run(util::cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    util::run(util::cargo().args([
        "clippy",
        "-p",
        "cetp-provider",
        "--all-targets",
        "--features",
        "jni",
        "--",
        "-D",
        "warnings",
    ]))?;
    // The tooling features, which no app (and no other workspace member) enables.
    util::run(util::cargo().args([
        "clippy",
        "-p",
        "cetp-provider",
        "--all-targets",
        "--features",
        TOOLING_FEATURES,
        "--",
        "-D",
        "warnings",
    ]))?;

    step("rustdoc");
    util::run(
        util::cargo()
            .args([
                "doc",
                "--no-deps",
                "-p",
                "cetp-provider",
                "-p",
                "cetp-macros",
                "-p",
                "cargo-cetp",
                "--features",
                &format!(
                    "cetp-provider/{}",
                    TOOLING_FEATURES.replace(',', ",cetp-provider/")
                ),
            ])
            .env("RUSTDOCFLAGS", "-D warnings"),
    )?;

    step("cargo test");
    util::run(util::cargo().args(["test", "--workspace"]))?;
    util::run(util::cargo().args(["test", "-p", "cetp-provider", "--features", "jni"]))?;
    for targets in ["--lib", "--doc"] {
        util::run(util::cargo().args([
            "test",
            "-p",
            "cetp-provider",
            "--features",
            TOOLING_FEATURES,
            targets,
        ]))?;
    }
    // Criterion runs each benchmark once when not started by `cargo bench`.
    util::run(util::cargo().args(["test", "-p", "cetp-provider", "--bench", "dispatch"]))?;
    // The scaling benchmark checks its answers on one and two threads when not measuring.
    util::run(util::cargo().args(["test", "-p", "cetp-sample-notes", "--bench", "scaling"]))?;

    step("schema compatibility report of every sample");
    schema_report::run(&["--check".to_owned()])?;

    step("cargo cetp on a new app outside the workspace");
    util::run(util::cargo().args(["test", "-p", "cargo-cetp", "--test", "new_app"]))?;

    step(&format!("minimum supported Rust version {MSRV}"));
    msrv()?;

    step("packaging");
    util::run(util::cargo().args([
        "package",
        "--no-verify",
        "--allow-dirty",
        "-p",
        "cetp-macros",
        "-p",
        "cetp-provider",
    ]))?;

    step("Android target");
    android_check::run(&[])?;

    step("host bundles");
    for bundle in BUNDLES {
        host_build::run(&[(*bundle).to_owned()])?;
    }

    step("end-to-end suite (Maven + Robolectric)");
    let mut mvn = Command::new("mvn");
    mvn.current_dir(workspace_root())
        .args(["-B", "-f", "tests/android/pom.xml", "test"])
        .arg(format!("-Dcetp.aidl={}", aidl.display()))
        // One short benchmark round against the debug notes bundle: it must still run.
        .args([
            "-Dcetp.skip.bench=false",
            "-Dcetp.bench.rounds=1",
            "-Dcetp.bench.warmup=20",
            "-Dcetp.bench.batchMillis=1",
            "-Dcetp.bench.minBatch=5",
            "-Dcetp.bench.memoryCalls=200",
        ]);
    if std::env::var_os("CI").is_some() {
        mvn.arg("--no-transfer-progress");
    }
    util::run(&mut mvn)?;

    step("all checks passed");
    Ok(())
}

fn step(title: &str) {
    eprintln!("\n== {title}");
}

/// Checks the published crates with the MSRV toolchain, in a target dir of its own.
fn msrv() -> Result<(), String> {
    let installed = Command::new("rustup")
        .args(["run", MSRV, "rustc", "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !installed {
        util::run(Command::new("rustup").args([
            "toolchain",
            "install",
            MSRV,
            "--profile",
            "minimal",
        ]))?;
    }
    let mut check = Command::new("rustup");
    check
        .current_dir(workspace_root())
        .args([
            "run",
            MSRV,
            "cargo",
            "check",
            "-p",
            "cetp-provider",
            "-p",
            "cetp-macros",
            "--features",
            "cetp-provider/jni",
        ])
        .env("CARGO_TARGET_DIR", util::cargo_target_dir().join("msrv"))
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("CARGO");
    util::run(&mut check)
}
