//! `cargo cetp init`: the provider added to an Android project that exists: a root project with
//! `settings.gradle(.kts)`, an app module (`:app`), often more modules and a version catalog.
//!
//! What it writes, each step only when it is not already there (so a second run changes
//! nothing):
//!
//! | where | what |
//! |---|---|
//! | `<crate>/` (default `rust/` in the root project) | the Rust crate `cargo cetp new` writes (`Cargo.toml`, `src/lib.rs`, `tests/provider.rs`), with `[package.metadata.cetp] android-module` naming the app module |
//! | `settings.gradle(.kts)` | `include(":cetp")` and its `projectDir`: the crate `cetp-android-template` the app's crate resolves (found by `cargo metadata`, in the settings' own language), or a checkout's `android-template/` |
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

mod adopt;
mod kit_test;
mod target;
mod toolchain;

use self::target::Target;
use crate::android_build::android::{self, relative};
use crate::android_build::bundle::gradle;
use crate::android_build::layout::{self, Layout, code_lines};
use crate::android_build::rust_build::{self, RustBuild};
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
    /// The crate the provider goes into.
    target: Target,
    /// The app module's `namespace` (its `R`'s package), else its application id.
    namespace: String,
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

    /// A new file `file` with `text` (its directories created), or, when it may not be
    /// written, `lines` left to the developer.
    fn create(&self, file: PathBuf, text: &str, changed: String, lines: String) -> Result<Step> {
        if let Some(why) = self.refusal(&file) {
            return Ok(Step::Manual(file, why, lines));
        }
        if !self.dry_run {
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
            }
            write_atomic(&file, text.as_bytes())?;
        }
        Ok(Step::Changed(file, changed))
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
    let project = find(options)?;
    let steps = steps(&project)?;
    print!("{}", report(&steps, options.dry_run));
    if let Some(line) = room::hint(&project.layout) {
        println!("{line}");
    }
    let root = &project.layout.root;
    // The NDK that matters is the one of the module that builds the library.
    let build_file = built_by(&project).map_or_else(
        || project.layout.build_file(),
        |build| build.build_file.clone(),
    );
    let app_build = std::fs::read_to_string(build_file).unwrap_or_default();
    let properties = std::fs::read_to_string(project.layout.properties_file()).unwrap_or_default();
    let needs = toolchain::needs(&toolchain::find(root, &app_build, &properties));
    if !needs.is_empty() {
        println!("\nBefore the app's first Android build, this machine still needs:");
        for need in needs {
            println!("  - {need}");
        }
    }
    if !matches!(project.target, Target::Unclear { .. }) {
        let cwd = std::env::current_dir().map_err(Error::io("."))?;
        println!(
            "\nNext: cd {} && cargo test && cargo cetp check",
            relative(&resolved(&cwd), &resolved(&project.crate_dir)).display()
        );
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
#[cfg(test)]
pub(crate) fn init(options: &InitOptions) -> Result<Vec<Step>> {
    steps(&find(options)?)
}

/// The steps for `project` (in a dry run: planned, nothing written).
fn steps(project: &Project) -> Result<Vec<Step>> {
    let root = &project.layout.root;
    let shown = |path: &Path| relative(root, path);
    let mut steps = Vec::new();
    match &project.target {
        Target::New { workspace, .. } => {
            steps.push(write_crate(project, &shown(&project.crate_dir))?);
            if let Some(workspace) = workspace {
                steps.push(member(project, workspace)?);
            }
        }
        Target::Existing(existing) => steps.extend(adopt::steps(project, existing)?),
        Target::Unclear { dir, why } => {
            // Which crate decides the library's name: nothing else is written without it.
            steps.push(Step::Manual(
                dir.clone(),
                why.clone(),
                "cargo cetp init --crate-dir <the app's cdylib crate>".to_owned(),
            ));
            return Ok(shown_steps(steps, &shown));
        }
    }
    steps.push(settings(project)?);
    // A released kit comes from Maven Central like any library; a checkout's is installed into
    // the local Maven repository by `cargo cetp test`.
    if !matches!(project.sdk, SdkSource::Registry { .. }) {
        steps.push(kit_repository(project)?);
    }
    steps.push(properties(project)?);
    steps.extend(module_build(project)?);
    steps.extend(plugin(project)?);
    steps.push(kit_test::step(project)?);
    Ok(shown_steps(steps, &shown))
}

/// `steps` with their paths as `shown` shows them.
fn shown_steps(steps: Vec<Step>, shown: &dyn Fn(&Path) -> PathBuf) -> Vec<Step> {
    steps
        .into_iter()
        .map(|step| match step {
            Step::Changed(p, w) => Step::Changed(shown(&p), w),
            Step::Unchanged(p, w) => Step::Unchanged(shown(&p), w),
            Step::Manual(p, why, w) => Step::Manual(shown(&p), why, w),
        })
        .collect()
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
    let parsed = gradle::parse(&code_lines(&build).join("\n"));
    let namespace = parsed.namespace.clone();
    let package = parsed.application_id.ok_or_else(|| {
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
            Some(dir)
        }
        None => None,
    };
    let builds = rust_build::find(&root);
    let target = target::find(&root, crate_dir.as_deref(), &builds);
    let crate_dir = target.dir().to_path_buf();
    let label = android::app_label(&layout.module);
    let names = match &target {
        Target::Existing(existing) => Names {
            crate_name: existing.package.clone(),
            lib_name: existing.lib_name.clone(),
            title: label.unwrap_or_else(|| existing.package.clone()),
            package,
        },
        Target::New { .. } | Target::Unclear { .. } => {
            let name = match &options.name {
                Some(name) => name.clone(),
                None => crate_name_of(label.as_deref(), &root),
            };
            let mut names = Names::of(&NewOptions {
                dir: crate_dir.clone(),
                name: Some(name),
                package: Some(package),
                sdk: options.sdk.clone(),
            })?;
            if let (Some(label), None) = (label, &options.name) {
                names.title = label;
            }
            names
        }
    };
    Ok(Project {
        layout,
        crate_dir,
        namespace: namespace.unwrap_or_else(|| names.package.clone()),
        target,
        names,
        sdk: options.sdk.clone(),
        writer: Writer {
            root,
            named,
            dry_run: options.dry_run,
        },
    })
}

/// A crate name from the app's label, else the project directory's name: `My Reader` →
/// `my-reader`; never the name of a platform library (`android` → `android-tools`, not
/// `libandroid.so`).
fn crate_name_of(label: Option<&str>, root: &Path) -> String {
    let dir = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let slug = |text: &str| {
        let name: String = text
            .to_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let mut name = name
            .split('-')
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("-");
        if name
            .chars()
            .next()
            .is_some_and(|c| !c.is_ascii_alphabetic())
        {
            name = format!("app-{name}");
        }
        name
    };
    let name = label
        .map(slug)
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| slug(&dir));
    let name = if name.is_empty() {
        "app".to_owned()
    } else {
        name
    };
    if new::is_platform_library(&name.replace('-', "_")) {
        format!("{name}-tools")
    } else {
        name
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
                format!("{}{metadata}", without_profiles(&project.target, text))
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

/// A new crate's `Cargo.toml` without its `[profile.*]` tables when it joins a workspace: Cargo
/// reads profiles only at the workspace's root (and warns about a member's).
fn without_profiles(target: &Target, text: String) -> String {
    if !matches!(
        target,
        Target::New {
            workspace: Some(_),
            ..
        }
    ) {
        return text;
    }
    match text.parse::<toml_edit::DocumentMut>() {
        Ok(mut doc) => {
            doc.remove("profile");
            doc.to_string()
        }
        Err(_) => text,
    }
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
    let lines = format!(
        "\n{}",
        new::template_module_lines(
            &project.sdk,
            &resolved(&project.layout.root),
            &resolved(&project.crate_dir).join("Cargo.toml"),
            file.extension().is_some_and(|e| e == "kts"),
        )?
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
        format!("include(\":cetp\") {}", project.sdk.template_origin()),
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
    if let Some(build) = built_by(project) {
        // The project builds the crate already: a second Cargo build beside its own would
        // build the same library twice (and race it for the same jniLibs).
        return Ok(match existing {
            Some(value) => Step::Manual(
                file,
                format!(
                    "it sets cetp.rustCrate={value}, and {} builds the crate already: the \
                     template would build it a second time",
                    build.describe()
                ),
                format!("(remove the line cetp.rustCrate={value})"),
            ),
            None => Step::Unchanged(
                file,
                format!(
                    "no cetp.rustCrate: {} builds lib{}.so",
                    build.describe(),
                    project.names.lib_name
                ),
            ),
        });
    }
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

/// The `testImplementation` lines the kit's tests need that the build file's code lacks: the
/// kit, Robolectric and JUnit 4 (a catalog alias whose name holds `robolectric` or `junit`
/// counts).
fn test_dependencies(code: &[String], kit_version: &str) -> Vec<String> {
    use crate::android_build::robolectric::{KIT_ARTIFACT, KIT_GROUP, ROBOLECTRIC_VERSION};
    let tests: Vec<&String> = code
        .iter()
        .filter(|l| l.trim_start().starts_with("testImplementation"))
        .collect();
    let has = |word: &str| tests.iter().any(|l| l.to_lowercase().contains(word));
    let mut out = Vec::new();
    if !has(&format!("{KIT_GROUP}:{KIT_ARTIFACT}")) {
        out.push(format!(
            "testImplementation(\"{KIT_GROUP}:{KIT_ARTIFACT}:{kit_version}\") // the CETP test kit"
        ));
    }
    if !has("robolectric") {
        out.push(format!(
            "testImplementation(\"org.robolectric:robolectric:{ROBOLECTRIC_VERSION}\")"
        ));
    }
    if !has("junit") {
        out.push("testImplementation(\"junit:junit:4.13.2\")".to_owned());
    }
    out
}

/// The local Maven repository, for the kit's group only, among the repositories
/// `settings.gradle(.kts)` declares (`dependencyResolutionManagement { repositories { … } }`):
/// where the app's Gradle build resolves the kit `cargo cetp test` installs.
fn kit_repository(project: &Project) -> Result<Step> {
    use crate::android_build::robolectric::KIT_GROUP;
    let file = project.layout.settings_file();
    let line = format!(
        "mavenLocal {{ content {{ includeGroup(\"{KIT_GROUP}\") }} }} // the CETP test kit, installed by cargo cetp test"
    );
    let lines = format!(
        "dependencyResolutionManagement {{\n    repositories {{\n        {line}\n    }}\n}}"
    );
    let text = match read(&file)? {
        Text::Utf8(text) => text,
        Text::Missing | Text::NotUtf8 => return Ok(Step::Manual(file, NOT_UTF8.to_owned(), lines)),
    };
    let code = code_lines(&text);
    if code.iter().any(|l| l.contains("mavenLocal")) {
        return Ok(Step::Unchanged(
            file,
            "declares the local Maven repository".to_owned(),
        ));
    }
    let kotlin = file.extension().is_some_and(|e| e == "kts");
    // The `repositories {` of `dependencyResolutionManagement {`, each on one line.
    let management = code.iter().position(|l| {
        l.trim_start().starts_with("dependencyResolutionManagement") && l.contains('{')
    });
    let repositories = management.and_then(|start| {
        let mut depth = 0usize;
        for (i, l) in code.iter().enumerate().skip(start) {
            if i > start && depth == 1 && l.trim() == "repositories {" {
                return Some(i);
            }
            depth += l.matches('{').count();
            depth = depth.saturating_sub(l.matches('}').count());
            if i > start && depth == 0 {
                break;
            }
        }
        None
    });
    match repositories {
        Some(at) if kotlin => {
            let indent = format!("{}    ", leading(text.lines().nth(at).unwrap_or_default()));
            let edited = insert_lines(&text, at, std::slice::from_ref(&line), &indent);
            project.writer.put(
                file,
                &edited,
                "the local Maven repository for the CETP test kit (dev.cetp only)".to_owned(),
                lines,
            )
        }
        _ => Ok(Step::Manual(file, SHAPE.to_owned(), lines)),
    }
}

/// The Gradle Rust build that builds the target crate, if the project has one.
fn built_by(project: &Project) -> Option<&RustBuild> {
    match &project.target {
        Target::Existing(existing) => existing.built_by.as_ref(),
        Target::New { .. } | Target::Unclear { .. } => None,
    }
}

/// A new crate joins the workspace around it: its directory in `[workspace] members`, unless
/// a `members` pattern covers it already.
fn member(project: &Project, workspace: &Path) -> Result<Step> {
    let file = workspace.join("Cargo.toml");
    let path = relative(&resolved(workspace), &resolved(&project.crate_dir));
    let path = path.to_string_lossy().replace('\\', "/");
    let lines = format!("[workspace]\nmembers = [\"{path}\"]   # beside the members it has");
    let text = match read(&file)? {
        Text::Utf8(text) => text,
        Text::Missing | Text::NotUtf8 => return Ok(Step::Manual(file, NOT_UTF8.to_owned(), lines)),
    };
    let mut doc: toml_edit::DocumentMut = match text.parse() {
        Ok(doc) => doc,
        Err(_) => {
            return Ok(Step::Manual(
                file,
                "its TOML does not parse".to_owned(),
                lines,
            ));
        }
    };
    let Some(members) = doc
        .get_mut("workspace")
        .and_then(toml_edit::Item::as_table_like_mut)
        .map(|w| {
            w.entry("members")
                .or_insert(toml_edit::Item::Value(toml_edit::Array::new().into()))
        })
        .and_then(toml_edit::Item::as_array_mut)
    else {
        return Ok(Step::Manual(file, SHAPE.to_owned(), lines));
    };
    let covered = members
        .iter()
        .filter_map(toml_edit::Value::as_str)
        .any(|m| {
            m.trim_end_matches('/') == path
                || m.strip_suffix("/*")
                    .is_some_and(|dir| Path::new(&path).parent() == Some(Path::new(dir)))
        });
    if covered {
        return Ok(Step::Unchanged(
            file,
            format!("[workspace] members include {path}"),
        ));
    }
    members.push(path.as_str());
    let edited = doc.to_string();
    let edited = if text.contains("\r\n") {
        edited.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        edited
    };
    project.writer.put(
        file,
        &edited,
        format!("[workspace] members + \"{path}\""),
        lines,
    )
}

/// The library placeholder, the authority from each variant's application id and the
/// dependency in the app module's build file.
fn module_build(project: &Project) -> Result<Vec<Step>> {
    let file = project.layout.build_file();
    let lib_name = &project.names.lib_name;
    let placeholders = [
        "// The Rust library the CETP provider loads.".to_owned(),
        format!("manifestPlaceholders[\"cetpLibrary\"] = \"{lib_name}\""),
    ];
    let placeholder_block = format!(
        "android {{\n    defaultConfig {{\n        {}\n    }}\n}}",
        placeholders.join("\n        ")
    );
    let authority_block = gradle::AUTHORITY_FROM_APPLICATION_ID.to_owned();
    let dependency = "implementation(project(\":cetp\")) // the CETP provider module";
    let dependency_block = format!("dependencies {{\n    {dependency}\n}}");
    let mut text = match read(&file)? {
        Text::Utf8(text) => text,
        Text::Missing => return Err(Error::io(&file)(std::io::ErrorKind::NotFound.into())),
        Text::NotUtf8 => {
            return Ok(vec![Step::Manual(
                file,
                NOT_UTF8.to_owned(),
                format!("{placeholder_block}\n{authority_block}\n{dependency_block}"),
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
    if has("cetpLibrary") {
        steps.push(Step::Unchanged(file.clone(), "sets cetpLibrary".to_owned()));
    } else {
        let other_assignment = code.iter().any(|l| {
            let l = l.trim_start();
            l.starts_with("manifestPlaceholders")
                && !l.starts_with("manifestPlaceholders[")
                && l.contains('=')
        });
        match single_line(&code, "defaultConfig {", false) {
            Some(at) if kotlin && !other_assignment => {
                text = insert_block(&text, at, &placeholders);
                code = code_lines(&text);
                changed.push("the placeholder cetpLibrary under defaultConfig");
                blocks.push(placeholder_block);
            }
            _ => steps.push(Step::Manual(
                file.clone(),
                SHAPE.to_owned(),
                placeholder_block,
            )),
        }
    }
    if read.authority_tail.is_some() {
        steps.push(Step::Unchanged(
            file.clone(),
            "takes cetpAuthority from each variant's application id".to_owned(),
        ));
    } else if let Some(literal) = read.placeholders.get("cetpAuthority") {
        if read.application_id_suffixes.is_empty() {
            steps.push(Step::Unchanged(
                file.clone(),
                format!("sets cetpAuthority = \"{literal}\""),
            ));
        } else {
            steps.push(Step::Manual(
                file.clone(),
                format!(
                    "it sets one cetpAuthority (\"{literal}\") for every variant, and a variant \
                     with an applicationIdSuffix would declare the same authority; remove that \
                     line"
                ),
                authority_block,
            ));
        }
    } else if kotlin {
        text = append(&text, &format!("\n{authority_block}\n"));
        code = code_lines(&text);
        changed.push("cetpAuthority from each variant's application id (androidComponents)");
        blocks.push(authority_block);
    } else {
        steps.push(Step::Manual(
            file.clone(),
            SHAPE.to_owned(),
            authority_block,
        ));
    }
    // The template's dependency and what the kit test `init` writes needs to compile in the
    // app's own Gradle build, inserted together under `dependencies {`.
    let mut inserted = Vec::new();
    let dependencies_at = single_line(&code, "dependencies {", true).filter(|_| kotlin);
    let uses_template = code
        .iter()
        .any(|l| l.contains("project(\":cetp\")") && l.contains("implementation"));
    if uses_template {
        steps.push(Step::Unchanged(
            file.clone(),
            "depends on project(\":cetp\")".to_owned(),
        ));
    } else if dependencies_at.is_some() {
        inserted.push(dependency.to_owned());
        changed.push("implementation(project(\":cetp\"))");
        blocks.push(dependency_block);
    } else {
        steps.push(Step::Manual(
            file.clone(),
            SHAPE.to_owned(),
            dependency_block,
        ));
    }
    let test_lines = test_dependencies(&code, &project.sdk.kit_version()?);
    if test_lines.is_empty() {
        steps.push(Step::Unchanged(
            file.clone(),
            "has the test kit among its test dependencies".to_owned(),
        ));
    } else {
        let test_block = format!("dependencies {{\n    {}\n}}", test_lines.join("\n    "));
        if dependencies_at.is_some() {
            inserted.extend(test_lines);
            changed.push("the test kit, Robolectric and JUnit as test dependencies");
            blocks.push(test_block);
        } else {
            steps.push(Step::Manual(file.clone(), SHAPE.to_owned(), test_block));
        }
    }
    if let (Some(at), false) = (dependencies_at, inserted.is_empty()) {
        text = insert_block(&text, at, &inserted);
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
            "dependencyResolutionManagement {\n    repositories {\n        google()\n        mavenCentral()\n    }\n}\nrootProject.name = \"Shelf\"\ninclude(\":app\")\ninclude(\":core\")",
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

    /// By default `init` wires the released SDK: the crate depends on a version, the settings
    /// find the template in the crate `cargo metadata` names, the kit comes by its coordinates
    /// (no local Maven repository), and nothing names a directory outside the project.
    #[test]
    fn by_default_the_released_sdk_is_wired_by_version() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        project(d);
        let mut released = options(d);
        released.sdk = SdkSource::Registry {
            version: "0.7.2".into(),
        };
        init(&released).unwrap();
        let cargo = read(d, "rust/Cargo.toml");
        assert!(
            cargo.contains(r#"cetp-provider = { version = "0.7.2", features = ["jni"] }"#),
            "{cargo}"
        );
        let settings = read(d, "settings.gradle.kts");
        assert!(
            settings.contains(r#""--manifest-path", file("rust/Cargo.toml").path,"#),
            "{settings}"
        );
        assert!(
            settings.contains("project(\":cetp\").projectDir = cetpTemplateModule"),
            "{settings}"
        );
        assert!(!settings.contains("mavenLocal"), "{settings}");
        assert!(
            read(d, "app/build.gradle.kts")
                .contains("testImplementation(\"dev.cetp:cetp-testkit:0.7.2\")"),
        );
        let sdk = crate::sdk_dir().canonicalize().unwrap();
        for file in [
            "settings.gradle.kts",
            "rust/Cargo.toml",
            "app/build.gradle.kts",
        ] {
            let text = read(d, file);
            assert!(!text.contains(&*sdk.to_string_lossy()), "{file}: {text}");
            assert!(!text.contains("/android-template"), "{file}: {text}");
        }
        // `check` reads the settings' template module as taken from the crate.
        let module = crate::android_build::android::template_module(&settings);
        assert_eq!(
            module,
            Some(crate::android_build::android::TemplateModule::FromCargo)
        );
        // A second run adds nothing.
        let before = snapshot(d);
        init(&released).unwrap();
        assert_eq!(snapshot(d), before);
    }

    /// A Groovy settings file gets the same lines in Groovy.
    #[test]
    fn groovy_settings_get_groovy_lines() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        write(
            d,
            "settings.gradle",
            "rootProject.name = 'Shelf'\ninclude ':app'\n",
        );
        write(
            d,
            "app/build.gradle",
            "plugins {\n    id 'com.android.application'\n}\n\nandroid {\n    namespace 'com.example.shelf'\n}\n",
        );
        let mut released = options(d);
        released.sdk = SdkSource::Registry {
            version: "0.7.2".into(),
        };
        init(&released).unwrap();
        let settings = read(d, "settings.gradle");
        assert!(
            settings.starts_with("rootProject.name = 'Shelf'\ninclude ':app'\n"),
            "{settings}"
        );
        assert!(
            settings.contains("def cetpTemplateModule = {"),
            "{settings}"
        );
        assert!(
            settings.contains("'--manifest-path', file(\"rust/Cargo.toml\").path"),
            "{settings}"
        );
        assert!(settings.ends_with("project(':cetp').projectDir = cetpTemplateModule\n"));
        assert!(
            !settings.contains("val "),
            "no Kotlin in a Groovy file: {settings}"
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
            app.contains("    defaultConfig {\n        // The Rust library the CETP provider loads.\n        manifestPlaceholders[\"cetpLibrary\"] = \"shelf\"\n        applicationId"),
            "{app}"
        );
        assert!(
            app.ends_with(&format!(
                "}}\n\n{}\n",
                gradle::AUTHORITY_FROM_APPLICATION_ID
            )),
            "{app}"
        );
        assert_eq!(
            gradle::parse(&app).authority_tail.as_deref(),
            Some(".tools")
        );
        assert!(app.contains(
            "dependencies {\n    implementation(project(\":cetp\")) // the CETP provider module\n    testImplementation(\"dev.cetp:cetp-testkit:0.1.0\") // the CETP test kit\n    testImplementation(\"org.robolectric:robolectric:4.16.1\")\n    testImplementation(\"junit:junit:4.13.2\")\n    implementation(libs.androidx.core.ktx)"
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
                "dependencyResolutionManagement {\n    repositories {\n        mavenLocal { content { includeGroup(\"dev.cetp\") } } // the CETP test kit, installed by cargo cetp test\n        google()\n        mavenCentral()\n    }\n}\nrootProject.name = \"Shelf\"\ninclude(\":app\")\ninclude(\":core\")\n\n"
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
            format!(
                "{}\n{}\n",
                app.replace(
                    "dependencies {\n",
                    "dependencies {\n    implementation(project(\":cetp\")) // the CETP provider module\n    testImplementation(\"dev.cetp:cetp-testkit:0.1.0\") // the CETP test kit\n    testImplementation(\"org.robolectric:robolectric:4.16.1\")\n    testImplementation(\"junit:junit:4.13.2\")\n"
                ),
                gradle::AUTHORITY_FROM_APPLICATION_ID
            ),
            "only the dependency and the authority, at the top level, are added"
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
            format!(
                "{}\n{}\n",
                app.replace(
                    "\ndependencies {\n",
                    "\ndependencies {\n    implementation(project(\":cetp\")) // the CETP provider module\n    testImplementation(\"dev.cetp:cetp-testkit:0.1.0\") // the CETP test kit\n    testImplementation(\"org.robolectric:robolectric:4.16.1\")\n    testImplementation(\"junit:junit:4.13.2\")\n"
                ),
                gradle::AUTHORITY_FROM_APPLICATION_ID
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
            "dependencyResolutionManagement {\r\n    repositories {\r\n        google()\r\n    }\r\n}\r\nrootProject.name = \"Shelf\"\r\ninclude(\":app\")\r\ninclude(\":core\")",
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
        assert!(settings.starts_with("dependencyResolutionManagement {\r\n    repositories {\r\n        mavenLocal { content { includeGroup(\"dev.cetp\") } } // the CETP test kit, installed by cargo cetp test\r\n        google()\r\n    }\r\n}\r\nrootProject.name = \"Shelf\"\r\ninclude(\":app\")\r\ninclude(\":core\")\r\n\r\n// The CETP"), "{settings:?}");
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
        assert_eq!(dry.len(), 8, "{dry:#?}");
        assert!(
            dry.iter().all(|s| matches!(s, Step::Changed(..))),
            "{dry:#?}"
        );
        assert!(report(&dry, true).ends_with(
            "cargo cetp init --dry-run: 8 file(s) a run would change, 0 left to you; nothing written\n"
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

    /// The shelf project whose Rust is a workspace under `rust/`: the cdylib in the member
    /// `ffi` (package `shelf-ffi`, library `shelf_core`), built by the cargo-ndk plugin in
    /// `:core`; a second member that is a plain library.
    fn rust_workspace(d: &Path) {
        project(d);
        write(
            d,
            "core/build.gradle.kts",
            "plugins {\n    alias(libs.plugins.android.library)\n    id(\"com.github.willir.rust.cargo-ndk-android\")\n}\n\ncargoNdk {\n    module = \"../rust\"\n    librariesNames = arrayListOf(\"libshelf_core.so\")\n}\n",
        );
        write(
            d,
            "rust/Cargo.toml",
            "[workspace]\nresolver = \"2\"\nmembers = [\"ffi\", \"model\"]\n\n[workspace.package]\nversion = \"1.4.0\"\nedition = \"2021\"\n\n[profile.release]\nlto = true\n",
        );
        write(
            d,
            "rust/ffi/Cargo.toml",
            "[package]\nname = \"shelf-ffi\"\nversion.workspace = true\nedition.workspace = true\n\n[lib]\nname = \"shelf_core\"\ncrate-type = [\"cdylib\", \"staticlib\"]\n\n[dependencies]\nshelf-model = { path = \"../model\" }\n",
        );
        write(
            d,
            "rust/ffi/src/lib.rs",
            "//! Shelf's core, for Kotlin.\n\npub use shelf_model::Book;\n",
        );
        write(
            d,
            "rust/model/Cargo.toml",
            "[package]\nname = \"shelf-model\"\nversion.workspace = true\nedition.workspace = true\n",
        );
        write(d, "rust/model/src/lib.rs", "pub struct Book;\n");
        write(
            d,
            "app/src/main/AndroidManifest.xml",
            "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\">\n    <application android:label=\"@string/app_name\" />\n</manifest>\n",
        );
        write(
            d,
            "app/src/main/res/values/strings.xml",
            "<resources>\n    <string name=\"app_name\">Shelf</string>\n</resources>\n",
        );
    }

    #[test]
    fn a_workspace_member_built_by_the_project_gets_the_provider() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        rust_workspace(d);
        let planned = init(&InitOptions {
            dry_run: true,
            ..options(d)
        })
        .unwrap();
        let steps = init(&options(d)).unwrap();
        assert_eq!(planned, steps, "the dry run plans what the run does");
        let text = report(&steps, false);
        assert!(
            !steps.iter().any(|s| matches!(s, Step::Manual(..))),
            "{text}"
        );

        let member = read(d, "rust/ffi/Cargo.toml");
        assert!(
            member.contains("crate-type = [\"cdylib\", \"staticlib\", \"rlib\"]"),
            "{member}"
        );
        assert!(member.contains("cetp-provider = { path = "), "{member}");
        assert!(
            member.ends_with("[package.metadata.cetp]\nandroid-module = \"../../app\"\n"),
            "{member}"
        );
        assert!(!read(d, "rust/model/Cargo.toml").contains("cetp"));
        assert_eq!(
            read(d, "rust/Cargo.toml"),
            "[workspace]\nresolver = \"2\"\nmembers = [\"ffi\", \"model\"]\n\n[workspace.package]\nversion = \"1.4.0\"\nedition = \"2021\"\n\n[profile.release]\nlto = true\n",
            "the workspace root is left as it is"
        );
        assert!(read(d, "rust/ffi/src/lib.rs").ends_with("\npub use shelf_model::Book;\n\n// Shelf's data as tools for on-device AI agents (CETP, Apex).\npub mod agent_tools;\n"));
        let module = read(d, "rust/ffi/src/agent_tools.rs");
        assert!(module.contains("Provider::builder(\"Shelf\")"), "{module}");
        assert!(module.contains("use cetp_provider::schemars::{self, JsonSchema};"));
        assert!(
            module.ends_with("cetp_provider::export_provider!(provider);\n"),
            "{module}"
        );
        assert!(
            read(d, "rust/ffi/tests/agent_tools.rs")
                .contains("shelf_core::agent_tools::provider(&app)")
        );
        let app = read(d, "app/build.gradle.kts");
        assert!(
            app.contains("manifestPlaceholders[\"cetpLibrary\"] = \"shelf_core\""),
            "{app}"
        );
        // No second Cargo build: the cargo-ndk plugin in :core builds the library.
        assert!(
            !d.join("gradle.properties").exists()
                || !read(d, "gradle.properties").contains("cetp.rustCrate")
        );
        assert!(
            text.contains("no cetp.rustCrate: the cargo-ndk Gradle plugin"),
            "{text}"
        );
        assert!(text.contains(":core builds libshelf_core.so"), "{text}");
        assert!(!d.join("rust/rust").exists() && !d.join("rust/src").exists());

        let before = snapshot(d);
        let again = init(&options(d)).unwrap();
        assert!(
            again.iter().all(|s| matches!(s, Step::Unchanged(..))),
            "{again:#?}"
        );
        assert_eq!(snapshot(d), before);
    }

    #[test]
    fn a_new_crate_inside_a_workspace_joins_its_members() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        rust_workspace(d);
        // No cdylib to adopt: the developer names a new member.
        write(
            d,
            "core/build.gradle.kts",
            "plugins { alias(libs.plugins.android.library) }\n",
        );
        write(
            d,
            "rust/ffi/Cargo.toml",
            "[package]\nname = \"shelf-ffi\"\nversion.workspace = true\nedition.workspace = true\n\n[lib]\nname = \"shelf_core\"\n\n[dependencies]\nshelf-model = { path = \"../model\" }\n",
        );
        let steps = init(&options(d)).unwrap();
        assert!(
            matches!(steps.as_slice(), [Step::Manual(_, why, _)] if why.contains("no member that builds a cdylib")),
            "{steps:#?}"
        );
        let steps = init(&InitOptions {
            crate_dir: Some(d.join("rust/agent")),
            ..options(d)
        })
        .unwrap();
        let text = report(&steps, false);
        assert!(
            text.contains("changed   rust/Cargo.toml: [workspace] members + \"agent\""),
            "{text}"
        );
        assert!(read(d, "rust/Cargo.toml").contains("members = [\"ffi\", \"model\", \"agent\"]"));
        let member = read(d, "rust/agent/Cargo.toml");
        assert!(!member.contains("[profile"), "{member}");
        assert!(member.contains("name = \"shelf\""), "{member}");
        assert!(read(d, "gradle.properties").contains("cetp.rustCrate=rust/agent"));
        // Cargo takes it as a member.
        let metadata = std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
            .args([
                "metadata",
                "--no-deps",
                "--format-version",
                "1",
                "--manifest-path",
            ])
            .arg(d.join("rust/agent/Cargo.toml"))
            .output()
            .unwrap();
        assert!(
            metadata.status.success(),
            "{}",
            String::from_utf8_lossy(&metadata.stderr)
        );
        let again = init(&InitOptions {
            crate_dir: Some(d.join("rust/agent")),
            ..options(d)
        })
        .unwrap();
        assert!(
            again.iter().all(|s| matches!(s, Step::Unchanged(..))),
            "{again:#?}"
        );
    }

    #[test]
    fn several_cdylibs_and_nothing_naming_one_are_left_to_the_developer() {
        let dir = tempfile::tempdir().unwrap();
        let d = &dir.path().join("shelf");
        rust_workspace(d);
        write(
            d,
            "core/build.gradle.kts",
            "plugins { alias(libs.plugins.android.library) }\n",
        );
        write(
            d,
            "rust/model/Cargo.toml",
            "[package]\nname = \"shelf-model\"\nversion.workspace = true\nedition.workspace = true\n\n[lib]\ncrate-type = [\"cdylib\", \"rlib\"]\n",
        );
        let before = snapshot(d);
        let steps = init(&options(d)).unwrap();
        assert!(
            matches!(steps.as_slice(), [Step::Manual(_, why, _)] if why.contains("several cdylib crates (shelf-ffi, shelf-model)")),
            "{steps:#?}"
        );
        assert_eq!(snapshot(d), before, "nothing is written");
        // A UniFFI configuration names the library Kotlin loads.
        write(
            d,
            "rust/ffi/uniffi.toml",
            "[bindings.kotlin]\npackage_name = \"com.example.shelf.core\"\ncdylib_name = \"shelf_core\"\n",
        );
        let steps = init(&options(d)).unwrap();
        assert!(
            read(d, "rust/ffi/Cargo.toml").contains("cetp-provider"),
            "{steps:#?}"
        );
    }

    #[test]
    fn crate_names_come_from_the_app_label_or_the_project_directory() {
        assert_eq!(crate_name_of(None, Path::new("/x/My Reader")), "my-reader");
        assert_eq!(crate_name_of(None, Path::new("/x/2048")), "app-2048");
        assert_eq!(
            crate_name_of(Some("Journal"), Path::new("/x/journal-kotlin")),
            "journal"
        );
        assert_eq!(
            crate_name_of(Some("Daily  Notes!"), Path::new("/x/y")),
            "daily-notes"
        );
        assert_eq!(crate_name_of(Some("日記"), Path::new("/x/diary")), "diary");
        // Never a platform library's name.
        assert_eq!(
            crate_name_of(None, Path::new("/x/android")),
            "android-tools"
        );
        assert_eq!(crate_name_of(Some("Log"), Path::new("/x/y")), "log-tools");
    }
}
