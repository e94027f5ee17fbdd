//! The app crate, as `cargo metadata` describes it: its package, library, target directory and
//! the `cetp-provider` it resolves.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::{Error, Result};

/// The crate that ships the Android template.
pub(crate) const TEMPLATE_CRATE: &str = "cetp-android-template";

/// Where the app's `cetp-provider` comes from, as Cargo resolved it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProviderSource {
    /// A path dependency: the directory holding its `Cargo.toml`.
    Path(PathBuf),
    /// A git dependency at the commit the lock file pins.
    Git {
        /// The repository URL.
        url: String,
        /// The commit.
        commit: String,
    },
    /// A registry version.
    Registry {
        /// The exact version.
        version: String,
    },
}

impl ProviderSource {
    /// The dependency line a crate uses to get exactly this `cetp-provider`, without features:
    /// `path = "…"`, `git = "…", rev = "…"` or `version = "=…"`.
    pub(crate) fn dependency(&self) -> String {
        match self {
            ProviderSource::Path(dir) => format!("path = {}", toml_string(&dir.to_string_lossy())),
            ProviderSource::Git { url, commit } => {
                format!("git = {}, rev = {}", toml_string(url), toml_string(commit))
            }
            ProviderSource::Registry { version } => {
                format!("version = {}", toml_string(&format!("={version}")))
            }
        }
    }

    /// The same line for another crate of the SDK released with `cetp-provider` (a tooling
    /// crate such as `cetp-mcp`), at `dir` in the SDK's repository: that directory of the same
    /// checkout, the same repository and commit (cargo finds the crate by its name), or the same
    /// version.
    pub(crate) fn sdk_crate_dependency(&self, dir: &str) -> String {
        match self {
            ProviderSource::Path(provider) => {
                let root = provider.parent().unwrap_or(provider);
                ProviderSource::Path(root.join(dir)).dependency()
            }
            other => other.dependency(),
        }
    }

    /// Reads a package `source` of `cargo metadata` (`None` for a path package).
    fn parse(source: Option<&str>, manifest_path: &Path, version: &str) -> Result<Self> {
        let Some(source) = source else {
            let dir = manifest_path.parent().unwrap_or(manifest_path);
            return Ok(ProviderSource::Path(dir.to_path_buf()));
        };
        if let Some(rest) = source.strip_prefix("git+") {
            let (url, commit) = rest.split_once('#').ok_or_else(|| {
                Error::App(format!(
                    "cannot read the git source `{source}` of cetp-provider"
                ))
            })?;
            let url = url.split_once('?').map_or(url, |(url, _)| url);
            return Ok(ProviderSource::Git {
                url: url.to_owned(),
                commit: commit.to_owned(),
            });
        }
        if source.starts_with("registry+") || source.starts_with("sparse+") {
            return Ok(ProviderSource::Registry {
                version: version.to_owned(),
            });
        }
        Err(Error::App(format!(
            "cetp-provider comes from `{source}`, which cargo cetp cannot follow; depend on it by \
             path, git or version"
        )))
    }
}

/// The Android template as the app resolves it: the crate `cetp-android-template` that
/// `cetp-provider`'s `jni` feature brings, wherever Cargo put it (a registry's source cache, a
/// git checkout, a path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TemplateCrate {
    /// The module's directory (the crate's, holding `build.gradle.kts` and `src/main/`).
    pub dir: PathBuf,
    /// Its version: the SDK's, and the test kit's.
    pub version: String,
}

