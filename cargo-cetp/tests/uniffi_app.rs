//! `cargo cetp init` on an app whose data layer is Rust behind UniFFI, as such apps are laid
//! out (`tests/fixtures/journal-uniffi`, written by hand, not by `new` or `init`): a Cargo
//! workspace under `rust/` whose cdylib is the member `journal-ffi` with `[lib] name =
//! "journal_core"`, built per ABI by the cargo-ndk Gradle plugin in the library module `:core`,
//! a Kotlin `:app` with a debug `applicationIdSuffix`, a version catalog and
//! `FAIL_ON_PROJECT_REPOS`. Then, as its developer would after reading the README: the member's
//! `cargo test`, `cargo cetp check` from the workspace root, `build`, `test` (the Kotlin test
//! `init` writes, naming the app's `R`, beside the app's own unit test) and `preview`, all on
//! the real app module; a second `init` changes nothing.
//!
//! Minutes of compiling and Maven, so plain `cargo test` leaves it out (`test = false`) and
//! `cargo xtask test` runs it, into this workspace's target directory with its `Cargo.lock`.

use std::path::Path;
use std::process::Command;

mod common;

use common::{assert_previewed, cargo_cetp, copy_tree, run, snapshot, target_dir, workspace};

/// The lines `init` printed about files (its summary and advice aside).
fn steps(printed: &str) -> Vec<&str> {
    printed.lines().take_while(|l| !l.is_empty()).collect()
}

#[test]
fn init_adds_the_provider_to_the_apps_own_rust_workspace() {
    let scratch = tempfile::tempdir().unwrap();
    let project = scratch.path().join("journal");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/journal-uniffi"),
        &project,
    );
    let before = snapshot(&project);

    // The dry run prints what the run does, and writes nothing.
    let planned = run(cargo_cetp(&["init", "--dry-run"]).current_dir(&project));
    assert_eq!(snapshot(&project), before, "the dry run wrote");
    let printed = run(cargo_cetp(&["init"]).current_dir(&project));
    assert_eq!(
        steps(&planned),
        steps(&printed),
        "{planned}\n---\n{printed}"
    );
    for line in [
        "changed   rust/journal-ffi/Cargo.toml: crate-type + rlib; cetp-provider (jni); serde (derive)",
        "changed   rust/journal-ffi/src/agent_tools.rs: the module `agent_tools`",
        "changed   rust/journal-ffi/src/lib.rs: pub mod agent_tools;\n",
        "unchanged gradle.properties: no cetp.rustCrate: the cargo-ndk Gradle plugin (buildCargoNdkDebug, buildCargoNdkRelease) in :core builds libjournal_core.so\n",
        "changed   app/build.gradle.kts: the placeholder cetpLibrary under defaultConfig; cetpAuthority from each variant's application id (androidComponents)",
        "changed   app/src/test/java/com/example/journal/AgentToolsTest.kt: ",
        "cargo cetp init: 8 file(s) changed, 0 left to you\n",
        "changed   settings.gradle.kts: the local Maven repository for the CETP test kit (dev.cetp only)\n",
        "Next: cd rust/journal-ffi && cargo test && cargo cetp check\n",
    ] {
        assert!(printed.contains(line), "no {line:?} in:\n{printed}");
    }
    // No second Rust build, no crate beside the app's, no other member touched.
    let after = snapshot(&project);
    for path in [
        "gradle.properties",
        "rust/Cargo.toml",
        "rust/journal-store/Cargo.toml",
        "core/build.gradle.kts",
        "app/src/main/AndroidManifest.xml",
    ] {
        assert_eq!(
            after[Path::new(path)],
            before[Path::new(path)],
            "{path} changed"
        );
    }
    assert!(!project.join("rust/src").exists() && !project.join("rust/journal-ffi/rust").exists());
    let app = String::from_utf8(after[Path::new("app/build.gradle.kts")].clone()).unwrap();
    assert!(
        app.contains("manifestPlaceholders[\"cetpLibrary\"] = \"journal_core\""),
        "{app}"
    );
    // The provider is named after the app's label, not after a directory.
    let module =
        std::fs::read_to_string(project.join("rust/journal-ffi/src/agent_tools.rs")).unwrap();
    assert!(
        module.contains("Provider::builder(\"Journal\")"),
        "{module}"
    );

    let rust = project.join("rust");
    std::fs::copy(workspace().join("Cargo.lock"), rust.join("Cargo.lock")).unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let tests = run(Command::new(&cargo)
        .arg("test")
        .current_dir(rust.join("journal-ffi"))
        .env("CARGO_TARGET_DIR", target_dir()));
    assert!(tests.contains("test result: ok. 5 passed"), "{tests}");

    // `check` from the workspace root finds the member that depends on the SDK.
    let checked = run(cargo_cetp(&["check"]).current_dir(&rust));
    for line in [
        "cargo cetp check: `journal-ffi`, provider \"Journal\" for com.example.journal, 1 tool(s)",
        "authority agents call: com.example.journal.tools (each variant's application id + `.tools`, com.example.journal.debug.tools)",
        "libjournal_core.so is built by the cargo-ndk Gradle plugin",
        "cargo cetp check: 0 error(s), 0 warning(s)",
    ] {
        assert!(checked.contains(line), "no {line:?} in:\n{checked}");
    }

    let manifest = rust.join("journal-ffi/Cargo.toml");
    let manifest = manifest.to_str().unwrap();
    let built = run(&mut cargo_cetp(&["build", "--manifest-path", manifest]));
    assert_eq!(built, "", "build reports on stderr only");
    let bundle = target_dir().join("cetp-host/journal-ffi");
    let merged = std::fs::read_to_string(bundle.join("AndroidManifest.xml")).unwrap();
    assert!(
        // The bundle is the debug build: its application id has the debug suffix, and so has
        // the authority taken from it.
        merged.contains("android:authorities=\"com.example.journal.debug.tools\""),
        "{merged}"
    );
    assert!(
        merged.contains("android:label=\"@string/app_name\""),
        "{merged}"
    );
    assert!(bundle.join("libjournal_core.so").is_file());

    let tested = run(&mut cargo_cetp(&["test", "--manifest-path", manifest]));
    for line in [
        "  ok      AgentToolsTest.theProviderHasTheAppsName\n",
        "  ok      AgentToolsTest.anApprovedAgentFindsAnItem\n",
        "  ok      AgentToolsTest.cetpV2AgentsAcceptTheProvider\n",
        "  ok      MoodLabelTest.moodsReadInLowerCase\n",
        "5 passed, 0 failed, 0 skipped\n",
    ] {
        assert!(tested.contains(line), "no {line:?} in:\n{tested}");
    }

    assert_previewed(manifest);

    // A second run finds everything in place and writes nothing.
    let before = snapshot(&project);
    let again = run(cargo_cetp(&["init"]).current_dir(&project));
    assert!(
        again.contains(
            "cargo cetp init: 0 file(s) changed, 0 left to you (nothing to do: already set up)"
        ),
        "{again}"
    );
    assert_eq!(snapshot(&project), before, "the second init changed a file");
}
