//! A crate's package and library names, from `cargo metadata` (`cargo_cetp::android_build::app`).

use std::path::Path;

/// The package in a crate directory.
#[derive(Debug)]
pub struct Package {
    /// `[package] name`.
    pub name: String,
    /// The library target's name.
    pub lib_name: String,
}

/// Reads the package in `crate_dir`.
pub fn read(crate_dir: &Path) -> Result<Package, String> {
    let app = cargo_cetp::android_build::app::AppCrate::locate(Some(&crate_dir.join("Cargo.toml")))
        .map_err(|e| e.to_string())?;
    Ok(Package {
        name: app.name,
        lib_name: app.lib_name,
    })
}
