//! `cargo xtask test`: every check the project has, in the order that fails fastest.
//!
//! 0. the AIDL compiler (`aidl`) and the resource compiler (`aapt`), installed with apt-get when
//!    missing and running as root, as in CI: the host bundles and the Maven suite need the first
//!    for the Apex plugin interface, `android-check` and the host bundles the second for the
//!    template's and the apps' resources;
//! 1. formatting, clippy (`-D warnings`, without features and with every feature of
//!    `cetp-provider`) and rustdoc (`-D warnings`, the public docs and `cetp-provider`'s private
//!    items);
//! 2. `cargo test --workspace`: unit, integration, doc, trybuild (`cetp-macros/tests/ui.rs`),
//!    golden, property, crash tests and the sample line budgets; then the samples' LLM API compatibility report,
//!    checked against the README's copy; then `cargo cetp` end to end on a new app outside the
//!    workspace (`new`, its `cargo test`, `check`, scripted MCP sessions, `build`, `test` with its
//!    Java test through the test kit, `preview`: `cargo-cetp/tests/new_app.rs`), the same on an
//!    existing Android project (`existing_app.rs`), on a Kotlin/Compose app with AndroidX
//!    (`compose_app.rs`), and `check`'s CETP v2 section (`check_v2.rs`);
//! 3. the MSRV: `cargo +1.85 check` of the three published crates (the toolchain is installed
//!    with rustup's minimal profile when missing);
//! 4. the release dry run (`release.rs`): every published crate packaged into a directory
//!    registry and the test kit (`-Prelease`: jars, sources, javadoc) deployed into a local Maven
//!    repository; outside the checkout, `cargo-cetp` installed from that registry, `cargo cetp
//!    new` and `init` each passing `cargo test`, `check` and `test` by version, and no generated
//!    file naming the checkout (`tests/packaging.rs` checks the crates' metadata,
//!    `tests/kit_pom.rs` what a public repository requires of the poms);
//! 5. `android-check` (Android target compile, template javac);
//! 6. a host bundle of the fixture provider and of every sample, then the Maven + Robolectric
//!    end-to-end suite over all of them (with the test kit, `android-testkit/`, in its reactor;
//!    the notes class again on Android 16 when a Java 21+ is found), plus one short round of the
//!    JVM benchmark (`tests/android/bench`), of the criterion benchmark and of the scaling
//!    benchmark's checks, so none can rot (the real measurement is `cargo xtask bench`). The
//!    suites' test classes run in alphabetical order.
//!
//! `cargo xtask test --random-order[=SEED]` runs only the host bundles and the Maven suite, its
//! classes in a random order (the seed is printed; give it to repeat that order). CI runs it
//! after the full run.
//!
//! `cargo xtask test --stress[=ROUNDS]` runs the Rust suites with the cores oversubscribed
//! (`stress.rs`).

use std::process::Command;

use crate::stress::{self, STRESS};
use crate::util::{self, workspace_root};
use crate::{android_check, host_build, release, schema_report};

/// The Rust version `cetp-provider`, `cetp-macros` and `cetp-validator` promise (`rust-version`
/// in Cargo.toml).
const MSRV: &str = "1.85";

/// Every feature of `cetp-provider` but its test seams: the bridge.
const TOOLING_FEATURES: &str = "jni";

/// Crates that get a host bundle and an end-to-end run.
const BUNDLES: &[&str] = &[
    "tests/fixture-provider",
    "tests/auth-provider",
    "tests/v1-only-provider",
    "samples/minimal",
    "samples/notes",
    "samples/expenses",
    "samples/reading-list",
    "samples/journal",
];

