//! What the end-to-end tests of `cargo cetp` share: where the workspace and the build directory
//! are, how the binary under test is started, and the check of `cargo cetp preview`'s output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use cargo_cetp::android_build::robolectric::{PREVIEW_FILES, PREVIEW_SIZE, png_size};

/// This repository's root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The build directory the apps under test share (`CETP_NEW_APP_TARGET_DIR`, else Cargo's).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CETP_NEW_APP_TARGET_DIR")
        .or_else(|| std::env::var_os("CARGO_TARGET_DIR"))
        .map_or_else(|| workspace().join("target"), PathBuf::from)
}

/// `cargo cetp <args>`, the binary of this build, with that build directory.
/// `new` and `init` get this checkout as their SDK (`--sdk-path`): what these tests build is
/// the SDK of this source tree, not a release (`cargo xtask release --dry-run` tests the
/// released form).
pub fn cargo_cetp(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-cetp"));
    cmd.arg("cetp")
        .args(args)
        .env("CARGO_TARGET_DIR", target_dir());
    if matches!(args.first(), Some(&("new" | "init"))) {
        cmd.arg("--sdk-path").arg(workspace());
    }
    cmd
}

/// Runs `cmd` and returns its standard output; fails the test, with both outputs, unless it
/// succeeds.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("the command starts");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// `cargo cetp preview` of `manifest` wrote every screen, each a PNG of the expected size.
pub fn assert_previewed(manifest: &str) {
    let previewed = run(&mut cargo_cetp(&["preview", "--manifest-path", manifest]));
    let paths: Vec<&str> = previewed.lines().skip(1).map(str::trim).collect();
    assert_eq!(paths.len(), PREVIEW_FILES.len(), "{previewed}");
    for (path, name) in paths.iter().zip(PREVIEW_FILES) {
        assert!(path.ends_with(&format!("/{name}.png")), "{path} for {name}");
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(png_size(&bytes), Some(PREVIEW_SIZE), "{path}");
    }
}

/// Every file under `dir`, relative path → bytes: what a step may change is compared whole.
#[allow(dead_code)] // each end-to-end binary compiles this module; not all of them use it
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    out
}

/// Every file of `from` copied below `to` (a fixture into a scratch directory).
#[allow(dead_code)] // each end-to-end binary compiles this module; not all of them use it
pub fn copy_tree(from: &Path, to: &Path) {
    for (path, bytes) in snapshot(from) {
        let path = to.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}
