//! `cargo xtask release --dry-run`: every artifact an app gets is packaged as it would be
//! published, and an app is made and tested from those packages alone, with this checkout out
//! of reach.
//!
//! 1. `cargo package` of every published crate (`PUBLISHED`), unpacked into a **directory
//!    registry** beside the crates.io crates the workspace's lock file names (`cargo vendor`);
//!    a `CARGO_HOME` of its own replaces crates.io with that directory, so every crate, ours
//!    included, resolves by version as from crates.io.
//! 2. The test kit's Maven artifacts (`-Prelease`: jars, sources, javadoc, poms) deployed into a
//!    **local Maven repository** (`maven/`), the layout a public repository has; the Maven runs
//!    below get a local repository of their own holding those and the third-party artifacts
//!    Maven had already fetched (linked, not copied), and no other `dev.cetp` artifact: a kit
//!    installed from a checkout cannot stand in for the released one.
//! 3. Out of reach of the checkout: a scratch directory outside it, no environment variable
//!    naming it, no `CARGO_TARGET_DIR` of its: `cargo install cargo-cetp --version <v>` from the
//!    registry; `cargo cetp new` (the published form, the default); `cargo cetp init` on a copy
//!    of the Compose fixture (`cargo-cetp/tests/fixtures/journal-compose`, an app as real apps
//!    are written); on both `cargo test`, `cargo cetp check` and `cargo cetp test` (the app's
//!    own Java or Kotlin test, through the kit resolved by its coordinates).
//! 4. No file the tools generated, and not the installed `cargo-cetp`, names a path into the
//!    checkout.
//!
//! Publishing itself needs the crates.io and Maven Central accounts of a person; this task is
//! everything short of it. `--keep` leaves the scratch directory for a look (its path is
//! printed); otherwise it is removed after a successful run.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{self, cargo_target_dir, workspace_root};

/// The crates that go to crates.io, in lock-step, dependencies first (`tests/packaging.rs`
/// holds the same list and checks that every other crate says `publish = false`).
pub const PUBLISHED: &[&str] = &[
    "cetp-validator",
    "cetp-macros",
    "cetp-android-template",
    "cetp-provider",
    "cetp-schema-report",
    "cetp-mcp",
    "cargo-cetp",
];

/// The existing app `init` is tried on.
const FIXTURE: &str = "cargo-cetp/tests/fixtures/journal-compose";

const HELP: &str = "\
cargo xtask release --dry-run [--keep]

Packages every crate into a directory registry and the test kit into a local Maven repository,
then, outside this checkout, installs cargo-cetp from that registry and runs `cargo cetp new`
and `cargo cetp init` (on a copy of an existing app), each with `cargo test`, `cargo cetp
check` and `cargo cetp test`, resolving everything by version; fails if a generated file names a
path into the checkout. --keep: leave the scratch directory (printed) for a look.
";

