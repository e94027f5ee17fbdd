//! The CETP provider the Android end-to-end suite (`tests/android`) drives through the real Java
//! template and JNI bridge.
//!
//! It is written the way an app developer writes one: `#[tool]` functions, a build function and
//! one `export_provider!` line. Each tool exercises one path across the bridge:
//!
//! | tool | what it proves |
//! |---|---|
//! | `echo` | text round trip, including astral-plane characters and replaced surrogates |
//! | `whoami` | the caller identity (UID, packages, certificate digests) and `request_id` |
//! | `app_info` | the files directory and package name `init` received |
//! | `boom` | a panicking tool becomes `INTERNAL_ERROR` and the app survives |
//! | `oversized` | a result over the inline limit becomes `INTERNAL_ERROR` |
//! | `forecast` | enum, integer-range and optional string constraints (`INVALID_ARGS`) |
//! | `fail` | every CETP error code a tool can return, with hint and authorize intent |
//! | `apex_hooks` | the Apex `onActivate`/`onDeactivate` hooks ran (the deactivation hook panics) |
//! | `crawl` | a long-running tool (a CETP v2 operation): progress before each step, each step waits at the gate, it stops when cancelled |
//! | `gate` | opens the gate for `crawl`'s next steps and reports how far it got (the suite's latch: nothing waits on time) |
//!
//! The library also has a `JNI_OnLoad` of its own, as an app whose Rust core registers its own
//! natives does: it registers `dev.cetp.rustfixture.CoreNatives` (the "core"), then calls the
//! SDK's entry, `cetp_provider::jni::on_load`, and returns the JNI version it answered
//! (`export_provider!(provider, jni_onload = false)`). The suite calls both the core's natives
//! and the provider, so the composition is proven end to end.
#![deny(missing_docs)]

use std::ffi::c_void;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use cetp_provider::auth::Auth;
use cetp_provider::host::CetpV2;
use cetp_provider::host::apex::Apex;
use cetp_provider::{App, CallContext, Provider, ProviderBuilder, ToolError, tool, tools};
use jni::objects::JClass;
use jni::sys::jint;
use jni::vm::JavaVM;
use jni::{Env, NativeMethod, jni_str, native_method};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The authority of the fixture's provider (`[package.metadata.cetp]` in Cargo.toml, which
/// host-build puts into the manifest).
pub const AUTHORITY: &str = "dev.cetp.rustfixture.tools";

/// The action `fail` puts into `authorize_intent`.
pub const AUTHORIZE_ACTION: &str = "dev.cetp.rustfixture.ACTION_AUTHORIZE";

static ACTIVATIONS: AtomicU64 = AtomicU64::new(0);
static DEACTIVATIONS: AtomicU64 = AtomicU64::new(0);

/// What `apex_hooks` returns.
#[derive(Debug, Serialize)]
pub struct HookCounts {
    /// How often the `onActivate` hook ran since the provider was built.
    pub activations: u64,
    /// How often the `onDeactivate` hook ran (it panics every time, after counting).
    pub deactivations: u64,
}

/// Counts the Apex lifecycle hooks that ran since the provider was built.
#[tool]
pub fn apex_hooks() -> HookCounts {
    HookCounts {
        activations: ACTIVATIONS.load(Ordering::SeqCst),
        deactivations: DEACTIVATIONS.load(Ordering::SeqCst),
    }
}

/// What `echo` sends back.
#[derive(Debug, Serialize)]
pub struct Echo {
    /// The text, unchanged.
    pub text: String,
    /// Its length in Unicode scalar values (Java: `codePointCount`).
    pub code_points: usize,
    /// Its length in UTF-16 units (Java: `length()`).
    pub utf16_units: usize,
}

/// Returns the text it was given, with its length in code points and UTF-16 units.
#[tool]
pub fn echo(
    /// Any text.
    text: String,
) -> Echo {
    Echo {
        code_points: text.chars().count(),
        utf16_units: text.encode_utf16().count(),
        text,
    }
}

/// One package of the caller, as the bridge reported it.
#[derive(Debug, Serialize)]
pub struct CallerPackageView {
    /// Package name.
    pub name: String,
    /// Lower-case hex SHA-256 digests of its signing certificates.
    pub certificates: Vec<String>,
}

