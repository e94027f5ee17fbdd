//! What CETP v2 says about a provider: `get_provider_info` (scopes with their title, access and
//! sensitivity) and `list_tools` (every tool with its schemas, complete scopes and the seven
//! annotations), built once from the provider's declaration and the [`CetpV2`] settings.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::words::{
    EXECUTION_SYNC, EXECUTION_SYNC_OR_ASYNC, MIN_INLINE_RESULT_BYTES, SCHEMA_DIALECT,
};
use crate::descriptor::ToolDescriptor;
use crate::provider::{HostSettings, Provider};

/// What a scope's grant lets an agent do, as `get_provider_info` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScopeAccess {
    /// Reading (the default: every `#[tool]` is read-only).
    Read,
    /// Changing data.
    Write,
}

/// How sensitive the data behind a scope is, as `get_provider_info` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Sensitivity {
    /// Public data.
    Public,
    /// Data about the phone's owner (the default, the safe assumption for app data).
    Personal,
    /// Money.
    Financial,
    /// Health.
    Health,
    /// The device itself.
    Device,
    /// Anything else.
    Other,
}

/// How much harm an accidental call may do, as a tool's `risk` annotation says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Risk {
    /// The default for a read-only tool.
    Low,
    /// Reads that deserve a second look.
    Moderate,
    /// Needs [`Confirmation::Always`].
    High,
}

/// When the provider asks the user before a call, as a tool's `confirmation` annotation says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Confirmation {
    /// Never: the tool answers at once (the default under an open or allowlist policy).
    Never,
    /// The provider's policy decides (the default under user approval: a first call waits for
    /// the user, and the agent waits up to five minutes instead of thirty seconds).
    ProviderPolicy,
    /// Every call.
    Always,
}

impl ScopeAccess {
    fn as_str(self) -> &'static str {
        match self {
            ScopeAccess::Read => "read",
            ScopeAccess::Write => "write",
        }
    }
}

impl Sensitivity {
    fn as_str(self) -> &'static str {
        match self {
            Sensitivity::Public => "public",
            Sensitivity::Personal => "personal",
            Sensitivity::Financial => "financial",
            Sensitivity::Health => "health",
            Sensitivity::Device => "device",
            Sensitivity::Other => "other",
        }
    }
}

impl Risk {
    fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Moderate => "moderate",
            Risk::High => "high",
        }
    }
}

impl Confirmation {
    fn as_str(self) -> &'static str {
        match self {
            Confirmation::Never => "never",
            Confirmation::ProviderPolicy => "provider_policy",
            Confirmation::Always => "always",
        }
    }
}

/// The CETP v2 settings of a provider, given to
/// [`ProviderBuilder::host`](crate::ProviderBuilder::host). Without them every scope is `read`
/// and `personal` with its description as title, and every tool's annotations come from its
/// `#[tool]`: `effect` read, `risk` low, `destructive` false, `idempotent` and `open_world` as
/// declared, `confirmation` `provider_policy` under user approval (else `never`), `execution`
/// `sync` (`sync_or_async` for a `#[tool(long_running)]` to an agent that negotiated
/// `async_operations`).
///
/// ```
/// use cetp_provider::host::cetp_v2::{CetpV2, Confirmation, Risk, ScopeAccess, Sensitivity};
/// use cetp_provider::Provider;
/// let provider = Provider::builder("Bank")
///     .scope("balance", "your account balance")
///     .host(
///         CetpV2::new()
///             .scope("balance", "Account balance", ScopeAccess::Read, Sensitivity::Financial)
///             .risk("get_balance", Risk::Moderate)
///             .confirmation("get_balance", Confirmation::Always),
///     )
///     .build();
/// assert!(provider.is_err(), "settings for a tool the provider does not have");
/// ```
#[must_use]
#[derive(Debug, Clone, Default)]
pub struct CetpV2 {
    scopes: Vec<(String, String, ScopeAccess, Sensitivity)>,
    risks: Vec<(String, Risk)>,
    confirmations: Vec<(String, Confirmation)>,
    max_large_result_bytes: Option<u64>,
    /// How long-running tools become operations (set in `operations.rs`).
    pub(super) operations: super::operations::OperationSettings,
}

/// The default cap on a large result: 16 MiB, what ClawSeed's client reads at most (the spec
/// leaves the read limit to the agent and sets no floor for it).
pub const DEFAULT_MAX_LARGE_RESULT_BYTES: u64 = 16 * 1024 * 1024;

impl CetpV2 {
    /// The defaults.
    pub fn new() -> Self {
        CetpV2::default()
    }

    /// How `get_provider_info` presents the declared scope `name`.
    pub fn scope(
        mut self,
        name: impl Into<String>,
        title: impl Into<String>,
        access: ScopeAccess,
        sensitivity: Sensitivity,
    ) -> Self {
        let name = name.into();
        self.scopes.retain(|(n, ..)| *n != name);
        self.scopes.push((name, title.into(), access, sensitivity));
        self
    }

    /// The `risk` annotation of `tool`.
    pub fn risk(mut self, tool: impl Into<String>, risk: Risk) -> Self {
        let tool = tool.into();
        self.risks.retain(|(t, _)| *t != tool);
        self.risks.push((tool, risk));
        self
    }

    /// The `confirmation` annotation of `tool`.
    pub fn confirmation(mut self, tool: impl Into<String>, confirmation: Confirmation) -> Self {
        let tool = tool.into();
        self.confirmations.retain(|(t, _)| *t != tool);
        self.confirmations.push((tool, confirmation));
        self
    }

