//! What `cargo cetp test` and `cargo cetp preview` run ([`crate::commands::test`],
//! [`crate::commands::preview`]): the app's host bundle under Robolectric, by a Maven project
//! generated in the app's target directory, with the SDK's test kit (`dev.cetp:cetp-testkit`:
//! the released one by its coordinates, or an SDK checkout's `android-testkit/`).
//!
//! Nothing is written into the app's sources or the SDK checkout: the project lives in
//! `<target>/cetp/test/<dir-name>/` (or `…/preview/…`), points Maven at the app's test sources
//! where they are (`src/test/java`, `src/test/kotlin`, `src/test/resources` of the app's
//! Android module: `android/`, or the app module of an existing project,
//! [`crate::android_build::layout`]), and, for a checkout's kit, builds it when the local Maven
//! repository lacks it or holds an older build, with its build directory under the app's target
//! directory too.
//!
//! Every test JVM gets what the SDK's own suite gives its forks: the bundle's `app.jar` on the
//! classpath (its `test_config.properties` puts Robolectric in binary-resources mode: the app is
//! the test application), the bundle's directory on `java.library.path` and as `-Dcetp.bundle`,
//! Robolectric offline on SDK 34 with `android-all-instrumented` copied by Maven, and the
//! `--add-opens` flags Robolectric's own build passes.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::android_build::app::AppCrate;
use crate::android_build::bundle::{self, Kit, Sdk, tools};
use crate::android_build::layout::Layout;
use crate::template::fill;
use crate::{Error, Result};

/// The test kit's Maven coordinates (`android-testkit/testkit/pom.xml`).
pub(crate) const KIT_GROUP: &str = "dev.cetp";
/// The test kit's artifact id.
pub(crate) const KIT_ARTIFACT: &str = "cetp-testkit";
/// The test kit's version when this `cargo cetp` writes it into a new build: its own, the SDK's
/// (a build of an app takes the version of the template the app resolves,
/// [`Sdk::kit_version`]).
pub(crate) const KIT_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Robolectric, as the kit depends on it (and `init` writes for an app's Gradle build).
pub(crate) const ROBOLECTRIC_VERSION: &str = "4.16.1";
/// The instrumented framework jar Robolectric runs (API 34).
pub(crate) const ANDROID_ALL_INSTRUMENTED: &str = tools::ANDROID_ALL_INSTRUMENTED;
/// The Kotlin compiler plugin and standard library used for `.kt` tests.
pub(crate) const KOTLIN_VERSION: &str = "2.4.21";
/// The class of the kit that renders the screens for `cargo cetp preview`.
pub(crate) const PREVIEW_CLASS: &str = "dev.cetp.testkit.ScreenPreview";
/// The made-up agent app of the preview (label, package).
pub(crate) const PREVIEW_AGENT: (&str, &str) = ("Example Agent", "com.example.agent");
/// The PNGs `cargo cetp preview` writes, without `.png`: each screen in each look.
pub const PREVIEW_FILES: [&str; 6] = [
    "consent-light",
    "consent-night",
    "consent-ar",
    "apps-with-access-light",
    "apps-with-access-night",
    "apps-with-access-ar",
];
/// Their size in pixels: a 411 × 891 dp phone at xhdpi (2 px per dp), portrait.
pub const PREVIEW_SIZE: (u32, u32) = (822, 1782);

/// The JVM flags of every test fork: the add-opens Robolectric's own build passes to its test
/// JVMs, a headless AWT (PNG writing), and a heap that fits Robolectric's SDK 34 sandbox.
const JVM_ARGS: &str = "-Xms256m -Xmx2g -Djava.awt.headless=true \
--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED \
--add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED \
--add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.security=ALL-UNNAMED \
--add-opens=java.base/java.text=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED \
--add-opens=java.base/jdk.internal.access=ALL-UNNAMED --add-opens=java.desktop/java.awt.font=ALL-UNNAMED \
--add-opens=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED \
--add-opens=jdk.compiler/com.sun.tools.javac.main=ALL-UNNAMED \
--add-opens=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED";

/// Where the app keeps its Robolectric tests, relative to its Android app module (`android/`
/// in the layout `cargo cetp new` writes, see [`crate::android_build::layout`]).
pub(crate) const TEST_JAVA: &str = "src/test/java";
/// Kotlin tests.
pub(crate) const TEST_KOTLIN: &str = "src/test/kotlin";
/// Test resources.
pub(crate) const TEST_RESOURCES: &str = "src/test/resources";

/// What a generated Maven project runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Suite {
    /// The app's own tests (optionally only `filter`, Surefire's `-Dtest`).
    AppTests {
        /// `--test`.
        filter: Option<String>,
    },
    /// The kit's screen preview, writing PNGs into the directory.
    Preview(PathBuf),
}

