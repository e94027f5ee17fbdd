//! The smallest complete CETP provider: one read-only tool behind the default authorization
//! (the user approves each agent app once). Walkthrough: `README.md`.

mod texts;

use cetp_provider::{App, Provider, ProviderBuilder, tool, tools};

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
pub fn provider(_app: &App) -> ProviderBuilder {
    Provider::builder("Minimal sample")
        .description(texts::description())
        .full_access_only()
        .tools(tools![greet])
}

cetp_provider::export_provider!(provider);
