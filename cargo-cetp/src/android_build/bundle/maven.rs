//! Maven as `cargo cetp` runs it: the `mvn` command line every call starts from ([`mvn`]), the
//! local repository Maven itself will use ([`local_repository`]), and Maven's output made plain
//! text ([`strip_ansi`]).
//!
//! `cargo cetp` reads files Maven writes into the local repository (the test kit's jar and the
//! digest beside it, the `android-all` jar). It must look where Maven puts them, so it finds
//! the repository as Maven does and, unless `CETP_M2_REPO` says otherwise, never tells Maven
//! where it is.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Error, Result};

/// The environment variable naming the local Maven repository explicitly: it wins over Maven's
/// own configuration, and `cargo cetp` passes it to every `mvn` as `-Dmaven.repo.local`.
pub(crate) const REPO_OVERRIDE: &str = "CETP_M2_REPO";

/// The property that names the local repository (`-Dmaven.repo.local=…`).
const REPO_PROPERTY: &str = "maven.repo.local";

/// `mvn` in batch mode, without colours or download progress, with `-Dmaven.repo.local` only
/// when `CETP_M2_REPO` is set: otherwise Maven's own configuration decides, as
/// [`local_repository`] reads it.
pub(crate) fn mvn() -> Command {
    let mut mvn = Command::new("mvn");
    mvn.args(PLAIN_OUTPUT).arg("--no-transfer-progress");
    if let Some(repo) = std::env::var_os(REPO_OVERRIDE).filter(|r| !r.is_empty()) {
        let mut arg = OsString::from(format!("-D{REPO_PROPERTY}="));
        arg.push(repo);
        mvn.arg(arg);
    }
    mvn
}

/// The options every `mvn` run by `cargo cetp` and `cargo xtask` starts with: batch mode (no
/// prompts, no progress animation) and no ANSI colours, whatever the terminal.
pub const PLAIN_OUTPUT: [&str; 2] = ["-B", "-Dstyle.color=never"];

/// Where a local repository setting came from, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepoSource {
    /// `CETP_M2_REPO`.
    Override,
    /// `-Dmaven.repo.local` in `MAVEN_ARGS`.
    MavenArgs,
    /// `-Dmaven.repo.local` in the project's `.mvn/maven.config`.
    MavenConfig,
    /// `-Dmaven.repo.local` in `MAVEN_OPTS`.
    MavenOpts,
    /// `<localRepository>` of the user settings (`~/.m2/settings.xml`, or `-s`).
    UserSettings,
    /// `<localRepository>` of the global settings (`$MAVEN_HOME/conf/settings.xml`, or `-gs`).
    GlobalSettings,
    /// Maven's default, `~/.m2/repository`.
    Default,
}