/// The Maven project that runs `suite` for `app` against `bundle`: the text of its `pom.xml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Project {
    /// The bundle's name (the crate directory's).
    pub name: String,
    /// The app's Android module directory (its tests are under `src/test/`).
    pub module_dir: PathBuf,
    /// The host bundle's directory.
    pub bundle: PathBuf,
    /// What it runs.
    pub suite: Suite,
    /// Whether the app has Kotlin tests (`kotlin-maven-plugin` compiles them with the Java ones).
    pub kotlin: bool,
    /// The test kit's version: the SDK's ([`Sdk::kit_version`]).
    pub kit_version: String,
}

impl Project {
    /// The `pom.xml`: `templates/robolectric/pom.xml.tmpl`, with the parts only Kotlin tests or
    /// the preview need filled in from the other templates there.
    pub(crate) fn pom(&self) -> String {
        let xml = |p: &Path| xml_text(&p.to_string_lossy());
        let java = xml(&self.module_dir.join(TEST_JAVA));
        let kotlin_dir = xml(&self.module_dir.join(TEST_KOTLIN));
        let resources = xml(&self.module_dir.join(TEST_RESOURCES));
        let bundle = xml(&self.bundle);
        let name = xml_text(&self.name);
        let (kotlin_dependency, kotlin_plugin, java_after_kotlin) = if self.kotlin {
            (
                fill(
                    include_str!("../../templates/robolectric/kotlin-dependency.xml.tmpl"),
                    &[("KOTLIN_VERSION", KOTLIN_VERSION)],
                ),
                fill(
                    include_str!("../../templates/robolectric/kotlin-plugin.xml.tmpl"),
                    &[
                        ("KOTLIN_VERSION", KOTLIN_VERSION),
                        ("kotlin_dir", &kotlin_dir),
                        ("java", &java),
                    ],
                ),
                include_str!("../../templates/robolectric/java-after-kotlin.xml.tmpl").to_owned(),
            )
        } else {
            (String::new(), String::new(), String::new())
        };
        let (what, test_sources, surefire_extra, properties_extra) = match &self.suite {
            Suite::AppTests { .. } => (
                "the app's own tests",
                fill(
                    include_str!("../../templates/robolectric/app-test-sources.xml.tmpl"),
                    &[("java", &java), ("resources", &resources)],
                ),
                String::new(),
                String::new(),
            ),
            Suite::Preview(out) => (
                "the test kit's screen preview",
                String::new(),
                fill(
                    include_str!("../../templates/robolectric/preview-surefire.xml.tmpl"),
                    &[
                        ("KIT_GROUP", KIT_GROUP),
                        ("KIT_ARTIFACT", KIT_ARTIFACT),
                        ("preview_class", &PREVIEW_CLASS.replace('.', "/")),
                    ],
                ),
                fill(
                    include_str!("../../templates/robolectric/preview-properties.xml.tmpl"),
                    &[
                        ("out", &xml(out)),
                        ("agent_label", PREVIEW_AGENT.0),
                        ("agent_package", PREVIEW_AGENT.1),
                    ],
                ),
            ),
        };
        fill(
            include_str!("../../templates/robolectric/pom.xml.tmpl"),
            &[
                ("what", what),
                ("name", &name),
                ("bundle", &bundle),
                ("KIT_GROUP", KIT_GROUP),
                ("KIT_ARTIFACT", KIT_ARTIFACT),
                ("KIT_VERSION", &xml_text(&self.kit_version)),
                ("android_all", tools::ANDROID_ALL_VERSION),
                ("kotlin_dependency", &kotlin_dependency),
                ("test_sources", &test_sources),
                ("kotlin_plugin", &kotlin_plugin),
                ("java_after_kotlin", &java_after_kotlin),
                ("ANDROID_ALL_INSTRUMENTED", ANDROID_ALL_INSTRUMENTED),
                ("JVM_ARGS", JVM_ARGS),
                ("properties_extra", &properties_extra),
                ("surefire_extra", &surefire_extra),
            ],
        )
    }
}

