//! `cargo cetp init`: the provider added to an Android project that exists: a root project with
//! `settings.gradle(.kts)`, an app module (`:app`), often more modules and a version catalog.
//!
//! What it writes, each step only when it is not already there (so a second run changes
//! nothing):
//!
//! | where | what |
//! |---|---|
//! | `<crate>/` (default `rust/` in the root project) | the Rust crate `cargo cetp new` writes (`Cargo.toml`, `src/lib.rs`, `tests/provider.rs`), with `[package.metadata.cetp] android-module` naming the app module |
//! | `settings.gradle(.kts)` | `include(":cetp")` and its `projectDir`: the SDK's `android-template/` |
//! | `gradle.properties` | `cetp.rustCrate`, the crate relative to the root project |
//! | the app module's `build.gradle.kts` | the two manifest placeholders under `defaultConfig {`, `implementation(project(":cetp"))` under `dependencies {` |
//! | `gradle/libs.versions.toml`, root `build.gradle(.kts)` | the Android library plugin (the template module applies it by id, without a version) beside the application plugin's entry, at its version |
//!
//! A Gradle file is changed only where its shape is plain: one `defaultConfig {` line, one
//! top-level `dependencies {` line, no other assignment to `manifestPlaceholders`, the
//! application plugin declared on one line. Anything else (a Groovy build file, a computed
//! value) is left as it is, and the lines to add are printed instead.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::android_build::android::relative;
use crate::android_build::bundle::gradle::{self, strip_comment};
use crate::android_build::layout::{self, Layout};
use crate::cli::{InitOptions, NewOptions, SdkSource};
use crate::commands::new::{self, Names};
use crate::{Error, Result};

/// What one step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// The file was written or changed: what was added.
    Changed(PathBuf, String),
    /// Already there.
    Unchanged(PathBuf, String),
    /// Not changed because its shape is not one this command edits: the lines to add, and
    /// where.
    Manual(PathBuf, String),
}

/// The project as `init` found it.
#[derive(Debug, Clone)]
struct Project {
    layout: Layout,
    crate_dir: PathBuf,
    names: Names,
    sdk: SdkSource,
}

/// Runs `cargo cetp init`, printing each step.
///
/// # Errors
/// [`Error::App`] when there is no Gradle project, no app module, or its application id cannot
/// be read; [`Error::Io`].
pub(crate) fn run(options: &InitOptions) -> Result<i32> {
    let steps = init(options)?;
    print!("{}", report(&steps));
    Ok(0)
}

