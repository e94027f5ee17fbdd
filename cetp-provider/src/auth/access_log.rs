//! The on-device access log: when each approved app last ran each tool, and how often in the
//! last day and week. The grants screen shows it next to each grant ("read 12 times today").
//!
//! It is small and bounded: per (package, certificate, tool) one last-call time and call counts
//! in hourly buckets for the last [`WEEK_HOURS`] hours, at most [`MAX_ENTRIES`] such entries
//! (the least recently used is dropped first). A call is recorded once its arguments were
//! valid and the tool is about to run, under the grant that admitted it (a shared UID's other
//! packages are not credited). It lives in [`ACCESS_LOG_FILE_NAME`] beside the grant store and
//! belongs to it: one log per store, so one per canonical directory per process, under the
//! store's lock. It is never sent to an agent (only the consent dialog reads it, through the
//! admin `state`), and an app's entries are removed when its access is revoked or denied.
//!
//! A call records itself in its caller's own buffer ([`LogBuffer`], one per caller, under a
//! lock of its own): two callers' calls never wait for each other here. Every read, save and
//! removal first moves the buffered calls into the log, so what the consent dialog shows,
//! what is saved and what is forgotten always includes every call recorded before it.
//!
//! Recording a call never touches the disk by itself: the log is saved when it changed and at
//! least [`SAVE_EVERY_MS`] passed since the last try, when the consent dialog reads it, when
//! entries are removed, and when the store closes. A save is the store's: a uniquely named temp
//! file (`cetp-access-log.json.tmp-<pid>-<n>`), write, fsync, rename, directory fsync, through
//! the store's [`StoreFs`]; a failed one removes its temp file, and leftovers of
//! a crash are removed when the store opens. Losing the last minute of history on power loss is
//! acceptable, a disk write per tool call is not. A file that cannot be read is ignored and
//! replaced (history is informative; no decision depends on it).

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};

use serde::{Deserialize, Serialize};

use super::fs::{ACCESS_LOG_FILE_NAME, StoreFs, write_atomic};
use super::trace;

/// How many (package, certificate, tool) entries the log keeps at most.
pub const MAX_ENTRIES: usize = 256;

/// How many hourly buckets an entry keeps: one week.
pub const WEEK_HOURS: u64 = 7 * 24;

/// The least time between two saves caused by calls, in ms.
pub const SAVE_EVERY_MS: u64 = 60_000;

const HOUR_MS: u64 = 3_600_000;
const DAY_HOURS: u64 = 24;
const FORMAT_VERSION: u32 = 1;

/// One app's use of one tool, as the consent dialog shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolAccess {
    /// The tool's name.
    pub name: String,
    /// The last successful authorization of a call, in ms since the Unix epoch.
    pub last_access_ms: u64,
    /// Calls in the last 24 hours (hour resolution).
    pub calls_day: u64,
    /// Calls in the last 7 days (hour resolution).
    pub calls_week: u64,
}

/// What the log knows about one grant: totals over its tools and the tools themselves (most
/// recently used first).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AccessSummary {
    /// The last call of any tool, `None` if the app never ran one (or its history was cleared).
    pub last_access_ms: Option<u64>,
    /// Calls in the last 24 hours, all tools.
    pub calls_day: u64,
    /// Calls in the last 7 days, all tools.
    pub calls_week: u64,
    /// Per tool, most recently used first.
    pub tools: Vec<ToolAccess>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
struct Key {
    package: String,
    certificate_sha256: Option<String>,
    tool: String,
}

impl Key {
    /// Its parts, borrowed: compared with a call's without making a key.
    fn parts(&self) -> (&str, Option<&str>, &str) {
        (
            &self.package,
            self.certificate_sha256.as_deref(),
            &self.tool,
        )
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    last_ms: u64,
    /// (hour since the epoch, calls in that hour), oldest first, at most `WEEK_HOURS` long.
    hours: Vec<(u64, u64)>,
}

impl Entry {
    /// One call at `now_ms`.
    fn add(&mut self, now_ms: u64) {
        self.add_calls(now_ms / HOUR_MS, 1);
        self.last_ms = self.last_ms.max(now_ms);
    }

