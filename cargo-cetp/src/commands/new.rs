//! `cargo cetp new`: an app crate and its Android wiring in one layout, the one the samples and
//! the host bundles use: the Rust crate at the root, the Android app module in `android/`.
//!
//! ```text
//! <dir>/
//!   Cargo.toml                  cdylib + rlib, cetp-provider (feature jni), serde, schemars
//!   src/lib.rs                  one tool reading provider state, the provider, export_provider!
//!   tests/provider.rs           conformance, approval, a call, INVALID_ARGS (cetp_provider::testing)
//!   android/build.gradle.kts    the app module: namespace, the two placeholders, the template
//!   android/settings.gradle.kts the template module `:cetp`
//!   android/gradle.properties   cetp.rustCrate=..
//!   android/src/main/AndroidManifest.xml   the app, its launcher Activity
//!   android/src/main/kotlin/<package>/MainActivity.kt
//!                               the launcher Activity (Android Studio's Run needs one)
//!   android/src/test/java/<package>/ProviderTest.java
//!                               the provider on Robolectric through the test kit (`cargo cetp test`)
//!   README.md, .gitignore
//! ```

use std::path::{Path, PathBuf};

use crate::android_build::android::{label, relative};
use crate::android_build::app::toml_string;
use crate::android_build::robolectric::KOTLIN_VERSION;
use crate::cli::{NewOptions, SdkSource};
use crate::template::fill;
use crate::{Error, Result};

/// The serde requirement new apps get: the SDK's own (its workspace `Cargo.toml`; a test keeps
/// the two equal).
pub(crate) const SERDE_VERSION: &str = "1.0.219";
/// The schemars requirement new apps get: the major version the SDK derives schemas with.
pub(crate) const SCHEMARS_VERSION: &str = "1.0.4";
/// The serde_json requirement of new apps' tests.
pub(crate) const SERDE_JSON_VERSION: &str = "1.0.140";
/// The tempfile requirement of new apps' tests.
pub(crate) const TEMPFILE_VERSION: &str = "3.20";
/// The Android NDK new apps build with (`cetp.ndkVersion`): r29, which links 16 KB
/// page-aligned libraries. The template's default (a test keeps the two equal).
pub(crate) const NDK_VERSION: &str = "29.0.14206865";
/// The API level new apps compile against and target: Android 16, what Google Play requires.
pub(crate) const TARGET_SDK: u32 = 36;
/// The Android Gradle plugin new apps use (the first versions to support API 36 are 8.9.1+).
pub(crate) const AGP_VERSION: &str = "8.13.2";

/// Libraries of Android itself (the NDK's stable APIs and system libraries an app can
/// load by name): `System.loadLibrary` of an app library with one of these names finds the
/// platform's.
const PLATFORM_LIBRARIES: &[&str] = &[
    "aaudio",
    "amidi",
    "android",
    "binder",
    "binder_ndk",
    "c",
    "c++",
    "c++_shared",
    "camera2ndk",
    "crypto",
    "cutils",
    "dl",
    "egl",
    "gles_cm",
    "glesv1_cm",
    "glesv2",
    "glesv3",
    "icu",
    "icuuc",
    "icui18n",
    "jnigraphics",
    "log",
    "m",
    "media",
    "mediandk",
    "nativehelper",
    "nativewindow",
    "neuralnetworks",
    "openmaxal",
    "opensles",
    "rs",
    "sqlite",
    "ssl",
    "stdc++",
    "sync",
    "ui",
    "utils",
    "vulkan",
    "webviewchromium",
    "z",
];

/// Whether `lib<lib_name>.so` is a library of Android itself ([`PLATFORM_LIBRARIES`], any
/// case).
pub(crate) fn is_platform_library(lib_name: &str) -> bool {
    PLATFORM_LIBRARIES
        .iter()
        .any(|p| p.eq_ignore_ascii_case(lib_name))
}

/// What a new app is called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Names {
    /// The crate name (`recipes-app`).
    pub crate_name: String,
    /// The library name (`recipes_app`, `librecipes_app.so`).
    pub lib_name: String,
    /// The provider's name, for people (`Recipes app`).
    pub title: String,
    /// The Android application id (`com.example.recipes_app`).
    pub package: String,
}

