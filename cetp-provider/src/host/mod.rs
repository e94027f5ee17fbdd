//! Hosts: the adapters that carry calls from one kind of agent to the [`Provider`].
//!
//! Every host is a thin adapter over the same provider. It turns what its transport delivers
//! into calls of the provider's core and renders the answer in its own format, and it decides
//! nothing: validation, limits, authorization and panic isolation live once, in the core.
//!
//! | host | transport | module |
//! |---|---|---|
//! | CETP v1 | an exported `ContentProvider`: `call(method, arg, extras)` → Bundle | [`cetp_v1`] ([`CetpV1Host`]) |
//! | CETP v2 (read-only; not yet routed by the template) | the same `ContentProvider`, calls with `protocol_version` = 2 or `negotiate` | [`cetp_v2`] ([`CetpV2Host`]) |
//! | Apex | the `IApexPlugin` AIDL bound Service | [`apex`] ([`ApexHost`](apex::ApexHost)) |
//! | MCP (feature `mcp`, a developer tool) | Model Context Protocol over stdio (`cargo cetp mcp`) | `mcp` (`McpHost`) |
//!
//! Every host has one shape: a struct generic over how it holds the provider (`&Provider` for a
//! test or a tool that borrows it, `Arc<Provider>`, the default, for the runtime that keeps it),
//! built with `new(provider)` from it alone (its own tables come from the provider's
//! declaration), and answering through `provider()`. The core names no host.
//!
//! # The core a host calls
//!
//! - [`Provider::authorize`] with [`Need::Discovery`]: may this caller see the provider at all
//!   (its tools, its metadata)? Every caller may while discovery is open (the default).
//! - [`Provider::tool`]: the [`ToolRef`] a name refers to, looked up once (a host with its own
//!   names, such as Apex's tool ids, keeps an index of its own and uses [`Provider::tool_at`]).
//! - [`Provider::execute`] with a [`ToolCall`]: everything about one call of that tool. A host
//!   that found no tool passes what it would answer instead (its own `TOOL_NOT_FOUND` words),
//!   and the core decides whether this caller may hear it.
//! - [`Provider::reply`] for answers a host makes itself (a discovery reply, an unknown method).
//!
//! A new host is one file here that does nothing else; see `docs/architecture.md`.
//!
//! [`Provider`]: crate::Provider
//! [`Provider::authorize`]: crate::Provider::authorize
//! [`Provider::tool`]: crate::Provider::tool
//! [`Provider::tool_at`]: crate::Provider::tool_at
//! [`Provider::execute`]: crate::Provider::execute
//! [`Provider::reply`]: crate::Provider::reply

pub mod apex;
pub mod cetp_v1;
pub mod cetp_v2;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;

pub use crate::auth::Need;
pub use crate::caller::CallerPackage;
pub use crate::provider::{HostSettings, ToolCall, ToolRef};
pub use crate::wire::Response;
pub use cetp_v1::{CetpV1Host, Request};
pub use cetp_v2::{CetpV2Host, V2Request};