    /// `calls` calls in `hour`: the hours older than a week before it go (and those after it,
    /// if the clock went back).
    fn add_calls(&mut self, hour: u64, calls: u64) {
        self.prune(hour);
        match self.hours.last_mut() {
            Some((last, n)) if *last == hour => *n += calls,
            _ => self.hours.push((hour, calls)),
        }
    }

    fn prune(&mut self, now_hour: u64) {
        let oldest = now_hour.saturating_sub(WEEK_HOURS - 1);
        self.hours.retain(|(h, _)| *h >= oldest && *h <= now_hour);
    }

    fn calls_since(&self, first_hour: u64) -> u64 {
        self.hours
            .iter()
            .filter(|(h, _)| *h >= first_hour)
            .map(|(_, n)| n)
            .sum()
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    version: u32,
    entries: Vec<(Key, Entry)>,
}

#[derive(Debug, Default)]
struct Inner {
    entries: BTreeMap<Key, Entry>,
    /// Changes made so far, and how many of them the file holds.
    changes: u64,
    saved: u64,
}

/// One caller's calls not yet moved into the log: per entry, the last call and the calls per
/// hour in the order they were recorded (replayed in that order, so the log ends up as if
/// each had been recorded in it directly).
#[derive(Debug, Default)]
pub(crate) struct LogBuffer {
    calls: Mutex<Vec<(Key, Entry)>>,
}

impl LogBuffer {
    fn lock(&self) -> MutexGuard<'_, Vec<(Key, Entry)>> {
        trace::note(&self.calls, trace::Kind::Exclusive);
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Inner {
    /// Moves one buffered entry in, as if its calls had been recorded here one by one.
    fn merge(&mut self, key: Key, buffered: Entry) {
        if !self.entries.contains_key(&key) && self.entries.len() >= MAX_ENTRIES {
            evict_least_recent(&mut self.entries);
        }
        let entry = self.entries.entry(key).or_default();
        entry.last_ms = entry.last_ms.max(buffered.last_ms);
        for (hour, calls) in buffered.hours {
            entry.add_calls(hour, calls);
        }
        self.changes += 1;
    }
}

/// Where a log is saved.
struct Target {
    dir: PathBuf,
    path: PathBuf,
    fs: Arc<dyn StoreFs>,
}

/// The access log of one grant store (see the [module docs](self)).
pub(crate) struct AccessLog {
    target: Option<Target>,
    inner: Mutex<Inner>,
    /// Every caller's buffer; a buffer only this list holds any more is dropped once moved in.
    buffers: Mutex<Vec<Arc<LogBuffer>>>,
    /// The last save (or attempt) caused by a call.
    saved_at_ms: AtomicU64,
    /// Held while saving: saves are serialized, and a call never waits for one.
    writer: Mutex<()>,
}

impl std::fmt::Debug for AccessLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessLog")
            .field("path", &self.target.as_ref().map(|t| &t.path))
            .finish_non_exhaustive()
    }
}

impl AccessLog {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        trace::note(&self.inner, trace::Kind::Exclusive);
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The log with every buffered call moved in.
    fn drained(&self) -> MutexGuard<'_, Inner> {
        let mut inner = self.lock();
        let taken: Vec<Vec<(Key, Entry)>> = {
            let mut buffers = self.buffers.lock().unwrap_or_else(PoisonError::into_inner);
            let taken = buffers
                .iter()
                .map(|b| std::mem::take(&mut *b.lock()))
                .collect();
            buffers.retain(|b| Arc::strong_count(b) > 1);
            taken
        };
        for (key, buffered) in taken.into_iter().flatten() {
            inner.merge(key, buffered);
        }
        inner
    }

