//! The grant store: [`Grant`]s and [`Denial`]s kept in one JSON file, written atomically.
//! The format is documented in the [`auth`](crate::auth) module docs.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::access_log::AccessLog;
use super::fs::{ACCESS_LOG_FILE_NAME, LockGuard, SaveFailure, StoreFs, write_atomic};
use crate::context::AccessLevel;
use crate::validate::kind_of;

/// The name of the grant store file inside the store directory.
pub const STORE_FILE_NAME: &str = "cetp-grants.json";

/// The last good copy of the store file, beside it.
const LAST_GOOD_NAME: &str = "cetp-grants.json.last-good";

/// The store file format version this SDK writes, and the only one it reads: a file of any
/// other version is unusable (set aside, as a corrupt one).
pub const STORE_VERSION: u32 = 2;

/// What the user allowed for one scope of a [`Grant`] (or, in [`Grant::no_scope`], for the
/// tools that need no scope): the access level and how long it lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ScopeGrant {
    /// What tools may show for this scope; reaches tools as
    /// [`CallContext::access`](crate::CallContext::access) (the most restrictive level of the
    /// scopes a tool needs).
    #[serde(with = "access_level")]
    pub access: AccessLevel,
    /// When the user approved it, in ms since the Unix epoch.
    pub granted_at_ms: u64,
    /// When it lapses, in ms since the Unix epoch; `None` = never.
    #[serde(default)]
    pub expires_at_ms: Option<u64>,
}

/// One approved scope of an app's grant, as the screens show it: its name with the level and
/// expiry the user chose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ScopeState {
    /// The scope's name.
    pub scope: String,
    /// What the user chose for it.
    #[serde(flatten)]
    pub grant: ScopeGrant,
    /// Whether it had lapsed when the state was read (a grant keeps a lapsed scope until the
    /// next change of the store).
    #[serde(default)]
    pub expired: bool,
}

impl ScopeGrant {
    /// Approved at `granted_at_ms` with `access`, lapsing at `expires_at_ms` (`None`: never).
    pub fn new(access: AccessLevel, granted_at_ms: u64, expires_at_ms: Option<u64>) -> Self {
        ScopeGrant {
            access,
            granted_at_ms,
            expires_at_ms,
        }
    }

    /// Whether it has lapsed at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms.is_some_and(|at| at <= now_ms)
    }
}

/// The user's approval for one agent package, pinned to its signing certificate: per scope,
/// the access level and expiry the user chose when approving that scope.
///
/// An approval changes only the scopes it names; approving `calendar` later leaves `notes` as
/// the user chose it. A call is admitted when every scope its tool needs is approved and not
/// expired, at the most restrictive level among them. A tool that needs no scope is judged by
/// [`no_scope`](Self::no_scope) when the user approved a request that named no scope (a
/// provider without scopes), else by the scopes in force (the most restrictive of them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Grant {
    /// The agent's package name.
    pub package: String,
    /// Lower-case hex SHA-256 of the agent's signing certificate. A grant never matches the
    /// package signed with another certificate; one without a certificate (written by an
    /// earlier version) matches nobody.
    #[serde(default)]
    pub certificate_sha256: Option<String>,
    /// The scopes the user allowed, each with its access level and expiry.
    #[serde(default)]
    pub scopes: BTreeMap<String, ScopeGrant>,
    /// What the user allowed when approving a request that named no scope (the tools of a
    /// provider without scopes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_scope: Option<ScopeGrant>,
}

/// Why a grant does not admit a call: the needed scopes it lacks (absent or expired), and
/// whether one of them (or, for a call that needs no scope, everything) expired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lacking {
    pub(crate) scopes: Vec<String>,
    pub(crate) expired: bool,
}

impl Grant {
    /// An approval of nothing yet, for `package` pinned to `certificate_sha256`.
    pub fn new(package: impl Into<String>, certificate_sha256: Option<String>) -> Self {
        Grant {
            package: package.into(),
            certificate_sha256,
            scopes: BTreeMap::new(),
            no_scope: None,
        }
    }

    fn entries(&self) -> impl Iterator<Item = &ScopeGrant> {
        self.scopes.values().chain(self.no_scope.iter())
    }

    /// The names of the approved scopes (expired ones included until the next change of the
    /// store), in name order.
    #[cfg(test)]
    pub fn scope_names(&self) -> impl Iterator<Item = &str> {
        self.scopes.keys().map(String::as_str)
    }