impl Names {
    /// The names for `options`.
    ///
    /// # Errors
    /// [`Error::Usage`] for a crate name or application id Cargo or Android would refuse.
    pub(crate) fn of(options: &NewOptions) -> Result<Self> {
        let crate_name = match &options.name {
            Some(name) => name.clone(),
            None => options
                .dir
                .file_name()
                .and_then(|n| n.to_str())
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "cannot take a crate name from {}; pass `--name <name>`",
                        options.dir.display()
                    ))
                })?
                .to_owned(),
        };
        let valid = crate_name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && crate_name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            return Err(Error::Usage(format!(
                "`{crate_name}` is not a crate name: use ASCII letters, digits, `-` and `_`, \
                 starting with a letter (`--name recipes`)"
            )));
        }
        if is_platform_library(&crate_name.replace('-', "_")) {
            return Err(Error::Usage(format!(
                "`{crate_name}` would build lib{}.so, the name of a library of Android itself: the \
                 app would load the platform's instead of its own. Choose another name (`--name \
                 {crate_name}-tools`)",
                crate_name.replace('-', "_")
            )));
        }
        let package = options
            .package
            .clone()
            .unwrap_or_else(|| format!("com.example.{}", label(&crate_name)));
        let segments: Vec<&str> = package.split('.').collect();
        let valid = segments.len() >= 2
            && segments.iter().all(|s| {
                s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
        if !valid {
            return Err(Error::Usage(format!(
                "`{package}` is not an Android application id: two or more dot-separated parts, \
                 each a letter then letters, digits or `_` (`--package com.example.recipes`)"
            )));
        }
        let words = crate_name.replace(['-', '_'], " ");
        let mut chars = words.trim().chars();
        let title = chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default();
        Ok(Names {
            lib_name: crate_name.replace('-', "_"),
            crate_name,
            title,
            package,
        })
    }
}

/// How a crate in `crate_dir` depends on the SDK's `cetp-provider`, without features: `version
/// = "…"`, `path = "…"` (relative, so that the crate and the checkout can move together) or
/// `git = "…"[, rev = "…"]`.
///
/// # Errors
/// [`Error::App`] when `--sdk-path` holds no `cetp-provider`.
pub(crate) fn sdk_dependency(sdk: &SdkSource, crate_dir: &Path) -> Result<String> {
    Ok(match sdk {
        SdkSource::Registry { version } => format!("version = {}", toml_string(version)),
        SdkSource::Path(sdk) => {
            let sdk = sdk.canonicalize().map_err(Error::io(sdk))?;
            let provider = sdk.join("cetp-provider");
            if !provider.join("Cargo.toml").is_file() {
                return Err(Error::App(format!(
                    "{} has no cetp-provider/Cargo.toml: `--sdk-path` names the SDK checkout \
                     (the directory holding cetp-provider/ and android-template/)",
                    sdk.display()
                )));
            }
            let provider = relative(crate_dir, &provider);
            format!("path = {}", toml_string(&provider.to_string_lossy()))
        }
        SdkSource::Git { url, rev } => {
            let rev = rev
                .as_ref()
                .map(|r| format!(", rev = {}", toml_string(r)))
                .unwrap_or_default();
            format!("git = {}{rev}", toml_string(url))
        }
    })
}

/// The lines of `settings.gradle.kts` in `settings_dir` that include the SDK's Android template
/// as the module `:cetp`, for the app crate of `crate_manifest`:
///
/// - the SDK by version: the module inside the crate `cetp-android-template` the crate resolves,
///   found by `cargo metadata` when Gradle reads its settings (nothing on disk is named but the
///   app's own crate);
/// - by path (SDK development): the checkout's `android-template/`, relative;
/// - by git: a checkout of the repository at the revision the crate names (a submodule, say).
///
/// In the Kotlin DSL (`settings.gradle.kts`) or Groovy (`settings.gradle`), as `kotlin` says.
///
/// # Errors
/// [`Error::Io`] when `--sdk-path` does not exist.
pub(crate) fn template_module_lines(
    sdk: &SdkSource,
    settings_dir: &Path,
    crate_manifest: &Path,
    kotlin: bool,
) -> Result<String> {
    Ok(match sdk {
        SdkSource::Registry { .. } => {
            let manifest = relative(settings_dir, crate_manifest);
            let template = if kotlin {
                include_str!("../../templates/settings/template-module.gradle.kts.tmpl")
            } else {
                include_str!("../../templates/settings/template-module.gradle.tmpl")
            };
            fill(
                template,
                &[("manifest", &toml_string(&manifest.to_string_lossy()))],
            )
        }
        SdkSource::Path(sdk) => {
            let sdk = sdk.canonicalize().map_err(Error::io(sdk))?;
            // Relative, so that the app and the SDK checkout can move together.
            let template = relative(settings_dir, &sdk.join("android-template"));
            format!(
                "// The CETP tool provider's Android module: the template of the cetp-rs checkout.\n\
                 include(\":cetp\")\nproject(\":cetp\").projectDir = file({})\n",
                toml_string(&template.to_string_lossy())
            )
        }
        SdkSource::Git { url, .. } => format!(
            "// The CETP tool provider's Android module, from a checkout of {url} (a git \
             submodule, say)\n// at the revision Cargo.toml names.\n\
             include(\":cetp\")\n\
             project(\":cetp\").projectDir = file(\"../third_party/cetp-rs/android-template\")\n"
        ),
    })
}

