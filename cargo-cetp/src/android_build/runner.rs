//! The runner: a small binary crate, generated under the app's target directory, that links
//! the app's library and builds its provider on this machine.
//!
//! ```text
//! <target>/cetp/runner-<package>/
//!   Cargo.toml     the app by path, the app's own cetp-provider and the cetp-mcp beside it, serde_json, log
//!   Cargo.lock     the app's, copied when it changes (so every shared version matches)
//!   main.rs        `describe` and `mcp` (the text of cargo-cetp/templates/runner/main.rs)
//! ```
//!
//! It builds into a target directory of its own, `<target>/cetp/runner-<package>/target`. The
//! app's library is compiled there beside `cetp-mcp`, which the app's own builds never link;
//! and the `rlib` of a crate that is also a `cdylib` has no hash
//! in its file name, so in one target directory the two builds would overwrite each other's
//! `lib<app>.rlib` while cargo took both for fresh ("multiple different versions of crate
//! `cetp_provider`" on the next run). The first run compiles the dependencies once more; after
//! that, a run with nothing changed rebuilds nothing. Files are only rewritten when their text
//! changes.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::android_build::app::{AppCrate, cargo, toml_string};
use crate::template::fill;
use crate::{Error, Result};

/// The runner's source, compiled against the app's `cetp-provider`.
pub(crate) const MAIN_RS: &str = include_str!("../../templates/runner/main.rs");

/// Where the MCP host, `cetp-mcp`, sits in the SDK's repository.
const MCP_CRATE_DIR: &str = "cargo-cetp/mcp";

/// The function `export_provider!` defines for tooling.
pub(crate) const BUILDER_FN: &str = "__cetp_provider_builder";

/// A built runner.
#[derive(Debug, Clone)]
pub struct Runner {
    /// The runner's crate directory.
    pub dir: PathBuf,
    /// The runner binary.
    pub binary: PathBuf,
}

/// Generates the runner crate of `app` (without building it) and returns its directory.
///
/// # Errors
/// [`Error::App`] for an app the runner cannot link; [`Error::Io`] when writing fails.
pub(crate) fn generate(app: &AppCrate) -> Result<PathBuf> {
    if !app.links_as_rlib() {
        return Err(Error::App(format!(
            "`{}` is built only as {}: other crates (its tests, cargo cetp) cannot link it. Add \
             \"rlib\": `[lib] crate-type = [\"cdylib\", \"rlib\"]` in {}",
            app.name,
            app.crate_types.join(", "),
            app.manifest_path.display()
        )));
    }
    let dir = app
        .target_dir
        .join("cetp")
        .join(format!("runner-{}", app.name));
    std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
    write_if_changed(&dir.join("Cargo.toml"), &manifest(app))?;
    write_if_changed(&dir.join("main.rs"), MAIN_RS)?;
    let lock = app.workspace_root.join("Cargo.lock");
    if lock.is_file() {
        let text = std::fs::read_to_string(&lock).map_err(Error::io(&lock))?;
        // Copied again only when the app's lock changed: cargo adds the runner's own packages to
        // the copy once, and later runs resolve nothing.
        let seen = dir.join("app-Cargo.lock");
        if std::fs::read_to_string(&seen).ok().as_deref() != Some(text.as_str()) {
            write_if_changed(&dir.join("Cargo.lock"), &text)?;
            write_if_changed(&seen, &text)?;
        }
    }
    Ok(dir)
}

/// The runner's `Cargo.toml` (`templates/runner/Cargo.toml.tmpl`).
fn manifest(app: &AppCrate) -> String {
    fill(
        include_str!("../../templates/runner/Cargo.toml.tmpl"),
        &[
            ("app_name", &toml_string(&app.name)),
            ("name", &toml_string(&format!("cetp-runner-{}", app.name))),
            ("app_dir", &toml_string(&app.dir.to_string_lossy())),
            ("provider", &app.provider.dependency()),
            ("mcp", &app.provider.sdk_crate_dependency(MCP_CRATE_DIR)),
        ],
    )
}

/// Where runners are built: one target directory for every runner of the app's workspace, so
/// the apps of one workspace (or one app built again after `cargo clean -p`) compile the SDK
/// and its dependencies once. Each runner's binary has the app's name.
fn build_dir(app: &AppCrate) -> PathBuf {
    app.target_dir.join("cetp").join("runner-target")
}

/// Generates and builds the runner of `app` (cargo's output goes to stderr).
///
/// # Errors
/// [`Error::Failed`] when the app or the runner does not compile, saying why when the app
/// lacks `export_provider!`.
pub fn build(app: &AppCrate) -> Result<Runner> {
    let dir = generate(app)?;
    let manifest = dir.join("Cargo.toml");
    let mut cmd = cargo();
    let target_dir = build_dir(app);
    cmd.args(["build", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", &target_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    eprintln!("cargo cetp: building `{}` for this machine", app.name);
    let mut child = cmd.spawn().map_err(|e| Error::not_started(&cmd, &e))?;
    let mut output = String::new();
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr)
            .lines()
            .map_while(std::io::Result::ok)
        {
            eprintln!("{line}");
            output.push_str(&line);
            output.push('\n');
        }
    }
    let status = child
        .wait()
        .map_err(|e| Error::program("cargo build", format!("did not finish: {e}")))?;
    if !status.success() {
        let missing = output.lines().any(|line| {
            line.contains(BUILDER_FN)
                && (line.contains("cannot find") || line.contains("undefined"))
        });
        let why = if missing {
            format!(
                "`{}` has no `{BUILDER_FN}`: call `cetp_provider::export_provider!(your_build_fn);` \
                 once in the library (src/lib.rs or a module of it), and use a cetp-provider \
                 that defines it",
                app.name
            )
        } else {
            "the compiler's messages are above".to_owned()
        };
        return Err(Error::Failed(format!(
            "`{}` did not build for this machine: {why}",
            app.name
        )));
    }
    let binary = target_dir.join("debug").join(format!(
        "cetp-runner-{}{}",
        app.name,
        std::env::consts::EXE_SUFFIX
    ));
    Ok(Runner { dir, binary })
}