    /// Whether nothing of it is in force at `now_ms` (every scope lapsed).
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.entries().all(|e| e.is_expired(now_ms))
    }

    /// The widest access level it gives: `Full` if any of its scopes is full. What the app can
    /// see of at least one scope; a call gets the level of the scopes it needs.
    pub fn access(&self) -> AccessLevel {
        if self.entries().any(|e| e.access == AccessLevel::Full) {
            AccessLevel::Full
        } else {
            AccessLevel::Limited
        }
    }

    /// The latest approval among its scopes, in ms since the Unix epoch (0 when it has none).
    pub fn granted_at_ms(&self) -> u64 {
        self.entries().map(|e| e.granted_at_ms).max().unwrap_or(0)
    }

    /// When the last of its scopes lapses, in ms since the Unix epoch; `None` when one of them
    /// never does (or it has none).
    pub fn expires_at_ms(&self) -> Option<u64> {
        let mut latest: Option<u64> = None;
        for entry in self.entries() {
            let at = entry.expires_at_ms?;
            latest = Some(latest.map_or(at, |l| l.max(at)));
        }
        latest
    }

    /// Whether it admits a call needing `needed` at `now_ms`, and at which level.
    pub(crate) fn admits(&self, needed: &[String], now_ms: u64) -> Result<AccessLevel, Lacking> {
        let live = |e: &&ScopeGrant| !e.is_expired(now_ms);
        if needed.is_empty() {
            if let Some(own) = self.no_scope.as_ref().filter(live) {
                return Ok(own.access);
            }
            return self
                .scopes
                .values()
                .filter(live)
                .map(|e| e.access)
                .reduce(narrower)
                .ok_or(Lacking {
                    scopes: Vec::new(),
                    expired: self.entries().next().is_some(),
                });
        }
        let mut access = AccessLevel::Full;
        let mut lacking = Lacking {
            scopes: Vec::new(),
            expired: false,
        };
        for scope in needed {
            match self.scopes.get(scope) {
                Some(entry) if !entry.is_expired(now_ms) => access = narrower(access, entry.access),
                Some(_) => {
                    lacking.scopes.push(scope.clone());
                    lacking.expired = true;
                }
                None => lacking.scopes.push(scope.clone()),
            }
        }
        if lacking.scopes.is_empty() {
            Ok(access)
        } else {
            Err(lacking)
        }
    }

    /// Drops what has lapsed at `now_ms`; `false` when nothing is left.
    pub(crate) fn prune(&mut self, now_ms: u64) -> bool {
        self.scopes.retain(|_, e| !e.is_expired(now_ms));
        if self.no_scope.is_some_and(|e| e.is_expired(now_ms)) {
            self.no_scope = None;
        }
        self.entries().next().is_some()
    }
}

/// The more restrictive of two levels.
pub(crate) fn narrower(a: AccessLevel, b: AccessLevel) -> AccessLevel {
    if a.is_limited() || b.is_limited() {
        AccessLevel::Limited
    } else {
        AccessLevel::Full
    }
}

/// The user's refusal for one agent package (pinned to a certificate when known). A denied
/// agent gets `PERMISSION_DENIED` until the denial is cleared or the user approves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Denial {
    /// The agent's package name.
    pub package: String,
    /// Lower-case hex SHA-256 of the agent's signing certificate, `None` when unknown.
    #[serde(default)]
    pub certificate_sha256: Option<String>,
    /// When the user declined, in ms since the Unix epoch.
    pub denied_at_ms: u64,
}

/// The content of the store file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct StoreData {
    pub(crate) grants: Vec<Grant>,
    pub(crate) denials: Vec<Denial>,
    /// The file was found unreadable, with no good copy to recover from, and the user has not
    /// made a decision since.
    pub(crate) decisions_lost: bool,
}

#[derive(Serialize)]
struct FileOut<'a> {
    version: u32,
    grants: &'a [Grant],
    denials: &'a [Denial],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    decisions_lost: bool,
}

/// What a store file holds. Read by [`read_file`]; its derived reader (and those of [`Grant`],
/// [`ScopeGrant`] and [`Denial`]) is the reference a test holds the hand-written one to.
#[derive(Debug, PartialEq, Deserialize)]
pub(super) struct FileIn {
    grants: Vec<Grant>,
    denials: Vec<Denial>,
    #[serde(default)]
    decisions_lost: bool,
}

/// The grant store could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the CETP grant store in `{dir}`: {source}")]
pub struct StoreError {
    dir: PathBuf,
    #[source]
    source: io::Error,
}

/// Which way a change moves access, which decides when it takes effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// Takes access away (revoke, deny): in force at once, saved with retries.
    Narrowing,
    /// Gives access (approve, clear a denial): in force only once saved.
    Widening,
}

