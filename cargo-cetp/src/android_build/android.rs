//! The app's Android module as the template needs it, read the way the host bundles read it:
//! the module's `build.gradle.kts` line by line (string literals only), the Gradle root's
//! `gradle.properties` and `settings.gradle(.kts)`, and the app manifest
//! (`src/main/AndroidManifest.xml` of the module, or `AndroidManifest.xml` beside `Cargo.toml`
//! with `[package.metadata.cetp]`). Where the module is: [`Layout::find`] (`android/` beside
//! the crate, or the app module of the Gradle build around it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::android_build::app::{AppCrate, TEMPLATE_CRATE};
use crate::android_build::bundle::gradle::{self, string_literal, strip_comment};
use crate::android_build::layout::Layout;
use crate::android_build::rust_build;
use crate::commands::check::report::Finding;

/// The components the template's manifest declares (an app declaring one again gets two).
pub(crate) const TEMPLATE_COMPONENTS: &[&str] = &[
    "dev.cetp.CetpToolProvider",
    "dev.cetp.CetpDiscoveryService",
    "dev.cetp.CetpAuthorizeActivity",
    "dev.cetp.ApexPluginService",
];

/// The permission CETP v1 names.
pub(crate) const ACCESS_TOOLS: &str = "com.clawseed.permission.ACCESS_TOOLS";

/// What was read of the Android module.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AndroidModule {
    /// The app module and its Gradle root, when there is one ([`Layout::find`]).
    pub(crate) layout: Option<Layout>,
    /// Why no module could be chosen (several app modules, a named one missing).
    pub problem: Option<String>,
    /// The app module's directory, when it exists.
    pub dir: Option<PathBuf>,
    /// `manifestPlaceholders["…"] = "…"` of `build.gradle.kts`.
    pub placeholders: BTreeMap<String, String>,
    /// `applicationId`, else `namespace`.
    pub application_id: Option<String>,
    /// The authority's tail when `build.gradle.kts` takes it from each variant's application id
    /// ([`gradle::AUTHORITY_FROM_APPLICATION_ID`]).
    pub authority_tail: Option<String>,
    /// Every `applicationIdSuffix` the module's build file sets.
    pub application_id_suffixes: Vec<String>,
    /// Whether `build.gradle.kts` depends on the template module.
    pub uses_template: bool,
    /// The root project's `gradle.properties`.
    pub properties: BTreeMap<String, String>,
    /// `settings.gradle(.kts)`: where the template module `:cetp` comes from.
    pub template_module: Option<TemplateModule>,
    /// The app manifest's path and text.
    pub manifest: Option<(PathBuf, String)>,
}

/// Where `settings.gradle(.kts)` takes the template module `:cetp` from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateModule {
    /// `project(":cetp").projectDir = file("…")`: a directory (resolved), an SDK checkout's.
    Dir(PathBuf),
    /// The crate `cetp-android-template` the app's Rust crate resolves, found by `cargo
    /// metadata` when Gradle reads the settings (what `cargo cetp new` and `init` write for the
    /// SDK by version).
    FromCargo,
}

impl AndroidModule {
    /// Reads the Android files of `app`: its app module wherever [`Layout::find`] finds it.
    pub fn read(app: &AppCrate) -> Self {
        let mut module = AndroidModule::default();
        match Layout::find(app) {
            Ok(layout) => module.layout = layout,
            Err(problem) => module.problem = Some(problem.to_string()),
        }
        let mut manifests = vec![app.dir.join("AndroidManifest.xml")];
        if let Some(layout) = module.layout.clone() {
            manifests.insert(0, layout.module.join("src/main/AndroidManifest.xml"));
            module.dir = Some(layout.module.clone());
            if let Ok(gradle) = std::fs::read_to_string(layout.build_file()) {
                module.read_gradle(&gradle);
            }
            if let Ok(text) = std::fs::read_to_string(layout.properties_file()) {
                module.properties = properties(&text);
            }
            if let Ok(text) = std::fs::read_to_string(layout.settings_file()) {
                module.template_module = template_module(&text).map(|found| match found {
                    TemplateModule::Dir(dir) => TemplateModule::Dir(layout.root.join(dir)),
                    from_cargo => from_cargo,
                });
            }
        }
        for path in manifests {
            if let Ok(text) = std::fs::read_to_string(&path) {
                module.manifest = Some((path, text));
                break;
            }
        }
        module
    }

