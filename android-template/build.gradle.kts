// CETP v1 Tool Provider: drop-in Android library module of cetp-rs.
//
// settings.gradle.kts: include(":cetp"), its projectDir the directory of the crate
// cetp-android-template that `cargo metadata` of the app's Rust crate names (what `cargo cetp
// new` and `init` write), or an SDK checkout's android-template/
// app/build.gradle.kts: implementation(project(":cetp")) plus the placeholders and the Rust
// crate location (see README.md).
//
// Framework APIs only, and JSpecify's nullness annotations (below).

plugins {
    id("com.android.library")
}

dependencies {
    // The public Java API is @NullMarked (JSpecify): `api`, so the app module's Kotlin compiler
    // reads the annotations and sees non-null types. Four annotation classes, no code at run time
    // (R8 drops them). The host bundle (`cargo cetp build`) compiles against the same version.
    api("org.jspecify:jspecify:1.0.0")
}

// The module's sources may sit where Cargo keeps the crate that ships them (its registry cache,
// shared by every build on the machine): what Gradle makes of them goes into the app build's
// own build directory instead, `build/cetp/`.
layout.buildDirectory.set(rootProject.layout.buildDirectory.dir("cetp"))

android {
    namespace = "dev.cetp"
    compileSdk = 36
    // The NDK the Rust library is linked with (the cargoNdk task hands it to cargo-ndk) and AGP
    // strips and packages with. r28 and newer link 16 KB page-aligned libraries by default,
    // which Google Play requires of apps targeting Android 15+ (see README.md, "16 KB pages").
    // Set cetp.ndkVersion in gradle.properties to use another one (the app module reads the
    // same property, so both use one NDK).
    ndkVersion = providers.gradleProperty("cetp.ndkVersion").getOrElse("29.0.14206865")

    defaultConfig {
        minSdk = 21
        consumerProguardFiles("consumer-rules.pro")
        // The provider's android:permission: none by default (the SDK's own authorization decides
        // who may call); `cetp.requireAccessToolsPermission=true` in gradle.properties requires
        // com.clawseed.permission.ACCESS_TOOLS, for ecosystems whose agent defines it.
        val requireAccessTools =
            providers.gradleProperty("cetp.requireAccessToolsPermission").orNull == "true"
        manifestPlaceholders["cetpProviderPermission"] =
            if (requireAccessTools) "com.clawseed.permission.ACCESS_TOOLS" else ""
        // CETP v1 and v2 by default; `cetp.v2=false` in gradle.properties serves and advertises
        // v1 only.
        val servesV2 = providers.gradleProperty("cetp.v2").orNull != "false"
        manifestPlaceholders["cetpProtocolVersions"] = if (servesV2) "1,2" else "1"
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

    // The Rust libraries built by the cargoNdk tasks below: a debug build packages the debug
    // libraries, a release build the release ones.
    sourceSets["debug"].jniLibs.srcDir(layout.buildDirectory.dir("rustJniLibs/debug"))
    sourceSets["release"].jniLibs.srcDir(layout.buildDirectory.dir("rustJniLibs/release"))
}

// ---------------------------------------------------------------------------------------------
// Rust: build the app's crate with cargo-ndk (https://github.com/bbqsrc/cargo-ndk) into
// build/cetp/rustJniLibs/<debug|release>/<abi>/lib<name>.so, before the native libraries are merged:
// cargoNdkDebug before a debug build, cargoNdkRelease before a release build.
//
// Set in gradle.properties (or with -P):
//   cetp.rustCrate=../rust             directory of the app's Rust crate (crate-type = ["cdylib"])
//   cetp.abis=arm64-v8a,x86_64         ABIs to build [default: arm64-v8a,armeabi-v7a,x86_64; a
//                                      debug build Android Studio deploys builds the device's]
//   cetp.rustProfile=release           cargo profile of release builds [default: release]
//   cetp.rustDebugProfile=dev          cargo profile of debug builds [default: dev]
//   cetp.cargo=/path/to/cargo          cargo to run [default: `cargo` on PATH, else ~/.cargo/bin]
//   cetp.ndkVersion=29.0.14206865      the NDK (above)
// Needs: cargo, cargo-ndk 4 (`cargo install cargo-ndk`), the NDK of ndkVersion (Android Studio's
// SDK Manager), and `rustup target add aarch64-linux-android armv7-linux-androideabi
// x86_64-linux-android`.
// ---------------------------------------------------------------------------------------------

val cetpAllAbis = listOf("arm64-v8a", "armeabi-v7a", "x86_64")
// The Rust target of each ABI, for the linker flag below.
val cetpAbiTargets =
    mapOf(
        "arm64-v8a" to "aarch64-linux-android",
        "armeabi-v7a" to "armv7-linux-androideabi",
        "x86_64" to "x86_64-linux-android",
    )
// Android Studio passes the ABIs of the device it deploys to: a debug build for one emulator
// then builds one ABI.
val cetpDeviceAbis: List<String> =
    providers.gradleProperty("android.injected.build.abi").orNull
        ?.split(',')?.map { it.trim() }?.filter { it in cetpAllAbis }?.take(1).orEmpty()
val cetpAbis: List<String> =
    providers.gradleProperty("cetp.abis").orNull
        ?.split(',')?.map { it.trim() }?.filter { it.isNotEmpty() }
        ?: cetpAllAbis
cetpAbis.forEach { abi ->
    require(abi in cetpAllAbis) { "cetp.abis: unknown ABI `$abi` (use ${cetpAllAbis.joinToString()})" }
}
val rustCrate: String? = providers.gradleProperty("cetp.rustCrate").orNull
val rustProfiles =
    mapOf(
        "Debug" to providers.gradleProperty("cetp.rustDebugProfile").getOrElse("dev"),
        "Release" to providers.gradleProperty("cetp.rustProfile").getOrElse("release"),
    )
// Android Studio's Gradle daemon does not read the shell's profile: find cargo on its PATH,
// else where rustup puts it, unless cetp.cargo names it.
val cargoExecutable: String =
    providers.gradleProperty("cetp.cargo").orNull
        ?: File(providers.systemProperty("user.home").get(), ".cargo/bin/cargo")
            .takeIf { rustup ->
                rustup.canExecute() &&
                    providers.environmentVariable("PATH").getOrElse("").split(File.pathSeparator)
                        .none { File(it, "cargo").canExecute() }
            }?.path
        ?: "cargo"
// The NDK of ndkVersion, the one AGP strips and packages with.
val cetpNdkDirectory = androidComponents.sdkComponents.ndkDirectory

rustProfiles.forEach { (variant, profile) ->
    val task = tasks.register<Exec>("cargoNdk$variant") {
        group = "build"
        val abis = if (variant == "Debug" && cetpDeviceAbis.isNotEmpty() &&
            !providers.gradleProperty("cetp.abis").isPresent) cetpDeviceAbis else cetpAbis
        description = "Builds the app's CETP Rust crate ($profile profile) for ${abis.joinToString()} with cargo-ndk."
        val crateDir = rustCrate?.let { rootProject.file(it) }
        val outDir = layout.buildDirectory.dir("rustJniLibs/${variant.lowercase()}")
        onlyIf("cetp.rustCrate is set") { crateDir != null }
        if (crateDir != null) workingDir = crateDir
        // Cargo reads more than any list of inputs here would name (Cargo.lock, build.rs, path
        // dependencies such as the SDK checkout, environment, toolchain), and it knows when
        // nothing changed (about 0.1 s per ABI): the task always runs and cargo decides.
        outputs.upToDateWhen { false }
        outputs.dir(outDir)
        val args = mutableListOf(cargoExecutable, "ndk")
        abis.forEach { args += listOf("-t", it) }
        args += listOf("-o", outDir.get().asFile.absolutePath, "build")
        if (profile == "release") args += "--release" else args += listOf("--profile", profile)
        commandLine(args)
        // The SDK catches panics at the JNI edge and refuses to start under panic = "abort", so the
        // task keeps unwinding whatever the profile says. Size settings (lto, codegen-units,
        // opt-level) are the app's choice, in its own [profile.release]: README.md gives measured ones.
        environment("CARGO_PROFILE_${profile.uppercase().replace('-', '_')}_PANIC", "unwind")
        // 16 KB pages for the 64-bit ABIs whatever the NDK: r28+ already links this way, older
        // ones need the flag (appended to the app's own target rustflags; RUSTFLAGS set in the
        // environment would replace them, see README.md).
        listOf("arm64-v8a", "x86_64").forEach { abi ->
            val target = cetpAbiTargets.getValue(abi).uppercase().replace('-', '_')
            environment("CARGO_TARGET_${target}_RUSTFLAGS", "-Clink-arg=-Wl,-z,max-page-size=16384")
        }
        // cargo-ndk links with the NDK of ndkVersion, the one AGP packages with.
        doFirst { environment("ANDROID_NDK_HOME", cetpNdkDirectory.get().asFile.absolutePath) }
    }
    tasks.matching { it.name == "pre${variant}Build" }.configureEach { dependsOn(task) }
}
