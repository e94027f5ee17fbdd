//! What the bridge does, without any JNI type: build the provider when the template reports the
//! app, then answer calls. The JNI layer (`bridge.rs`) only converts values.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, PoisonError, RwLock};

use crate::app::App;
use crate::context::Caller;
use crate::error::{ToolError, panic_text, provider_bug};
use crate::provider::{Provider, ProviderBuilder};
use crate::request::Request;
use crate::wire::{METHOD_GET_PROVIDER_INFO, METHOD_LIST_TOOLS, Response};

/// The function `export_provider!` names, with its result made uniform: the app's builder, or
/// why the app could not declare it.
pub(crate) type BuildFn = fn(&App) -> Result<ProviderBuilder, String>;

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
    /// Written by `init` (once per provider instance), read by every call.
    state: RwLock<State>,
}

/// Why the library refuses to start when built with `panic = "abort"`.
pub(crate) const PANIC_ABORT_REFUSAL: &str = "this native library was built with `panic = \"abort\"`, so one failing tool would crash the whole app; the CETP SDK refuses to start. Build it with `panic = \"unwind\"` (the Cargo default; check `[profile.release]` and `-C panic`)";

impl Runtime {
    pub(crate) fn new(build: BuildFn, unwinding: bool) -> Self {
        Runtime {
            build,
            unwinding,
            state: RwLock::new(State::NotStarted),
        }
    }

    /// Builds the provider for `app` (the build function, then [`ProviderBuilder::app`] and
    /// [`ProviderBuilder::build`], which opens the grant store) and makes it the one that
    /// answers calls. Calling it again (a new provider instance in the same process, as in
    /// Robolectric tests) builds a fresh provider for the new app.
    ///
    /// Returns why the provider could not start; every call then answers `INTERNAL_ERROR`.
    pub(crate) fn init(&self, app: App) -> Result<(), String> {
        let package = app.package_name().to_owned();
        let result = self.start(app);
        let state = match &result {
            Ok(provider) => {
                log::info!(
                    "CETP provider `{}` started for {package} with {} tool(s)",
                    provider.name(),
                    provider.tools().len()
                );
                State::Running(Arc::clone(provider))
            }
            Err(reason) => {
                log::error!("CETP provider for {package} did not start: {reason}");
                State::Failed(reason.as_str().into())
            }
        };
        *self.state.write().unwrap_or_else(PoisonError::into_inner) = state;
        result.map(|_| ())
    }

    fn start(&self, app: App) -> Result<Arc<Provider>, String> {
        if !self.unwinding {
            return Err(PANIC_ABORT_REFUSAL.to_owned());
        }
        let build = self.build;
        // The panic boundary around the app's code that declares the provider.
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let builder = build(&app)?;
            builder
                .app(app)
                .build()
                .map_err(|e| format!("building the provider failed: {e}"))
        }));
        match outcome {
            Ok(provider) => provider.map(Arc::new),
            Err(payload) => Err(format!(
                "the provider's build function panicked: {}",
                panic_text(&*payload)
            )),
        }
    }

    /// The running provider, or why there is none.
    pub(crate) fn provider(&self) -> Result<Arc<Provider>, ToolError> {
        match &*self.state.read().unwrap_or_else(PoisonError::into_inner) {
            State::Running(provider) => Ok(Arc::clone(provider)),
            State::Failed(reason) => Err(provider_bug(format_args!(
                "the tool provider in this app could not start: {reason}"
            ))),
            State::NotStarted => Err(provider_bug(
                "the tool provider in this app has not started: the provider's native `init` was never called (CetpToolProvider.onCreate)",
            )),
        }
    }

    /// Answers one call.
    pub(crate) fn call(&self, request: &Request<'_>, caller: &Caller) -> Response {
        match self.provider() {
            Ok(provider) => provider.call(request, caller),
            Err(err) => Response::Error(err),
        }
    }

    /// The reply to `method` if it is the same for every caller, so a host may keep it: the
    /// provider is running, `method` is `list_tools` or `get_provider_info`, and discovery is
    /// not gated ([`Auth::gate_discovery`](crate::auth::Auth::gate_discovery)). `None` means
    /// "ask on every call".
    pub(crate) fn constant_reply(&self, method: &str) -> Option<Response> {
        let provider = self.provider().ok()?;
        if !matches!(method, METHOD_LIST_TOOLS | METHOD_GET_PROVIDER_INFO)
            || !provider.authorizer().discovery_is_open()
        {
            return None;
        }
        Some(provider.call(&Request::new(method), &Caller::unknown()))
    }

    /// The approval screen's JSON interface (`Provider::handle_admin_json`).
    pub(crate) fn admin(&self, request: &str) -> String {
        match self.provider() {
            Ok(provider) => provider.handle_admin_json(request),
            Err(err) => admin_error(err.message()),
        }
    }
}

