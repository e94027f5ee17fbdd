//! [`App`]: the Android app a provider runs in.

use std::path::{Path, PathBuf};

/// The app a provider runs in: what the Android template reports when the app starts, handed
/// to the function `export_provider!` (feature `jni`) names, and given to
/// [`ProviderBuilder::app`](crate::ProviderBuilder::app).
///
/// The provider keeps its grant store under [`files_dir`](Self::files_dir) and derives the
/// default `authorize_intent` from [`package_name`](Self::package_name). Host tests make one
/// with [`App::new`].
///
/// ```
/// use cetp_provider::App;
///
/// let app = App::new("com.example.notes", "/data/user/0/com.example.notes/files")
///     .with_version(42, "1.4.2");
/// assert_eq!(app.files_dir().join("notes.db").to_str(), Some("/data/user/0/com.example.notes/files/notes.db"));
/// assert_eq!((app.version_code(), app.version_name()), (42, "1.4.2"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct App {
    package_name: String,
    files_dir: PathBuf,
    version_code: i64,
    version_name: String,
}

impl App {
    /// An app named `package_name` whose private files are in `files_dir`, version 0 ("").
    pub fn new(package_name: impl Into<String>, files_dir: impl Into<PathBuf>) -> Self {
        App {
            package_name: package_name.into(),
            files_dir: files_dir.into(),
            version_code: 0,
            version_name: String::new(),
        }
    }

    /// Sets the version (`PackageInfo.getLongVersionCode()` and `versionName`).
    #[must_use]
    pub fn with_version(mut self, code: i64, name: impl Into<String>) -> Self {
        self.version_code = code;
        self.version_name = name.into();
        self
    }

    /// The app's package name.
    pub fn package_name(&self) -> &str {
        &self.package_name
    }

    /// `Context.getFilesDir()`: the app's private directory.
    pub fn files_dir(&self) -> &Path {
        &self.files_dir
    }

    /// The version code.
    pub fn version_code(&self) -> i64 {
        self.version_code
    }

    /// The version name (empty when the app has none).
    pub fn version_name(&self) -> &str {
        &self.version_name
    }
}
