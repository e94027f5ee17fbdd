//! The grant store: [`Grant`]s and [`Denial`]s kept in one JSON file, written atomically.
//! The format is documented in the [`auth`](crate::auth) module docs.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use serde::{Deserialize, Serialize};

use crate::context::AccessLevel;

/// The name of the grant store file inside the store directory.
pub const STORE_FILE_NAME: &str = "cetp-grants.json";

/// The store file format version this SDK reads and writes.
pub const STORE_VERSION: u32 = 1;

/// The user's approval for one consumer package (pinned to a certificate when known).
///
/// ```
/// use cetp_provider::auth::Grant;
/// let grant: Grant = serde_json::from_str(r#"{
///     "package": "com.example.agent", "certificate_sha256": null, "scopes": ["notes"],
///     "access": "redacted", "granted_at_ms": 0, "expires_at_ms": 60000
/// }"#).unwrap();
/// assert!(grant.access.is_redacted());
/// assert!(!grant.is_expired(59_999));
/// assert!(grant.is_expired(60_000));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Grant {
    /// The consumer's package name.
    pub package: String,
    /// Lower-case hex SHA-256 of the consumer's signing certificate; `None` when the platform did
    /// not report one. A pinned grant never matches the package signed with another certificate.
    #[serde(default)]
    pub certificate_sha256: Option<String>,
    /// The scopes the user allowed.
    pub scopes: BTreeSet<String>,
    /// What tools may show this consumer; reaches tools as [`CallContext::access`](crate::CallContext::access).
    #[serde(with = "access_level")]
    pub access: AccessLevel,
    /// When the user approved, in ms since the Unix epoch.
    pub granted_at_ms: u64,
    /// When the grant lapses, in ms since the Unix epoch; `None` = never.
    #[serde(default)]
    pub expires_at_ms: Option<u64>,
}

impl Grant {
    /// Whether the grant has lapsed at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms.is_some_and(|at| at <= now_ms)
    }
}

/// The user's refusal for one consumer package (pinned to a certificate when known). A denied
/// consumer gets `PERMISSION_DENIED` until the denial is cleared or the user approves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Denial {
    /// The consumer's package name.
    pub package: String,
    /// Lower-case hex SHA-256 of the consumer's signing certificate, `None` when unknown.
    #[serde(default)]
    pub certificate_sha256: Option<String>,
    /// When the user declined, in ms since the Unix epoch.
    pub denied_at_ms: u64,
}

/// The content of the store file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoreData {
    pub(crate) grants: Vec<Grant>,
    pub(crate) denials: Vec<Denial>,
}

#[derive(Serialize)]
struct FileOut<'a> {
    version: u32,
    grants: &'a [Grant],
    denials: &'a [Denial],
}

#[derive(Deserialize)]
struct FileIn {
    version: u32,
    grants: Vec<Grant>,
    denials: Vec<Denial>,
}

/// The grant store could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the CETP grant store in `{dir}`: {source}")]
pub struct StoreError {
    dir: PathBuf,
    #[source]
    source: io::Error,
}

/// A bound, loaded store. Reads take a snapshot; writes are serialized and persisted before the
/// in-memory state changes, so memory and disk never disagree.
pub(crate) struct GrantStore {
    dir: PathBuf,
    path: PathBuf,
    writer: Mutex<()>,
    state: RwLock<Arc<StoreData>>,
    /// The file was corrupt when opened and nothing has been saved since.
    recovered: AtomicBool,
}

impl GrantStore {
    /// Opens (creating the directory if needed) and loads the store in `dir`.
    pub(crate) fn open(dir: &Path, now_ms: u64) -> Result<GrantStore, StoreError> {
        let err = |source| StoreError {
            dir: dir.to_owned(),
            source,
        };
        fs::create_dir_all(dir).map_err(err)?;
        let path = dir.join(STORE_FILE_NAME);
        remove_stale_temp_files(dir);
        let (data, recovered) = match read(&path) {
            Ok(data) => (data, false),
            Err(reason) => {
                let aside = set_aside(&path, now_ms);
                log::error!(
                    "CETP grant store `{}` is unusable ({reason}); {aside}; starting empty: every consumer must be approved again",
                    path.display()
                );
                (StoreData::default(), true)
            }
        };
        Ok(GrantStore {
            dir: dir.to_owned(),
            path,
            writer: Mutex::new(()),
            state: RwLock::new(Arc::new(data)),
            recovered: AtomicBool::new(recovered),
        })
    }