/// What `whoami` returns.
#[derive(Debug, Serialize)]
pub struct WhoAmI {
    /// The calling UID, if known.
    pub uid: Option<u32>,
    /// The packages under that UID.
    pub packages: Vec<CallerPackageView>,
    /// The agent's `request_id`, if it sent one.
    pub request_id: Option<String>,
}

/// Describes the calling app as the provider sees it: UID, packages, certificate digests and
/// the request id.
#[tool]
pub fn whoami(ctx: &CallContext) -> WhoAmI {
    WhoAmI {
        uid: ctx.caller().uid(),
        packages: ctx
            .caller()
            .packages()
            .iter()
            .map(|p| CallerPackageView {
                name: p.name.clone(),
                certificates: p.certificate_sha256.clone(),
            })
            .collect(),
        request_id: ctx.request_id().map(str::to_owned),
    }
}

/// What `app_info` returns.
#[derive(Debug, Serialize)]
pub struct AppInfo {
    /// The provider app's package name.
    pub package_name: String,
    /// Its files directory.
    pub files_dir: String,
    /// Its version code.
    pub version_code: i64,
    /// Its version name.
    pub version_name: String,
}

/// Reports the package name, files directory and version the Android template passed to the
/// library.
#[tool]
pub fn app_info(app: &App) -> AppInfo {
    AppInfo {
        package_name: app.package_name().to_owned(),
        files_dir: app.files_dir().display().to_string(),
        version_code: app.version_code(),
        version_name: app.version_name().to_owned(),
    }
}

/// Always panics with the given message (the provider must survive and answer INTERNAL_ERROR).
#[tool]
pub fn boom(
    /// The panic message.
    message: String,
) -> String {
    panic!("boom: {message}")
}

/// Returns a string of the requested size in KiB (over 256 KiB exceeds the inline limit).
#[tool]
pub fn oversized(
    /// Size of the result in KiB.
    #[schemars(range(min = 1, max = 2048))]
    kib: u32,
) -> String {
    "x".repeat(kib as usize * 1024)
}

/// A temperature unit.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// One day of a forecast.
#[derive(Debug, Serialize)]
pub struct Day {
    /// Day number, starting at 1.
    pub day: u8,
    /// The temperature in the requested unit.
    pub temperature: i32,
    /// The unit.
    pub unit: Unit,
}

/// A deterministic forecast: day `n` is `10 + n` degrees Celsius (converted if asked).
#[tool]
pub fn forecast(
    /// Unit of the temperatures.
    unit: Unit,
    /// Number of days, 1 to 7.
    #[schemars(range(min = 1, max = 7))]
    days: u8,
    /// City name, 1 to 64 characters; echoed back.
    #[schemars(length(min = 1, max = 64))]
    city: Option<String>,
) -> (Option<String>, Vec<Day>) {
    let days = (1..=days)
        .map(|day| {
            let celsius = 10 + i32::from(day);
            let temperature = match unit {
                Unit::Celsius => celsius,
                Unit::Fahrenheit => celsius * 9 / 5 + 32,
            };
            Day {
                day,
                temperature,
                unit,
            }
        })
        .collect();
    (city, days)
}

/// An error code `fail` can return.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Code {
    /// `AUTH_REQUIRED`, with a resolution hint and an authorize intent.
    AuthRequired,
    /// `PERMISSION_DENIED`.
    PermissionDenied,
    /// `TOOL_NOT_FOUND`.
    ToolNotFound,
    /// `INVALID_ARGS`.
    InvalidArgs,
    /// `RATE_LIMITED`.
    RateLimited,
    /// `INTERNAL_ERROR`.
    InternalError,
}

/// The latch `crawl` waits at, one step per opening (`gate` opens it): provider state, so each
/// provider the suite starts has its own.
#[derive(Debug, Default)]
pub struct Gate {
    state: Mutex<GateReport>,
    changed: Condvar,
}

/// How far `crawl` got, as `gate` reports it.
#[derive(Debug, Default, Clone, Serialize)]
pub struct GateReport {
    /// How many times `crawl` started.
    pub runs: u32,
    /// How many steps the gate let through so far (its openings).
    pub opened: u32,
    /// How many steps passed the gate.
    pub passed: u32,
    /// Whether a `crawl` waits at the gate now.
    pub waiting: bool,
    /// How many `crawl`s stopped because the agent cancelled them.
    pub cancelled: u32,
}