pub fn run(args: &[String]) -> Result<(), String> {
    let mut dry_run = false;
    let mut keep = false;
    for arg in args {
        match arg.as_str() {
            "--dry-run" => dry_run = true,
            "--keep" => keep = true,
            "--help" | "-h" => {
                print!("{HELP}");
                return Ok(());
            }
            other => return Err(format!("release: unknown argument `{other}`\n\n{HELP}")),
        }
    }
    if !dry_run {
        return Err(format!(
            "release: only `--dry-run` exists: publishing needs the crates.io and Maven Central \
             accounts of a person\n\n{HELP}"
        ));
    }
    let checkout = workspace_root()
        .canonicalize()
        .map_err(|e| format!("{}: {e}", workspace_root().display()))?;
    let scratch = Scratch::create(&checkout)?;
    println!("release dry run in {}", scratch.root.display());
    let version = workspace_version(&checkout)?;

    step("packaging the crates into a directory registry");
    let registry = scratch.root.join("registry");
    directory_registry(&registry, &version)?;
    let cargo_home = scratch.root.join("cargo-home");
    fs::create_dir_all(&cargo_home).map_err(io(&cargo_home))?;
    fs::write(
        cargo_home.join("config.toml"),
        format!(
            "# crates.io, as the release dry run sees it: the packaged crates and the crates.io\n\
             # crates they need, in a directory registry.\n\
             [source.crates-io]\nreplace-with = \"release\"\n\n\
             [source.release]\ndirectory = {}\n",
            toml_string(&registry)
        ),
    )
    .map_err(io(&cargo_home))?;

    step("deploying the test kit into a local Maven repository");
    let maven = scratch.root.join("maven");
    deploy_kit(&checkout, &scratch.root, &maven)?;
    let m2 = scratch.root.join("m2");
    local_repository(&maven, &m2)?;

    let outside = Outside {
        checkout: checkout.clone(),
        cargo_home: cargo_home.clone(),
        m2,
        target: scratch.root.join("target"),
    };
    let work = scratch.root.join("work");
    fs::create_dir_all(&work).map_err(io(&work))?;

    step(&format!(
        "cargo install cargo-cetp --version {version}, from the registry"
    ));
    outside.run(
        outside
            .cargo(&work)
            .args(["install", "cargo-cetp", "--locked", "--debug", "--version"])
            .arg(&version)
            .arg("--target-dir")
            .arg(&outside.target),
    )?;

    step("cargo cetp new, then its tests, check and kit test");
    outside.run(outside.cargo(&work).args(["cetp", "new", "field-notes"]))?;
    let new_app = work.join("field-notes");
    app_checks(&outside, &new_app, &new_app)?;

    step("cargo cetp init on an existing Compose app, then its tests, check and kit test");
    let project = work.join("journal");
    copy_tree(&checkout.join(FIXTURE), &project)?;
    let before = manifests(&project);
    outside.run(outside.cargo(&project).args(["cetp", "init"]))?;
    let added: Vec<PathBuf> = manifests(&project)
        .into_iter()
        .filter(|m| !before.contains(m))
        .collect();
    let [manifest] = added.as_slice() else {
        return Err(format!(
            "`cargo cetp init` should have added one crate to {}, not {added:?}",
            project.display()
        ));
    };
    let crate_dir = manifest.parent().unwrap_or(&project).to_path_buf();
    app_checks(&outside, &crate_dir, &project)?;

    step("no generated file names the checkout");
    let mut named = Vec::new();
    names_checkout(&work, &checkout, &mut named)?;
    let installed = cargo_home.join("bin/cargo-cetp");
    let binary = fs::read(&installed).map_err(io(&installed))?;
    if contains(&binary, checkout.to_string_lossy().as_bytes()) {
        named.push(installed);
    }
    if !named.is_empty() {
        return Err(format!(
            "these files name the checkout {}:\n{}",
            checkout.display(),
            named
                .iter()
                .map(|p| format!("  {}", p.display()))
                .collect::<Vec<_>>()
                .join("\n")
        ));
    }

    step("release dry run passed");
    if keep {
        println!("kept: {}", scratch.root.display());
        std::mem::forget(scratch);
    }
    Ok(())
}

fn step(what: &str) {
    println!("\n== release: {what}");
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("{}: {e}", path.display())
}