/// One test case as Surefire reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Case {
    /// The test class.
    pub class: String,
    /// The method.
    pub name: String,
    /// What happened.
    pub outcome: Outcome,
}

/// A test case's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// It passed.
    Passed,
    /// An assertion failed or it threw: the message Surefire recorded.
    Failed(String),
    /// It was skipped (`@Ignore`, an assumption).
    Skipped,
}

/// The test cases of Surefire's XML reports (`TEST-*.xml`) in `dir`, by class then order.
///
/// # Errors
/// [`Error::Io`] when the directory or a report cannot be read.
pub(crate) fn read_reports(dir: &Path) -> Result<Vec<Case>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).map_err(Error::io(dir))? {
        let path = entry.map_err(Error::io(dir))?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with("TEST-") && name.ends_with(".xml") {
            files.push(path);
        }
    }
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).map_err(Error::io(&file))?;
        let mut rest = text.as_str();
        while let Some(start) = rest.find("<testcase") {
            let after = &rest[start..];
            let tag_end = after.find('>').unwrap_or(after.len());
            let tag = &after[..tag_end];
            let self_closing = tag.ends_with('/');
            let body_end = if self_closing {
                tag_end
            } else {
                after.find("</testcase>").unwrap_or(after.len())
            };
            let body = &after[tag_end.min(body_end)..body_end];
            let outcome = if let Some(at) = body.find("<failure").or_else(|| body.find("<error")) {
                let failure = &body[at..];
                let failure_tag = &failure[..failure.find('>').unwrap_or(failure.len())];
                let message = attribute(failure_tag, "message").unwrap_or_default();
                let kind = attribute(failure_tag, "type").unwrap_or_default();
                Outcome::Failed(match (kind.is_empty(), message.is_empty()) {
                    (false, false) => format!("{kind}: {message}"),
                    (false, true) => kind,
                    _ => message,
                })
            } else if body.contains("<skipped") {
                Outcome::Skipped
            } else {
                Outcome::Passed
            };
            cases.push(Case {
                class: attribute(tag, "classname").unwrap_or_default(),
                name: attribute(tag, "name").unwrap_or_default(),
                outcome,
            });
            rest = &after[body_end.max(1)..];
        }
    }
    Ok(cases)
}

/// The summary `cargo cetp test` prints: one line per test, then the counts.
pub(crate) fn summary(cases: &[Case]) -> String {
    let mut out = String::new();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for case in cases {
        let class = case.class.rsplit('.').next().unwrap_or(&case.class);
        match &case.outcome {
            Outcome::Passed => {
                passed += 1;
                out.push_str(&format!("  ok      {class}.{}\n", case.name));
            }
            Outcome::Failed(message) => {
                failed += 1;
                let first = message.lines().next().unwrap_or_default();
                out.push_str(&format!("  FAILED  {class}.{}: {first}\n", case.name));
            }
            Outcome::Skipped => {
                skipped += 1;
                out.push_str(&format!("  skipped {class}.{}\n", case.name));
            }
        }
    }
    out.push_str(&format!(
        "{passed} passed, {failed} failed, {skipped} skipped\n"
    ));
    out
}

/// The app's Android module directory ([`Layout::find`]; `android/` beside the crate when there
/// is none).
pub(crate) fn module_dir(app: &AppCrate) -> Result<PathBuf> {
    Ok(Layout::find(app)?.map_or_else(|| app.dir.join("android"), |layout| layout.module))
}