/// How often a `crawl` waiting at the gate looks whether it was cancelled (the gate's condition
/// variable is not told of a cancellation).
const CANCEL_LOOK: Duration = Duration::from_millis(5);

impl Gate {
    fn with<R>(&self, f: impl FnOnce(&mut GateReport) -> R) -> R {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let out = f(&mut state);
        drop(state);
        self.changed.notify_all();
        out
    }

    /// Waits until the gate lets one more step through, or the call is cancelled or past its
    /// deadline.
    fn pass(&self, ctx: &CallContext) -> Result<(), ToolError> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.waiting = true;
        while state.opened <= state.passed {
            if ctx.is_cancelled() {
                state.waiting = false;
                state.cancelled += 1;
                return Err(ToolError::cancelled());
            }
            ctx.deadline().check()?;
            state = self
                .changed
                .wait_timeout(state, CANCEL_LOOK)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        state.passed += 1;
        state.waiting = false;
        Ok(())
    }
}

/// Crawls `steps` steps: reports its progress, then waits at the gate, for each step; stops when
/// the agent cancels it. Long-running: on CETP v2 it goes on as an operation.
#[tool(long_running)]
pub fn crawl(
    /// How many steps, 1 to 100.
    #[schemars(range(min = 1, max = 100))]
    steps: u32,
    gate: &Gate,
    ctx: &CallContext,
) -> Result<u32, ToolError> {
    gate.with(|s| s.runs += 1);
    for step in 0..steps {
        ctx.progress(u64::from(step), u64::from(steps), "Crawling");
        gate.pass(ctx)?;
    }
    Ok(steps)
}

/// Lets `steps` more steps of `crawl` through the gate (0: none) and reports how far it got.
#[tool]
pub fn gate(
    /// How many more steps to let through, 0 to 100.
    #[schemars(range(max = 100))]
    steps: u32,
    gate: &Gate,
) -> GateReport {
    gate.with(|s| {
        s.opened += steps;
        s.clone()
    })
}

/// Fails with the requested CETP error code.
#[tool]
pub fn fail(
    /// The error code to return.
    code: Code,
) -> Result<(), ToolError> {
    let message = |what: &str| format!("fixture failure: {what}");
    Err(match code {
        Code::AuthRequired => ToolError::auth_required(message("auth required"))
            .with_hint("Open the fixture app and allow access")
            .with_authorize_intent(AUTHORIZE_ACTION),
        Code::PermissionDenied => ToolError::permission_denied(message("permission denied")),
        Code::ToolNotFound => ToolError::tool_not_found(message("tool not found")),
        Code::InvalidArgs => ToolError::invalid_args(message("invalid args")),
        Code::RateLimited => ToolError::rate_limited(message("rate limited")),
        Code::InternalError => ToolError::internal(message("internal error")),
    })
}

/// Builds the fixture provider. It admits every caller (`Auth::open`): the suite reaches every
/// error code without an approval step.
///
/// # Errors
/// None in practice; the signature is the one `export_provider!` expects.
pub fn provider(app: &App) -> ProviderBuilder {
    ACTIVATIONS.store(0, Ordering::SeqCst);
    DEACTIVATIONS.store(0, Ordering::SeqCst);
    Provider::builder("CETP fixture")
        .description("Test tools for the cetp-rs end-to-end suite")
        .scope("fixture.read", "Read fixture data")
        .auth(Auth::open())
        .tools(tools![
            echo, whoami, app_info, boom, oversized, forecast, fail, apex_hooks, crawl, gate
        ])
        .state(app.clone())
        .state(Gate::default())
        // `crawl` waits at its gate, never on time: the agent's call answers `accepted` at once
        // (and a call of a test that never opens the gate ends at this deadline).
        .tool_deadline("crawl", Duration::from_secs(600))
        // The suites call from 16 threads at once under one calling UID (Robolectric reports
        // one UID for every thread), which the default cap of 4 calls in flight per caller
        // would refuse; the cap itself is tested in cetp-provider.
        .max_calls_in_flight_per_caller(64)
        .host(CetpV2::new().inline_window(Duration::ZERO))
        .host(
            Apex::new()
                .on_activate(|_| {
                    ACTIVATIONS.fetch_add(1, Ordering::SeqCst);
                })
                .on_deactivate(|_| {
                    DEACTIVATIONS.fetch_add(1, Ordering::SeqCst);
                    panic!("the fixture's deactivation hook fails on purpose");
                }),
        )
}