/// The scratch directory, outside the checkout; removed when dropped (after a failure too,
/// unless kept).
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn create(checkout: &Path) -> Result<Self, String> {
        let base = std::env::temp_dir()
            .canonicalize()
            .map_err(|e| format!("the temporary directory: {e}"))?;
        let root = base.join(format!("cetp-release-dry-run-{}", std::process::id()));
        if root.starts_with(checkout) {
            return Err(format!(
                "the temporary directory {} is inside the checkout; set TMPDIR elsewhere",
                base.display()
            ));
        }
        if root.exists() {
            fs::remove_dir_all(&root).map_err(io(&root))?;
        }
        fs::create_dir_all(&root).map_err(io(&root))?;
        Ok(Scratch { root })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// `[workspace.package] version` of the checkout: every published crate's.
fn workspace_version(checkout: &Path) -> Result<String, String> {
    let manifest = checkout.join("Cargo.toml");
    let text = fs::read_to_string(&manifest).map_err(io(&manifest))?;
    text.split("[workspace.package]")
        .nth(1)
        .and_then(|section| {
            section
                .lines()
                .find(|l| l.trim_start().starts_with("version"))
        })
        .and_then(|line| line.split('"').nth(1))
        .map(str::to_owned)
        .ok_or_else(|| format!("{}: no [workspace.package] version", manifest.display()))
}

/// The packaged crates and the crates.io crates of the lock file, as a directory registry.
fn directory_registry(registry: &Path, version: &str) -> Result<(), String> {
    let mut package = util::cargo();
    package.args(["package", "--allow-dirty", "--no-verify"]);
    for name in PUBLISHED {
        package.args(["-p", name]);
    }
    util::run(&mut package)?;
    util::run(
        util::cargo()
            .args(["vendor", "--locked", "--versioned-dirs", "--quiet"])
            .arg(registry)
            .stdout(std::process::Stdio::null()),
    )?;
    for name in PUBLISHED {
        let file = cargo_target_dir()
            .join("package")
            .join(format!("{name}-{version}.crate"));
        let unpacked = registry.join(format!("{name}-{version}"));
        if unpacked.exists() {
            return Err(format!(
                "{name} {version} is both ours and in the lock file's crates.io crates"
            ));
        }
        util::run(
            Command::new("tar")
                .arg("-xzf")
                .arg(&file)
                .arg("-C")
                .arg(registry),
        )?;
        let sum = sha256(&file)?;
        let checksum = unpacked.join(".cargo-checksum.json");
        fs::write(
            &checksum,
            format!("{{\"files\":{{}},\"package\":\"{sum}\"}}"),
        )
        .map_err(io(&checksum))?;
    }
    Ok(())
}

/// The SHA-256 of a file, in hex (`sha256sum`, coreutils).
fn sha256(file: &Path) -> Result<String, String> {
    let out = Command::new("sha256sum")
        .arg(file)
        .output()
        .map_err(|e| format!("sha256sum: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .next()
        .filter(|s| s.len() == 64 && out.status.success())
        .map(str::to_owned)
        .ok_or_else(|| format!("sha256sum {}: {text}", file.display()))
}

/// The kit's release artifacts (`-Prelease`), deployed with Maven's own deploy plugin into the
/// repository `maven`, built under `<scratch>/kit-build`.
fn deploy_kit(checkout: &Path, scratch: &Path, maven: &Path) -> Result<(), String> {
    let aidl = util::aidl()?;
    let mut mvn = util::mvn();
    mvn.current_dir(checkout)
        .args([
            "-f",
            "android-testkit/pom.xml",
            "-Prelease",
            "deploy",
            "-DskipTests",
        ])
        .arg(format!("-Dcetp.aidl={}", aidl.display()))
        .arg(format!(
            "-Dcetp.kit.out={}",
            scratch.join("kit-build").display()
        ))
        .arg(format!(
            "-DaltDeploymentRepository=release-dry-run::file://{}",
            maven.display()
        ));
    if std::env::var_os("CI").is_some() {
        mvn.arg("--no-transfer-progress");
    }
    util::run(&mut mvn)?;
    // What a public repository requires beside each jar (`tests/kit_pom.rs` checks the poms).
    for module in ["cetp-testkit", "androidx-test-standin"] {
        let dir = maven.join("dev/cetp").join(module);
        let mut names = Vec::new();
        for entry in walk(&dir)? {
            names.push(
                entry
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        for suffix in [".pom", ".jar", "-sources.jar", "-javadoc.jar"] {
            if !names
                .iter()
                .any(|n| n.starts_with(module) && n.ends_with(suffix))
            {
                return Err(format!(
                    "{module}: no *{suffix} deployed in {}",
                    dir.display()
                ));
            }
        }
    }
    Ok(())
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(io(dir))? {
        let path = entry.map_err(io(dir))?.path();
        if path.is_dir() {
            out.extend(walk(&path)?);
        } else {
            out.push(path);
        }
    }
    Ok(out)
}

/// A local Maven repository for the runs outside: what Maven already fetched (hard links,
/// copies where links are not possible; Maven's bookkeeping files always copied, since Maven
/// rewrites them in place) but no `dev/cetp`, then the released `dev/cetp` of `maven`.
fn local_repository(maven: &Path, m2: &Path) -> Result<(), String> {
    let (user, _) =
        cargo_cetp::android_build::bundle::local_repository(&|name| std::env::var_os(name), None)
            .map_err(|e| e.to_string())?;
    if user.is_dir() {
        mirror(&user, m2, &|relative| relative.starts_with("dev/cetp"))?;
    }
    mirror(&maven.join("dev/cetp"), &m2.join("dev/cetp"), &|_| false)
}

/// `from` into `to`, leaving out what `skip` says (by path relative to `from`).
fn mirror(from: &Path, to: &Path, skip: &dyn Fn(&Path) -> bool) -> Result<(), String> {
    let mut stack = vec![PathBuf::new()];
    while let Some(relative) = stack.pop() {
        let dir = from.join(&relative);
        fs::create_dir_all(to.join(&relative)).map_err(io(&to.join(&relative)))?;
        for entry in fs::read_dir(&dir).map_err(io(&dir))? {
            let entry = entry.map_err(io(&dir))?;
            let path = relative.join(entry.file_name());
            if skip(&path) {
                continue;
            }
            let kind = entry.file_type().map_err(io(&entry.path()))?;
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let target = to.join(&path);
                let name = entry.file_name().to_string_lossy().into_owned();
                let bookkeeping = name.starts_with('_')
                    || name.starts_with("maven-metadata")
                    || name.ends_with(".properties")
                    || name.ends_with(".lastUpdated");
                if bookkeeping || fs::hard_link(entry.path(), &target).is_err() {
                    fs::copy(entry.path(), &target).map_err(io(&target))?;
                }
            }
        }
    }
    Ok(())
}

/// How the runs outside the checkout are started.
struct Outside {
    checkout: PathBuf,
    cargo_home: PathBuf,
    m2: PathBuf,
    /// One target directory for every build outside, as two apps of one developer share it.
    target: PathBuf,
}

impl Outside {
    /// `program` in `dir`, with an environment that names nothing of the checkout: every
    /// variable whose value names it is dropped, and so is everything Cargo set for this xtask
    /// (`CARGO_*` but the build settings CI exports). The toolchain is the pinned one
    /// (`rust-toolchain.toml` is out of reach too).
    fn command(&self, program: &str, dir: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(dir);
        let checkout = self.checkout.to_string_lossy().into_owned();
        for (name, value) in std::env::vars_os() {
            let name_text = name.to_string_lossy();
            let keep_cargo = matches!(
                name_text.as_ref(),
                "CARGO_INCREMENTAL" | "CARGO_PROFILE_DEV_DEBUG" | "CARGO_TERM_COLOR"
            );
            let from_cargo = (name_text.starts_with("CARGO") && !keep_cargo)
                || matches!(
                    name_text.as_ref(),
                    "RUSTC" | "RUSTDOC" | "RUSTUP_TOOLCHAIN" | "OUT_DIR"
                );
            if from_cargo || value.to_string_lossy().contains(&checkout) {
                cmd.env_remove(&name);
            }
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.cargo_home.join("bin")];
        paths.extend(std::env::split_paths(&path).filter(|p| !p.starts_with(&self.checkout)));
        cmd.env("PATH", std::env::join_paths(paths).unwrap_or(path))
            .env("CARGO_HOME", &self.cargo_home)
            .env("CARGO_TARGET_DIR", &self.target)
            .env("RUSTUP_TOOLCHAIN", pinned_toolchain(&self.checkout))
            .env("CETP_M2_REPO", &self.m2);
        cmd
    }

    fn cargo(&self, dir: &Path) -> Command {
        self.command("cargo", dir)
    }

    fn run(&self, cmd: &mut Command) -> Result<(), String> {
        util::run(cmd)
    }
}

/// The channel of `rust-toolchain.toml`.
fn pinned_toolchain(checkout: &Path) -> String {
    fs::read_to_string(checkout.join("rust-toolchain.toml"))
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.trim_start().starts_with("channel"))
                .and_then(|l| l.split('"').nth(1).map(str::to_owned))
        })
        .unwrap_or_else(|| "stable".to_owned())
}

/// `cargo test`, `cargo cetp check` and `cargo cetp test` of the app crate in `crate_dir`.
fn app_checks(outside: &Outside, crate_dir: &Path, project: &Path) -> Result<(), String> {
    outside.run(outside.cargo(crate_dir).arg("test"))?;
    outside.run(outside.cargo(crate_dir).args(["cetp", "check"]))?;
    let out = outside
        .cargo(crate_dir)
        .args(["cetp", "test"])
        .output()
        .map_err(|e| format!("cargo cetp test: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    if !out.status.success() {
        return Err(format!(
            "`cargo cetp test` in {} failed ({}):\n{}",
            crate_dir.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if !matches!(counts(&stdout), Some((passed, 0)) if passed > 0) {
        return Err(format!(
            "`cargo cetp test` in {} ran no test of the app's ({})",
            crate_dir.display(),
            project.display()
        ));
    }
    Ok(())
}

/// `(passed, failed)` of `cargo cetp test`'s last line, "3 passed, 0 failed, 0 skipped".
fn counts(stdout: &str) -> Option<(usize, usize)> {
    let line = stdout.lines().rev().find(|l| l.ends_with(" skipped"))?;
    let mut numbers = line
        .split(", ")
        .map(|part| part.split(' ').next().and_then(|n| n.parse().ok()));
    Some((numbers.next()??, numbers.next()??))
}

/// Every `Cargo.toml` under `dir`, outside build directories.
fn manifests(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && !is_build_output(&path) {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "Cargo.toml") {
                out.insert(path);
            }
        }
    }
    out
}

/// `target/`, `build/`, `.gradle/`: what builds make, not what the tools generated.
fn is_build_output(dir: &Path) -> bool {
    dir.file_name()
        .is_some_and(|n| n == "target" || n == "build" || n == ".gradle")
}

/// The files under `dir` (outside build output) whose bytes name `checkout`.
fn names_checkout(dir: &Path, checkout: &Path, into: &mut Vec<PathBuf>) -> Result<(), String> {
    let needle = checkout.to_string_lossy().into_owned();
    for entry in fs::read_dir(dir).map_err(io(dir))? {
        let path = entry.map_err(io(dir))?.path();
        if path.is_dir() {
            if !is_build_output(&path) {
                names_checkout(&path, checkout, into)?;
            }
        } else if fs::read(&path).is_ok_and(|bytes| contains(&bytes, needle.as_bytes())) {
            into.push(path);
        }
    }
    Ok(())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// `from` copied into `to` (files and directories; a fixture holds nothing else).
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(io(to))?;
    for entry in fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        let target = to.join(entry.file_name());
        if entry.file_type().map_err(io(&entry.path()))?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target).map_err(io(&target))?;
        }
    }
    Ok(())
}

