//! The Rust builds a Gradle project already has: a module that applies the cargo-ndk Gradle
//! plugin (`cargoNdk { module = "../rust" … }`) or Mozilla's rust-android-gradle plugin
//! (`cargo { module = "../rust"; libname = "…" }`), read from its build file. `cargo cetp init`
//! adds no second Cargo build of a crate one of these builds, and `cargo cetp check` gives no
//! advice to add one.

use std::path::{Path, PathBuf};

use crate::android_build::bundle::gradle::string_literal;
use crate::android_build::layout::{self, code_lines};

/// The Gradle plugin that builds the crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plugin {
    /// `com.github.willir.rust.cargo-ndk-android`: a `cargoNdk { }` block.
    CargoNdk,
    /// `org.mozilla.rust-android-gradle.rust-android`: a `cargo { }` block.
    RustAndroid,
}

impl Plugin {
    fn block(self) -> &'static str {
        match self {
            Plugin::CargoNdk => "cargoNdk",
            Plugin::RustAndroid => "cargo",
        }
    }

    /// The plugin and the Gradle tasks that run Cargo, for a person.
    pub(crate) fn tasks(self) -> &'static str {
        match self {
            Plugin::CargoNdk => {
                "the cargo-ndk Gradle plugin (buildCargoNdkDebug, buildCargoNdkRelease)"
            }
            Plugin::RustAndroid => "the rust-android-gradle plugin (cargoBuild)",
        }
    }
}

/// One module's Rust build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RustBuild {
    /// The Gradle path of the module (`:core`).
    pub module: String,
    /// Its build file.
    pub build_file: PathBuf,
    pub plugin: Plugin,
    /// The directory Cargo runs in (the block's `module`): a crate or a workspace.
    pub dir: PathBuf,
    /// The libraries the block names (`librariesNames = listOf("libjournal.so")`, `libname =
    /// "journal"`), as library names (`journal`); empty: every cdylib of `dir`.
    pub libraries: Vec<String>,
}

impl RustBuild {
    /// Whether this build produces `lib<lib_name>.so` of the crate in `crate_dir`: the crate is
    /// `dir` or below it, and the block names that library or none.
    pub(crate) fn builds(&self, crate_dir: &Path, lib_name: &str) -> bool {
        let (Ok(dir), Ok(crate_dir)) = (self.dir.canonicalize(), crate_dir.canonicalize()) else {
            return false;
        };
        crate_dir.starts_with(&dir)
            && (self.libraries.is_empty() || self.libraries.iter().any(|l| l == lib_name))
    }

    /// "the cargo-ndk Gradle plugin (…) in :core" — for a person.
    pub(crate) fn describe(&self) -> String {
        format!("{} in {}", self.plugin.tasks(), self.module)
    }
}

/// Every Rust build of the Gradle project at `root`, module by module.
pub(crate) fn find(root: &Path) -> Vec<RustBuild> {
    let mut out = Vec::new();
    for (module, dir) in layout::includes(root) {
        for name in layout::BUILD_FILES {
            let file = dir.join(name);
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            out.extend(read(&text, &module, &file, &dir, root));
            break;
        }
    }
    out
}

