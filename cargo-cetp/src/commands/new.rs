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

/// Every file of the new app, as `(path relative to the app, text)`.
///
/// # Errors
/// [`Error::App`] when `--sdk-path` holds no `cetp-provider`.
pub(crate) fn files(options: &NewOptions, app_dir: &Path) -> Result<Vec<(PathBuf, String)>> {
    let names = Names::of(options)?;
    let (dependency, template) = match &options.sdk {
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
            // Both relative, so that the app and the SDK checkout can move together.
            let template = relative(&app_dir.join("android"), &sdk.join("android-template"));
            let provider = relative(app_dir, &provider);
            (
                format!("path = {}", toml_string(&provider.to_string_lossy())),
                format!(
                    "// The SDK's template module.\ninclude(\":cetp\")\nproject(\":cetp\").projectDir = file({})\n",
                    toml_string(&template.to_string_lossy())
                ),
            )
        }
        SdkSource::Git { url, rev } => {
            let rev = rev
                .as_ref()
                .map(|r| format!(", rev = {}", toml_string(r)))
                .unwrap_or_default();
            (
                format!("git = {}{rev}", toml_string(url)),
                format!(
                    "// The SDK's template module, from a checkout of {url} (a git submodule, say)\n\
                     // at the revision Cargo.toml names.\n\
                     include(\":cetp\")\n\
                     project(\":cetp\").projectDir = file(\"../third_party/cetp-rs/android-template\")\n"
                ),
            )
        }
    };
    let Names {
        crate_name,
        lib_name,
        title,
        package,
    } = &names;
    let cargo = format!(
        r#"[package]
name = "{crate_name}"
version = "0.1.0"
edition = "2024"
publish = false

[lib]
# cdylib: lib{lib_name}.so, which the Android app loads; rlib: what tests/ and `cargo cetp` link.
crate-type = ["cdylib", "rlib"]

[dependencies]
# The SDK; the `jni` feature is the bridge the Android template's Java calls.
cetp-provider = {{ {dependency}, features = ["jni"] }}
# The versions the SDK uses, for the result types tools return.
serde = {{ version = "{SERDE_VERSION}", features = ["derive"] }}
schemars = "{SCHEMARS_VERSION}"

[dev-dependencies]
serde_json = "{SERDE_JSON_VERSION}"
tempfile = "{TEMPFILE_VERSION}"

# The SDK turns a panicking tool into an INTERNAL_ERROR answer, which needs unwinding.
[profile.release]
panic = "unwind"
# One optimization unit for the whole library: about a fifth smaller on every ABI, and faster.
lto = "fat"
codegen-units = 1
"#
    );
    let lib = format!(
        r#"//! {title}: the app's data as read-only tools for on-device AI agents (CETP). See README.md.

use std::path::Path;

use cetp_provider::{{App, Localized, Provider, ProviderBuilder, ToolError, tool, tools}};
use schemars::JsonSchema;
use serde::Serialize;

/// One item the user keeps in the app.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Item {{
    /// The item's id.
    pub id: u32,
    /// Its title.
    pub title: String,
}}

/// What the tools read: provider state, opened once when the provider starts and borrowed by
/// each tool as `&Items`.
#[derive(Debug)]
pub struct Items(Vec<Item>);

impl Items {{
    /// Opens the app's data in its files directory. Here, two examples: open your database
    /// instead (keep it behind a pool or a `Mutex`: tools run on many threads at once).
    pub fn open(_files_dir: &Path) -> Self {{
        Items(vec![
            Item {{ id: 1, title: "Tomato soup".into() }},
            Item {{ id: 2, title: "Lemon cake".into() }},
        ])
    }}
}}

/// Finds the user's items whose title contains the given words. Answers an empty list when
/// nothing matches.
#[tool(scopes = ["items.read"])]
pub fn find_items(
    /// Words the title must contain, e.g. `soup`.
    #[schemars(length(min = 1, max = 100))]
    words: String,
    /// How many items to return at most (default 10).
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u32>,
    items: &Items,
) -> Result<Vec<Item>, ToolError> {{
    let words = words.to_lowercase();
    let limit = limit.unwrap_or(10) as usize;
    Ok(items
        .0
        .iter()
        .filter(|item| item.title.to_lowercase().contains(&words))
        .take(limit)
        .cloned()
        .collect())
}}