    /// The largest result sent as a descriptor to an agent that negotiated `large_results`,
    /// in bytes of its JSON text (default [`DEFAULT_MAX_LARGE_RESULT_BYTES`]); a larger one is
    /// `RESULT_TOO_LARGE`. At least the inline limit (256 KiB), or the provider does not build.
    ///
    /// ```
    /// use cetp_provider::host::cetp_v2::CetpV2;
    /// use cetp_provider::Provider;
    /// let provider = Provider::builder("Expenses")
    ///     .host(CetpV2::new().max_large_result_bytes(4 * 1024 * 1024))
    ///     .build();
    /// assert!(provider.is_ok());
    /// let below = Provider::builder("Expenses")
    ///     .host(CetpV2::new().max_large_result_bytes(1024))
    ///     .build();
    /// assert!(below.unwrap_err().to_string().contains("at least the inline limit"));
    /// ```
    pub fn max_large_result_bytes(mut self, bytes: u64) -> Self {
        self.max_large_result_bytes = Some(bytes);
        self
    }

    /// The cap on a large result in force.
    pub(crate) fn large_result_cap(&self) -> u64 {
        self.max_large_result_bytes
            .unwrap_or(DEFAULT_MAX_LARGE_RESULT_BYTES)
    }

    fn risk_of(&self, tool: &str) -> Risk {
        self.risks
            .iter()
            .find_map(|(t, r)| (t == tool).then_some(*r))
            .unwrap_or(Risk::Low)
    }

    pub(crate) fn confirmation_of(&self, tool: &str, asks_the_user: bool) -> Confirmation {
        let default = if asks_the_user {
            Confirmation::ProviderPolicy
        } else {
            Confirmation::Never
        };
        self.confirmations
            .iter()
            .find_map(|(t, c)| (t == tool).then_some(*c))
            .unwrap_or(default)
    }
}

impl HostSettings for CetpV2 {
    const HOST: &'static str = "CETP v2";

    fn check(&self, tools: &[ToolDescriptor]) -> Result<(), String> {
        if self.large_result_cap() < MIN_INLINE_RESULT_BYTES {
            return Err(format!(
                "the cap on a large result ({} bytes) must be at least the inline limit ({MIN_INLINE_RESULT_BYTES} bytes)",
                self.large_result_cap()
            ));
        }
        let named = |tool: &str| tools.iter().any(|t| t.name == tool);
        for tool in self
            .risks
            .iter()
            .map(|(t, _)| t)
            .chain(self.confirmations.iter().map(|(t, _)| t))
        {
            if !named(tool) {
                return Err(format!(
                    "settings for `{tool}`, which is no tool of this provider"
                ));
            }
        }
        for (tool, risk) in &self.risks {
            let always = self
                .confirmations
                .iter()
                .any(|(t, c)| t == tool && *c == Confirmation::Always);
            if *risk == Risk::High && !always {
                return Err(format!(
                    "`{tool}` is high-risk, so its confirmation must be `Confirmation::Always`"
                ));
            }
        }
        Ok(())
    }
}

/// The `data` of v2's `get_provider_info`.
pub(crate) fn provider_info(provider: &Provider, id: &str, settings: &CetpV2) -> String {
    let scopes: Vec<Value> = provider
        .scopes()
        .iter()
        .map(|(name, description)| {
            let set = settings.scopes.iter().find(|(n, ..)| n == name);
            let (title, access, sensitivity) = match set {
                Some((_, title, access, sensitivity)) => (title.as_str(), *access, *sensitivity),
                None => (
                    description.as_str(),
                    ScopeAccess::Read,
                    Sensitivity::Personal,
                ),
            };
            json!({
                "name": name,
                "title": title,
                "description": description,
                "access": access.as_str(),
                "sensitivity": sensitivity.as_str(),
            })
        })
        .collect();
    json!({
        "provider_id": id,
        "provider_name": provider.name(),
        "description": provider.description(),
        "schema_dialect": SCHEMA_DIALECT,
        "scopes": scopes,
    })
    .to_string()
}

/// The `data` of v2's `list_tools`: `{"revision","tools"}`, the revision a digest of the tools
/// as described, so it changes whenever a tool, a schema or an annotation does. With
/// `operations` (the session negotiated `async_operations` and the host runs operations), a
/// long-running tool says `execution: sync_or_async`; without, every tool says `sync`, as the
/// spec allows `sync_or_async` only under that capability.
pub(crate) fn list_tools(provider: &Provider, settings: &CetpV2, operations: bool) -> String {
    let asks = provider.authorizer().asks_the_user();
    let tools: Vec<Value> = provider
        .tools()
        .iter()
        .map(|tool| {
            let facts = tool.annotations();
            json!({
                "name": tool.name,
                "title": tool.title(),
                "description": tool.description,
                "input_schema": tool.parameters,
                "output_schema": tool.output_schema().cloned().unwrap_or_else(|| json!({})),
                "scopes": tool.scopes,
                "annotations": {
                    "effect": "read",
                    "risk": settings.risk_of(&tool.name).as_str(),
                    "destructive": facts.destructive(),
                    "idempotent": facts.idempotent(),
                    "open_world": facts.open_world(),
                    "confirmation": settings.confirmation_of(&tool.name, asks).as_str(),
                    "execution": if operations && tool.long_running() {
                        EXECUTION_SYNC_OR_ASYNC
                    } else {
                        EXECUTION_SYNC
                    },
                },
            })
        })
        .collect();
    let listed = Value::Array(tools).to_string();
    let digest = Sha256::digest(listed.as_bytes());
    let revision: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("{{\"revision\":\"tools-{revision}\",\"tools\":{listed}}}")
}
