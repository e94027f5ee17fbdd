//! Shared helpers: the workspace layout, running tools. Building host bundles (and the tools
//! that takes: aapt, aidl, javac, the android-all jar) is `cargo_cetp::android_build::bundle`.

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

pub use cargo_cetp::android_build::bundle::jdk_tool;

/// `mvn` as every task starts it: batch mode and no colours (`cargo cetp`'s
/// [`cargo_cetp::android_build::bundle::maven::PLAIN_OUTPUT`]).
pub fn mvn() -> Command {
    let mut mvn = Command::new("mvn");
    mvn.args(cargo_cetp::android_build::bundle::maven::PLAIN_OUTPUT);
    mvn
}

/// Runs `cmd`, echoing it; fails with its exit status.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    cargo_cetp::android_build::bundle::run_as("xtask", cmd).map_err(|e| e.to_string())
}

/// The AIDL compiler, installed when missing (see [`debian_tool`]).
pub fn aidl() -> Result<PathBuf, String> {
    debian_tool(&cargo_cetp::android_build::bundle::AIDL)
}

/// Android's resource compiler, installed when missing (see [`debian_tool`]).
pub fn aapt() -> Result<PathBuf, String> {
    debian_tool(&cargo_cetp::android_build::bundle::AAPT)
}

/// The program `cargo cetp` finds for `tool` (`cargo_cetp::android_build::bundle::debian_tool`,
/// which never installs); when it finds none and this runs as root with `apt-get` (CI, a fresh
/// container), the repository's own chores install the Debian package first, then look again.
pub fn debian_tool(
    tool: &cargo_cetp::android_build::bundle::DebianTool<'_>,
) -> Result<PathBuf, String> {
    let missing = match cargo_cetp::android_build::bundle::debian_tool(tool) {
        Ok(found) => return Ok(found),
        Err(missing) => missing.to_string(),
    };
    eprintln!(
        "xtask: `{}` is missing; installing Debian's `{}`",
        tool.program, tool.package
    );
    apt_install(tool.package).map_err(|why| format!("{missing}\n({why})"))?;
    cargo_cetp::android_build::bundle::debian_tool(tool).map_err(|e| e.to_string())
}

/// Installs Debian's `package` with `apt-get` when running as root (a CI image); otherwise an
/// error naming the command to run. Only xtask installs: `cargo cetp` never does.
pub fn apt_install(package: &str) -> Result<(), String> {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let command = format!("sudo apt-get install --no-install-recommends {package}");
    let Some(apt) = cargo_cetp::android_build::bundle::on_path("apt-get") else {
        return Err(format!(
            "no apt-get here: install Debian's `{package}` another way"
        ));
    };
    if !root {
        return Err(format!("not root: run `{command}`"));
    }
    let mut install = Command::new(&apt);
    install
        .args(["install", "-y", "--no-install-recommends", package])
        .env("DEBIAN_FRONTEND", "noninteractive");
    if run(&mut install).is_err() {
        // A fresh image has no package lists yet.
        run(Command::new(&apt).arg("update"))?;
        run(&mut install)?;
    }
    Ok(())
}
