//! The programs a host bundle is built with: the JDK's `javac` and `jar`, Debian's `aapt` and
//! `aidl`, Maven, and the `org.robolectric:android-all` jar from the local Maven repository.
//!
//! `cargo cetp` never installs a system package: a missing program is an error naming the
//! Debian package that has it and the command that installs it ([`missing_program`]).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::maven;
use crate::{Error, Result};

/// The Robolectric build of the SDK 34 framework, spelled once for Rust: every other place
/// (the test kit's parent `pom.xml`, the documentation) is checked against it.
macro_rules! android_all_build {
    () => {
        "14-robolectric-10818077"
    };
}

/// The Robolectric build of the SDK 34 framework: the real Android API surface as a plain jar
/// (`org.robolectric:android-all`), which Java is compiled against.
pub(crate) const ANDROID_ALL_VERSION: &str = android_all_build!();

/// The same build pre-instrumented for Robolectric (`org.robolectric:android-all-instrumented`),
/// which Robolectric runs.
pub(crate) const ANDROID_ALL_INSTRUMENTED: &str = concat!(android_all_build!(), "-i7");

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
pub(crate) fn run(cmd: &mut Command) -> Result<()> {
    run_as("cargo cetp", cmd)
}

/// Runs `cmd`, echoing it after `who: ` (`cargo cetp`, or `xtask` for the repository's own
/// chores); fails with its exit status, or, when the program is missing, with what installs it.
pub fn run_as(who: &str, cmd: &mut Command) -> Result<()> {
    eprintln!("{who}: running {}", describe(cmd));
    let status = cmd.status().map_err(|e| Error::not_started(cmd, &e))?;
    if status.success() {
        Ok(())
    } else {
        Err(Error::exited(cmd, status))
    }
}

/// What to install for a program the build runs, when it is not found: `javac`, `jar` and
/// `java` (a JDK 17), `mvn`, `aapt`, `aidl`. `None` for other programs.
pub(crate) fn missing_program(program: &str) -> Option<String> {
    let (package, what) = match program {
        "javac" | "jar" | "java" => (
            JDK_PACKAGE,
            "a JDK 17 (or set JAVA_HOME to one, whose bin/ holds it)",
        ),
        "mvn" => ("maven", "Maven 3.8+"),
        "aapt" => (AAPT.package, AAPT.purpose),
        "aidl" => (AIDL.package, AIDL.purpose),
        _ => return None,
    };
    Some(format!(
        "`{program}` is not on PATH: it comes with {what}. {}",
        install_hint(package)
    ))
}

/// The Debian package with the JDK's `javac`, `jar` and `java`.
pub(crate) const JDK_PACKAGE: &str = "openjdk-17-jdk-headless";

/// "Install the Debian package `p` (`sudo apt install p`)", the one way `cargo cetp` speaks of
/// a missing system package: it says what to run and never runs it.
pub(crate) fn install_hint(package: &str) -> String {
    format!(
        "Install the Debian/Ubuntu package `{package}` (`sudo apt install {package}`), or the \
         same program from your system's package manager"
    )
}