/// The Rust builds in one build file.
fn read(text: &str, module: &str, file: &Path, module_dir: &Path, root: &Path) -> Vec<RustBuild> {
    let code = code_lines(text);
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut block: Option<(Plugin, usize, Option<String>, Vec<String>)> = None;
    for line in &code {
        let trimmed = line.trim();
        if depth == 0 && block.is_none() {
            for plugin in [Plugin::CargoNdk, Plugin::RustAndroid] {
                let opens = trimmed
                    .strip_prefix(plugin.block())
                    .is_some_and(|rest| rest.trim_start().starts_with('{'));
                if opens {
                    block = Some((plugin, depth, None, Vec::new()));
                }
            }
        }
        if let Some((_, _, module_path, libraries)) = block.as_mut() {
            for statement in trimmed.split([';', '{', '}']) {
                let Some((key, value)) = statement.split_once('=') else {
                    continue;
                };
                match key.trim() {
                    "module" => *module_path = string_literal(value),
                    "libname" => libraries.extend(string_literal(value)),
                    "librariesNames" => {
                        libraries.extend(literals(value).iter().map(|l| library_name(l).to_owned()))
                    }
                    _ => {}
                }
            }
        }
        depth += line.matches('{').count();
        depth = depth.saturating_sub(line.matches('}').count());
        if let Some((plugin, at, module_path, libraries)) = block.take() {
            if depth > at {
                block = Some((plugin, at, module_path, libraries));
                continue;
            }
            let dir = match module_path {
                Some(path) => [module_dir.join(&path), root.join(&path)]
                    .into_iter()
                    .find(|d| d.join("Cargo.toml").is_file())
                    .unwrap_or_else(|| module_dir.join(&path)),
                // cargo-ndk's default.
                None => root.join("app/src/main/rust"),
            };
            out.push(RustBuild {
                module: module.to_owned(),
                build_file: file.to_path_buf(),
                plugin,
                dir,
                libraries,
            });
        }
    }
    out
}

/// Every `"…"` literal in `text`.
fn literals(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// `libjournal.so` → `journal`; a bare name stays as it is.
fn library_name(file: &str) -> &str {
    let name = file.strip_suffix(".so").unwrap_or(file);
    name.strip_prefix("lib")
        .filter(|_| file.ends_with(".so"))
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, path: &str, text: &str) {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_cargo_ndk_block_names_the_crate_and_its_libraries() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "settings.gradle.kts", "include(\":app\", \":core\")\n");
        write(
            d,
            "app/build.gradle.kts",
            "plugins { id(\"com.android.application\") }\n",
        );
        write(
            d,
            "core/build.gradle.kts",
            "plugins {\n    id(\"com.android.library\")\n    id(\"com.github.willir.rust.cargo-ndk-android\")\n}\n\n\
             /* cargoNdk { module = \"../old\" } */\n\
             cargoNdk {\n    module = \"../rust\" // the workspace\n    targets = arrayListOf(\"arm64\", \"x86_64\")\n    librariesNames = arrayListOf(\"libjournal_ffi.so\")\n    buildTypes {\n        getByName(\"release\") { buildType = \"release\" }\n    }\n}\n",
        );
        write(d, "rust/Cargo.toml", "[workspace]\nmembers = [\"ffi\"]\n");
        let builds = find(d);
        assert_eq!(builds.len(), 1, "{builds:#?}");
        let build = &builds[0];
        assert_eq!(build.module, ":core");
        assert_eq!(build.plugin, Plugin::CargoNdk);
        assert_eq!(build.dir, d.join("core/../rust"));
        assert_eq!(build.libraries, ["journal_ffi"]);
        write(d, "rust/ffi/Cargo.toml", "");
        assert!(build.builds(&d.join("rust/ffi"), "journal_ffi"));
        assert!(!build.builds(&d.join("rust/ffi"), "journal"));
        assert!(!build.builds(d, "journal_ffi"));
        assert!(build.describe().contains("buildCargoNdkDebug"));
    }

    #[test]
    fn a_rust_android_block_and_a_project_without_one() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "settings.gradle", "include ':app'\n");
        write(
            d,
            "app/build.gradle",
            "apply plugin: 'org.mozilla.rust-android-gradle.rust-android'\ncargo {\n    module = \"../rust\"\n    libname = \"reader\"\n}\n",
        );
        write(d, "rust/Cargo.toml", "[package]\n");
        let builds = find(d);
        assert_eq!(builds.len(), 1, "{builds:#?}");
        assert_eq!(builds[0].plugin, Plugin::RustAndroid);
        assert_eq!(builds[0].libraries, ["reader"]);
        assert_eq!(builds[0].dir, d.join("app/../rust"));

        write(
            d,
            "app/build.gradle",
            "android { }\n// cargo { module = \"../rust\" }\n",
        );
        assert!(find(d).is_empty());
    }
}
