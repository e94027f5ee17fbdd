//! The runtime behind `export_provider!`: the app's build function, the provider it builds and
//! the hosts that answer from it, with no JNI type in sight (the `jni` module only converts).
//!
//! The Android template starts it on the first call that needs it, from whichever host gets one
//! first (the CETP ContentProvider, the Apex plugin Service, the consent dialog), never at
//! process start: [`Runtime::start`] runs the build function (inside the panic boundary around
//! the app's code that declares the provider), builds the provider (its schemas, its grant
//! store) and the Apex host's tables. Until then, or when that failed, the template answers
//! calls itself with the reason; [`Runtime::running`] says which.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use crate::app::App;
use crate::error::panic_text;
use crate::host::CetpV1Host;
use crate::host::apex::ApexHost;
use crate::host::cetp_v2::CetpV2Host;
use crate::provider::{Provider, ProviderBuilder};

/// The function `export_provider!` names (or the one the app hands to `jni::on_load`), with its
/// result made uniform: the app's builder, or why the app could not declare it.
pub(crate) type BuildFn = Box<dyn Fn(&App) -> Result<ProviderBuilder, String> + Send + Sync>;

/// Why the library refuses to start when built with `panic = "abort"`.
pub(crate) const PANIC_ABORT_REFUSAL: &str = "this native library was built with `panic = \"abort\"`, so one failing tool would crash the whole app; the CETP SDK refuses to start. Build it with `panic = \"unwind\"` (the Cargo default; check `[profile.release]` and `-C panic`)";

/// A started provider and the hosts that answer from it, each built from it and holding it
/// the same way.
pub(crate) struct Running {
    pub(crate) provider: Arc<Provider>,
    pub(crate) cetp_v1: CetpV1Host,
    pub(crate) apex: ApexHost,
    /// Built on the first v2 call: an app whose agents all speak v1 (or that turned v2 off)
    /// never describes its tools a second time.
    cetp_v2: OnceLock<CetpV2Host>,
}

impl Running {
    /// The CETP v2 host.
    pub(crate) fn cetp_v2(&self) -> &CetpV2Host {
        self.cetp_v2
            .get_or_init(|| CetpV2Host::new(Arc::clone(&self.provider)))
    }

    /// The consent dialog's JSON interface: the provider's admin reply, with the Apex hosts
    /// that connected in its `state.connections`.
    pub(crate) fn admin(&self, request: &str) -> String {
        let reply = self.provider.handle_admin_json(request);
        let Ok(mut parsed) = serde_json::from_str::<serde_json::Value>(&reply) else {
            return reply;
        };
        if let Some(state) = parsed.get_mut("state").and_then(|s| s.as_object_mut()) {
            let connections = serde_json::to_value(self.apex.connections()).unwrap_or_default();
            state.insert("connections".to_owned(), connections);
        }
        parsed.to_string()
    }
}

enum Phase {
    NotStarted,
    Running(Arc<Running>),
    Failed(Arc<str>),
}

/// The runtime of one loaded library.
pub(crate) struct Runtime {
    build: BuildFn,
    /// Whether panics unwind in this build. `false` (`panic = "abort"`) makes every call fail:
    /// a panicking tool would otherwise take the whole app down.
    unwinding: bool,
    phase: RwLock<Phase>,
}

impl Runtime {
    pub(crate) fn new(build: BuildFn, unwinding: bool) -> Self {
        Runtime {
            build,
            unwinding,
            phase: RwLock::new(Phase::NotStarted),
        }
    }

    /// Builds the provider for `app` (the build function, then [`ProviderBuilder::app`] and
    /// [`ProviderBuilder::build`], which opens the grant store) and the hosts, and makes them the
    /// ones that answer. Starting again (a new app in the same process, as in Robolectric tests)
    /// builds afresh for the new app.
    ///
    /// Returns why the provider could not start; the template then answers every call with it.
    pub(crate) fn start(&self, app: App) -> Result<(), String> {
        let package = app.package_name().to_owned();
        let result = self.build(app);
        let phase = match &result {
            Ok(running) => {
                log::info!(
                    "CETP provider `{}` started for {package} with {} tool(s)",
                    running.provider.name(),
                    running.provider.tools().len()
                );
                Phase::Running(Arc::clone(running))
            }
            Err(reason) => {
                log::error!("CETP provider for {package} did not start: {reason}");
                Phase::Failed(reason.as_str().into())
            }
        };
        *self.phase.write().unwrap_or_else(PoisonError::into_inner) = phase;
        result.map(|_| ())
    }

