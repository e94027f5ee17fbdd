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

/// A JDK tool (`javac`, `jar`): from `JAVA_HOME/bin` when set, else from `PATH`.
pub fn jdk_tool(name: &str) -> Command {
    if let Some(home) = env::var_os("JAVA_HOME") {
        let candidate = Path::new(&home).join("bin").join(name);
        if candidate.is_file() {
            return Command::new(candidate);
        }
    }
    Command::new(name)
}

/// Runs `cmd`, echoing it; fails with its exit status.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    eprintln!("xtask: running {}", describe(cmd));
    let status = cmd
        .status()
        .map_err(|e| format!("cannot start {}: {e}", describe(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} failed ({status})", describe(cmd)))
    }
}

fn describe(cmd: &Command) -> String {
    let mut text = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    text
}

/// The AIDL compiler (installed when missing; see `cargo_cetp::bundle::aidl`).
pub fn aidl() -> Result<PathBuf, String> {
    cargo_cetp::bundle::aidl().map_err(|e| e.to_string())
}

/// Android's resource compiler (installed when missing; see `cargo_cetp::bundle::aapt`).
pub fn aapt() -> Result<PathBuf, String> {
    cargo_cetp::bundle::aapt().map_err(|e| e.to_string())
}
