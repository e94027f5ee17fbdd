//! The **host bundle** of an app crate (`cargo cetp build`, [`crate::commands::build`]): its
//! CETP provider built to run on a desktop JVM under Robolectric (also `cargo xtask host-build`
//! in the SDK's own repository).
//!
//! Output, in `<target>/cetp-host/<dir-name>/` by default (with `--release`:
//! `<target>/cetp-host-release/<dir-name>/`, the native library built with the release profile),
//! or in the directory given with `--out`:
//! - `lib<lib>.so`: the crate built for the host as a `cdylib`;
//! - `resources.ap_`: the template's `res/` and the app's (`android/src/main/res`, plus the
//!   `resValue(...)` lines of its Gradle file) compiled by Android's resource compiler (`aapt`)
//!   against the framework resources, with the binary manifest;
//! - `app.jar`: the Android template's Java, the Java the AIDL compiler (`aidl`) generates
//!   from the template's `src/main/aidl`, the app's own Java and the `R`
//!   classes aapt wrote (`dev.cetp.R` and the app's), compiled with `javac --release 17` against
//!   `org.robolectric:android-all` and JSpecify's annotations (`org.jspecify:jspecify`); and `com/android/tools/test_config.properties`, which puts
//!   Robolectric in binary-resources mode on `resources.ap_` (the installed app is then the test
//!   application);
//! - `AndroidManifest.xml`: the app's manifest with the template's components merged in and the
//!   placeholders and boolean resources resolved.
//!
//! The Android template (and the test kit `cargo cetp test` installs) come from the SDK the app
//! depends on: the checkout holding the `cetp-provider` that `cargo metadata` resolves ([`Sdk`]),
//! never from the current directory. See `docs/host-bundle.md` for the crate layout it expects.
//!
//! Placeholders come from the app module's `android/build.gradle.kts`
//! (`manifestPlaceholders["..."] = "..."`, `namespace`/`applicationId`) and can be set or
//! overridden under `[package.metadata.cetp]` in `Cargo.toml` (`authority`, `application-id`).

pub(crate) mod aar;
pub(crate) mod gradle;
pub(crate) mod manifest;
pub mod maven;
pub(crate) mod resources;
pub(crate) mod substitution;
pub(crate) mod tools;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use cetp_provider::host::cetp_v2;

use self::gradle::ResValue;
use self::tools as util;
use crate::android_build::app::{AppCrate, TEMPLATE_CRATE};
use crate::android_build::layout::Layout;
use crate::{Error, Result};

pub use self::maven::{local_repository, strip_ansi};
pub(crate) use self::tools::missing_program;
pub use self::tools::{AAPT, AIDL, DebianTool, debian_tool, jdk_tool, on_path, run_as};

/// The SDK an app builds against: the Android template its `cetp-provider` brings (the crate
/// `cetp-android-template`, wherever Cargo put it) and the test kit of the same version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sdk {
    template: PathBuf,
    template_version: String,
    kit: Kit,
}

/// Where `cargo cetp test` and `preview` get the test kit `dev.cetp:cetp-testkit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kit {
    /// The `android-testkit/` of an SDK checkout (an app depending on the SDK by path or git):
    /// installed into the local Maven repository whenever its sources change.
    Checkout(PathBuf),
    /// The released kit of this version, by its coordinates, from the repositories the user's
    /// Maven resolves from (Maven Central for a release).
    Published(String),
}

impl Sdk {
    /// The SDK checkout in `dir` (the directory holding `android-template/` and
    /// `android-testkit/`); fails unless it holds the Android template.
    ///
    /// # Errors
    /// [`Error::App`] naming the directory and what it lacks.
    pub fn at(dir: &Path) -> Result<Self> {
        let template = dir.join("android-template");
        if template.join(TEMPLATE_MANIFEST).is_file() {
            let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
            Ok(Sdk {
                template: dir.join("android-template"),
                template_version: checkout_version(&dir),
                kit: Kit::Checkout(dir.join("android-testkit")),
            })
        } else {
            Err(Error::App(format!(
                "{} holds no Android template (android-template/{TEMPLATE_MANIFEST}): it is not \
                 a checkout of the cetp-rs SDK",
                dir.display()
            )))
        }
    }

