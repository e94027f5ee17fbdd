//! Hosts: the adapters that carry calls from one kind of agent to the [`Provider`], and their
//! settings.
//!
//! An app serves every host without code of its own: the Android template routes CETP v1 and v2
//! calls and Apex bindings to one provider. What an app may set is here, given to
//! [`ProviderBuilder::host`](crate::ProviderBuilder::host):
//!
//! - [`Apex`]: the plugin's tool ids ([`ToolIds`]), its minimum host version, and hooks for
//!   when the Apex agent activates or deactivates it ([`AgentConnection`]).
//! - [`CetpV2`]: what CETP v2 says about each scope ([`ScopeAccess`], [`Sensitivity`]) and each
//!   tool ([`Risk`], [`Confirmation`]) beyond what `#[tool]` already knows.
//!   It also sets how `#[tool(long_running)]` calls become operations (the inline window, the
//!   threads, the bounds, how long outcomes are kept).
//!
//! | host | transport | module |
//! |---|---|---|
//! | CETP v1 | an exported `ContentProvider`: `call(method, arg, extras)` → Bundle | `cetp_v1` (`CetpV1Host`) |
//! | CETP v2 | the same `ContentProvider`, calls with `protocol_version` = 2 or `negotiate` | `cetp_v2` (`CetpV2Host`) |
//! | Apex | the `IApexPlugin` AIDL bound Service | `apex` (`ApexHost`) |
//! | MCP (a developer tool) | Model Context Protocol over stdio (`cargo cetp mcp`) | the crate `cetp-mcp` (`McpHost`) |
//!
//! # For host authors
//!
//! The hosts themselves and the core's interface they use are public for the SDK's own crates and
//! hidden from these docs. Every host is a thin adapter over the same provider: it turns what its
//! transport delivers into calls of the core and renders the answer in its own format, and it
//! decides nothing (validation, limits, authorization and panic isolation live once, in the
//! core). Every host has one shape: a struct generic over how it holds the provider (`&Provider`
//! or `Arc<Provider>`, the default), built with `new(provider)` from it alone, answering through
//! `provider()`. The core names no host. The calls a host makes:
//!
//! - `Provider::authorize` with `Need::Discovery`: may this caller see the provider at all?
//! - `Provider::tool` (or `tool_at`, for a host with its own names): the `ToolRef` a name
//!   refers to, looked up once.
//! - `Provider::execute` with a `ToolCall`: everything about one call of that tool. A host that
//!   found no tool passes what it would answer instead, and the core decides whether this caller
//!   may hear it.
//! - `Provider::reply` for answers a host makes itself (a discovery reply, an unknown method).
//!
//! A new host is one file or folder here that does nothing else; see `docs/architecture.md`.
//!
//! [`Provider`]: crate::Provider

#[doc(hidden)]
pub mod apex;
#[doc(hidden)]
pub mod cetp_v1;
#[doc(hidden)]
pub mod cetp_v2;

pub use apex::{AgentConnection, Apex, ToolIds};
pub use cetp_v2::{CetpV2, Confirmation, Risk, ScopeAccess, Sensitivity};

#[doc(hidden)]
pub use crate::auth::Need;
#[doc(hidden)]
pub use crate::provider::Admitted;
#[doc(hidden)]
pub use crate::signals::{CallSignals, Progress};

/// How a host holds its provider: borrowed (`&Provider`) or shared (`Arc<Provider>`), which a
/// host may hand to threads of its own (CETP v2's operations run there).
#[doc(hidden)]
pub trait HeldProvider: std::ops::Deref<Target = crate::Provider> {
    /// The provider as an `Arc`, when it is held so.
    fn shared(&self) -> Option<std::sync::Arc<crate::Provider>>;
}

impl HeldProvider for &crate::Provider {
    fn shared(&self) -> Option<std::sync::Arc<crate::Provider>> {
        None
    }
}

impl HeldProvider for std::sync::Arc<crate::Provider> {
    fn shared(&self) -> Option<std::sync::Arc<crate::Provider>> {
        Some(std::sync::Arc::clone(self))
    }
}
#[doc(hidden)]
pub use crate::caller::CallerPackage;
#[doc(hidden)]
pub use crate::descriptor::{Annotations, ToolDescriptor};
// Caller text echoed in a host's own messages, escaped and cut (the MCP host's unknown tool).
#[doc(hidden)]
pub use crate::log_text::printable;
#[doc(hidden)]
pub use crate::provider::{HostSettings, ToolCall, ToolRef};
#[doc(hidden)]
pub use crate::wire::Response;
#[doc(hidden)]
pub use cetp_v1::{CetpV1Host, Request};
#[doc(hidden)]
pub use cetp_v2::{CetpV2Host, V2Request};