/// Writes the project into `dir` and runs `mvn test` there; returns the reports directory.
pub(crate) fn run_project(project: &Project, dir: &Path, filter: Option<&str>) -> Result<PathBuf> {
    fs::create_dir_all(dir).map_err(Error::io(dir))?;
    let pom = dir.join("pom.xml");
    fs::write(&pom, project.pom()).map_err(Error::io(&pom))?;
    clean_build_output(&dir.join("target"))?;
    let reports = dir.join("target/surefire-reports");
    let log = dir.join("maven.log");
    let mut mvn = maven();
    mvn.arg("-f").arg(&pom).arg("test");
    if let Some(filter) = filter {
        mvn.arg(format!("-Dtest={filter}"))
            .arg("-Dsurefire.failIfNoSpecifiedTests=false");
    }
    eprintln!(
        "cargo cetp: running the tests with Maven in {} (log: {})",
        dir.display(),
        log.display()
    );
    run_logged(&mut mvn, &log).map_err(|e| match e {
        Error::Bundle(text) if kit_unresolved(&text) => Error::Bundle(format!(
            "{text}\n{KIT_GROUP}:{KIT_ARTIFACT}:{} is resolved from the repositories your Maven \
             uses (Maven Central unless settings.xml says otherwise): check that Maven can reach \
             them, or that this version of the kit is released",
            project.kit_version
        )),
        other => other,
    })?;
    if !reports.is_dir() {
        return Err(Error::Bundle(format!(
            "Maven ran no test (no {}); see {}",
            reports.display(),
            log.display()
        )));
    }
    Ok(reports)
}

/// Whether Maven's error lines say it could not get the test kit.
fn kit_unresolved(errors: &str) -> bool {
    errors.lines().any(|line| {
        line.contains(&format!("{KIT_GROUP}:{KIT_ARTIFACT}"))
            && (line.contains("Could not find") || line.contains("Could not resolve"))
    })
}

/// Empties the generated project's build directory but for the framework jar copied into it
/// (`robolectric-deps/`, 150 MB): classes compiled on an earlier run, from tests since deleted or
/// from another app of the same name in a shared target directory, would run again otherwise.
///
/// # Errors
/// [`Error::Io`] when something cannot be removed.
pub(crate) fn clean_build_output(target: &Path) -> Result<()> {
    if !target.is_dir() {
        return Ok(());
    }
    for entry in fs::read_dir(target).map_err(Error::io(target))? {
        let path = entry.map_err(Error::io(target))?.path();
        if path.file_name().is_some_and(|n| n == "robolectric-deps") {
            continue;
        }
        if path.is_dir() {
            fs::remove_dir_all(&path).map_err(Error::io(&path))?;
        } else {
            fs::remove_file(&path).map_err(Error::io(&path))?;
        }
    }
    Ok(())
}

/// Makes the test kit available to Maven: a checkout's kit is installed into the local Maven
/// repository unless the build there is of the same sources ([`kit_digest`], kept in a file
/// beside the installed jar); a released kit is left to Maven, which resolves it by its
/// coordinates like any other dependency.
pub(crate) fn install_kit(app: &AppCrate, sdk: &Sdk) -> Result<()> {
    let Kit::Checkout(kit) = sdk.kit() else {
        return Ok(());
    };
    let version = sdk.kit_version();
    let digest = kit_digest(sdk)?;
    // Maven reads its configuration for the kit's project from its directory up.
    let installed = tools::m2_repo(Some(kit))?
        .join(KIT_GROUP.replace('.', "/"))
        .join(KIT_ARTIFACT)
        .join(&version);
    let jar = installed.join(format!("{KIT_ARTIFACT}-{version}.jar"));
    let stamp = installed.join(format!("{KIT_ARTIFACT}-{version}.sources-digest"));
    if jar.is_file() && fs::read_to_string(&stamp).ok().as_deref() == Some(digest.as_str()) {
        return Ok(());
    }
    let aidl = bundle::aidl()?;
    let build = app.target_dir.join("cetp/testkit-build");
    let log = app.target_dir.join("cetp/testkit-build.log");
    fs::create_dir_all(&build).map_err(Error::io(&build))?;
    eprintln!(
        "cargo cetp: installing the test kit {KIT_GROUP}:{KIT_ARTIFACT}:{version} from {} \
         into the local Maven repository (log: {})",
        kit.display(),
        log.display()
    );
    let mut mvn = maven();
    mvn.arg("-f")
        .arg(kit.join("pom.xml"))
        .args(["install", "-DskipTests"])
        .arg(format!("-Dcetp.kit.out={}", build.display()))
        .arg(format!("-Dcetp.aidl={}", aidl.display()));
    run_logged(&mut mvn, &log)?;
    fs::write(&stamp, &digest).map_err(Error::io(&stamp))?;
    Ok(())
}