    fn build(&self, app: App) -> Result<Arc<Running>, String> {
        if !self.unwinding {
            return Err(PANIC_ABORT_REFUSAL.to_owned());
        }
        let build = &self.build;
        // The panic boundary around the app's code that declares the provider.
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let builder = build(&app)?;
            builder
                .app(app)
                .build()
                .map_err(|e| format!("building the provider failed: {e}"))
        }));
        let provider = match outcome {
            Ok(provider) => Arc::new(provider?),
            Err(payload) => {
                return Err(format!(
                    "the provider's build function panicked: {}",
                    panic_text(&*payload)
                ));
            }
        };
        Ok(Arc::new(Running {
            cetp_v1: CetpV1Host::new(Arc::clone(&provider)),
            apex: ApexHost::new(Arc::clone(&provider)),
            cetp_v2: OnceLock::new(),
            provider,
        }))
    }

    /// The running provider and hosts, or why there are none.
    pub(crate) fn running(&self) -> Result<Arc<Running>, String> {
        match &*self.phase.read().unwrap_or_else(PoisonError::into_inner) {
            Phase::Running(running) => Ok(Arc::clone(running)),
            Phase::Failed(reason) => Err(format!("it could not start: {reason}")),
            Phase::NotStarted => Err("it has not been started".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::caller::Caller;
    use crate::host::Request;
    use crate::wire::{ErrorCode, METHOD_GET_PROVIDER_INFO, METHOD_LIST_TOOLS};

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

    fn app(dir: &Path, package: &str) -> App {
        App::new(package, dir).with_version(7, "1.0.7")
    }

    #[test]
    fn nothing_runs_before_start_and_start_builds_the_provider_and_the_hosts() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = Runtime::new(Box::new(working), true);
        assert_eq!(runtime.running().err().unwrap(), "it has not been started");
        runtime.start(app(dir.path(), "com.x")).unwrap();
        let running = runtime.running().unwrap();
        assert_eq!(running.provider.app().unwrap().package_name(), "com.x");
        assert_eq!(running.provider.app().unwrap().version_code(), 7);
        let list = running
            .cetp_v1
            .call(&Request::list_tools(), &Caller::unknown());
        assert!(list.is_success(), "{list:?}");
        for method in [METHOD_LIST_TOOLS, METHOD_GET_PROVIDER_INFO] {
            assert!(running.cetp_v1.constant_reply(method).is_some());
        }
        assert!(
            running
                .apex
                .metadata_json(&Caller::unknown())
                .contains("\"com.x\"")
        );
    }

    #[test]
    fn failures_to_start_say_why() {
        let dir = tempfile::tempdir().unwrap();
        for (build, expected) in [
            (
                Box::new(broken) as BuildFn,
                "building the provider failed: the provider name is empty",
            ),
            (
                Box::new(panicking),
                "the provider's build function panicked: no database",
            ),
            (Box::new(refusing), "no database in"),
        ] {
            let runtime = Runtime::new(build, true);
            let reason = runtime.start(app(dir.path(), "com.x")).unwrap_err();
            assert!(reason.contains(expected), "{reason}");
            let why = runtime.running().err().unwrap();
            assert!(
                why.starts_with("it could not start: ") && why.contains(expected),
                "{why}"
            );
        }
    }

    #[test]
    fn a_panic_abort_build_refuses_to_start() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = Runtime::new(Box::new(working), false);
        let reason = runtime.start(app(dir.path(), "com.x")).unwrap_err();
        assert_eq!(reason, PANIC_ABORT_REFUSAL);
    }

    #[test]
    fn starting_again_builds_for_the_new_app() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let runtime = Runtime::new(Box::new(working), true);
        runtime.start(app(a.path(), "com.a")).unwrap();
        runtime.start(app(b.path(), "com.b")).unwrap();
        let running = runtime.running().unwrap();
        assert_eq!(running.provider.app().unwrap().package_name(), "com.b");
        let state: serde_json::Value =
            serde_json::from_str(&running.admin(r#"{"op":"state"}"#)).unwrap();
        assert_eq!(state["state"]["connections"], serde_json::json!([]));
        assert_eq!(state["state"]["store_open"], true);
        let bad: serde_json::Value = serde_json::from_str(&running.admin("nope")).unwrap();
        assert_eq!(bad["ok"], false);
        let _ = ErrorCode::InternalError;
    }
}