/// How many times one change tries to save before giving up (a narrowing change then stays
/// in force and is retried later).
const SAVE_ATTEMPTS: usize = 3;
/// How often the call path retries saving a change that is in force but not yet on disk.
const RETRY_EVERY_MS: u64 = 1_000;

/// A bound, loaded store. Reads take a snapshot; writes are serialized. Memory never grants
/// more than the file: a widening change is published only once saved, a narrowing one at
/// once (and saved, retrying until it is).
pub(crate) struct GrantStore {
    /// The access log beside the store; dropped (and saved) before the lock is released.
    log: AccessLog,
    dir: PathBuf,
    path: PathBuf,
    last_good: PathBuf,
    fs: Arc<dyn StoreFs>,
    _lock: LockGuard,
    writer: Mutex<()>,
    state: RwLock<Arc<StoreData>>,
    /// Bumped (under `state`'s write lock) each time a new state is published: a call compares
    /// it with the one its caller's view was made at, and reads `state` only when they differ.
    generation: AtomicU64,
    /// Memory holds a change the file does not (yet).
    unsaved: AtomicBool,
    last_retry_ms: AtomicU64,
    /// What the last good copy is known to hold (a state whose file committed), if anything.
    copy_holds: Mutex<Option<Arc<StoreData>>>,
    /// Where an earlier version kept the store, while files may be left there: removed once
    /// this directory holds the store durably.
    legacy: Mutex<Option<PathBuf>>,
}

/// The stores open on the real file system, by canonical directory: one per directory per
/// process, so two providers (or two binds) on one directory never lose each other's updates.
static OPEN_STORES: Mutex<Vec<(PathBuf, Weak<GrantStore>)>> = Mutex::new(Vec::new());

impl GrantStore {
    /// Opens (creating the directory if needed) and loads the store in `dir`, or returns the
    /// store already open on the same canonical directory in this process. `legacy` is where an
    /// earlier version kept the store (the app's files dir): a store found there while `dir`
    /// holds none is moved to `dir` (see [`load`](Self::load)).
    pub(crate) fn open(
        dir: &Path,
        fs: Arc<dyn StoreFs>,
        now_ms: u64,
        legacy: Option<&Path>,
    ) -> Result<Arc<GrantStore>, StoreError> {
        let err = |source| StoreError {
            dir: dir.to_owned(),
            source,
        };
        fs.create_dir_all(dir).map_err(err)?;
        let Some(canonical) = fs.canonical_dir(dir) else {
            let legacy = legacy.filter(|old| *old != dir);
            return Self::load(dir, fs, now_ms, legacy).map(Arc::new);
        };
        let legacy = legacy
            .map(|old| fs.canonical_dir(old).unwrap_or_else(|| old.to_owned()))
            .filter(|old| *old != canonical);
        let mut open = OPEN_STORES.lock().unwrap_or_else(PoisonError::into_inner);
        open.retain(|(_, store)| store.strong_count() > 0);
        if let Some(store) = open
            .iter()
            .find(|(path, _)| *path == canonical)
            .and_then(|(_, store)| store.upgrade())
        {
            return Ok(store);
        }
        let store = Arc::new(Self::load(&canonical, fs, now_ms, legacy.as_deref())?);
        open.push((canonical, Arc::downgrade(&store)));
        Ok(store)
    }

