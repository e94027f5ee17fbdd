//! `cargo cetp` on a Kotlin/Compose app as Android Studio and its developers write one, kept on
//! disk in `tests/fixtures/journal-compose/`: a version catalog, `FAIL_ON_PROJECT_REPOS`,
//! `android.nonTransitiveRClass=true`, an `applicationIdSuffix` on the debug build, Compose,
//! AndroidX and Room, a theme whose parent is the splash-screen library's `Theme.SplashScreen`
//! (a night variant, a French translation, `supportsRtl`), a Kotlin `Application` subclass, an
//! AndroidX `FileProvider` with resource meta-data and an adaptive launcher icon.
//!
//! A copy of it goes through what its developer would do: `init --dry-run` (the list `init`
//! then prints), `init`, the crate's `cargo test`, `check`, `build` (the host bundle of the real
//! app module: what it cannot compile is substituted, one line each), `test` (a Kotlin test of
//! the app's own through the test kit that names the app's `R`), `preview`, and a second `init`
//! that changes nothing.
//!
//! Minutes of compiling and Maven: plain `cargo test` leaves it out (`test = false`) and `cargo
//! xtask test` runs it (`cargo test -p cargo-cetp --test compose_app`).

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::{assert_previewed, cargo_cetp, copy_tree, run, snapshot, target_dir, workspace};

/// The app's own test of its provider and resources, in Kotlin, through the SDK's test kit. It
/// names the app's `R` (the namespace's, not the application id's: the debug build's id has a
/// suffix).
const KIT_TEST: &str = r#"package com.example.journal

import android.content.pm.ApplicationInfo
import android.content.res.Configuration
import dev.cetp.testkit.Approval
import dev.cetp.testkit.CetpTestRule
import java.util.Locale
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Rule
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner

@RunWith(RobolectricTestRunner::class)
class JournalToolsTest {
    @get:Rule val cetp = CetpTestRule()

    @Test
    fun theAppKeepsItsLabelLocalesAndLayoutDirection() {
        val context = cetp.context()
        assertEquals("com.example.journal.debug", cetp.packageName())
        val name = context.getString(R.string.app_name)
        assertEquals("Journal", name)
        val label = context.packageManager.getApplicationLabel(context.applicationInfo)
        assertEquals(name, label.toString())
        assertTrue(context.applicationInfo.flags and ApplicationInfo.FLAG_SUPPORTS_RTL != 0)
        val french = Configuration(context.resources.configuration)
        french.setLocale(Locale.FRENCH)
        val inFrench = context.createConfigurationContext(french)
        assertEquals("Nouvelle entrée", inFrench.getString(R.string.new_entry))
        assertTrue(context.resources.getResourceName(R.xml.file_paths).endsWith("xml/file_paths"))
    }

    @Test
    fun anApprovedAgentListsTheTools() {
        val agent = cetp
            .agent("com.example.agent", "Example Agent", 10_123, "agent key".toByteArray())
            .approve(Approval.full())
        assertTrue(agent.listTools().assertSuccess().tools().length() > 0)
    }
}
"#;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/journal-compose")
}

/// The lines of an `init` report that name a file, without the closing count.
fn file_lines(report: &str) -> Vec<&str> {
    report
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("cargo cetp init"))
        .collect()
}

