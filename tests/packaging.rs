//! The crates an app or a developer installs are ready for crates.io, and nothing else is
//! publishable. Checked from `cargo metadata` and `cargo package --list` (both offline, no
//! build): `cargo xtask test` then packages and builds each published crate for real.
//!
//! For each published crate: it is publishable; its version is the workspace's (one version for
//! every crate, moved together); it has a description, a license, a repository, a homepage,
//! keywords (at most five, as crates.io accepts), categories and a `rust-version`; its readme is
//! `README.md` in its own directory; its package holds that README and both license texts, and
//! no file outside `Cargo.toml`, `README.md`, `LICENSE-*`, sources and templates; and each of its
//! dependencies on a crate of this workspace (but dev-dependencies, which `cargo publish`
//! drops when they have no version) is a published crate asked for by that same version. And
//! `cetp-provider`'s `jni` feature brings the Android module's crate, `cetp-android-template`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The crates that go to crates.io: what an app ships (`cetp-provider`, the two crates it is
/// made of, and the Android module as a crate) and what a developer installs (`cargo-cetp` and the tooling crates it uses or
/// generates code against).
const PUBLISHED: &[&str] = &[
    "cetp-provider",
    "cetp-macros",
    "cetp-validator",
    "cetp-android-template",
    "cargo-cetp",
    "cetp-mcp",
    "cetp-schema-report",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()));
    cmd.current_dir(root());
    cmd
}

fn metadata() -> Value {
    let output = cargo()
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON")
}

fn text<'a>(package: &'a Value, key: &str) -> &'a str {
    package[key].as_str().unwrap_or("")
}

/// The version `[workspace.package]` gives.
fn workspace_version() -> String {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let section = manifest
        .split("[workspace.package]")
        .nth(1)
        .expect("the root Cargo.toml has [workspace.package]");
    let line = section
        .lines()
        .find(|line| line.trim_start().starts_with("version"))
        .expect("[workspace.package] has a version");
    line.split('"').nth(1).expect("a quoted version").to_owned()
}

/// What is wrong with one published package (empty when nothing).
fn problems(package: &Value, members: &[Value], version: &str) -> Vec<String> {
    let name = text(package, "name");
    let mut out = Vec::new();
    if !package["publish"].is_null() {
        out.push("says `publish = false`".to_owned());
    }
    if text(package, "version") != version {
        out.push(format!(
            "has version {}, the workspace {version} (use `version.workspace = true`)",
            text(package, "version")
        ));
    }
    for key in [
        "description",
        "license",
        "repository",
        "homepage",
        "rust_version",
    ] {
        if text(package, key).trim().is_empty() {
            out.push(format!("has no `{}`", key.replace('_', "-")));
        }
    }
    let keywords = package["keywords"].as_array().map_or(0, Vec::len);
    if !(1..=5).contains(&keywords) {
        out.push(format!(
            "has {keywords} keywords (crates.io takes 1 to 5 to be found)"
        ));
    }
    if package["categories"].as_array().is_none_or(Vec::is_empty) {
        out.push("has no categories".to_owned());
    }
    let dir = Path::new(text(package, "manifest_path"))
        .parent()
        .unwrap()
        .to_path_buf();
    if package["readme"].as_str() != Some("README.md") || !dir.join("README.md").is_file() {
        out.push(format!(
            "has readme {:?}: it must be README.md in {}",
            package["readme"],
            dir.display()
        ));
    }
    for dep in package["dependencies"].as_array().into_iter().flatten() {
        let dep_name = text(dep, "name");
        let Some(member) = members.iter().find(|m| text(m, "name") == dep_name) else {
            continue;
        };
        if dep["kind"].as_str() == Some("dev") || dep_name == name {
            continue;
        }
        let req = text(dep, "req");
        if req != format!("^{version}") && req != format!("={version}") {
            out.push(format!(
                "depends on {dep_name} as `{req}`: a path dependency needs `version = \"{version}\"` \
                 (through [workspace.dependencies])"
            ));
        }
        if !member["publish"].is_null() {
            out.push(format!("depends on {dep_name}, which is not published"));
        }
    }
    out.extend(package_list_problems(name));
    out
}

/// What is wrong with the files `cargo package` would put in the crate.
fn package_list_problems(name: &str) -> Vec<String> {
    let output = cargo()
        .args([
            "package",
            "--list",
            "--allow-dirty",
            "--offline",
            "-p",
            name,
        ])
        .output()
        .expect("cargo runs");
    if !output.status.success() {
        return vec![format!(
            "does not package: {}",
            String::from_utf8_lossy(&output.stderr)
        )];
    }
    let files: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    let mut out = Vec::new();
    for needed in ["Cargo.toml", "README.md", "LICENSE-MIT", "LICENSE-APACHE"] {
        if !files.iter().any(|f| f == needed) {
            out.push(format!("packages no {needed}"));
        }
    }
    let allowed = |file: &str| {
        matches!(
            file,
            "Cargo.toml" | "Cargo.toml.orig" | "Cargo.lock" | "README.md" | ".cargo_vcs_info.json"
        ) || file.starts_with("LICENSE-")
            // The Android module's own files (`cetp-android-template`).
            || (name == "cetp-android-template"
                && matches!(file, "build.gradle.kts" | "consumer-rules.pro"))
            || ["src/", "tests/", "benches/", "templates/"]
                .iter()
                .any(|dir| file.starts_with(dir))
    };
    for file in files.iter().filter(|f| !allowed(f)) {
        out.push(format!("packages {file} (list what ships in `include`)"));
    }
    out
}

#[test]
fn published_crates_are_ready_for_crates_io_and_the_rest_is_not_publishable() {
    let metadata = metadata();
    let members: Vec<Value> = metadata["packages"].as_array().unwrap().clone();
    let version = workspace_version();
    let mut report = Vec::new();
    for wanted in PUBLISHED {
        match members.iter().find(|p| text(p, "name") == *wanted) {
            Some(package) => {
                for problem in problems(package, &members, &version) {
                    report.push(format!("{wanted} {problem}"));
                }
            }
            None => report.push(format!("{wanted} is not a workspace member")),
        }
    }
    // An Android app's `cargo metadata` names the template's directory: `cetp-provider`'s `jni`
    // feature (the one every Android app enables) brings the template crate of its version.
    let provider = members
        .iter()
        .find(|p| text(p, "name") == "cetp-provider")
        .unwrap();
    let jni = provider["features"]["jni"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if !jni.contains(&serde_json::json!("dep:cetp-android-template")) {
        report.push(
            "cetp-provider's `jni` feature does not bring cetp-android-template: an app's \
             `cargo metadata` would not name the Android module"
                .to_owned(),
        );
    }
    for package in &members {
        let name = text(package, "name");
        if !PUBLISHED.contains(&name) && package["publish"] != serde_json::json!([]) {
            report.push(format!(
                "{name} is publishable: add `publish = false` to its [package], or list it in \
                 PUBLISHED here and make it ready"
            ));
        }
    }
    assert!(report.is_empty(), "\n{}", report.join("\n"));
}