    /// Locks and loads the store in `dir`.
    ///
    /// When `dir` holds no store (no file, no copy, nothing set aside) and `legacy` does, the
    /// store is moved: read from `legacy` (without changing anything there), saved in `dir`,
    /// and only once that save is durable are the files in `legacy` removed. Until then the
    /// old location stays the live one (a crash means the move starts over); from then on it
    /// is never read again, whatever is left there. Files in `legacy` next to a store in `dir`
    /// are removed unread.
    fn load(
        dir: &Path,
        fs: Arc<dyn StoreFs>,
        now_ms: u64,
        legacy: Option<&Path>,
    ) -> Result<GrantStore, StoreError> {
        let lock_path = dir.join(format!("{STORE_FILE_NAME}.lock"));
        let lock = fs.lock(&lock_path).map_err(|e| StoreError {
            dir: dir.to_owned(),
            source: if e.kind() == io::ErrorKind::WouldBlock {
                io::Error::new(
                    e.kind(),
                    format!(
                        "another process holds `{}`; only one process may use a grant store",
                        lock_path.display()
                    ),
                )
            } else {
                e
            },
        })?;
        let path = dir.join(STORE_FILE_NAME);
        let last_good = dir.join(LAST_GOOD_NAME);
        remove_stale_temp_files(&*fs, dir);
        // A new location that cannot even be listed: leave the old one alone.
        let legacy = legacy.filter(|_| fs.list(dir).is_ok());
        let moving = legacy.filter(|old| !holds_store(&*fs, dir) && holds_store(&*fs, old));
        let resolved = match moving {
            // What the old copy holds says nothing about the copy here.
            Some(old) => Resolved {
                copy_holds: None,
                ..resolve(&*fs, old, now_ms, false)
            },
            None => resolve(&*fs, dir, now_ms, true),
        };
        let data = resolved.data;
        let store = GrantStore {
            log: AccessLog::open(dir, fs.clone(), now_ms),
            dir: dir.to_owned(),
            path,
            last_good,
            fs,
            _lock: lock,
            writer: Mutex::new(()),
            state: RwLock::new(Arc::new(data)),
            generation: AtomicU64::new(0),
            unsaved: AtomicBool::new(false),
            last_retry_ms: AtomicU64::new(now_ms),
            copy_holds: Mutex::new(resolved.copy_holds),
            legacy: Mutex::new(legacy.map(Path::to_owned)),
        };
        if let Some(old) = moving {
            log::info!(
                "CETP grant store: moving the store from `{}` (backed up) to `{}` (never backed up)",
                old.display(),
                store.dir.display()
            );
            store.log.adopt(&*store.fs, &old.join(ACCESS_LOG_FILE_NAME));
        }
        if resolved.rewrite || moving.is_some() {
            let data = store.snapshot();
            match store.save(&data) {
                Ok(()) => {
                    store.log.flush();
                    store.leave_legacy();
                }
                Err(failure) => {
                    store.unsaved.store(true, Ordering::Relaxed);
                    log::error!(
                        "CETP grant store `{}` could not be written ({}); retrying later",
                        store.path.display(),
                        failure.error
                    );
                }
            }
        } else {
            // The store here is the live one (or there is none anywhere): what an earlier
            // version left in the old location is never read.
            store.leave_legacy();
        }
        Ok(store)
    }

    /// The store file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The access log beside it.
    pub(crate) fn access_log(&self) -> &AccessLog {
        &self.log
    }