/// `cmd`'s command line as errors and logs show it: a long one shortened to its first
/// arguments and a count.
pub(crate) fn describe(cmd: &Command) -> String {
    let mut text = cmd.get_program().to_string_lossy().into_owned();
    let args: Vec<_> = cmd.get_args().collect();
    // A javac of every source file would fill screens: the options, then a count.
    let shown = if args.len() > 16 { 10 } else { args.len() };
    for arg in &args[..shown] {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    if shown < args.len() {
        text.push_str(&format!(" … ({} more arguments)", args.len() - shown));
    }
    text
}

/// The local Maven repository Maven will use for a project in `project_dir` (or run outside a
/// project from `project_dir`), read from this process's environment: see
/// [`maven::local_repository`].
pub(crate) fn m2_repo(project_dir: Option<&Path>) -> Result<PathBuf> {
    maven::local_repository(&|name| env::var_os(name), project_dir).map(|(repo, _)| repo)
}

/// The `org.robolectric:android-all` jar to compile Java against.
///
/// `CETP_ANDROID_ALL_JAR` wins; otherwise the jar in the local Maven repository ([`m2_repo`]),
/// fetched with `mvn dependency:get` when missing.
pub(crate) fn android_all_jar() -> Result<PathBuf> {
    maven_jar(
        "CETP_ANDROID_ALL_JAR",
        "org.robolectric",
        "android-all",
        ANDROID_ALL_VERSION,
    )
}

/// JSpecify's nullness annotations (`org.jspecify:jspecify`), which the template's public Java
/// API carries (`@NullMarked`, `@Nullable`): needed to compile it, never at run time. The
/// template's `build.gradle.kts` names the same version.
pub(crate) const JSPECIFY_VERSION: &str = "1.0.0";

/// The classpath the template's and the app's Java compile against: `android-all` and the
/// JSpecify annotations (`CETP_JSPECIFY_JAR` wins, as `CETP_ANDROID_ALL_JAR` for the first).
pub(crate) fn compile_classpath() -> Result<Vec<PathBuf>> {
    Ok(vec![
        android_all_jar()?,
        maven_jar(
            "CETP_JSPECIFY_JAR",
            "org.jspecify",
            "jspecify",
            JSPECIFY_VERSION,
        )?,
    ])
}

/// The jar `group:artifact:version`: the file `env_override` names when set, else the one in the
/// local Maven repository ([`m2_repo`]), fetched with `mvn dependency:get` when missing.
fn maven_jar(env_override: &str, group: &str, artifact: &str, version: &str) -> Result<PathBuf> {
    if let Some(jar) = env::var_os(env_override) {
        let jar = PathBuf::from(jar);
        return if jar.is_file() {
            Ok(jar)
        } else {
            Err(Error::Bundle(format!(
                "{env_override}={} is not a file",
                jar.display()
            )))
        };
    }
    // `mvn dependency:get` runs here, outside any project: Maven reads `.mvn/` from here up.
    let here = env::current_dir().ok();
    let repo = m2_repo(here.as_deref())?;
    let jar = repo
        .join(group.replace('.', "/"))
        .join(artifact)
        .join(version)
        .join(format!("{artifact}-{version}.jar"));
    if !jar.is_file() {
        let mut mvn = maven::mvn();
        mvn.args([
            "-q",
            "dependency:get",
            &format!("-Dartifact={group}:{artifact}:{version}"),
        ]);
        run(&mut mvn)?;
    }
    if jar.is_file() {
        Ok(jar)
    } else {
        Err(Error::Bundle(format!(
            "{} is still missing after mvn dependency:get (the local Maven repository: {})",
            jar.display(),
            repo.display()
        )))
    }
}

/// Compiles every `.java` file under `source_roots` into `out` against `classpath`.
pub(crate) fn javac(
    source_roots: &[PathBuf],
    classpath: &[PathBuf],
    out: &Path,
    warnings_are_errors: bool,
) -> Result<()> {
    let mut sources = Vec::new();
    for root in source_roots {
        collect_files(root, "java", &mut sources)?;
    }
    if sources.is_empty() {
        return Err(Error::Bundle("no Java sources to compile".into()));
    }
    sources.sort();
    std::fs::create_dir_all(out).map_err(Error::cannot("create", &out))?;
    let mut cmd = jdk_tool("javac");
    // `classfile` warnings come from android-all's own annotations, not from our code.
    cmd.args([
        "--release",
        "17",
        "-encoding",
        "UTF-8",
        "-Xlint:all,-classfile",
    ]);
    if warnings_are_errors {
        cmd.arg("-Werror");
    }
    let classpath = env::join_paths(classpath)
        .map_err(|e| Error::Bundle(format!("a classpath entry cannot be joined: {e}")))?;
    cmd.arg("-classpath")
        .arg(classpath)
        .arg("-d")
        .arg(out)
        .args(&sources);
    run(&mut cmd)
}

/// Appends every file under `dir` whose extension is `ext`.
pub(crate) fn collect_files(dir: &Path, ext: &str, into: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(Error::cannot("read", &dir))?;
    for entry in entries {
        let path = entry.map_err(Error::cannot("read", &dir))?.path();
        if path.is_dir() {
            collect_files(&path, ext, into)?;
        } else if path.extension().is_some_and(|e| e == ext) {
            into.push(path);
        }
    }
    Ok(())
}

/// The AIDL compiler: `CETP_AIDL=/path/to/aidl`, else `aidl` on `PATH` (see [`debian_tool`]).
pub(crate) fn aidl() -> Result<PathBuf> {
    debian_tool(&AIDL)
}

/// Android's resource compiler: `CETP_AAPT=/path/to/aapt`, else `aapt` on `PATH` (see
/// [`debian_tool`]).
pub(crate) fn aapt() -> Result<PathBuf> {
    debian_tool(&AAPT)
}

/// The AIDL compiler, as [`aidl`] looks for it.
pub const AIDL: DebianTool<'static> = DebianTool {
    program: "aidl",
    package: "aidl",
    override_var: "CETP_AIDL",
    purpose: "the AIDL compiler, which compiles the Apex plugin interface \
              (android-template/src/main/aidl)",
    alternative: "an `aidl` binary from the Android SDK's build-tools",
};