    fn read_gradle(&mut self, text: &str) {
        self.uses_template = text
            .lines()
            .map(strip_comment)
            .any(|line| line.contains("project(\":cetp\")") && line.contains("implementation"));
        let read = gradle::parse(text);
        self.placeholders.extend(read.placeholders);
        self.authority_tail = read.authority_tail;
        self.application_id_suffixes = read.application_id_suffixes;
        // The authority of the application id as written; a literal one wins.
        if let (Some(tail), Some(id)) = (&self.authority_tail, &read.application_id) {
            self.placeholders
                .entry("cetpAuthority".to_owned())
                .or_insert_with(|| format!("{id}{tail}"));
        }
        if self.application_id.is_none() {
            self.application_id = read.application_id;
        }
    }

    /// The application id: `applicationId`/`namespace` of the module, else
    /// `[package.metadata.cetp] application-id`, else the manifest's `package`.
    pub(crate) fn package(&self, app: &AppCrate) -> Option<String> {
        self.application_id
            .clone()
            .or_else(|| app.metadata("application-id").map(str::to_owned))
            .or_else(|| {
                let (_, text) = self.manifest.as_ref()?;
                let start = text.find("<manifest")?;
                attribute(&text[start..], "package")
            })
    }
}

/// The Android findings for `app`: the placeholders the template needs, the library name, the
/// module wiring, the permission mode, components the template provides declared again.
pub(crate) fn lint(app: &AppCrate, module: &AndroidModule) -> (Vec<String>, Vec<Finding>) {
    let mut notes = Vec::new();
    let mut out = Vec::new();
    if let Some(problem) = &module.problem {
        out.push(Finding::warning(
            problem.clone(),
            "pass `--android-module <name>` (or set `android-module` under \
             [package.metadata.cetp])",
        ));
    }
    let shown = |path: PathBuf| Layout::shown(app, &path);
    let (gradle, settings, gradle_properties) = match &module.layout {
        Some(layout) => (
            shown(layout.build_file()),
            shown(layout.settings_file()),
            shown(layout.properties_file()),
        ),
        None => (
            "android/build.gradle.kts".to_owned(),
            "android/settings.gradle.kts".to_owned(),
            "android/gradle.properties".to_owned(),
        ),
    };
    let gradle = gradle.as_str();
    let Some((manifest_path, manifest)) = &module.manifest else {
        out.push(Finding::warning(
            "no app manifest: neither android/src/main/AndroidManifest.xml nor AndroidManifest.xml \
             beside Cargo.toml",
            "keep the Android app module in android/ (`cargo cetp new` writes one), with \
             src/main/AndroidManifest.xml (it may be just `<manifest />`)",
        ));
        return (notes, out);
    };
    let manifest_name = match manifest_path.strip_prefix(&app.dir) {
        Ok(inside) => inside.display().to_string(),
        Err(_) => Layout::shown(app, manifest_path),
    };
    // `"\${applicationId}.tools"` in the build file: the manifest merger puts the application
    // id (as written; a build type's suffix comes after it) in its place.
    let authority = module
        .placeholders
        .get("cetpAuthority")
        .cloned()
        .or_else(|| app.metadata("authority").map(str::to_owned))
        .map(|a| match &module.application_id {
            Some(id) => a.replace("${applicationId}", id),
            None => a,
        });
    let package = module.package(app);
    let per_variant = module.authority_tail.is_some()
        && module.placeholders.get("cetpAuthority").is_some_and(|a| {
            Some(a.as_str())
                == module
                    .application_id
                    .as_ref()
                    .zip(module.authority_tail.as_ref())
                    .map(|(id, tail)| format!("{id}{tail}"))
                    .as_deref()
        });
    match &authority {
        Some(authority) if per_variant => {
            let tail = module.authority_tail.as_deref().unwrap_or_default();
            notes.push(format!(
                "authority agents call: {authority} (each variant's application id + `{tail}`{})",
                module
                    .application_id_suffixes
                    .iter()
                    .map(|s| format!(
                        ", {}{s}{tail}",
                        module.application_id.as_deref().unwrap_or_default()
                    ))
                    .collect::<String>()
            ));
        }
        Some(authority) => {
            notes.push(format!("authority agents call: {authority}"));
            if !module.application_id_suffixes.is_empty() {
                out.push(Finding::error(
                    format!(
                        "{gradle} sets one authority, `{authority}`, for every variant, and some \
                         have an applicationIdSuffix ({}): two of them cannot be installed side \
                         by side (INSTALL_FAILED_CONFLICTING_PROVIDER)",
                        module.application_id_suffixes.join(", ")
                    ),
                    format!(
                        "take the authority from each variant's application id: remove \
                         `manifestPlaceholders[\"cetpAuthority\"]` and add, at the top level \
                         of {gradle}:\n{}",
                        gradle::AUTHORITY_FROM_APPLICATION_ID
                    ),
                ));
            }
        }
        None => out.push(Finding::warning(
            format!("{gradle} sets no `cetpAuthority`: the template's provider has no authority"),
            format!(
                "take it from each variant's application id: add, at the top level of \
                 {gradle}:\n{}",
                gradle::AUTHORITY_FROM_APPLICATION_ID
            ),
        )),
    }
    match module.placeholders.get("cetpLibrary") {
        Some(lib) if lib == &app.lib_name => {}
        Some(lib) => out.push(Finding::error(
            format!(
                "{gradle} names the library `{lib}`, but the crate builds lib{}.so: the \
                 template would not find it, and the provider would not load",
                app.lib_name
            ),
            format!(
                "set `manifestPlaceholders[\"cetpLibrary\"] = \"{}\"`",
                app.lib_name
            ),
        )),
        None if module.dir.is_some() => out.push(Finding::warning(
            format!(
                "{gradle} sets no `cetpLibrary`: the template does not know which library to load"
            ),
            format!(
                "add `manifestPlaceholders[\"cetpLibrary\"] = \"{}\"` under defaultConfig",
                app.lib_name
            ),
        )),
        None => {}
    }
    if package.is_none() {
        out.push(Finding::warning(
            "no application id: the build.gradle.kts has no `namespace` or `applicationId`, and \
             the manifest no `package`",
            format!(
                "set `namespace = \"com.example.{}\"` in {gradle}",
                label(&app.name)
            ),
        ));
    }
    if let Some(dir) = &module.dir {
        if !module.uses_template {
            out.push(Finding::warning(
                format!("{gradle} does not depend on the template module"),
                "add `dependencies { implementation(project(\":cetp\")) }`",
            ));
        }
        match &module.template_module {
            Some(TemplateModule::Dir(template))
                if template.join("src/main/AndroidManifest.xml").is_file() => {}
            Some(TemplateModule::FromCargo) if app.template.is_some() => {}
            Some(TemplateModule::FromCargo) => out.push(Finding::warning(
                format!(
                    "{settings} takes the `:cetp` module from the crate cetp-android-template, \
                     which `{}` does not resolve",
                    app.name
                ),
                "turn on cetp-provider's `jni` feature, which brings it: \
                 `cetp-provider = { version = \"…\", features = [\"jni\"] }`",
            )),
            Some(TemplateModule::Dir(template)) => out.push(Finding::warning(
                format!(
                    "{settings} points the `:cetp` module at {}, which holds no Android template",
                    template.display()
                ),
                "point `project(\":cetp\").projectDir` at the SDK's android-template directory",
            )),
            None => out.push(Finding::warning(
                format!("{settings} does not include the template module `:cetp`"),
                "run `cargo cetp init`: it adds the lines that include `:cetp` from the crate \
                 cetp-android-template, found by `cargo metadata`",
            )),
        }
        let root = module.layout.as_ref().map_or(dir, |layout| &layout.root);
        let crate_dir = module
            .properties
            .get("cetp.rustCrate")
            .map(|c| root.join(c));
        let same = |p: &PathBuf| p.canonicalize().ok() == app.dir.canonicalize().ok();
        let own_build = rust_build::find(root)
            .into_iter()
            .find(|b| b.builds(&app.dir, &app.lib_name));
        if let Some(build) = &own_build {
            notes.push(format!(
                "lib{}.so is built by {}, not by the template",
                app.lib_name,
                build.describe()
            ));
            if crate_dir.as_ref().is_some_and(same) {
                out.push(Finding::warning(
                    format!(
                        "{gradle_properties} sets `cetp.rustCrate` to this crate, which {} builds \
                         already: the template builds it a second time",
                        build.describe()
                    ),
                    "remove `cetp.rustCrate` from gradle.properties",
                ));
            }
        } else if !crate_dir.as_ref().is_some_and(same) {
            out.push(Finding::warning(
                format!(
                    "{gradle_properties} does not point `cetp.rustCrate` at this crate, so the \
                     template's cargoNdk task builds something else (or nothing)"
                ),
                format!(
                    "set `cetp.rustCrate={}` (relative to the Gradle root project)",
                    relative(&canonical(root), &canonical(&app.dir)).display()
                ),
            ));
        }
    }
    if module
        .properties
        .get("cetp.requireAccessToolsPermission")
        .is_some_and(|v| v.trim() == "true")
    {
        out.push(Finding::warning(
            format!(
                "permission mode: callers need {ACCESS_TOOLS} (gradle.properties). On a phone where \
                 no app declares it the platform refuses every call and agents never list the \
                 provider"
            ),
            "keep it only if the agents you target declare the permission; otherwise remove \
             `cetp.requireAccessToolsPermission=true` (the SDK's own authorization protects the data)",
        ));
    } else {
        notes.push(
            "permission mode: no Android permission required; the SDK's authorization decides \
             (android-template/README.md, \"The ACCESS_TOOLS permission\")"
                .to_owned(),
        );
    }
    for component in TEMPLATE_COMPONENTS {
        if manifest.contains(&format!("\"{component}\"")) {
            out.push(Finding::warning(
                format!("{manifest_name} declares {component}, which the template's manifest already declares"),
                format!("remove it from {manifest_name}; set the placeholders in {gradle} instead"),
            ));
        }
    }
    if manifest.contains("<permission") && manifest.contains(ACCESS_TOOLS) {
        out.push(Finding::warning(
            format!("{manifest_name} declares the permission {ACCESS_TOOLS}"),
            "remove the <permission>: a second app from another developer declaring it fails to \
             install (INSTALL_FAILED_DUPLICATE_PERMISSION)",
        ));
    }
    for name in placeholders_used(manifest) {
        let known = module.placeholders.contains_key(&name)
            || matches!(name.as_str(), "applicationId" | "cetpLibrary");
        if !known {
            out.push(Finding::warning(
                format!(
                    "{manifest_name} uses the placeholder ${{{name}}}, which {gradle} does not set"
                ),
                format!("add `manifestPlaceholders[\"{name}\"] = \"…\"` under defaultConfig"),
            ));
        }
    }
    match manifest.find("<application") {
        Some(start) => {
            let tag = &manifest[start
                ..manifest[start..]
                    .find('>')
                    .map_or(manifest.len(), |e| start + e)];
            if !tag.contains("android:supportsRtl=\"true\"") {
                out.push(Finding::warning(
                    format!(
                        "the <application> of {manifest_name} lacks android:supportsRtl=\"true\""
                    ),
                    "add it: the consent screens are laid out for right-to-left languages too",
                ));
            }
        }
        None => out.push(Finding::warning(
            format!(
                "{manifest_name} has no <application>, so nothing declares android:supportsRtl=\"true\" and the consent screens stay left to right in Arabic and Hebrew"
            ),
            "add `<application android:label=\"…\" android:supportsRtl=\"true\" />` inside <manifest>",
        )),
    }
    (notes, out)
}

