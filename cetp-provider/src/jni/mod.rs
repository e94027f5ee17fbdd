//! The JNI bridge behind the Android template (feature `jni`): `export_provider!`,
//! `JNI_OnLoad`, and the natives of `dev.cetp.NativeBridge` and `dev.cetp.ApexBridge`.
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
//! [`export_provider!`](crate::export_provider) emits `JNI_OnLoad`, which registers the natives
//! (no mangled symbol names) and caches what call-time code needs. The template loads the
//! library and starts the runtime on the first call that needs it, never at process start, and
//! then calls:
//!
//! | Java | native | answered by |
//! |---|---|---|
//! | `NativeBridge.init(filesDir, noBackupDir, packageName, versionCode, versionName)` | `cetp::native_init` | the runtime: build function, provider, hosts |
//! | `NativeBridge.call(method, toolName, args, requestId, uid, token, packages, digests)` | `cetp::native_call` | [`CetpV1Host::call`](crate::host::CetpV1Host::call) |
//! | `NativeBridge.tokenEpoch()` | `cetp::native_token_epoch` | `convert::next_epoch`: the caller tokens' epoch of the Java side asking |
//! | `NativeBridge.constantReply(method)` | `cetp::native_constant_reply` | [`CetpV1Host::constant_reply`](crate::host::CetpV1Host::constant_reply) |
//! | `NativeBridge.admin(requestJson)` | `cetp::native_admin` | the admin JSON of [`crate::auth`] |
//! | `ApexBridge.metadataJson/toolsJson/executeTool/onActivate/onDeactivate(…, uid, token, packages, digests)` | `apex::native_*` | [`ApexHost`](crate::host::apex::ApexHost) |
//!
//! Each call crosses JNI once, carrying the caller's identity as the template resolved it (its
//! UID, a token naming that identity, the packages under the UID and each package's certificate
//! digests); the arrays are decoded once per identity and Binder thread (`convert::caller`).
//! A token names an identity only for the Java side that made it, from an epoch this library
//! gave that side, and only with the UID it was read with.
//!
//! Guarantees: panics never cross into the JVM (tools' panics become `INTERNAL_ERROR`); no Java
//! exception is left pending; strings with unpaired surrogates are decoded lossily; a native
//! that cannot answer (the provider is not running, a JNI failure) returns null and the template
//! makes the reply itself; a library built with `panic = "abort"` refuses to start and the
//! template answers every call with a clear `INTERNAL_ERROR`. On Android, `log` output goes to
//! logcat under the tag `cetp` (through `android_logger`, installed only if no logger is set
//! yet) and Rust panic messages are logged too (the hook chains to the previous one); elsewhere
//! the bridge only uses the `log` facade.

mod apex;
mod app_db;
mod cetp;
mod convert;
mod strings;

use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock};

use jni::errors::Error;
use jni::jni_str;
use jni::vm::JavaVM;

use crate::error::panic_text;
use crate::runtime::{BuildFn, PANIC_ABORT_REFUSAL, Running, Runtime};
#[cfg(doc)]
use crate::{App, ProviderBuilder};

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

/// The runtime `JNI_OnLoad` created.
fn runtime() -> &'static Runtime {
    RUNTIME.get_or_init(|| Runtime::new(Box::new(|_| Err(NO_RUNTIME.to_owned())), true))
}

/// The running provider and hosts, or `None` (the template then answers the call itself).
fn running() -> Option<Arc<Running>> {
    match runtime().running() {
        Ok(running) => Some(running),
        Err(reason) => {
            log::error!("CETP: a native was called while the provider is not running: {reason}");
            None
        }
    }
}

/// Why nothing answers when the library's `JNI_OnLoad` never ran.
const NO_RUNTIME: &str = "the library has no CETP runtime (JNI_OnLoad did not run)";