/// A digest of the kit's sources (every file under `android-testkit/` but build output, and what
/// its pom reads from the template: the AIDL it compiles and `Wire.java`, whose words it compiles
/// as its own `Wire`): a changed SDK checkout gets its kit installed again.
///
/// # Errors
/// [`Error::Io`] when a source cannot be read.
pub(crate) fn kit_digest(sdk: &Sdk) -> Result<String> {
    let files = kit_sources(sdk)?;
    // FNV-1a, 64 bits: a change detector, not a security measure.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    let root = sdk.template();
    let root = root.parent().unwrap_or(&root);
    for file in files {
        let relative = file.strip_prefix(root).unwrap_or(&file);
        feed(relative.to_string_lossy().as_bytes());
        feed(&[0]);
        feed(&fs::read(&file).map_err(Error::io(&file))?);
        feed(&[0]);
    }
    Ok(format!("{hash:016x}"))
}

/// The files [`kit_digest`] hashes.
fn kit_sources(sdk: &Sdk) -> Result<BTreeSet<PathBuf>> {
    let mut files = BTreeSet::new();
    if let Kit::Checkout(kit) = sdk.kit() {
        collect(kit, &mut files)?;
    }
    collect(&sdk.aidl_root(), &mut files)?;
    files.insert(sdk.wire_java());
    Ok(files)
}

fn collect(dir: &Path, into: &mut BTreeSet<PathBuf>) -> Result<()> {
    for entry in fs::read_dir(dir).map_err(Error::io(dir))? {
        let path = entry.map_err(Error::io(dir))?.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            collect(&path, into)?;
        } else {
            into.insert(path);
        }
    }
    Ok(())
}

pub(crate) fn has_files(dir: &Path, ext: &str) -> bool {
    let mut found = Vec::new();
    dir.is_dir() && tools::collect_files(dir, ext, &mut found).is_ok() && !found.is_empty()
}

/// `mvn` as every run here starts it ([`bundle::maven::mvn`]).
fn maven() -> Command {
    bundle::maven::mvn()
}

/// Runs `cmd` with its output in `log`; on failure, the log's error lines.
fn run_logged(cmd: &mut Command, log: &Path) -> Result<()> {
    let file = fs::File::create(log).map_err(Error::io(log))?;
    let err = file.try_clone().map_err(Error::io(log))?;
    let status = cmd
        .stdout(file)
        .stderr(err)
        .status()
        .map_err(|e| Error::not_started(cmd, &e))?;
    if status.success() {
        return Ok(());
    }
    let text = fs::read_to_string(log).unwrap_or_default();
    Err(Error::Bundle(format!(
        "Maven failed ({status}); see {}:\n{}",
        log.display(),
        maven_errors(&text)
    )))
}

/// Maven's own error lines of a log, up to its advice on re-running it, as plain text (ANSI
/// colours stripped: a Maven configured to colour its output does so even into a file).
fn maven_errors(log: &str) -> String {
    let text = bundle::strip_ansi(log);
    let errors: Vec<&str> = text
        .lines()
        .take_while(|l| !l.contains("-> [Help 1]"))
        .filter(|l| l.starts_with("[ERROR]") && !l.trim_end().ends_with("[ERROR]"))
        .take(40)
        .collect();
    errors.join("\n")
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let needle = format!(" {name}=\"");
    let start = tag.find(&needle)? + needle.len();
    let len = tag[start..].find('"')?;
    Some(unescape(&tag[start..start + len]))
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&#10;", "\n")
        .replace("&amp;", "&")
}