/// `[profile.release] panic = "abort"` in the workspace's `Cargo.toml`: the SDK refuses to start.
pub(crate) fn lint_profile(app: &AppCrate) -> Option<Finding> {
    let manifest = app.workspace_root.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).ok()?;
    let mut in_release = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_release = line == "[profile.release]";
        } else if in_release && line.replace(' ', "").starts_with("panic=\"abort\"") {
            return Some(Finding::warning(
                format!(
                    "{} builds releases with panic = \"abort\": the SDK then refuses to start, \
                     because one failing tool would crash the app",
                    manifest.display()
                ),
                "use `panic = \"unwind\"` (Cargo's default) in [profile.release]",
            ));
        }
    }
    None
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// `recipes-app` → `recipes_app`, for package names.
pub(crate) fn label(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

fn properties(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#') && !l.starts_with('!'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

/// Where `settings.gradle(.kts)` takes `:cetp` from: `project(":cetp").projectDir =
/// file("…")` (the directory as written), or code that names the crate `cetp-android-template`.
pub(crate) fn template_module(text: &str) -> Option<TemplateModule> {
    let code: Vec<&str> = text.lines().map(strip_comment).collect();
    let dir = code.iter().find_map(|line| {
        let rest = line.split("project(\":cetp\").projectDir").nth(1)?;
        let inner = rest.split("file(").nth(1)?;
        string_literal(inner.split(')').next()?)
    });
    match dir {
        Some(dir) => Some(TemplateModule::Dir(PathBuf::from(dir))),
        None => code
            .iter()
            .any(|line| {
                line.contains(&format!("\"{TEMPLATE_CRATE}\""))
                    || line.contains(&format!("'{TEMPLATE_CRATE}'"))
            })
            .then_some(TemplateModule::FromCargo),
    }
}

fn placeholders_used(manifest: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = manifest;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        let name = after[..end].to_owned();
        if !out.contains(&name) {
            out.push(name);
        }
        rest = &after[end..];
    }
    out
}

/// The app's label, as the launcher shows it in the default language: `android:label` of the
/// app module's `<application>`, a literal or a `@string/` resource of `res/values/`.
pub(crate) fn app_label(module_dir: &Path) -> Option<String> {
    let label = application_attribute(module_dir, "android:label")?;
    let label = match label.strip_prefix("@string/") {
        None => label,
        Some(name) => {
            let values = module_dir.join("src/main/res/values");
            let mut files: Vec<PathBuf> = std::fs::read_dir(&values)
                .ok()?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "xml"))
                .collect();
            files.sort();
            files
                .iter()
                .filter_map(|f| std::fs::read_to_string(f).ok())
                .find_map(|text| string_resource(&text, name))?
        }
    };
    let label = label.trim().to_owned();
    (!label.is_empty()).then_some(label)
}