/// What [`run`] prints for `steps`.
pub(crate) fn report(steps: &[Step]) -> String {
    let mut out = String::new();
    let manual = steps
        .iter()
        .filter(|s| matches!(s, Step::Manual(..)))
        .count();
    let changed = steps
        .iter()
        .filter(|s| matches!(s, Step::Changed(..)))
        .count();
    for step in steps {
        match step {
            Step::Changed(path, what) => {
                let _ = writeln!(out, "changed   {}: {what}", path.display());
            }
            Step::Unchanged(path, what) => {
                let _ = writeln!(out, "unchanged {}: {what}", path.display());
            }
            Step::Manual(path, what) => {
                let _ = writeln!(
                    out,
                    "TO DO     {}: not changed (its shape is not one cargo cetp edits); add:\n{}",
                    path.display(),
                    indent(what)
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "\ncargo cetp init: {changed} file(s) changed, {manual} left to you{}",
        if changed == 0 && manual == 0 {
            " (nothing to do: already set up)"
        } else {
            ""
        }
    );
    out
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}\n"))
        .collect::<String>()
}

/// Does the work of `cargo cetp init` and says what it did, step by step.
///
/// # Errors
/// As [`run`].
pub(crate) fn init(options: &InitOptions) -> Result<Vec<Step>> {
    let project = find(options)?;
    let root = &project.layout.root;
    let shown = |path: &Path| relative(root, path);
    let mut steps = Vec::new();
    steps.push(write_crate(&project, &shown(&project.crate_dir))?);
    steps.push(settings(&project)?);
    steps.push(properties(&project)?);
    steps.extend(module_build(&project)?);
    steps.extend(plugin(&project)?);
    Ok(steps
        .into_iter()
        .map(|step| match step {
            Step::Changed(p, w) => Step::Changed(shown(&p), w),
            Step::Unchanged(p, w) => Step::Unchanged(shown(&p), w),
            Step::Manual(p, w) => Step::Manual(shown(&p), w),
        })
        .collect())
}

fn canonical(path: &Path) -> Result<PathBuf> {
    path.canonicalize().map_err(Error::io(path))
}

fn absolute(path: &Path) -> Result<PathBuf> {
    if path.is_absolute() {
        Ok(path.to_path_buf())
    } else {
        Ok(std::env::current_dir().map_err(Error::io("."))?.join(path))
    }
}

fn find(options: &InitOptions) -> Result<Project> {
    let dir = canonical(&absolute(&options.project)?)?;
    let root = layout::gradle_root(&dir).ok_or_else(|| {
        Error::App(format!(
            "no settings.gradle(.kts) in {} or above it: `cargo cetp init` adds the provider to \
             an Android project that exists; `cargo cetp new <dir>` starts a new one",
            dir.display()
        ))
    })?;
    let module = match &options.android_module {
        Some(named) => {
            let text = named.to_string_lossy();
            let by_dir = absolute(named)?;
            if !text.starts_with(':') && by_dir.is_dir() {
                canonical(&by_dir)?
            } else {
                let wanted = format!(":{}", text.trim_start_matches(':'));
                layout::includes(&root)
                    .into_iter()
                    .find(|(name, _)| *name == wanted)
                    .map(|(_, dir)| dir)
                    .ok_or_else(|| {
                        Error::App(format!(
                            "`--android-module {text}`: {} includes no module `{wanted}`",
                            root.display()
                        ))
                    })?
            }
        }
        None => match layout::app_modules(&root).as_slice() {
            [(_, module)] => module.clone(),
            [] => {
                return Err(Error::App(format!(
                    "no module of {} applies the Android application plugin; name the app \
                     module with `--android-module <name>`",
                    root.display()
                )));
            }
            several => {
                return Err(Error::App(format!(
                    "{} has several app modules ({}): name one with `--android-module <name>`",
                    root.display(),
                    several
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        },
    };
    let layout = Layout {
        module,
        root: root.clone(),
    };
    let build = std::fs::read_to_string(layout.build_file()).unwrap_or_default();
    let package = gradle::parse(&build).application_id.ok_or_else(|| {
        Error::App(format!(
            "{} sets no literal `applicationId` or `namespace`, which the provider's authority is \
             made from: set one, then run `cargo cetp init` again",
            layout.build_file().display()
        ))
    })?;
    let crate_dir = match &options.crate_dir {
        Some(dir) => absolute(dir)?,
        None => root.join("rust"),
    };
    let name = match &options.name {
        Some(name) => name.clone(),
        None => crate_name_of(&root),
    };
    let names = Names::of(&NewOptions {
        dir: crate_dir.clone(),
        name: Some(name),
        package: Some(package),
        sdk: options.sdk.clone(),
    })?;
    Ok(Project {
        layout,
        crate_dir,
        names,
        sdk: options.sdk.clone(),
    })
}

/// A crate name from the project directory's name: `My Reader` → `my-reader`.
fn crate_name_of(root: &Path) -> String {
    let dir = root
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let name: String = dir
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let name = name.trim_matches('-').to_owned();
    match name.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => name,
        _ => format!("app-{name}").trim_end_matches('-').to_owned(),
    }
}

/// The crate `cargo cetp new` writes, with the app module named in its metadata.
fn write_crate(project: &Project, shown: &Path) -> Result<Step> {
    let manifest = project.crate_dir.join("Cargo.toml");
    if manifest.is_file() {
        return Ok(Step::Unchanged(
            manifest,
            "the Rust crate is there (left as it is)".to_owned(),
        ));
    }
    std::fs::create_dir_all(&project.crate_dir).map_err(Error::io(&project.crate_dir))?;
    let crate_dir = canonical(&project.crate_dir)?;
    let options = NewOptions {
        dir: crate_dir.clone(),
        name: Some(project.names.crate_name.clone()),
        package: Some(project.names.package.clone()),
        sdk: project.sdk.clone(),
    };
    let module = relative(&crate_dir, &project.layout.module);
    let mut written = Vec::new();
    for (path, text) in new::files(&options, &crate_dir)? {
        let keep = ["Cargo.toml", "src/lib.rs", "tests/provider.rs"];
        if !keep.iter().any(|k| path == Path::new(k)) {
            continue;
        }
        let text = if path == Path::new("Cargo.toml") {
            format!(
                "{text}\n# Where `cargo cetp` finds the Android app module, relative to this crate.\n\
                 [package.metadata.cetp]\nandroid-module = {}\n",
                crate::android_build::app::toml_string(&module.to_string_lossy())
            )
        } else {
            text
        };
        let file = crate_dir.join(&path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
        }
        std::fs::write(&file, text).map_err(Error::io(&file))?;
        written.push(path.display().to_string());
    }
    let ignore = crate_dir.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(&ignore, "/target\n").map_err(Error::io(&ignore))?;
        written.push(".gitignore".to_owned());
    }
    Ok(Step::Changed(
        crate_dir,
        format!(
            "the Rust crate `{}` (lib{}.so): {} (then `cd {} && cargo test`)",
            project.names.crate_name,
            project.names.lib_name,
            written.join(", "),
            shown.display()
        ),
    ))
}

/// The `:cetp` module in `settings.gradle(.kts)`.
fn settings(project: &Project) -> Result<Step> {
    let file = project.layout.settings_file();
    if layout::includes(&project.layout.root)
        .iter()
        .any(|(name, _)| name == ":cetp")
    {
        return Ok(Step::Unchanged(
            file,
            "includes the template module `:cetp`".to_owned(),
        ));
    }
    let template = match &project.sdk {
        SdkSource::Path(sdk) => relative(
            &project.layout.root,
            &canonical(sdk)?.join("android-template"),
        ),
        SdkSource::Git { .. } => PathBuf::from("third_party/cetp-rs/android-template"),
    };
    let lines = format!(
        "\n// The CETP tool provider's Android module: the template of the cetp-rs SDK.\n\
         include(\":cetp\")\n\
         project(\":cetp\").projectDir = file({})\n",
        crate::android_build::app::toml_string(&template.to_string_lossy())
    );
    append(&file, &lines)?;
    Ok(Step::Changed(
        file,
        format!("include(\":cetp\") from {}", template.display()),
    ))
}

/// `cetp.rustCrate` in the root `gradle.properties`.
fn properties(project: &Project) -> Result<Step> {
    let file = project.layout.properties_file();
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let crate_dir = canonical(&project.crate_dir)?;
    let wanted = relative(&project.layout.root, &crate_dir);
    let existing = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == "cetp.rustCrate")
        .map(|(_, v)| v.trim().to_owned());
    match existing {
        Some(value) if project.layout.root.join(&value).canonicalize().ok() == Some(crate_dir) => {
            Ok(Step::Unchanged(file, format!("cetp.rustCrate={value}")))
        }
        Some(value) => Ok(Step::Manual(
            file,
            format!(
                "cetp.rustCrate={}   (instead of cetp.rustCrate={value})",
                wanted.display()
            ),
        )),
        None => {
            append(
                &file,
                &format!(
                    "\n# The Rust crate of the CETP tool provider, relative to this (root) project.\n\
                     cetp.rustCrate={}\n",
                    wanted.display()
                ),
            )?;
            Ok(Step::Changed(
                file,
                format!("cetp.rustCrate={}", wanted.display()),
            ))
        }
    }
}

/// The placeholders and the dependency in the app module's build file.
fn module_build(project: &Project) -> Result<Vec<Step>> {
    let file = project.layout.build_file();
    let Names {
        lib_name, package, ..
    } = &project.names;
    let placeholders = [
        "// The CETP provider: the authority agents call, and the Rust library it loads."
            .to_owned(),
        format!("manifestPlaceholders[\"cetpAuthority\"] = \"{package}.tools\""),
        format!("manifestPlaceholders[\"cetpLibrary\"] = \"{lib_name}\""),
    ];
    let dependency = "implementation(project(\":cetp\")) // the CETP provider module";
    let mut text = std::fs::read_to_string(&file).map_err(Error::io(&file))?;
    let kotlin = file.extension().is_some_and(|e| e == "kts");
    let read = gradle::parse(&text);
    let mut steps = Vec::new();
    let mut changed = Vec::new();

    let has = |key: &str| read.placeholders.contains_key(key);
    if has("cetpAuthority") && has("cetpLibrary") {
        steps.push(Step::Unchanged(
            file.clone(),
            "sets cetpAuthority and cetpLibrary".to_owned(),
        ));
    } else {
        let other_assignment = text.lines().map(strip_comment).any(|l| {
            let l = l.trim_start();
            l.starts_with("manifestPlaceholders")
                && !l.starts_with("manifestPlaceholders[")
                && l.contains('=')
        }) || has("cetpAuthority")
            || has("cetpLibrary");
        match single_line(&text, "defaultConfig {", false) {
            Some(at) if kotlin && !other_assignment => {
                text = insert_block(&text, at, &placeholders);
                changed.push("the placeholders cetpAuthority and cetpLibrary under defaultConfig");
            }
            _ => steps.push(Step::Manual(
                file.clone(),
                format!(
                    "android {{\n    defaultConfig {{\n        {}\n    }}\n}}",
                    placeholders.join("\n        ")
                ),
            )),
        }
    }
    let uses_template = text
        .lines()
        .map(strip_comment)
        .any(|l| l.contains("project(\":cetp\")") && l.contains("implementation"));
    if uses_template {
        steps.push(Step::Unchanged(
            file.clone(),
            "depends on project(\":cetp\")".to_owned(),
        ));
    } else {
        match single_line(&text, "dependencies {", true) {
            Some(at) if kotlin => {
                text = insert_block(&text, at, &[dependency.to_owned()]);
                changed.push("implementation(project(\":cetp\"))");
            }
            _ => steps.push(Step::Manual(
                file.clone(),
                format!("dependencies {{\n    {dependency}\n}}"),
            )),
        }
    }
    if !changed.is_empty() {
        std::fs::write(&file, &text).map_err(Error::io(&file))?;
        steps.insert(0, Step::Changed(file, changed.join("; ")));
    }
    Ok(steps)
}

/// The Android library plugin beside the application plugin: in the version catalog and the
/// root build file's `plugins {}` (`apply false`), so that the template module's
/// `id("com.android.library")` resolves at the application plugin's version.
fn plugin(project: &Project) -> Result<Vec<Step>> {
    let root = &project.layout.root;
    let build = layout::BUILD_FILES
        .iter()
        .map(|n| root.join(n))
        .find(|p| p.is_file());
    let Some(build) = build else {
        // No root build file: the app module's own `plugins {}` puts AGP on the classpath.
        return Ok(Vec::new());
    };
    let build_text = std::fs::read_to_string(&build).map_err(Error::io(&build))?;
    let catalog = root.join("gradle/libs.versions.toml");
    let mut steps = Vec::new();
    let root_line = if catalog.is_file() {
        let text = std::fs::read_to_string(&catalog).map_err(Error::io(&catalog))?;
        let entries = catalog_plugins(&text);
        let library_key = match entries.iter().find(|e| e.id == "com.android.library") {
            Some(entry) => {
                steps.push(Step::Unchanged(
                    catalog.clone(),
                    format!("has the plugin `{}` (com.android.library)", entry.key),
                ));
                Some(entry.key.clone())
            }
            None => match entries.iter().find(|e| e.id == "com.android.application") {
                Some(app) => {
                    let key = if entries.iter().any(|e| e.key == "android-library") {
                        "cetp-android-library"
                    } else {
                        "android-library"
                    };
                    let line = format!(
                        "{key} = {{ id = \"com.android.library\", {} }}",
                        app.version
                    );
                    let text = insert_lines(&text, app.line, std::slice::from_ref(&line), "");
                    std::fs::write(&catalog, text).map_err(Error::io(&catalog))?;
                    steps.push(Step::Changed(catalog.clone(), format!("[plugins] {line}")));
                    Some(key.to_owned())
                }
                None => {
                    steps.push(Step::Manual(
                        catalog.clone(),
                        "[plugins]\nandroid-library = { id = \"com.android.library\", version.ref = \"<the agp version>\" }"
                            .to_owned(),
                    ));
                    None
                }
            },
        };
        library_key.map(|key| {
            let accessor = format!("libs.plugins.{}", key.replace(['-', '_'], "."));
            (
                format!("{accessor})"),
                format!("alias({accessor}) apply false"),
                "alias(libs.plugins.",
            )
        })
    } else {
        // No catalog: `id("com.android.application") version "…" apply false`.
        build_text
            .lines()
            .map(strip_comment)
            .find_map(|l| {
                let rest = l.split("id(\"com.android.application\")").nth(1)?;
                let version = rest.split("version").nth(1)?.split("apply").next()?.trim();
                gradle::string_literal(version)
            })
            .map(|version| {
                (
                    "id(\"com.android.library\")".to_owned(),
                    format!("id(\"com.android.library\") version \"{version}\" apply false"),
                    "id(\"com.android.application\")",
                )
            })
    };
    let Some((present, line, anchor)) = root_line else {
        return Ok(steps);
    };
    let has_it = build_text
        .lines()
        .map(strip_comment)
        .any(|l| l.contains(&present));
    if has_it {
        steps.push(Step::Unchanged(build.clone(), line));
        return Ok(steps);
    }
    let anchors: Vec<usize> = build_text
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = strip_comment(l);
            l.contains(anchor)
                && l.contains("apply false")
                && (l.contains(".android.application)") || l.contains("com.android.application"))
        })
        .map(|(i, _)| i)
        .collect();
    let kotlin = build.extension().is_some_and(|e| e == "kts");
    match anchors.as_slice() {
        [at] if kotlin => {
            let indent = leading(build_text.lines().nth(*at).unwrap_or_default());
            let text = insert_lines(&build_text, *at, std::slice::from_ref(&line), &indent);
            std::fs::write(&build, text).map_err(Error::io(&build))?;
            steps.push(Step::Changed(build, line));
        }
        _ => steps.push(Step::Manual(build, format!("plugins {{\n    {line}\n}}"))),
    }
    Ok(steps)
}

/// One `[plugins]` entry of a version catalog written on one line.
struct CatalogPlugin {
    key: String,
    id: String,
    /// `version.ref = "agp"` or `version = "8.7.3"`, as written.
    version: String,
    line: usize,
}

fn catalog_plugins(text: &str) -> Vec<CatalogPlugin> {
    let mut out = Vec::new();
    let mut in_plugins = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or_default().trim();
        if line.starts_with('[') {
            in_plugins = line == "[plugins]";
            continue;
        }
        if !in_plugins {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim();
        let Some(inner) = value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) else {
            continue;
        };
        let mut id = None;
        let mut version = None;
        for part in inner.split(',') {
            let Some((k, v)) = part.split_once('=') else {
                continue;
            };
            let v = v.trim().trim_matches('"').to_owned();
            match k.trim() {
                "id" => id = Some(v),
                "version.ref" => version = Some(format!("version.ref = \"{v}\"")),
                "version" => version = Some(format!("version = \"{v}\"")),
                _ => {}
            }
        }
        if let (Some(id), Some(version)) = (id, version) {
            out.push(CatalogPlugin {
                key: key.trim().to_owned(),
                id,
                version,
                line: i,
            });
        }
    }
    out
}

