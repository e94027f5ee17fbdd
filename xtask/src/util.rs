//! Shared helpers: the workspace layout, running tools. Building host bundles (and the tools
//! that takes: aapt, aidl, javac, the android-all jar) is `cargo_cetp::bundle`.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (the parent of `xtask/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}

/// Cargo's target directory: `CARGO_TARGET_DIR` if set, else `<root>/target`.
pub fn cargo_target_dir() -> PathBuf {
    match env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace_root().join(dir)
            }
        }
        None => workspace_root().join("target"),
    }
}

/// The cargo that runs this xtask (same toolchain).
pub fn cargo() -> Command {
    let mut cmd = Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(workspace_root());
    cmd
}

pub use cargo_cetp::bundle::jdk_tool;

/// Runs `cmd`, echoing it; fails with its exit status.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    cargo_cetp::bundle::run_as("xtask", cmd)
}

/// The AIDL compiler (installed when missing; see `cargo_cetp::bundle::aidl`).
pub fn aidl() -> Result<PathBuf, String> {
    cargo_cetp::bundle::aidl().map_err(|e| e.to_string())
}

/// Android's resource compiler (installed when missing; see `cargo_cetp::bundle::aapt`).
pub fn aapt() -> Result<PathBuf, String> {
    cargo_cetp::bundle::aapt().map_err(|e| e.to_string())
}