/// The attribute `name` of the `<application>` in the app module's manifest, as written.
pub(crate) fn application_attribute(module_dir: &Path, name: &str) -> Option<String> {
    let manifest = std::fs::read_to_string(module_dir.join("src/main/AndroidManifest.xml")).ok()?;
    let start = manifest.find("<application")?;
    let end = manifest[start..]
        .find('>')
        .map_or(manifest.len(), |e| start + e);
    let tag = manifest[start..end].replace(['\n', '\r', '\t'], " ");
    attribute(&tag, name)
}

/// The text of `<string name="name">` in a resource file, unescaped as aapt reads it (XML
/// entities, `\'`, `\"`, surrounding quotes).
fn string_resource(text: &str, name: &str) -> Option<String> {
    let open = format!("name=\"{name}\"");
    let mut rest = text;
    while let Some(at) = rest.find("<string") {
        rest = &rest[at + "<string".len()..];
        let tag_end = rest.find('>')?;
        if !rest[..tag_end].contains(&open) || rest[..tag_end].ends_with('/') {
            continue;
        }
        let body = &rest[tag_end + 1..];
        let body = &body[..body.find("</string>")?];
        let body = body.trim();
        let body = body
            .strip_prefix('"')
            .and_then(|b| b.strip_suffix('"'))
            .unwrap_or(body);
        return Some(
            body.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("\\'", "'")
                .replace("\\\"", "\"")
                .replace("&amp;", "&"),
        );
    }
    None
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = tag[start..].find('"')?;
    Some(tag[start..start + len].to_owned())
}