    /// The current state (cheap: an `Arc` clone under a short read lock).
    pub(crate) fn snapshot(&self) -> Arc<StoreData> {
        super::trace::note(&self.state, super::trace::Kind::Shared);
        self.state
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The current state with its generation, read together (one consistent pair).
    pub(crate) fn snapshot_at(&self) -> (Arc<StoreData>, u64) {
        super::trace::note(&self.state, super::trace::Kind::Shared);
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        (state.clone(), self.generation.load(Ordering::Acquire))
    }

    /// The generation of the current state: changes with every published change, and is only
    /// read (never written) while the state stays the same, so callers reading it share a
    /// cache line without contending for it.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Whether the file was found unreadable with no good copy, and no decision was made since.
    pub(crate) fn decisions_lost(&self) -> bool {
        self.snapshot().decisions_lost
    }

    /// Whether memory holds a (narrowing) change not yet saved.
    pub(crate) fn unsaved(&self) -> bool {
        self.unsaved.load(Ordering::Relaxed)
    }

    fn publish(&self, data: Arc<StoreData>) {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        *state = data;
        // Under the write lock: a reader of `state` sees the generation that goes with it.
        self.generation.fetch_add(1, Ordering::Release);
    }

    /// Applies `change` to a copy of the state and saves it. A [`Change::Widening`] change is
    /// published only once saved (or once its file was renamed into place); if it cannot be,
    /// nothing changes. A [`Change::Narrowing`] change is published at once and saved with
    /// retries; if saving fails it stays in force and is saved later (every later change and,
    /// at most once a second, the call path retries). Changes are serialized; a failing
    /// `change` changes nothing. Every change clears the "decisions lost" mark.
    pub(crate) fn update<R, E>(
        &self,
        kind: Change,
        change: impl FnOnce(&mut StoreData) -> Result<R, E>,
        persist_error: impl FnOnce(io::Error) -> E,
    ) -> Result<R, E> {
        super::trace::note(&self.writer, super::trace::Kind::Exclusive);
        let _writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let mut next = (*self.snapshot()).clone();
        let result = change(&mut next)?;
        next.decisions_lost = false;
        let next = Arc::new(next);
        if kind == Change::Narrowing {
            self.publish(next.clone());
        }
        match self.save(&next) {
            Ok(()) => {
                self.unsaved.store(false, Ordering::Relaxed);
                self.leave_legacy();
                if kind == Change::Widening {
                    self.publish(next);
                }
                Ok(result)
            }
            Err(failure) if kind == Change::Narrowing || failure.committed => {
                log::error!(
                    "CETP grant store `{}`: a change is in force but not durably saved ({}); retrying later",
                    self.path.display(),
                    failure.error
                );
                self.unsaved.store(true, Ordering::Relaxed);
                if kind == Change::Widening {
                    self.publish(next);
                }
                Ok(result)
            }
            Err(failure) => {
                log::error!(
                    "CETP grant store `{}` could not be saved, the change was not made: {}",
                    self.path.display(),
                    failure.error
                );
                Err(persist_error(failure.error))
            }
        }
    }

    /// Saves a change that is in force but not yet on disk, if there is one and the last try
    /// was at least a second ago. Never blocks on a writer in progress.
    pub(crate) fn retry_unsaved(&self, now_ms: u64) {
        if !self.unsaved() {
            return;
        }
        let last = self.last_retry_ms.load(Ordering::Relaxed);
        if now_ms.saturating_sub(last) < RETRY_EVERY_MS && now_ms >= last {
            return;
        }
        super::trace::note(&self.writer, super::trace::Kind::Exclusive);
        let Ok(_writer) = self.writer.try_lock() else {
            return;
        };
        self.last_retry_ms.store(now_ms, Ordering::Relaxed);
        let data = self.snapshot();
        match self.save(&data) {
            Ok(()) => {
                self.unsaved.store(false, Ordering::Relaxed);
                self.leave_legacy();
                log::info!(
                    "CETP grant store `{}`: the pending change is saved",
                    self.path.display()
                );
            }
            Err(failure) => log::warn!(
                "CETP grant store `{}` still cannot be saved: {}",
                self.path.display(),
                failure.error
            ),
        }
    }

    /// Removes what an earlier version left in the old location, once this directory holds
    /// the store durably (the caller just saved, or found the store here): the store and its
    /// copy, their lock, temp and set-aside files, the access log and its temp files. What
    /// cannot be removed is tried again at the next save and the next start; it is never read
    /// again either way.
    fn leave_legacy(&self) {
        let mut legacy = self.legacy.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(old) = legacy.as_deref() else {
            return;
        };
        let Ok(names) = self.fs.list(old) else {
            *legacy = None;
            return;
        };
        let mut left = 0;
        let mut removed = 0;
        for name in names {
            let name = name.to_string_lossy();
            if !(name.starts_with(STORE_FILE_NAME) || name.starts_with(ACCESS_LOG_FILE_NAME)) {
                continue;
            }
            match self.fs.remove(&old.join(&*name)) {
                Ok(()) => removed += 1,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => {
                    left += 1;
                    log::warn!(
                        "CETP grant store: `{}` could not be removed ({e}); it is not read, and removing it is tried again later",
                        old.join(&*name).display()
                    );
                }
            }
        }
        if removed > 0 {
            if let Err(e) = self.fs.sync_dir(old) {
                left += 1;
                log::warn!(
                    "CETP grant store: `{}` could not be synced after removing the old store ({e})",
                    old.display()
                );
            }
        }
        if left == 0 {
            *legacy = None;
        }
    }

    /// Up to [`SAVE_ATTEMPTS`] tries of [`save_once`](Self::save_once).
    fn save(&self, data: &StoreData) -> Result<(), SaveFailure> {
        let mut committed = false;
        let mut last = None;
        for _ in 0..SAVE_ATTEMPTS {
            match self.save_once(data) {
                Ok(()) => return Ok(()),
                Err(failure) => {
                    committed |= failure.committed;
                    last = Some(failure.error);
                }
            }
        }
        Err(SaveFailure {
            committed,
            error: last.unwrap_or_else(|| io::Error::other("no save attempted")),
        })
    }

    /// Saves `data`: removes the last good copy (unless it already holds `data`), writes the
    /// file, and only once the file committed writes the copy again. So the copy only ever holds a state
    /// whose file committed, and never one older than the file: recovering from it can bring
    /// back neither a change the user was told failed nor a revoked grant. A copy that cannot
    /// be written afterwards is logged; the file holds the change, and the next save writes
    /// the copy again.
    fn save_once(&self, data: &StoreData) -> Result<(), SaveFailure> {
        let uncommitted = |error| SaveFailure {
            committed: false,
            error,
        };
        let file = FileOut {
            version: STORE_VERSION,
            grants: &data.grants,
            denials: &data.denials,
            decisions_lost: data.decisions_lost,
        };
        let mut bytes =
            serde_json::to_vec_pretty(&file).map_err(|e| uncommitted(io::Error::other(e)))?;
        bytes.push(b'\n');
        let mut copy = self
            .copy_holds
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if copy.as_deref() != Some(data) {
            // The file's directory fsync makes the removal durable no later than the file
            // itself: both names are in one directory.
            match self.fs.remove(&self.last_good) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(uncommitted(e)),
            }
            *copy = None;
        }
        write_atomic(&*self.fs, &self.dir, &self.path, &bytes, STORE_FILE_NAME)?;
        if copy.is_none() {
            match write_atomic(
                &*self.fs,
                &self.dir,
                &self.last_good,
                &bytes,
                STORE_FILE_NAME,
            ) {
                Ok(()) => *copy = Some(Arc::new(data.clone())),
                Err(failure) => {
                    if failure.committed {
                        *copy = Some(Arc::new(data.clone()));
                    }
                    log::warn!(
                        "CETP grant store: the last good copy `{}` could not be written ({}); the file holds the change",
                        self.last_good.display(),
                        failure.error
                    );
                }
            }
        }
        Ok(())
    }
}

