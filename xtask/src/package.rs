//! What host-build needs from a crate's `Cargo.toml` (`[package] name`, the library's name,
//! `[package.metadata.cetp]`), read through `cargo metadata` so that every TOML form Cargo
//! accepts (inline tables, workspace inheritance, multi-line strings) is understood.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::util;

/// The package whose manifest is `<crate_dir>/Cargo.toml`.
#[derive(Debug)]
pub struct Package {
    /// `[package] name`.
    pub name: String,
    /// The library target's name (`[lib] name`, else the package name with `_` for `-`).
    pub lib_name: String,
    /// The string values of `[package.metadata.cetp]`.
    pub cetp: BTreeMap<String, String>,
}

/// Reads the package in `crate_dir` with `cargo metadata --no-deps`.
pub fn read(crate_dir: &Path) -> Result<Package, String> {
    let manifest = crate_dir.join("Cargo.toml");
    let output = util::cargo()
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed for {}: {}",
            manifest.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let metadata: Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cargo metadata printed no JSON: {e}"))?;
    find(&metadata, &manifest)
}

/// The package of `metadata` (a `cargo metadata` answer) whose manifest is `manifest`.
fn find(metadata: &Value, manifest: &Path) -> Result<Package, String> {
    let wanted = manifest
        .canonicalize()
        .unwrap_or_else(|_| manifest.to_owned());
    let package = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| {
            p["manifest_path"].as_str().is_some_and(|path| {
                Path::new(path)
                    .canonicalize()
                    .is_ok_and(|path| path == wanted)
            })
        })
        .ok_or_else(|| format!("cargo metadata does not list {}", manifest.display()))?;
    let name = package["name"]
        .as_str()
        .ok_or_else(|| format!("{}: no [package] name", manifest.display()))?
        .to_owned();
    let lib_name = package["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| {
            t["kind"].as_array().is_some_and(|kinds| {
                kinds
                    .iter()
                    .any(|k| matches!(k.as_str(), Some("lib" | "cdylib" | "rlib" | "staticlib")))
            })
        })
        .and_then(|t| t["name"].as_str())
        .map_or_else(|| name.replace('-', "_"), str::to_owned);
    let cetp = package["metadata"]["cetp"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
        .collect();
    Ok(Package {
        name,
        lib_name,
        cetp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_package_lib_and_metadata() {
        let dir = util::workspace_root().join("tests/fixture-provider");
        let package = read(&dir).unwrap();
        assert_eq!(package.name, "cetp-fixture-provider");
        assert_eq!(package.lib_name, "cetp_fixture");
        assert_eq!(
            package.cetp.get("authority").map(String::as_str),
            Some("dev.cetp.rustfixture.tools")
        );
    }

    #[test]
    fn the_default_library_name_replaces_dashes() {
        let package = read(&util::workspace_root().join("samples/minimal")).unwrap();
        assert_eq!(package.name, "cetp-sample-minimal");
        assert_eq!(package.lib_name, "cetp_sample_minimal");
        assert!(package.cetp.is_empty());
    }
}