fn xml_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The width and height of a PNG file's image (its `IHDR`).
///
/// ```
/// let sizes = cargo_cetp::android_build::robolectric::png_size(&[0u8; 8]);
/// assert_eq!(sizes, None);
/// ```
pub fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let width = u32::from_be_bytes(bytes[16..20].try_into().ok()?);
    let height = u32::from_be_bytes(bytes[20..24].try_into().ok()?);
    Some((width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Maven's line when the kit is not in any repository it reads gets the explanation; other
    /// failures do not.
    #[test]
    fn a_kit_maven_cannot_get_is_explained() {
        assert!(kit_unresolved(
            "[ERROR] Failed to execute goal on project recipes-tests: Could not resolve \
             dependencies for project dev.cetp.app:recipes-tests:jar:1: Could not find artifact \
             dev.cetp:cetp-testkit:jar:0.9.0 in central (https://repo.maven.apache.org/maven2)"
        ));
        assert!(!kit_unresolved(
            "[ERROR] Could not find artifact org.robolectric:android-all:jar:14 in central"
        ));
        assert!(!kit_unresolved(
            "[ERROR] Tests run: 2, Failures: 1 in dev.cetp.testkit.CetpTestRule"
        ));
    }

    fn project(suite: Suite, kotlin: bool) -> Project {
        Project {
            name: "recipes".into(),
            module_dir: PathBuf::from("/apps/recipes/android"),
            bundle: PathBuf::from("/apps/recipes/target/cetp-host/recipes"),
            suite,
            kotlin,
            kit_version: "0.1.0".into(),
        }
    }

    #[test]
    fn the_project_runs_the_bundle_as_the_suite_does() {
        let pom = project(Suite::AppTests { filter: None }, false).pom();
        for expected in [
            // The bundle's classes on the compile classpath too: tests name the app's R.
            "<scope>system</scope>\n      <systemPath>/apps/recipes/target/cetp-host/recipes/app.jar</systemPath>",
            "-Djava.library.path=/apps/recipes/target/cetp-host/recipes</argLine>",
            "<cetp.bundle>/apps/recipes/target/cetp-host/recipes</cetp.bundle>",
            "<robolectric.offline>true</robolectric.offline>",
            "<robolectric.enabledSdks>34</robolectric.enabledSdks>",
            "<artifactId>android-all-instrumented</artifactId>",
            &format!("<version>{ANDROID_ALL_INSTRUMENTED}</version>"),
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "<directory>/apps/recipes/android/src/test/resources</directory>",
        ] {
            assert!(pom.contains(expected), "missing {expected} in:\n{pom}");
        }
        assert!(!pom.contains("dependenciesToScan"));
    }

    #[test]
    fn kotlin_tests_get_the_kotlin_compiler() {
        let pom = project(Suite::AppTests { filter: None }, true).pom();
        assert!(pom.contains("<artifactId>kotlin-maven-plugin</artifactId>"));
        assert!(pom.contains(&format!("<version>{KOTLIN_VERSION}</version>")));
        assert!(pom.contains("<sourceDir>/apps/recipes/android/src/test/kotlin</sourceDir>"));
    }

    #[test]
    fn the_preview_runs_the_kits_class_with_native_graphics() {
        let pom = project(Suite::Preview(PathBuf::from("/out")), false).pom();
        assert!(pom.contains("<dependency>dev.cetp:cetp-testkit</dependency>"));
        assert!(pom.contains("<include>dev/cetp/testkit/ScreenPreview.java</include>"));
        assert!(pom.contains("<cetp.preview.out>/out</cetp.preview.out>"));
        assert!(pom.contains("<robolectric.graphicsMode>NATIVE</robolectric.graphicsMode>"));
        assert!(!pom.contains("testSourceDirectory"));
    }

    #[test]
    fn errors_and_skips_are_read_from_the_reports() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("TEST-com.x.ATest.xml"),
            "<testsuite><testcase name=\"e\" classname=\"com.x.ATest\"><error type=\"java.lang.IllegalStateException\"/></testcase>\
             <testcase name=\"s\" classname=\"com.x.ATest\"><skipped/></testcase></testsuite>",
        )
        .unwrap();
        fs::write(dir.path().join("com.x.ATest.txt"), "not a report").unwrap();
        let cases = read_reports(dir.path()).unwrap();
        assert_eq!(
            cases.iter().map(|c| c.outcome.clone()).collect::<Vec<_>>(),
            [
                Outcome::Failed("java.lang.IllegalStateException".into()),
                Outcome::Skipped
            ]
        );
        assert!(summary(&cases).ends_with("0 passed, 1 failed, 1 skipped\n"));
    }

    #[test]
    fn a_run_starts_from_no_compiled_test_but_keeps_the_framework_jar() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        let stale = target.join("test-classes/com/example/recipes/ProviderKotlinTest.class");
        let jar = target.join(format!(
            "robolectric-deps/android-all-instrumented-{ANDROID_ALL_INSTRUMENTED}.jar"
        ));
        for file in [&stale, &jar, &target.join("surefire-reports/TEST-x.xml")] {
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(file, "x").unwrap();
        }
        clean_build_output(&target).unwrap();
        assert!(!stale.exists());
        assert!(!target.join("test-classes").exists());
        assert!(!target.join("surefire-reports").exists());
        assert!(jar.is_file());
        clean_build_output(&dir.path().join("none")).unwrap();
    }

    #[test]
    fn maven_errors_are_plain_text() {
        let log = "[INFO] Building\n\u{1b}[1;31m[ERROR]\u{1b}[m Failed to execute goal \u{1b}[32mx\u{1b}[m\n\
                   \u{1b}[1;31m[ERROR]\u{1b}[m \n\u{1b}[1;31m[ERROR]\u{1b}[m -> [Help 1]\n[ERROR] after\n";
        assert_eq!(maven_errors(log), "[ERROR] Failed to execute goal x");
    }

    #[test]
    fn png_sizes_come_from_the_header() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend_from_slice(&822u32.to_be_bytes());
        png.extend_from_slice(&1782u32.to_be_bytes());
        assert_eq!(png_size(&png), Some(PREVIEW_SIZE));
    }

    /// An SDK checkout of the files the kit's digest reads, and one it does not.
    fn fake_sdk(dir: &Path) -> Sdk {
        for (file, text) in [
            (
                "android-template/src/main/AndroidManifest.xml",
                "<manifest/>",
            ),
            (
                "android-template/src/main/aidl/com/example/IPlugin.aidl",
                "interface IPlugin {}",
            ),
            (
                "android-template/src/main/java/dev/cetp/Wire.java",
                "package dev.cetp;\nclass Wire { static final String A = \"a\"; }\n",
            ),
            (
                "android-template/src/main/java/dev/cetp/Other.java",
                "package dev.cetp;",
            ),
            ("android-testkit/pom.xml", "<project/>"),
        ] {
            let path = dir.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
        }
        Sdk::at(dir).unwrap()
    }

    /// The kit compiles the template's `Wire.java`: a changed word there is a changed kit, while
    /// the template's other Java is not the kit's.
    #[test]
    fn the_kit_digest_follows_the_templates_wire_java() {
        let dir = tempfile::tempdir().unwrap();
        let sdk = fake_sdk(dir.path());
        let before = kit_digest(&sdk).unwrap();
        fs::write(
            sdk.template().join("src/main/java/dev/cetp/Other.java"),
            "changed",
        )
        .unwrap();
        assert_eq!(kit_digest(&sdk).unwrap(), before);
        let wire = sdk.wire_java();
        let text = fs::read_to_string(&wire).unwrap().replace("\"a\"", "\"b\"");
        fs::write(&wire, text).unwrap();
        assert_ne!(kit_digest(&sdk).unwrap(), before);
        fs::remove_file(&wire).unwrap();
        assert!(
            kit_digest(&sdk).is_err(),
            "a kit without Wire.java cannot build"
        );
    }

    /// What the kit's pom reads from the template (`../../android-template/...`) is what
    /// [`kit_digest`] hashes besides the kit itself: nothing else, and all of it exists.
    #[test]
    fn the_kit_pom_reads_from_the_template_only_what_the_digest_hashes() {
        let sdk = Sdk::at(&crate::sdk_dir()).unwrap();
        let Kit::Checkout(kit) = sdk.kit() else {
            panic!("a checkout's kit is its own")
        };
        let module = kit.join("testkit");
        let pom = fs::read_to_string(module.join("pom.xml")).unwrap();
        let marker = "../../android-template/";
        let mut read = Vec::new();
        for (at, _) in pom.match_indices(marker) {
            let tail = &pom[at..];
            let end = tail.find(['<', '"', ' ']).unwrap_or(tail.len());
            read.push(module.join(&tail[..end]));
        }
        let read: Vec<PathBuf> = read
            .iter()
            .map(|p| {
                p.canonicalize()
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            })
            .collect();
        assert!(read.contains(&sdk.aidl_root()), "{read:?}");
        assert!(read.contains(&sdk.wire_java()), "{read:?}");
        let hashed = kit_sources(&sdk).unwrap();
        for path in &read {
            let mut files = BTreeSet::new();
            if path.is_dir() {
                collect(path, &mut files).unwrap();
            } else {
                files.insert(path.clone());
            }
            assert!(!files.is_empty(), "{}", path.display());
            for file in files {
                assert!(
                    hashed.contains(&file),
                    "the kit's pom reads {} from the SDK checkout, which kit_digest does not hash",
                    file.display()
                );
            }
        }
    }
}

