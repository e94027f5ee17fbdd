//! `cargo cetp preview`: the app's consent dialog and Apps with access screen rendered to PNGs
//! under Robolectric's native graphics, by the SDK's test kit
//! ([`crate::android_build::robolectric`]).

use std::fs;

use crate::android_build::app::AppCrate;
use crate::android_build::bundle::{self, Sdk};
use crate::android_build::robolectric::{
    Outcome, PREVIEW_AGENT, PREVIEW_FILES, Project, Suite, install_kit, module_dir, read_reports,
    run_project,
};
use crate::cli::PreviewOptions;
use crate::{Error, Result};

/// `cargo cetp preview`: writes [`PREVIEW_FILES`] and prints their paths.
///
/// # Errors
/// As [`super::test::run`], and [`Error::Failed`] when a screen could not be rendered.
pub(crate) fn run(options: &PreviewOptions) -> Result<()> {
    let app = AppCrate::locate_with(
        options.manifest_path.as_deref(),
        options.android_module.as_deref(),
    )?;
    let module_dir = module_dir(&app)?;
    let sdk = Sdk::of(&app)?;
    let bundle = bundle::build_with(&app, &sdk, false, None)?;
    install_kit(&app, &sdk)?;
    let name = bundle::bundle_name(&app);
    let out = match &options.out {
        Some(dir) if dir.is_absolute() => dir.clone(),
        Some(dir) => std::env::current_dir().map_err(Error::io("."))?.join(dir),
        None => app.target_dir.join("cetp/preview").join(&name),
    };
    for file in PREVIEW_FILES {
        let png = out.join(format!("{file}.png"));
        if png.exists() {
            fs::remove_file(&png).map_err(Error::io(&png))?;
        }
    }
    fs::create_dir_all(&out).map_err(Error::io(&out))?;
    let dir = app.target_dir.join("cetp/preview-project").join(&name);
    let project = Project {
        name,
        module_dir,
        bundle: bundle.dir,
        suite: Suite::Preview(out.clone()),
        kotlin: false,
        kit_version: sdk.kit_version(),
    };
    let reports = run_project(&project, &dir, None)?;
    let cases = read_reports(&reports)?;
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| match &c.outcome {
            Outcome::Failed(message) => Some(format!("{}: {message}", c.name)),
            _ => None,
        })
        .collect();
    if !failures.is_empty() || cases.is_empty() {
        return Err(Error::Failed(format!(
            "the screens could not be rendered: {}; see {}",
            if failures.is_empty() {
                "nothing ran".to_owned()
            } else {
                failures.join("; ")
            },
            reports.display()
        )));
    }
    println!(
        "cargo cetp preview: {} ({}) as {} ({}) sees it:",
        bundle.package, bundle.lib_name, PREVIEW_AGENT.0, PREVIEW_AGENT.1
    );
    for file in PREVIEW_FILES {
        let png = out.join(format!("{file}.png"));
        if !png.is_file() {
            return Err(Error::Failed(format!(
                "{} was not written; see {}",
                png.display(),
                reports.display()
            )));
        }
        println!("  {}", png.display());
    }
    Ok(())
}
