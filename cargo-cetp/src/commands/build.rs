//! `cargo cetp build`: the app's host bundle ([`crate::android_build::bundle`]), for the JVM
//! under Robolectric.

use crate::Result;
use crate::android_build::app::AppCrate;
use crate::android_build::bundle::build;
use crate::cli::BuildOptions;

/// `cargo cetp build`: builds the bundle and says where it is.
///
/// # Errors
/// What [`build`] fails with.
pub(crate) fn run(options: &BuildOptions) -> Result<()> {
    let app = AppCrate::locate_with(
        options.manifest_path.as_deref(),
        options.android_module.as_deref(),
    )?;
    let bundle = build(&app, options.release, options.out.as_deref())?;
    eprintln!("cargo cetp: host bundle ready in {}", bundle.dir.display());
    Ok(())
}
