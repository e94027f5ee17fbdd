//! The smallest complete CETP provider: one read-only tool behind the default authorization
//! (the user approves each agent app once). Walkthrough: `README.md`.

use cetp_provider::{BuildError, Provider, tool, tools};

/// Greets someone by name. Use it to check that the Minimal sample app answers.
#[tool]
pub fn greet(
    /// The name of the person to greet.
    #[schemars(length(min = 1, max = 100))]
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Declares the provider; the Android template calls it when the app starts.
///
/// # Errors
/// A [`BuildError`] if the declaration is inconsistent (it is not).
pub fn build_provider() -> Result<Provider, BuildError> {
    Provider::builder("Minimal sample")
        .description("Greets people; the smallest CETP provider")
        .nothing_to_redact()
        .tools(tools![greet])
        .build()
}

cetp_provider::export_provider!(build_provider);