/// An app crate: the package that depends on `cetp-provider` and exports a provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppCrate {
    /// The package name.
    pub name: String,
    /// The library's crate name (`lib<lib_name>.so` on Android).
    pub lib_name: String,
    /// The library's crate types (`cdylib`, `rlib`, `lib`, …).
    pub crate_types: Vec<String>,
    /// The directory holding the app's `Cargo.toml`.
    pub dir: PathBuf,
    /// The app's `Cargo.toml`.
    pub manifest_path: PathBuf,
    /// The root of the app's workspace (where `Cargo.lock` is).
    pub workspace_root: PathBuf,
    /// Cargo's target directory for the app.
    pub target_dir: PathBuf,
    /// The `cetp-provider` the app resolves.
    pub(crate) provider: ProviderSource,
    /// The directory of that `cetp-provider` (its `Cargo.toml`'s): in a path or git checkout of
    /// the SDK, beside `android-template/`.
    pub provider_dir: PathBuf,
    /// The Android template the app resolves (`None` when its `cetp-provider` is without the
    /// `jni` feature).
    pub(crate) template: Option<TemplateCrate>,
    /// `[package.metadata.cetp]`, if any.
    pub metadata_cetp: Value,
    /// The Android app module named on the command line (`--android-module`): a directory or
    /// a Gradle path such as `:app` (see [`crate::android_build::layout::Layout::find`]).
    pub android_module: Option<PathBuf>,
}