/// The index of the only line that reads `wanted` (comments and surrounding blanks aside);
/// `top_level`: at the start of the line. `None` when there is none or more than one.
fn single_line(text: &str, wanted: &str, top_level: bool) -> Option<usize> {
    let found: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let code = strip_comment(l).trim_end();
            code.trim_start() == wanted && (!top_level || !code.starts_with([' ', '\t']))
        })
        .map(|(i, _)| i)
        .collect();
    match found.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// `lines` inserted after line `at` (a block's opening line), indented one level deeper.
fn insert_block(text: &str, at: usize, lines: &[String]) -> String {
    let opening = text.lines().nth(at).unwrap_or_default();
    let next = text.lines().nth(at + 1).unwrap_or_default();
    let indent = if next.trim().is_empty() || leading(next).len() <= leading(opening).len() {
        format!("{}    ", leading(opening))
    } else {
        leading(next)
    };
    insert_lines(text, at, lines, &indent)
}

fn insert_lines(text: &str, at: usize, lines: &[String], indent: &str) -> String {
    let mut out = String::with_capacity(text.len() + 200);
    for (i, line) in text.split_inclusive('\n').enumerate() {
        out.push_str(line);
        if i == at {
            if !line.ends_with('\n') {
                out.push('\n');
            }
            for added in lines {
                out.push_str(indent);
                out.push_str(added);
                out.push('\n');
            }
        }
    }
    out
}