    /// The store file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The current state (cheap: an `Arc` clone under a short read lock).
    pub(crate) fn snapshot(&self) -> Arc<StoreData> {
        self.state
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether the file was found corrupt and nothing has been saved since.
    pub(crate) fn recovered_from_corruption(&self) -> bool {
        self.recovered.load(Ordering::Relaxed)
    }

    /// Applies `change` to a copy of the state, persists the copy, then publishes it. Changes
    /// are serialized; if `change` fails or the file cannot be written, nothing changes.
    pub(crate) fn update<R, E>(
        &self,
        change: impl FnOnce(&mut StoreData) -> Result<R, E>,
        persist_error: impl FnOnce(io::Error) -> E,
    ) -> Result<R, E> {
        let _writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let mut next = (*self.snapshot()).clone();
        let result = change(&mut next)?;
        if let Err(e) = self.write(&next) {
            log::error!(
                "CETP grant store `{}` could not be saved: {e}",
                self.path.display()
            );
            return Err(persist_error(e));
        }
        *self.state.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(next);
        self.recovered.store(false, Ordering::Relaxed);
        Ok(result)
    }

    fn write(&self, data: &StoreData) -> io::Result<()> {
        let file = FileOut {
            version: STORE_VERSION,
            grants: &data.grants,
            denials: &data.denials,
        };
        let mut bytes = serde_json::to_vec_pretty(&file).map_err(io::Error::other)?;
        bytes.push(b'\n');
        if self.path.is_dir() {
            // An unreadable path that could not be moved aside when the store was opened.
            set_aside(&self.path, crate::auth::clock::system_now_ms());
        }
        write_atomic(&self.dir, &self.path, &bytes)
    }
}

/// Writes `bytes` to `path` atomically and durably: a temp file in `dir`, fsync, rename over
/// `path`, fsync `dir`.
fn write_atomic(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = dir.join(format!("{STORE_FILE_NAME}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// Reads and validates the store file; a missing file is an empty store.
fn read(path: &Path) -> Result<StoreData, String> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(StoreData::default()),
        Err(e) => return Err(format!("cannot read it: {e}")),
    };
    parse(&bytes)
}

/// Parses and validates the bytes of a store file.
pub(crate) fn parse(bytes: &[u8]) -> Result<StoreData, String> {
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("not valid JSON: {e}"))?;
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(STORE_VERSION) => {}
        Some(v) => {
            return Err(format!(
                "unsupported version {v} (expected {STORE_VERSION})"
            ));
        }
        None => return Err("no numeric `version`".to_owned()),
    }
    let file: FileIn =
        serde_json::from_value(value).map_err(|e| format!("unexpected content: {e}"))?;
    debug_assert_eq!(file.version, STORE_VERSION);
    let cert_ok = |cert: &Option<String>| {
        cert.as_deref()
            .is_none_or(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    for grant in &file.grants {
        if grant.package.is_empty() || !cert_ok(&grant.certificate_sha256) {
            return Err(format!("invalid grant for `{}`", grant.package));
        }
    }
    for denial in &file.denials {
        if denial.package.is_empty() || !cert_ok(&denial.certificate_sha256) {
            return Err(format!("invalid denial for `{}`", denial.package));
        }
    }
    Ok(StoreData {
        grants: file.grants,
        denials: file.denials,
    })
}

/// Renames an unusable store file to `*.corrupt-<ms>`; returns what happened, for the log.
fn set_aside(path: &Path, now_ms: u64) -> String {
    if fs::symlink_metadata(path).is_err() {
        return "nothing to move aside".to_owned();
    }
    let mut aside = path.with_file_name(format!("{STORE_FILE_NAME}.corrupt-{now_ms}"));
    let mut n = 1;
    while fs::symlink_metadata(&aside).is_ok() {
        aside = path.with_file_name(format!("{STORE_FILE_NAME}.corrupt-{now_ms}-{n}"));
        n += 1;
    }
    match fs::rename(path, &aside) {
        Ok(()) => format!("kept it as `{}`", aside.display()),
        Err(e) => format!("could not move it aside ({e})"),
    }
}

/// Removes temp files a crash left behind (this process is the store's only writer).
fn remove_stale_temp_files(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{STORE_FILE_NAME}.tmp-");
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// `AccessLevel` as `"full"` / `"redacted"`.
pub(crate) mod access_level {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::context::AccessLevel;

    pub(crate) fn serialize<S: Serializer>(level: &AccessLevel, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(name(*level))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<AccessLevel, D::Error> {
        let text = String::deserialize(d)?;
        match text.as_str() {
            "full" => Ok(AccessLevel::Full),
            "redacted" => Ok(AccessLevel::Redacted),
            other => Err(serde::de::Error::custom(format!(
                "unknown access level `{other}`; expected `full` or `redacted`"
            ))),
        }
    }

    pub(crate) fn name(level: AccessLevel) -> &'static str {
        match level {
            AccessLevel::Full => "full",
            AccessLevel::Redacted => "redacted",
        }
    }
}