impl Runner {
    /// The runner's command for `subcommand`, for the app `package` with `files_dir`.
    pub(crate) fn command(&self, subcommand: &str, package: &str, files_dir: &Path) -> Command {
        let mut cmd = Command::new(&self.binary);
        cmd.arg(subcommand)
            .arg("--package")
            .arg(package)
            .arg("--files-dir")
            .arg(files_dir);
        cmd
    }

    /// `describe`: the provider built for `package` in a scratch files directory.
    ///
    /// # Errors
    /// [`Error::Failed`] when the provider does not build (the JSON's `error`) or the runner
    /// fails.
    pub fn describe(&self, package: &str) -> Result<Value> {
        let scratch = tempfile::Builder::new()
            .prefix("cetp-describe-")
            .tempdir()
            .map_err(Error::io(std::env::temp_dir()))?;
        let mut cmd = self.command("describe", package, scratch.path());
        // The audit's refused and rejected calls are expected: only warnings are news.
        if std::env::var_os("CETP_LOG").is_none() {
            cmd.env("CETP_LOG", "warn");
        }
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| Error::not_started(&cmd, &e))?;
        let mut stdout = String::new();
        if let Some(mut out) = child.stdout.take() {
            out.read_to_string(&mut stdout)
                .map_err(Error::io(&self.binary))?;
        }
        let status = child
            .wait()
            .map_err(|e| Error::program("the runner", format!("did not finish: {e}")))?;
        if !status.success() {
            return Err(Error::Failed(format!(
                "the runner failed ({status}); its messages are above"
            )));
        }
        let description: Value = serde_json::from_str(stdout.trim())
            .map_err(|e| Error::Failed(format!("the runner printed no description: {e}")))?;
        if let Some(error) = description["error"].as_str() {
            return Err(Error::Failed(error.to_owned()));
        }
        Ok(description)
    }
}

fn write_if_changed(path: &Path, text: &str) -> Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(Error::io(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::android_build::app::ProviderSource;

    fn app(dir: &Path, crate_types: &[&str]) -> AppCrate {
        AppCrate {
            name: "recipes".into(),
            lib_name: "recipes".into(),
            crate_types: crate_types.iter().map(|t| (*t).to_owned()).collect(),
            dir: dir.to_path_buf(),
            manifest_path: dir.join("Cargo.toml"),
            workspace_root: dir.to_path_buf(),
            target_dir: dir.join("target"),
            provider: ProviderSource::Git {
                url: "https://example.org/sdk".into(),
                commit: "abc".into(),
            },
            provider_dir: dir.join("sdk/cetp-provider"),
            template: None,
            metadata_cetp: Value::Null,
            android_module: None,
        }
    }

    #[test]
    fn the_runner_lives_in_the_target_dir_with_the_apps_lock() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.lock"), "# the app's lock\n").unwrap();
        let runner = generate(&app(dir.path(), &["cdylib", "rlib"])).unwrap();
        assert_eq!(runner, dir.path().join("target/cetp/runner-recipes"));
        let shared = build_dir(&app(dir.path(), &["rlib"]));
        assert_eq!(shared, dir.path().join("target/cetp/runner-target"));
        let manifest = std::fs::read_to_string(runner.join("Cargo.toml")).unwrap();
        assert!(manifest.contains(&format!(
            "app = {{ package = \"recipes\", path = \"{}\" }}",
            dir.path().display()
        )));
        assert!(
            manifest
                .contains(r#"cetp-provider = { git = "https://example.org/sdk", rev = "abc", features = ["test-util"] }"#)
        );
        assert!(
            manifest.contains(r#"cetp-mcp = { git = "https://example.org/sdk", rev = "abc" }"#)
        );
        assert!(manifest.contains("\n[workspace]\n"), "{manifest}");
        assert_eq!(
            std::fs::read_to_string(runner.join("Cargo.lock")).unwrap(),
            "# the app's lock\n"
        );
        assert!(
            std::fs::read_to_string(runner.join("main.rs"))
                .unwrap()
                .contains(BUILDER_FN)
        );
        assert!(!dir.path().join("src").exists());

        // The lock cargo extended is kept until the app's own lock changes.
        std::fs::write(runner.join("Cargo.lock"), "# extended by cargo\n").unwrap();
        generate(&app(dir.path(), &["cdylib", "rlib"])).unwrap();
        assert_eq!(
            std::fs::read_to_string(runner.join("Cargo.lock")).unwrap(),
            "# extended by cargo\n"
        );
        std::fs::write(dir.path().join("Cargo.lock"), "# a new lock\n").unwrap();
        generate(&app(dir.path(), &["cdylib", "rlib"])).unwrap();
        assert_eq!(
            std::fs::read_to_string(runner.join("Cargo.lock")).unwrap(),
            "# a new lock\n"
        );
    }

    #[test]
    fn a_cdylib_only_app_is_told_to_add_rlib() {
        let dir = tempfile::tempdir().unwrap();
        let err = generate(&app(dir.path(), &["cdylib"]))
            .unwrap_err()
            .to_string();
        assert!(err.contains(r#"crate-type = ["cdylib", "rlib"]"#), "{err}");
    }
}
