//! `cargo cetp check`: everything that can be known about an app's provider before a phone
//! runs it.

pub(crate) mod alignment;
pub mod report;

use serde_json::Value;

use crate::android_build::android::{self, AndroidModule};
use crate::android_build::app::AppCrate;
use crate::android_build::bundle::{self, V2_PROPERTY};
use crate::android_build::layout::Layout;
use crate::android_build::runner;
use crate::cli::CheckOptions;
use crate::{Error, Result};
use report::Finding;

/// What `check` found about one app.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    /// The application id the provider was built for.
    pub package: String,
    /// The runner's description (`list_tools`, `raw_tools`, `provider_info`, `conformance`,
    /// `conformance_v2`, `capabilities_v2`).
    pub description: Value,
    /// Whether the app advertises CETP v2: its `gradle.properties` has no `cetp.v2=false`.
    pub advertises_v2: bool,
    /// The app's `gradle.properties`, as findings name it.
    pub properties: String,
    /// Lines that are neither warnings nor errors (the authority, the permission mode).
    pub notes: Vec<String>,
    /// Warnings and errors, each with its fix.
    pub findings: Vec<Finding>,
}

/// The application id to build the provider for: `--package`, else the Android module's, else
/// `com.example.<crate>`.
pub fn package_for(app: &AppCrate, module: &AndroidModule, explicit: Option<&str>) -> String {
    explicit
        .map(str::to_owned)
        .or_else(|| module.package(app))
        .unwrap_or_else(|| format!("com.example.{}", android::label(&app.name)))
}

/// Builds and describes the provider of `app` and collects every finding.
///
/// # Errors
/// [`Error::Failed`] when the provider does not build.
pub(crate) fn check(app: &AppCrate, package: Option<&str>) -> Result<Checked> {
    let module = AndroidModule::read(app);
    let package = package_for(app, &module, package);
    let runner = runner::build(app)?;
    let description = runner.describe(&package)?;
    let mut findings = Vec::new();
    for violation in description["conformance"].as_array().into_iter().flatten() {
        findings.push(Finding::error(
            format!("CETP v1: {}", violation.as_str().unwrap_or_default()),
            "",
        ));
    }
    let advertises_v2 = bundle::advertises_v2(module.layout.as_ref());
    let properties = module.layout.as_ref().map_or_else(
        || "android/gradle.properties".to_owned(),
        |layout| Layout::shown(app, &layout.properties_file()),
    );
    findings.extend(report::cetp_v2(
        &description["conformance_v2"],
        advertises_v2,
        &properties,
    ));
    let compat = report::compatibility(&description["list_tools"]);
    findings.extend(report::schema_findings(&compat));
    findings.extend(report::undescribed_parameters(&description["raw_tools"]));
    findings.extend(report::scope_wording(
        &description["provider_info"],
        &package,
    ));
    findings.extend(report::untranslated_texts(&description["untranslated"]));
    let (mut notes, android) = android::lint(app, &module);
    findings.extend(android);
    findings.extend(android::lint_profile(app));
    let (page_notes, pages) = alignment::app_findings(app);
    notes.extend(page_notes);
    findings.extend(pages);
    Ok(Checked {
        package,
        description,
        advertises_v2,
        properties,
        notes,
        findings,
    })
}

