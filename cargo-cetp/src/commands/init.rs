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
//! top-level `dependencies {` line (a line inside a `/* */` block or after `//` is not code), no
//! other assignment to `manifestPlaceholders`, the application plugin declared on one line.
//! Anything else (a Groovy build file, a computed value) is left as it is, and the lines to add
//! are printed instead (a `TO DO` step). So is:
//!
//! - a file that is not UTF-8 text (a `gradle.properties` in ISO-8859-1), byte for byte;
//! - a version catalog whose TOML does not parse, or whose `[plugins]` entries the line reader
//!   and the TOML parser read differently;
//! - a file that is, or is reached through, a symbolic link, or that lies outside the root
//!   project (a module whose `projectDir` is `../elsewhere` or absolute): the step names the link
//!   and where it points, or the root. A path the developer named (`--crate-dir`, a directory
//!   given to `--android-module`) is written as named, links and all.
//!
//! Each file keeps its line endings: lines added to a CRLF file end in CRLF, and a file without
//! a newline at its end still has none. Every write goes to a temporary file in the same
//! directory, renamed over the file (which keeps its permissions), so an interrupted run leaves
//! the old file or the new one, never half of one.
//!
//! `--dry-run` makes the same steps, reads the same files, and writes nothing: what it prints
//! is what a run would print.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use crate::android_build::android::relative;
use crate::android_build::bundle::gradle;
use crate::android_build::layout::{self, Layout};
use crate::cli::{InitOptions, NewOptions, SdkSource};
use crate::commands::new::{self, Names};
use crate::{Error, Result};

mod room;

/// Why a file is left for the developer when its shape is the reason.
const SHAPE: &str = "its shape is not one cargo cetp edits";
/// Why a file that is not UTF-8 text is left.
const NOT_UTF8: &str = "it is not UTF-8 text";

/// What one step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// The file was written or changed (in a dry run: would be): what was added.
    Changed(PathBuf, String),
    /// Already there.
    Unchanged(PathBuf, String),
    /// Not changed: why not, and the lines to add there.
    Manual(PathBuf, String, String),
}

/// The project as `init` found it.
#[derive(Debug, Clone)]
struct Project {
    layout: Layout,
    crate_dir: PathBuf,
    names: Names,
    sdk: SdkSource,
    writer: Writer,
}

/// Where `init` may write, and whether it writes at all.
#[derive(Debug, Clone)]
struct Writer {
    /// The root project (canonical): nothing outside it is written, unless named.
    root: PathBuf,
    /// Paths the developer named on the command line: written as named, links and all.
    named: Vec<PathBuf>,
    dry_run: bool,
}

/// A file's text, as far as `init` reads it.
enum Text {
    Missing,
    Utf8(String),
    NotUtf8,
}

fn read(file: &Path) -> Result<Text> {
    match std::fs::read(file) {
        Ok(bytes) => Ok(String::from_utf8(bytes).map_or(Text::NotUtf8, Text::Utf8)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Text::Missing),
        Err(e) => Err(Error::io(file)(e)),
    }
}

