//! Expose read-only tools from an Android app to on-device AI agents over **CETP v1 and v2** and
//! as an **Apex plugin**.
//!
//! Write ordinary functions, mark them `#[tool]`, declare a [`Provider`], and the SDK answers the
//! three CETP methods (`list_tools`, `get_provider_info`, `execute_tool`) with LLM-ready JSON
//! Schemas, validated arguments, enforced limits and CETP error codes.
//!
//! | feature | default | what it adds | where an app enables it |
//! |---|---|---|---|
//! | `jni` | off | `export_provider!` and the natives of the Android template's `dev.cetp.NativeBridge` (the `jni` module), logcat logging on Android | `[dependencies]`: the library the app ships |
//! | `test-util` | off | the `testing` module (a test agent, the CETP v1 and v2 conformance checks, the noninterference check, log capture) and the clock seam (`auth::ManualClock`, `Auth::clock`) | `[dev-dependencies]` only: never in the library the app ships |
//!
//! Without a feature the crate is the core and its hosts, for any target: what `cargo cetp
//! mcp` and an app's own unit tests build on the desktop.
//!
//! ```
//! use cetp_provider::{Provider, tool, tools};
//!
//! /// Adds two integers.
//! #[tool]
//! fn add(
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! let provider = Provider::builder("Calculator")
//!     .description("Arithmetic for the agent")
//!     .tools(tools![add])
//!     .auth(cetp_provider::auth::Auth::open()) // the default asks the user: see `auth`
//!     .build()
//!     .expect("valid provider");
//!
//! let agent = cetp_provider::testing::Agent::new(&provider);
//! let answer = agent.execute("add", r#"{"a": 2, "b": 40}"#);
//! assert_eq!(answer.data_json().unwrap(), 42);
//! ```
//!
//! # Holding resources
//!
//! Tools are free functions; what they share (a database, a client, settings) is *provider
//! state*. Build it in the function `export_provider!` names (from the [`App`]'s files dir),
//! give it to [`ProviderBuilder::state`], and borrow it in a tool with a `&T` parameter. Tools
//! run on many Binder threads at once, so keep what changes behind a lock or in a pool, and run
//! cheap argument checks before taking a connection. The notes sample does this with a pool of
//! read-only SQLite connections; here the pooled "connection" is a `String`:
//!
//! ```
//! use std::sync::Mutex;
//! use cetp_provider::{Provider, ToolError, tool, tools};
//!
//! /// Connections kept open between calls.
//! struct Pool(Mutex<Vec<String>>);
//!
//! impl Pool {
//!     fn read<T>(&self, f: impl FnOnce(&str) -> T) -> T {
//!         let idle = self.0.lock().unwrap().pop();
//!         let conn = idle.unwrap_or_else(|| "connection".to_owned()); // open a new one
//!         let result = f(&conn);
//!         self.0.lock().unwrap().push(conn); // keep it for the next call
//!         result
//!     }
//! }
//!
//! /// Counts the notes between two ids.
//! #[tool]
//! fn count_notes(
//!     /// First id.
//!     from: u32,
//!     /// Last id.
//!     to: u32,
//!     pool: &Pool,
//! ) -> Result<u32, ToolError> {
//!     if from > to {
//!         return Err(ToolError::invalid_args("`from` is after `to`")); // no connection taken
//!     }
//!     Ok(pool.read(|_conn| to - from + 1))
//! }
//!
//! let provider = Provider::builder("Notes")
//!     .tools(tools![count_notes])
//!     .state(Pool(Mutex::new(Vec::new())))
//!     .auth(cetp_provider::auth::Auth::open())
//!     .build()
//!     .unwrap();
//! let agent = cetp_provider::testing::Agent::new(&provider);
//! assert_eq!(agent.execute("count_notes", r#"{"from":3,"to":5}"#).data_json().unwrap(), 3);
//! ```
//!
//! # What these docs show
//!
//! What an app developer uses, and nothing else: the items at this root, [`auth`] (who may
//! call), [`host`] (the settings of the Apex and CETP v2 hosts) and `testing` (the app's own
//! tests, with the `test-util` feature in its `[dev-dependencies]`). `tests/public_api.txt` in
//! the repository lists them, and a test fails when the list changes unnoticed. The rest is
//! public only for the SDK's own code (the JNI bridge the Android template calls, the hosts'
//! interface to the core, the protocol constants in `wire`, the admin interface of the consent
//! dialog and Apps with access, the tooling of `cargo cetp`) and is hidden here: it may change
//! in any release.
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The README's examples compile and run with the crate's doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

// `#[tool]` writes `::cetp_provider::…` paths; this lets the crate's own tests use it.
#[cfg(test)]
extern crate self as cetp_provider;

mod app;
pub mod app_db;
pub mod auth;
mod caller;
mod clock;
mod context;
mod descriptor;
mod error;
pub mod host;
// The natives behind the Android template and `export_provider!`'s expansion: no app names them.
#[cfg(feature = "jni")]
#[doc(hidden)]
pub mod jni;
mod limits;
// `Localized` is at the root; the module's other item is the template's language list for tooling.
#[doc(hidden)]
pub mod localized;
mod log_text;
mod provider;
#[cfg(feature = "jni")]
mod runtime;
// Schema tooling for `cargo cetp check` and the SDK's tests.
#[doc(hidden)]
pub mod schema;
mod signals;
mod sort;
mod state;
// The app developer's test helpers: with the `test-util` feature, which an app enables in its
// `[dev-dependencies]` only, so the library it ships never builds them.
#[cfg(feature = "test-util")]
#[cfg_attr(docsrs, doc(cfg(feature = "test-util")))]
pub mod testing;
mod tool;
mod type_map;
mod validate;
// The protocols' constants, for the hosts and the SDK's tests; an app never imports them.
#[doc(hidden)]
pub mod wire;
mod wire_size;