/// A path as a TOML basic string.
fn toml_string(path: &Path) -> String {
    format!(
        "\"{}\"",
        path.to_string_lossy()
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_naming_the_checkout_is_found_and_build_output_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let checkout = Path::new("/home/dev/cetp-rs");
        let app = dir.path().join("app");
        fs::create_dir_all(app.join("android")).unwrap();
        fs::create_dir_all(app.join("target/debug")).unwrap();
        fs::write(
            app.join("Cargo.toml"),
            "cetp-provider = { version = \"0.1.0\" }\n",
        )
        .unwrap();
        fs::write(
            app.join("android/settings.gradle.kts"),
            "project(\":cetp\").projectDir = file(\"/home/dev/cetp-rs/android-template\")\n",
        )
        .unwrap();
        fs::write(app.join("target/debug/x.d"), "/home/dev/cetp-rs/a.rs").unwrap();
        let mut named = Vec::new();
        names_checkout(dir.path(), checkout, &mut named).unwrap();
        assert_eq!(named, vec![app.join("android/settings.gradle.kts")]);
    }

    #[test]
    fn the_kit_test_counts_are_read() {
        assert_eq!(
            counts("  ok      AgentToolsTest.lists\n2 passed, 0 failed, 0 skipped\n"),
            Some((2, 0))
        );
        assert_eq!(counts("0 passed, 1 failed, 0 skipped"), Some((0, 1)));
        assert_eq!(counts("BUILD FAILURE"), None);
    }

    #[test]
    fn the_pinned_toolchain_is_read() {
        let channel = pinned_toolchain(&workspace_root());
        assert!(channel.starts_with("1."), "{channel}");
    }
}