/// A store closed with a change in force that no save reached the disk with (the disk was
/// full, no call or decision came since it recovered) tries once more: a restart that closes the
/// provider keeps the narrowing. What still cannot be saved is lost with the process, and logged.
impl Drop for GrantStore {
    fn drop(&mut self) {
        if !self.unsaved() {
            return;
        }
        let data = self.snapshot();
        match self.save(&data) {
            Ok(()) => {
                self.unsaved.store(false, Ordering::Relaxed);
                log::info!(
                    "CETP grant store `{}`: the pending change is saved on close",
                    self.path.display()
                );
            }
            Err(failure) => log::error!(
                "CETP grant store `{}` closes with a change in force that could not be saved ({}); a restart undoes it",
                self.path.display(),
                failure.error
            ),
        }
    }
}

/// What loading a store directory found.
struct Resolved {
    data: StoreData,
    /// What the last good copy holds, when that is known (it was read and trusted).
    copy_holds: Option<Arc<StoreData>>,
    /// The file must be written again (it was missing or unusable).
    rewrite: bool,
}

/// Reads the store in `dir`: the file, else a trusted copy, else nothing (saying when
/// decisions were lost). `in_place`: the store lives here, so an unusable file is set aside
/// and an untrusted copy removed; else (an old location being moved) nothing there changes.
fn resolve(fs: &dyn StoreFs, dir: &Path, now_ms: u64, in_place: bool) -> Resolved {
    let path = dir.join(STORE_FILE_NAME);
    let last_good = dir.join(LAST_GOOD_NAME);
    let mut rewrite = false;
    // The copy is written after the file committed, so it holds the state of a commit.
    let mut copy_holds = None;
    let data = match read(fs, &path) {
        Ok(Some(data)) => data,
        Ok(None) => match read(fs, &last_good) {
            // The file is gone (removed, or set aside before a rewrite that failed): the
            // copy holds the state of its last commit.
            Ok(Some(data)) => {
                rewrite = true;
                let data = Arc::new(data);
                copy_holds = Some(data.clone());
                (*data).clone()
            }
            Ok(None) => StoreData::default(),
            Err(reason) => {
                log::error!(
                    "CETP grant store `{}` is missing and its last good copy is unusable ({reason}); starting empty: every agent must be approved again",
                    path.display()
                );
                rewrite = true;
                StoreData {
                    decisions_lost: true,
                    ..StoreData::default()
                }
            }
        },
        Err(reason) => {
            let aside = if in_place {
                set_aside(fs, &path, now_ms)
            } else {
                "it is left where it is".to_owned()
            };
            rewrite = true;
            match read(fs, &last_good) {
                Ok(Some(data)) => {
                    log::warn!(
                        "CETP grant store `{}` is unusable ({reason}); {aside}; recovered the decisions from its last good copy",
                        path.display()
                    );
                    let data = Arc::new(data);
                    copy_holds = Some(data.clone());
                    (*data).clone()
                }
                copy => {
                    let copy = match copy {
                        Err(e) => format!("its last good copy is unusable too ({e})"),
                        Ok(_) => "there is no last good copy".to_owned(),
                    };
                    log::error!(
                        "CETP grant store `{}` is unusable ({reason}); {aside}; {copy}; starting empty: every agent must be approved again",
                        path.display()
                    );
                    StoreData {
                        decisions_lost: true,
                        ..StoreData::default()
                    }
                }
            }
        }
    };
    Resolved {
        data,
        copy_holds,
        rewrite,
    }
}

/// Whether `dir` holds a store: its file, its copy, or a file set aside as unusable (the
/// store lived here even if nothing of it is readable). One that cannot be listed holds none.
fn holds_store(fs: &dyn StoreFs, dir: &Path) -> bool {
    let Ok(names) = fs.list(dir) else {
        return false;
    };
    let aside = format!("{STORE_FILE_NAME}.corrupt-");
    names.iter().any(|name| {
        let name = name.to_string_lossy();
        name == STORE_FILE_NAME || name == LAST_GOOD_NAME || name.starts_with(&aside)
    })
}