impl Writer {
    /// Why `file` is not written: outside the root project, or a symbolic link on the way to it
    /// (below a named path). `None`: it may be.
    fn refusal(&self, file: &Path) -> Option<String> {
        let normal = normal(file);
        let start = match self.named.iter().find(|n| normal.starts_with(n)) {
            Some(named) => named,
            None if normal.starts_with(&self.root) => &self.root,
            None => {
                return Some(format!(
                    "outside the project root {}, which cargo cetp init does not write",
                    self.root.display()
                ));
            }
        };
        // The path as written (a `..` after a link leaves the link's directory, not its
        // name's), else as normalised.
        let below = file
            .strip_prefix(start)
            .or_else(|_| normal.strip_prefix(start))
            .ok()?;
        let mut at = start.clone();
        for part in below.components() {
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    let to = std::fs::read_link(&at).map_or_else(
                        |_| PathBuf::from("?"),
                        |to| at.parent().map_or(to.clone(), |dir| dir.join(&to)),
                    );
                    return Some(format!(
                        "a symbolic link to {}, which cargo cetp init does not write through{}",
                        to.display(),
                        if at == normal || at == file {
                            String::new()
                        } else {
                            format!(" ({} is the link)", at.display())
                        }
                    ));
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        None
    }

    /// `text` written to `file` (the step says `changed`), or, when `file` may not be written,
    /// `lines` left to the developer.
    fn put(&self, file: PathBuf, text: &str, changed: String, lines: String) -> Result<Step> {
        if let Some(why) = self.refusal(&file) {
            return Ok(Step::Manual(file, why, lines));
        }
        if !self.dry_run {
            write_atomic(&file, text.as_bytes())?;
        }
        Ok(Step::Changed(file, changed))
    }
}

/// `bytes` into `file` through a temporary file in its directory, renamed over it; an existing
/// file's permissions are kept.
fn write_atomic(file: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write as _;
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new()
        .prefix(".cetp-init-")
        .tempfile_in(dir)
        .map_err(Error::io(dir))?;
    temp.write_all(bytes).map_err(Error::io(file))?;
    let permissions = match std::fs::metadata(file) {
        Ok(meta) => Some(meta.permissions()),
        Err(_) => new_file_permissions(),
    };
    if let Some(permissions) = permissions {
        std::fs::set_permissions(temp.path(), permissions).map_err(Error::io(file))?;
    }
    temp.as_file().sync_all().map_err(Error::io(file))?;
    temp.persist(file).map_err(|e| Error::io(file)(e.error))?;
    Ok(())
}

/// A new file's permissions: the temporary file's own (owner only) are too narrow for a build
/// file.
#[cfg(unix)]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt as _;
    Some(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    None
}

/// `path` with `.` and `..` resolved by name.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` with its longest existing ancestor canonicalised (it need not exist yet).
fn resolved(path: &Path) -> PathBuf {
    let path = normal(path);
    for dir in path.ancestors() {
        if let Ok(real) = dir.canonicalize() {
            let rest = path.strip_prefix(dir).unwrap_or(Path::new(""));
            return if rest.as_os_str().is_empty() {
                real
            } else {
                real.join(rest)
            };
        }
    }
    path
}

/// Runs `cargo cetp init`, printing each step.
///
/// # Errors
/// [`Error::App`] when there is no Gradle project, no app module, or its application id cannot
/// be read; [`Error::Io`].
pub(crate) fn run(options: &InitOptions) -> Result<i32> {
    let steps = init(options)?;
    print!("{}", report(&steps, options.dry_run));
    if let Some(line) = room::hint(&find(options)?.layout) {
        println!("{line}");
    }
    Ok(0)
}

/// What [`run`] prints for `steps`: the same lines in a dry run, but its last.
pub(crate) fn report(steps: &[Step], dry_run: bool) -> String {
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
            Step::Manual(path, why, what) => {
                let _ = writeln!(
                    out,
                    "TO DO     {}: not changed ({why}); add:\n{}",
                    path.display(),
                    indent(what)
                );
            }
        }
    }
    if dry_run {
        let _ = writeln!(
            out,
            "\ncargo cetp init --dry-run: {changed} file(s) a run would change, {manual} left to \
             you; nothing written"
        );
    } else {
        let _ = writeln!(
            out,
            "\ncargo cetp init: {changed} file(s) changed, {manual} left to you{}",
            if changed == 0 && manual == 0 {
                " (nothing to do: already set up)"
            } else {
                ""
            }
        );
    }
    out
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}\n"))
        .collect::<String>()
}