/// The local Maven repository Maven will use, and what said so.
///
/// The first of, as Maven ranks them:
/// 1. `CETP_M2_REPO` (the explicit override, which `cargo cetp` then passes to Maven);
/// 2. `-Dmaven.repo.local=…` in `MAVEN_ARGS` (command-line arguments, Maven 3.9+);
/// 3. the same in `.mvn/maven.config` of the project (the nearest directory holding `.mvn/`,
///    from `project_dir` up), whose arguments rank below the command line's;
/// 4. the same in `MAVEN_OPTS` (a JVM system property, below every user property);
/// 5. `<localRepository>` of the user settings: `-s`/`--settings` in those arguments, else
///    `~/.m2/settings.xml`;
/// 6. `<localRepository>` of the global settings: `-gs`/`--global-settings`, else
///    `$MAVEN_HOME/conf/settings.xml` (`MAVEN_HOME`, else the installation `mvn` on `PATH`
///    links to);
/// 7. `~/.m2/repository`.
///
/// `~` is `-Duser.home` of `MAVEN_OPTS` when given, else `HOME`. Settings values get Maven's
/// interpolation of `${user.home}`, `${env.NAME}` and properties set with `-D`.
///
/// `var` reads an environment variable (the process environment in use, a map in tests).
///
/// # Errors
/// When neither `HOME` nor `-Duser.home` says where the home directory is and nothing else
/// names the repository.
pub fn local_repository(
    var: &dyn Fn(&str) -> Option<OsString>,
    project_dir: Option<&Path>,
) -> Result<(PathBuf, RepoSource)> {
    let text = |name: &str| var(name).map(|v| v.to_string_lossy().into_owned());
    if let Some(repo) = var(REPO_OVERRIDE).filter(|r| !r.is_empty()) {
        return Ok((PathBuf::from(repo), RepoSource::Override));
    }
    let maven_args = cli_args(&text("MAVEN_ARGS").unwrap_or_default());
    let config = project_dir
        .and_then(maven_config)
        .map(|t| config_args(&t))
        .unwrap_or_default();
    let opts: Vec<String> = text("MAVEN_OPTS")
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let user_props = [&config, &maven_args]
        .iter()
        .flat_map(|args| properties(args))
        .collect::<Vec<_>>();
    let system_props = opts
        .iter()
        .filter_map(|a| a.strip_prefix("-D"))
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect::<Vec<_>>();
    let last = |props: &[(String, String)], key: &str| {
        props
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    for (args, source) in [
        (&maven_args, RepoSource::MavenArgs),
        (&config, RepoSource::MavenConfig),
    ] {
        if let Some(repo) = last(&properties(args), REPO_PROPERTY).filter(|r| !r.is_empty()) {
            return Ok((PathBuf::from(repo), source));
        }
    }
    if let Some(repo) = last(&system_props, REPO_PROPERTY).filter(|r| !r.is_empty()) {
        return Ok((PathBuf::from(repo), RepoSource::MavenOpts));
    }
    let home = last(&user_props, "user.home")
        .or_else(|| last(&system_props, "user.home"))
        .or_else(|| text("HOME"))
        .filter(|h| !h.is_empty());
    let lookup = |name: &str| -> Option<String> {
        if let Some(env) = name.strip_prefix("env.") {
            return text(env);
        }
        if name == "user.home" {
            return home.clone();
        }
        last(&user_props, name).or_else(|| last(&system_props, name))
    };
    let option = |short: &str, long: &str| {
        option_value(&maven_args, short, long).or_else(|| option_value(&config, short, long))
    };
    let user_settings = option("-s", "--settings")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| Path::new(h).join(".m2/settings.xml")));
    let global_settings = option("-gs", "--global-settings")
        .map(PathBuf::from)
        .or_else(|| maven_home(var).map(|h| h.join("conf/settings.xml")));
    for (settings, source) in [
        (user_settings, RepoSource::UserSettings),
        (global_settings, RepoSource::GlobalSettings),
    ] {
        let Some(xml) = settings.and_then(|s| std::fs::read_to_string(s).ok()) else {
            continue;
        };
        if let Some(repo) = settings_local_repository(&xml) {
            return Ok((PathBuf::from(interpolate(&repo, &lookup)), source));
        }
    }
    let home = home.ok_or_else(|| {
        Error::Bundle(
            "HOME is not set, so the local Maven repository is unknown; set CETP_M2_REPO".into(),
        )
    })?;
    Ok((Path::new(&home).join(".m2/repository"), RepoSource::Default))
}

/// The contents of `.mvn/maven.config` of the nearest directory from `dir` up that has `.mvn/`
/// (where Maven takes the project's base directory from), if that file exists.
fn maven_config(dir: &Path) -> Option<String> {
    let base = dir.ancestors().find(|d| d.join(".mvn").is_dir())?;
    std::fs::read_to_string(base.join(".mvn/maven.config")).ok()
}

/// `MAVEN_ARGS` as the `mvn` script passes it: split at white space.
fn cli_args(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

/// `.mvn/maven.config` as arguments: Maven 3.9 reads one argument a line, older releases split
/// at white space; a `-D` line is one argument either way (a value may hold spaces).
fn config_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("-D") && line.contains('=') {
            args.push(line.to_owned());
        } else {
            args.extend(cli_args(line));
        }
    }
    args
}