/// The provider's source: one example tool over provider state, the provider (named `title`)
/// and `export` (the `export_provider!` line), with `doc` as its first doc line and
/// `schemars_use` bringing `JsonSchema` into scope. The library of `new`; the module `init`
/// adds to a crate the project has.
pub(crate) fn provider_module(title: &str, doc: &str, schemars_use: &str, export: &str) -> String {
    // In Rust string literals.
    let title = &title.replace('\\', "\\\\").replace('"', "\\\"");
    fill(
        include_str!("../../templates/new/lib.rs.tmpl"),
        &[
            ("title", title),
            ("doc", doc),
            ("schemars_use", schemars_use),
            ("export", export),
        ],
    )
}

/// The provider's integration test, for the app `package` whose build function is
/// `provider_fn` (`recipes::provider`).
pub(crate) fn provider_test(package: &str, provider_fn: &str) -> String {
    fill(
        include_str!("../../templates/new/provider.rs.tmpl"),
        &[("package", package), ("provider_fn", provider_fn)],
    )
}

/// Every file of the new app, as `(path relative to the app, text)`.
///
/// # Errors
/// [`Error::App`] when `--sdk-path` holds no `cetp-provider`.
pub(crate) fn files(options: &NewOptions, app_dir: &Path) -> Result<Vec<(PathBuf, String)>> {
    let names = Names::of(options)?;
    let dependency = sdk_dependency(&options.sdk, app_dir)?;
    let template = template_module_lines(
        &options.sdk,
        &app_dir.join("android"),
        &app_dir.join("Cargo.toml"),
        true,
    )?;
    let Names {
        crate_name,
        lib_name,
        title,
        package,
    } = &names;
    let cargo = fill(
        include_str!("../../templates/new/Cargo.toml.tmpl"),
        &[
            ("crate_name", crate_name),
            ("lib_name", lib_name),
            ("dependency", &dependency),
            ("SERDE_VERSION", SERDE_VERSION),
            ("SCHEMARS_VERSION", SCHEMARS_VERSION),
            ("SERDE_JSON_VERSION", SERDE_JSON_VERSION),
            ("TEMPFILE_VERSION", TEMPFILE_VERSION),
        ],
    );
    let lib = provider_module(
        title,
        &format!(
            "{title}: the app's data as read-only tools for on-device AI agents (CETP). See README.md."
        ),
        "use schemars::JsonSchema;",
        "cetp_provider::export_provider!(provider);",
    );
    let test = provider_test(package, &format!("{lib_name}::provider"));
    let gradle = fill(
        include_str!("../../templates/new/build.gradle.kts.tmpl"),
        &[
            ("title", title),
            ("AGP_VERSION", AGP_VERSION),
            ("KOTLIN_VERSION", KOTLIN_VERSION),
            ("package", package),
            ("TARGET_SDK", &TARGET_SDK.to_string()),
            ("lib_name", lib_name),
            (
                "authority_block",
                crate::android_build::bundle::gradle::AUTHORITY_FROM_APPLICATION_ID,
            ),
        ],
    );
    let settings = fill(
        include_str!("../../templates/new/settings.gradle.kts.tmpl"),
        &[("template", &template)],
    );
    let properties = fill(
        include_str!("../../templates/new/gradle.properties.tmpl"),
        &[("NDK_VERSION", NDK_VERSION)],
    );
    let manifest = fill(
        include_str!("../../templates/new/AndroidManifest.xml.tmpl"),
        &[("title", title)],
    );
    let activity = fill(
        include_str!("../../templates/new/MainActivity.kt.tmpl"),
        &[("package", package)],
    );
    let readme = fill(
        include_str!("../../templates/new/README.md.tmpl"),
        &[
            ("title", title),
            ("NDK_VERSION", NDK_VERSION),
            ("package", package),
            ("lib_name", lib_name),
            ("TARGET_SDK", &TARGET_SDK.to_string()),
        ],
    );
    let java_test = fill(
        include_str!("../../templates/new/ProviderTest.java.tmpl"),
        &[("package", package)],
    );
    Ok(vec![
        (PathBuf::from("Cargo.toml"), cargo),
        (PathBuf::from("src/lib.rs"), lib),
        (PathBuf::from("tests/provider.rs"), test),
        (PathBuf::from("android/build.gradle.kts"), gradle),
        (PathBuf::from("android/settings.gradle.kts"), settings),
        (PathBuf::from("android/gradle.properties"), properties),
        (
            PathBuf::from("android/src/main/AndroidManifest.xml"),
            manifest,
        ),
        (
            PathBuf::from("android/src/main/kotlin")
                .join(package.replace('.', "/"))
                .join("MainActivity.kt"),
            activity,
        ),
        (
            PathBuf::from("android/src/test/java")
                .join(package.replace('.', "/"))
                .join("ProviderTest.java"),
            java_test,
        ),
        (PathBuf::from("README.md"), readme),
        (PathBuf::from(".gitignore"), "/target\n".to_owned()),
    ])
}