    /// The SDK the app depends on: the template is the `cetp-android-template` crate its
    /// `cetp-provider` resolved to (`cargo metadata`); the kit is the `android-testkit/` beside
    /// it when that crate sits in an SDK checkout, else the released kit of the template's
    /// version.
    ///
    /// # Errors
    /// [`Error::App`] when the app's `cetp-provider` is without the `jni` feature (which brings
    /// the template) or the template's directory holds no module.
    pub(crate) fn of(app: &AppCrate) -> Result<Self> {
        let Some(template) = &app.template else {
            return Err(Error::App(format!(
                "`{}` depends on cetp-provider without its `jni` feature, which brings the \
                 Android template (the crate {TEMPLATE_CRATE}): `cetp-provider = {{ {}, \
                 features = [\"jni\"] }}`",
                app.name,
                app.provider.dependency()
            )));
        };
        if !template.dir.join(TEMPLATE_MANIFEST).is_file() {
            return Err(Error::App(format!(
                "{TEMPLATE_CRATE} {} in {} holds no Android module ({TEMPLATE_MANIFEST}): the \
                 crate is damaged; remove it from Cargo's cache and build again",
                template.version,
                template.dir.display()
            )));
        }
        let checkout_kit = template.dir.parent().map(|sdk| sdk.join("android-testkit"));
        let kit = match checkout_kit {
            Some(kit) if kit.join("pom.xml").is_file() => Kit::Checkout(kit),
            _ => Kit::Published(template.version.clone()),
        };
        Ok(Sdk {
            template: template.dir.clone(),
            template_version: template.version.clone(),
            kit,
        })
    }

    /// The Android template module.
    pub(crate) fn template(&self) -> PathBuf {
        self.template.clone()
    }

    /// The template's resources.
    pub(crate) fn template_res(&self) -> PathBuf {
        self.template.join("src/main/res")
    }

    /// The template's AIDL sources: the Apex plugin interface.
    pub(crate) fn aidl_root(&self) -> PathBuf {
        self.template.join("src/main/aidl")
    }

    /// The template's protocol words in Java, `dev/cetp/Wire.java`, which the test kit also
    /// compiles (as `dev.cetp.testkit.internal.Wire`).
    pub(crate) fn wire_java(&self) -> PathBuf {
        self.template.join("src/main/java/dev/cetp/Wire.java")
    }

    /// Where the test kit comes from.
    pub(crate) fn kit(&self) -> &Kit {
        &self.kit
    }

    /// The test kit's version: the released one's, or the checkout's (its Maven version is the
    /// workspace's, which the template crate has too).
    pub(crate) fn kit_version(&self) -> String {
        match &self.kit {
            Kit::Published(version) => version.clone(),
            Kit::Checkout(_) => self.template_version.clone(),
        }
    }
}

/// The version of the SDK checkout in `dir`: its workspace's (`[workspace.package] version`),
/// else this `cargo cetp`'s.
fn checkout_version(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .and_then(|root| {
            root.get("workspace")?
                .get("package")?
                .get("version")?
                .as_str()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned())
}

/// The template's manifest, relative to the module: what makes a directory the module.
const TEMPLATE_MANIFEST: &str = "src/main/AndroidManifest.xml";

/// A host bundle that was built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    /// Its directory (`app.jar`, `lib<lib>.so`, `resources.ap_`, `AndroidManifest.xml`).
    pub dir: PathBuf,
    /// The application id it runs as.
    pub package: String,
    /// The native library's name (`lib<lib_name>.so`).
    pub lib_name: String,
}

/// Where the bundle of `app` goes by default: `<target>/cetp-host/<dir-name>` (debug) or
/// `<target>/cetp-host-release/<dir-name>`.
pub(crate) fn default_dir(app: &AppCrate, release: bool) -> PathBuf {
    app.target_dir
        .join(if release {
            "cetp-host-release"
        } else {
            "cetp-host"
        })
        .join(bundle_name(app))
}

/// The bundle's name: the crate directory's name (`samples/notes` → `notes`).
pub fn bundle_name(app: &AppCrate) -> String {
    app.dir
        .file_name()
        .map_or_else(|| app.name.clone(), |n| n.to_string_lossy().into_owned())
}