    /// A new caller's buffer, registered with the log.
    pub(crate) fn buffer(&self) -> Arc<LogBuffer> {
        let buffer = Arc::new(LogBuffer::default());
        self.buffers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Arc::clone(&buffer));
        buffer
    }

    /// The log saved in `dir` (the grant store's directory, whose lock the caller holds), read
    /// through `fs`; empty when there is none or it is unreadable.
    pub(crate) fn open(dir: &Path, fs: Arc<dyn StoreFs>, now_ms: u64) -> AccessLog {
        let path = dir.join(ACCESS_LOG_FILE_NAME);
        let entries = read(&*fs, &path);
        AccessLog {
            target: Some(Target {
                dir: dir.to_owned(),
                path,
                fs,
            }),
            inner: Mutex::new(Inner {
                entries,
                ..Inner::default()
            }),
            buffers: Mutex::new(Vec::new()),
            saved_at_ms: AtomicU64::new(now_ms),
            writer: Mutex::new(()),
        }
    }

    /// A log kept in memory only.
    #[cfg(test)]
    fn in_memory() -> AccessLog {
        AccessLog {
            target: None,
            inner: Mutex::new(Inner::default()),
            buffers: Mutex::new(Vec::new()),
            saved_at_ms: AtomicU64::new(0),
            writer: Mutex::new(()),
        }
    }

    /// Adds the entries of the log at `path` (an earlier location's) that this one does not
    /// have; they are saved with the next save.
    pub(crate) fn adopt(&self, fs: &dyn StoreFs, path: &Path) {
        let found = read(fs, path);
        if found.is_empty() {
            return;
        }
        let mut inner = self.lock();
        for (key, entry) in found {
            if inner.entries.len() >= MAX_ENTRIES {
                break;
            }
            inner.entries.entry(key).or_insert(entry);
        }
        inner.changes += 1;
    }

    /// Records one call of `tool` admitted by the grant of `package` pinned to
    /// `certificate_sha256`, in `buffer` (the caller's, from [`buffer`](Self::buffer)).
    pub(crate) fn record(
        &self,
        buffer: &LogBuffer,
        package: &str,
        certificate_sha256: Option<&str>,
        tool: &str,
        now_ms: u64,
    ) {
        {
            let mut calls = buffer.lock();
            let view = (package, certificate_sha256, tool);
            // Found by borrowed parts: a known grant's call allocates nothing here.
            let index = match calls.iter().position(|(key, _)| key.parts() == view) {
                Some(index) => index,
                None => {
                    let key = Key {
                        package: package.to_owned(),
                        certificate_sha256: certificate_sha256.map(str::to_owned),
                        tool: tool.to_owned(),
                    };
                    calls.push((key, Entry::default()));
                    calls.len() - 1
                }
            };
            calls[index].1.add(now_ms);
        }
        let saved_at = self.saved_at_ms.load(Ordering::Relaxed);
        let due = now_ms.saturating_sub(saved_at) >= SAVE_EVERY_MS
            && self
                .saved_at_ms
                .compare_exchange(saved_at, now_ms, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok();
        if due {
            self.save(false);
        }
    }

    /// The history of the grant for `package` pinned to `certificate_sha256` (`None`: the
    /// package under any certificate, as an unpinned grant matches).
    pub(crate) fn summary(
        &self,
        package: &str,
        certificate_sha256: Option<&str>,
        now_ms: u64,
    ) -> AccessSummary {
        let now_hour = now_ms / HOUR_MS;
        let day_start = now_hour.saturating_sub(DAY_HOURS - 1);
        let week_start = now_hour.saturating_sub(WEEK_HOURS - 1);
        let inner = self.drained();
        let mut tools: BTreeMap<&str, ToolAccess> = BTreeMap::new();
        for (key, entry) in &inner.entries {
            if key.package != package
                || !same_certificate(&key.certificate_sha256, certificate_sha256)
            {
                continue;
            }
            let tool = tools.entry(&key.tool).or_insert_with(|| ToolAccess {
                name: key.tool.clone(),
                last_access_ms: 0,
                calls_day: 0,
                calls_week: 0,
            });
            tool.last_access_ms = tool.last_access_ms.max(entry.last_ms);
            tool.calls_day += entry.calls_since(day_start);
            tool.calls_week += entry.calls_since(week_start);
        }
        let mut tools: Vec<ToolAccess> = tools.into_values().collect();
        crate::sort::sort_by(&mut tools, |a, b| {
            b.last_access_ms
                .cmp(&a.last_access_ms)
                .then(a.name.cmp(&b.name))
        });
        AccessSummary {
            last_access_ms: tools.iter().map(|t| t.last_access_ms).max(),
            calls_day: tools.iter().map(|t| t.calls_day).sum(),
            calls_week: tools.iter().map(|t| t.calls_week).sum(),
            tools,
        }
    }

    /// Removes the history of `package` (only under `certificate_sha256` when given) and saves.
    pub(crate) fn forget(&self, package: &str, certificate_sha256: Option<&str>) {
        let mut inner = self.drained();
        let before = inner.entries.len();
        inner.entries.retain(|key, _| {
            !(key.package == package
                && same_certificate(&key.certificate_sha256, certificate_sha256))
        });
        if inner.entries.len() != before {
            inner.changes += 1;
            drop(inner);
            self.save(true);
        }
    }

    /// Saves pending changes now (the consent dialog is reading, or the store is closing).
    pub(crate) fn flush(&self) {
        self.save(true);
    }

    /// Writes the log if it changed since the last save; a failure is logged and retried at the
    /// next save. `wait`: wait for a save in progress (else leave it to that one, or the next).
    fn save(&self, wait: bool) {
        let Some(target) = &self.target else {
            return;
        };
        let _writer = match self.writer.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) if wait => {
                self.writer.lock().unwrap_or_else(PoisonError::into_inner)
            }
            Err(TryLockError::WouldBlock) => return,
        };
        let (bytes, changes) = {
            let inner = self.drained();
            if inner.changes == inner.saved {
                return;
            }
            let file = File {
                version: FORMAT_VERSION,
                entries: inner
                    .entries
                    .iter()
                    .map(|(k, e)| (k.clone(), e.clone()))
                    .collect(),
            };
            (serde_json::to_vec(&file), inner.changes)
        };
        let result = bytes.map_err(io::Error::other).and_then(|bytes| {
            write_atomic(
                &*target.fs,
                &target.dir,
                &target.path,
                &bytes,
                ACCESS_LOG_FILE_NAME,
            )
            .map_err(|failure| failure.error)
        });
        match result {
            Ok(()) => self.lock().saved = changes,
            Err(e) => log::warn!("CETP: could not save {}: {e}", target.path.display()),
        }
    }
}

