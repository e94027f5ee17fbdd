//! `cargo cetp check`'s CETP v2 section on an app made by `cargo cetp new` outside the
//! workspace: whether the app advertises v2 (`cetp.v2` in its `gradle.properties`), each v2
//! violation with what to change, an error while v2 is advertised (ClawSeed's newest client
//! never falls back to v1) and a warning once `cetp.v2=false` turns it off.
//!
//! Like `new_app`, minutes of compiling (the runner builds its own copy of the SDK), so plain
//! `cargo test` leaves it out (`test = false`) and `cargo xtask test` runs it (`cargo test -p
//! cargo-cetp --test check_v2`), into this workspace's target directory with its `Cargo.lock`.

use std::path::Path;

// The preview check there is the other end-to-end tests'.
#[allow(dead_code)]
mod common;

use common::{cargo_cetp, run, workspace};

/// `cargo cetp check` of `manifest`: its exit code and standard output.
fn check(manifest: &Path) -> (Option<i32>, String) {
    let out = cargo_cetp(&["check", "--manifest-path", manifest.to_str().unwrap()])
        .output()
        .expect("cargo cetp check starts");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code(), stdout)
}

#[test]
fn check_reports_cetp_v2_conformance_and_whether_the_app_advertises_it() {
    let scratch = tempfile::tempdir().unwrap();
    let app = scratch.path().join("ledger");
    run(&mut cargo_cetp(&["new", app.to_str().unwrap()]));
    std::fs::copy(workspace().join("Cargo.lock"), app.join("Cargo.lock")).unwrap();
    let manifest = app.join("Cargo.toml");
    let properties = app.join("android/gradle.properties");
    let advertised = std::fs::read_to_string(&properties).unwrap();
    assert!(!advertised.contains("cetp.v2"), "{advertised}");

    // A new app passes every v2 check and advertises v2.
    let (code, checked) = check(&manifest);
    assert_eq!(code, Some(0), "{checked}");
    assert!(
        checked.contains(
            "\nCETP v2 conformance: ok (advertised: ClawSeed's newest client speaks v2 to \
             this app)\n"
        ),
        "{checked}"
    );
    assert!(
        checked.contains(
            "\nCETP v2 optional capabilities: large_results (every tool answers in its reply"
        ),
        "{checked}"
    );
    assert!(checked.contains("0 error(s), 0 warning(s)"), "{checked}");

    // One property turns v2 off, and check says what that means.
    let off = format!("{advertised}cetp.v2=false\n");
    std::fs::write(&properties, &off).unwrap();
    let (code, checked) = check(&manifest);
    assert_eq!(code, Some(0), "{checked}");
    assert!(
        checked.contains(
            "\nCETP v2 conformance: ok, but v2 is off (`cetp.v2=false` in \
             android/gradle.properties), so ClawSeed's newest client uses v1 with this app\n"
        ),
        "{checked}"
    );
    assert!(checked.contains("0 error(s), 0 warning(s)"), "{checked}");

    // A scope name v1 accepts and v2 agents refuse: a warning while v2 is off...
    let lib = app.join("src/lib.rs");
    let source = std::fs::read_to_string(&lib).unwrap();
    let colon = source.replace("\"items.read\"", "\"items:read\"");
    assert_ne!(colon, source);
    std::fs::write(&lib, colon).unwrap();
    let violation = "CETP v2: scope `items:read`: the name must match [a-z][a-z0-9_.-]{0,127}\n  \
                     fix: rename the scope with lower-case letters, digits, `_`, `.` and `-` only \
                     (e.g. `items.read`), in `.scope(…)` and in every `#[tool(scopes = […])]` \
                     naming it";
    let (code, checked) = check(&manifest);
    assert_eq!(code, Some(0), "{checked}");
    assert!(
        checked.contains(&format!(
            "warning: {violation}, before removing `cetp.v2=false` from android/gradle.properties\n"
        )),
        "{checked}"
    );
    assert!(
        checked.contains("\nCETP v2 conformance: 1 violation(s); v2 is off (`cetp.v2=false`"),
        "{checked}"
    );
    assert!(checked.contains("CETP v1 conformance: ok"), "{checked}");
    assert!(checked.contains("0 error(s), 1 warning(s)"), "{checked}");

    // ...and an error, with both ways out, once v2 is advertised again.
    std::fs::write(&properties, &advertised).unwrap();
    let (code, checked) = check(&manifest);
    assert_eq!(code, Some(1), "{checked}");
    assert!(
        checked.contains(&format!(
            "error: {violation}; or, until it passes, stop advertising v2 with `cetp.v2=false` \
             in android/gradle.properties (the newest client then uses v1)\n"
        )),
        "{checked}"
    );
    assert!(
        checked.contains(
            "\nCETP v2 conformance: 1 violation(s) while v2 is advertised: ClawSeed's newest \
             client speaks only v2 to an app advertising it and never falls back to v1, so it \
             would drop this app\n"
        ),
        "{checked}"
    );
    assert!(checked.contains("1 error(s), 0 warning(s)"), "{checked}");
}
