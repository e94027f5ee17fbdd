//! `cargo xtask demo`: the notes sample as three agent apps meet it, in about 120 lines.
//!
//! 1. builds the notes host bundle (`host-build samples/notes`, output to a log);
//! 2. runs the Robolectric class `NotesDemo` in its own Surefire execution (`demo-notes`,
//!    skipped by the normal suite) with Maven quiet, output to a log;
//! 3. prints the story the class wrote. Act one, a CETP agent: discovery, `list_tools`,
//!    `AUTH_REQUIRED`, the consent dialog, the approved call, a limited answer and two
//!    `INVALID_ARGS` answers. Act two, a CETP v2 agent: the versions meta-data, `negotiate`,
//!    the annotated tool list, `AUTH_REQUIRED` with its `resolution` PendingIntent, the consent
//!    dialog it opens, the resumed call and the spent token. Act three, the Apex agent:
//!    discovery by its plugin action, binding,
//!    metadata and tools, `executeTool` refused until the user approves (from the notification),
//!    then answered, and an `INVALID_ARGS` text. The full Apex view (metadata, tools JSON) is
//!    written next to the story, in `target/cetp-demo/notes-demo.txt.apex`.
//!
//! Any failure prints the end of the failing step's log and where the whole log is.

use std::fs::{self, File};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{cargo_target_dir, workspace_root};

/// Bundles the demo does not need: their Surefire executions are skipped.
const OTHER_BUNDLES: &[&str] = &[
    "fixture",
    "minimal",
    "notes",
    "expenses",
    "fixture-provider",
    "auth-provider",
    "v1-only-provider",
];

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("demo takes no arguments (got `{extra}`)"));
    }
    let root = workspace_root();
    let dir = root.join("target").join("cetp-demo");
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;

    println!(
        "xtask demo: building the notes sample for the JVM (the first run compiles its Rust \
         dependencies: a few minutes)..."
    );
    let build_log = dir.join("host-build.log");
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the xtask binary: {e}"))?;
    let mut build = Command::new(exe);
    build
        .current_dir(&root)
        .args(["host-build", "samples/notes"])
        // The bundle goes to <root>/target/cetp-host whatever the cargo target dir is.
        .env("CARGO_TARGET_DIR", cargo_target_dir());
    logged(&mut build, &build_log, "building the notes host bundle")?;

    println!(
        "xtask demo: running it on Robolectric (the first run downloads about 500 MB of Maven \
         dependencies)..."
    );
    let story = dir.join("notes-demo.txt");
    let _ = fs::remove_file(&story);
    let maven_log = dir.join("maven.log");
    let mut mvn = crate::util::mvn();
    mvn.current_dir(&root).args([
        "-q",
        "--no-transfer-progress",
        "-f",
        "tests/android/pom.xml",
        // The end-to-end module and what it needs (the test kit), not the UniFFI module,
        // whose Kotlin bindings only `cargo xtask test` generates.
        "-pl",
        "e2e",
        "-am",
        "test",
        "-Dcetp.skip.demo=false",
        "-Dtest=NotesDemo",
        "-Dsurefire.failIfNoSpecifiedTests=false",
        "-Dsurefire.printSummary=false",
    ]);
    mvn.arg(format!("-Dcetp.demo.out={}", story.display()));
    // The suite compiles the Apex host's IApexPlugin with the AIDL compiler host-build used.
    mvn.arg(format!("-Dcetp.aidl={}", crate::util::aidl()?.display()));
    for bundle in OTHER_BUNDLES {
        mvn.arg(format!("-Dcetp.skip.{bundle}=true"));
    }
    let outcome = logged(&mut mvn, &maven_log, "the Robolectric demo");
    let text = fs::read_to_string(&story).unwrap_or_default();
    if let Err(e) = outcome {
        if !text.is_empty() {
            println!("\nThe story up to the failure:\n{text}");
        }
        return Err(format!(
            "{e}\n(test reports: tests/android/e2e/target/surefire-reports/dev.cetp.e2e.NotesDemo.txt)"
        ));
    }
    if text.is_empty() {
        return Err(format!(
            "the demo ran but wrote nothing to {}; see {}",
            story.display(),
            maven_log.display()
        ));
    }
    println!();
    print!("{text}");
    let apex = dir.join("notes-demo.txt.apex");
    if apex.is_file() {
        println!(
            "(The Apex host's full view of the sample: {})",
            apex.display()
        );
    }
    Ok(())
}

/// Runs `cmd` with stdout and stderr in `log`; on failure returns the log's last lines.
fn logged(cmd: &mut Command, log: &Path, what: &str) -> Result<(), String> {
    let file = File::create(log).map_err(|e| format!("cannot write {}: {e}", log.display()))?;
    let err = file
        .try_clone()
        .map_err(|e| format!("cannot write {}: {e}", log.display()))?;
    let status = cmd
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err)
        .status()
        .map_err(|e| format!("{what}: cannot start {:?}: {e}", cmd.get_program()))?;
    if status.success() {
        return Ok(());
    }
    Err(format!(
        "{what} failed ({status}); the end of its log:\n{}\nwhole log: {}",
        tail(log, 30),
        log.display()
    ))
}

fn tail(path: &Path, lines: usize) -> String {
    let text = cargo_cetp::android_build::bundle::strip_ansi(
        &fs::read_to_string(path).unwrap_or_default(),
    );
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..]
        .iter()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
