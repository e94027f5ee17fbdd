// CETP v1 Tool Provider: drop-in Android library module of cetp-rs.
//
// settings.gradle.kts:  include(":cetp")  and  project(":cetp").projectDir = file("<path>/android-template")
// app/build.gradle.kts: implementation(project(":cetp")) plus the placeholders and the Rust
// crate location (see README.md).
//
// Framework APIs only; no dependencies.

plugins {
    id("com.android.library")
}

android {
    namespace = "dev.cetp"
    compileSdk = 34

    defaultConfig {
        minSdk = 21
        consumerProguardFiles("consumer-rules.pro")
        // The provider's android:permission: none by default (the SDK's own authorization decides
        // who may call); `cetp.requireAccessToolsPermission=true` in gradle.properties requires
        // com.clawseed.permission.ACCESS_TOOLS, for ecosystems whose consumer defines it.
        val requireAccessTools =
            providers.gradleProperty("cetp.requireAccessToolsPermission").orNull == "true"
        manifestPlaceholders["cetpProviderPermission"] =
            if (requireAccessTools) "com.clawseed.permission.ACCESS_TOOLS" else ""
    }

    // The Apex plugin interface (src/main/aidl/com/apex/agent/plugin/api/IApexPlugin.aidl): AGP
    // generates its Stub, as the Apex host's own build does from the same file.
    buildFeatures {
        aidl = true
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }

    // The Rust libraries built by `cargoNdk` below.
    sourceSets["main"].jniLibs.srcDir(layout.buildDirectory.dir("rustJniLibs"))
}

// ---------------------------------------------------------------------------------------------
// Rust: build the app's crate with cargo-ndk (https://github.com/bbqsrc/cargo-ndk) for every ABI
// into build/rustJniLibs/<abi>/lib<name>.so, before the native libraries are merged.
//
// Set in gradle.properties (or with -P):
//   cetp.rustCrate=../rust        directory of the app's Rust crate (crate-type = ["cdylib"])
//   cetp.rustProfile=release      cargo profile (release | dev)
// Needs: cargo, cargo-ndk (`cargo install cargo-ndk`), the Android NDK (ANDROID_NDK_HOME or the
// SDK's ndk/ folder), and `rustup target add aarch64-linux-android armv7-linux-androideabi x86_64-linux-android`.
// ---------------------------------------------------------------------------------------------

val cetpAbis = listOf("arm64-v8a", "armeabi-v7a", "x86_64")
val rustCrate: String? = providers.gradleProperty("cetp.rustCrate").orNull
val rustProfile: String = providers.gradleProperty("cetp.rustProfile").getOrElse("release")

val cargoNdk by tasks.registering(Exec::class) {
    group = "build"
    description = "Builds the app's CETP Rust crate for ${cetpAbis.joinToString()} with cargo-ndk."
    val crateDir = rustCrate?.let { rootProject.file(it) }
    val outDir = layout.buildDirectory.dir("rustJniLibs")
    onlyIf("cetp.rustCrate is set") { crateDir != null }
    if (crateDir != null) {
        workingDir = crateDir
        inputs.dir(crateDir.resolve("src"))
        inputs.file(crateDir.resolve("Cargo.toml"))
    }
    outputs.dir(outDir)
    val args = mutableListOf("cargo", "ndk")
    cetpAbis.forEach { args += listOf("-t", it) }
    args += listOf("-o", outDir.get().asFile.absolutePath, "build")
    if (rustProfile == "release") args += "--release" else args += listOf("--profile", rustProfile)
    commandLine(args)
    // The SDK catches panics at the JNI edge and refuses to start under panic = "abort", so the
    // task keeps unwinding whatever the profile says. Size settings (lto, codegen-units,
    // opt-level) are the app's choice, in its own [profile.release]: README.md gives measured ones.
    environment("CARGO_PROFILE_${rustProfile.uppercase().replace('-', '_')}_PANIC", "unwind")
}

tasks.named("preBuild") { dependsOn(cargoNdk) }
