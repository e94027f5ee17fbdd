//! `cargo xtask host-build <crate-dir> [--release]`: the host bundle the JVM suite loads.
//!
//! Output, in `target/cetp-host/<dir-name>/` (with `--release`: `target/cetp-host-release/<dir-name>/`,
//! the native library built with the release profile, as `cargo xtask bench` measures it; the
//! debug bundle the suite reads stays untouched):
//! - `lib<lib>.so`: the crate built for the host as a `cdylib`;
//! - `resources.ap_`: the template's `res/` and the app's (`android/src/main/res`, plus the
//!   `resValue(...)` lines of its Gradle file) compiled by Android's resource compiler (`aapt`,
//!   installed when missing) against the framework resources, with the binary manifest;
//! - `app.jar`: the Android template's Java, the Java the AIDL compiler (`aidl`, installed when
//!   missing) generates from the template's `src/main/aidl`, the app's own Java and the `R`
//!   classes aapt wrote (`dev.cetp.R` and the app's), compiled with `javac --release 17` against
//!   `org.robolectric:android-all`; and `com/android/tools/test_config.properties`, which puts
//!   Robolectric in binary-resources mode on `resources.ap_` (the installed app is then the test
//!   application);
//! - `AndroidManifest.xml`: the app's manifest with the template's components merged in and the
//!   placeholders and boolean resources resolved (what the suite's `ManifestInstaller` reads).
//!
//! See `docs/host-bundle.md` for the crate layout it expects.
//!
//! Placeholders come from the app module's `android/build.gradle.kts`
//! (`manifestPlaceholders["..."] = "..."`, `namespace`/`applicationId`) and can be set or
//! overridden under `[package.metadata.cetp]` in `Cargo.toml` (`authority`, `application-id`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::gradle::ResValue;
use crate::util::{self, workspace_root};
use crate::{gradle, manifest, resources};

pub fn run(args: &[String]) -> Result<(), String> {
    let mut release = false;
    let mut dir = None;
    for arg in args {
        match arg.as_str() {
            "--release" => release = true,
            flag if flag.starts_with('-') => return Err(format!("unknown flag `{flag}`")),
            path if dir.is_none() => dir = Some(path.to_owned()),
            extra => return Err(format!("unexpected argument `{extra}`")),
        }
    }
    let dir = dir.ok_or("usage: cargo xtask host-build <crate-dir> [--release]")?;
    let crate_dir = resolve_dir(&dir)?;
    let bundle = build(&crate_dir, release)?;
    eprintln!("xtask: host bundle ready in {}", bundle.display());
    Ok(())
}

/// The crate directory, relative to the current directory or to the workspace root.
pub fn resolve_dir(dir: &str) -> Result<PathBuf, String> {
    let candidates = [PathBuf::from(dir), workspace_root().join(dir)];
    candidates
        .into_iter()
        .find(|c| c.join("Cargo.toml").is_file())
        .map(|c| c.canonicalize().unwrap_or(c))
        .ok_or_else(|| format!("`{dir}` is not a crate directory (no Cargo.toml)"))
}

/// What host-build reads from the crate.
struct App {
    package: String,
    lib_name: String,
    bundle_name: String,
    manifest: PathBuf,
    java: Option<PathBuf>,
    /// The app's own resources (`android/src/main/res`), merged over the template's.
    res: Option<PathBuf>,
    /// The resources AGP would generate (`resValue(...)`, `[package.metadata.cetp]` serve-*),
    /// merged over the app's.
    res_values: Vec<ResValue>,
    /// The module's `minSdk` / `targetSdk`, for a manifest without `<uses-sdk>`.
    min_sdk: Option<u32>,
    target_sdk: Option<u32>,
    placeholders: BTreeMap<String, String>,
    /// Boolean resources the manifest may use (`@bool/…`): the template's `res/values`, then
    /// the app's, then Gradle `resValue("bool", …)`, then `[package.metadata.cetp]`.
    bools: BTreeMap<String, String>,
    /// From `[package.metadata.cetp] application-id` or the Gradle `applicationId`/`namespace`;
    /// used when the app manifest has no `package` attribute.
    application_id: Option<String>,
}