/// Runs `cargo cetp check`; the exit code is 1 when a finding is an error.
///
/// # Errors
/// [`Error`] when the app cannot be found or its provider does not build.
pub(crate) fn run(options: &CheckOptions) -> Result<i32> {
    if !options.libs.is_empty() {
        return Ok(alignment::run(&options.libs));
    }
    let app = AppCrate::locate_with(
        options.manifest_path.as_deref(),
        options.android_module.as_deref(),
    )?;
    let checked = match check(&app, options.package.as_deref()) {
        Ok(checked) => checked,
        Err(Error::Failed(why)) => {
            println!("error: {why}");
            println!("\ncargo cetp check: `{}` does not build", app.name);
            return Ok(1);
        }
        Err(other) => return Err(other),
    };
    let info = &checked.description["provider_info"];
    let tools = checked.description["list_tools"]["tools"]
        .as_array()
        .map_or(0, Vec::len);
    println!(
        "cargo cetp check: `{}`, provider \"{}\" for {}, {tools} tool(s)\n",
        app.name,
        info["provider_name"].as_str().unwrap_or_default(),
        checked.package
    );
    println!("Schemas against each LLM API's rules (\"no:\" names the keywords it rejects):\n");
    print!(
        "{}",
        report::compatibility(&checked.description["list_tools"])
    );
    let errors = checked.findings.iter().filter(|f| f.error).count();
    let conformance_errors = checked
        .findings
        .iter()
        .filter(|f| f.error && f.problem.starts_with("CETP v1"))
        .count();
    println!(
        "\nCETP v1 conformance: {}",
        if conformance_errors == 0 {
            "ok".to_owned()
        } else {
            format!("{conformance_errors} violation(s)")
        }
    );
    println!("{}", v2_summary(&checked));
    println!(
        "{}",
        capabilities_line(&checked.description["capabilities_v2"])
    );
    for note in &checked.notes {
        println!("{note}");
    }
    println!();
    for finding in &checked.findings {
        println!("{finding}");
    }
    let warnings = checked.findings.len() - errors;
    println!("\ncargo cetp check: {errors} error(s), {warnings} warning(s)");
    Ok(i32::from(errors > 0))
}

/// The line naming the optional CETP v2 capabilities the app offers (`async_operations` and
/// `cancellation` with a `#[tool(long_running)]`).
fn capabilities_line(capabilities: &Value) -> String {
    let names: Vec<&str> = capabilities
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let hint = if names.contains(&"async_operations") {
        ""
    } else {
        " (every tool answers in its reply; mark a tool that may take seconds \
         `#[tool(long_running)]` to offer async_operations and cancellation)"
    };
    if names.is_empty() {
        format!("CETP v2 optional capabilities: none{hint}")
    } else {
        format!("CETP v2 optional capabilities: {}{hint}", names.join(", "))
    }
}

/// The line on CETP v2: whether the app advertises it, how many checks fail, and what that
/// means for ClawSeed's newest client (it picks v2 whenever an app advertises it, and never
/// falls back to v1).
fn v2_summary(checked: &Checked) -> String {
    let violations = checked
        .findings
        .iter()
        .filter(|f| f.problem.starts_with(report::CETP_V2))
        .count();
    let off = format!(
        "v2 is off (`{V2_PROPERTY}=false` in {}), so ClawSeed's newest client uses v1 with this app",
        checked.properties
    );
    match (checked.advertises_v2, violations) {
        (true, 0) => {
            "CETP v2 conformance: ok (advertised: ClawSeed's newest client speaks v2 to this app)"
                .to_owned()
        }
        (true, n) => format!(
            "CETP v2 conformance: {n} violation(s) while v2 is advertised: ClawSeed's newest \
             client speaks only v2 to an app advertising it and never falls back to v1, so it \
             would drop this app"
        ),
        (false, 0) => format!("CETP v2 conformance: ok, but {off}"),
        (false, n) => format!("CETP v2 conformance: {n} violation(s); {off}"),
    }
}

#[cfg(test)]
mod capability_tests {
    use super::capabilities_line;

    #[test]
    fn the_capabilities_line_names_what_the_app_offers() {
        let all = serde_json::json!(["async_operations", "cancellation", "large_results"]);
        assert_eq!(
            capabilities_line(&all),
            "CETP v2 optional capabilities: async_operations, cancellation, large_results"
        );
        let large = capabilities_line(&serde_json::json!(["large_results"]));
        assert!(
            large.starts_with("CETP v2 optional capabilities: large_results (")
                && large.contains("long_running"),
            "{large}"
        );
        let none = capabilities_line(&serde_json::json!([]));
        assert!(
            none.contains("none") && none.contains("long_running"),
            "{none}"
        );
        assert!(capabilities_line(&serde_json::Value::Null).contains("none"));
    }
}