impl Drop for AccessLog {
    fn drop(&mut self) {
        self.save(true);
    }
}

/// The entries of the log file at `path`; none when it is missing or unreadable.
fn read(fs: &dyn StoreFs, path: &Path) -> BTreeMap<Key, Entry> {
    match fs.read(path) {
        // Text first (`from_str` is the crate's one JSON parser; `from_slice` would be another).
        Ok(bytes) => match std::str::from_utf8(&bytes)
            .map_err(|_| ())
            .and_then(|text| serde_json::from_str::<File>(text).map_err(|_| ()))
        {
            Ok(file) if file.version == FORMAT_VERSION => {
                // Inserted one by one (a later duplicate wins, as with `collect`): `insert` is
                // compiled anyway, a sorted bulk build would be more code.
                let mut entries = BTreeMap::new();
                for (key, entry) in file.entries.into_iter().take(MAX_ENTRIES) {
                    entries.insert(key, entry);
                }
                entries
            }
            Ok(_) | Err(_) => {
                log::warn!(
                    "CETP: {} is unreadable; the access history starts empty",
                    path.display()
                );
                BTreeMap::new()
            }
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => BTreeMap::new(),
        Err(e) => {
            log::warn!(
                "CETP: {} cannot be read ({e}); the access history starts empty",
                path.display()
            );
            BTreeMap::new()
        }
    }
}

/// `stored` (an entry's certificate) is covered by `wanted` (`None`: any).
fn same_certificate(stored: &Option<String>, wanted: Option<&str>) -> bool {
    match wanted {
        None => true,
        Some(w) => stored.as_deref().is_some_and(|s| s.eq_ignore_ascii_case(w)),
    }
}

fn evict_least_recent(entries: &mut BTreeMap<Key, Entry>) {
    if let Some(oldest) = entries
        .iter()
        .min_by_key(|(_, e)| e.last_ms)
        .map(|(k, _)| k.clone())
    {
        entries.remove(&oldest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: u64 = 1_767_225_600_000;

    const AGENT: &str = "com.example.agent";

    #[test]
    fn counts_by_day_and_week_and_keeps_the_last_call() {
        let log = AccessLog::in_memory();
        let a = Some("aa");
        log.record(&log.buffer(), AGENT, a, "search", T0);
        log.record(&log.buffer(), AGENT, a, "search", T0 + 1000);
        log.record(&log.buffer(), AGENT, a, "get", T0 + 2 * 24 * HOUR_MS);
        let now = T0 + 2 * 24 * HOUR_MS + 5;
        let s = log.summary("com.example.agent", Some("aa"), now);
        assert_eq!(s.last_access_ms, Some(T0 + 2 * 24 * HOUR_MS));
        assert_eq!((s.calls_day, s.calls_week), (1, 3));
        assert_eq!(s.tools[0].name, "get");
        assert_eq!(
            (s.tools[1].name.as_str(), s.tools[1].calls_week),
            ("search", 2)
        );
        // Eight days later the week is empty, the last call time stays.
        let later = log.summary("com.example.agent", Some("aa"), T0 + 9 * 24 * HOUR_MS);
        assert_eq!((later.calls_day, later.calls_week), (0, 0));
        assert_eq!(later.last_access_ms, Some(T0 + 2 * 24 * HOUR_MS));
    }

    #[test]
    fn a_pinned_grant_sees_only_its_certificate() {
        let log = AccessLog::in_memory();
        log.record(&log.buffer(), AGENT, Some("aa"), "search", T0);
        log.record(&log.buffer(), AGENT, Some("bb"), "search", T0);
        assert_eq!(
            log.summary("com.example.agent", Some("AA"), T0).calls_day,
            1
        );
        assert_eq!(log.summary("com.example.agent", None, T0).calls_day, 2);
        assert_eq!(
            log.summary("com.example.other", None, T0),
            AccessSummary::default()
        );
    }

    #[test]
    fn a_buffer_finds_each_key_by_its_parts() {
        let parts = [
            ("a", None, "t"),
            ("a", Some(""), "t"),
            ("a", Some("aa"), "s"),
            ("a", Some("aa"), "t"),
            ("a.b", None, ""),
            ("ab", Some("0"), "t"),
            ("b", None, "a"),
        ];
        // Every one found again by its parts in one caller's buffer, counted on its own entry.
        let log = AccessLog::in_memory();
        let buffer = log.buffer();
        for &(package, cert, tool) in parts.iter().chain(parts.iter()) {
            log.record(&buffer, package, cert, tool, T0);
        }
        assert_eq!(buffer.lock().len(), parts.len());
        let inner = log.drained();
        assert_eq!(inner.entries.len(), parts.len());
        assert!(
            inner
                .entries
                .values()
                .all(|e| e.hours == [(T0 / HOUR_MS, 2)])
        );
    }

    #[test]
    fn buffered_calls_count_as_if_recorded_directly() {
        let log = AccessLog::in_memory();
        let (one, two) = (log.buffer(), log.buffer());
        let a = Some("aa");
        // Interleaved callers, a clock that goes back an hour: the same as recording in order.
        log.record(&one, AGENT, a, "search", T0 + 2 * HOUR_MS);
        log.record(&two, "com.example.other", None, "search", T0);
        log.record(&one, AGENT, a, "search", T0 + HOUR_MS);
        log.record(&one, AGENT, a, "search", T0 + HOUR_MS + 5);
        let s = log.summary(AGENT, None, T0 + 3 * HOUR_MS);
        assert_eq!((s.calls_day, s.last_access_ms), (2, Some(T0 + 2 * HOUR_MS)));
        assert_eq!(log.summary("com.example.other", None, T0).calls_day, 1);
        // Read again: nothing counted twice; a buffer no caller holds is let go.
        drop(two);
        log.record(&one, AGENT, a, "search", T0 + HOUR_MS + 6);
        assert_eq!(log.summary(AGENT, None, T0 + 3 * HOUR_MS).calls_day, 3);
        assert_eq!(log.buffers.lock().unwrap().len(), 1);
        // Forgetting includes what was still buffered.
        log.record(&one, AGENT, a, "get", T0 + HOUR_MS + 7);
        log.forget(AGENT, None);
        assert_eq!(log.summary(AGENT, None, T0), AccessSummary::default());
    }

    #[test]
    fn stays_bounded() {
        let log = AccessLog::in_memory();
        let a = Some("aa");
        for i in 0..(MAX_ENTRIES as u64 + 40) {
            log.record(&log.buffer(), AGENT, a, &format!("tool{i}"), T0 + i);
        }
        let s = log.summary("com.example.agent", None, T0 + 1000);
        assert_eq!(s.tools.len(), MAX_ENTRIES);
        assert!(
            s.tools.iter().all(|t| t.name != "tool0"),
            "least recent evicted"
        );
        // A week of calls every hour keeps WEEK_HOURS buckets in one entry.
        let log = AccessLog::in_memory();
        for h in 0..(3 * WEEK_HOURS) {
            log.record(&log.buffer(), AGENT, a, "search", T0 + h * HOUR_MS);
        }
        let inner = log.drained();
        let entry = inner.entries.values().next().unwrap();
        assert_eq!(entry.hours.len() as u64, WEEK_HOURS);
    }

    fn open(dir: &Path, now_ms: u64) -> AccessLog {
        AccessLog::open(dir, Arc::new(super::super::OsFs), now_ms)
    }

    #[test]
    fn saves_lazily_and_reloads_and_forgets() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(ACCESS_LOG_FILE_NAME);
        let log = open(dir.path(), T0);
        let a = Some("aa");
        log.record(&log.buffer(), AGENT, a, "search", T0 + 1);
        assert!(!file.exists(), "a call alone does not write");
        log.record(&log.buffer(), AGENT, a, "search", T0 + SAVE_EVERY_MS);
        assert!(file.exists(), "saved once SAVE_EVERY_MS passed");
        log.record(&log.buffer(), AGENT, a, "search", T0 + SAVE_EVERY_MS + 1);
        log.flush();

        let reopened = open(dir.path(), T0 + SAVE_EVERY_MS + 3);
        let s = reopened.summary(AGENT, Some("aa"), T0 + SAVE_EVERY_MS + 3);
        assert_eq!(s.calls_day, 3);

        // A call only in its caller's buffer is saved when the log closes.
        let buffer = reopened.buffer();
        reopened.record(&buffer, AGENT, a, "get", T0 + SAVE_EVERY_MS + 4);
        drop(reopened);
        let reopened = open(dir.path(), T0 + SAVE_EVERY_MS + 4);
        let s = reopened.summary(AGENT, Some("aa"), T0 + SAVE_EVERY_MS + 4);
        assert_eq!((s.calls_day, s.tools[0].name.as_str()), (4, "get"));

        reopened.forget(AGENT, Some("aa"));
        let again = open(dir.path(), T0 + SAVE_EVERY_MS + 5);
        assert_eq!(
            again.summary(AGENT, None, T0 + SAVE_EVERY_MS + 5),
            AccessSummary::default()
        );
    }

    #[test]
    fn an_unreadable_file_starts_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(ACCESS_LOG_FILE_NAME), b"{not json").unwrap();
        let log = open(dir.path(), T0);
        log.record(&log.buffer(), AGENT, Some("aa"), "search", T0);
        assert_eq!(log.summary(AGENT, None, T0).calls_day, 1);
        log.flush();
        let text = std::fs::read_to_string(dir.path().join(ACCESS_LOG_FILE_NAME)).unwrap();
        assert!(text.starts_with("{\"version\":1"), "{text}");
    }
}