/// Runs `cargo cetp new`: writes the app, refusing a directory that is not empty.
///
/// # Errors
/// [`Error::App`] for a non-empty directory; [`Error::Usage`] for bad names; [`Error::Io`].
pub(crate) fn run(options: &NewOptions) -> Result<()> {
    let dir = &options.dir;
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).map_err(Error::io(dir))?;
        if entries.next().is_some() {
            return Err(Error::App(format!(
                "{} is not empty; cargo cetp new writes only into a new or empty directory",
                dir.display()
            )));
        }
    }
    std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    let app_dir = dir.canonicalize().map_err(Error::io(dir))?;
    let files = files(options, &app_dir)?;
    for (path, text) in &files {
        let path = app_dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
        }
        std::fs::write(&path, text).map_err(Error::io(&path))?;
    }
    let names = Names::of(options)?;
    eprintln!(
        "cargo cetp: created `{}` ({}) in {}\n  next: cd {} && cargo test && cargo cetp check",
        names.crate_name,
        names.package,
        app_dir.display(),
        dir.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(dir: &Path) -> NewOptions {
        NewOptions {
            dir: dir.to_path_buf(),
            name: None,
            package: None,
            sdk: SdkSource::Path(crate::sdk_dir()),
        }
    }

    #[test]
    fn names_come_from_the_directory() {
        let names = Names::of(&options(Path::new("/x/recipes-app"))).unwrap();
        assert_eq!(names.lib_name, "recipes_app");
        assert_eq!(names.title, "Recipes app");
        assert_eq!(names.package, "com.example.recipes_app");
        let mut bad = options(Path::new("/x/1recipes"));
        assert!(Names::of(&bad).is_err());
        bad.name = Some("recipes".into());
        bad.package = Some("recipes".into());
        let err = Names::of(&bad).unwrap_err().to_string();
        assert!(err.contains("not an Android application id"), "{err}");
    }

    #[test]
    fn a_non_empty_directory_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let err = run(&options(dir.path())).unwrap_err().to_string();
        assert!(err.contains("is not empty"), "{err}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// By default the app depends on the released SDK by version: nothing it is given names a
    /// directory outside it, and the Gradle build finds the template through `cargo metadata`.
    #[test]
    fn by_default_the_sdk_is_the_released_one_of_this_version() {
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join("recipes");
        let mut released = options(&app);
        released.sdk = SdkSource::Registry {
            version: "0.7.2".into(),
        };
        run(&released).unwrap();
        let read = |p: &str| std::fs::read_to_string(app.join(p)).unwrap();
        let cargo = read("Cargo.toml");
        assert!(
            cargo.contains(r#"cetp-provider = { version = "0.7.2", features = ["jni"] }"#),
            "{cargo}"
        );
        let settings = read("android/settings.gradle.kts");
        assert!(
            settings.contains(r#""--manifest-path", file("../Cargo.toml").path,"#),
            "{settings}"
        );
        assert!(
            settings.contains(r#"it["name"] == "cetp-android-template""#),
            "{settings}"
        );
        assert!(
            settings.contains("project(\":cetp\").projectDir = cetpTemplateModule"),
            "{settings}"
        );
        let sdk = crate::sdk_dir().canonicalize().unwrap();
        for (path, text) in files(&released, &app).unwrap() {
            assert!(!text.contains("cetp-rs/"), "{}: {text}", path.display());
            assert!(
                !text.contains(&*sdk.to_string_lossy()),
                "{}: {text}",
                path.display()
            );
        }
        // The test kit of the same version, from Maven Central like any library: no local
        // repository to install it into.
        assert!(!settings.contains("mavenLocal"), "{settings}");
    }

    #[test]
    fn the_layout_and_the_sdk_dependency() {
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join("recipes");
        run(&options(&app)).unwrap();
        let read = |p: &str| std::fs::read_to_string(app.join(p)).unwrap();
        let cargo = read("Cargo.toml");
        assert!(cargo.contains("edition = \"2024\""));
        assert!(cargo.contains("crate-type = [\"cdylib\", \"rlib\"]"));
        let sdk = crate::sdk_dir().canonicalize().unwrap();
        let provider = cargo
            .split("cetp-provider = { path = \"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert!(provider.starts_with(".."), "{cargo}");
        assert_eq!(
            app.join(provider).canonicalize().unwrap(),
            sdk.join("cetp-provider"),
            "{cargo}"
        );
        assert!(cargo.contains("\", features = [\"jni\"] }"), "{cargo}");
        let settings = read("android/settings.gradle.kts");
        let template = settings
            .split("file(\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert!(
            app.join("android")
                .join(template)
                .join("src/main/AndroidManifest.xml")
                .is_file(),
            "{template}"
        );
        assert!(
            read("android/build.gradle.kts")
                .contains("manifestPlaceholders[\"cetpLibrary\"] = \"recipes\"")
        );
        assert!(read("src/lib.rs").contains("cetp_provider::export_provider!(provider);"));
        let java = read("android/src/test/java/com/example/recipes/ProviderTest.java");
        assert!(java.starts_with("package com.example.recipes;\n"), "{java}");
        assert!(java.contains("@Rule public final CetpTestRule cetp = new CetpTestRule();"));
        assert!(read("README.md").contains("cargo cetp test"));
        // Play-ready: API 36, the NDK that links 16 KB pages, a launcher for Android Studio's Run.
        let gradle = read("android/build.gradle.kts");
        assert!(gradle.contains("compileSdk = 36") && gradle.contains("targetSdk = 36"));
        assert!(
            gradle.contains("ndkVersion = providers.gradleProperty(\"cetp.ndkVersion\").get()")
        );
        assert!(read("android/gradle.properties").contains("cetp.ndkVersion=29.0.14206865\n"));
        let manifest = read("android/src/main/AndroidManifest.xml");
        assert!(
            manifest
                .contains("<activity android:name=\".MainActivity\" android:exported=\"true\">")
        );
        assert!(manifest.contains("<action android:name=\"android.intent.action.MAIN\" />"));
        assert!(
            manifest.contains("<category android:name=\"android.intent.category.LAUNCHER\" />")
        );
        let activity = read("android/src/main/kotlin/com/example/recipes/MainActivity.kt");
        assert!(
            activity.starts_with("package com.example.recipes\n"),
            "{activity}"
        );
        assert!(
            activity.contains("class MainActivity : Activity()"),
            "{activity}"
        );
        assert!(
            gradle.contains("id(\"org.jetbrains.kotlin.android\")"),
            "{gradle}"
        );

        let git = NewOptions {
            sdk: SdkSource::Git {
                url: "https://example.org/cetp-rs".into(),
                rev: Some("v0.1".into()),
            },
            ..options(&dir.path().join("other"))
        };
        let files = files(&git, &dir.path().join("other")).unwrap();
        assert!(files[0].1.contains(
            "cetp-provider = { git = \"https://example.org/cetp-rs\", rev = \"v0.1\", features = [\"jni\"] }"
        ));
    }

    /// New apps build with the NDK the template pins by default (one NDK for both modules).
    #[test]
    fn the_ndk_is_the_templates() {
        let template =
            std::fs::read_to_string(crate::sdk_dir().join("android-template/build.gradle.kts"))
                .unwrap();
        let pinned = format!(
            "ndkVersion = providers.gradleProperty(\"cetp.ndkVersion\").getOrElse(\"{NDK_VERSION}\")"
        );
        assert!(template.contains(&pinned), "{pinned}");
        assert!(template.contains(&format!("compileSdk = {TARGET_SDK}")));
    }

    /// New apps use the SDK's serde and schemars (one copy of each, the same `JsonSchema`).
    #[test]
    fn dependency_versions_are_the_sdks() {
        let workspace = std::fs::read_to_string(crate::sdk_dir().join("Cargo.toml")).unwrap();
        for (name, version) in [
            ("serde", SERDE_VERSION),
            ("schemars", SCHEMARS_VERSION),
            ("serde_json", SERDE_JSON_VERSION),
            ("tempfile", TEMPFILE_VERSION),
        ] {
            let line = workspace
                .lines()
                .find(|l| l.starts_with(&format!("{name} =")))
                .unwrap_or_else(|| panic!("no {name} in the workspace"));
            assert!(
                line.contains(&format!("\"{version}\"")),
                "{line} vs {version}"
            );
        }
    }
}
