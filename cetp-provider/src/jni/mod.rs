//! The JNI bridge behind the Android template's `CetpToolProvider` (feature `jni`).
//!
//! An app's Rust crate (a `cdylib`) exports its provider with one line, naming a function that
//! receives the [`App`] and declares the provider:
//!
//! ```ignore
//! use cetp_provider::{App, Provider, ProviderBuilder, tools};
//!
//! fn provider(app: &App) -> ProviderBuilder {
//!     Provider::builder("Notes").tools(tools![search_notes])
//! }
//!
//! cetp_provider::export_provider!(provider);
//! ```
//!
//! The Apex plugin Service's natives (`dev.cetp.ApexBridge`, see [`crate::apex`]) are registered
//! in the same `JNI_OnLoad`, and answer from the same provider.
//!
//! [`export_provider!`](crate::export_provider) emits `JNI_OnLoad`, which registers the natives of
//! the Java class `dev.cetp.NativeBridge` (no mangled symbol names) and caches what call-time
//! code needs. The template then calls, through that class:
//!
//! - `init(filesDir, packageName, versionCode, versionName)` once from
//!   `ContentProvider.onCreate`: the build function runs with that [`App`], the runtime gives
//!   the builder the app ([`ProviderBuilder::app`](crate::ProviderBuilder::app): the grant store
//!   opens under `filesDir`) and builds the provider, once. Its error, if any, is returned and
//!   logged.
//! - `call(method, toolName, args, requestId, callingUid, packages, certificateDigests)` from
//!   `ContentProvider.call` on a Binder thread: one JNI crossing carrying the
//!   [`Request`](crate::Request) and the caller (its UID, the packages under it and each
//!   package's certificate digests, as Java arrays). The reply comes back as a `String[]` of
//!   key/value pairs that Java puts into the Bundle.
//!
//! Guarantees: panics never cross into the JVM (tools' panics become `INTERNAL_ERROR`); no Java
//! exception is left pending; strings with unpaired surrogates are decoded lossily; a library
//! built with `panic = "abort"` refuses to start and answers every call with a clear
//! `INTERNAL_ERROR`. On Android, `log` output goes to logcat under the tag `cetp` (through
//! `android_logger`, installed only if no logger is set yet) and Rust panic messages are logged
//! too (the hook chains to the previous one); elsewhere the bridge only uses the `log` facade.

mod apex;
mod bridge;
mod mutf8;
mod runtime;

use std::ffi::c_void;
use std::panic::catch_unwind;
use std::sync::OnceLock;

use runtime::{BuildFn, Runtime};

use crate::error::panic_text;
#[cfg(doc)]
use crate::{App, ProviderBuilder};

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

fn runtime() -> Option<&'static Runtime> {
    RUNTIME.get()
}

/// Exports a provider from an app's `cdylib` to the Android template.
///
/// The argument names the app's build function: `fn(&App) -> ProviderBuilder`, or
/// `fn(&App) -> Result<ProviderBuilder, E>` with `E: Display` when declaring the provider can
/// fail (a database that does not open). It runs once, when the template's `ContentProvider` is
/// created, not at library load. The runtime then gives the builder the app
/// ([`ProviderBuilder::app`]: the grant store opens under [`App::files_dir`]) and builds the
/// provider. An error or panic in any of this is logged under the tag `cetp`, and every call
/// then answers `INTERNAL_ERROR` saying why.
///
/// The macro defines `JNI_OnLoad`, so use it once per library. The app crate must be built
/// with `panic = "unwind"` (the default).
///
/// ```
/// use cetp_provider::{App, Provider, ProviderBuilder, tool, tools};
///
/// /// Says hello.
/// #[tool]
/// fn hello() -> &'static str { "hello" }
///
/// fn provider(_app: &App) -> ProviderBuilder {
///     Provider::builder("Hello").tools(tools![hello])
/// }
///
/// cetp_provider::export_provider!(provider);
/// # fn main() {}
/// ```
#[macro_export]
#[cfg_attr(docsrs, doc(cfg(feature = "jni")))]
macro_rules! export_provider {
    ($build:expr $(,)?) => {
        /// JNI entry point: registers the CETP natives on `dev.cetp.NativeBridge`.
        #[unsafe(no_mangle)]
        pub extern "system" fn JNI_OnLoad(
            vm: *mut ::core::ffi::c_void,
            _reserved: *mut ::core::ffi::c_void,
        ) -> i32 {
            $crate::jni::on_load(vm, |app| {
                $crate::__private::IntoProviderBuilder::into_provider_builder($build(app))
            })
        }
    };
}

/// `JNI_OnLoad` behind [`export_provider!`]; not a public API.
#[doc(hidden)]
pub fn on_load(vm: *mut c_void, build: BuildFn) -> i32 {
    const JNI_VERSION_1_6: i32 = 0x0001_0006;
    const JNI_ERR: i32 = -1;
    let outcome = catch_unwind(|| {
        install_logging();
        let unwinding = !cfg!(panic = "abort");
        if !unwinding {
            log::error!("CETP: {}", runtime::PANIC_ABORT_REFUSAL);
        }
        if RUNTIME.set(Runtime::new(build, unwinding)).is_err() {
            log::warn!("CETP: JNI_OnLoad ran twice; keeping the first provider function");
        }
        bridge::load(vm)
    });
    match outcome {
        Ok(Ok(())) => JNI_VERSION_1_6,
        Ok(Err(err)) => {
            log::error!(
                "CETP: cannot register the natives of dev.cetp.NativeBridge ({err}); is the cetp Android template module in the app?"
            );
            JNI_ERR
        }
        Err(payload) => {
            log::error!("CETP: JNI_OnLoad panicked: {}", panic_text(&*payload));
            JNI_ERR
        }
    }
}

#[cfg(target_os = "android")]
fn install_logging() {
    use std::sync::Once;
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        android_logger::init_once(
            android_logger::Config::default()
                .with_tag("cetp")
                .with_max_level(log::LevelFilter::Info),
        );
        // stderr goes nowhere on Android: send panic messages (with their location) to logcat,
        // then let the previous hook do whatever it did.
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            log::error!("{info}");
            previous(info);
        }));
    });
}

#[cfg(not(target_os = "android"))]
fn install_logging() {}
