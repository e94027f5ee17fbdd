//! The JNI bridge behind the Android template's `CetpToolProvider` (feature `jni`).
//!
//! An app's Rust crate (a `cdylib`) exports its provider with one line:
//!
//! ```ignore
//! use cetp_provider::{BuildError, Provider, tools};
//!
//! fn build_provider() -> Result<Provider, BuildError> {
//!     Provider::builder("Notes").tools(tools![search_notes]).build()
//! }
//!
//! cetp_provider::export_provider!(build_provider);
//! ```
//!
//! [`export_provider!`](crate::export_provider) emits `JNI_OnLoad`, which registers the natives of
//! the Java class `dev.cetp.NativeBridge` (no mangled symbol names) and caches what call-time
//! code needs. The template then calls, through that class:
//!
//! - `init(filesDir, packageName)` once from `ContentProvider.onCreate`: the build function
//!   runs (with [`app`] already answering), and its error, if any, is returned and logged.
//! - `call(...)` from `ContentProvider.call` on a Binder thread: one JNI crossing carrying the
//!   method, the `arg`, whether extras were present, the three CETP string extras, the calling
//!   UID and the caller's packages with their certificate digests. The reply comes back as a
//!   `String[]` of key/value pairs that Java puts into the Bundle.
//!
//! Guarantees: panics never cross into the JVM (tools' panics become `INTERNAL_ERROR`); no Java
//! exception is left pending; strings with unpaired surrogates are decoded lossily; a library
//! built with `panic = "abort"` refuses to start and answers every call with a clear
//! `INTERNAL_ERROR`. On Android, `log` output goes to logcat under the tag `cetp` (through
//! `android_logger`, installed only if no logger is set yet) and Rust panic messages are logged
//! too (the hook chains to the previous one); elsewhere the bridge only uses the `log` facade.

mod bridge;
mod caller;
mod mutf8;
mod runtime;

use std::ffi::c_void;
use std::panic::catch_unwind;
use std::sync::OnceLock;

pub use runtime::AndroidApp;
use runtime::Runtime;

use crate::provider::{BuildError, Provider};

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

fn runtime() -> Option<&'static Runtime> {
    RUNTIME.get()
}

/// The app the provider runs in, once the template's `onCreate` has reported it.
///
/// Call it from your build function to place files under the app's private directory:
///
/// ```
/// use cetp_provider::{BuildError, Provider};
///
/// fn build_provider() -> Result<Provider, BuildError> {
///     let db = cetp_provider::jni::app()
///         .map(|app| app.files_dir().join("notes.db"));
///     // ... open `db` ...
///     # let _ = db;
///     Provider::builder("Notes").build()
/// }
/// # assert!(build_provider().is_ok());
/// ```
///
/// `None` outside Android (no `JNI_OnLoad`) or before `init`.
pub fn app() -> Option<AndroidApp> {
    runtime().and_then(Runtime::app)
}

/// Exports a provider from an app's `cdylib` to the Android template.
///
/// The argument is a function (or any expression coercing to
/// `fn() -> Result<Provider, BuildError>`). It runs when the template's `ContentProvider` is
/// created, not at library load; its error or panic is logged under the tag `cetp`, and every
/// call then answers `INTERNAL_ERROR`.
///
/// The macro defines `JNI_OnLoad`, so use it once per library. The app crate must be built
/// with `panic = "unwind"` (the default).
///
/// ```ignore
/// cetp_provider::export_provider!(build_provider);
/// ```
#[macro_export]
macro_rules! export_provider {
    ($build:expr $(,)?) => {
        /// JNI entry point: registers the CETP natives on `dev.cetp.NativeBridge`.
        #[unsafe(no_mangle)]
        pub extern "system" fn JNI_OnLoad(
            vm: *mut ::core::ffi::c_void,
            _reserved: *mut ::core::ffi::c_void,
        ) -> i32 {
            $crate::jni::on_load(vm, $build)
        }
    };
}

/// `JNI_OnLoad` behind [`export_provider!`]; not a public API.
#[doc(hidden)]
pub fn on_load(vm: *mut c_void, build: fn() -> Result<Provider, BuildError>) -> i32 {
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
            log::error!(
                "CETP: JNI_OnLoad panicked: {}",
                runtime::panic_text(&*payload)
            );
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
