//! `cargo cetp init` on an Android project that exists, written here the way Android Studio
//! lays one out: a root project (`settings.gradle.kts`, `build.gradle.kts`, a version catalog,
//! `gradle.properties`), an `:app` module in Kotlin with its own manifest, resources, launcher
//! Activity and unit test, and a second module (`:core`, a Kotlin library). Then, as its
//! developer would: the crate's `cargo test`, `cargo cetp check` from the crate's directory,
//! `build`, `test` (a Kotlin test of the app's own, in `app/src/test/java`, through the test
//! kit, beside the app's plain JUnit test) and `preview`; a second `init` changes nothing.
//!
//! Like `new_app`, minutes of compiling and Maven, so plain `cargo test` leaves it out
//! (`test = false`) and `cargo xtask test` runs it (`cargo test -p cargo-cetp --test
//! existing_app`), into this workspace's target directory with its `Cargo.lock`.

use std::path::Path;
use std::process::Command;

mod common;

use common::{assert_previewed, cargo_cetp, run, snapshot, target_dir, workspace};

/// The project before the provider: every file, relative path → text.
fn fixture() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "settings.gradle.kts",
            r#"pluginManagement {
    repositories {
        google()
        mavenCentral()
        gradlePluginPortal()
    }
}
dependencyResolutionManagement {
    repositoriesMode.set(RepositoriesMode.FAIL_ON_PROJECT_REPOS)
    repositories {
        google()
        mavenCentral()
    }
}

rootProject.name = "Reading List"
include(":app")
include(":core")
"#,
        ),
        (
            "build.gradle.kts",
            r#"// Top-level build file where you can add configuration options common to all sub-projects/modules.
plugins {
    alias(libs.plugins.android.application) apply false
    alias(libs.plugins.kotlin.android) apply false
    alias(libs.plugins.kotlin.jvm) apply false
}
"#,
        ),
        (
            "gradle/libs.versions.toml",
            r#"[versions]
agp = "8.7.3"
kotlin = "2.0.21"
coreKtx = "1.15.0"
junit = "4.13.2"

[libraries]
androidx-core-ktx = { group = "androidx.core", name = "core-ktx", version.ref = "coreKtx" }
junit = { group = "junit", name = "junit", version.ref = "junit" }

[plugins]
android-application = { id = "com.android.application", version.ref = "agp" }
kotlin-android = { id = "org.jetbrains.kotlin.android", version.ref = "kotlin" }
kotlin-jvm = { id = "org.jetbrains.kotlin.jvm", version.ref = "kotlin" }
"#,
        ),
        (
            "gradle.properties",
            "org.gradle.jvmargs=-Xmx2048m -Dfile.encoding=UTF-8\nandroid.useAndroidX=true\nkotlin.code.style=official\nandroid.nonTransitiveRClass=true\n",
        ),
        (
            "app/build.gradle.kts",
            r#"plugins {
    alias(libs.plugins.android.application)
    alias(libs.plugins.kotlin.android)
}

android {
    namespace = "com.example.readinglist"
    compileSdk = 35

    defaultConfig {
        applicationId = "com.example.readinglist"
        minSdk = 24
        targetSdk = 35
        versionCode = 1
        versionName = "1.0"

        testInstrumentationRunner = "androidx.test.runner.AndroidJUnitRunner"
    }

    buildTypes {
        release {
            isMinifyEnabled = false
            proguardFiles(getDefaultProguardFile("proguard-android-optimize.txt"), "proguard-rules.pro")
        }
    }
    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_11
        targetCompatibility = JavaVersion.VERSION_11
    }
    kotlinOptions {
        jvmTarget = "11"
    }
}

