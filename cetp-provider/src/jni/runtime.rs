//! What the bridge does, without any JNI type: start the provider once the template reports the
//! app's directories, then answer calls. The JNI layer (`bridge.rs`) only converts strings.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use crate::context::Caller;
use crate::provider::{BuildError, Extras, Provider};
use crate::wire::{ErrorCode, Response};

/// The function `export_provider!` names: builds the app's provider.
pub(crate) type BuildFn = fn() -> Result<Provider, BuildError>;

/// The app a provider runs in, as the Android template reported it at start-up.
///
/// Available from [`app`](crate::jni::app) inside your build function, e.g. to find a database
/// under [`files_dir`](Self::files_dir).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AndroidApp {
    files_dir: PathBuf,
    package_name: String,
}

impl AndroidApp {
    /// `Context.getFilesDir()` of the provider app.
    pub fn files_dir(&self) -> &Path {
        &self.files_dir
    }

    /// The provider app's package name.
    pub fn package_name(&self) -> &str {
        &self.package_name
    }
}

enum State {
    NotStarted,
    Running(Arc<Provider>),
    Failed(Arc<str>),
}

/// The bridge's state for one loaded library.
pub(crate) struct Runtime {
    build: BuildFn,
    /// Whether panics unwind in this build. `false` (`panic = "abort"`) makes every call fail:
    /// a panicking tool would otherwise take the whole app down.
    unwinding: bool,
    /// The app reported by the last `init`.
    app: RwLock<Option<AndroidApp>>,
    state: RwLock<State>,
}

/// Why the library refuses to start when built with `panic = "abort"`.
pub(crate) const PANIC_ABORT_REFUSAL: &str = "this native library was built with `panic = \"abort\"`, so one failing tool would crash the whole app; the CETP SDK refuses to start. Build it with `panic = \"unwind\"` (the Cargo default; check `[profile.release]` and `-C panic`)";

impl Runtime {
    pub(crate) fn new(build: BuildFn, unwinding: bool) -> Self {
        Runtime {
            build,
            unwinding,
            app: RwLock::new(None),
            state: RwLock::new(State::NotStarted),
        }
    }

    /// Builds the provider for the app in `files_dir`/`package_name` and makes it the one that
    /// answers calls. Calling it again (a new provider instance in the same process, as in
    /// Robolectric tests) builds a fresh provider bound to the new directories.
    ///
    /// Returns why the provider could not start; every call then answers `INTERNAL_ERROR`.
    pub(crate) fn init(&self, files_dir: &str, package_name: &str) -> Result<(), String> {
        if !self.unwinding {
            self.set_state(State::Failed(PANIC_ABORT_REFUSAL.into()));
            return Err(PANIC_ABORT_REFUSAL.to_owned());
        }
        let app = AndroidApp {
            files_dir: PathBuf::from(files_dir),
            package_name: package_name.to_owned(),
        };
        // Visible to the build function through `cetp_provider::jni::app()`.
        *self.app.write().unwrap_or_else(PoisonError::into_inner) = Some(app.clone());
        let build = self.build;
        let (state, result) = match catch_unwind(build) {
            Ok(Ok(provider)) => {
                // Opens the grant store under the files directory and derives the default
                // authorize intent. If the store cannot be opened, approval-based policies fail
                // closed on their own; open and allowlist policies keep working.
                if let Err(err) = provider.bind_app(&app.package_name, &app.files_dir) {
                    log::error!(
                        "CETP provider for {package_name}: grant store unavailable in {files_dir}: {err}"
                    );
                }
                log::info!(
                    "CETP provider `{}` started for {} with {} tool(s)",
                    provider.name(),
                    app.package_name,
                    provider.tools().len()
                );
                (State::Running(Arc::new(provider)), Ok(()))
            }
            Ok(Err(err)) => {
                let reason = format!("building the provider failed: {err}");
                (State::Failed(reason.as_str().into()), Err(reason))
            }
            Err(payload) => {
                let reason = format!(
                    "the provider's build function panicked: {}",
                    panic_text(&*payload)
                );
                (State::Failed(reason.as_str().into()), Err(reason))
            }
        };
        if let Err(reason) = &result {
            log::error!("CETP provider for {package_name} did not start: {reason}");
        }
        self.set_state(state);
        result
    }