fn inspect(crate_dir: &Path) -> Result<App, String> {
    let cargo_toml = crate_dir.join("Cargo.toml");
    let crate::package::Package {
        name: package,
        lib_name,
        mut cetp,
    } = crate::package::read(crate_dir)?;

    let android = crate_dir.join("android/src/main");
    let manifest = [
        android.join("AndroidManifest.xml"),
        crate_dir.join("AndroidManifest.xml"),
    ]
    .into_iter()
    .find(|m| m.is_file())
    .ok_or_else(|| {
        format!(
            "no app manifest: expected {} or {}",
            android.join("AndroidManifest.xml").display(),
            crate_dir.join("AndroidManifest.xml").display()
        )
    })?;
    let java = Some(android.join("java")).filter(|j| j.is_dir());
    let res = Some(android.join("res")).filter(|r| r.is_dir());
    let bundle_name = crate_dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or("the crate directory has no UTF-8 name")?
        .to_owned();

    // Placeholders and application id: the app module's build.gradle.kts, overridden by
    // [package.metadata.cetp] in Cargo.toml.
    let gradle_file = crate_dir.join("android/build.gradle.kts");
    let gradle = match fs::read_to_string(&gradle_file) {
        Ok(text) => gradle::parse(&text),
        Err(_) => gradle::GradleApp::default(),
    };
    let mut placeholders = gradle.placeholders;
    if let Some(authority) = cetp.remove("authority") {
        placeholders.insert("cetpAuthority".to_owned(), authority);
    }
    if !placeholders.contains_key("cetpAuthority") {
        return Err(format!(
            "no provider authority: set manifestPlaceholders[\"cetpAuthority\"] in {} or, in {}:\n\n[package.metadata.cetp]\nauthority = \"com.example.app.clawseed.tools\"\n",
            gradle_file.display(),
            cargo_toml.display()
        ));
    }
    if let Some(declared) = placeholders.get("cetpLibrary").filter(|l| **l != lib_name) {
        return Err(format!(
            "{} sets cetpLibrary = \"{declared}\" but the crate's library is lib{lib_name}.so",
            gradle_file.display()
        ));
    }
    placeholders.insert("cetpLibrary".to_owned(), lib_name.clone());
    // What the template's build.gradle.kts derives from gradle.properties.
    let gradle_properties =
        fs::read_to_string(crate_dir.join("android/gradle.properties")).unwrap_or_default();
    placeholders.insert(
        "cetpProviderPermission".to_owned(),
        provider_permission(&gradle_properties).to_owned(),
    );
    let application_id = cetp.remove("application-id").or(gradle.application_id);
    let mut bools = BTreeMap::new();
    for values in [
        workspace_root().join("android-template/src/main/res/values"),
        android.join("res/values"),
    ] {
        let mut files = Vec::new();
        if values.is_dir() {
            util::collect_files(&values, "xml", &mut files)?;
        }
        files.sort();
        for file in files {
            let text = fs::read_to_string(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            bools.extend(manifest::bool_resources(&text));
        }
    }
    bools.extend(gradle.bools);
    let mut res_values = gradle.res_values;
    for (key, resource) in [
        ("serve-cetp", "cetp_serve_cetp"),
        ("serve-apex", "cetp_serve_apex"),
    ] {
        if let Some(value) = cetp.remove(key) {
            bools.insert(resource.to_owned(), value.clone());
            res_values.push(ResValue {
                kind: "bool".to_owned(),
                name: resource.to_owned(),
                value,
            });
        }
    }
    // A later line for the same resource wins (one values file may define it only once).
    let mut unique: Vec<ResValue> = Vec::new();
    for value in res_values {
        unique.retain(|v| !(v.kind == value.kind && v.name == value.name));
        unique.push(value);
    }
    Ok(App {
        package,
        lib_name,
        bundle_name,
        manifest,
        java,
        res,
        res_values: unique,
        min_sdk: gradle.min_sdk,
        target_sdk: gradle.target_sdk,
        placeholders,
        bools,
        application_id,
    })
}

/// The permission the provider requires (`android:permission`, `${cetpProviderPermission}`):
/// none unless `gradle.properties` opts in with `cetp.requireAccessToolsPermission=true`, as the
/// template's `build.gradle.kts` decides on a device build.
fn provider_permission(gradle_properties: &str) -> &'static str {
    let opted_in = gradle_properties.lines().any(|line| {
        line.split_once('=').is_some_and(|(key, value)| {
            key.trim() == "cetp.requireAccessToolsPermission" && value.trim() == "true"
        })
    });
    if opted_in {
        "com.clawseed.permission.ACCESS_TOOLS"
    } else {
        ""
    }
}