/// Declares the provider; the Android template calls it once, on the first call that needs it.
pub fn provider(app: &App) -> ProviderBuilder {{
    Provider::builder("{title}")
        // Each text in the languages the approval screens speak (`cargo cetp check` names a
        // missing one).
        .description(
            Localized::new("The items you keep in {title}")
                .with("ar", "العناصر التي تحتفظ بها في {title}")
                .with("de", "Die Einträge, die du in {title} aufbewahrst")
                .with("es", "Los elementos que guardas en {title}")
                .with("fr", "Les éléments que vous gardez dans {title}")
                .with("hi", "वे आइटम जो आप {title} में रखते हैं")
                .with("ja", "{title} に保存しているアイテム")
                .with("pt-BR", "Os itens que você guarda em {title}")
                .with("zh-CN", "你保存在 {title} 中的项目"),
        )
        // Completes "allow <agent> to read: …" on the approval screen: the data, in lower case.
        .scope(
            "items.read",
            Localized::new("your saved items")
                .with("ar", "عناصرك المحفوظة")
                .with("de", "deine gespeicherten Einträge")
                .with("es", "tus elementos guardados")
                .with("fr", "vos éléments enregistrés")
                .with("hi", "आपके सहेजे गए आइटम")
                .with("ja", "保存したアイテム")
                .with("pt-BR", "seus itens salvos")
                .with("zh-CN", "你保存的项目"),
        )
        // No tool hides anything from limited callers; remove this when one does
        // (`CallContext::access`).
        .full_access_only()
        .tools(tools![find_items])
        .state(Items::open(app.files_dir()))
}}