/// What the bundle build reads from the crate.
struct App {
    lib_name: String,
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
    /// The module's `namespace`: the package of its `R` class and of relative class names.
    namespace: Option<String>,
    /// `applicationIdSuffix` of the debug and the release build type.
    debug_suffix: Option<String>,
    release_suffix: Option<String>,
    /// The AAR libraries the module's build file declares, with versions.
    libraries: Vec<aar::Coordinate>,
    /// Where Maven runs to fetch them: the Gradle root project (or the crate).
    project_dir: PathBuf,
    /// The module's Kotlin source roots (`src/main/java`, `src/main/kotlin`): not compiled into
    /// the bundle, named when a class the manifest declares is there.
    kotlin: Vec<PathBuf>,
}

fn inspect(app: &AppCrate, sdk: &Sdk) -> Result<App> {
    let crate_dir = app.dir.as_path();
    let cargo_toml = &app.manifest_path;
    let lib_name = app.lib_name.clone();
    let mut cetp: BTreeMap<String, String> = app
        .metadata_cetp
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
        .collect();

    let layout = Layout::find(app)?;
    let module = layout
        .as_ref()
        .map_or_else(|| crate_dir.join("android"), |l| l.module.clone());
    let android = module.join("src/main");
    let manifest = [
        android.join("AndroidManifest.xml"),
        crate_dir.join("AndroidManifest.xml"),
    ]
    .into_iter()
    .find(|m| m.is_file())
    .ok_or_else(|| {
        Error::Bundle(format!(
            "no app manifest: expected {} or {}",
            android.join("AndroidManifest.xml").display(),
            crate_dir.join("AndroidManifest.xml").display()
        ))
    })?;
    let java = Some(android.join("java")).filter(|j| j.is_dir());
    let res = Some(android.join("res")).filter(|r| r.is_dir());

    // Placeholders and application id: the app module's build.gradle.kts, overridden by
    // [package.metadata.cetp] in Cargo.toml.
    let gradle_file = layout
        .as_ref()
        .map_or_else(|| module.join("build.gradle.kts"), Layout::build_file);
    let gradle_text = fs::read_to_string(&gradle_file).unwrap_or_default();
    let gradle = gradle::parse(&gradle_text);
    let project_dir = layout
        .as_ref()
        .map_or_else(|| crate_dir.to_path_buf(), |l| l.root.clone());
    let catalog = fs::read_to_string(project_dir.join("gradle/libs.versions.toml")).ok();
    let libraries = aar::declared(&gradle_text, catalog.as_deref());
    let mut placeholders = gradle.placeholders;
    if let Some(authority) = cetp.remove("authority") {
        placeholders.insert("cetpAuthority".to_owned(), authority);
    }
    if let Some(tail) = &gradle.authority_tail {
        // Each variant's application id + the tail: the bundle's, suffix included.
        placeholders
            .entry("cetpAuthority".to_owned())
            .or_insert_with(|| format!("${{applicationId}}{tail}"));
    }
    if !placeholders.contains_key("cetpAuthority") {
        return Err(Error::Bundle(format!(
            "no provider authority: set manifestPlaceholders[\"cetpAuthority\"] in {} or, in {}:\n\n[package.metadata.cetp]\nauthority = \"com.example.app.clawseed.tools\"\n",
            gradle_file.display(),
            cargo_toml.display()
        )));
    }
    if let Some(declared) = placeholders.get("cetpLibrary").filter(|l| **l != lib_name) {
        return Err(Error::Bundle(format!(
            "{} sets cetpLibrary = \"{declared}\" but the crate's library is lib{lib_name}.so",
            gradle_file.display()
        )));
    }
    placeholders.insert("cetpLibrary".to_owned(), lib_name.clone());
    // What the template's build.gradle.kts derives from gradle.properties.
    let gradle_properties = layout
        .as_ref()
        .and_then(|l| fs::read_to_string(l.properties_file()).ok())
        .unwrap_or_default();
    placeholders.insert(
        "cetpProviderPermission".to_owned(),
        provider_permission(&gradle_properties).to_owned(),
    );
    placeholders.insert(
        "cetpProtocolVersions".to_owned(),
        protocol_versions(&gradle_properties).to_owned(),
    );
    let application_id = cetp.remove("application-id").or(gradle.application_id);
    let mut bools = BTreeMap::new();
    for values in [
        sdk.template_res().join("values"),
        android.join("res/values"),
    ] {
        let mut files = Vec::new();
        if values.is_dir() {
            util::collect_files(&values, "xml", &mut files)?;
        }
        files.sort();
        for file in files {
            let text = fs::read_to_string(&file).map_err(Error::cannot("read", &file))?;
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
        lib_name,
        manifest,
        java,
        res,
        res_values: unique,
        min_sdk: gradle.min_sdk,
        target_sdk: gradle.target_sdk,
        placeholders,
        bools,
        application_id,
        namespace: gradle.namespace,
        debug_suffix: gradle.debug_suffix,
        release_suffix: gradle.release_suffix,
        kotlin: vec![android.join("java"), android.join("kotlin")],
        libraries,
        project_dir,
    })
}

