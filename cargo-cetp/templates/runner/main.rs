//! The runner `cargo cetp` generates for one app: it builds the app's provider on this machine
//! through the function `export_provider!` defines, and answers `describe` (JSON on stdout) or
//! `mcp` (an MCP server on stdio). Generated; rewritten by every `cargo cetp` run.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use cetp_mcp::McpHost;
use cetp_provider::host::cetp_v2::CetpV2Host;
use cetp_provider::testing::{Agent, check_conformance};
use cetp_provider::{AccessLevel, App, Caller, ErrorCode, Provider, ProviderBuilder};
use serde_json::{Value, json};

// The app crate, linked whole: `export_provider!` exports its build function under this symbol
// from whichever module it is in.
extern crate app;

unsafe extern "Rust" {
    #[link_name = "__cetp_provider_builder"]
    fn app_provider_builder(app: &App) -> Result<ProviderBuilder, String>;
}

fn main() -> ExitCode {
    static STDERR: Stderr = Stderr;
    log::set_logger(&STDERR).ok();
    log::set_max_level(match std::env::var("CETP_LOG").as_deref() {
        Ok("debug") => log::LevelFilter::Debug,
        Ok("warn") => log::LevelFilter::Warn,
        Ok("off") => log::LevelFilter::Off,
        _ => log::LevelFilter::Info,
    });
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Every log record on one stderr line: stdout belongs to `describe`'s JSON and to MCP.
struct Stderr;

impl log::Log for Stderr {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            eprintln!("[{} {}] {}", record.level(), record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

struct Options {
    command: String,
    package: String,
    files_dir: PathBuf,
    caller: String,
    uid: u32,
    certificate: String,
    access: String,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        command: args.first().cloned().unwrap_or_default(),
        package: String::new(),
        files_dir: PathBuf::new(),
        caller: String::new(),
        uid: 0,
        certificate: String::new(),
        access: "full".to_owned(),
    };
    let mut rest = args.iter().skip(1);
    while let Some(flag) = rest.next() {
        let value = rest.next().ok_or(format!("{flag} needs a value"))?.clone();
        match flag.as_str() {
            "--package" => options.package = value,
            "--files-dir" => options.files_dir = PathBuf::from(value),
            "--caller" => options.caller = value,
            "--uid" => options.uid = value.parse().map_err(|_| format!("bad UID {value}"))?,
            "--certificate" => options.certificate = value,
            "--access" => options.access = value,
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(options)
}

fn run(args: &[String]) -> Result<(), String> {
    let options = parse(args)?;
    let app = App::new(options.package.clone(), options.files_dir.clone());
    match options.command.as_str() {
        "describe" => describe(&app),
        "mcp" => mcp(&app, &options),
        other => Err(format!("unknown command `{other}`")),
    }
}

/// The app's builder, from the function `export_provider!` defines; panics contained.
fn builder(app: &App) -> Result<ProviderBuilder, String> {
    // SAFETY: the symbol is the function `export_provider!` defines, with this signature, in
    // the app crate built against this same cetp-provider (the runner uses the app's lock).
    match catch_unwind(AssertUnwindSafe(|| unsafe { app_provider_builder(app) })) {
        Ok(Ok(builder)) => Ok(builder),
        Ok(Err(why)) => Err(format!("the provider's build function failed: {why}")),
        Err(_) => Err("the provider's build function panicked (its message is above)".into()),
    }
}

fn build(app: &App, restate: bool) -> Result<Provider, String> {
    builder(app)?
        .restate_constraints(restate)
        .app(app.clone())
        .build()
        .map_err(|e| format!("the provider does not build: {e}"))
}

fn describe(app: &App) -> Result<(), String> {
    let out = match describe_json(app) {
        Ok(out) => out,
        Err(error) => json!({ "format": 1, "error": error }),
    };
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{out}").map_err(|e| format!("cannot write the description: {e}"))
}

fn describe_json(app: &App) -> Result<Value, String> {
    let provider = Arc::new(build(app, true)?);
    // What a CETP v2 agent may negotiate beyond the core, as the app's runtime offers it.
    let capabilities = CetpV2Host::new(Arc::clone(&provider)).offered_capabilities();
    // The same declaration without constraints restated, for the descriptions as written.
    let raw_dir = app.files_dir().join("raw");
    std::fs::create_dir_all(&raw_dir).map_err(|e| format!("{}: {e}", raw_dir.display()))?;
    let raw_app = App::new(app.package_name(), raw_dir);
    let raw = build(&raw_app, false)?;
    let parse = |text: &str| serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
    let violations = match check_conformance(&provider) {
        Ok(_) => Vec::new(),
        Err(err) => err.0,
    };
    // As the agent the v1 check approved (when the provider asks for approval).
    let agent = Agent::new(&provider);
    let v2_violations = match agent.check_v2_conformance() {
        Ok(()) => Vec::new(),
        Err(err) => err.0,
    };
    Ok(json!({
        "format": 1,
        "list_tools": parse(provider.list_tools_json()),
        "raw_tools": parse(raw.list_tools_json()),
        "provider_info": parse(provider.provider_info_json()),
        "conformance": violations,
        "conformance_v2": v2_violations,
        "capabilities_v2": capabilities,
        "untranslated": untranslated(&provider),
    }))
}


/// For each language the template's screens ship in, the app's texts without a translation to
/// it: `{"fr": ["scope notes.read"], …}` (languages with none left out).
fn untranslated(provider: &Provider) -> Value {
    let mut out = serde_json::Map::new();
    for &language in cetp_provider::localized::TEMPLATE_LANGUAGES {
        let missing = provider.untranslated(language);
        if !missing.is_empty() {
            out.insert(language.to_owned(), json!(missing));
        }
    }
    Value::Object(out)
}

fn mcp(app: &App, options: &Options) -> Result<(), String> {
    let provider = Arc::new(build(app, true)?);
    let caller =
        Caller::app(options.uid, options.caller.clone()).with_certificate(options.certificate.clone());
    let level = match options.access.as_str() {
        "full" => Some(AccessLevel::Full),
        "limited" => Some(AccessLevel::Limited),
        _ => None,
    };
    if let Some(level) = level {
        let agent = Agent::new(&provider).as_caller(caller.clone());
        // The probe's refusals and the approval are the runner's own set-up, not the session's:
        // they stay out of the log.
        let logging = log::max_level();
        log::set_max_level(logging.min(log::LevelFilter::Warn));
        let asks = provider.tools().iter().any(|tool| {
            agent.execute(&tool.name, r#"{"cetp_runner_probe":1}"#).error_code()
                == Some(ErrorCode::AuthRequired)
        });
        let approved = if asks { Some(agent.approve(level)) } else { None };
        log::set_max_level(logging);
        if let Some(approved) = approved {
            approved.map_err(|e| format!("cannot approve {caller}: {e}"))?;
        } else {
            log::warn!(
                "{caller} is admitted without an approval (an open policy, an allowlist, or an earlier approval in the files directory): --access {} changes nothing",
                options.access
            );
        }
    }
    log::info!(
        "serving `{}` ({} tools) over MCP on stdio, calling as {caller} with access `{}`",
        provider.name(),
        provider.tools().len(),
        options.access
    );
    McpHost::new(provider)
        .with_caller(caller)
        .serve_stdio()
        .map_err(|e| e.to_string())
}
