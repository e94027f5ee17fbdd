//! `cargo xtask android-check`: what can be verified for Android without an NDK linker or the
//! Android Gradle Plugin.
//!
//! 1. `rustup target add aarch64-linux-android`;
//! 2. `cargo check` of cetp-provider with the `jni` feature, and of cetp-validator, for that
//!    target (the `cfg(target_os = "android")` paths: android_logger, the panic hook);
//! 3. staticlib builds of cetp-provider (`jni`) and of the fixture provider for that target
//!    (code generation without linking; a cdylib would need the NDK's linker);
//! 4. the template's resources compiled as the library they are (`aapt`, installed as root when missing,
//!    against the framework resources; `R` for `dev.cetp` with non-constant ids, as AGP compiles
//!    a library), then `javac -Werror` of the Android template with that `R` and the Java the
//!    AIDL compiler generates from its `src/main/aidl`, against `org.robolectric:android-all`.

use std::process::Command;

use crate::util::{self, workspace_root};

const TARGET: &str = "aarch64-linux-android";

pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("android-check takes no arguments (got `{extra}`)"));
    }
    let mut rustup = Command::new("rustup");
    rustup.args(["target", "add", TARGET]);
    util::run(&mut rustup)?;

    let mut check = util::cargo();
    check.args([
        "check",
        "-p",
        "cetp-provider",
        "-p",
        "cetp-validator",
        "--features",
        "cetp-provider/jni",
        "--target",
        TARGET,
    ]);
    util::run(&mut check)?;

    for (package, features) in [
        ("cetp-provider", Some("jni")),
        ("cetp-fixture-provider", None),
    ] {
        let mut build = util::cargo();
        build.args(["rustc", "-p", package, "--lib", "--target", TARGET]);
        if let Some(features) = features {
            build.args(["--features", features]);
        }
        build.args(["--crate-type", "staticlib"]);
        util::run(&mut build)?;
    }

    // `cargo cetp` only finds these; the repository's own chores install them (as root).
    util::aidl()?;
    util::aapt()?;
    let work = util::cargo_target_dir().join("cetp-android-check");
    let sdk =
        cargo_cetp::android_build::bundle::Sdk::at(&workspace_root()).map_err(|e| e.to_string())?;
    cargo_cetp::android_build::bundle::check_template(&sdk, &work).map_err(|e| e.to_string())?;
    eprintln!(
        "xtask: android-check passed ({TARGET} check + staticlib builds, template resources (aapt) and javac -Werror)"
    );
    Ok(())
}