/// Does the work of `cargo cetp init` (in a dry run: reads and plans it) and says what it did,
/// step by step.
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
            Step::Manual(p, why, w) => Step::Manual(shown(&p), why, w),
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
    let mut named = Vec::new();
    // A module from settings is where settings puts it, as written (not canonicalised: a link
    // or a `..` out of the root stays visible to what writes).
    let module = match &options.android_module {
        Some(named_module) => {
            let text = named_module.to_string_lossy();
            let by_dir = absolute(named_module)?;
            if !text.starts_with(':') && by_dir.is_dir() {
                let module = canonical(&by_dir)?;
                named.push(module.clone());
                module
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
        None => {
            let apps: Vec<(String, PathBuf)> = layout::includes(&root)
                .into_iter()
                .filter(|(_, dir)| {
                    layout::BUILD_FILES.iter().any(|name| {
                        std::fs::read_to_string(dir.join(name))
                            .is_ok_and(|text| layout::applies_app_plugin(&text))
                    })
                })
                .collect();
            match apps.as_slice() {
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
            }
        }
    };
    let layout = Layout {
        module,
        root: root.clone(),
    };
    let build = std::fs::read_to_string(layout.build_file()).unwrap_or_default();
    let package = gradle::parse(&code_lines(&build).join("\n"))
        .application_id
        .ok_or_else(|| {
            Error::App(format!(
                "{} sets no literal `applicationId` or `namespace`, which the provider's \
                 authority is made from: set one, then run `cargo cetp init` again",
                layout.build_file().display()
            ))
        })?;
    let crate_dir = match &options.crate_dir {
        Some(dir) => {
            let dir = resolved(&absolute(dir)?);
            named.push(dir.clone());
            dir
        }
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
        writer: Writer {
            root,
            named,
            dry_run: options.dry_run,
        },
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
    let crate_dir = &project.crate_dir;
    let options = NewOptions {
        dir: crate_dir.clone(),
        name: Some(project.names.crate_name.clone()),
        package: Some(project.names.package.clone()),
        sdk: project.sdk.clone(),
    };
    let module = relative(&resolved(crate_dir), &resolved(&project.layout.module));
    let metadata = format!(
        "\n# Where `cargo cetp` finds the Android app module, relative to this crate.\n\
         [package.metadata.cetp]\nandroid-module = {}\n",
        crate::android_build::app::toml_string(&module.to_string_lossy())
    );
    let keep = ["Cargo.toml", "src/lib.rs", "tests/provider.rs"];
    let mut files: Vec<(PathBuf, String)> = new::files(&options, &resolved(crate_dir))?
        .into_iter()
        .filter(|(path, _)| keep.iter().any(|k| path == Path::new(k)))
        .map(|(path, text)| {
            let text = if path == Path::new("Cargo.toml") {
                format!("{text}{metadata}")
            } else {
                text
            };
            (path, text)
        })
        .collect();
    if !crate_dir.join(".gitignore").exists() {
        files.push((PathBuf::from(".gitignore"), "/target\n".to_owned()));
    }
    let manual = || {
        format!(
            "the crate: cargo cetp new {} --name {} --package {}\nthen in its Cargo.toml:{metadata}",
            shown.display(),
            project.names.crate_name,
            project.names.package
        )
    };
    let refused = std::iter::once(crate_dir.clone())
        .chain(files.iter().map(|(path, _)| crate_dir.join(path)))
        .find_map(|path| project.writer.refusal(&path));
    if let Some(why) = refused {
        return Ok(Step::Manual(crate_dir.clone(), why, manual()));
    }
    if let Some((there, _)) = files
        .iter()
        .find(|(path, _)| crate_dir.join(path).exists() && path != Path::new(".gitignore"))
    {
        return Ok(Step::Manual(
            crate_dir.clone(),
            format!(
                "{} is there without a Cargo.toml, and cargo cetp init replaces no file",
                there.display()
            ),
            manual(),
        ));
    }
    if !project.writer.dry_run {
        for (path, text) in &files {
            let file = crate_dir.join(path);
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
            }
            write_atomic(&file, text.as_bytes())?;
        }
    }
    let written: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
    Ok(Step::Changed(
        crate_dir.clone(),
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
    let text = match read(&file)? {
        Text::Utf8(text) => text,
        Text::Missing => String::new(),
        Text::NotUtf8 => {
            return Ok(Step::Manual(
                file,
                NOT_UTF8.to_owned(),
                lines.trim_start().to_owned(),
            ));
        }
    };
    project.writer.put(
        file,
        &append(&text, &lines),
        format!("include(\":cetp\") from {}", template.display()),
        lines.trim_start().to_owned(),
    )
}

/// `cetp.rustCrate` in the root `gradle.properties`.
fn properties(project: &Project) -> Result<Step> {
    let file = project.layout.properties_file();
    let crate_dir = resolved(&project.crate_dir);
    let wanted = relative(&project.layout.root, &project.crate_dir);
    let line = format!("cetp.rustCrate={}", wanted.display());
    let text = match read(&file)? {
        Text::Utf8(text) => text,
        Text::Missing => String::new(),
        Text::NotUtf8 => return Ok(Step::Manual(file, NOT_UTF8.to_owned(), line)),
    };
    let existing = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == "cetp.rustCrate")
        .map(|(_, v)| v.trim().to_owned());
    match existing {
        Some(value) if resolved(&project.layout.root.join(&value)) == crate_dir => {
            Ok(Step::Unchanged(file, format!("cetp.rustCrate={value}")))
        }
        Some(value) => Ok(Step::Manual(
            file,
            SHAPE.to_owned(),
            format!("{line}   (instead of cetp.rustCrate={value})"),
        )),
        None => project.writer.put(
            file,
            &append(
                &text,
                &format!(
                    "\n# The Rust crate of the CETP tool provider, relative to this (root) project.\n\
                     {line}\n"
                ),
            ),
            line.clone(),
            line,
        ),
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
    let placeholder_block = format!(
        "android {{\n    defaultConfig {{\n        {}\n    }}\n}}",
        placeholders.join("\n        ")
    );
    let dependency = "implementation(project(\":cetp\")) // the CETP provider module";
    let dependency_block = format!("dependencies {{\n    {dependency}\n}}");
    let mut text = match read(&file)? {
        Text::Utf8(text) => text,
        Text::Missing => return Err(Error::io(&file)(std::io::ErrorKind::NotFound.into())),
        Text::NotUtf8 => {
            return Ok(vec![Step::Manual(
                file,
                NOT_UTF8.to_owned(),
                format!("{placeholder_block}\n{dependency_block}"),
            )]);
        }
    };
    let kotlin = file.extension().is_some_and(|e| e == "kts");
    let mut code = code_lines(&text);
    let read = gradle::parse(&code.join("\n"));
    let mut steps = Vec::new();
    let mut changed = Vec::new();
    let mut blocks = Vec::new();

    let has = |key: &str| read.placeholders.contains_key(key);
    if has("cetpAuthority") && has("cetpLibrary") {
        steps.push(Step::Unchanged(
            file.clone(),
            "sets cetpAuthority and cetpLibrary".to_owned(),
        ));
    } else {
        let other_assignment = code.iter().any(|l| {
            let l = l.trim_start();
            l.starts_with("manifestPlaceholders")
                && !l.starts_with("manifestPlaceholders[")
                && l.contains('=')
        }) || has("cetpAuthority")
            || has("cetpLibrary");
        match single_line(&code, "defaultConfig {", false) {
            Some(at) if kotlin && !other_assignment => {
                text = insert_block(&text, at, &placeholders);
                code = code_lines(&text);
                changed.push("the placeholders cetpAuthority and cetpLibrary under defaultConfig");
                blocks.push(placeholder_block);
            }
            _ => steps.push(Step::Manual(
                file.clone(),
                SHAPE.to_owned(),
                placeholder_block,
            )),
        }
    }
    let uses_template = code
        .iter()
        .any(|l| l.contains("project(\":cetp\")") && l.contains("implementation"));
    if uses_template {
        steps.push(Step::Unchanged(
            file.clone(),
            "depends on project(\":cetp\")".to_owned(),
        ));
    } else {
        match single_line(&code, "dependencies {", true) {
            Some(at) if kotlin => {
                text = insert_block(&text, at, &[dependency.to_owned()]);
                changed.push("implementation(project(\":cetp\"))");
                blocks.push(dependency_block);
            }
            _ => steps.push(Step::Manual(
                file.clone(),
                SHAPE.to_owned(),
                dependency_block,
            )),
        }
    }
    if !changed.is_empty() {
        let step = project
            .writer
            .put(file, &text, changed.join("; "), blocks.join("\n"))?;
        steps.insert(0, step);
    }
    Ok(steps)
}

/// The `id` of a `[plugins]` entry as TOML reads it: `{ id = "…", … }` or `"id:version"`.
fn toml_plugin_id(value: &toml::Value) -> Option<&str> {
    match value {
        toml::Value::String(s) => s.split(':').next(),
        toml::Value::Table(t) => t.get("id").and_then(toml::Value::as_str),
        _ => None,
    }
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
    let build_text = match read(&build)? {
        Text::Utf8(text) => Some(text),
        Text::Missing | Text::NotUtf8 => None,
    };
    let build_code = build_text.as_deref().map(code_lines).unwrap_or_default();
    let catalog = root.join("gradle/libs.versions.toml");
    let mut steps = Vec::new();
    let root_line = if catalog.is_file() {
        let generic = "[plugins]\nandroid-library = { id = \"com.android.library\", version.ref = \"<the agp version>\" }";
        let library_key = match read(&catalog)? {
            Text::Utf8(text) => catalog_step(project, &catalog, &text, &mut steps)?,
            Text::Missing | Text::NotUtf8 => {
                steps.push(Step::Manual(
                    catalog.clone(),
                    NOT_UTF8.to_owned(),
                    generic.to_owned(),
                ));
                None
            }
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
        build_code
            .iter()
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
    let block = format!("plugins {{\n    {line}\n}}");
    let Some(build_text) = build_text else {
        steps.push(Step::Manual(build, NOT_UTF8.to_owned(), block));
        return Ok(steps);
    };
    if build_code.iter().any(|l| l.contains(&present)) {
        steps.push(Step::Unchanged(build.clone(), line));
        return Ok(steps);
    }
    let anchors: Vec<usize> = build_code
        .iter()
        .enumerate()
        .filter(|(_, l)| {
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
            steps.push(project.writer.put(build, &text, line, block)?);
        }
        _ => steps.push(Step::Manual(build, SHAPE.to_owned(), block)),
    }
    Ok(steps)
}

/// The catalog's step (pushed to `steps`) and the key of its library plugin entry, if it has
/// one or gets one.
fn catalog_step(
    project: &Project,
    catalog: &Path,
    text: &str,
    steps: &mut Vec<Step>,
) -> Result<Option<String>> {
    let entries = catalog_plugins(text);
    let app = entries.iter().find(|e| e.id == "com.android.application");
    let key = if entries.iter().any(|e| e.key == "android-library") {
        "cetp-android-library"
    } else {
        "android-library"
    };
    let line = app.map(|app| {
        format!(
            "{key} = {{ id = \"com.android.library\", {} }}",
            app.version
        )
    });
    let lines = format!(
        "[plugins]\n{}",
        line.clone().unwrap_or_else(|| {
            "android-library = { id = \"com.android.library\", version.ref = \"<the agp version>\" }"
                .to_owned()
        })
    );
    let table = match text.parse::<toml::Table>() {
        Ok(table) => table,
        Err(e) => {
            let first = e.to_string();
            let first = first.lines().next().unwrap_or_default().trim().to_owned();
            steps.push(Step::Manual(
                catalog.to_path_buf(),
                format!("its TOML does not parse: {first}"),
                lines,
            ));
            return Ok(None);
        }
    };
    let plugins = table.get("plugins").and_then(toml::Value::as_table);
    let toml_id = |key: &str| plugins.and_then(|p| p.get(key)).and_then(toml_plugin_id);
    // The TOML parser's reading of [plugins] is the truth; the line reader's must agree with it
    // before a line is added after one it found.
    if let Some((key, _)) = plugins.and_then(|p| {
        p.iter()
            .find(|(_, v)| toml_plugin_id(v) == Some("com.android.library"))
    }) {
        steps.push(Step::Unchanged(
            catalog.to_path_buf(),
            format!("has the plugin `{key}` (com.android.library)"),
        ));
        return Ok(Some(key.clone()));
    }
    let agrees = entries
        .iter()
        .all(|e| toml_id(&e.key) == Some(e.id.as_str()))
        && plugins.is_none_or(|p| !p.contains_key(key));
    match (app, line) {
        (Some(app), Some(line)) if agrees => {
            let text = insert_lines(text, app.line, std::slice::from_ref(&line), "");
            let step = project.writer.put(
                catalog.to_path_buf(),
                &text,
                format!("[plugins] {line}"),
                lines,
            )?;
            let written = matches!(step, Step::Changed(..));
            steps.push(step);
            Ok(written.then(|| key.to_owned()))
        }
        _ => {
            steps.push(Step::Manual(catalog.to_path_buf(), SHAPE.to_owned(), lines));
            Ok(None)
        }
    }
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

/// The code of each line of a Gradle (Kotlin or Groovy) file: what a `//` comment or a
/// `/* … */` block (Kotlin nests them) leaves; string literals are kept whole. One entry per
/// line of `text.lines()`.
fn code_lines(text: &str) -> Vec<String> {
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

/// The index of the only line whose code (see [`code_lines`]) reads `wanted`, surrounding
/// blanks aside; `top_level`: at the start of the line. `None` when there is none or more than
/// one.
fn single_line(code: &[String], wanted: &str, top_level: bool) -> Option<usize> {
    let found: Vec<usize> = code
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            let code = l.trim_end();
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

/// The line ending of `text`: its first line's (`\n` when it has one line).
fn eol(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if text[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// `lines` inserted after line `at`, each indented by `indent` and ended as `text`'s lines are;
/// a file without a newline at its end still has none.
fn insert_lines(text: &str, at: usize, lines: &[String], indent: &str) -> String {
    let eol = eol(text);
    let mut out = String::with_capacity(text.len() + 200);
    for (i, line) in text.split_inclusive('\n').enumerate() {
        out.push_str(line);
        if i == at {
            let last = !line.ends_with('\n');
            if last {
                out.push_str(eol);
            }
            for added in lines {
                out.push_str(indent);
                out.push_str(added);
                out.push_str(eol);
            }
            if last {
                out.truncate(out.len() - eol.len());
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

/// `lines` (`\n`-ended) after `text`, ended as `text`'s lines are; a text without a newline at
/// its end still has none.
fn append(text: &str, lines: &str) -> String {
    let eol = eol(text);
    let bare = !text.is_empty() && !text.ends_with('\n');
    let mut out = text.to_owned();
    if bare {
        out.push_str(eol);
    }
    out.push_str(&lines.replace('\n', eol));
    if bare && out.ends_with(eol) {
        out.truncate(out.len() - eol.len());
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
            dry_run: false,
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
        assert!(report(&again, false).contains("0 file(s) changed, 0 left to you (nothing to do"));
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
        let text = report(&steps, false);
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

    /// Every file under `dir` (links not followed), relative path → bytes (a link: its target).
    fn snapshot(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
        let mut out = std::collections::BTreeMap::new();
        let mut todo = vec![dir.to_path_buf()];
        while let Some(at) = todo.pop() {
            for entry in std::fs::read_dir(&at).unwrap() {
                let path = entry.unwrap().path();
                let kind = std::fs::symlink_metadata(&path).unwrap().file_type();
                let key = path.strip_prefix(dir).unwrap().to_path_buf();
                if kind.is_symlink() {
                    let to = std::fs::read_link(&path).unwrap();
                    out.insert(key, to.to_string_lossy().as_bytes().to_vec());
                } else if kind.is_dir() {
                    todo.push(path);
                } else {
                    out.insert(key, std::fs::read(&path).unwrap());
                }
            }
        }
        out
    }

    #[test]
    fn a_latin1_properties_file_is_left_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        project(d);
        let latin1 = b"# Propri\xe9t\xe9s du projet\norg.gradle.jvmargs=-Xmx2g\n".to_vec();
        std::fs::write(d.join("gradle.properties"), &latin1).unwrap();
        let steps = init(&options(d)).unwrap();
        assert_eq!(std::fs::read(d.join("gradle.properties")).unwrap(), latin1);
        let text = report(&steps, false);
        assert!(
            text.contains("TO DO     gradle.properties: not changed (it is not UTF-8 text)"),
            "{text}"
        );
        assert!(text.contains("    cetp.rustCrate=rust\n"), "{text}");
        assert!(!text.contains("changed   gradle.properties"), "{text}");
    }

    #[test]
    fn a_catalog_that_does_not_parse_is_left_and_printed() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        project(d);
        // The [plugins] line is plain, but the file is not TOML (an unclosed string).
        let broken = "[versions]\nagp = \"8.7.3\"\ncore = \"1.15.0\n\n[plugins]\nandroid-application = { id = \"com.android.application\", version.ref = \"agp\" }\n";
        write(d, "gradle/libs.versions.toml", broken);
        let root_build = read(d, "build.gradle.kts");
        let steps = init(&options(d)).unwrap();
        let text = report(&steps, false);
        assert_eq!(read(d, "gradle/libs.versions.toml"), broken);
        assert_eq!(
            read(d, "build.gradle.kts"),
            root_build,
            "no alias of an entry not written"
        );
        assert!(
            text.contains(
                "TO DO     gradle/libs.versions.toml: not changed (its TOML does not parse"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "    android-library = { id = \"com.android.library\", version.ref = \"agp\" }\n"
            ),
            "{text}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn nothing_is_written_through_a_symbolic_link() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        project(d);
        let outside = dir.path().join("outside");
        write(&outside, "gradle.properties", "android.useAndroidX=true\n");
        write(&outside, "app.gradle.kts", APP);
        std::fs::create_dir_all(outside.join("rust")).unwrap();
        symlink(
            outside.join("gradle.properties"),
            d.join("gradle.properties"),
        )
        .unwrap();
        symlink(outside.join("rust"), d.join("rust")).unwrap();
        std::fs::remove_file(d.join("app/build.gradle.kts")).unwrap();
        symlink(
            outside.join("app.gradle.kts"),
            d.join("app/build.gradle.kts"),
        )
        .unwrap();
        let before = snapshot(dir.path());
        let steps = init(&options(d)).unwrap();
        let text = report(&steps, false);
        let after = snapshot(dir.path());
        for (path, bytes) in &before {
            let catalog_or_root = [
                "shelf/gradle/libs.versions.toml",
                "shelf/build.gradle.kts",
                "shelf/settings.gradle.kts",
            ]
            .iter()
            .any(|p| path == Path::new(p));
            if !catalog_or_root {
                assert_eq!(
                    after.get(path),
                    Some(bytes),
                    "{} changed:\n{text}",
                    path.display()
                );
            }
        }
        assert!(!outside.join("rust/Cargo.toml").exists());
        for (link, to) in [
            ("gradle.properties", "outside/gradle.properties"),
            ("rust", "outside/rust"),
            ("app/build.gradle.kts", "outside/app.gradle.kts"),
        ] {
            let line = format!(
                "TO DO     {link}: not changed (a symbolic link to {}",
                dir.path().join(to).display()
            );
            assert!(text.contains(&line), "no {line:?} in:\n{text}");
        }
        assert!(text.contains("    cetp.rustCrate=rust\n"), "{text}");
        assert!(
            text.contains("manifestPlaceholders[\"cetpLibrary\"] = \"shelf\""),
            "{text}"
        );
    }

    #[test]
    fn a_module_outside_the_root_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        project(d);
        std::fs::remove_file(d.join("app/build.gradle.kts")).unwrap();
        write(dir.path(), "elsewhere/app/build.gradle.kts", APP);
        write(
            d,
            "settings.gradle.kts",
            "rootProject.name = \"Shelf\"\ninclude(\":app\")\nproject(\":app\").projectDir = file(\"../elsewhere/app\")\n",
        );
        let steps = init(&options(d)).unwrap();
        let text = report(&steps, false);
        assert_eq!(
            read(dir.path(), "elsewhere/app/build.gradle.kts"),
            APP,
            "{text}"
        );
        assert!(
            text.contains(
                "TO DO     ../elsewhere/app/build.gradle.kts: not changed (outside the project root"
            ),
            "{text}"
        );
        assert!(
            text.contains("implementation(project(\":cetp\"))"),
            "{text}"
        );
        // An absolute projectDir out of the root likewise.
        let absolute = dir.path().join("elsewhere/app").canonicalize().unwrap();
        write(
            d,
            "settings.gradle.kts",
            &format!(
                "rootProject.name = \"Shelf\"\ninclude(\":app\")\nproject(\":app\").projectDir = file({:?})\n",
                absolute.display().to_string()
            ),
        );
        let steps = init(&options(d)).unwrap();
        assert_eq!(read(dir.path(), "elsewhere/app/build.gradle.kts"), APP);
        assert!(report(&steps, false).contains("(outside the project root"));
    }

    #[test]
    fn commented_out_blocks_are_not_places_to_insert() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        project(d);
        let app = "plugins {\n    alias(libs.plugins.android.application)\n}\n\nandroid {\n    namespace = \"com.example.shelf\"\n    /* Set up later:\n    defaultConfig {\n        minSdk = 24\n    }\n    dependencies {\n    */\n    // defaultConfig {\n}\n\ndependencies {\n    implementation(libs.androidx.core.ktx)\n}\n";
        write(d, "app/build.gradle.kts", app);
        let steps = init(&options(d)).unwrap();
        let text = report(&steps, false);
        assert_eq!(
            read(d, "app/build.gradle.kts"),
            app.replace(
                "\ndependencies {\n",
                "\ndependencies {\n    implementation(project(\":cetp\")) // the CETP provider module\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("TO DO     app/build.gradle.kts: not changed (its shape is not one cargo cetp edits)"),
            "{text}"
        );
    }

    #[test]
    fn crlf_files_keep_their_line_endings() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        project(d);
        for path in [
            "app/build.gradle.kts",
            "build.gradle.kts",
            "gradle/libs.versions.toml",
        ] {
            let text = read(d, path).replace('\n', "\r\n");
            write(d, path, &text);
        }
        // No newline at the end: it still has none, and its last line is kept whole.
        write(
            d,
            "settings.gradle.kts",
            "rootProject.name = \"Shelf\"\r\ninclude(\":app\")\r\ninclude(\":core\")",
        );
        write(d, "gradle.properties", "android.useAndroidX=true\r\n");
        let steps = init(&options(d)).unwrap();
        assert!(
            steps.iter().all(|s| matches!(s, Step::Changed(..))),
            "{steps:#?}"
        );
        for path in [
            "app/build.gradle.kts",
            "build.gradle.kts",
            "gradle/libs.versions.toml",
            "settings.gradle.kts",
            "gradle.properties",
        ] {
            let text = read(d, path);
            assert_eq!(
                text.matches('\n').count(),
                text.matches("\r\n").count(),
                "{path}: {text:?}"
            );
        }
        let settings = read(d, "settings.gradle.kts");
        assert!(settings.starts_with("rootProject.name = \"Shelf\"\r\ninclude(\":app\")\r\ninclude(\":core\")\r\n\r\n// The CETP"), "{settings:?}");
        assert!(settings.ends_with("android-template\")"), "{settings:?}");
        assert!(read(d, "gradle.properties").ends_with("\r\ncetp.rustCrate=rust\r\n"));
    }

    #[test]
    fn a_dry_run_writes_nothing_and_says_what_a_run_does() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        project(d);
        let before = snapshot(dir.path());
        let dry = init(&InitOptions {
            dry_run: true,
            ..options(d)
        })
        .unwrap();
        assert_eq!(snapshot(dir.path()), before, "the dry run wrote");
        assert_eq!(dry.len(), 6, "{dry:#?}");
        assert!(
            dry.iter().all(|s| matches!(s, Step::Changed(..))),
            "{dry:#?}"
        );
        assert!(report(&dry, true).ends_with(
            "cargo cetp init --dry-run: 6 file(s) a run would change, 0 left to you; nothing written\n"
        ));
        let done = init(&options(d)).unwrap();
        assert_eq!(dry, done);
        assert_ne!(snapshot(dir.path()), before);
        let written = snapshot(dir.path());
        let again = init(&InitOptions {
            dry_run: true,
            ..options(d)
        })
        .unwrap();
        assert!(
            again.iter().all(|s| matches!(s, Step::Unchanged(..))),
            "{again:#?}"
        );
        assert_eq!(again, init(&options(d)).unwrap());
        assert_eq!(snapshot(dir.path()), written);
    }

    #[test]
    fn crate_names_come_from_the_project_directory() {
        assert_eq!(crate_name_of(Path::new("/x/My Reader")), "my-reader");
        assert_eq!(crate_name_of(Path::new("/x/2048")), "app-2048");
    }
}