/// Exports a provider from an app's `cdylib` to the Android template.
///
/// The argument names the app's build function: `fn(&App) -> ProviderBuilder`, or
/// `fn(&App) -> Result<ProviderBuilder, E>` with `E: Display` when declaring the provider can
/// fail (a database that does not open). It runs once, on the first call that reaches the
/// provider (on a Binder thread, never at library load or in the app's start-up). The runtime
/// then gives the builder the app ([`ProviderBuilder::app`]: the grant store opens in the app's
/// directories) and builds the provider. An error or panic in any of this is logged under the
/// tag `cetp`, and every call then answers `INTERNAL_ERROR` saying why.
///
/// The macro defines `JNI_OnLoad`, so use it once per library: at the crate root (`src/lib.rs`)
/// or in any module of it (`mod agent_tools;` with the tools and the macro in
/// `src/agent_tools.rs`). It also defines a hidden function, the build function with its result
/// made uniform, exported under the symbol `__cetp_provider_builder` wherever the macro is,
/// through which host tooling (`cargo cetp check`, `cargo cetp mcp`) builds the same provider
/// on a desktop. The app crate must be built with `panic = "unwind"` (the default).
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
///
/// # A library with its own `JNI_OnLoad`
///
/// A process calls one `JNI_OnLoad` per library, so a library that already defines one (an app
/// whose Rust core registers its own natives or keeps the `JavaVM`) writes
/// `export_provider!(provider, jni_onload = false)`: the macro then defines only the tooling
/// hook, and the library's own `JNI_OnLoad` calls [`on_load`] with the same build function.
///
/// ```
/// use std::ffi::c_void;
///
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
/// cetp_provider::export_provider!(provider, jni_onload = false);
///
/// #[unsafe(no_mangle)]
/// pub extern "system" fn JNI_OnLoad(vm: *mut c_void, _reserved: *mut c_void) -> i32 {
///     // The library's own work first: register its natives, keep the JavaVM, …
///     // then the SDK's natives, on this same thread; its answer is the JNI version.
///     cetp_provider::jni::on_load(vm, provider)
/// }
/// # fn main() {}
/// ```
#[macro_export]
#[cfg_attr(docsrs, doc(cfg(feature = "jni")))]
macro_rules! export_provider {
    ($build:expr, jni_onload = false $(,)?) => {
        /// The provider's build function, for host tooling (`cargo cetp`), which finds it by
        /// its symbol from any module; not a public API.
        #[doc(hidden)]
        #[unsafe(export_name = "__cetp_provider_builder")]
        pub fn __cetp_provider_builder(
            app: &$crate::App,
        ) -> ::core::result::Result<$crate::ProviderBuilder, ::std::string::String> {
            $crate::__private::IntoProviderBuilder::into_provider_builder($build(app))
        }
    };
    ($build:expr, jni_onload = true $(,)?) => {
        $crate::export_provider!($build);
    };
    ($build:expr $(,)?) => {
        $crate::export_provider!($build, jni_onload = false);

        /// JNI entry point: registers the CETP natives on `dev.cetp.NativeBridge`.
        #[unsafe(no_mangle)]
        pub extern "system" fn JNI_OnLoad(
            vm: *mut ::core::ffi::c_void,
            _reserved: *mut ::core::ffi::c_void,
        ) -> i32 {
            $crate::jni::on_load(vm, __cetp_provider_builder)
        }
    };
}

/// `JNI_VERSION_1_6`, what [`on_load`] returns when it succeeds.
pub const JNI_VERSION: i32 = 0x0001_0006;

/// `JNI_ERR`, what [`on_load`] returns when it fails (the JVM then refuses the library).
pub const JNI_ERR: i32 = -1;

/// The SDK's part of `JNI_OnLoad`, for a library that defines its own (see
/// [`export_provider!`](crate::export_provider), "A library with its own `JNI_OnLoad`"):
/// registers the natives of `dev.cetp.NativeBridge` and `dev.cetp.ApexBridge` and caches what
/// call time needs, and keeps `build`, the provider's build function (a `fn(&App) ->
/// ProviderBuilder`, or one returning `Result<ProviderBuilder, E>` with `E: Display`, or a
/// closure over the app's own state), which runs on the first call that reaches the provider.
///
/// Call it from the library's `JNI_OnLoad`, on the thread the JVM called it on (its class loader
/// finds the template's classes), with the `JavaVM` pointer the JVM passed. Returns
/// [`JNI_VERSION`] (`JNI_VERSION_1_6`), or [`JNI_ERR`] when the template's classes are missing
/// (logged under the tag `cetp`); `JNI_OnLoad` can return it as it is, or the larger of it and
/// the version the library's own code needs. Never panics: a panic inside is caught and logged.
/// A second call keeps the first build function.
pub fn on_load<F, R>(vm: *mut c_void, build: F) -> i32
where
    F: Fn(&crate::App) -> R + Send + Sync + 'static,
    R: crate::__private::IntoProviderBuilder,
{
    let build: BuildFn = Box::new(move |app| build(app).into_provider_builder());
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        install_logging();
        let unwinding = !cfg!(panic = "abort");
        if !unwinding {
            log::error!("CETP: {PANIC_ABORT_REFUSAL}");
        }
        if RUNTIME.set(Runtime::new(build, unwinding)).is_err() {
            log::warn!("CETP: JNI_OnLoad ran twice; keeping the first provider function");
        }
        register(vm)
    }));
    match outcome {
        Ok(Ok(())) => JNI_VERSION,
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

/// Registers the natives. Runs on the thread that called `System.loadLibrary`, whose class
/// loader can see the app's classes (a Binder thread's `FindClass` could not).
fn register(vm: *mut c_void) -> Result<(), Error> {
    // Safety: the JVM passes JNI_OnLoad a valid JavaVM pointer.
    let vm = unsafe { JavaVM::from_raw(vm.cast()) };
    vm.attach_current_thread(|env| -> Result<(), Error> {
        let class = env.find_class(jni_str!("dev/cetp/NativeBridge"))?;
        // Safety: `native_method!` checked every function against its JNI signature, and all
        // are declared `static` here and in NativeBridge.java.
        unsafe { env.register_native_methods(&class, cetp::METHODS)? };
        env.delete_local_ref(class);
        apex::register(env)?;
        app_db::prepare(env)?;
        convert::prepare(env)
    })?;
    log::debug!("CETP natives registered");
    Ok(())
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
        // stderr goes nowhere on Android: send where a panic happened to logcat (not its
        // message, which may quote the caller's values or the app's data), then let the
        // previous hook do whatever it did.
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            match info.location() {
                Some(at) => log::error!("panic at {}:{}:{}", at.file(), at.line(), at.column()),
                None => log::error!("panic"),
            }
            previous(info);
        }));
    });
}

#[cfg(not(target_os = "android"))]
fn install_logging() {}
