//! `cargo cetp test`: the app's own Robolectric tests run against its host bundle by a Maven
//! project generated in the app's target directory ([`crate::android_build::robolectric`]).

use crate::android_build::app::AppCrate;
use crate::android_build::bundle::{self, Sdk};
use crate::android_build::robolectric::{
    Outcome, Project, Suite, TEST_JAVA, TEST_KOTLIN, has_files, install_kit, module_dir,
    read_reports, run_project, summary,
};
use crate::cli::TestOptions;
use crate::{Error, Result};

/// `cargo cetp test`: exit code 0 when every test passed (and there was one), 1 otherwise.
///
/// # Errors
/// [`Error::App`] when the app has no tests in the documented place; [`Error::Bundle`] when the
/// bundle, the kit or the Maven build fails (compile errors are printed).
pub(crate) fn run(options: &TestOptions) -> Result<i32> {
    let app = AppCrate::locate_with(
        options.manifest_path.as_deref(),
        options.android_module.as_deref(),
    )?;
    let module_dir = module_dir(&app)?;
    let java = module_dir.join(TEST_JAVA);
    let kotlin_dir = module_dir.join(TEST_KOTLIN);
    let kotlin = has_files(&kotlin_dir, "kt") || has_files(&java, "kt");
    if !has_files(&java, "java") && !kotlin {
        return Err(Error::App(format!(
            "`{}` has no Robolectric tests: put them in {} (Java) or {} (Kotlin); `cargo cetp \
             new` writes an example (see cargo-cetp/README.md, \"The app's own tests\")",
            app.name,
            java.display(),
            kotlin_dir.display()
        )));
    }
    let sdk = Sdk::of(&app)?;
    let bundle = bundle::build_with(&app, &sdk, false, None)?;
    install_kit(&app, &sdk)?;
    let name = bundle::bundle_name(&app);
    let dir = app.target_dir.join("cetp/test").join(&name);
    let project = Project {
        name,
        module_dir,
        bundle: bundle.dir.clone(),
        suite: Suite::AppTests {
            filter: options.test.clone(),
        },
        kotlin,
        kit_version: sdk.kit_version(),
    };
    let reports = run_project(&project, &dir, options.test.as_deref())?;
    let cases = read_reports(&reports)?;
    print!("{}", summary(&cases));
    println!(
        "reports: {} (each class's output in <class>-output.txt)",
        reports.display()
    );
    let failed = cases
        .iter()
        .any(|c| matches!(c.outcome, Outcome::Failed(_)));
    Ok(if failed || cases.is_empty() { 1 } else { 0 })
}
