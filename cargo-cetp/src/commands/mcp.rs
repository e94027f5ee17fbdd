//! `cargo cetp mcp`: the app's provider as an MCP server over stdio (the runner's `mcp`, which
//! serves `cetp_mcp::McpHost`). stdin and stdout are the client's; everything else goes
//! to stderr.

use std::process::Stdio;

use crate::android_build::android::AndroidModule;
use crate::android_build::app::AppCrate;
use crate::android_build::runner;
use crate::cli::McpOptions;
use crate::commands::check::package_for;
use crate::{Error, Result};

/// Runs `cargo cetp mcp` until the client closes stdin; returns the server's exit code.
///
/// # Errors
/// [`Error`] when the app cannot be found, does not build, or the server cannot start.
pub(crate) fn run(options: &McpOptions) -> Result<i32> {
    let app = AppCrate::locate_with(
        options.manifest_path.as_deref(),
        options.android_module.as_deref(),
    )?;
    let module = AndroidModule::read(&app);
    let package = package_for(&app, &module, options.package.as_deref());
    let runner = runner::build(&app)?;
    let scratch;
    let files_dir = match &options.files_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
            dir.clone()
        }
        None => {
            scratch = tempfile::Builder::new()
                .prefix("cetp-mcp-")
                .tempdir()
                .map_err(Error::io(std::env::temp_dir()))?;
            scratch.path().to_path_buf()
        }
    };
    let mut cmd = runner.command("mcp", &package, &files_dir);
    cmd.arg("--caller")
        .arg(&options.caller)
        .arg("--uid")
        .arg(options.uid.to_string())
        .arg("--certificate")
        .arg(&options.certificate)
        .arg("--access")
        .arg(options.access.as_str())
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit());
    let status = cmd.status().map_err(|e| Error::not_started(&cmd, &e))?;
    Ok(status.code().unwrap_or(1))
}
