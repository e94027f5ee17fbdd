//! Where an app crate's Android app module is, and the Gradle build around it. Two layouts:
//!
//! - the one `cargo cetp new` writes: `android/` beside `Cargo.toml`, both the Gradle root
//!   project and the app module;
//! - an existing Android project (`cargo cetp init`): a root project with `settings.gradle(.kts)`
//!   including an app module (`:app`, often more modules), the Rust crate somewhere inside it
//!   (`rust/`).
//!
//! The module is, in this order: the one named on the command line (`--android-module`: a
//! directory, or a Gradle path such as `:app` in the build around the crate); the one
//! `[package.metadata.cetp] android-module` names (a directory relative to the crate, which
//! `cargo cetp init` writes); `android/` beside the crate; else the only module applying the
//! Android application plugin in the Gradle build whose `settings.gradle(.kts)` is in the
//! crate's directory or one above it. Several such modules and none named is an error listing
//! them.

use std::path::{Path, PathBuf};

use crate::android_build::app::AppCrate;
use crate::android_build::bundle::gradle::strip_comment;
use crate::{Error, Result};

/// The Gradle settings file names, Kotlin first.
pub(crate) const SETTINGS_FILES: [&str; 2] = ["settings.gradle.kts", "settings.gradle"];
/// The build file names of a Gradle project, Kotlin first.
pub(crate) const BUILD_FILES: [&str; 2] = ["build.gradle.kts", "build.gradle"];

/// The app module and its Gradle build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The app module's directory (`src/main/AndroidManifest.xml`, its build file).
    pub module: PathBuf,
    /// The Gradle root project's directory (`settings.gradle(.kts)`, `gradle.properties`):
    /// the module itself in the layout `cargo cetp new` writes.
    pub root: PathBuf,
}