/// Android's resource compiler, as [`aapt`] looks for it.
pub const AAPT: DebianTool<'static> = DebianTool {
    program: "aapt",
    package: "aapt",
    override_var: "CETP_AAPT",
    purpose: "Android's resource compiler, which compiles the Android template's resources \
              (android-template/src/main/res) and the app's into R classes and a resource package",
    alternative: "an `aapt` binary from the Android SDK's build-tools",
};

/// A program the build needs that Debian packages: where to find it, and what to install when
/// it is missing.
#[derive(Debug, Clone, Copy)]
pub struct DebianTool<'a> {
    /// The program's name on `PATH` (`aidl`, `aarch64-linux-gnu-gcc`).
    pub program: &'a str,
    /// The Debian package that installs it (`aidl`, `gcc-aarch64-linux-gnu`).
    pub package: &'a str,
    /// The environment variable that points at the program instead (`CETP_AIDL`).
    pub override_var: &'a str,
    /// What the program is and why the build needs it, for the error when it is missing.
    pub purpose: &'a str,
    /// What else the variable can point at, for the same error.
    pub alternative: &'a str,
}

/// The path in `$override_var` if set, else the program on `PATH`, else an error naming the
/// package to install and the command. Never installs anything: whoever runs the tool decides
/// what goes on the machine (`cargo xtask test` and CI install these packages themselves).
///
/// ```
/// use cargo_cetp::android_build::bundle::{DebianTool, debian_tool};
/// let err = debian_tool(&DebianTool {
///     program: "cetp-no-such-program",
///     package: "cetp-no-such-package",
///     override_var: "CETP_NO_SUCH_PROGRAM",
///     purpose: "an example",
///     alternative: "another build",
/// })
/// .unwrap_err()
/// .to_string();
/// assert!(err.contains("`sudo apt install cetp-no-such-package`"), "{err}");
/// ```
pub fn debian_tool(tool: &DebianTool<'_>) -> Result<PathBuf> {
    let DebianTool {
        program,
        package,
        override_var,
        purpose,
        alternative,
    } = *tool;
    if let Some(path) = env::var_os(override_var) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(Error::Bundle(format!(
                "{override_var}={} is not a file",
                path.display()
            )))
        };
    }
    on_path(program).ok_or_else(|| Error::Program {
        command: format!("`{program}`"),
        problem: format!("is not on PATH: it is {purpose}."),
        hint: Some(format!(
            "{}; or point {override_var} at {alternative}",
            install_hint(package)
        )),
    })
}