// The library defines its own `JNI_OnLoad` below, which hands over to the SDK.
cetp_provider::export_provider!(provider, jni_onload = false);

/// How often the library's own `JNI_OnLoad` ran.
static CORE_LOADS: AtomicI32 = AtomicI32::new(0);
/// What the SDK's entry answered it.
static SDK_VERSION: AtomicI32 = AtomicI32::new(0);

/// The library's own JNI entry: the core's natives first, then the SDK's.
#[unsafe(no_mangle)]
pub extern "system" fn JNI_OnLoad(vm: *mut c_void, _reserved: *mut c_void) -> jint {
    if let Err(err) = register_core_natives(vm) {
        eprintln!("fixture: cannot register dev.cetp.rustfixture.CoreNatives: {err}");
        return cetp_provider::jni::JNI_ERR;
    }
    CORE_LOADS.fetch_add(1, Ordering::SeqCst);
    let version = cetp_provider::jni::on_load(vm, provider);
    SDK_VERSION.store(version, Ordering::SeqCst);
    version
}

fn register_core_natives(vm: *mut c_void) -> Result<(), jni::errors::Error> {
    // Safety: the JVM passes JNI_OnLoad a valid JavaVM pointer.
    let vm = unsafe { JavaVM::from_raw(vm.cast()) };
    vm.attach_current_thread(|env| -> Result<(), jni::errors::Error> {
        let class = env.find_class(jni_str!("dev/cetp/rustfixture/CoreNatives"))?;
        // Safety: each function matches its `static native` declaration in CoreNatives.java.
        unsafe { env.register_native_methods(&class, CORE_NATIVES)? };
        env.delete_local_ref(class);
        Ok(())
    })
}

const CORE_NATIVES: &[NativeMethod] = &[
    native_method! {
        static fn core_loads() -> jint,
        name = "loads",
    },
    native_method! {
        static fn core_sdk_version() -> jint,
        name = "sdkVersion",
    },
];

/// `CoreNatives.loads()`: how often the library's own `JNI_OnLoad` ran.
fn core_loads<'local>(
    _env: &mut Env<'local>,
    _class: JClass<'local>,
) -> Result<jint, jni::errors::Error> {
    Ok(CORE_LOADS.load(Ordering::SeqCst))
}