impl AppCrate {
    /// The app crate whose manifest is `manifest_path` (default: `./Cargo.toml`).
    ///
    /// # Errors
    /// [`Error::App`] when there is no such crate, it has no library or does not depend on
    /// `cetp-provider`; [`Error::Program`] when `cargo metadata` fails.
    pub fn locate(manifest_path: Option<&Path>) -> Result<Self> {
        let manifest_path = match manifest_path {
            Some(path) => path.to_path_buf(),
            None => {
                let here = std::env::current_dir().map_err(Error::io("."))?;
                here.join("Cargo.toml")
            }
        };
        if !manifest_path.is_file() {
            return Err(Error::App(format!(
                "{} does not exist; run cargo cetp in the app crate's directory or pass \
                 `--manifest-path <app>/Cargo.toml`",
                manifest_path.display()
            )));
        }
        let manifest_path = manifest_path
            .canonicalize()
            .map_err(Error::io(&manifest_path))?;
        let mut cmd = cargo();
        cmd.args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(&manifest_path);
        let output = cmd.output().map_err(|e| Error::not_started(&cmd, &e))?;
        if !output.status.success() {
            return Err(Error::program(
                format!(
                    "`cargo metadata --manifest-path {}`",
                    manifest_path.display()
                ),
                format!(
                    "failed:\n{}",
                    String::from_utf8_lossy(&output.stderr).trim_end()
                ),
            ));
        }
        let metadata: Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| Error::program("`cargo metadata`", format!("printed no JSON: {e}")))?;
        Self::from_metadata(&metadata, &manifest_path)
    }

    /// The app crate of a workspace root without a package of its own (`rust/Cargo.toml` with
    /// `members`): the one member that depends on `cetp-provider`.
    fn workspace_app<'a>(
        metadata: &Value,
        packages: &'a [Value],
        manifest_path: &Path,
    ) -> Result<&'a Value> {
        let members: Vec<&str> = metadata["workspace_members"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let apps: Vec<&Value> = packages
            .iter()
            .filter(|p| p["id"].as_str().is_some_and(|id| members.contains(&id)))
            .filter(|p| {
                p["dependencies"].as_array().is_some_and(|deps| {
                    deps.iter()
                        .any(|d| d["name"] == "cetp-provider" && d["kind"].is_null())
                })
            })
            .collect();
        match apps.as_slice() {
            [app] => Ok(app),
            [] => Err(Error::App(format!(
                "{} is a workspace, and none of its members depends on cetp-provider: run `cargo \
             cetp init` in the Android project to add it to the app's crate, or point \
             `--manifest-path` at the app crate",
                manifest_path.display()
            ))),
            several => Err(Error::App(format!(
                "{} is a workspace whose members {} depend on cetp-provider: name one with \
             `--manifest-path <member>/Cargo.toml`",
                manifest_path.display(),
                several
                    .iter()
                    .filter_map(|p| p["name"].as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// The app crate of `manifest_path` in `cargo metadata`'s JSON.
    ///
    /// # Errors
    /// [`Error::App`] when the package is missing, has no library, or does not depend on
    /// `cetp-provider`.
    pub(crate) fn from_metadata(metadata: &Value, manifest_path: &Path) -> Result<Self> {
        let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
        let package = match packages
            .iter()
            .find(|p| p["manifest_path"].as_str().map(Path::new) == Some(manifest_path))
        {
            Some(package) => package,
            None => Self::workspace_app(metadata, &packages, manifest_path)?,
        };
        let manifest_path = Path::new(package["manifest_path"].as_str().unwrap_or_default());
        let name = string(&package["name"]);
        let lib = package["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| {
                t["kind"].as_array().is_some_and(|kinds| {
                    kinds
                        .iter()
                        .any(|k| matches!(k.as_str(), Some("lib" | "rlib" | "cdylib" | "dylib" | "staticlib")))
                })
            })
            .ok_or_else(|| {
                Error::App(format!(
                    "`{name}` has no library: the provider lives in `src/lib.rs` with \
                     `cetp_provider::export_provider!(…)`, built with `crate-type = [\"cdylib\", \"rlib\"]`"
                ))
            })?;
        let crate_types = lib["crate_types"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        let id = string(&package["id"]);
        let node = metadata["resolve"]["nodes"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|n| n["id"] == id.as_str());
        let provider_id = node
            .and_then(|n| n["deps"].as_array())
            .into_iter()
            .flatten()
            .find(|d| {
                d["pkg"].as_str().is_some_and(|pkg| {
                    packages
                        .iter()
                        .any(|p| p["id"] == pkg && p["name"] == "cetp-provider")
                })
            })
            .and_then(|d| d["pkg"].as_str())
            .ok_or_else(|| {
                Error::App(format!(
                    "`{name}` does not depend on cetp-provider; add `cetp-provider = {{ …, \
                     features = [\"jni\"] }}` to its [dependencies]"
                ))
            })?;
        let provider = packages
            .iter()
            .find(|p| p["id"] == provider_id)
            .expect("the resolved package is listed");
        let provider_manifest = PathBuf::from(string(&provider["manifest_path"]));
        let provider_dir = provider_manifest
            .parent()
            .unwrap_or(&provider_manifest)
            .to_path_buf();
        let template = Self::template(metadata, &packages, provider_id);
        let provider = ProviderSource::parse(
            provider["source"].as_str(),
            &provider_manifest,
            &string(&provider["version"]),
        )?;
        Ok(AppCrate {
            name,
            lib_name: string(&lib["name"]),
            crate_types,
            dir: manifest_path
                .parent()
                .unwrap_or(manifest_path)
                .to_path_buf(),
            manifest_path: manifest_path.to_path_buf(),
            workspace_root: PathBuf::from(string(&metadata["workspace_root"])),
            target_dir: PathBuf::from(string(&metadata["target_directory"])),
            provider,
            provider_dir,
            template,
            metadata_cetp: package["metadata"]["cetp"].clone(),
            android_module: None,
        })
    }

    /// The `cetp-android-template` the resolved `cetp-provider` (`provider_id`) depends on.
    fn template(metadata: &Value, packages: &[Value], provider_id: &str) -> Option<TemplateCrate> {
        let node = metadata["resolve"]["nodes"]
            .as_array()?
            .iter()
            .find(|n| n["id"] == provider_id)?;
        let package = node["deps"].as_array()?.iter().find_map(|d| {
            packages
                .iter()
                .find(|p| p["id"] == d["pkg"] && p["name"] == TEMPLATE_CRATE)
        })?;
        let manifest = PathBuf::from(string(&package["manifest_path"]));
        Some(TemplateCrate {
            dir: manifest.parent()?.to_path_buf(),
            version: string(&package["version"]),
        })
    }

    /// Whether other crates (tests, the runner) can link the library: it has an `rlib` (or
    /// plain `lib`) crate type.
    pub(crate) fn links_as_rlib(&self) -> bool {
        self.crate_types.iter().any(|t| t == "rlib" || t == "lib")
    }

    /// The app crate of `manifest_path` ([`AppCrate::locate`]) whose Android app module is
    /// `android_module` when given (`--android-module`).
    ///
    /// # Errors
    /// As [`AppCrate::locate`].
    pub(crate) fn locate_with(
        manifest_path: Option<&Path>,
        android_module: Option<&Path>,
    ) -> Result<Self> {
        let mut app = Self::locate(manifest_path)?;
        app.android_module = android_module.map(Path::to_path_buf);
        Ok(app)
    }

    /// A value of `[package.metadata.cetp]`.
    pub(crate) fn metadata(&self, key: &str) -> Option<&str> {
        self.metadata_cetp.get(key).and_then(Value::as_str)
    }
}

/// The cargo that runs this command (`CARGO`, which cargo sets for subcommands), else `cargo`.
pub(crate) fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn string(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// A TOML basic string.
pub(crate) fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn metadata(provider_source: Value, crate_types: &[&str]) -> Value {
        json!({
            "packages": [
                {"name": "recipes", "id": "path+file:///a/recipes#0.1.0", "version": "0.1.0",
                 "manifest_path": "/a/recipes/Cargo.toml", "source": null,
                 "metadata": {"cetp": {"authority": "com.x.tools"}},
                 "targets": [{"name": "recipes", "kind": crate_types, "crate_types": crate_types},
                             {"name": "provider", "kind": ["test"], "crate_types": ["bin"]}]},
                {"name": "cetp-provider", "id": "cp", "version": "0.1.0",
                 "manifest_path": "/sdk/cetp-provider/Cargo.toml", "source": provider_source,
                 "targets": []},
                {"name": "cetp-android-template", "id": "tpl", "version": "0.1.0",
                 "manifest_path": "/sdk/android-template/Cargo.toml", "source": null,
                 "targets": []}
            ],
            "resolve": {"nodes": [
                {"id": "path+file:///a/recipes#0.1.0", "deps": [{"pkg": "cp"}]},
                {"id": "cp", "deps": [{"pkg": "tpl"}]}
            ]},
            "workspace_root": "/a/recipes",
            "target_directory": "/a/recipes/target"
        })
    }

    #[test]
    fn reads_the_app_and_its_provider() {
        let app = AppCrate::from_metadata(
            &metadata(Value::Null, &["cdylib", "rlib"]),
            Path::new("/a/recipes/Cargo.toml"),
        )
        .unwrap();
        assert_eq!(app.lib_name, "recipes");
        assert!(app.links_as_rlib());
        assert_eq!(app.target_dir, PathBuf::from("/a/recipes/target"));
        assert_eq!(app.metadata("authority"), Some("com.x.tools"));
        assert_eq!(
            app.provider,
            ProviderSource::Path(PathBuf::from("/sdk/cetp-provider"))
        );
        assert_eq!(app.provider.dependency(), r#"path = "/sdk/cetp-provider""#);
        assert_eq!(
            app.template,
            Some(TemplateCrate {
                dir: PathBuf::from("/sdk/android-template"),
                version: "0.1.0".into()
            })
        );
        // The tooling crates sit beside cetp-provider in the same checkout.
        assert_eq!(
            app.provider.sdk_crate_dependency("cargo-cetp/mcp"),
            r#"path = "/sdk/cargo-cetp/mcp""#
        );
    }

    #[test]
    fn the_template_is_the_one_the_apps_provider_depends_on() {
        // Without the `jni` feature, `cetp-provider` brings no template, whatever else the
        // graph holds.
        let mut data = metadata(Value::Null, &["cdylib", "rlib"]);
        data["resolve"]["nodes"][1]["deps"] = json!([]);
        let app = AppCrate::from_metadata(&data, Path::new("/a/recipes/Cargo.toml")).unwrap();
        assert_eq!(app.template, None);
    }

    #[test]
    fn a_workspace_root_means_its_member_that_depends_on_the_sdk() {
        let mut data = metadata(Value::Null, &["cdylib", "rlib"]);
        data["workspace_root"] = json!("/a");
        data["workspace_members"] =
            json!(["path+file:///a/recipes#0.1.0", "path+file:///a/core#0.1.0"]);
        data["packages"][0]["dependencies"] = json!([
            {"name": "cetp-provider", "kind": null},
            {"name": "cetp-provider", "kind": "dev"}
        ]);
        data["packages"].as_array_mut().unwrap().push(json!(
            {"name": "core", "id": "path+file:///a/core#0.1.0", "version": "0.1.0",
             "manifest_path": "/a/core/Cargo.toml", "source": null,
             "dependencies": [{"name": "cetp-provider", "kind": "dev"}],
             "targets": [{"name": "core", "kind": ["lib"], "crate_types": ["lib"]}]}
        ));
        let app = AppCrate::from_metadata(&data, Path::new("/a/Cargo.toml")).unwrap();
        assert_eq!(app.name, "recipes");
        assert_eq!(app.manifest_path, PathBuf::from("/a/recipes/Cargo.toml"));
        assert_eq!(app.dir, PathBuf::from("/a/recipes"));

        data["packages"][3]["dependencies"] = json!([{"name": "cetp-provider", "kind": null}]);
        let err = AppCrate::from_metadata(&data, Path::new("/a/Cargo.toml")).unwrap_err();
        assert!(
            err.to_string().contains("members recipes, core depend"),
            "{err}"
        );
        data["packages"][0]["dependencies"] = json!([]);
        data["packages"][3]["dependencies"] = json!([]);
        let err = AppCrate::from_metadata(&data, Path::new("/a/Cargo.toml")).unwrap_err();
        assert!(err.to_string().contains("none of its members"), "{err}");
    }

    #[test]
    fn git_and_registry_sources_pin_what_the_lock_resolved() {
        let git = metadata(
            json!("git+https://example.org/sdk.git?rev=main#0123abc"),
            &["cdylib", "rlib"],
        );
        let app = AppCrate::from_metadata(&git, Path::new("/a/recipes/Cargo.toml")).unwrap();
        assert_eq!(
            app.provider.dependency(),
            r#"git = "https://example.org/sdk.git", rev = "0123abc""#
        );
        let registry = metadata(
            json!("registry+https://github.com/rust-lang/crates.io-index"),
            &["cdylib"],
        );
        let app = AppCrate::from_metadata(&registry, Path::new("/a/recipes/Cargo.toml")).unwrap();
        assert_eq!(app.provider.dependency(), r#"version = "=0.1.0""#);
        assert_eq!(
            app.provider.sdk_crate_dependency("cargo-cetp/mcp"),
            r#"version = "=0.1.0""#
        );
        assert!(!app.links_as_rlib());
    }

    #[test]
    fn a_crate_without_the_sdk_or_a_library_is_explained() {
        let mut data = metadata(Value::Null, &["cdylib", "rlib"]);
        data["resolve"]["nodes"][0]["deps"] = json!([]);
        let err = AppCrate::from_metadata(&data, Path::new("/a/recipes/Cargo.toml")).unwrap_err();
        assert!(
            err.to_string().contains("does not depend on cetp-provider"),
            "{err}"
        );
        let err = AppCrate::from_metadata(&data, Path::new("/elsewhere/Cargo.toml")).unwrap_err();
        assert!(err.to_string().contains("none of its members"), "{err}");
        let bin = metadata(Value::Null, &["bin"]);
        let err = AppCrate::from_metadata(&bin, Path::new("/a/recipes/Cargo.toml")).unwrap_err();
        assert!(err.to_string().contains("has no library"), "{err}");
    }
}

#[cfg(test)]
mod examples {
    /// The example that documented `dependency`.
    #[test]
    fn example_app_providersource_dependency() {
        use crate::android_build::app::ProviderSource;
        let git = ProviderSource::Git {
            url: "https://x/sdk".into(),
            commit: "abc".into(),
        };
        assert_eq!(git.dependency(), r#"git = "https://x/sdk", rev = "abc""#);
    }
}
