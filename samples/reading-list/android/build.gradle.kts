// The Reading list sample app: its Kotlin calls the Rust core through UniFFI (JNA), and the
// CETP template serves the same library's tools. One native library: libreading_core.so.
plugins {
    id("com.android.application") version "8.7.3"
    id("org.jetbrains.kotlin.android") version "2.0.21"
}

android {
    namespace = "dev.cetp.samples.readinglist" // also the application id
    compileSdk = 34
    defaultConfig {
        minSdk = 21
        targetSdk = 34
        // The authority agents call, and the library the template loads: the core's, which
        // is not named after the crate (`[lib] name = "reading_core"` in Cargo.toml).
        manifestPlaceholders["cetpAuthority"] = "dev.cetp.samples.readinglist.tools"
        manifestPlaceholders["cetpLibrary"] = "reading_core"
    }
    // The Kotlin bindings, generated from the built library by the crate's uniffi-bindgen
    // (README.md, "On Android").
    sourceSets["main"].kotlin.srcDir(layout.buildDirectory.dir("generated/uniffi"))
}

dependencies {
    implementation(project(":cetp")) // the template module
    implementation("net.java.dev.jna:jna:5.19.1@aar") // UniFFI's Kotlin bindings call through JNA
}
