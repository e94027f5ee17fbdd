//! The Android library module of [cetp-provider](https://docs.rs/cetp-provider): the exported
//! `ContentProvider` CETP agents call, the Apex plugin Service, the consent screens, their
//! resources and translations, the AIDL interface, the keep rules and the Gradle build that runs
//! cargo-ndk. An app includes it as its `:cetp` Gradle module.
//!
//! It is a crate so that it travels with the SDK's version wherever Cargo puts the SDK (a
//! registry, a git checkout, a path): `cetp-provider`'s `jni` feature depends on this crate, so
//! the app's `cargo metadata` lists it, and its `manifest_path` names the module's directory,
//! the way `rustls-platform-verifier` ships its Android half. No Rust code of it is compiled into
//! an app; [`module_dir`] names the directory for a build script or a tool linked with this
//! very version.

use std::path::Path;

/// The module's directory (`build.gradle.kts`, `src/main/AndroidManifest.xml`, `src/main/java`,
/// `src/main/res`, `src/main/aidl`): where `project(":cetp").projectDir` points.
///
/// ```
/// let dir = cetp_android_template::module_dir();
/// assert!(dir.join("src/main/AndroidManifest.xml").is_file());
/// assert!(dir.join("build.gradle.kts").is_file());
/// ```
pub fn module_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}
