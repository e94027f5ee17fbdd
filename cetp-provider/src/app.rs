//! [`App`]: the Android app a provider runs in.

use std::path::{Path, PathBuf};

/// The names Android gives the files dir and the no-backup directory beside it.
const ANDROID_FILES_DIR_NAME: &str = "files";
const NO_BACKUP_DIR_NAME: &str = "no_backup";
const CACHE_DIR_NAME: &str = "cache";

/// The app a provider runs in: what the Android template reports when the app starts, handed
/// to the function `export_provider!` (feature `jni`) names, and given to
/// [`ProviderBuilder::app`](crate::ProviderBuilder::app).
///
/// The provider keeps everything it persists (the grant store and the access log) under
/// [`no_backup_dir`](Self::no_backup_dir), and derives the default `authorize_intent` from
/// [`package_name`](Self::package_name). Host tests make one with [`App::new`].
///
/// ```
/// use cetp_provider::App;
///
/// let app = App::new("com.example.notes", "/data/user/0/com.example.notes/files")
///     .with_version(42, "1.4.2");
/// assert_eq!(app.files_dir().join("notes.db").to_str(), Some("/data/user/0/com.example.notes/files/notes.db"));
/// assert_eq!(app.no_backup_dir().to_str(), Some("/data/user/0/com.example.notes/no_backup"));
/// assert_eq!((app.version_code(), app.version_name()), (42, "1.4.2"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct App {
    package_name: String,
    files_dir: PathBuf,
    no_backup_dir: PathBuf,
    version_code: i64,
    version_name: String,
}

impl App {
    /// An app named `package_name` whose private files are in `files_dir`, version 0 (""),
    /// with its no-backup directory where Android puts it (see
    /// [`no_backup_dir`](Self::no_backup_dir)).
    pub fn new(package_name: impl Into<String>, files_dir: impl Into<PathBuf>) -> Self {
        let files_dir = files_dir.into();
        let no_backup_dir = match files_dir.parent() {
            Some(parent)
                if files_dir
                    .file_name()
                    .is_some_and(|n| n == ANDROID_FILES_DIR_NAME) =>
            {
                parent.join(NO_BACKUP_DIR_NAME)
            }
            _ => files_dir.join(NO_BACKUP_DIR_NAME),
        };
        App {
            package_name: package_name.into(),
            files_dir,
            no_backup_dir,
            version_code: 0,
            version_name: String::new(),
        }
    }

    /// Sets the no-backup directory (`Context.getNoBackupFilesDir()` on Android).
    ///
    /// ```
    /// use cetp_provider::App;
    /// let app = App::new("com.example.notes", "/data/files").with_no_backup_dir("/data/nb");
    /// assert_eq!(app.no_backup_dir().to_str(), Some("/data/nb"));
    /// ```
    #[must_use]
    pub fn with_no_backup_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.no_backup_dir = dir.into();
        self
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

    /// `Context.getFilesDir()`: the app's private directory. Auto Backup and device-to-device
    /// transfer copy it to other phones, so the SDK keeps nothing here (a grant store an
    /// earlier version left here is moved to [`no_backup_dir`](Self::no_backup_dir) once).
    pub fn files_dir(&self) -> &Path {
        &self.files_dir
    }

    /// `Context.getNoBackupFilesDir()`: the app's private directory that is never backed up
    /// nor transferred to another phone. The grant store and the access log live here: an
    /// approval names this phone's apps and certificates, and must not grant anything on
    /// another phone.
    ///
    /// Unless set with [`with_no_backup_dir`](Self::with_no_backup_dir), it is where Android
    /// puts it: `no_backup` beside a files dir named `files`
    /// (`/data/user/0/<package>/files` → `/data/user/0/<package>/no_backup`). Beside a files
    /// dir named otherwise (a host app's data directory, a test's temporary directory) could be
    /// a directory other apps or tests share, such as the system's temporary directory, so it
    /// is then `no_backup` inside the files dir.
    ///
    /// ```
    /// use cetp_provider::App;
    /// let app = App::new("com.example.notes", "/data/user/0/com.example.notes/files");
    /// assert!(app.no_backup_dir().ends_with("com.example.notes/no_backup"));
    /// let host = App::new("com.example.notes", "/tmp/notes-test-1");
    /// assert!(host.no_backup_dir().ends_with("notes-test-1/no_backup"));
    /// ```
    pub fn no_backup_dir(&self) -> &Path {
        &self.no_backup_dir
    }

    /// `Context.getCacheDir()`: where the SDK writes what lives for one reply (a CETP v2 large
    /// result, unlinked as soon as the reply holds its descriptor). Like the no-backup
    /// directory, `cache` beside a files dir named `files`, else `cache` inside the files dir.
    ///
    /// ```
    /// use cetp_provider::App;
    /// let app = App::new("com.example.notes", "/data/user/0/com.example.notes/files");
    /// assert!(app.cache_dir().ends_with("com.example.notes/cache"));
    /// ```
    pub fn cache_dir(&self) -> PathBuf {
        match self.files_dir.parent() {
            Some(parent)
                if self
                    .files_dir
                    .file_name()
                    .is_some_and(|n| n == ANDROID_FILES_DIR_NAME) =>
            {
                parent.join(CACHE_DIR_NAME)
            }
            _ => self.files_dir.join(CACHE_DIR_NAME),
        }
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