pub fn run(args: &[String]) -> Result<(), String> {
    if let [one] = args {
        if let Some(rounds) = stress::rounds(one) {
            return stress::run(rounds?);
        }
    }
    match args {
        [] => {}
        [one] if one == RANDOM_ORDER => return random_order(None),
        [one] if one.starts_with(&format!("{RANDOM_ORDER}=")) => {
            let seed = &one[RANDOM_ORDER.len() + 1..];
            let seed = seed
                .parse::<u64>()
                .map_err(|_| format!("{RANDOM_ORDER}= takes a seed, a number (got `{seed}`)"))?;
            return random_order(Some(seed));
        }
        [extra, ..] => {
            return Err(format!(
                "test takes no arguments but {RANDOM_ORDER}[=SEED] or {STRESS}[=ROUNDS] (got `{extra}`)"
            ));
        }
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
    // The bridge, with the crate's own tests.
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
                "cetp-schema-report",
                "-p",
                "cetp-mcp",
                "-p",
                "cetp-validator",
                "-p",
                "cargo-cetp",
                "-p",
                "cetp-android-template",
                "--features",
                &format!(
                    "cetp-provider/{}",
                    TOOLING_FEATURES.replace(',', ",cetp-provider/")
                ),
            ])
            .env("RUSTDOCFLAGS", "-D warnings"),
    )?;
    // The maintainers' docs too: every private item's links resolve.
    util::run(
        util::cargo()
            .args([
                "doc",
                "--no-deps",
                "--document-private-items",
                "-p",
                "cetp-provider",
                "--features",
                TOOLING_FEATURES,
            ])
            .env("RUSTDOCFLAGS", "-D warnings"),
    )?;

    step("cargo test");
    util::run(util::cargo().args(["test", "--workspace"]))?;
    util::run(util::cargo().args([
        "test",
        "-p",
        "cetp-provider",
        "--features",
        TOOLING_FEATURES,
    ]))?;
    // Criterion runs each benchmark once when not started by `cargo bench`.
    util::run(util::cargo().args(["test", "-p", "cetp-provider", "--bench", "dispatch"]))?;
    // The scaling benchmark checks its answers on one and two threads when not measuring.
    util::run(util::cargo().args(["test", "-p", "cetp-sample-notes", "--bench", "scaling"]))?;

    step("schema compatibility report of every sample");
    schema_report::run(&["--check".to_owned()])?;

    step("cargo cetp on a new app outside the workspace");
    util::run(util::cargo().args(["test", "-p", "cargo-cetp", "--test", "new_app"]))?;

    step("cargo cetp init on an existing Android project");
    util::run(util::cargo().args(["test", "-p", "cargo-cetp", "--test", "existing_app"]))?;

    step("cargo cetp init on a UniFFI app whose Rust is a workspace");
    util::run(util::cargo().args(["test", "-p", "cargo-cetp", "--test", "uniffi_app"]))?;

    step("cargo cetp on a Kotlin/Compose app with AndroidX, as written");
    util::run(util::cargo().args(["test", "-p", "cargo-cetp", "--test", "compose_app"]))?;

    step("cargo cetp check on CETP v2: advertised, turned off, violated");
    util::run(util::cargo().args(["test", "-p", "cargo-cetp", "--test", "check_v2"]))?;

    step(&format!("minimum supported Rust version {MSRV}"));
    msrv()?;

    step("the release dry run: packaged artifacts only, outside the checkout");
    release::run(&["--dry-run".to_owned()])?;

    step("Android target");
    android_check::run(&[])?;

    step("host bundles");
    for bundle in BUNDLES {
        host_build::run(&[(*bundle).to_owned()])?;
    }
    uniffi_bindings()?;

    step("end-to-end suite (Maven + Robolectric)");
    let mut mvn = maven(&aidl);
    mvn.args(android16_args());
    // One short benchmark round against the debug notes bundle: it must still run.
    mvn.args([
        "-Dcetp.skip.bench=false",
        "-Dcetp.bench.rounds=1",
        "-Dcetp.bench.warmup=20",
        "-Dcetp.bench.batchMillis=1",
        "-Dcetp.bench.minBatch=5",
        "-Dcetp.bench.memoryCalls=200",
    ]);
    util::run(&mut mvn)?;

    step("all checks passed");
    Ok(())
}

/// The option that runs the Robolectric suites once more, in a random order.
const RANDOM_ORDER: &str = "--random-order";