cetp_provider::export_provider!(provider);
"#
    );
    let test = format!(
        r##"//! The provider driven the way an agent app drives it, through `cetp_provider::testing`.

use cetp_provider::testing::{{Consumer, check_conformance}};
use cetp_provider::{{AccessLevel, App, ErrorCode, Provider}};

/// The provider as the Android template starts it (the user's approvals go to `files`).
fn started(files: &tempfile::TempDir) -> Provider {{
    let app = App::new("{package}", files.path());
    {lib_name}::provider(&app).app(app).build().expect("the provider builds")
}}

#[test]
fn the_provider_is_cetp_v1_conformant() {{
    let files = tempfile::tempdir().unwrap();
    check_conformance(&started(&files)).unwrap();
}}

#[test]
fn an_agent_needs_the_users_approval_first() {{
    let files = tempfile::tempdir().unwrap();
    let provider = started(&files);
    let answer = Consumer::new(&provider).execute("find_items", r#"{{"words":"soup"}}"#);
    assert_eq!(answer.error_code(), Some(ErrorCode::AuthRequired), "{{answer}}");
    let hint = answer.get("resolution_hint").unwrap();
    assert!(hint.ends_with("to read: your saved items"), "{{hint}}");
}}

#[test]
fn find_items_answers_an_approved_agent() {{
    let files = tempfile::tempdir().unwrap();
    let provider = started(&files);
    let agent = Consumer::new(&provider);
    agent.approve(AccessLevel::Full).unwrap();
    let answer = agent.execute("find_items", r#"{{"words":"SOUP"}}"#);
    assert_eq!(
        answer.data_json().unwrap(),
        serde_json::json!([{{"id": 1, "title": "Tomato soup"}}])
    );
    let none = agent.execute("find_items", r#"{{"words":"pizza"}}"#);
    assert_eq!(none.data_json().unwrap(), serde_json::json!([]));
}}

#[test]
fn find_items_rejects_bad_arguments() {{
    let files = tempfile::tempdir().unwrap();
    let provider = started(&files);
    let agent = Consumer::new(&provider);
    agent.approve(AccessLevel::Full).unwrap();
    for args in ["{{}}", r#"{{"words":""}}"#, r#"{{"words":"soup","limit":500}}"#] {{
        let answer = agent.execute("find_items", args);
        assert_eq!(answer.error_code(), Some(ErrorCode::InvalidArgs), "{{args}}: {{answer}}");
    }}
}}
"##
    );
    let gradle = format!(
        r#"// The {title} app module: an ordinary Android app plus the CETP template module.
plugins {{
    id("com.android.application") version "{AGP_VERSION}"
    id("org.jetbrains.kotlin.android") version "{KOTLIN_VERSION}" // the launcher Activity
}}

android {{
    namespace = "{package}" // also the application id
    compileSdk = {TARGET_SDK}
    // The template module's NDK too (gradle.properties): 16 KB page-aligned libraries.
    ndkVersion = providers.gradleProperty("cetp.ndkVersion").get()
    defaultConfig {{
        minSdk = 21
        targetSdk = {TARGET_SDK}
        // The authority agents call, and the Rust library the template loads (lib{lib_name}.so).
        manifestPlaceholders["cetpAuthority"] = "{package}.tools"
        manifestPlaceholders["cetpLibrary"] = "{lib_name}"
        // Serve the Apex agent's plugin host too (off by default):
        // resValue("bool", "cetp_serve_apex", "true")
    }}
}}

dependencies {{ implementation(project(":cetp")) }} // the template module
"#
    );
    let settings = format!(
        "// This directory is the app module and the root of its Gradle build.\n\
         pluginManagement {{ repositories {{ google(); mavenCentral() }} }}\n\
         dependencyResolutionManagement {{ repositories {{ google(); mavenCentral() }} }}\n\n{template}"
    );
    let properties = format!(
        "# The Rust crate the template's cargoNdk task builds, relative to this (root) project.\n\
         cetp.rustCrate=..\n\
         # The NDK of the app and the template module: r28+ links 16 KB page-aligned libraries.\n\
         cetp.ndkVersion={NDK_VERSION}\n\
         # ABIs to build (default: arm64-v8a,armeabi-v7a,x86_64); a debug build Android Studio\n\
         # deploys builds the device's only. Debug builds use cargo's dev profile.\n\
         # cetp.abis=arm64-v8a\n\
         # Callers need no Android permission; the SDK's authorization decides. See the\n\
         # template's README before setting cetp.requireAccessToolsPermission=true.\n"
    );
    let manifest = format!(
        "<!-- The template's manifest, merged in, declares the provider, the discovery service and\n     \
         the approval screen. Your app's own components go here; supportsRtl lets the approval\n     \
         screens read right to left in Arabic and Hebrew. -->\n\
         <manifest xmlns:android=\"http://schemas.android.com/apk/res/android\">\n    \
         <application android:label=\"{title}\" android:supportsRtl=\"true\">\n        \
         <!-- The launcher screen (src/main/kotlin), so Android Studio's Run has an Activity. -->\n        \
         <activity android:name=\".MainActivity\" android:exported=\"true\">\n            \
         <intent-filter>\n                \
         <action android:name=\"android.intent.action.MAIN\" />\n                \
         <category android:name=\"android.intent.category.LAUNCHER\" />\n            \
         </intent-filter>\n        \
         </activity>\n    \
         </application>\n\
         </manifest>\n"
    );
    let activity = format!(
        r#"package {package}

import android.app.Activity
import android.os.Bundle
import android.view.Gravity
import android.widget.Button
import android.widget.LinearLayout
import android.widget.TextView
import dev.cetp.CetpScreens

/**
 * The launcher screen: the app's name and the template's "Apps with access" screen, where the
 * phone's owner sees and changes which agent apps may read the app's data. Replace it with the
 * app's own screens; link "Apps with access" from the app's settings.
 */
class MainActivity : Activity() {{
    override fun onCreate(savedInstanceState: Bundle?) {{
        super.onCreate(savedInstanceState)
        val padding = (24 * resources.displayMetrics.density).toInt()
        setContentView(
            LinearLayout(this).apply {{
                orientation = LinearLayout.VERTICAL
                gravity = Gravity.CENTER
                setPadding(padding, padding, padding, padding)
                addView(TextView(context).apply {{
                    text = applicationInfo.loadLabel(packageManager)
                    textSize = 22f
                    gravity = Gravity.CENTER
                }})
                addView(Button(context).apply {{
                    setText(dev.cetp.R.string.cetp_manage_button)
                    setOnClickListener {{ startActivity(CetpScreens.grantsIntent(context)) }}
                }})
            }},
        )
    }}
}}
"#
    );
    let readme = format!(
        r#"# {title}

The {title} app's data as read-only tools for on-device AI agents, over CETP v1 (and the Apex
plugin interface when the app turns it on), built with cetp-rs.

```
Cargo.toml                       the Rust crate: cdylib for the app, rlib for tests and tools
src/lib.rs                       the tool `find_items`, the provider, export_provider!
tests/provider.rs                host tests through cetp_provider::testing
android/build.gradle.kts         the app module: namespace, the two placeholders, the template
android/settings.gradle.kts      includes the SDK's template module `:cetp`
android/gradle.properties        where the Rust crate is (cetp.rustCrate=..), the NDK, the ABIs
android/src/main/AndroidManifest.xml
android/src/main/kotlin/         the launcher Activity (MainActivity.kt)
android/src/test/java/           the app's own Robolectric tests (ProviderTest.java), through
                                 the SDK's test kit
```

## Commands

```sh
cargo test           # the provider as an agent app calls it
cargo cetp check     # schemas per LLM API, conformance, descriptions, scope wording, android/
cargo cetp mcp       # serve the tools to an MCP client (MCP Inspector, a desktop LLM app)
cargo cetp build     # the host bundle: the provider, the Android template, the app's Java
cargo cetp test      # android/src/test/ on Robolectric against the host bundle (JDK 17, Maven)
cargo cetp preview   # the consent dialog and Apps with access as PNGs: light, night, Arabic
```

`cargo cetp test` compiles the tests in `android/src/test/java` (and `android/src/test/kotlin`)
with the SDK's test kit (`dev.cetp.testkit`: `CetpTestRule`, `Agent`, `ToolReply`,
`ConsentDialog`, `AppsWithAccess`, and `V2Session` for an agent that speaks CETP v2) and runs
them under Robolectric against the app's host bundle, the provider as it runs on a phone;
`ProviderTest.java` is an example.
`cargo cetp test --test ProviderTest` runs one class. Maven downloads Robolectric and the
Android framework jars on the first run.

`cargo cetp mcp --access limited` or `--access unapproved` shows what a limited or a not yet
approved agent gets; `cargo cetp mcp --help` lists the options.

## On Android

`android/` is a complete Gradle build whose root project is the app module (open it in
Android Studio); it needs the Android Gradle Plugin, the NDK `{NDK_VERSION}` (SDK Manager),
`cargo install cargo-ndk` and `rustup target add aarch64-linux-android armv7-linux-androideabi
x86_64-linux-android` (see the SDK's `android-template/README.md`). The application id is
`{package}`, agents call the authority `{package}.tools`, and the template loads
`lib{lib_name}.so`. It targets API {TARGET_SDK}.

Before each build the template runs `cargo ndk` (`cargoNdkDebug` with cargo's `dev` profile,
`cargoNdkRelease` with `release`); a debug build Android Studio deploys builds only the
device's ABI, `-Pcetp.abis=arm64-v8a` chooses. **Android Studio's Gradle daemon does not read
your shell profile**: `cargo` must be on the `PATH` of the environment Studio starts from
(rustup's `~/.cargo/bin`, which the template also tries), or set `cetp.cargo=/path/to/cargo`
in `android/gradle.properties`.

`cargo cetp check` also checks every library an Android build left (`target/<android
target>/`, `android/build/`) for 16 KB page alignment, which Google Play requires; the NDK above
links that way.

## Next steps

- Replace `Items::open` with your data (a database in `app.files_dir()`).
- Write a doc comment on every tool and every parameter: they are what the model reads.
- A thing asked for by id that does not exist answers `INVALID_ARGS` naming where valid ids
  come from; a search that finds nothing answers an empty list (see `ToolError`).
"#
    );
    let java_package = package.clone();
    let java_test = format!(
        r#"package {java_package};

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import android.app.Activity;
import dev.cetp.testkit.Agent;
import dev.cetp.testkit.Approval;
import dev.cetp.testkit.CetpTestRule;
import dev.cetp.testkit.ConsentDialog;
import dev.cetp.testkit.ToolReply;
import java.nio.charset.StandardCharsets;
import org.json.JSONObject;
import org.junit.Rule;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;

/**
 * The app as an agent app meets it on a phone: the provider, the Android template and the
 * consent dialog, under Robolectric against the app's host bundle. Run with `cargo cetp test`.
 */
@RunWith(RobolectricTestRunner.class)
public class ProviderTest {{
  @Rule public final CetpTestRule cetp = new CetpTestRule();

  private Agent agent() {{
    return cetp.agent(
        "com.example.agent", "Example Agent", 10_123,
        "example agent signing key".getBytes(StandardCharsets.UTF_8));
  }}

  @Test
  public void theUserAllowsAnAgentOnTheConsentDialog() throws Exception {{
    Agent agent = agent();
    ToolReply refused = agent.call("find_items", "{{\"words\":\"soup\"}}").assertError("AUTH_REQUIRED");
    assertTrue(refused.resolutionHint(), refused.resolutionHint().endsWith("your saved items"));

    try (ConsentDialog dialog = agent.openConsentDialog(refused)) {{
      assertTrue(dialog.text(), dialog.question().contains("Example Agent"));
      assertTrue(dialog.text(), dialog.question().contains("your saved items"));
      dialog.allow(ConsentDialog.Duration.ONE_DAY, Approval.Access.FULL);
      assertEquals(Activity.RESULT_OK, dialog.resultCode());
    }}

    JSONObject soup = agent.call("find_items", "{{\"words\":\"soup\"}}").jsonArray().getJSONObject(0);
    assertEquals("Tomato soup", soup.getString("title"));
  }}

  @Test
  public void anApprovedAgentGetsModelReadableErrors() {{
    Agent agent = agent().approve(Approval.full());
    agent.call("find_items", "{{\"words\":\"soup\",\"limit\":500}}")
        .assertError("INVALID_ARGS")
        .assertMessageContains("500 is greater than the maximum of 50");
    assertEquals(0, agent.call("find_items", "{{\"words\":\"pizza\"}}").jsonArray().length());
  }}
}}
"#
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