pub use app::App;
pub use app_db::AppDatabase;
pub use caller::Caller;
pub use cetp_macros::tool;
pub use context::{AccessLevel, CallContext, Deadline};
// What `list_tools` says about a tool: for hosts (also at `host::`), not for apps.
#[doc(hidden)]
pub use descriptor::{Annotations, ToolDescriptor};
pub use error::ToolError;
pub use limits::Limits;
pub use localized::Localized;
pub use provider::{AnyTool, BuildError, Provider, ProviderBuilder};
/// The schemars version the SDK derives schemas with. Derive `JsonSchema` on your argument
/// types through it (`#[derive(cetp_provider::schemars::JsonSchema)]` with
/// `#[schemars(crate = "cetp_provider::schemars")]`), or depend on the same major version, so
/// two copies never disagree.
pub use schemars;
pub use state::StateType;
pub use tool::Tool;
pub use wire::{ErrorCode, Response};

/// Collects `#[tool]` functions for [`ProviderBuilder::tools`].
///
/// Each entry is the path of a `#[tool]` function (`search_notes`, `notes::get_note`,
/// `crate::notes::get_note`, `super::x`), or of a hand-written [`Tool`] that is a field-less
/// struct. The result is a `Vec<AnyTool>`.
///
/// ```
/// use cetp_provider::{tool, tools};
///
/// /// Says hello.
/// #[tool]
/// fn hello() -> &'static str { "hello" }
///
/// mod more {
///     use cetp_provider::tool;
///
///     /// Says goodbye.
///     #[tool]
///     pub fn goodbye() -> &'static str { "goodbye" }
/// }
///
/// let set = tools![hello, more::goodbye];
/// assert_eq!(set.len(), 2);
/// ```
#[macro_export]
macro_rules! tools {
    // A `$tool:path` fragment cannot be followed by `{}` to build a struct, so paths are matched
    // segment by segment. `#[tool]` emits a field-less struct named like the function.
    ($($($segment:ident)::+),* $(,)?) => {
        ::std::vec![$($crate::AnyTool::new($($segment)::+ {})),*]
    };
}

/// Support code for `#[tool]`'s expansion. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use schemars;
    pub use serde;

    pub use crate::schema::probe::{OutputProbe, OutputSchema, WithSchema, WithoutSchema};

    use crate::{CallContext, ProviderBuilder, ToolError};

    pub use crate::tool::is_valid_tool_name;

    /// Fails the compilation of a tool whose name breaks the tool-name rule, with `message`
    /// (which the macro writes, naming the function and a valid name). `#[tool]` emits it as
    /// `const _: () = check_tool_name(NAME, "…")`, so the macro and the runtime share the rule.
    pub const fn check_tool_name(name: &str, message: &'static str) {
        if !is_valid_tool_name(name) {
            panic!("{}", message);
        }
    }

    /// The provider state a `#[tool]` function's `&T` parameter borrows. The provider checked at
    /// build time that it has one, so the error is only reachable through a hand-made context.
    pub fn state<'a, T: std::any::Any + Send + Sync>(
        ctx: &CallContext<'a>,
    ) -> Result<&'a T, ToolError> {
        ctx.state::<T>().ok_or_else(|| {
            crate::error::provider_bug(format_args!(
                "tool `{}` has no provider state of type `{}`",
                ctx.tool_name(),
                std::any::type_name::<T>()
            ))
        })
    }

    /// What an `export_provider!` build function may return: a [`ProviderBuilder`], or a
    /// `Result` of one whose error says why the app could not declare its provider.
    pub trait IntoProviderBuilder {
        /// The builder, or why there is none.
        fn into_provider_builder(self) -> Result<ProviderBuilder, String>;
    }

    impl IntoProviderBuilder for ProviderBuilder {
        fn into_provider_builder(self) -> Result<ProviderBuilder, String> {
            Ok(self)
        }
    }

    impl<E: std::fmt::Display> IntoProviderBuilder for Result<ProviderBuilder, E> {
        fn into_provider_builder(self) -> Result<ProviderBuilder, String> {
            self.map_err(|e| e.to_string())
        }
    }

    /// The return types a `#[tool]` function may have: `Result<T, E>` with `E: Into<ToolError>`.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a valid tool result",
        label = "return `Result<T, E>` where `T: serde::Serialize` and `E: Into<cetp_provider::ToolError>`"
    )]
    pub trait IntoToolResult {
        /// The successful value.
        type Output: serde::Serialize;
        /// Converts into the runtime's result.
        fn into_tool_result(self) -> Result<Self::Output, ToolError>;
    }

    impl<T: serde::Serialize, E: Into<ToolError>> IntoToolResult for Result<T, E> {
        type Output = T;
        fn into_tool_result(self) -> Result<T, ToolError> {
            self.map_err(Into::into)
        }
    }

    /// Wraps a plain (non-`Result`) return value.
    pub fn ok<T: ToolOutput>(value: T) -> Result<T, ToolError> {
        Ok(value)
    }

    /// A value a tool can return: anything `serde::Serialize`.
    #[diagnostic::on_unimplemented(
        message = "tool return type `{Self}` cannot be serialized to JSON",
        label = "this type must implement `serde::Serialize`",
        note = "derive it with `#[derive(serde::Serialize)]`, or return a type that does"
    )]
    pub trait ToolOutput: serde::Serialize {}
    impl<T: serde::Serialize + ?Sized> ToolOutput for T {}
}