impl Layout {
    /// The app module of `app`, if it has one (see the module docs for the order).
    ///
    /// # Errors
    /// [`Error::App`] when a named module does not exist, or several app modules and none
    /// named.
    pub(crate) fn find(app: &AppCrate) -> Result<Option<Layout>> {
        if let Some(named) = &app.android_module {
            return Self::named(app, named).map(Some);
        }
        if let Some(dir) = app.metadata("android-module") {
            let module = app.dir.join(dir);
            if !module.is_dir() {
                return Err(Error::App(format!(
                    "[package.metadata.cetp] android-module = \"{dir}\" in {}: {} is not a \
                     directory",
                    app.manifest_path.display(),
                    module.display()
                )));
            }
            let module = canonical(&module);
            let root = gradle_root(&module).unwrap_or_else(|| module.clone());
            return Ok(Some(Layout { module, root }));
        }
        let android = app.dir.join("android");
        if android.is_dir() {
            return Ok(Some(Layout {
                module: android.clone(),
                root: android,
            }));
        }
        let Some(root) = gradle_root(&app.dir) else {
            return Ok(None);
        };
        let modules = app_modules(&root);
        match modules.as_slice() {
            [] => Ok(None),
            [(_, module)] => Ok(Some(Layout {
                module: module.clone(),
                root,
            })),
            several => Err(Error::App(format!(
                "the Gradle build in {} has several app modules ({}): name one with \
                 `--android-module <name>`",
                root.display(),
                several
                    .iter()
                    .map(|(name, _)| name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    fn named(app: &AppCrate, named: &Path) -> Result<Layout> {
        let text = named.to_string_lossy();
        if !text.starts_with(':') && named.is_dir() {
            let module = canonical(named);
            let root = gradle_root(&module).unwrap_or_else(|| module.clone());
            return Ok(Layout { module, root });
        }
        let root = gradle_root(&app.dir).ok_or_else(|| {
            Error::App(format!(
                "`--android-module {text}`: no such directory, and no settings.gradle(.kts) in \
                 {} or above it to look the module up in",
                app.dir.display()
            ))
        })?;
        let wanted = format!(":{}", text.trim_start_matches(':'));
        let modules = includes(&root);
        modules
            .into_iter()
            .find(|(name, _)| *name == wanted)
            .map(|(_, module)| Layout {
                module,
                root: root.clone(),
            })
            .ok_or_else(|| {
                Error::App(format!(
                    "`--android-module {text}`: {} includes no module `{wanted}`",
                    root.display()
                ))
            })
    }

    /// The module's build file (`build.gradle.kts`, else `build.gradle`), whether or not it
    /// exists.
    pub(crate) fn build_file(&self) -> PathBuf {
        first_existing(&self.module, &BUILD_FILES)
    }

    /// The root project's settings file (`settings.gradle.kts`, else `settings.gradle`).
    pub(crate) fn settings_file(&self) -> PathBuf {
        first_existing(&self.root, &SETTINGS_FILES)
    }

    /// The root project's `gradle.properties`.
    pub(crate) fn properties_file(&self) -> PathBuf {
        self.root.join("gradle.properties")
    }

    /// `path` as the crate's developer reads it: relative to the crate directory.
    pub(crate) fn shown(app: &AppCrate, path: &Path) -> String {
        crate::android_build::android::relative(&canonical(&app.dir), &canonical(path))
            .display()
            .to_string()
    }
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

fn first_existing(dir: &Path, names: &[&str]) -> PathBuf {
    names
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
        .unwrap_or_else(|| dir.join(names[0]))
}

/// The directory holding a `settings.gradle(.kts)`: `dir` or the nearest one above it.
pub(crate) fn gradle_root(dir: &Path) -> Option<PathBuf> {
    let dir = canonical(dir);
    dir.ancestors()
        .find(|d| SETTINGS_FILES.iter().any(|name| d.join(name).is_file()))
        .map(Path::to_path_buf)
}

/// The modules `settings.gradle(.kts)` in `root` includes, as `(":name", directory)`: the
/// string literals of `include(...)` / `include '...'` lines, placed where
/// `project(":name").projectDir = file("…")` says, else at the path the name spells.
pub(crate) fn includes(root: &Path) -> Vec<(String, PathBuf)> {
    let Some(text) = SETTINGS_FILES
        .iter()
        .find_map(|name| std::fs::read_to_string(root.join(name)).ok())
    else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    for line in text.lines().map(strip_comment) {
        let line = line.trim();
        if let Some(args) = line.strip_prefix("include") {
            if args.starts_with(['(', ' ', '"', '\'']) {
                for name in literals(args) {
                    let name = format!(":{}", name.trim_start_matches(':'));
                    let dir = root.join(name[1..].replace(':', "/"));
                    out.push((name, dir));
                }
            }
        }
    }
    for line in text.lines().map(strip_comment) {
        let Some(rest) = line.trim().strip_prefix("project(") else {
            continue;
        };
        let Some((name, rest)) = rest.split_once(')') else {
            continue;
        };
        let (Some(name), Some(dir)) = (
            literals(name).into_iter().next(),
            rest.split_once("file(")
                .and_then(|(_, d)| literals(d).into_iter().next()),
        ) else {
            continue;
        };
        if rest.trim_start().starts_with(".projectDir") {
            let name = format!(":{}", name.trim_start_matches(':'));
            for entry in &mut out {
                if entry.0 == name {
                    entry.1 = root.join(&dir);
                }
            }
        }
    }
    out
}

/// The included modules that apply the Android application plugin (by id or through a version
/// catalog alias), as `(":name", directory)`.
pub(crate) fn app_modules(root: &Path) -> Vec<(String, PathBuf)> {
    includes(root)
        .into_iter()
        .filter(|(_, dir)| {
            BUILD_FILES.iter().any(|name| {
                std::fs::read_to_string(dir.join(name)).is_ok_and(|text| applies_app_plugin(&text))
            })
        })
        .map(|(name, dir)| (name, canonical(&dir)))
        .collect()
}

/// Whether a build file applies `com.android.application` (`id(...)`, `id '…'`, or an alias
/// such as `libs.plugins.android.application`).
pub(crate) fn applies_app_plugin(text: &str) -> bool {
    text.lines().map(strip_comment).any(|line| {
        line.contains("\"com.android.application\"")
            || line.contains("'com.android.application'")
            || (line.contains("alias(") && line.contains(".android.application)"))
    })
}

/// The quoted strings (`"…"` or `'…'`) in `text`, in order.
fn literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(['"', '\'']) {
        let quote = rest.as_bytes()[start] as char;
        let after = &rest[start + 1..];
        let Some(end) = after.find(quote) else { break };
        out.push(after[..end].to_owned());
        rest = &after[end + 1..];
    }
    out
}

/// The code of each line of a Gradle (Kotlin or Groovy) file: what a `//` comment or a
/// `/* … */` block (Kotlin nests them) leaves; string literals are kept whole. One entry per
/// line of `text.lines()`.
pub(crate) fn code_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    for line in text.lines() {
        let mut code = String::new();
        let mut in_string = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            if depth > 0 {
                match (c, next) {
                    ('/', Some('*')) => {
                        chars.next();
                        depth += 1;
                    }
                    ('*', Some('/')) => {
                        chars.next();
                        depth -= 1;
                        code.push(' ');
                    }
                    _ => {}
                }
                continue;
            }
            if in_string {
                code.push(c);
                match c {
                    '\\' => code.extend(chars.next()),
                    '"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            match (c, next) {
                ('/', Some('/')) => break,
                ('/', Some('*')) => {
                    chars.next();
                    depth = 1;
                }
                _ => {
                    in_string = c == '"';
                    code.push(c);
                }
            }
        }
        out.push(code);
    }
    out
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
    fn settings_includes_are_read_in_both_dialects() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(
            d,
            "settings.gradle.kts",
            "rootProject.name = \"Reading\"\ninclude(\":app\")\ninclude(\":core:data\", \":wear\") // two\n// include(\":old\")\ninclude(\":cetp\")\nproject(\":cetp\").projectDir = file(\"../sdk/android-template\")\n",
        );
        let names: Vec<(String, PathBuf)> = includes(d);
        assert_eq!(
            names,
            [
                (":app".to_owned(), d.join("app")),
                (":core:data".to_owned(), d.join("core/data")),
                (":wear".to_owned(), d.join("wear")),
                (":cetp".to_owned(), d.join("../sdk/android-template")),
            ]
        );
        write(d, "settings.gradle.kts", "");
        write(d, "settings.gradle", "include ':app', ':lib'\n");
        assert_eq!(includes(d).len(), 0, "the Kotlin file wins when both exist");
        std::fs::remove_file(d.join("settings.gradle.kts")).unwrap();
        let names: Vec<String> = includes(d).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, [":app", ":lib"]);
    }

    #[test]
    fn app_modules_are_told_from_libraries() {
        assert!(applies_app_plugin(
            "plugins {\n    alias(libs.plugins.android.application)\n}"
        ));
        assert!(applies_app_plugin(
            "plugins { id 'com.android.application' }"
        ));
        assert!(!applies_app_plugin(
            "plugins { alias(libs.plugins.android.library) }\n// id(\"com.android.application\")"
        ));
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "settings.gradle.kts", "include(\":app\", \":core\")\n");
        write(
            d,
            "app/build.gradle.kts",
            "plugins { alias(libs.plugins.android.application) }\n",
        );
        write(
            d,
            "core/build.gradle.kts",
            "plugins { alias(libs.plugins.android.library) }\n",
        );
        write(d, "rust/src/lib.rs", "");
        assert_eq!(gradle_root(&d.join("rust/src")), Some(canonical(d)));
        let modules = app_modules(d);
        assert_eq!(modules, [(":app".to_owned(), canonical(&d.join("app")))]);
    }
}