/// The permission the provider requires (`android:permission`, `${cetpProviderPermission}`):
/// none unless `gradle.properties` opts in with `cetp.requireAccessToolsPermission=true`, as the
/// template's `build.gradle.kts` decides on a device build.
fn provider_permission(gradle_properties: &str) -> &'static str {
    if gradle_property(gradle_properties, "cetp.requireAccessToolsPermission") == Some("true") {
        "com.clawseed.permission.ACCESS_TOOLS"
    } else {
        ""
    }
}

/// The CETP versions the app serves and advertises (`${cetpProtocolVersions}`): v1 and v2
/// unless `gradle.properties` turns v2 off with `cetp.v2=false`, as the template's
/// `build.gradle.kts` decides on a device build.
fn protocol_versions(gradle_properties: &str) -> &'static str {
    if gradle_property(gradle_properties, V2_PROPERTY) == Some("false") {
        "1"
    } else {
        "1,2"
    }
}

/// The value of `key` in a `gradle.properties` text (the last line setting it), trimmed.
fn gradle_property<'a>(gradle_properties: &'a str, key: &str) -> Option<&'a str> {
    gradle_properties
        .lines()
        .rev()
        .filter_map(|line| line.split_once('='))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, value)| value.trim())
}

/// Builds the host bundle of `crate_app` into `out` (default: [`default_dir`]), replacing any
/// bundle there, with the Android template of the SDK the app depends on ([`Sdk::of`]).
///
/// # Errors
/// [`Error::App`] for an app or SDK the bundle cannot be built from, [`Error::Bundle`] when a
/// step fails (cargo, aapt, aidl, javac, jar), with what to do.
pub(crate) fn build(crate_app: &AppCrate, release: bool, out: Option<&Path>) -> Result<Bundle> {
    let sdk = Sdk::of(crate_app)?;
    build_with(crate_app, &sdk, release, out)
}

/// [`build`] against the SDK `sdk` (a checkout's, [`Sdk::at`], for the SDK's own builds).
///
/// # Errors
/// As [`build`].
pub fn build_with(
    crate_app: &AppCrate,
    sdk: &Sdk,
    release: bool,
    out: Option<&Path>,
) -> Result<Bundle> {
    let bundle = match out {
        Some(dir) if dir.is_absolute() => dir.to_path_buf(),
        Some(dir) => std::env::current_dir().map_err(Error::io("."))?.join(dir),
        None => default_dir(crate_app, release),
    };
    build_inner(crate_app, sdk, release, &bundle)
}

