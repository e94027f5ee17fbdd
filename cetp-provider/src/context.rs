//! Who is calling, and what a tool may tell them: [`Caller`] and [`CallContext`].

use std::sync::Arc;

use crate::state::States;

/// The identity of the app on the other end of a call, as the platform reports it.
///
/// On Android the bridge fills it from `Binder.getCallingUid()` and the PackageManager: every
/// package sharing the UID, each with the SHA-256 digests of its signing certificates. Host tests
/// build one by hand.
///
/// ```
/// use cetp_provider::Caller;
/// let caller = Caller::app(10_123, "com.example.agent").with_certificate("ab12cd");
/// assert_eq!(caller.uid(), Some(10_123));
/// assert_eq!(caller.package_names().collect::<Vec<_>>(), ["com.example.agent"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    uid: Option<u32>,
    packages: Vec<CallerPackage>,
}

/// One package installed under the caller's UID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallerPackage {
    /// The package name, e.g. `com.clawseed.android`.
    pub name: String,
    /// Lower-case hex SHA-256 digests of the package's signing certificates; empty when unknown.
    pub certificate_sha256: Vec<String>,
}

impl Caller {
    /// A caller whose identity is unknown (no UID, no packages).
    pub fn unknown() -> Self {
        Caller::default()
    }

    /// A caller with one package under `uid`.
    pub fn app(uid: u32, package: impl Into<String>) -> Self {
        Caller {
            uid: Some(uid),
            packages: vec![CallerPackage {
                name: package.into(),
                certificate_sha256: Vec::new(),
            }],
        }
    }

    /// A caller with a UID and every package the platform reports for it.
    pub fn from_parts(uid: Option<u32>, packages: Vec<CallerPackage>) -> Self {
        Caller { uid, packages }
    }

    /// Adds another package under the same UID (a shared UID).
    pub fn with_package(mut self, package: impl Into<String>) -> Self {
        self.packages.push(CallerPackage {
            name: package.into(),
            certificate_sha256: Vec::new(),
        });
        self
    }

    /// Adds a signing-certificate digest to the most recently added package.
    pub fn with_certificate(mut self, sha256_hex: impl Into<String>) -> Self {
        if let Some(last) = self.packages.last_mut() {
            last.certificate_sha256
                .push(sha256_hex.into().to_ascii_lowercase());
        }
        self
    }

    /// The calling UID, if known.
    pub fn uid(&self) -> Option<u32> {
        self.uid
    }

    /// The packages under the calling UID.
    pub fn packages(&self) -> &[CallerPackage] {
        &self.packages
    }

    /// The package names under the calling UID.
    pub fn package_names(&self) -> impl Iterator<Item = &str> {
        self.packages.iter().map(|p| p.name.as_str())
    }

    /// A short description for logs: `uid 10123 (com.a, com.b)`.
    pub fn describe(&self) -> String {
        let names: Vec<&str> = self.package_names().collect();
        match (self.uid, names.is_empty()) {
            (Some(uid), false) => format!("uid {uid} ({})", names.join(", ")),
            (Some(uid), true) => format!("uid {uid}"),
            (None, false) => names.join(", "),
            (None, true) => "unknown caller".to_owned(),
        }
    }
}

/// How much a caller may see. Tools read it from [`CallContext::access`] and return less to a
/// `Limited` caller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum AccessLevel {
    /// Everything the tool returns.
    #[default]
    Full,
    /// A reduced view chosen by the tool (titles without bodies, totals without items, ...).
    Limited,
}

impl AccessLevel {
    /// Whether this is [`AccessLevel::Limited`].
    pub fn is_limited(self) -> bool {
        self == AccessLevel::Limited
    }
}

/// What a tool knows about the call it is serving. Declare a `&CallContext` parameter on a
/// `#[tool]` function to receive it; it is injected, never advertised in the schema.
///
/// ```
/// use cetp_provider::{AccessLevel, CallContext, Caller};
/// let ctx = CallContext::new(Caller::app(10_001, "com.example.agent"))
///     .with_request_id("3f2b")
///     .with_access(AccessLevel::Limited);
/// assert_eq!(ctx.request_id(), Some("3f2b"));
/// assert!(ctx.access().is_limited());
/// ```
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    caller: Caller,
    request_id: Option<String>,
    access: AccessLevel,
    tool: String,
    states: Option<Arc<States>>,
}

impl CallContext {
    /// A context for `caller` with full access, no request id and no provider state.
    pub fn new(caller: Caller) -> Self {
        CallContext {
            caller,
            ..CallContext::default()
        }
    }

    /// Sets the consumer's request id.
    pub fn with_request_id(mut self, request_id: impl Into<String>) -> Self {
        self.request_id = Some(request_id.into());
        self
    }

    /// Sets the access level granted to the caller.
    pub fn with_access(mut self, access: AccessLevel) -> Self {
        self.access = access;
        self
    }

    pub(crate) fn with_tool(mut self, tool: &str, states: &Arc<States>) -> Self {
        self.tool = tool.to_owned();
        self.states = Some(Arc::clone(states));
        self
    }

    /// The calling app.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The consumer's request id, for log correlation.
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// The access level granted to the caller.
    pub fn access(&self) -> AccessLevel {
        self.access
    }

    /// The name of the tool being run (empty outside a tool call).
    pub fn tool_name(&self) -> &str {
        &self.tool
    }

    /// The provider state of type `T` given to
    /// [`ProviderBuilder::state`](crate::ProviderBuilder::state), if any.
    ///
    /// `#[tool]` functions take a `&T` parameter instead, which the provider checks when it is
    /// built; this is for hand-written [`Tool`](crate::Tool)s, which list the types they read in
    /// [`Tool::state_types`](crate::Tool::state_types) to get the same check.
    ///
    /// ```
    /// use cetp_provider::{CallContext, Caller};
    /// assert!(CallContext::new(Caller::unknown()).state::<String>().is_none());
    /// ```
    pub fn state<T: std::any::Any>(&self) -> Option<&T> {
        self.states.as_deref()?.get::<T>()
    }
}
