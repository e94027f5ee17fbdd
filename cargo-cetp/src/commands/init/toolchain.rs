//! What the machine still needs before the app's first Android build with the provider: the
//! Rust targets of the Android ABIs, cargo-ndk, an NDK recent enough for 16 KB pages. `init`
//! prints each with the command that gets it, and installs nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::android_build::app::cargo;
use crate::commands::new::NDK_VERSION;

/// The Rust targets of the ABIs the template builds by default (`cetp.abis`).
const TARGETS: [&str; 3] = [
    "aarch64-linux-android",
    "armv7-linux-androideabi",
    "x86_64-linux-android",
];

/// The oldest NDK whose linker aligns libraries to 16 KB pages by default (Google Play requires
/// 16 KB page support for apps targeting Android 15+).
const MIN_NDK_MAJOR: u32 = 28;

/// What was found on this machine and in the project.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Found {
    /// `rustup target list --installed`; `None` without rustup.
    pub installed_targets: Option<Vec<String>>,
    /// Whether `cargo ndk --version` answers.
    pub cargo_ndk: bool,
    /// The NDK the project builds with: `ndkVersion` of the app module, else
    /// `cetp.ndkVersion`, else the template's default.
    pub ndk_version: String,
    /// Whether that NDK is in the Android SDK (`sdk.dir` of `local.properties`,
    /// `ANDROID_HOME`, `ANDROID_SDK_ROOT`); `None`: no SDK found.
    pub ndk_installed: Option<bool>,
}

/// Reads the machine and the project at `root` (`app_build`: the app module's build file text).
pub(super) fn find(root: &Path, app_build: &str, properties: &str) -> Found {
    let installed_targets = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .map(|l| l.trim().to_owned())
                .collect()
        });
    let cargo_ndk = cargo()
        .args(["ndk", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    let ndk_version = literal_after(app_build, "ndkVersion")
        .or_else(|| property(properties, "cetp.ndkVersion"))
        .unwrap_or_else(|| NDK_VERSION.to_owned());
    let sdk = std::fs::read_to_string(root.join("local.properties"))
        .ok()
        .and_then(|text| property(&text, "sdk.dir"))
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("ANDROID_HOME").map(PathBuf::from))
        .or_else(|| std::env::var_os("ANDROID_SDK_ROOT").map(PathBuf::from));
    let ndk_installed = sdk.map(|sdk| sdk.join("ndk").join(&ndk_version).is_dir());
    Found {
        installed_targets,
        cargo_ndk,
        ndk_version,
        ndk_installed,
    }
}

/// The steps still to take, one line each with its command.
pub(super) fn needs(found: &Found) -> Vec<String> {
    let mut out = Vec::new();
    match &found.installed_targets {
        Some(installed) => {
            let missing: Vec<&str> = TARGETS
                .iter()
                .copied()
                .filter(|t| !installed.iter().any(|i| i == t))
                .collect();
            if !missing.is_empty() {
                out.push(format!(
                    "the Rust targets of the Android ABIs: rustup target add {}",
                    missing.join(" ")
                ));
            }
        }
        None => out.push(format!(
            "rustup (https://rustup.rs), then: rustup target add {}",
            TARGETS.join(" ")
        )),
    }
    if !found.cargo_ndk {
        out.push("cargo-ndk, which builds the library per ABI: cargo install cargo-ndk".to_owned());
    }
    let major = found
        .ndk_version
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok());
    if major.is_some_and(|m| m < MIN_NDK_MAJOR) {
        out.push(format!(
            "an NDK r{MIN_NDK_MAJOR} or newer (the project names {}): older linkers do not align \
             libraries to 16 KB pages, which Google Play requires; set ndkVersion = \"{NDK_VERSION}\" \
             (or cetp.ndkVersion in gradle.properties), then: sdkmanager \"ndk;{NDK_VERSION}\"",
            found.ndk_version
        ));
    } else if found.ndk_installed != Some(true) {
        out.push(format!(
            "the NDK {0} (Android Studio's SDK Manager, NDK (Side by side)), or: sdkmanager \
             \"ndk;{0}\"",
            found.ndk_version
        ));
    }
    out
}

/// `key = "value"` in a Gradle file (the first literal assignment).
fn literal_after(text: &str, key: &str) -> Option<String> {
    crate::android_build::layout::code_lines(text)
        .iter()
        .filter_map(|l| l.trim().strip_prefix(key)?.trim_start().strip_prefix('='))
        .find_map(crate::android_build::bundle::gradle::string_literal)
}

/// `key=value` in a `.properties` file.
fn property(text: &str, key: &str) -> Option<String> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_missing_piece_is_one_line_with_its_command() {
        let ready = Found {
            installed_targets: Some(TARGETS.iter().map(|t| (*t).to_owned()).collect()),
            cargo_ndk: true,
            ndk_version: NDK_VERSION.to_owned(),
            ndk_installed: Some(true),
        };
        assert!(needs(&ready).is_empty());

        let bare = Found {
            installed_targets: Some(vec![
                "x86_64-unknown-linux-gnu".to_owned(),
                TARGETS[2].to_owned(),
            ]),
            cargo_ndk: false,
            ndk_version: "26.1.10909125".to_owned(),
            ndk_installed: None,
        };
        let lines = needs(&bare);
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert!(
            lines[0].ends_with("rustup target add aarch64-linux-android armv7-linux-androideabi")
        );
        assert!(lines[1].ends_with("cargo install cargo-ndk"));
        assert!(
            lines[2].contains("r28 or newer (the project names 26.1.10909125)"),
            "{}",
            lines[2]
        );

        let no_ndk = Found {
            ndk_installed: Some(false),
            ..ready
        };
        assert_eq!(
            needs(&no_ndk),
            [format!(
                "the NDK {NDK_VERSION} (Android Studio's SDK Manager, NDK (Side by side)), or: \
                 sdkmanager \"ndk;{NDK_VERSION}\""
            )]
        );
    }

    #[test]
    fn the_ndk_version_comes_from_the_app_then_the_properties() {
        let dir = tempfile::tempdir().unwrap();
        let app =
            "android {\n    // ndkVersion = \"25.0.0\"\n    ndkVersion = \"28.1.13356709\"\n}\n";
        assert_eq!(find(dir.path(), app, "").ndk_version, "28.1.13356709");
        assert_eq!(
            find(dir.path(), "", "cetp.ndkVersion=27.0.1\n").ndk_version,
            "27.0.1"
        );
        assert_eq!(find(dir.path(), "", "").ndk_version, NDK_VERSION);
        std::fs::write(
            dir.path().join("local.properties"),
            format!("sdk.dir={}\n", dir.path().display()),
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("ndk").join(NDK_VERSION)).unwrap();
        assert_eq!(find(dir.path(), "", "").ndk_installed, Some(true));
    }
}