fn build_inner(crate_app: &AppCrate, sdk: &Sdk, release: bool, bundle: &Path) -> Result<Bundle> {
    let mut app = inspect(crate_app, sdk)?;
    let name = bundle_name(crate_app);

    // 1. The Rust library, as a host cdylib whatever crate-type the crate declares.
    let mut cargo = crate::android_build::app::cargo();
    cargo
        .args(["rustc", "--manifest-path"])
        .arg(&crate_app.manifest_path)
        .args(["--lib", "--crate-type", "cdylib"]);
    if release {
        cargo.arg("--release");
    }
    util::run(&mut cargo)?;
    let so_name = format!("lib{}.so", app.lib_name);
    let so = crate_app
        .target_dir
        .join(if release { "release" } else { "debug" })
        .join(&so_name);
    if !so.is_file() {
        return Err(Error::Bundle(format!(
            "cargo did not produce {}",
            so.display()
        )));
    }

    // 2. The merged manifest.
    let template_manifest = sdk.template().join("src/main/AndroidManifest.xml");
    let template = fs::read_to_string(&template_manifest)
        .map_err(Error::cannot("read", &template_manifest))?;
    let app_manifest =
        fs::read_to_string(&app.manifest).map_err(Error::cannot("read", &app.manifest))?;
    let suffix = if release {
        &app.release_suffix
    } else {
        &app.debug_suffix
    };
    let package = manifest::package_name(&app_manifest)
        .or_else(|| {
            let id = app.application_id.clone()?;
            Some(format!("{id}{}", suffix.as_deref().unwrap_or_default()))
        })
        .ok_or_else(|| {
            Error::Bundle(format!(
                "no application id: give <manifest> in {} a package attribute, or set namespace/applicationId in the app module's build.gradle.kts, or application-id under [package.metadata.cetp]",
                app.manifest.display()
            ))
        })?;
    app.placeholders
        .insert("applicationId".to_owned(), package.clone());
    let placeholders = manifest::resolve_values(&app.placeholders);
    let merged = manifest::merge(&template, &app_manifest, &placeholders)?;
    let merged = manifest::with_package(&merged, &package)?;
    let merged = manifest::with_uses_sdk(&merged, app.min_sdk, app.target_sdk)?;
    // The package of the app's R class and of relative class names: the namespace, which an
    // `applicationIdSuffix` does not change.
    let namespace = app
        .namespace
        .clone()
        .or_else(|| manifest::package_name(&app_manifest))
        .or(app.application_id.clone())
        .unwrap_or_else(|| package.clone());

    // 3. The resources: generated values over the app's res/ over the template's.
    let work = crate_app
        .target_dir
        .join("cetp")
        .join(if release {
            "bundle-build-release"
        } else {
            "bundle-build"
        })
        .join(&name);
    let generated = work.join("generated-res");
    if generated.exists() {
        fs::remove_dir_all(&generated).map_err(Error::cannot("clean", &generated))?;
    }
    let mut res_dirs = Vec::new();
    if !app.res_values.is_empty() {
        let values = generated.join("values");
        fs::create_dir_all(&values).map_err(Error::cannot("create", &values))?;
        fs::write(
            values.join("gradle_res_values.xml"),
            resources::res_values_xml(&app.res_values),
        )
        .map_err(Error::cannot("write", values.join("gradle_res_values.xml")))?;
        res_dirs.push(generated.clone());
    }
    res_dirs.extend(app.res.clone());
    res_dirs.push(sdk.template_res());
    // The resources of the module's libraries, as far as Maven has them, below everything else.
    let (libraries, unresolved) =
        aar::resolve(&app.libraries, &app.project_dir, &work.join("aars"))?;
    let mut java_roots = vec![sdk.template().join("src/main/java")];
    java_roots.extend(app.java.clone());
    let classes = substitution::Classes::of(&java_roots, &app.kotlin)?;
    let resource_package = work.join("resources.ap_");
    let mut attempt = Some(libraries);
    let (r_java, text_manifest) = loop {
        let libraries = attempt.take().unwrap_or_default();
        let mut dirs = res_dirs.clone();
        dirs.extend(libraries.iter().map(|l| l.res.clone()));
        // What the bundle cannot have (a library's theme, a Kotlin class) gets its nearest
        // platform equivalent, one line each.
        let defined = substitution::Defined::in_dirs(&dirs)?;
        let mut substitutions = unresolved.clone();
        if let Some(res) = &app.res {
            let copy = work.join("app-res");
            substitutions.extend(substitution::resources(res, &defined, &copy)?);
            for dir in &mut dirs {
                if dir == res {
                    dir.clone_from(&copy);
                }
            }
        }
        let (manifest_text, found) =
            substitution::manifest(&merged, &namespace, &classes, &defined);
        substitutions.extend(found);
        let mut extra_packages = vec![resources::TEMPLATE_PACKAGE];
        extra_packages.extend(libraries.iter().map(|l| l.package.as_str()));
        let compiled = resources::compile(&resources::Compile {
            manifest: &manifest_text,
            r_package: Some(&namespace)
                .filter(|n| **n != package)
                .map(String::as_str),
            res_dirs: &dirs,
            extra_packages: &extra_packages,
            library: false,
            work: &work.join("aapt"),
            package: Some(&resource_package),
        });
        match compiled {
            // aapt (AOSP's older resource compiler) may not take a library's resources: the
            // build goes on without them, and substitutes what the app takes from them.
            Err(err) if !libraries.is_empty() => {
                for library in &libraries {
                    eprintln!(
                        "cargo cetp: {}",
                        substitution::Substitution {
                            what: format!("the resources of {}", library.coordinate),
                            by: "not used".to_owned(),
                            why: format!("aapt could not compile them with the app's: {err}"),
                        }
                    );
                }
            }
            Err(err) => return Err(err),
            Ok(r_java) => {
                for library in &libraries {
                    eprintln!(
                        "cargo cetp: with the resources of the library {}",
                        library.coordinate
                    );
                }
                for line in &substitutions {
                    eprintln!("cargo cetp: {line}");
                }
                // The text copy for the suite's ManifestInstaller has the boolean resources
                // resolved; aapt resolves them itself in the binary one.
                break (r_java, manifest::resolve_bools(&manifest_text, &app.bools)?);
            }
        }
    };

    // 4. The Java: template + app + R, against the Android API surface.
    let classpath = util::compile_classpath()?;
    let classes = work.join("classes");
    if classes.exists() {
        fs::remove_dir_all(&classes).map_err(Error::cannot("clean", &classes))?;
    }
    // The Apex plugin interface's Stub/Proxy, generated by the real AIDL compiler.
    let aidl_java = util::generate_aidl_java(&sdk.aidl_root(), &work.join("aidl"))?;
    let mut sources = vec![sdk.template().join("src/main/java"), aidl_java, r_java];
    sources.extend(app.java.clone());
    util::javac(&sources, &classpath, &classes, false)?;

    // 5. The bundle, replacing any previous one (a stale lib*.so would confuse the suite).
    let bundle_manifest = bundle.join("AndroidManifest.xml");
    let bundle_resources = bundle.join("resources.ap_");
    let test_config = classes.join(resources::TEST_CONFIG_PATH);
    if let Some(parent) = test_config.parent() {
        fs::create_dir_all(parent).map_err(Error::cannot("create", &parent))?;
    }
    fs::write(
        &test_config,
        resources::test_config_properties(&bundle_manifest, &bundle_resources, &namespace),
    )
    .map_err(Error::cannot("write", &test_config))?;
    if bundle.exists() {
        fs::remove_dir_all(bundle).map_err(Error::cannot("clean", &bundle))?;
    }
    fs::create_dir_all(bundle).map_err(Error::cannot("create", &bundle))?;
    let mut jar = util::jdk_tool("jar");
    jar.arg("--create")
        .arg("--file")
        .arg(bundle.join("app.jar"))
        .arg("-C")
        .arg(&classes)
        .arg(".");
    util::run(&mut jar)?;
    fs::copy(&so, bundle.join(&so_name)).map_err(Error::cannot("copy", &so))?;
    fs::copy(&resource_package, &bundle_resources)
        .map_err(Error::cannot("copy", &resource_package))?;
    fs::write(&bundle_manifest, text_manifest).map_err(Error::cannot("write", &bundle_manifest))?;
    eprintln!(
        "cargo cetp: {name} ({package}): {so_name}, app.jar, resources.ap_, AndroidManifest.xml"
    );
    Ok(Bundle {
        dir: bundle.to_path_buf(),
        package,
        lib_name: app.lib_name,
    })
}

