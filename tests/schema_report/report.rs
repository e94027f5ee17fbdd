//! The LLM API compatibility report of one sample's tools, shared by the `schema-report-*`
//! examples (one per sample: each sample is a cdylib exporting `JNI_OnLoad`, so two cannot be
//! linked into one program). `cargo xtask schema-report` runs them all.

use std::process::ExitCode;

use cetp_provider::schema::{Api, report};
use cetp_provider::{App, BuildError, Provider};

/// The app a sample's build function receives; its files dir is never written here.
#[allow(dead_code)] // Not every sample's build function reads the app.
pub fn app(package: &str) -> App {
    App::new(package, std::env::temp_dir().join("cetp-schema-report"))
}

/// Prints the sample's table (Markdown) on stdout and every finding with its path on stderr. Fails when a tool
/// breaks the rules of an API that takes schemas as they are (OpenAI and Anthropic without
/// strict mode), or when the sample does not build.
pub fn run(dir: &str, provider: Result<Provider, BuildError>) -> ExitCode {
    let provider = match provider {
        Ok(provider) => provider,
        Err(e) => {
            eprintln!("{dir} does not build: {e}");
            return ExitCode::FAILURE;
        }
    };
    let report = report(provider.tools());
    print!("{report}");
    let mut broken = Vec::new();
    for row in &report.rows {
        for api in [Api::OpenAi, Api::Anthropic] {
            for finding in row.findings(api) {
                broken.push(format!("{} / {api}: {finding}", row.tool));
            }
        }
    }
    for line in report.details() {
        eprintln!("{dir}: {line}");
    }
    if broken.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!("{dir}: tools an API without strict mode would reject:");
        for line in &broken {
            eprintln!("- {line}");
        }
        ExitCode::FAILURE
    }
}