/// An admin reply without a provider: `{"ok":false,"error":{"kind":"not_running",...}}`.
pub(crate) fn admin_error(message: &str) -> String {
    serde_json::json!({
        "ok": false,
        "error": {"kind": "not_running", "message": message},
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::wire::ErrorCode;

    fn working(_: &App) -> Result<ProviderBuilder, String> {
        Ok(Provider::builder("Test").description("d"))
    }

    fn broken(_: &App) -> Result<ProviderBuilder, String> {
        Ok(Provider::builder("  "))
    }

    fn panicking(_: &App) -> Result<ProviderBuilder, String> {
        panic!("no database")
    }

    fn refusing(app: &App) -> Result<ProviderBuilder, String> {
        Err(format!("no database in {}", app.files_dir().display()))
    }

    fn list(runtime: &Runtime) -> Response {
        runtime.call(&Request::list_tools(), &Caller::unknown())
    }

    fn message(response: &Response) -> &str {
        match response {
            Response::Error(err) => err.message(),
            Response::Success(data) => panic!("expected an error, got success {data}"),
        }
    }

    fn app(dir: &Path, package: &str) -> App {
        App::new(package, dir).with_version(7, "1.0.7")
    }

    fn gated(_: &App) -> Result<ProviderBuilder, String> {
        Ok(Provider::builder("Test")
            .description("d")
            .auth(crate::auth::Auth::user_approval().gate_discovery(true)))
    }

    #[test]
    fn open_discovery_replies_are_constant_and_equal_to_a_call() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = Runtime::new(working, true);
        assert_eq!(
            runtime.constant_reply(METHOD_LIST_TOOLS),
            None,
            "not started"
        );
        runtime.init(app(dir.path(), "com.x")).unwrap();
        for method in [METHOD_LIST_TOOLS, METHOD_GET_PROVIDER_INFO] {
            let kept = runtime
                .constant_reply(method)
                .expect("open discovery is constant");
            let caller = Caller::app(10_123, "com.example.agent");
            assert_eq!(
                kept,
                runtime.call(&Request::new(method), &caller),
                "{method}"
            );
            assert!(kept.is_success(), "{kept:?}");
        }
        assert_eq!(
            runtime.constant_reply(crate::wire::METHOD_EXECUTE_TOOL),
            None
        );
        assert_eq!(runtime.constant_reply("nope"), None);
    }

    #[test]
    fn gated_discovery_is_never_kept() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = Runtime::new(gated, true);
        runtime.init(app(dir.path(), "com.x")).unwrap();
        assert_eq!(runtime.constant_reply(METHOD_LIST_TOOLS), None);
        assert_eq!(runtime.constant_reply(METHOD_GET_PROVIDER_INFO), None);
    }

    #[test]
    fn calls_before_init_answer_internal_error() {
        let runtime = Runtime::new(working, true);
        let answer = list(&runtime);
        assert_eq!(answer.error_code(), Some(ErrorCode::InternalError));
        assert!(message(&answer).contains("has not started"), "{answer:?}");
    }

    #[test]
    fn init_starts_the_provider_with_the_app() {
        let files = tempfile::tempdir().unwrap();
        let runtime = Runtime::new(working, true);
        assert_eq!(runtime.init(app(files.path(), "com.x")), Ok(()));
        assert_eq!(list(&runtime).data(), Some(r#"{"tools":[]}"#));
        let provider = runtime.provider().unwrap();
        let given = provider.app().expect("app recorded");
        assert_eq!(given.files_dir(), files.path());
        assert_eq!(given.package_name(), "com.x");
        assert_eq!((given.version_code(), given.version_name()), (7, "1.0.7"));
    }

    #[test]
    fn a_build_error_is_reported_and_every_call_fails_with_it() {
        let files = tempfile::tempdir().unwrap();
        for (build, says) in [
            (broken as BuildFn, "provider name is empty"),
            (refusing, "no database in"),
        ] {
            let runtime = Runtime::new(build, true);
            let err = runtime.init(app(files.path(), "com.x")).unwrap_err();
            assert!(err.contains(says), "{err}");
            let answer = list(&runtime);
            assert_eq!(answer.error_code(), Some(ErrorCode::InternalError));
            assert!(message(&answer).contains(says));
            assert!(message(&answer).contains("bug in the provider app"));
        }
    }

    #[test]
    fn a_panicking_build_function_is_contained() {
        let files = tempfile::tempdir().unwrap();
        let runtime = Runtime::new(panicking, true);
        let err = runtime.init(app(files.path(), "com.x")).unwrap_err();
        assert!(err.contains("no database"), "{err}");
        assert_eq!(list(&runtime).error_code(), Some(ErrorCode::InternalError));
    }

    #[test]
    fn panic_abort_builds_refuse_to_start() {
        let files = tempfile::tempdir().unwrap();
        let runtime = Runtime::new(working, false);
        assert_eq!(
            runtime.init(app(files.path(), "com.x")),
            Err(PANIC_ABORT_REFUSAL.to_owned())
        );
        let answer = list(&runtime);
        assert_eq!(answer.error_code(), Some(ErrorCode::InternalError));
        assert!(message(&answer).contains("panic = \"abort\""));
    }

    #[test]
    fn init_opens_the_grant_store_and_admin_reaches_the_provider() {
        let files = tempfile::tempdir().unwrap();
        let runtime = Runtime::new(working, true);
        let before: serde_json::Value =
            serde_json::from_str(&runtime.admin(r#"{"op":"state"}"#)).unwrap();
        assert_eq!(before["ok"], false);
        assert_eq!(before["error"]["kind"], "not_running");
        runtime.init(app(files.path(), "com.x")).unwrap();
        let after: serde_json::Value =
            serde_json::from_str(&runtime.admin(r#"{"op":"state"}"#)).unwrap();
        assert_eq!(after["ok"], true, "{after}");
        assert_eq!(after["state"]["store_open"], true, "{after}");
    }

    #[test]
    fn init_again_replaces_the_provider() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let runtime = Runtime::new(working, true);
        runtime.init(app(a.path(), "com.a")).unwrap();
        runtime.init(app(b.path(), "com.b")).unwrap();
        let provider = runtime.provider().unwrap();
        assert_eq!(provider.app().unwrap().files_dir(), b.path());
        assert!(list(&runtime).is_success());
    }
}