/// The `-Dname=value` (or `-D name=value`) properties among `args`, in order.
fn properties(args: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let property = match arg.as_str() {
            "-D" | "--define" => iter.next().map(String::as_str),
            other => other
                .strip_prefix("--define=")
                .or_else(|| other.strip_prefix("-D")),
        };
        if let Some((key, value)) = property.and_then(|p| p.split_once('=')) {
            out.push((key.to_owned(), value.to_owned()));
        }
    }
    out
}

/// The value of the last `short value`, `long value` or `long=value` option among `args`.
fn option_value(args: &[String], short: &str, long: &str) -> Option<String> {
    let mut found = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == short || arg == long {
            found = iter.next().cloned().or(found);
        } else if let Some(value) = arg.strip_prefix(&format!("{long}=")) {
            found = Some(value.to_owned());
        }
    }
    found
}

/// Maven's installation directory: `MAVEN_HOME`, else the parent of the `bin/` that `mvn` on
/// `PATH` resolves to (through its links, as the `mvn` script finds its own home).
fn maven_home(var: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    if let Some(home) = var("MAVEN_HOME").filter(|h| !h.is_empty()) {
        return Some(PathBuf::from(home));
    }
    let mvn = std::env::split_paths(&var("PATH")?)
        .map(|dir| dir.join("mvn"))
        .find(|candidate| candidate.is_file())?;
    let real = std::fs::canonicalize(mvn).ok()?;
    Some(real.parent()?.parent()?.to_path_buf())
}

/// The `<localRepository>` of a `settings.xml`, outside comments, unless empty.
fn settings_local_repository(xml: &str) -> Option<String> {
    let mut text = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(start) = rest.find("<!--") {
        text.push_str(&rest[..start]);
        rest = rest[start..]
            .find("-->")
            .map_or("", |end| &rest[start + end + 3..]);
    }
    text.push_str(rest);
    let open = "<localRepository>";
    let start = text.find(open)? + open.len();
    let end = text[start..].find("</localRepository>")? + start;
    let value = text[start..end]
        .trim()
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&");
    (!value.is_empty()).then_some(value)
}