/// Where bundles go: `target/cetp-host` (debug) or `target/cetp-host-release`.
pub fn bundle_root(release: bool) -> PathBuf {
    workspace_root().join("target").join(if release {
        "cetp-host-release"
    } else {
        "cetp-host"
    })
}

/// Builds the bundle of the crate in `crate_dir`; returns its directory.
pub fn build(crate_dir: &Path, release: bool) -> Result<PathBuf, String> {
    let mut app = inspect(crate_dir)?;
    let root = workspace_root();

    // 1. The Rust library, as a host cdylib whatever crate-type the crate declares.
    let mut cargo = util::cargo();
    cargo.args([
        "rustc",
        "-p",
        &app.package,
        "--lib",
        "--crate-type",
        "cdylib",
    ]);
    if release {
        cargo.arg("--release");
    }
    util::run(&mut cargo)?;
    let so_name = format!("lib{}.so", app.lib_name);
    let so = util::cargo_target_dir()
        .join(if release { "release" } else { "debug" })
        .join(&so_name);
    if !so.is_file() {
        return Err(format!("cargo did not produce {}", so.display()));
    }

    // 2. The merged manifest.
    let template_manifest = root.join("android-template/src/main/AndroidManifest.xml");
    let template = fs::read_to_string(&template_manifest)
        .map_err(|e| format!("cannot read {}: {e}", template_manifest.display()))?;
    let app_manifest = fs::read_to_string(&app.manifest)
        .map_err(|e| format!("cannot read {}: {e}", app.manifest.display()))?;
    let package = manifest::package_name(&app_manifest)
        .or(app.application_id.clone())
        .ok_or_else(|| {
            format!(
                "no application id: give <manifest> in {} a package attribute, or set namespace/applicationId in android/build.gradle.kts, or application-id under [package.metadata.cetp]",
                app.manifest.display()
            )
        })?;
    app.placeholders
        .insert("applicationId".to_owned(), package.clone());
    let merged = manifest::merge(&template, &app_manifest, &app.placeholders)?;
    let merged = manifest::with_package(&merged, &package)?;
    let merged = manifest::with_uses_sdk(&merged, app.min_sdk, app.target_sdk)?;
    // The text copy for the suite's ManifestInstaller has the boolean resources resolved; aapt
    // resolves them itself in the binary one.
    let text_manifest = manifest::resolve_bools(&merged, &app.bools)?;

    // 3. The resources: generated values over the app's res/ over the template's.
    let host_dir = bundle_root(release);
    let work = host_dir.join(".build").join(&app.bundle_name);
    let generated = work.join("generated-res");
    if generated.exists() {
        fs::remove_dir_all(&generated)
            .map_err(|e| format!("cannot clean {}: {e}", generated.display()))?;
    }
    let mut res_dirs = Vec::new();
    if !app.res_values.is_empty() {
        let values = generated.join("values");
        fs::create_dir_all(&values)
            .map_err(|e| format!("cannot create {}: {e}", values.display()))?;
        fs::write(
            values.join("gradle_res_values.xml"),
            resources::res_values_xml(&app.res_values),
        )
        .map_err(|e| format!("cannot write the generated resources: {e}"))?;
        res_dirs.push(generated.clone());
    }
    res_dirs.extend(app.res.clone());
    res_dirs.push(resources::template_res());
    let resource_package = work.join("resources.ap_");
    let r_java = resources::compile(&resources::Compile {
        manifest: &merged,
        res_dirs: &res_dirs,
        extra_packages: &[resources::TEMPLATE_PACKAGE],
        library: false,
        work: &work.join("aapt"),
        package: Some(&resource_package),
    })?;

    // 4. The Java: template + app + R, against the Android API surface.
    let android_all = util::android_all_jar()?;
    let classes = work.join("classes");
    if classes.exists() {
        fs::remove_dir_all(&classes)
            .map_err(|e| format!("cannot clean {}: {e}", classes.display()))?;
    }
    // The Apex plugin interface's Stub/Proxy, generated by the real AIDL compiler.
    let aidl_java = util::generate_aidl_java(&work.join("aidl"))?;
    let mut sources = vec![
        root.join("android-template/src/main/java"),
        aidl_java,
        r_java,
    ];
    sources.extend(app.java.clone());
    util::javac(&sources, &android_all, &classes, false)?;

    // 5. The bundle, replacing any previous one (a stale lib*.so would confuse the suite).
    let bundle = host_dir.join(&app.bundle_name);
    let bundle_manifest = bundle.join("AndroidManifest.xml");
    let bundle_resources = bundle.join("resources.ap_");
    let test_config = classes.join(resources::TEST_CONFIG_PATH);
    if let Some(parent) = test_config.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    fs::write(
        &test_config,
        resources::test_config_properties(&bundle_manifest, &bundle_resources, &package),
    )
    .map_err(|e| format!("cannot write {}: {e}", test_config.display()))?;
    if bundle.exists() {
        fs::remove_dir_all(&bundle)
            .map_err(|e| format!("cannot clean {}: {e}", bundle.display()))?;
    }
    fs::create_dir_all(&bundle).map_err(|e| format!("cannot create {}: {e}", bundle.display()))?;
    let mut jar = util::jdk_tool("jar");
    jar.arg("--create")
        .arg("--file")
        .arg(bundle.join("app.jar"))
        .arg("-C")
        .arg(&classes)
        .arg(".");
    util::run(&mut jar)?;
    fs::copy(&so, bundle.join(&so_name))
        .map_err(|e| format!("cannot copy {}: {e}", so.display()))?;
    fs::copy(&resource_package, &bundle_resources)
        .map_err(|e| format!("cannot copy {}: {e}", resource_package.display()))?;
    fs::write(&bundle_manifest, text_manifest)
        .map_err(|e| format!("cannot write the manifest: {e}"))?;
    eprintln!(
        "xtask: {} ({package}): {so_name}, app.jar, resources.ap_, AndroidManifest.xml",
        app.bundle_name
    );
    Ok(bundle)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = include_str!("../../android-template/src/main/AndroidManifest.xml");

    fn merged_provider(gradle_properties: &str) -> String {
        let placeholders: BTreeMap<String, String> = [
            ("cetpAuthority", "com.x.tools"),
            ("cetpLibrary", "x"),
            ("applicationId", "com.x"),
            (
                "cetpProviderPermission",
                provider_permission(gradle_properties),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let merged = manifest::merge(
            TEMPLATE,
            r#"<manifest package="com.x"><application /></manifest>"#,
            &placeholders,
        )
        .unwrap();
        let start = merged.find("<provider").unwrap();
        let end = start + merged[start..].find('>').unwrap();
        merged[start..end].to_owned()
    }

    #[test]
    fn the_provider_requires_no_permission_by_default() {
        for props in [
            "",
            "cetp.rustCrate=rust\n",
            "cetp.requireAccessToolsPermission=false\n",
        ] {
            let provider = merged_provider(props);
            assert!(
                provider.contains(r#"android:permission="""#),
                "{props:?}: {provider}"
            );
        }
    }

    #[test]
    fn one_gradle_property_requires_access_tools() {
        let provider =
            merged_provider("cetp.rustCrate=rust\ncetp.requireAccessToolsPermission = true\n");
        assert!(
            provider.contains(r#"android:permission="com.clawseed.permission.ACCESS_TOOLS""#),
            "{provider}"
        );
    }
}
