//! Which crate `cargo cetp init` adds the provider to: a crate the project already builds (the
//! cdylib a Gradle Rust build or a UniFFI configuration names, or the only cdylib of a
//! workspace), or a new one (alone, or a new member of the workspace around it).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::android_build::app::cargo;
use crate::android_build::rust_build::RustBuild;

/// Where the provider goes.
#[derive(Debug, Clone)]
pub(super) enum Target {
    /// A new crate in `dir`; `workspace`: the root of the Cargo workspace around `dir`, whose
    /// members it joins.
    New {
        dir: PathBuf,
        workspace: Option<PathBuf>,
    },
    /// A crate of the project's own.
    Existing(Box<Existing>),
    /// Rust the project has, where `init` cannot tell which crate: why.
    Unclear { dir: PathBuf, why: String },
}

/// A crate the project has, as `cargo metadata` describes it.
#[derive(Debug, Clone)]
pub(super) struct Existing {
    pub dir: PathBuf,
    pub manifest: PathBuf,
    pub package: String,
    /// Its library's name (`[lib] name`, else the package name with `_`).
    pub lib_name: String,
    /// The library's root source file (`src/lib.rs`).
    pub lib_src: PathBuf,
    /// The root of its workspace (itself when alone).
    pub workspace_root: PathBuf,
    /// The Gradle build that builds it already, if one does.
    pub built_by: Option<RustBuild>,
}

impl Target {
    /// The crate's directory.
    pub(super) fn dir(&self) -> &Path {
        match self {
            Target::New { dir, .. } | Target::Unclear { dir, .. } => dir,
            Target::Existing(existing) => &existing.dir,
        }
    }
}

