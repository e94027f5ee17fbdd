//! A provider whose app turns CETP v2 off: its `android/gradle.properties` says
//! `cetp.v2=false`, so the build writes `"1"` into the template's
//! `com.clawseed.tools.versions` meta-data and the provider answers CETP v1 alone. The Android
//! end-to-end suite (`V1OnlyProviderE2ETest`) checks both. The provider itself is ordinary: one
//! tool behind the default user approval.
#![deny(missing_docs)]

use cetp_provider::{App, Provider, ProviderBuilder, tool, tools};

/// Answers "pong".
#[tool]
pub fn ping() -> &'static str {
    "pong"
}

/// The provider.
pub fn provider(_app: &App) -> ProviderBuilder {
    Provider::builder("Version one")
        .description("A provider with CETP v2 turned off, for tests")
        .tools(tools![ping])
}

cetp_provider::export_provider!(provider);