dependencies {
    implementation(project(":core"))
    implementation(libs.androidx.core.ktx)
    testImplementation(libs.junit)
}
"#,
        ),
        (
            "app/src/main/AndroidManifest.xml",
            r#"<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="http://schemas.android.com/apk/res/android">

    <application
        android:allowBackup="true"
        android:icon="@drawable/ic_launcher"
        android:label="@string/app_name"
        android:supportsRtl="true"
        android:theme="@style/Theme.ReadingList">
        <activity
            android:name=".MainActivity"
            android:exported="true">
            <intent-filter>
                <action android:name="android.intent.action.MAIN" />
                <category android:name="android.intent.category.LAUNCHER" />
            </intent-filter>
        </activity>
    </application>

</manifest>
"#,
        ),
        (
            "app/src/main/res/values/strings.xml",
            "<resources>\n    <string name=\"app_name\">Reading list</string>\n    <string name=\"empty_list\">Nothing to read yet</string>\n</resources>\n",
        ),
        (
            "app/src/main/res/values/themes.xml",
            "<resources>\n    <style name=\"Theme.ReadingList\" parent=\"android:Theme.Material.Light.NoActionBar\" />\n</resources>\n",
        ),
        (
            "app/src/main/res/layout/activity_main.xml",
            r#"<?xml version="1.0" encoding="utf-8"?>
<LinearLayout xmlns:android="http://schemas.android.com/apk/res/android"
    android:layout_width="match_parent"
    android:layout_height="match_parent"
    android:orientation="vertical">
    <TextView
        android:id="@+id/empty"
        android:layout_width="wrap_content"
        android:layout_height="wrap_content"
        android:text="@string/empty_list" />
</LinearLayout>
"#,
        ),
        (
            "app/src/main/res/drawable/ic_launcher.xml",
            r##"<shape xmlns:android="http://schemas.android.com/apk/res/android" android:shape="oval">
    <solid android:color="#FF3F51B5" />
</shape>
"##,
        ),
        (
            "app/src/main/java/com/example/readinglist/MainActivity.kt",
            r#"package com.example.readinglist

import android.app.Activity
import android.os.Bundle
import com.example.readinglist.core.Shelf

class MainActivity : Activity() {
    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        setContentView(R.layout.activity_main)
        title = Shelf.title
    }
}
"#,
        ),
        (
            "app/src/test/java/com/example/readinglist/ExampleUnitTest.kt",
            r#"package com.example.readinglist

import org.junit.Assert.assertEquals
import org.junit.Test

class ExampleUnitTest {
    @Test
    fun addition_isCorrect() {
        assertEquals(4, 2 + 2)
    }
}
"#,
        ),
        (
            "core/build.gradle.kts",
            "plugins {\n    alias(libs.plugins.kotlin.jvm)\n}\n",
        ),
        (
            "core/src/main/kotlin/com/example/readinglist/core/Shelf.kt",
            "package com.example.readinglist.core\n\nobject Shelf {\n    const val title = \"Reading list\"\n}\n",
        ),
    ]
}

/// The app's own test of its provider, in Kotlin, through the SDK's test kit: the app's
/// resources are there, an approved agent finds an item.
const PROVIDER_TEST: &str = r#"package com.example.readinglist

import dev.cetp.testkit.Approval
import dev.cetp.testkit.CetpTestRule
import org.junit.Assert.assertEquals
import org.junit.Rule
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner

@RunWith(RobolectricTestRunner::class)
class ReadingToolsTest {
    @get:Rule val cetp = CetpTestRule()

    @Test
    fun theAppsOwnResourcesAreThere() {
        val context = cetp.context()
        val name = context.resources.getIdentifier("app_name", "string", cetp.packageName())
        assertEquals("Reading list", context.getString(name))
    }

    @Test
    fun anApprovedAgentFindsAnItem() {
        val agent = cetp
            .agent("com.example.agent", "Example Agent", 10_123, "agent key".toByteArray())
            .approve(Approval.full())
        val found = agent.call("find_items", """{"words":"cake"}""").jsonArray()
        assertEquals("Lemon cake", found.getJSONObject(0).getString("title"))
    }
}
"#;