/// The Android template compiled as the library it is, as `cargo xtask android-check` checks it:
/// its resources with `aapt` (non-constant `R` ids for `dev.cetp`; the manifest's placeholders
/// get stand-in values of the same shape, since aapt refuses `${…}` in names), then its Java,
/// that `R` and the Java `aidl` generates, with `javac -Werror` against `android-all`. Writes
/// only under `work`.
///
/// # Errors
/// [`Error::Bundle`] naming the step that failed.
pub fn check_template(sdk: &Sdk, work: &Path) -> Result<()> {
    check_template_inner(sdk, work)
}

fn check_template_inner(sdk: &Sdk, work: &Path) -> Result<()> {
    let template_manifest = sdk.template().join("src/main/AndroidManifest.xml");
    let template = fs::read_to_string(&template_manifest)
        .map_err(Error::cannot("read", &template_manifest))?;
    let stand_ins: BTreeMap<String, String> = [
        ("applicationId", "com.example.app"),
        ("cetpAuthority", "com.example.app.tools"),
        ("cetpLibrary", "app"),
        ("cetpProviderPermission", ""),
        ("cetpProtocolVersions", "1,2"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    // A library manifest: its namespace is the package.
    let library_manifest = manifest::with_package(
        &manifest::substitute(&template, &stand_ins)?,
        resources::TEMPLATE_PACKAGE,
    )?;
    let r_java = resources::compile(&resources::Compile {
        manifest: &library_manifest,
        r_package: None,
        res_dirs: &[sdk.template_res()],
        extra_packages: &[],
        library: true,
        work: &work.join("aapt"),
        package: Some(&work.join("aapt/library.ap_")),
    })?;
    let classpath = util::compile_classpath()?;
    let out = work.join("classes");
    if out.exists() {
        fs::remove_dir_all(&out).map_err(Error::cannot("clean", &out))?;
    }
    let aidl_java = util::generate_aidl_java(&sdk.aidl_root(), &work.join("aidl"))?;
    util::javac(
        &[sdk.template().join("src/main/java"), aidl_java, r_java],
        &classpath,
        &out,
        true,
    )
}

/// The AIDL compiler, `aidl`: `CETP_AIDL`, else on `PATH`; otherwise an error naming the
/// package to install and the command (nothing is installed).
///
/// # Errors
/// [`Error::Program`] saying how to install it.
pub(crate) fn aidl() -> Result<PathBuf> {
    util::aidl()
}

/// The property of the app's `gradle.properties` that turns CETP v2 off (`cetp.v2=false`).
pub(crate) const V2_PROPERTY: &str = "cetp.v2";

/// Whether the app whose Gradle build is `layout` advertises CETP v2: whether the versions a
/// build of it advertises (`${cetpProtocolVersions}`, from its `gradle.properties`) include 2.
pub(crate) fn advertises_v2(layout: Option<&Layout>) -> bool {
    let properties = layout
        .and_then(|l| fs::read_to_string(l.properties_file()).ok())
        .unwrap_or_default();
    protocol_versions(&properties)
        .split(',')
        .any(|v| v.trim().parse() == Ok(cetp_v2::words::PROTOCOL_VERSION))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::android_build::app::{ProviderSource, TemplateCrate};

    fn app_on(provider: ProviderSource, template: Option<TemplateCrate>) -> AppCrate {
        AppCrate {
            name: "recipes".into(),
            lib_name: "recipes".into(),
            crate_types: vec!["cdylib".into(), "rlib".into()],
            dir: PathBuf::from("/apps/recipes"),
            manifest_path: PathBuf::from("/apps/recipes/Cargo.toml"),
            workspace_root: PathBuf::from("/apps/recipes"),
            target_dir: PathBuf::from("/apps/recipes/target"),
            provider,
            provider_dir: PathBuf::from("/unused/cetp-provider"),
            template,
            metadata_cetp: serde_json::Value::Null,
            android_module: None,
        }
    }

    fn template_at(dir: PathBuf) -> Option<TemplateCrate> {
        Some(TemplateCrate {
            dir,
            version: "0.1.0".into(),
        })
    }

    #[test]
    fn in_a_checkout_the_template_and_the_kit_are_its_own() {
        let sdk = crate::sdk_dir();
        let app = app_on(
            ProviderSource::Path(sdk.join("cetp-provider")),
            template_at(sdk.join("android-template")),
        );
        let found = Sdk::of(&app).unwrap();
        assert_eq!(found, Sdk::at(&sdk).unwrap());
        assert!(found.template_res().join("values").is_dir());
        assert_eq!(found.kit(), &Kit::Checkout(sdk.join("android-testkit")));
        assert_eq!(
            default_dir(&app, false),
            PathBuf::from("/apps/recipes/target/cetp-host/recipes")
        );
        assert_eq!(
            default_dir(&app, true),
            PathBuf::from("/apps/recipes/target/cetp-host-release/recipes")
        );
    }

    #[test]
    fn a_released_template_comes_with_the_released_kit_of_its_version() {
        // The crate as Cargo unpacks it from a registry: the module, no kit beside it.
        let registry = tempfile::tempdir().unwrap();
        let template = registry.path().join("cetp-android-template-0.3.1");
        std::fs::create_dir_all(template.join("src/main")).unwrap();
        std::fs::write(template.join(TEMPLATE_MANIFEST), "<manifest/>").unwrap();
        let app = app_on(
            ProviderSource::Registry {
                version: "0.3.1".into(),
            },
            Some(TemplateCrate {
                dir: template.clone(),
                version: "0.3.1".into(),
            }),
        );
        let sdk = Sdk::of(&app).unwrap();
        assert_eq!(sdk.kit(), &Kit::Published("0.3.1".into()));
        assert_eq!(sdk.aidl_root(), template.join("src/main/aidl"));
    }

    #[test]
    fn no_template_or_an_empty_one_is_explained() {
        let registry = ProviderSource::Registry {
            version: "0.1.0".into(),
        };
        let err = Sdk::of(&app_on(registry.clone(), None))
            .unwrap_err()
            .to_string();
        assert!(err.contains("without its `jni` feature"), "{err}");
        assert!(
            err.contains(r#"`cetp-provider = { version = "=0.1.0", features = ["jni"] }`"#),
            "{err}"
        );
        let empty = tempfile::tempdir().unwrap();
        let err = Sdk::of(&app_on(registry, template_at(empty.path().to_path_buf())))
            .unwrap_err()
            .to_string();
        assert!(err.contains("holds no Android module"), "{err}");
        let err = Sdk::at(empty.path()).unwrap_err().to_string();
        assert!(err.contains("holds no Android template"), "{err}");
    }

    const TEMPLATE: &str =
        include_str!("../../../../android-template/src/main/AndroidManifest.xml");

    fn merged(gradle_properties: &str) -> String {
        let placeholders: BTreeMap<String, String> = [
            ("cetpAuthority", "com.x.tools"),
            ("cetpLibrary", "x"),
            ("applicationId", "com.x"),
            (
                "cetpProviderPermission",
                provider_permission(gradle_properties),
            ),
            ("cetpProtocolVersions", protocol_versions(gradle_properties)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        manifest::merge(
            TEMPLATE,
            r#"<manifest package="com.x"><application /></manifest>"#,
            &placeholders,
        )
        .unwrap()
    }

    fn merged_provider(gradle_properties: &str) -> String {
        let merged = merged(gradle_properties);
        let start = merged.find("<provider").unwrap();
        let end = start + merged[start..].find('>').unwrap();
        merged[start..end].to_owned()
    }

    /// The values of the `com.clawseed.tools.versions` meta-data, in manifest order.
    fn advertised_versions(gradle_properties: &str) -> Vec<String> {
        let merged = merged(gradle_properties);
        let name = r#"android:name="com.clawseed.tools.versions""#;
        merged
            .match_indices(name)
            .map(|(at, _)| {
                let rest = &merged[at + name.len()..];
                let value = &rest[rest.find("android:value=\"").unwrap() + 15..];
                value[..value.find('"').unwrap()].to_owned()
            })
            .collect()
    }

    #[test]
    fn cetp_v2_is_advertised_and_served_unless_one_property_turns_it_off() {
        for props in ["", "cetp.v2=true\n", "cetp.v2 = false\ncetp.v2=true\n"] {
            assert_eq!(advertised_versions(props), ["1,2", "1,2"], "{props:?}");
        }
        for props in [
            "cetp.v2=false\n",
            "cetp.rustCrate=rust\n cetp.v2 = false \n",
        ] {
            assert_eq!(advertised_versions(props), ["1", "1"], "{props:?}");
        }
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

    #[test]
    fn check_reads_whether_v2_is_advertised_as_the_build_derives_it() {
        assert!(
            advertises_v2(None),
            "no Gradle build: the template's default"
        );
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout {
            module: dir.path().join("app"),
            root: dir.path().to_path_buf(),
        };
        assert!(advertises_v2(Some(&layout)), "no gradle.properties");
        for (props, advertised) in [
            ("cetp.rustCrate=rust\n", true),
            ("cetp.v2=false\n", false),
            ("cetp.v2 = false\ncetp.v2=true\n", true),
        ] {
            std::fs::write(layout.properties_file(), props).unwrap();
            assert_eq!(advertises_v2(Some(&layout)), advertised, "{props:?}");
        }
    }
}

#[cfg(test)]
mod examples {
    /// The example that documented `at`.
    #[test]
    fn example_bundle_sdk_at() {
        let sdk = crate::android_build::bundle::Sdk::at(&crate::sdk_dir()).unwrap();
        assert!(
            sdk.template()
                .join("src/main/AndroidManifest.xml")
                .is_file()
        );
        assert!(crate::android_build::bundle::Sdk::at(std::path::Path::new("/")).is_err());
    }
}