#[cfg(test)]
mod examples {
    /// The example that documented `Project`.
    #[test]
    fn example_robolectric_project() {
        use crate::android_build::robolectric::{Project, Suite};
        use std::path::PathBuf;
        let project = Project {
            name: "recipes".into(),
            module_dir: PathBuf::from("/apps/recipes/android"),
            bundle: PathBuf::from("/apps/recipes/target/cetp-host/recipes"),
            suite: Suite::AppTests { filter: None },
            kotlin: false,
            kit_version: super::KIT_VERSION.into(),
        };
        let pom = project.pom();
        assert!(pom.contains(
            "<testSourceDirectory>/apps/recipes/android/src/test/java</testSourceDirectory>"
        ));
        assert!(pom.contains("<artifactId>cetp-testkit</artifactId>"));
        assert!(!pom.contains("kotlin-maven-plugin"));
    }

    /// The example that documented `read_reports`.
    #[test]
    fn example_robolectric_read_reports() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("TEST-a.B.xml"), r#"<testsuite name="a.B">
          <testcase name="ok" classname="a.B" time="0.1"/>
          <testcase name="bad" classname="a.B" time="0.1"><failure message="expected &lt;1&gt;" type="java.lang.AssertionError">trace</failure></testcase>
        </testsuite>"#).unwrap();
        let cases = crate::android_build::robolectric::read_reports(dir.path()).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(
            cases[1].outcome,
            crate::android_build::robolectric::Outcome::Failed(
                "java.lang.AssertionError: expected <1>".into()
            )
        );
    }

    /// The example that documented `summary`.
    #[test]
    fn example_robolectric_summary() {
        use crate::android_build::robolectric::{Case, Outcome, summary};
        let cases = [
            Case {
                class: "com.x.ProviderTest".into(),
                name: "lists".into(),
                outcome: Outcome::Passed,
            },
            Case {
                class: "com.x.ProviderTest".into(),
                name: "calls".into(),
                outcome: Outcome::Failed("boom".into()),
            },
        ];
        let text = summary(&cases);
        assert!(text.contains("  ok      ProviderTest.lists\n"));
        assert!(text.contains("  FAILED  ProviderTest.calls: boom\n"));
        assert!(text.ends_with("1 passed, 1 failed, 0 skipped\n"));
    }

    /// The example that documented `kit_digest`.
    #[test]
    fn example_robolectric_kit_digest() {
        let sdk = crate::android_build::bundle::Sdk::at(&crate::sdk_dir()).unwrap();
        let digest = crate::android_build::robolectric::kit_digest(&sdk).unwrap();
        assert_eq!(digest.len(), 16);
        assert_eq!(
            digest,
            crate::android_build::robolectric::kit_digest(&sdk).unwrap()
        );
    }
}