/// Reads and validates a store file; `None` when it does not exist.
fn read(fs: &dyn StoreFs, path: &Path) -> Result<Option<StoreData>, String> {
    let bytes = match fs.read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read it: {e}")),
    };
    parse(&bytes).map(Some)
}

/// Parses and validates the bytes of a store file (of version [`STORE_VERSION`]).
pub(crate) fn parse(bytes: &[u8]) -> Result<StoreData, String> {
    // Text first, then JSON: `from_str` is the parser every other reader of the crate uses,
    // so the library carries one copy of it.
    let text =
        std::str::from_utf8(bytes).map_err(|e| format!("not valid JSON: not UTF-8 ({e})"))?;
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(STORE_VERSION) => {}
        Some(v) => {
            return Err(format!(
                "unsupported version {v} (expected {STORE_VERSION})"
            ));
        }
        None => return Err("no numeric `version`".to_owned()),
    }
    let file = read_file(value).map_err(|e| format!("unexpected content: {e}"))?;
    let cert_ok = |cert: &Option<String>| {
        cert.as_deref()
            .is_none_or(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    for grant in &file.grants {
        if grant.package.is_empty()
            || !cert_ok(&grant.certificate_sha256)
            || grant.scopes.keys().any(String::is_empty)
        {
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
        decisions_lost: file.decisions_lost,
    })
}

/// The store file's content from its JSON, read by hand the way serde's derived readers of
/// [`FileIn`], [`Grant`], [`ScopeGrant`] and [`Denial`] read it from a `serde_json::Value`
/// (a struct is an object whose other members are ignored, or an array of its fields in order;
/// a field with a default may be absent, an `Option` may be `null`): one small reader instead
/// of a generated one per type and collection (16 KiB of the library).
/// `the_store_reader_reads_what_serde_reads` (in `auth/tests.rs`) holds it to them.
pub(super) fn read_file(value: Value) -> Result<FileIn, String> {
    let mut fields = members(value, "the store", &["grants", "denials", "decisions_lost"])?;
    let grants = items(required(fields.next(), "grants")?, "grants")?
        .into_iter()
        .map(read_grant)
        .collect::<Result<_, _>>()?;
    let denials = items(required(fields.next(), "denials")?, "denials")?
        .into_iter()
        .map(read_denial)
        .collect::<Result<_, _>>()?;
    let decisions_lost = match fields.next().flatten() {
        None => false,
        Some(Value::Bool(lost)) => lost,
        Some(other) => return Err(wrong("decisions_lost", "a boolean", &other)),
    };
    Ok(FileIn {
        grants,
        denials,
        decisions_lost,
    })
}

fn read_grant(value: Value) -> Result<Grant, String> {
    let names = ["package", "certificate_sha256", "scopes", "no_scope"];
    let mut fields = members(value, "a grant", &names)?;
    let package = string(required(fields.next(), "package")?, "package")?;
    let certificate_sha256 = optional_string(fields.next().flatten(), "certificate_sha256")?;
    let mut scopes = BTreeMap::new();
    match fields.next().flatten() {
        None => {}
        Some(Value::Object(map)) => {
            for (scope, grant) in map {
                scopes.insert(scope, read_scope_grant(grant)?);
            }
        }
        Some(other) => return Err(wrong("scopes", "an object", &other)),
    }
    let no_scope = match fields.next().flatten() {
        None | Some(Value::Null) => None,
        Some(grant) => Some(read_scope_grant(grant)?),
    };
    Ok(Grant {
        package,
        certificate_sha256,
        scopes,
        no_scope,
    })
}

fn read_scope_grant(value: Value) -> Result<ScopeGrant, String> {
    let names = ["access", "granted_at_ms", "expires_at_ms"];
    let mut fields = members(value, "a scope's grant", &names)?;
    let access = string(required(fields.next(), "access")?, "access")?;
    Ok(ScopeGrant {
        access: access_level::parse(&access)?,
        granted_at_ms: number(required(fields.next(), "granted_at_ms")?, "granted_at_ms")?,
        expires_at_ms: match fields.next().flatten() {
            None | Some(Value::Null) => None,
            Some(at) => Some(number(at, "expires_at_ms")?),
        },
    })
}

fn read_denial(value: Value) -> Result<Denial, String> {
    let names = ["package", "certificate_sha256", "denied_at_ms"];
    let mut fields = members(value, "a denial", &names)?;
    Ok(Denial {
        package: string(required(fields.next(), "package")?, "package")?,
        certificate_sha256: optional_string(fields.next().flatten(), "certificate_sha256")?,
        denied_at_ms: number(required(fields.next(), "denied_at_ms")?, "denied_at_ms")?,
    })
}

/// The fields `names` of the struct `what` is, in that order: an object's members of those
/// names, or an array's items (no more items than fields).
fn members(
    value: Value,
    what: &str,
    names: &[&str],
) -> Result<std::vec::IntoIter<Option<Value>>, String> {
    let fields: Vec<Option<Value>> = match value {
        Value::Object(mut map) => names.iter().map(|name| map.remove(*name)).collect(),
        Value::Array(items) if items.len() <= names.len() => {
            let mut fields: Vec<Option<Value>> = items.into_iter().map(Some).collect();
            fields.resize(names.len(), None);
            fields
        }
        Value::Array(items) => {
            return Err(format!(
                "{what} has {} items, expected at most {}",
                items.len(),
                names.len()
            ));
        }
        other => return Err(format!("{what} is {}, expected an object", kind_of(&other))),
    };
    Ok(fields.into_iter())
}

fn required(field: Option<Option<Value>>, name: &str) -> Result<Value, String> {
    field
        .flatten()
        .ok_or_else(|| format!("missing field `{name}`"))
}

fn items(value: Value, name: &str) -> Result<Vec<Value>, String> {
    match value {
        Value::Array(items) => Ok(items),
        other => Err(wrong(name, "an array", &other)),
    }
}

fn string(value: Value, name: &str) -> Result<String, String> {
    match value {
        Value::String(text) => Ok(text),
        other => Err(wrong(name, "a string", &other)),
    }
}

fn optional_string(value: Option<Value>, name: &str) -> Result<Option<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(text) => string(text, name).map(Some),
    }
}