/// `cargo xtask test --random-order[=SEED]`: the host bundles (built again only where something
/// changed), then the Maven suite alone with its test classes in a random order, the seed
/// printed so that a failing order can be repeated. State one test leaves behind for another
/// then fails here, where it is made, and not on a machine whose file system lists the classes
/// in another order.
fn random_order(seed: Option<u64>) -> Result<(), String> {
    step("AIDL compiler");
    let aidl = util::aidl()?;
    util::aapt()?;
    step("host bundles");
    for bundle in BUNDLES {
        host_build::run(&[(*bundle).to_owned()])?;
    }
    uniffi_bindings()?;
    let seed = seed.unwrap_or_else(new_seed);
    step(&format!(
        "end-to-end suite in a random order, seed {seed} (again: cargo xtask test {RANDOM_ORDER}={seed})"
    ));
    let mut mvn = maven(&aidl);
    mvn.arg("-Dcetp.runOrder=random")
        .arg(format!("-Dsurefire.runOrder.random.seed={seed}"));
    util::run(&mut mvn).map_err(|e| {
        format!("{e}\nthe random order's seed was {seed}: cargo xtask test {RANDOM_ORDER}={seed}")
    })?;
    step(&format!("the suite passed in the order of seed {seed}"));
    Ok(())
}

/// A seed that differs from run to run (the clock; nothing here needs more).
fn new_seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (now.as_secs() ^ u64::from(now.subsec_nanos())) % 1_000_000_007
}

/// `mvn test` of the Robolectric suites, as every run here starts it.
fn maven(aidl: &std::path::Path) -> Command {
    let mut mvn = util::mvn();
    mvn.current_dir(workspace_root())
        .args(["-f", "tests/android/pom.xml", "test"])
        .arg(format!("-Dcetp.aidl={}", aidl.display()));
    if std::env::var_os("CI").is_some() {
        mvn.arg("--no-transfer-progress");
    }
    mvn
}

/// Robolectric runs SDK 36 (the notes suite's Android 16 execution) only on Java 21 or newer:
/// `CETP_JAVA21` (a `java` binary), else the first JDK under `/usr/lib/jvm` that is 21+. Without
/// one the execution stays skipped, and this says so.
fn android16_args() -> Vec<String> {
    let mut candidates: Vec<std::path::PathBuf> = std::env::var_os("CETP_JAVA21")
        .map(std::path::PathBuf::from)
        .into_iter()
        .collect();
    if let Ok(entries) = std::fs::read_dir("/usr/lib/jvm") {
        let mut homes: Vec<_> = entries
            .flatten()
            .map(|e| e.path().join("bin/java"))
            .collect();
        homes.sort();
        candidates.extend(homes);
    }
    let found = candidates
        .into_iter()
        .find(|java| java.is_file() && java_major(java).is_some_and(|major| major >= 21));
    match found {
        Some(java) => {
            eprintln!("xtask: the Android 16 run forks {}", java.display());
            vec![
                "-Dcetp.skip.android16=false".to_owned(),
                format!("-Dcetp.android16.java={}", java.display()),
            ]
        }
        None => {
            eprintln!(
                "xtask: no Java 21+ (CETP_JAVA21 or /usr/lib/jvm): skipping the notes suite's \
                 Android 16 run, which Robolectric runs only on Java 21+"
            );
            Vec::new()
        }
    }
}

/// The major version `java -version` reports (`openjdk version "21.0.2"` → 21).
fn java_major(java: &std::path::Path) -> Option<u32> {
    let output = Command::new(java).arg("-version").output().ok()?;
    let text = String::from_utf8_lossy(&output.stderr);
    let version = text.split('"').nth(1)?;
    version.split(['.', '-', '+']).next()?.parse().ok()
}

/// The reading-list sample's Kotlin bindings, generated by its own `uniffi-bindgen` from the
/// library in its host bundle, where `tests/android/uniffi` compiles them with its test.
fn uniffi_bindings() -> Result<(), String> {
    let root = workspace_root();
    let out = root.join("target/uniffi/reading-list");
    if out.exists() {
        std::fs::remove_dir_all(&out)
            .map_err(|e| format!("cannot clean {}: {e}", out.display()))?;
    }
    let library = root.join("target/cetp-host/reading-list/libreading_core.so");
    util::run(
        util::cargo()
            .args([
                "run",
                "-q",
                "-p",
                "cetp-sample-reading-list",
                "--features",
                "bindgen",
            ])
            .args(["--bin", "uniffi-bindgen", "--", "generate", "--library"])
            .arg(&library)
            .args(["--language", "kotlin", "--no-format", "--out-dir"])
            .arg(&out),
    )
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
            "-p",
            "cetp-validator",
            "--features",
            "cetp-provider/jni",
        ])
        .env("CARGO_TARGET_DIR", util::cargo_target_dir().join("msrv"))
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("CARGO");
    util::run(&mut check)
}
