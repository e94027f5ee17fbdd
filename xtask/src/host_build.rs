//! `cargo xtask host-build <crate-dir> [--release]`: the host bundle the JVM suite loads, built
//! by `cargo cetp build` (`cargo_cetp::android_build::bundle`) into this repository's `target/cetp-host/`
//! (with `--release`: `target/cetp-host-release/`), where `tests/android` looks for it whatever
//! `CARGO_TARGET_DIR` says. See `docs/host-bundle.md`.

use std::path::{Path, PathBuf};

use cargo_cetp::android_build::app::AppCrate;
use cargo_cetp::android_build::bundle::{self, Sdk};

use crate::util::workspace_root;

const USAGE: &str = "\
cargo xtask host-build <crate-dir> [--release]

Builds the host bundle of the crate in <crate-dir> (relative to the current directory or to the
workspace root) with this checkout's Android template, into target/cetp-host/<dir-name>/ (with
--release: the library built with the release profile, into target/cetp-host-release/), where
the Maven suite in tests/android reads it. The same code as `cargo cetp build`; see
docs/host-bundle.md.

Options:
  --release    Build the native library with the release profile
  -h, --help   This text
";

pub fn run(args: &[String]) -> Result<(), String> {
    let mut release = false;
    let mut dir = None;
    for arg in args {
        match arg.as_str() {
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(());
            }
            "--release" => release = true,
            flag if flag.starts_with('-') => {
                return Err(format!("unknown flag `{flag}`\n\n{USAGE}"));
            }
            path if dir.is_none() => dir = Some(path.to_owned()),
            extra => return Err(format!("unexpected argument `{extra}`\n\n{USAGE}")),
        }
    }
    let dir = dir.ok_or_else(|| format!("name the crate directory\n\n{USAGE}"))?;
    let crate_dir = resolve_dir(&dir)?;
    let bundle = build(&crate_dir, release)?;
    eprintln!("xtask: host bundle ready in {}", bundle.display());
    Ok(())
}

/// The crate directory, relative to the current directory or to the workspace root.
pub fn resolve_dir(dir: &str) -> Result<PathBuf, String> {
    let candidates = [PathBuf::from(dir), workspace_root().join(dir)];
    candidates
        .into_iter()
        .find(|c| c.join("Cargo.toml").is_file())
        .map(|c| c.canonicalize().unwrap_or(c))
        .ok_or_else(|| format!("`{dir}` is not a crate directory (no Cargo.toml)"))
}

/// Where bundles go: `target/cetp-host` (debug) or `target/cetp-host-release`.
pub fn bundle_root(release: bool) -> PathBuf {
    workspace_root().join("target").join(if release {
        "cetp-host-release"
    } else {
        "cetp-host"
    })
}

/// Builds the bundle of the crate in `crate_dir` with this checkout's template; returns its
/// directory.
pub fn build(crate_dir: &Path, release: bool) -> Result<PathBuf, String> {
    // `cargo cetp build` only finds these; the repository's own chores install them (as root).
    crate::util::aidl()?;
    crate::util::aapt()?;
    let app = AppCrate::locate(Some(&crate_dir.join("Cargo.toml"))).map_err(|e| e.to_string())?;
    let sdk = Sdk::at(&workspace_root()).map_err(|e| e.to_string())?;
    let out = bundle_root(release).join(bundle::bundle_name(&app));
    bundle::build_with(&app, &sdk, release, Some(&out))
        .map(|b| b.dir)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_prints_the_usage_and_unknown_flags_show_it() {
        assert_eq!(run(&["--help".to_owned()]), Ok(()));
        assert_eq!(run(&["-h".to_owned()]), Ok(()));
        let err = run(&["--frobnicate".to_owned()]).unwrap_err();
        assert!(err.starts_with("unknown flag `--frobnicate`"), "{err}");
        assert!(
            err.contains("cargo xtask host-build <crate-dir> [--release]"),
            "{err}"
        );
    }

    #[test]
    fn bundles_go_where_the_suite_reads_them() {
        assert_eq!(
            bundle_root(false),
            workspace_root().join("target/cetp-host")
        );
        assert_eq!(
            bundle_root(true),
            workspace_root().join("target/cetp-host-release")
        );
    }
}