#[test]
fn init_adds_the_provider_to_an_existing_project() {
    let scratch = tempfile::tempdir().unwrap();
    let project = scratch.path().join("reading-list");
    for (path, text) in fixture() {
        let path = project.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let before = snapshot(&project);

    let printed = run(cargo_cetp(&["init"]).current_dir(project.join("app/src")));
    for line in [
        "changed   rust: the Rust crate `reading-list` (libreading_list.so)",
        "changed   settings.gradle.kts: include(\":cetp\") from ",
        "changed   gradle.properties: cetp.rustCrate=rust\n",
        "changed   app/build.gradle.kts: the placeholder cetpLibrary under defaultConfig; cetpAuthority from each variant's application id (androidComponents); implementation(project(\":cetp\")); the test kit, Robolectric and JUnit as test dependencies\n",
        "changed   settings.gradle.kts: the local Maven repository for the CETP test kit (dev.cetp only)\n",
        "changed   app/src/test/java/com/example/readinglist/AgentToolsTest.kt: a test of the tools through the test kit",
        "changed   gradle/libs.versions.toml: [plugins] android-library = { id = \"com.android.library\", version.ref = \"agp\" }\n",
        "changed   build.gradle.kts: alias(libs.plugins.android.library) apply false\n",
        "cargo cetp init: 8 file(s) changed, 0 left to you\n",
    ] {
        assert!(printed.contains(line), "no {line:?} in:\n{printed}");
    }
    // The app's own sources are untouched; only the build files named above changed.
    let after = snapshot(&project);
    for (path, bytes) in &before {
        let changed = [
            "settings.gradle.kts",
            "gradle.properties",
            "app/build.gradle.kts",
            "gradle/libs.versions.toml",
            "build.gradle.kts",
        ]
        .iter()
        .any(|p| path == Path::new(p));
        assert_eq!(after[path] != *bytes, changed, "{}", path.display());
    }

    let crate_dir = project.join("rust");
    std::fs::copy(workspace().join("Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let tests = run(Command::new(&cargo)
        .arg("test")
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", target_dir()));
    assert!(tests.contains("test result: ok. 5 passed"), "{tests}");

    // `check` from the crate's directory finds the app module in ../app by itself.
    let checked = run(cargo_cetp(&["check"]).current_dir(&crate_dir));
    assert!(
        checked.contains(
            "`reading-list`, provider \"Reading list\" for com.example.readinglist, 1 tool(s)"
        ),
        "{checked}"
    );
    assert!(
        checked.contains("authority agents call: com.example.readinglist.tools"),
        "{checked}"
    );
    assert!(checked.contains("0 error(s), 0 warning(s)"), "{checked}");

    // The app's own Kotlin test through the kit, beside its plain unit test.
    std::fs::write(
        project.join("app/src/test/java/com/example/readinglist/ReadingToolsTest.kt"),
        PROVIDER_TEST,
    )
    .unwrap();
    let manifest = crate_dir.join("Cargo.toml");
    let manifest = manifest.to_str().unwrap();
    let built = run(&mut cargo_cetp(&["build", "--manifest-path", manifest]));
    assert_eq!(built, "", "build reports on stderr only");
    let bundle = target_dir().join("cetp-host/rust");
    let merged = std::fs::read_to_string(bundle.join("AndroidManifest.xml")).unwrap();
    assert!(
        merged.contains("package=\"com.example.readinglist\""),
        "{merged}"
    );
    assert!(merged.contains("android:authorities=\"com.example.readinglist.tools\""));
    assert!(
        merged.contains("android:name=\".MainActivity\""),
        "{merged}"
    );
    assert!(bundle.join("libreading_list.so").is_file());

    let tested = run(&mut cargo_cetp(&["test", "--manifest-path", manifest]));
    for line in [
        "  ok      ExampleUnitTest.addition_isCorrect\n",
        "  ok      ReadingToolsTest.anApprovedAgentFindsAnItem\n",
        "  ok      ReadingToolsTest.theAppsOwnResourcesAreThere\n",
        "  ok      AgentToolsTest.theProviderHasTheAppsName\n",
        "  ok      AgentToolsTest.cetpV2AgentsAcceptTheProvider\n",
        "7 passed, 0 failed, 0 skipped\n",
    ] {
        assert!(tested.contains(line), "no {line:?} in:\n{tested}");
    }

    assert_previewed(manifest);

    // A second run finds everything in place and writes nothing.
    let before = snapshot(&project);
    let again = run(cargo_cetp(&["init", project.to_str().unwrap()]).current_dir(scratch.path()));
    assert!(
        again.contains(
            "cargo cetp init: 0 file(s) changed, 0 left to you (nothing to do: already set up)"
        ),
        "{again}"
    );
    assert_eq!(snapshot(&project), before, "the second init changed a file");
}
