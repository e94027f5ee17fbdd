//! What each LLM tool-calling API would make of a provider's tools: every tool's name and
//! `parameters` schema, as `list_tools` advertises them, checked against the published rules of
//! OpenAI, Anthropic and Gemini function calling (and their strict modes).
//!
//! CETP accepts any JSON Schema 2020-12 object schema; the agents that relay tools to a model
//! adapt schemas per model, so what one API would refuse is a warning, not an error. This is
//! tooling: `cargo cetp check` and `cargo xtask schema-report` print it, and an app's tests may
//! make chosen APIs a requirement with [`ConformanceExt::require`]. No app ships it.
//!
//! ```
//! use cetp_provider::testing::check_conformance;
//! use cetp_provider::{Provider, tool, tools};
//! use cetp_schema_report::{Api, ConformanceExt};
//!
//! /// Counts to `n`.
//! #[tool]
//! fn count(
//!     /// Where to stop.
//!     #[schemars(range(max = 10))]
//!     n: u8,
//! ) -> Vec<u8> {
//!     (1..=n).collect()
//! }
//!
//! let provider = Provider::builder("Counter")
//!     .tools(tools![count])
//!     .auth(cetp_provider::auth::Auth::open())
//!     .build()
//!     .unwrap();
//! let conformance = check_conformance(&provider).unwrap();
//! conformance.require(&[Api::OpenAi, Api::Anthropic]).unwrap();
//! let strict = conformance.require(&[Api::AnthropicStrict]).unwrap_err();
//! assert!(strict.to_string().contains("`maximum` at /properties/n"), "{strict}");
//! ```
#![deny(missing_docs)]

mod compat;
mod rules;

use cetp_provider::testing::{Conformance, ConformanceError};

pub use compat::{CompatReport, Finding, ToolCompat, check_tool, report};
pub use rules::{Api, NameRule, RuleSet};

/// The schema findings of the tools a [`check_conformance`] audited.
///
/// [`check_conformance`]: cetp_provider::testing::check_conformance
pub trait ConformanceExt {
    /// The compatibility of every audited tool with every API.
    fn report(&self) -> CompatReport;

    /// Every schema finding, one line each (`tool / API: problem`).
    fn warnings(&self) -> Vec<String> {
        self.report().details()
    }

    /// Makes the schema findings for `apis` errors: `Ok` when every tool passes each of them.
    ///
    /// # Errors
    /// [`ConformanceError`] listing each finding for `apis`.
    fn require(&self, apis: &[Api]) -> Result<(), ConformanceError> {
        let mut violations = Vec::new();
        for row in &self.report().rows {
            for api in apis {
                for finding in row.findings(*api) {
                    violations.push(format!("{} / {api}: {finding}", row.tool));
                }
            }
        }
        if violations.is_empty() {
            Ok(())
        } else {
            Err(ConformanceError(violations))
        }
    }
}

impl ConformanceExt for Conformance {
    fn report(&self) -> CompatReport {
        CompatReport {
            rows: self
                .tools()
                .map(|(name, parameters)| ToolCompat::check(name, parameters))
                .collect(),
        }
    }
}