fn leading(line: &str) -> String {
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

fn append(file: &Path, lines: &str) -> Result<()> {
    let mut text = std::fs::read_to_string(file).unwrap_or_default();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(lines);
    std::fs::write(file, text).map_err(Error::io(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, path: &str, text: &str) {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read(dir: &Path, path: &str) -> String {
        std::fs::read_to_string(dir.join(path)).unwrap()
    }

    fn options(dir: &Path) -> InitOptions {
        InitOptions {
            project: dir.to_path_buf(),
            android_module: None,
            crate_dir: None,
            name: None,
            sdk: SdkSource::Path(crate::sdk_dir()),
        }
    }

    const APP: &str = "plugins {\n    alias(libs.plugins.android.application)\n}\n\nandroid {\n    namespace = \"com.example.shelf\"\n    defaultConfig {\n        applicationId = \"com.example.shelf\"\n        minSdk = 24\n    }\n}\n\ndependencies {\n    implementation(libs.androidx.core.ktx)\n}\n";

    fn project(d: &Path) {
        write(
            d,
            "settings.gradle.kts",
            "rootProject.name = \"Shelf\"\ninclude(\":app\")\ninclude(\":core\")",
        );
        write(
            d,
            "build.gradle.kts",
            "plugins {\n    alias(libs.plugins.android.application) apply false\n    alias(libs.plugins.kotlin.jvm) apply false\n}\n",
        );
        write(
            d,
            "gradle/libs.versions.toml",
            "[versions]\nagp = \"8.7.3\"\n\n[plugins]\nandroid-application = { id = \"com.android.application\", version.ref = \"agp\" }\nkotlin-jvm = { id = \"org.jetbrains.kotlin.jvm\", version = \"2.0.21\" }\n",
        );
        write(d, "app/build.gradle.kts", APP);
        write(
            d,
            "core/build.gradle.kts",
            "plugins { alias(libs.plugins.kotlin.jvm) }\n",
        );
    }

    #[test]
    fn a_plain_project_is_wired_once() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        project(d);
        let steps = init(&options(d)).unwrap();
        assert!(
            steps.iter().all(|s| matches!(s, Step::Changed(..))),
            "{steps:#?}"
        );
        let app = read(d, "app/build.gradle.kts");
        assert!(
            app.contains("    defaultConfig {\n        // The CETP provider: the authority agents call, and the Rust library it loads.\n        manifestPlaceholders[\"cetpAuthority\"] = \"com.example.shelf.tools\"\n        manifestPlaceholders[\"cetpLibrary\"] = \"shelf\"\n        applicationId"),
            "{app}"
        );
        assert!(app.contains(
            "dependencies {\n    implementation(project(\":cetp\")) // the CETP provider module\n    implementation(libs.androidx.core.ktx)"
        ));
        assert!(read(d, "gradle/libs.versions.toml").contains(
            "android-application = { id = \"com.android.application\", version.ref = \"agp\" }\nandroid-library = { id = \"com.android.library\", version.ref = \"agp\" }\n"
        ));
        assert!(read(d, "build.gradle.kts").contains(
            "    alias(libs.plugins.android.application) apply false\n    alias(libs.plugins.android.library) apply false\n"
        ));
        assert!(read(d, "gradle.properties").ends_with("cetp.rustCrate=rust\n"));
        let settings = read(d, "settings.gradle.kts");
        assert!(
            settings.starts_with(
                "rootProject.name = \"Shelf\"\ninclude(\":app\")\ninclude(\":core\")\n\n"
            ),
            "{settings}"
        );
        let template = layout::includes(&d.canonicalize().unwrap())
            .into_iter()
            .find(|(n, _)| n == ":cetp")
            .unwrap()
            .1;
        assert!(template.join("src/main/AndroidManifest.xml").is_file());
        let cargo = read(d, "rust/Cargo.toml");
        assert!(cargo.contains("name = \"shelf\""), "{cargo}");
        assert!(cargo.ends_with("[package.metadata.cetp]\nandroid-module = \"../app\"\n"));
        assert!(read(d, "rust/tests/provider.rs").contains("App::new(\"com.example.shelf\""));

        // Everything is found again; nothing is written twice.
        let before: Vec<String> = [
            "app/build.gradle.kts",
            "build.gradle.kts",
            "gradle/libs.versions.toml",
            "settings.gradle.kts",
            "gradle.properties",
            "rust/Cargo.toml",
        ]
        .iter()
        .map(|p| read(d, p))
        .collect();
        let again = init(&options(d)).unwrap();
        assert!(
            again.iter().all(|s| matches!(s, Step::Unchanged(..))),
            "{again:#?}"
        );
        assert!(report(&again).contains("0 file(s) changed, 0 left to you (nothing to do"));
        let after: Vec<String> = [
            "app/build.gradle.kts",
            "build.gradle.kts",
            "gradle/libs.versions.toml",
            "settings.gradle.kts",
            "gradle.properties",
            "rust/Cargo.toml",
        ]
        .iter()
        .map(|p| read(d, p))
        .collect();
        assert_eq!(before, after);
    }

    #[test]
    fn what_it_cannot_read_it_leaves_and_prints() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        project(d);
        // Placeholders assigned as a whole map, and a Groovy-looking root without a catalog
        // entry for the application plugin.
        let app = APP.replace(
            "        minSdk = 24\n",
            "        minSdk = 24\n        manifestPlaceholders += mapOf(\"x\" to \"y\")\n",
        );
        write(d, "app/build.gradle.kts", &app);
        write(
            d,
            "gradle/libs.versions.toml",
            "[versions]\nagp = \"8.7.3\"\n",
        );
        let steps = init(&options(d)).unwrap();
        let text = report(&steps);
        assert_eq!(
            read(d, "app/build.gradle.kts"),
            app.replace(
                "dependencies {\n",
                "dependencies {\n    implementation(project(\":cetp\")) // the CETP provider module\n"
            ),
            "only the dependency is added"
        );
        assert!(
            text.contains("TO DO     app/build.gradle.kts: not changed"),
            "{text}"
        );
        assert!(
            text.contains("        manifestPlaceholders[\"cetpLibrary\"] = \"shelf\""),
            "{text}"
        );
        assert!(
            text.contains("TO DO     gradle/libs.versions.toml"),
            "{text}"
        );
        assert_eq!(
            read(d, "gradle/libs.versions.toml"),
            "[versions]\nagp = \"8.7.3\"\n"
        );
        assert!(text.contains(", 2 left to you"), "{text}");
    }

    #[test]
    fn the_app_module_must_be_named_among_several() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        project(d);
        write(d, "core/build.gradle.kts", APP);
        let err = init(&options(d)).unwrap_err().to_string();
        assert!(
            err.contains("several app modules (:app, :core): name one with `--android-module"),
            "{err}"
        );
        let named = InitOptions {
            android_module: Some(PathBuf::from(":app")),
            ..options(d)
        };
        init(&named).unwrap();
        assert!(read(d, "app/build.gradle.kts").contains("project(\":cetp\")"));
        assert!(!read(d, "core/build.gradle.kts").contains("project(\":cetp\")"));
        let err = init(&InitOptions {
            android_module: Some(PathBuf::from(":wear")),
            ..options(d)
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("includes no module `:wear`"), "{err}");
    }

    #[test]
    fn crate_names_come_from_the_project_directory() {
        assert_eq!(crate_name_of(Path::new("/x/My Reader")), "my-reader");
        assert_eq!(crate_name_of(Path::new("/x/2048")), "app-2048");
    }
}
