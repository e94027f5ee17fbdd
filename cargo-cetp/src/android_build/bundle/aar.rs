//! The resources of the app module's library dependencies (AARs), as far as this machine's
//! Maven can have them: `implementation(libs.…)` / `api(libs.…)` lines of the module's build
//! file, looked up in the version catalog (`gradle/libs.versions.toml`), and
//! `implementation("group:name:version")` lines, each with an explicit version (a BOM-managed
//! one has none here and is skipped). Each AAR comes from the local Maven repository Maven uses
//! (`~/.m2/settings.xml`, mirrors and all, as for `android-all`), fetched with
//! `mvn dependency:get` when missing; one that cannot be had is skipped with its line, and what
//! the app takes from it is then substituted ([`super::substitution`]).
//!
//! Only the declared AARs are taken (not their own dependencies), and only their resources
//! (`res/`): their classes need theirs, which the bundle does not resolve.

use std::fs;
use std::path::{Path, PathBuf};

use super::maven;
use super::substitution::Substitution;
use super::tools as util;
use crate::{Error, Result};

/// A Maven coordinate with its version.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Coordinate {
    pub group: String,
    pub name: String,
    pub version: String,
}

impl std::fmt::Display for Coordinate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.group, self.name, self.version)
    }
}

/// One AAR unpacked: its resource directory and its package (its `R` class's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Library {
    pub coordinate: Coordinate,
    pub res: PathBuf,
    pub package: String,
}

/// The configurations whose libraries are part of the app's build.
const CONFIGURATIONS: [&str; 2] = ["implementation", "api"];

/// The libraries the build file `build` declares, with versions from `catalog` (the text of
/// `gradle/libs.versions.toml`, if any). Lines in comments, test and annotation-processor
/// configurations, `platform(…)` and coordinates without a version are skipped.
pub(crate) fn declared(build: &str, catalog: Option<&str>) -> Vec<Coordinate> {
    let catalog: Option<toml::Table> = catalog.and_then(|c| c.parse().ok());
    let mut out = Vec::new();
    for line in build.lines() {
        let line = super::gradle::strip_comment(line).trim();
        let Some(argument) = CONFIGURATIONS.iter().find_map(|c| {
            line.strip_prefix(c)?
                .trim_start()
                .strip_prefix('(')?
                .trim_end()
                .strip_suffix(')')
        }) else {
            continue;
        };
        let argument = argument.trim();
        let found = if let Some(accessor) = argument.strip_prefix("libs.") {
            catalog.as_ref().and_then(|c| from_catalog(c, accessor))
        } else {
            super::gradle::string_literal(argument).and_then(|text| parse_coordinate(&text))
        };
        if let Some(coordinate) = found.filter(|c| !out.contains(c)) {
            out.push(coordinate);
        }
    }
    out
}

/// `group:name:version` (a classifier after it is not taken; `@aar` is, `@jar` is no AAR).
fn parse_coordinate(text: &str) -> Option<Coordinate> {
    let (text, extension) = text.split_once('@').unwrap_or((text, "aar"));
    if extension != "aar" {
        return None;
    }
    let mut parts = text.split(':');
    let (group, name, version) = (parts.next()?, parts.next()?, parts.next()?);
    (!version.is_empty() && parts.next().is_none()).then(|| Coordinate {
        group: group.to_owned(),
        name: name.to_owned(),
        version: version.to_owned(),
    })
}

/// The library `libs.<accessor>` names: Gradle's accessor joins an alias's `-`, `_` and `.`
/// parts with dots.
fn from_catalog(catalog: &toml::Table, accessor: &str) -> Option<Coordinate> {
    let libraries = catalog.get("libraries")?.as_table()?;
    let versions = catalog.get("versions").and_then(|v| v.as_table());
    let (_, entry) = libraries
        .iter()
        .find(|(alias, _)| alias.replace(['-', '_'], ".") == accessor)?;
    if let Some(text) = entry.as_str() {
        return parse_coordinate(text);
    }
    let entry = entry.as_table()?;
    let (group, name) = match entry.get("module").and_then(|m| m.as_str()) {
        Some(module) => {
            let (g, n) = module.split_once(':')?;
            (g.to_owned(), n.to_owned())
        }
        None => (
            entry.get("group")?.as_str()?.to_owned(),
            entry.get("name")?.as_str()?.to_owned(),
        ),
    };
    let version = match entry.get("version")? {
        toml::Value::String(v) => v.clone(),
        toml::Value::Table(t) => {
            if let Some(reference) = t.get("ref").and_then(|r| r.as_str()) {
                match versions?.get(reference)? {
                    toml::Value::String(v) => v.clone(),
                    toml::Value::Table(rich) => rich_version(rich)?,
                    _ => return None,
                }
            } else {
                rich_version(t)?
            }
        }
        _ => return None,
    };
    Some(Coordinate {
        group,
        name,
        version,
    })
}

/// `{ strictly = "…" }`, `{ require = "…" }` or `{ prefer = "…" }`.
fn rich_version(table: &toml::Table) -> Option<String> {
    ["strictly", "require", "prefer"]
        .iter()
        .find_map(|k| table.get(*k)?.as_str().map(str::to_owned))
}

