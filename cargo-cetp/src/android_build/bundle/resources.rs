//! Android resources, compiled as an app build compiles them: Debian's `aapt` (AOSP's resource
//! compiler, installed when missing) links `res/` directories against the framework resources
//! of the API 34 `android-all` jar (it holds `resources.arsc` and the framework manifest),
//! writes the `R` classes, and packages the compiled resources with the binary manifest into a
//! resource package (`.ap_`), which Robolectric loads in binary-resources mode.
//!
//! Directories are merged as the Android Gradle Plugin merges them: the generated `resValue`
//! resources win over the app's `res/`, which wins over the library's (the template's);
//! `--auto-add-overlay` lets each add resources the others lack.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::gradle::ResValue;
use super::tools as util;

use crate::{Error, Result};

/// The library package of the template (its `namespace`): its `R` class is `dev.cetp.R`.
pub(crate) const TEMPLATE_PACKAGE: &str = "dev.cetp";

/// One resource compilation.
pub(crate) struct Compile<'a> {
    /// The manifest to link (placeholders resolved; resource references such as
    /// `@bool/cetp_serve_apex` are resolved by aapt).
    pub manifest: &'a str,
    /// The package of the app's `R` class when it is not the manifest's (a namespace beside an
    /// application id with a suffix).
    pub r_package: Option<&'a str>,
    /// Resource directories, highest priority first.
    pub res_dirs: &'a [PathBuf],
    /// Packages that get an `R` class besides the manifest's (the libraries' namespaces).
    pub extra_packages: &'a [&'a str],
    /// A library build: `R` fields are not constants (the app assigns the final ids).
    pub library: bool,
    /// Where the manifest copy and the generated `R` sources go (replaced).
    pub work: &'a Path,
    /// The resource package to write, if any.
    pub package: Option<&'a Path>,
}

/// Runs aapt; returns the source root of the generated `R` classes.
pub(crate) fn compile(c: &Compile<'_>) -> Result<PathBuf> {
    let aapt = util::aapt()?;
    let android_all = util::android_all_jar()?;
    if c.work.exists() {
        fs::remove_dir_all(c.work).map_err(Error::cannot("clean", &c.work))?;
    }
    // aapt only accepts a manifest file named AndroidManifest.xml.
    let manifest_dir = c.work.join("manifest");
    let r_dir = c.work.join("r");
    for dir in [&manifest_dir, &r_dir] {
        fs::create_dir_all(dir).map_err(Error::cannot("create", &dir))?;
    }
    let manifest = manifest_dir.join("AndroidManifest.xml");
    fs::write(&manifest, c.manifest).map_err(Error::cannot("write", &manifest))?;
    let mut cmd = Command::new(aapt);
    cmd.args(["package", "-f", "-m", "--auto-add-overlay"])
        .arg("-M")
        .arg(&manifest);
    for dir in c.res_dirs {
        cmd.arg("-S").arg(dir);
    }
    cmd.arg("-I").arg(&android_all).arg("-J").arg(&r_dir);
    if !c.extra_packages.is_empty() {
        cmd.arg("--extra-packages").arg(c.extra_packages.join(":"));
    }
    if let Some(r_package) = c.r_package {
        cmd.arg("--custom-package").arg(r_package);
    }
    if c.library {
        cmd.arg("--non-constant-id");
    }
    if let Some(package) = c.package {
        if let Some(parent) = package.parent() {
            fs::create_dir_all(parent).map_err(Error::cannot("create", &parent))?;
        }
        cmd.arg("-F").arg(package);
    }
    util::run(&mut cmd)?;
    let mut generated = Vec::new();
    util::collect_files(&r_dir, "java", &mut generated)?;
    if generated.is_empty() {
        return Err(Error::Bundle(format!(
            "aapt wrote no R class into {}",
            r_dir.display()
        )));
    }
    Ok(r_dir)
}

/// The `res/values` file AGP generates from `resValue(...)` lines
/// (`generated/res/resValues/<variant>/values/gradle_res_values.xml`).
pub(crate) fn res_values_xml(values: &[ResValue]) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- Generated from resValue(...) lines. -->\n<resources>\n",
    );
    for v in values {
        out.push_str(&format!(
            "    <{kind} name=\"{name}\">{value}</{kind}>\n",
            kind = v.kind,
            name = xml_text(&v.name),
            value = xml_text(&v.value)
        ));
    }
    out.push_str("</resources>\n");
    out
}

fn xml_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `com/android/tools/test_config.properties`, the file Android build systems put on the unit
/// test classpath for Robolectric: the merged manifest, the resource package (binary-resources
/// mode) and the app's `R` package.
pub(crate) fn test_config_properties(
    manifest: &Path,
    resource_apk: &Path,
    package: &str,
) -> String {
    let mut out = String::from(
        "# Written by cargo cetp build: Robolectric reads it from the test classpath.\n",
    );
    for (key, value) in [
        ("android_merged_manifest", manifest.display().to_string()),
        ("android_resource_apk", resource_apk.display().to_string()),
        ("android_custom_package", package.to_owned()),
    ] {
        out.push_str(key);
        out.push('=');
        out.push_str(&property_value(&value));
        out.push('\n');
    }
    out
}

/// A `.properties` value: backslashes and leading blanks escaped.
fn property_value(value: &str) -> String {
    let escaped = value.replace('\\', "\\\\");
    match escaped.strip_prefix(' ') {
        Some(rest) => format!("\\ {rest}"),
        None => escaped,
    }
}

/// Where `test_config.properties` lives inside a classpath entry.
pub(crate) const TEST_CONFIG_PATH: &str = "com/android/tools/test_config.properties";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn res_values_become_one_values_file() {
        let xml = res_values_xml(&[
            ResValue {
                kind: "bool".into(),
                name: "cetp_serve_apex".into(),
                value: "true".into(),
            },
            ResValue {
                kind: "string".into(),
                name: "app_name".into(),
                value: "Notes & <more>".into(),
            },
        ]);
        assert!(
            xml.contains("<bool name=\"cetp_serve_apex\">true</bool>"),
            "{xml}"
        );
        assert!(
            xml.contains("<string name=\"app_name\">Notes &amp; &lt;more&gt;</string>"),
            "{xml}"
        );
    }

    #[test]
    fn test_config_names_the_manifest_the_package_and_the_app() {
        let text = test_config_properties(
            Path::new("/b/AndroidManifest.xml"),
            Path::new("/b/resources.ap_"),
            "com.x",
        );
        assert!(
            text.contains("\nandroid_merged_manifest=/b/AndroidManifest.xml\n"),
            "{text}"
        );
        assert!(
            text.contains("\nandroid_resource_apk=/b/resources.ap_\n"),
            "{text}"
        );
        assert!(text.ends_with("\nandroid_custom_package=com.x\n"), "{text}");
        assert_eq!(property_value("C:\\x"), "C:\\\\x");
    }
}