/// Runs `cmd` and returns its standard error; fails the test unless it succeeds.
fn run_stderr(cmd: &mut Command) -> String {
    let out = cmd.output().expect("the command starts");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{stderr}",
        out.status,
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

#[test]
fn a_compose_app_goes_through_init_check_build_test_and_preview() {
    let scratch = tempfile::tempdir().unwrap();
    let project = scratch.path().join("journal");
    copy_tree(&fixture(), &project);
    let before = snapshot(&project);

    // The dry run writes nothing and lists what the real run then does.
    let planned = run(cargo_cetp(&["init", "--dry-run"]).current_dir(&project));
    assert_eq!(snapshot(&project), before, "--dry-run wrote a file");
    let done = run(cargo_cetp(&["init"]).current_dir(&project));
    assert_eq!(
        file_lines(&planned),
        file_lines(&done),
        "{planned}\n---\n{done}"
    );
    assert!(!file_lines(&done).is_empty(), "{done}");
    // The app's sources and resources are untouched.
    let after = snapshot(&project);
    for (path, bytes) in &before {
        if path.starts_with("app/src") {
            assert_eq!(&after[path], bytes, "{} changed", path.display());
        }
    }

    // The crate init added: the one new Cargo.toml.
    let manifests: Vec<&PathBuf> = after
        .keys()
        .filter(|p| p.ends_with("Cargo.toml") && !before.contains_key(*p))
        .collect();
    assert_eq!(manifests.len(), 1, "{manifests:?}");
    let crate_dir = project.join(manifests[0].parent().unwrap());
    std::fs::copy(workspace().join("Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let tests = run(Command::new(&cargo)
        .arg("test")
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", target_dir()));
    assert!(tests.contains("test result: ok."), "{tests}");
    assert!(!tests.contains("FAILED"), "{tests}");

    let checked = run(cargo_cetp(&["check"]).current_dir(&crate_dir));
    assert!(checked.contains(" 0 error(s)"), "{checked}");
    assert!(checked.contains("com.example.journal"), "{checked}");

    // The host bundle of the real app module.
    let manifest = crate_dir.join("Cargo.toml");
    let manifest = manifest.to_str().unwrap();
    let built = run_stderr(&mut cargo_cetp(&["build", "--manifest-path", manifest]));
    let substituted: Vec<&str> = built
        .lines()
        .filter(|l| l.starts_with("cargo cetp: host bundle: "))
        .collect();
    for line in &substituted {
        // What, by what, why: one line each.
        assert!(line.contains(" -> ") && line.ends_with(')'), "{line}");
    }
    let names = |what: &str| substituted.iter().any(|l| l.contains(what));
    assert!(
        names(
            "the Application class com.example.journal.JournalApp -> android.app.Application (it is Kotlin"
        ),
        "{built}"
    );
    assert!(
        names("the provider androidx.core.content.FileProvider -> left out"),
        "{built}"
    );
    assert!(
        names(
            "the activity com.example.journal.MainActivity -> declared without its class (starting it fails) (it is Kotlin"
        ),
        "{built}"
    );
    let bundle = target_dir()
        .join("cetp-host")
        .join(crate_dir.file_name().unwrap());
    let merged = std::fs::read_to_string(bundle.join("AndroidManifest.xml")).unwrap();
    // The splash theme's parent is either resolved (the resources of core-splashscreen, from
    // the Maven repositories this machine reaches, are compiled in) or substituted with its
    // line, with a line saying the library could not be had; never silently.
    let splash = "androidx.core:core-splashscreen:1.0.1";
    let resolved = built.contains(&format!(
        "cargo cetp: with the resources of the library {splash}\n"
    ));
    if resolved {
        assert!(!names("Theme.SplashScreen"), "{built}");
    } else {
        assert!(
            names(&format!("the library {splash} -> not used")),
            "{built}"
        );
        assert!(
            names(
                "the parent Theme.SplashScreen of style Theme.Journal.Starting (values/themes.xml) -> android:Theme.Material.Light.NoActionBar"
            ),
            "{built}"
        );
        assert!(
            names(
                "the parent Theme.SplashScreen of style Theme.Journal.Starting (values-night/themes.xml) -> android:Theme.Material.NoActionBar"
            ),
            "{built}"
        );
    }
    assert!(
        merged.contains("package=\"com.example.journal.debug\""),
        "{merged}"
    );
    for kept in [
        "android:label=\"@string/app_name\"",
        "android:icon=\"@mipmap/ic_launcher\"",
        "android:supportsRtl=\"true\"",
        "android:theme=\"@style/Theme.Journal\"",
        "dev.cetp.CetpToolProvider",
    ] {
        assert!(merged.contains(kept), "no {kept} in {merged}");
    }
    assert!(
        !merged.contains("=\"${"),
        "an unresolved placeholder: {merged}"
    );
    assert!(!merged.contains("JournalApp"), "{merged}");

    // The app's own Kotlin test through the kit, naming R, beside its plain unit test.
    let kit_test = project.join("app/src/test/kotlin/com/example/journal/JournalToolsTest.kt");
    std::fs::create_dir_all(kit_test.parent().unwrap()).unwrap();
    std::fs::write(&kit_test, KIT_TEST).unwrap();
    let tested = run(&mut cargo_cetp(&["test", "--manifest-path", manifest]));
    for line in [
        "  ok      ExampleUnitTest.addition_isCorrect\n",
        "  ok      JournalToolsTest.anApprovedAgentListsTheTools\n",
        "  ok      JournalToolsTest.theAppKeepsItsLabelLocalesAndLayoutDirection\n",
        " 0 failed, 0 skipped\n",
    ] {
        assert!(tested.contains(line), "no {line:?} in:\n{tested}");
    }

    assert_previewed(manifest);

    // A second run finds everything in place and writes nothing.
    let before = snapshot(&project);
    let again = run(cargo_cetp(&["init", project.to_str().unwrap()]).current_dir(scratch.path()));
    assert!(again.contains("0 file(s) changed"), "{again}");
    assert_eq!(snapshot(&project), before, "the second init changed a file");
}