fn number(value: Value, name: &str) -> Result<u64, String> {
    value
        .as_u64()
        .ok_or_else(|| wrong(name, "a whole number, 0 or more", &value))
}

fn wrong(name: &str, expected: &str, found: &Value) -> String {
    format!("`{name}` is {}, expected {expected}", kind_of(found))
}

/// Renames an unusable store file to `*.corrupt-<ms>`; returns what happened, for the log.
fn set_aside(fs: &dyn StoreFs, path: &Path, now_ms: u64) -> String {
    let taken: Vec<std::ffi::OsString> = path
        .parent()
        .and_then(|dir| fs.list(dir).ok())
        .unwrap_or_default();
    let base = format!("{STORE_FILE_NAME}.corrupt-{now_ms}");
    let mut name = base.clone();
    let mut n = 1;
    while taken.iter().any(|t| *t == *name) {
        name = format!("{base}-{n}");
        n += 1;
    }
    let aside = path.with_file_name(name);
    match fs.rename(path, &aside) {
        Ok(()) => format!("kept it as `{}`", aside.display()),
        Err(e) => format!("could not move it aside ({e})"),
    }
}

/// Removes temp files a crash (or a failed removal) left behind, the store's and the access
/// log's (the lock makes this process their only writer).
fn remove_stale_temp_files(fs: &dyn StoreFs, dir: &Path) {
    let Ok(names) = fs.list(dir) else {
        return;
    };
    let prefixes = [
        format!("{STORE_FILE_NAME}.tmp-"),
        format!("{ACCESS_LOG_FILE_NAME}.tmp-"),
    ];
    for name in names {
        let name = name.to_string_lossy();
        if prefixes.iter().any(|p| name.starts_with(p.as_str())) {
            let _ = fs.remove(&dir.join(&*name));
        }
    }
}

/// `AccessLevel` as `"full"` / `"limited"` (stores written before the SDK said "limited" hold
/// `"redacted"`, read as limited).
pub(crate) mod access_level {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::context::AccessLevel;

    pub(crate) fn serialize<S: Serializer>(level: &AccessLevel, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(name(*level))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<AccessLevel, D::Error> {
        let text = String::deserialize(d)?;
        parse(&text).map_err(serde::de::Error::custom)
    }

    /// The level `text` names: `full` or `limited` (`redacted`, an earlier name, is `limited`).
    pub(crate) fn parse(text: &str) -> Result<AccessLevel, String> {
        match text {
            "full" => Ok(AccessLevel::Full),
            "limited" | "redacted" => Ok(AccessLevel::Limited),
            other => Err(format!(
                "unknown access level `{other}`; expected `full` or `limited`"
            )),
        }
    }

    pub(crate) fn name(level: AccessLevel) -> &'static str {
        match level {
            AccessLevel::Full => "full",
            AccessLevel::Limited => "limited",
        }
    }
}
