//! `cargo cetp`: create, check, try and test an app's CETP tool provider, for any crate on disk.
//!
//! | command | what it does | module |
//! |---|---|---|
//! | `cargo cetp new <dir>` | a new app crate with its Android module, compiling and tested | [`commands::new`] |
//! | `cargo cetp init` | the provider added to an Android project that exists: a Rust crate, the template module, the app module's wiring | [`commands::init`] |
//! | `cargo cetp check` | schemas per LLM API, CETP conformance, descriptions, scope wording, the Android wiring, 16 KB page alignment of the built libraries | [`commands::check`] |
//! | `cargo cetp mcp` | the provider as an MCP server over stdio, to call its tools from any MCP client | [`commands::mcp`] |
//! | `cargo cetp build` | the host bundle: the provider, the Android template, the app's Java and resources, for the JVM | [`commands::build`] |
//! | `cargo cetp test` | the app's own Robolectric tests against the bundle, through the SDK's test kit | [`commands::test`] |
//! | `cargo cetp preview` | the consent dialog and Apps with access as PNGs (light, night, Arabic) | [`commands::preview`] |
//!
//! # Where things are
//!
//! | folder or file | what is there |
//! |---|---|
//! | `main.rs` | the binary: the arguments to [`run`], the error to stderr |
//! | `error.rs` ([`Error`]) | the one error type: what failed (a file, a program with its command line, the app, a bundle step) and what to install or change |
//! | `template.rs` ([`template`]) | fills the files the tool generates (a new app's, the runner's, the Maven projects') from `../templates/`: `{{name}}` placeholders |
//! | `cli.rs` ([`cli`]) | the command line (clap): one `Options` type per command, the `--help` texts |
//! | `commands/` ([`commands`]) | one file per command, its entry point `run`; `check`'s findings (`check/report.rs`) and 16 KB page check (`check/alignment.rs`) beside it |
//! | `android_build/` ([`android_build`]) | what the commands build and run on: the app crate from `cargo metadata` (`app.rs`), its Android module (`android.rs`, `layout.rs`), the runner (`runner.rs`), the host bundle (`bundle/`, Maven in `bundle/maven.rs`), the Robolectric Maven projects (`robolectric.rs`) |
//!
//! # How the tools reach an app's provider
//!
//! `check` and `mcp` build the app's provider for the desktop and call it from Rust. The app's
//! `export_provider!` defines a hidden function that returns the app's `ProviderBuilder`; a
//! small **runner** crate ([`android_build::runner`]), generated under the app's target
//! directory (`target/cetp/runner-<package>/`, never in the app's `src/`), depends on the app
//! crate by path and on the very `cetp-provider` the app resolves (read from `cargo metadata`,
//! so the types are one copy), with the tooling features it needs. It builds with the app's
//! `Cargo.lock` and target directory, so versions match and repeated runs are incremental. The
//! runner answers `describe` (the `list_tools` and `get_provider_info` data, the CETP
//! conformance audit, the raw parameter descriptions) and `mcp`.
//!
//! `build`, `test` and `preview` build the app's library as a `cdylib` for this machine and put
//! it behind the real Android template, taken from the crate `cetp-android-template` the app's
//! `cetp-provider` resolves to ([`android_build::bundle::Sdk::of`]), to run under Robolectric;
//! `test` and `preview` generate a Maven project in the app's target directory that runs it
//! with the SDK's test kit (`dev.cetp:cetp-testkit` of the same version).
//!
//! Everything about the app comes from `cargo metadata` of the app crate
//! ([`android_build::app`]) and its Android files ([`android_build::android`]), wherever its app
//! module is ([`android_build::layout`]); the tool knows no path of the SDK by itself: `new` and
//! `init` depend on the released SDK of the tool's own version unless `--sdk-path` names a
//! checkout.
//!
//! The library is the command: [`run`] takes the arguments after `cargo cetp`. Each command has
//! an `Options` type parsed in [`cli`] and a `run` function in its module of [`commands`].

// Only what `main.rs`, `cargo xtask` and the end-to-end tests use is public; the rest is
// `pub(crate)`, and these docs link to it (`cargo doc --document-private-items` renders them).
#![allow(rustdoc::private_intra_doc_links)]

pub mod android_build;
pub(crate) mod cli;
pub mod commands;
mod error;
mod template;

pub use error::{Error, Result};

/// The SDK checkout this crate is built from, for its unit tests (an installed `cargo cetp`
/// depends on the released SDK by version, never on where it was built).
#[cfg(test)]
pub(crate) fn sdk_dir() -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    dir.canonicalize().unwrap_or(dir)
}

/// Runs `cargo cetp` with `args`, the arguments after `cargo cetp` (a leading `cetp`, which
/// cargo passes to a subcommand, is skipped). Returns the process exit code.
///
/// ```
/// // `--help` prints the usage and succeeds.
/// assert_eq!(cargo_cetp::run(&["--help".to_owned()]).unwrap(), 0);
/// assert!(cargo_cetp::run(&["frobnicate".to_owned()]).is_err());
/// ```
///
/// # Errors
/// [`Error`] saying what to do.
pub fn run(args: &[String]) -> Result<i32> {
    let args = match args.first() {
        Some(first) if first == "cetp" => &args[1..],
        _ => args,
    };
    match cli::parse(args)? {
        cli::Command::Help(text) => {
            print!("{text}");
            Ok(0)
        }
        cli::Command::New(options) => commands::new::run(&options).map(|()| 0),
        cli::Command::Init(options) => commands::init::run(&options),
        cli::Command::Check(options) => commands::check::run(&options),
        cli::Command::Mcp(options) => commands::mcp::run(&options),
        cli::Command::Build(options) => commands::build::run(&options).map(|()| 0),
        cli::Command::Test(options) => commands::test::run(&options),
        cli::Command::Preview(options) => commands::preview::run(&options).map(|()| 0),
    }
}