/// The path `from` takes to reach `to`, both absolute, as `../..`-style relative text.
pub(crate) fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for part in &to[common..] {
        out.push(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::android_build::app::ProviderSource;

    #[test]
    fn the_template_module_is_a_directory_or_the_crate_cargo_names() {
        assert_eq!(
            template_module(
                "include(\":cetp\")\nproject(\":cetp\").projectDir = file(\"../sdk/android-template\")\n"
            ),
            Some(TemplateModule::Dir(PathBuf::from(
                "../sdk/android-template"
            )))
        );
        let from_cargo = crate::template::fill(
            include_str!("../../templates/settings/template-module.gradle.kts.tmpl"),
            &[("manifest", "\"../Cargo.toml\"")],
        );
        assert_eq!(
            template_module(&from_cargo),
            Some(TemplateModule::FromCargo)
        );
        let groovy = crate::template::fill(
            include_str!("../../templates/settings/template-module.gradle.tmpl"),
            &[("manifest", "\"../Cargo.toml\"")],
        );
        assert_eq!(template_module(&groovy), Some(TemplateModule::FromCargo));
        // Named in a comment only, it is not there.
        assert_eq!(
            template_module("// include cetp from \"cetp-android-template\"\n"),
            None
        );
    }

    fn app(dir: &Path) -> AppCrate {
        AppCrate {
            name: "recipes".into(),
            lib_name: "recipes".into(),
            crate_types: vec!["cdylib".into(), "rlib".into()],
            dir: dir.to_path_buf(),
            manifest_path: dir.join("Cargo.toml"),
            workspace_root: dir.to_path_buf(),
            target_dir: dir.join("target"),
            provider: ProviderSource::Path(dir.join("sdk")),
            provider_dir: dir.join("sdk/cetp-provider"),
            template: None,
            metadata_cetp: Value::Null,
            android_module: None,
        }
    }

    fn write(dir: &Path, path: &str, text: &str) {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_wired_module_has_only_notes() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "Cargo.toml", "[package]\nname = \"recipes\"\n");
        write(
            d,
            "sdk/android-template/src/main/AndroidManifest.xml",
            "<manifest />",
        );
        write(
            d,
            "android/build.gradle.kts",
            "android {\n  namespace = \"com.example.recipes\" // id\n  defaultConfig {\n    manifestPlaceholders[\"cetpAuthority\"] = \"com.example.recipes.tools\"\n    manifestPlaceholders[\"cetpLibrary\"] = \"recipes\"\n  }\n}\ndependencies { implementation(project(\":cetp\")) }\n",
        );
        write(
            d,
            "android/settings.gradle.kts",
            "include(\":cetp\")\nproject(\":cetp\").projectDir = file(\"../sdk/android-template\")\n",
        );
        write(d, "android/gradle.properties", "cetp.rustCrate=..\n");
        // A manifest without <application> declares no right-to-left support.
        write(d, "android/src/main/AndroidManifest.xml", "<manifest />\n");
        let module = AndroidModule::read(&app(d));
        let (_, findings) = lint(&app(d), &module);
        assert_eq!(findings.len(), 1, "{findings:#?}");
        assert!(format!("{findings:?}").contains("has no <application>"));
        write(
            d,
            "android/src/main/AndroidManifest.xml",
            "<manifest><application android:label=\"Recipes\" android:supportsRtl=\"true\" /></manifest>\n",
        );
        let module = AndroidModule::read(&app(d));
        assert_eq!(
            module.package(&app(d)).as_deref(),
            Some("com.example.recipes")
        );
        let (notes, findings) = lint(&app(d), &module);
        assert!(findings.is_empty(), "{findings:#?}");
        assert!(notes[0].contains("com.example.recipes.tools"));
        assert!(notes[1].starts_with("permission mode: no Android permission required"));
    }

    #[test]
    fn a_crate_the_project_builds_itself_needs_no_rust_crate_property() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "Cargo.toml", "[package]\nname = \"recipes\"\n");
        write(d, "android/src/main/AndroidManifest.xml", "<manifest />\n");
        write(
            d,
            "android/build.gradle.kts",
            "android { namespace = \"com.example.recipes\" }\n",
        );
        write(d, "android/settings.gradle.kts", "include(\":core\")\n");
        write(
            d,
            "android/core/build.gradle.kts",
            "cargoNdk {\n    module = \"../..\"\n    librariesNames = arrayListOf(\"librecipes.so\")\n}\n",
        );
        let advice = |d: &Path| {
            let (notes, findings) = lint(&app(d), &AndroidModule::read(&app(d)));
            let rust_crate: Vec<String> = findings
                .iter()
                .map(ToString::to_string)
                .filter(|f| f.contains("cetp.rustCrate"))
                .collect();
            (notes, rust_crate)
        };
        let (notes, findings) = advice(d);
        assert!(findings.is_empty(), "{findings:#?}");
        assert!(
            notes.iter().any(|n| n
                .contains("librecipes.so is built by the cargo-ndk Gradle plugin")
                && n.contains(":core")),
            "{notes:#?}"
        );
        write(d, "android/gradle.properties", "cetp.rustCrate=..\n");
        let (_, findings) = advice(d);
        assert_eq!(findings.len(), 1, "{findings:#?}");
        assert!(findings[0].contains("a second time"), "{findings:#?}");
        // Without that build, the property is what builds the crate.
        write(d, "android/core/build.gradle.kts", "plugins { }\n");
        write(d, "android/gradle.properties", "\n");
        let (_, findings) = advice(d);
        assert!(
            findings[0].contains("does not point `cetp.rustCrate` at this crate"),
            "{findings:#?}"
        );
    }

    #[test]
    fn the_app_label_comes_from_its_string_resource() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(
            d,
            "src/main/AndroidManifest.xml",
            "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\">\n  <application\n      android:name=\".JournalApp\"\n      android:label=\"@string/app_name\"\n      android:theme=\"@style/Theme.Journal.Starting\">\n    <activity android:label=\"@string/title_main\" />\n  </application>\n</manifest>\n",
        );
        write(
            d,
            "src/main/res/values/strings.xml",
            "<resources>\n    <string name=\"app_name_short\">J</string>\n    <string name=\"app_name\" translatable=\"false\">Tom\\'s Journal &amp; Notes</string>\n</resources>\n",
        );
        assert_eq!(app_label(d).as_deref(), Some("Tom's Journal & Notes"));
        write(
            d,
            "src/main/AndroidManifest.xml",
            "<manifest><application android:label=\"Shelf\"/></manifest>",
        );
        assert_eq!(app_label(d).as_deref(), Some("Shelf"));
        write(
            d,
            "src/main/AndroidManifest.xml",
            "<manifest><application/></manifest>",
        );
        assert_eq!(app_label(d), None);
    }

    #[test]
    fn one_authority_for_variants_with_suffixes_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "android/src/main/AndroidManifest.xml", "<manifest />\n");
        let suffixed = "android {\n  namespace = \"com.journal\"\n  buildTypes {\n    debug {\n      applicationIdSuffix = \".debug\"\n    }\n  }\n}\n";
        write(
            d,
            "android/build.gradle.kts",
            &format!(
                "{suffixed}android {{ defaultConfig {{ manifestPlaceholders[\"cetpAuthority\"] = \"com.journal.tools\" }} }}\n"
            ),
        );
        let (_, findings) = lint(&app(d), &AndroidModule::read(&app(d)));
        let side_by_side = |findings: &[Finding]| {
            findings
                .iter()
                .find(|f| {
                    f.to_string()
                        .contains("INSTALL_FAILED_CONFLICTING_PROVIDER")
                })
                .cloned()
        };
        let finding = side_by_side(&findings).expect("the conflict is found");
        assert!(finding.error, "{finding}");
        assert!(
            finding.to_string().contains("variant.applicationId"),
            "{finding}"
        );

        write(
            d,
            "android/build.gradle.kts",
            &format!("{suffixed}{}\n", gradle::AUTHORITY_FROM_APPLICATION_ID),
        );
        let module = AndroidModule::read(&app(d));
        let (notes, findings) = lint(&app(d), &module);
        assert!(side_by_side(&findings).is_none(), "{findings:#?}");
        assert!(
            notes[0].contains("com.journal.tools") && notes[0].contains("com.journal.debug.tools"),
            "{notes:?}"
        );
    }

    #[test]
    fn mistakes_in_the_module_are_findings_with_fixes() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(
            d,
            "android/build.gradle.kts",
            "android { defaultConfig { manifestPlaceholders[\"cetpLibrary\"] = \"recipe\" } }\n",
        );
        write(
            d,
            "android/gradle.properties",
            "cetp.rustCrate=../elsewhere\ncetp.requireAccessToolsPermission=true\n",
        );
        write(
            d,
            "android/src/main/AndroidManifest.xml",
            "<manifest package=\"com.x\"><permission android:name=\"com.clawseed.permission.ACCESS_TOOLS\"/>\
             <application><provider android:name=\"dev.cetp.CetpToolProvider\" android:authorities=\"${auth}\"/></application></manifest>",
        );
        let (_, findings) = lint(&app(d), &AndroidModule::read(&app(d)));
        let text: Vec<String> = findings.iter().map(ToString::to_string).collect();
        let all = text.join("\n");
        for expected in [
            "sets no `cetpAuthority`",
            "names the library `recipe`, but the crate builds librecipes.so",
            "does not depend on the template module",
            "does not include the template module",
            "does not point `cetp.rustCrate` at this crate",
            "permission mode: callers need com.clawseed.permission.ACCESS_TOOLS",
            "declares dev.cetp.CetpToolProvider, which the template's manifest already declares",
            "INSTALL_FAILED_DUPLICATE_PERMISSION",
            "uses the placeholder ${auth}",
            "lacks android:supportsRtl",
        ] {
            assert!(all.contains(expected), "missing `{expected}` in:\n{all}");
        }
        // A library the crate does not build is an error: the provider would not load.
        let errors: Vec<&Finding> = findings.iter().filter(|f| f.error).collect();
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert!(errors[0].to_string().contains("names the library `recipe`"));
    }

    #[test]
    fn relative_paths_climb_and_descend() {
        assert_eq!(
            relative(
                Path::new("/a/b/app/android"),
                Path::new("/a/sdk/android-template")
            ),
            PathBuf::from("../../../sdk/android-template")
        );
    }
}