/// `CoreNatives.sdkVersion()`: the JNI version `cetp_provider::jni::on_load` returned.
fn core_sdk_version<'local>(
    _env: &mut Env<'local>,
    _class: JClass<'local>,
) -> Result<jint, jni::errors::Error> {
    Ok(SDK_VERSION.load(Ordering::SeqCst))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cetp_provider::ErrorCode;
    use cetp_provider::testing::{Agent, check_conformance};

    fn app() -> App {
        // The store stays empty (open policy), so every test can share the directory.
        let files = std::env::temp_dir().join("cetp-fixture-provider-tests");
        App::new("dev.cetp.fixture", files).with_version(3, "0.3")
    }

    fn build_provider() -> Result<Provider, cetp_provider::BuildError> {
        provider(&app()).build()
    }

    #[test]
    fn the_fixture_is_conformant() {
        check_conformance(&build_provider().unwrap()).unwrap();
    }

    #[test]
    fn the_fixture_is_cetp_v2_conformant() {
        let provider = build_provider().unwrap();
        Agent::new(&provider).check_v2_conformance().unwrap();
    }

    /// `crawl` as a CETP v2 operation: `accepted` at once, one step per opening of the gate,
    /// stopped by a cancellation while it waits.
    #[test]
    fn crawl_steps_through_the_gate_and_stops_when_cancelled() {
        use cetp_provider::host::cetp_v2::{CetpV2Host, V2Request};
        use std::sync::Arc;
        let provider = Arc::new(build_provider().unwrap());
        let host = CetpV2Host::new(Arc::clone(&provider));
        let agent = Agent::new(&provider);
        let both = r#"["async_operations","cancellation"]"#;
        let negotiated = host.call(&V2Request::negotiate(&[2, 1], both), agent.caller());
        let token = negotiated.data_json().unwrap()["session_token"]
            .as_str()
            .unwrap()
            .to_owned();
        let far = u64::MAX / 2;
        let id = "00000000-0000-4000-8000-00000000c4a1";
        let started = host.call(
            &V2Request::execute("crawl", r#"{"steps":2}"#, &token, id, far),
            agent.caller(),
        );
        assert!(started.is_accepted(), "{started:?}");
        let op = started.data_json().unwrap()["operation_id"]
            .as_str()
            .unwrap()
            .to_owned();
        let poll = || {
            host.call(
                &V2Request::operation("get_operation", &op, &token, id, far),
                agent.caller(),
            )
            .data_json()
            .unwrap()
        };
        let report = |steps: u32| {
            agent
                .execute("gate", &format!(r#"{{"steps":{steps}}}"#))
                .data_json()
                .unwrap()
        };
        // Nothing passes until the gate opens.
        while report(0)["waiting"] != true {
            std::thread::yield_now();
        }
        assert_eq!(poll()["progress"]["current"], 0);
        report(1);
        while !(report(0)["passed"] == 1 && report(0)["waiting"] == true) {
            std::thread::yield_now();
        }
        assert_eq!(poll()["progress"]["current"], 1);
        let cancel = host.call(
            &V2Request::operation("cancel_operation", &op, &token, id, far),
            agent.caller(),
        );
        assert_eq!(
            cancel.data_json().unwrap()["state"],
            "cancellation_requested"
        );
        while poll()["state"] != "cancelled" {
            std::thread::yield_now();
        }
        let end = report(0);
        assert_eq!(end["passed"], 1, "the second step never passed: {end}");
        assert_eq!(end["cancelled"], 1, "crawl saw the cancellation: {end}");
        assert_eq!(end["runs"], 1);
    }

    #[test]
    fn echo_counts_code_points_and_utf16_units() {
        let provider = build_provider().unwrap();
        let data = Agent::new(&provider)
            .execute("echo", r#"{"text":"a🎉"}"#)
            .data_json()
            .unwrap();
        assert_eq!(data["text"], "a🎉");
        assert_eq!(data["code_points"], 2);
        assert_eq!(data["utf16_units"], 3);
    }

    #[test]
    fn forecast_converts_units_and_rejects_out_of_range_days() {
        let provider = build_provider().unwrap();
        let agent = Agent::new(&provider);
        let data = agent
            .execute(
                "forecast",
                r#"{"unit":"fahrenheit","days":1,"city":"Oslo"}"#,
            )
            .data_json()
            .unwrap();
        assert_eq!(data[0], "Oslo");
        assert_eq!(data[1][0]["temperature"], 51);
        for bad in [
            r#"{"unit":"kelvin","days":1}"#,
            r#"{"unit":"celsius","days":8}"#,
            r#"{"unit":"celsius","days":1,"city":""}"#,
        ] {
            assert_eq!(
                agent.execute("forecast", bad).error_code(),
                Some(ErrorCode::InvalidArgs),
                "{bad}"
            );
        }
    }

    #[test]
    fn fail_returns_each_code() {
        let provider = build_provider().unwrap();
        let agent = Agent::new(&provider);
        for code in ErrorCode::ALL {
            let answer = agent.execute("fail", &format!(r#"{{"code":"{code}"}}"#));
            assert_eq!(answer.error_code(), Some(code));
        }
        let auth = agent.execute("fail", r#"{"code":"AUTH_REQUIRED"}"#);
        assert_eq!(auth.get("authorize_intent"), Some(AUTHORIZE_ACTION));
        assert!(auth.get("resolution_hint").is_some());
    }

    #[test]
    fn the_authority_constant_is_the_one_host_build_uses() {
        assert!(include_str!("../Cargo.toml").contains(&format!("authority = \"{AUTHORITY}\"")));
    }

    #[test]
    fn app_info_reports_the_app_given_to_the_build_function() {
        let provider = build_provider().unwrap();
        let data = Agent::new(&provider)
            .execute("app_info", "{}")
            .data_json()
            .unwrap();
        assert_eq!(data["package_name"], "dev.cetp.fixture");
        assert_eq!(data["files_dir"], app().files_dir().display().to_string());
        assert_eq!(data["version_code"], 3);
        assert_eq!(data["version_name"], "0.3");
    }
}