/// Generates the Java `Stub`/`Proxy` of every `.aidl` file under `root` (the template's
/// `src/main/aidl`) into `out` (replaced), with the real AIDL compiler. Returns `out`.
pub(crate) fn generate_aidl_java(root: &Path, out: &Path) -> Result<PathBuf> {
    let aidl = aidl()?;
    let root = root.to_path_buf();
    let mut inputs = Vec::new();
    collect_files(&root, "aidl", &mut inputs)?;
    inputs.sort();
    if out.exists() {
        std::fs::remove_dir_all(out).map_err(Error::cannot("clean", &out))?;
    }
    std::fs::create_dir_all(out).map_err(Error::cannot("create", &out))?;
    let mut cmd = Command::new(aidl);
    cmd.arg("--lang=java")
        .arg(format!("-I{}", root.display()))
        .arg(format!("-o{}", out.display()))
        .args(&inputs);
    run(&mut cmd)?;
    Ok(out.to_path_buf())
}

/// The file `program` in a directory of `PATH`, if any.
pub fn on_path(program: &str) -> Option<PathBuf> {
    env::split_paths(&env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A developer tool never changes the machine: no source file of `cargo cetp` names the
    /// package manager's installing front end (the hints say `apt install`, for a person).
    #[test]
    fn no_source_runs_the_package_manager() {
        let apt = concat!("apt", "-get");
        let mut sources = Vec::new();
        collect_files(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            "rs",
            &mut sources,
        )
        .unwrap();
        assert!(sources.len() > 10, "{sources:?}");
        for source in sources {
            let text = std::fs::read_to_string(&source).unwrap();
            assert!(!text.contains(apt), "{} names {apt}", source.display());
        }
    }

    /// The text of every `<tag>` element of `xml` outside comments.
    fn elements(xml: &str, tag: &str) -> Vec<String> {
        let mut plain = String::new();
        let mut rest = xml;
        while let Some(start) = rest.find("<!--") {
            plain.push_str(&rest[..start]);
            rest = rest[start..]
                .find("-->")
                .map_or("", |end| &rest[start + end + 3..]);
        }
        plain.push_str(rest);
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        plain
            .split(&open)
            .skip(1)
            .filter_map(|part| part.split_once(&close).map(|(v, _)| v.trim().to_owned()))
            .collect()
    }

    /// Every `<release>-robolectric-<build>` spelled in `text`.
    fn framework_builds(text: &str) -> Vec<String> {
        let marker = "-robolectric-";
        let mut found = Vec::new();
        for (at, _) in text.match_indices(marker) {
            let start = text[..at]
                .rfind(|c: char| !c.is_ascii_digit())
                .map_or(0, |i| i + 1);
            let tail = &text[at + marker.len()..];
            let end = tail
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(tail.len());
            if start < at && end > 0 {
                found.push(text[start..at + marker.len() + end].to_owned());
            }
        }
        found
    }

    /// The template's public API is compiled against one JSpecify: the host bundle's (here),
    /// the app's Gradle build's (`android-template/build.gradle.kts`) and the test kit's.
    #[test]
    fn the_jspecify_version_is_the_same_everywhere() {
        let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let gradle =
            std::fs::read_to_string(sdk.join("android-template/build.gradle.kts")).unwrap();
        assert!(
            gradle.contains(&format!("\"org.jspecify:jspecify:{JSPECIFY_VERSION}\"")),
            "android-template/build.gradle.kts names another JSpecify than {JSPECIFY_VERSION}"
        );
        let kit = std::fs::read_to_string(sdk.join("android-testkit/pom.xml")).unwrap();
        assert_eq!(elements(&kit, "jspecify.version"), [JSPECIFY_VERSION]);
    }

    /// The framework build is spelled once in Rust; the kit's pom holds the one it compiles
    /// against, the suites' parent pom (`tests/android/pom.xml`) the ones they run (their
    /// children inherit the properties and never set them), and every other file of the SDK
    /// that names a Robolectric framework build names this one (or the Android 16 build).
    #[test]
    fn the_android_all_version_is_the_same_everywhere() {
        assert_eq!(
            ANDROID_ALL_INSTRUMENTED,
            format!("{ANDROID_ALL_VERSION}-i7")
        );
        let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let kit = std::fs::read_to_string(sdk.join("android-testkit/pom.xml")).unwrap();
        let suites = std::fs::read_to_string(sdk.join("tests/android/pom.xml")).unwrap();
        for parent in [&kit, &suites] {
            assert_eq!(
                elements(parent, "android.api.version"),
                [ANDROID_ALL_VERSION]
            );
            // Robolectric itself, which the projects `cargo cetp test` writes name too.
            assert_eq!(
                elements(parent, "robolectric.version"),
                [crate::android_build::robolectric::ROBOLECTRIC_VERSION]
            );
        }
        assert_eq!(
            elements(&suites, "android.all.version"),
            [ANDROID_ALL_INSTRUMENTED]
        );
        let android16 = elements(&suites, "android.all.version.android16");
        assert_eq!(android16.len(), 1, "{android16:?}");
        let mut allowed = vec![ANDROID_ALL_VERSION.to_owned()];
        allowed.push(android16[0].trim_end_matches("-i7").to_owned());

        let mut files = Vec::new();
        for root in [
            "android-testkit",
            "android-template",
            "tests/android",
            "docs",
            "cargo-cetp/src",
            "xtask/src",
        ] {
            for ext in ["xml", "java", "kt", "md", "rs", "properties", "toml"] {
                collect_files(&sdk.join(root), ext, &mut files).unwrap();
            }
        }
        files.extend(["README.md", "cargo-cetp/README.md"].map(|f| sdk.join(f)));
        files.retain(|f| !f.components().any(|c| c.as_os_str() == "target"));
        let mut checked = 0;
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            let relative = file.strip_prefix(sdk).unwrap();
            if file.file_name().is_some_and(|n| n == "pom.xml")
                && *file != sdk.join("android-testkit/pom.xml")
                && *file != sdk.join("tests/android/pom.xml")
            {
                for property in [
                    "android.all.version",
                    "android.api.version",
                    "android.all.version.android16",
                ] {
                    assert!(
                        elements(&text, property).is_empty(),
                        "{} sets {property}: it inherits it from its parent pom",
                        relative.display()
                    );
                }
            }
            for build in framework_builds(&text) {
                assert!(
                    allowed.contains(&build),
                    "{} names the framework build {build}, not {ANDROID_ALL_VERSION} \
                     (cargo-cetp/src/android_build/bundle/tools.rs)",
                    relative.display()
                );
                checked += 1;
            }
            // In Rust the build is spelled only by the macro above.
            if file.extension().is_some_and(|e| e == "rs") && !file.ends_with("bundle/tools.rs") {
                assert!(
                    framework_builds(&text).is_empty(),
                    "{} spells the framework build; use ANDROID_ALL_VERSION",
                    relative.display()
                );
            }
        }
        assert!(
            checked >= 5,
            "only {checked} mentions found in {} files",
            files.len()
        );
    }

    /// A missing program is an error naming the package and the command; nothing is run.
    #[test]
    fn a_missing_program_names_its_package() {
        let err = debian_tool(&DebianTool {
            program: "cetp-test-no-such-program",
            ..AIDL
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("Debian/Ubuntu package `aidl`"), "{err}");
        assert!(err.contains("`sudo apt install aidl`"), "{err}");
        assert!(err.contains("CETP_AIDL"), "{err}");
        let jdk = missing_program("javac").unwrap();
        assert!(
            jdk.contains(JDK_PACKAGE) && jdk.contains("JAVA_HOME"),
            "{jdk}"
        );
        let maven = "mvn";
        let missing = Error::not_started(
            &Command::new(maven),
            &std::io::Error::from(std::io::ErrorKind::NotFound),
        )
        .to_string();
        assert!(missing.contains("`sudo apt install maven`"), "{missing}");
    }
}

#[cfg(test)]
mod examples {
    /// The example that documented `missing_program`.
    #[test]
    fn example_bundle_tools_missing_program() {
        let hint = crate::android_build::bundle::missing_program("mvn").unwrap();
        assert!(hint.contains("package `maven`"), "{hint}");
        assert!(crate::android_build::bundle::missing_program("frobnicate").is_none());
    }
}