    /// The app reported by the last [`init`](Self::init).
    pub(crate) fn app(&self) -> Option<AndroidApp> {
        self.app
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Answers one call. Never panics.
    pub(crate) fn call(
        &self,
        method: &str,
        arg: Option<&str>,
        extras: Option<&Extras>,
        caller: &Caller,
    ) -> Response {
        let provider = match &*self.state.read().unwrap_or_else(PoisonError::into_inner) {
            State::Running(provider) => Arc::clone(provider),
            State::Failed(reason) => return not_running(&format!("could not start: {reason}")),
            State::NotStarted => {
                return not_running(
                    "has not started: the provider's native `init` was never called (CetpToolProvider.onCreate)",
                );
            }
        };
        // `Provider::call` catches panics itself; this guards the bridge against a bug there.
        catch_unwind(AssertUnwindSafe(|| {
            provider.call(method, arg, extras, caller)
        }))
        .unwrap_or_else(|payload| {
            log::error!("CETP `{method}` panicked in the SDK: {}", panic_text(&*payload));
            Response::error(
                ErrorCode::InternalError,
                "the provider failed unexpectedly inside the app; this is a bug in the app, not in your call",
            )
        })
    }

    /// The approval screen's JSON interface (`Provider::handle_admin_json`). Never panics.
    pub(crate) fn admin(&self, request: &str) -> String {
        let provider = match &*self.state.read().unwrap_or_else(PoisonError::into_inner) {
            State::Running(provider) => Arc::clone(provider),
            State::Failed(reason) => {
                return admin_error(&format!("the provider could not start: {reason}"));
            }
            State::NotStarted => return admin_error("the provider has not started"),
        };
        catch_unwind(AssertUnwindSafe(|| provider.handle_admin_json(request))).unwrap_or_else(
            |payload| {
                admin_error(&format!(
                    "the admin request panicked: {}",
                    panic_text(&*payload)
                ))
            },
        )
    }

    fn set_state(&self, state: State) {
        *self.state.write().unwrap_or_else(PoisonError::into_inner) = state;
    }
}

fn not_running(why: &str) -> Response {
    Response::error(
        ErrorCode::InternalError,
        format!(
            "the tool provider in this app {why}; this is a bug in the provider app, not in your call"
        ),
    )
}

/// An admin reply without a provider state: `{"ok":false,"error":{"kind":"not_running",...}}`.
fn admin_error(message: &str) -> String {
    serde_json::json!({
        "ok": false,
        "error": {"kind": "not_running", "message": message},
    })
    .to_string()
}

pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("<non-string panic payload>")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire;

    fn working() -> Result<Provider, BuildError> {
        Provider::builder("Test").description("d").build()
    }

    fn broken() -> Result<Provider, BuildError> {
        Provider::builder("  ").build()
    }

    fn panicking() -> Result<Provider, BuildError> {
        panic!("no database")
    }

    fn list(runtime: &Runtime) -> Response {
        runtime.call(wire::METHOD_LIST_TOOLS, None, None, &Caller::unknown())
    }

    fn message(response: &Response) -> &str {
        match response {
            Response::Error { message, .. } => message,
            Response::Success { data } => panic!("expected an error, got success {data}"),
        }
    }

    #[test]
    fn calls_before_init_answer_internal_error() {
        let runtime = Runtime::new(working, true);
        let answer = list(&runtime);
        assert_eq!(answer.error_code(), Some(ErrorCode::InternalError));
        assert!(message(&answer).contains("has not started"), "{answer:?}");
    }

    #[test]
    fn init_starts_the_provider_and_records_the_app() {
        let runtime = Runtime::new(working, true);
        assert_eq!(runtime.init("/data/user/0/com.x/files", "com.x"), Ok(()));
        assert_eq!(list(&runtime).data(), Some(r#"{"tools":[]}"#));
        let app = runtime.app().expect("app recorded");
        assert_eq!(app.files_dir(), Path::new("/data/user/0/com.x/files"));
        assert_eq!(app.package_name(), "com.x");
    }

    #[test]
    fn a_build_error_is_reported_and_every_call_fails_with_it() {
        let runtime = Runtime::new(broken, true);
        let err = runtime.init("/files", "com.x").unwrap_err();
        assert!(err.contains("provider name is empty"), "{err}");
        let answer = list(&runtime);
        assert_eq!(answer.error_code(), Some(ErrorCode::InternalError));
        assert!(message(&answer).contains("provider name is empty"));
    }

    #[test]
    fn a_panicking_build_function_is_contained() {
        let runtime = Runtime::new(panicking, true);
        let err = runtime.init("/files", "com.x").unwrap_err();
        assert!(err.contains("no database"), "{err}");
        assert_eq!(list(&runtime).error_code(), Some(ErrorCode::InternalError));
    }

    #[test]
    fn panic_abort_builds_refuse_to_start() {
        let runtime = Runtime::new(working, false);
        assert_eq!(
            runtime.init("/files", "com.x"),
            Err(PANIC_ABORT_REFUSAL.to_owned())
        );
        let answer = list(&runtime);
        assert_eq!(answer.error_code(), Some(ErrorCode::InternalError));
        assert!(message(&answer).contains("panic = \"abort\""));
    }

    #[test]
    fn init_binds_the_grant_store_and_admin_reaches_the_provider() {
        let dir = std::env::temp_dir().join(format!("cetp-jni-runtime-{}", std::process::id()));
        let runtime = Runtime::new(working, true);
        let before: serde_json::Value =
            serde_json::from_str(&runtime.admin(r#"{"op":"state"}"#)).unwrap();
        assert_eq!(before["ok"], false);
        assert_eq!(before["error"]["kind"], "not_running");
        runtime.init(dir.to_str().unwrap(), "com.x").unwrap();
        let after: serde_json::Value =
            serde_json::from_str(&runtime.admin(r#"{"op":"state"}"#)).unwrap();
        assert_eq!(after["ok"], true, "{after}");
        assert_eq!(after["state"]["store_open"], true, "{after}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn init_again_replaces_the_provider() {
        let runtime = Runtime::new(working, true);
        runtime.init("/a", "com.a").unwrap();
        runtime.init("/b", "com.b").unwrap();
        assert_eq!(runtime.app().unwrap().files_dir(), Path::new("/b"));
        assert!(list(&runtime).is_success());
    }
}