/// The target in `named` (`--crate-dir`), else in the directory a Gradle Rust build runs Cargo
/// in, else in `<root>/rust`.
pub(super) fn find(root: &Path, named: Option<&Path>, builds: &[RustBuild]) -> Target {
    let dir = match named {
        Some(dir) => dir.to_path_buf(),
        None => builds
            .iter()
            .map(|b| b.dir.clone())
            .find(|d| d.join("Cargo.toml").is_file())
            .unwrap_or_else(|| root.join("rust")),
    };
    let manifest = dir.join("Cargo.toml");
    if !manifest.is_file() {
        let workspace = enclosing_workspace(&dir, root);
        return Target::New { dir, workspace };
    }
    let metadata = match metadata(&manifest) {
        Ok(metadata) => metadata,
        Err(why) => return Target::Unclear { dir, why },
    };
    let workspace_root = PathBuf::from(metadata["workspace_root"].as_str().unwrap_or_default());
    let packages: Vec<Value> = metadata["packages"].as_array().cloned().unwrap_or_default();
    let real = dir.canonicalize().unwrap_or_else(|_| dir.clone());
    let in_dir = |p: &Value| {
        p["manifest_path"]
            .as_str()
            .map(Path::new)
            .and_then(Path::parent)
            .is_some_and(|d| d == real)
    };
    let existing = |package: &Value| -> Target {
        match Existing::of(package, &workspace_root, builds) {
            Some(existing) => Target::Existing(Box::new(existing)),
            None => Target::Unclear {
                dir: dir.clone(),
                why: format!(
                    "the crate `{}` has no library target; the provider lives in a library",
                    package["name"].as_str().unwrap_or_default()
                ),
            },
        }
    };
    // The directory is a package: that one.
    if let Some(package) = packages.iter().find(|p| in_dir(p)) {
        return existing(package);
    }
    // A workspace root: the member that depends on cetp-provider already, else the cdylib the
    // project's Gradle build or UniFFI configuration names, else the only cdylib.
    let cdylibs: Vec<&Value> = packages
        .iter()
        .filter(|p| lib_target(p).is_some_and(|t| crate_types(t).iter().any(|c| c == "cdylib")))
        .collect();
    let depends = |p: &&Value| {
        p["dependencies"]
            .as_array()
            .is_some_and(|deps| deps.iter().any(|d| d["name"] == "cetp-provider"))
    };
    let named_libs: Vec<String> = builds
        .iter()
        .flat_map(|b| b.libraries.iter().cloned())
        .chain(cdylibs.iter().filter_map(|p| uniffi_cdylib_name(p)))
        .collect();
    let named = |p: &&Value| {
        lib_target(p)
            .and_then(|t| t["name"].as_str())
            .is_some_and(|name| named_libs.iter().any(|l| l == name))
    };
    for choose in [
        &depends as &dyn Fn(&&Value) -> bool,
        &named,
        &|_: &&Value| true,
    ] {
        let chosen: Vec<&&Value> = cdylibs.iter().filter(|p| choose(p)).collect();
        match chosen.as_slice() {
            [] => {}
            [one] => return existing(one),
            several => {
                return Target::Unclear {
                    dir: dir.clone(),
                    why: format!(
                        "its workspace has several cdylib crates ({}): name the app's with \
                         `--crate-dir <its directory>`",
                        several
                            .iter()
                            .filter_map(|p| p["name"].as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
            }
        }
    }
    Target::Unclear {
        dir: dir.clone(),
        why: "its workspace has no member that builds a cdylib (`crate-type = [\"cdylib\", …]`): \
              name one with `--crate-dir <member>`, or a new directory with `--crate-dir \
              <dir>/<name>` to add a crate as a member"
            .to_owned(),
    }
}

impl Existing {
    fn of(package: &Value, workspace_root: &Path, builds: &[RustBuild]) -> Option<Self> {
        let lib = lib_target(package)?;
        let manifest = PathBuf::from(package["manifest_path"].as_str()?);
        let dir = manifest.parent()?.to_path_buf();
        let lib_name = lib["name"].as_str()?.to_owned();
        let built_by = builds.iter().find(|b| b.builds(&dir, &lib_name)).cloned();
        Some(Existing {
            package: package["name"].as_str()?.to_owned(),
            lib_src: PathBuf::from(lib["src_path"].as_str()?),
            lib_name,
            manifest,
            dir,
            workspace_root: workspace_root.to_path_buf(),
            built_by,
        })
    }
}

/// `cargo metadata --no-deps` of `manifest` (reads the workspace, resolves nothing).
fn metadata(manifest: &Path) -> Result<Value, String> {
    let mut cmd = cargo();
    cmd.args([
        "metadata",
        "--no-deps",
        "--format-version",
        "1",
        "--manifest-path",
    ])
    .arg(manifest);
    let output = cmd
        .output()
        .map_err(|e| format!("`cargo metadata` did not start: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message")
            .trim();
        return Err(format!("`cargo metadata` cannot read it: {first}"));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("`cargo metadata` printed no JSON: {e}"))
}

fn lib_target(package: &Value) -> Option<&Value> {
    package["targets"].as_array()?.iter().find(|t| {
        t["kind"].as_array().is_some_and(|kinds| {
            kinds.iter().any(|k| {
                matches!(
                    k.as_str(),
                    Some("lib" | "rlib" | "cdylib" | "dylib" | "staticlib")
                )
            })
        })
    })
}

fn crate_types(target: &Value) -> Vec<String> {
    target["crate_types"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// `[bindings.kotlin] cdylib_name` of the package's `uniffi.toml`.
fn uniffi_cdylib_name(package: &Value) -> Option<String> {
    let dir = Path::new(package["manifest_path"].as_str()?).parent()?;
    let text = std::fs::read_to_string(dir.join("uniffi.toml")).ok()?;
    let table: toml::Table = text.parse().ok()?;
    table
        .get("bindings")?
        .get("kotlin")?
        .get("cdylib_name")?
        .as_str()
        .map(str::to_owned)
}

/// The root of the Cargo workspace a new crate in `dir` would belong to: the nearest
/// `Cargo.toml` with a `[workspace]` table above `dir`, up to the root project.
pub(super) fn enclosing_workspace(dir: &Path, root: &Path) -> Option<PathBuf> {
    let mut at = dir.parent();
    while let Some(candidate) = at {
        let workspace = std::fs::read_to_string(candidate.join("Cargo.toml")).is_ok_and(|text| {
            text.parse::<toml::Table>()
                .is_ok_and(|t| t.contains_key("workspace"))
        });
        if workspace {
            return Some(candidate.to_path_buf());
        }
        if candidate == root {
            break;
        }
        at = candidate.parent();
    }
    None
}