/// The AAR file of `c` in the local Maven repository `repo`.
pub(crate) fn aar_path(repo: &Path, c: &Coordinate) -> PathBuf {
    let mut path = repo.to_path_buf();
    for part in c.group.split('.') {
        path.push(part);
    }
    path.join(&c.name)
        .join(&c.version)
        .join(format!("{}-{}.aar", c.name, c.version))
}

/// Each of `coordinates` unpacked under `work` (replaced): those the local Maven repository
/// holds or Maven fetches, with their resources. Returns them, and one substitution per library
/// that could not be had (the build goes on without it).
pub(crate) fn resolve(
    coordinates: &[Coordinate],
    project_dir: &Path,
    work: &Path,
) -> Result<(Vec<Library>, Vec<Substitution>)> {
    let mut libraries = Vec::new();
    let mut skipped = Vec::new();
    if coordinates.is_empty() {
        return Ok((libraries, skipped));
    }
    let repo = util::m2_repo(Some(project_dir))?;
    if work.exists() {
        fs::remove_dir_all(work).map_err(Error::cannot("clean", work))?;
    }
    for coordinate in coordinates {
        let aar = aar_path(&repo, coordinate);
        if !aar.is_file() {
            let mut mvn = maven::mvn();
            mvn.current_dir(project_dir).args([
                "-q",
                "dependency:get",
                "-Dtransitive=false",
                &format!("-Dartifact={coordinate}:aar"),
            ]);
            // A library that is not an AAR, or not to be had, is one substitution line below:
            // Maven's own report of the failure would bury it.
            mvn.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            // A library Maven cannot fetch (offline, not in a repository it knows, not an AAR)
            // is skipped, not an error: what the app takes from it is then substituted.
            let fetched = util::run(&mut mvn).is_ok() && aar.is_file();
            if !fetched {
                skipped.push(Substitution {
                    what: format!("the library {coordinate}"),
                    by: "not used".to_owned(),
                    why: format!(
                        "Maven could not fetch its AAR into {}; what the app takes from it is \
                         substituted",
                        repo.display()
                    ),
                });
                continue;
            }
        }
        let dir = work.join(format!(
            "{}-{}-{}",
            coordinate.group, coordinate.name, coordinate.version
        ));
        fs::create_dir_all(&dir).map_err(Error::cannot("create", &dir))?;
        let mut jar = util::jdk_tool("jar");
        jar.current_dir(&dir).arg("xf").arg(&aar);
        util::run(&mut jar)?;
        let res = dir.join("res");
        let manifest = fs::read_to_string(dir.join("AndroidManifest.xml")).unwrap_or_default();
        let package = super::manifest::package_name(&manifest);
        match package {
            Some(package) if res.is_dir() && has_files(&res) => libraries.push(Library {
                coordinate: coordinate.clone(),
                res,
                package,
            }),
            // Classes only: nothing for the resources.
            _ => {}
        }
    }
    Ok((libraries, skipped))
}

fn has_files(dir: &Path) -> bool {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .any(|e| e.path().is_file() || (e.path().is_dir() && has_files(&e.path())))
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATALOG: &str = r#"
[versions]
coreSplashscreen = "1.0.1"
room = { strictly = "2.6.1" }

[libraries]
androidx-core-splashscreen = { group = "androidx.core", name = "core-splashscreen", version.ref = "coreSplashscreen" }
androidx-room_runtime = { module = "androidx.room:room-runtime", version.ref = "room" }
androidx-ui = { group = "androidx.compose.ui", name = "ui" }
plain = "com.example:plain:3.0"
junit = { group = "junit", name = "junit", version = "4.13.2" }
"#;

    #[test]
    fn declared_libraries_come_from_the_catalog_and_literals() {
        let build = r#"dependencies {
    implementation(libs.androidx.core.splashscreen)
    implementation(platform(libs.androidx.compose.bom))
    implementation(libs.androidx.ui) // from the BOM: no version here
    api(libs.androidx.room.runtime)
    // implementation(libs.plain)
    implementation("com.example:literal:1.2")
    implementation("net.java.dev.jna:jna:5.19.1@aar")
    implementation("com.example:a-jar:1.0@jar")
    implementation("com.example:classified:1.0:natives")
    implementation(libs.plain)
    implementation(libs.plain)
    testImplementation(libs.junit)
    ksp(libs.androidx.room.runtime)
}"#;
        let found: Vec<String> = declared(build, Some(CATALOG))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            found,
            [
                "androidx.core:core-splashscreen:1.0.1",
                "androidx.room:room-runtime:2.6.1",
                "com.example:literal:1.2",
                "net.java.dev.jna:jna:5.19.1",
                "com.example:plain:3.0",
            ]
        );
        assert_eq!(declared(build, None).len(), 2, "only the literals");
        assert_eq!(
            aar_path(Path::new("/m2"), &parse_coordinate("a.b:c:1").unwrap()),
            PathBuf::from("/m2/a/b/c/1/c-1.aar")
        );
    }
}