/// `${name}` replaced by `lookup(name)`; unknown names stay as written, as Maven leaves them.
fn interpolate(value: &str, lookup: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        let name = &rest[start + 2..start + len];
        match lookup(name) {
            Some(v) => out.push_str(&v),
            None => out.push_str(&rest[start..=start + len]),
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

/// `text` without ANSI escape sequences (colours, cursor moves): what Maven prints when it
/// colours its output anyway, made plain for a log excerpt or a message.
///
/// ```
/// let plain = cargo_cetp::android_build::bundle::strip_ansi("\u{1b}[1;31m[ERROR]\u{1b}[m x");
/// assert_eq!(plain, "[ERROR] x");
/// ```
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            // CSI: ESC [ parameters… intermediates… final byte (@ to ~).
            Some('[') => {
                chars.next();
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // OSC: ESC ] … BEL or ESC \.
            Some(']') => {
                chars.next();
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            // Any other escape: intermediate bytes (space to /), then one final byte.
            Some(_) => {
                while chars.next_if(|c| (' '..='/').contains(c)).is_some() {}
                chars.next();
            }
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::fs;

    /// A home directory and an environment of its own, never the process's.
    struct Env {
        home: tempfile::TempDir,
        vars: HashMap<String, String>,
    }

    impl Env {
        fn new() -> Self {
            let home = tempfile::tempdir().unwrap();
            let mut vars = HashMap::new();
            vars.insert("HOME".into(), home.path().display().to_string());
            // No Maven installation to find: the global settings come only from MAVEN_HOME.
            vars.insert("PATH".into(), String::new());
            Self { home, vars }
        }

        fn set(&mut self, name: &str, value: impl Into<String>) -> &mut Self {
            self.vars.insert(name.into(), value.into());
            self
        }

        fn write(&self, relative: &str, text: &str) -> PathBuf {
            let path = self.home.path().join(relative);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
            path
        }

        fn home(&self) -> &Path {
            self.home.path()
        }

        fn resolve(&self, project: Option<&Path>) -> (PathBuf, RepoSource) {
            local_repository(&|k| self.vars.get(k).map(OsString::from), project).unwrap()
        }
    }

    fn settings(repo: &str) -> String {
        format!(
            "<?xml version=\"1.0\"?>\n<settings>\n  <!-- <localRepository>/commented</localRepository> -->\n  \
             <localRepository>\n    {repo}\n  </localRepository>\n</settings>\n"
        )
    }

    #[test]
    fn without_configuration_it_is_under_home() {
        let env = Env::new();
        assert_eq!(
            env.resolve(None),
            (env.home().join(".m2/repository"), RepoSource::Default)
        );
    }

    #[test]
    fn maven_opts_names_it() {
        let mut env = Env::new();
        env.set("MAVEN_OPTS", "-Xmx1g -Dmaven.repo.local=/x -Dother=1");
        assert_eq!(
            env.resolve(None),
            (PathBuf::from("/x"), RepoSource::MavenOpts)
        );
    }

    #[test]
    fn maven_args_rank_above_maven_opts_and_the_last_wins() {
        let mut env = Env::new();
        env.set("MAVEN_OPTS", "-Dmaven.repo.local=/opts");
        env.set(
            "MAVEN_ARGS",
            "-Dmaven.repo.local=/first -D maven.repo.local=/args",
        );
        assert_eq!(
            env.resolve(None),
            (PathBuf::from("/args"), RepoSource::MavenArgs)
        );
    }

    #[test]
    fn the_projects_maven_config_ranks_between_maven_args_and_maven_opts() {
        let mut env = Env::new();
        env.write(
            "app/.mvn/maven.config",
            "-B\n-Dmaven.repo.local=/with space\n",
        );
        let module = env.home().join("app/android/module");
        fs::create_dir_all(&module).unwrap();
        env.set("MAVEN_OPTS", "-Dmaven.repo.local=/opts");
        assert_eq!(
            env.resolve(Some(&module)),
            (PathBuf::from("/with space"), RepoSource::MavenConfig)
        );
        // Another project does not see it.
        assert_eq!(env.resolve(Some(env.home())).1, RepoSource::MavenOpts);
        env.set("MAVEN_ARGS", "-Dmaven.repo.local=/args");
        assert_eq!(env.resolve(Some(&module)).1, RepoSource::MavenArgs);
    }

    #[test]
    fn user_settings_name_it_with_interpolation() {
        let mut env = Env::new();
        env.set("REPOS", "/srv/repos");
        env.write(
            ".m2/settings.xml",
            &settings("${user.home}/m2-${env.REPOS}/${unknown}"),
        );
        let (repo, source) = env.resolve(None);
        assert_eq!(source, RepoSource::UserSettings);
        assert_eq!(
            repo,
            PathBuf::from(format!(
                "{}/m2-/srv/repos/${{unknown}}",
                env.home().display()
            ))
        );
        // A property of MAVEN_OPTS wins over the settings.
        env.set("MAVEN_OPTS", "-Dmaven.repo.local=/opts");
        assert_eq!(env.resolve(None).1, RepoSource::MavenOpts);
    }

    #[test]
    fn user_home_of_maven_opts_moves_the_settings_and_the_default() {
        let mut env = Env::new();
        let other = env.home().join("other");
        env.set("MAVEN_OPTS", format!("-Duser.home={}", other.display()));
        assert_eq!(env.resolve(None).0, other.join(".m2/repository"));
        env.write("other/.m2/settings.xml", &settings("${user.home}/r"));
        assert_eq!(
            env.resolve(None),
            (other.join("r"), RepoSource::UserSettings)
        );
    }

    #[test]
    fn global_settings_rank_below_user_settings() {
        let mut env = Env::new();
        env.write("maven/conf/settings.xml", &settings("/global"));
        env.set("MAVEN_HOME", env.home().join("maven").display().to_string());
        assert_eq!(
            env.resolve(None),
            (PathBuf::from("/global"), RepoSource::GlobalSettings)
        );
        // User settings without a localRepository do not hide the global one.
        env.write(
            ".m2/settings.xml",
            "<settings><offline>true</offline></settings>",
        );
        assert_eq!(env.resolve(None).1, RepoSource::GlobalSettings);
        env.write(".m2/settings.xml", &settings("/user"));
        assert_eq!(
            env.resolve(None),
            (PathBuf::from("/user"), RepoSource::UserSettings)
        );
    }

    #[test]
    fn the_global_settings_are_found_through_mvn_on_path() {
        let mut env = Env::new();
        env.write("maven/conf/settings.xml", &settings("/global"));
        let mvn = env.write("maven/bin/mvn", "#!/bin/sh\n");
        let bin = env.home().join("bin");
        fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(&mvn, bin.join("mvn")).unwrap();
        env.set("PATH", bin.display().to_string());
        assert_eq!(
            env.resolve(None),
            (PathBuf::from("/global"), RepoSource::GlobalSettings)
        );
    }

    #[test]
    fn settings_named_on_the_command_line_replace_the_defaults() {
        let mut env = Env::new();
        env.write(".m2/settings.xml", &settings("/user"));
        let custom = env.write("custom.xml", &settings("/custom"));
        let global = env.write("global.xml", &settings("/g"));
        env.set("MAVEN_ARGS", format!("-s {}", custom.display()));
        assert_eq!(env.resolve(None).0, PathBuf::from("/custom"));
        let empty = env.write("empty.xml", "<settings/>");
        env.set(
            "MAVEN_ARGS",
            format!("--settings={} -gs {}", empty.display(), global.display()),
        );
        assert_eq!(
            env.resolve(None),
            (PathBuf::from("/g"), RepoSource::GlobalSettings)
        );
    }

    #[test]
    fn cetp_m2_repo_overrides_everything() {
        let mut env = Env::new();
        env.write(".m2/settings.xml", &settings("/user"));
        env.set("MAVEN_ARGS", "-Dmaven.repo.local=/args");
        env.set("CETP_M2_REPO", "/explicit");
        assert_eq!(
            env.resolve(None),
            (PathBuf::from("/explicit"), RepoSource::Override)
        );
    }

    #[test]
    fn without_home_it_asks_for_cetp_m2_repo() {
        let err = local_repository(&|_| None, None).unwrap_err().to_string();
        assert!(err.contains("CETP_M2_REPO"), "{err}");
    }

    #[test]
    fn ansi_sequences_are_stripped() {
        assert_eq!(
            strip_ansi(
                "\u{1b}[1;31m[ERROR]\u{1b}[m Failed \u{1b}[36mx\u{1b}[0;1m\u{1b}]8;;u\u{7}y\u{1b}(B"
            ),
            "[ERROR] Failed xy"
        );
        assert_eq!(strip_ansi("plain [INFO] text"), "plain [INFO] text");
        assert_eq!(strip_ansi("cut \u{1b}"), "cut ");
    }

    #[test]
    fn every_mvn_runs_in_batch_mode_without_colours() {
        let mvn = mvn();
        let args: Vec<_> = mvn.get_args().map(|a| a.to_string_lossy()).collect();
        for arg in ["-B", "-Dstyle.color=never", "--no-transfer-progress"] {
            assert!(args.iter().any(|a| a == arg), "{args:?}");
        }
        // Nothing else starts Maven: `cargo cetp` goes through `mvn()`, `cargo xtask` through
        // its own `util::mvn()`, which adds `PLAIN_OUTPUT`.
        let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let starts = concat!("Command::new(\"", "mvn\")");
        let mut sources = Vec::new();
        for root in ["cargo-cetp/src", "xtask/src"] {
            crate::android_build::bundle::tools::collect_files(&sdk.join(root), "rs", &mut sources)
                .unwrap();
        }
        sources.sort();
        let starting: Vec<_> = sources
            .iter()
            .filter(|f| fs::read_to_string(f).unwrap().contains(starts))
            .map(|f| f.strip_prefix(sdk).unwrap().display().to_string())
            .collect();
        assert_eq!(
            starting,
            [
                "cargo-cetp/src/android_build/bundle/maven.rs",
                "xtask/src/util.rs"
            ]
        );
        let xtask = fs::read_to_string(sdk.join("xtask/src/util.rs")).unwrap();
        assert!(xtask.contains(".args(cargo_cetp::android_build::bundle::maven::PLAIN_OUTPUT)"));
    }
}
