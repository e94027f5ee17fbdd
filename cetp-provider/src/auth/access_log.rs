//! The on-device access log: when each approved app last ran each tool, and how often in the
//! last day and week. The grants screen shows it next to each grant ("read 12 times today").
//!
//! It is small and bounded: per (package, certificate, tool) one last-call time and call counts
//! in hourly buckets for the last [`WEEK_HOURS`] hours, at most [`MAX_ENTRIES`] such entries
//! (the least recently used is dropped first). It lives in [`ACCESS_LOG_FILE_NAME`] beside the
//! grant store, is never sent to a consumer (only the approval screen reads it, through the
//! admin `state`), and an app's entries are removed when its access is revoked or denied.
//!
//! Recording a call never touches the disk by itself: the log is saved when it changed and at
//! least [`SAVE_EVERY_MS`] passed since the last save, when the approval screen reads it, when
//! entries are removed, and when the provider is dropped. The file is written to a temp file and
//! renamed (a crash leaves the old or the new file), without fsync: losing the last minute of
//! history on power loss is acceptable, a disk write per tool call is not. A file that cannot be
//! read is ignored and replaced (history is informative; no decision depends on it).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};

/// The access log's file name, in the grant store's directory.
pub const ACCESS_LOG_FILE_NAME: &str = "cetp-access-log.json";

/// How many (package, certificate, tool) entries the log keeps at most.
pub const MAX_ENTRIES: usize = 256;

/// How many hourly buckets an entry keeps: one week.
pub const WEEK_HOURS: u64 = 7 * 24;

/// The least time between two saves caused by calls, in ms.
pub const SAVE_EVERY_MS: u64 = 60_000;

const HOUR_MS: u64 = 3_600_000;
const DAY_HOURS: u64 = 24;
const FORMAT_VERSION: u32 = 1;

/// One app's use of one tool, as the approval screen shows it.
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

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    last_ms: u64,
    /// (hour since the epoch, calls in that hour), oldest first, at most `WEEK_HOURS` long.
    hours: Vec<(u64, u64)>,
}

impl Entry {
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
    path: Option<PathBuf>,
    entries: BTreeMap<Key, Entry>,
    dirty: bool,
    saved_at_ms: u64,
}

/// The access log of one provider (see the [module docs](self)).
#[derive(Debug, Default)]
pub(crate) struct AccessLog {
    inner: Mutex<Inner>,
}

impl AccessLog {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Uses `dir` (the grant store's directory) from now on, reading the log saved there. The
    /// history recorded before (in memory, or in another directory) is saved first.
    pub(crate) fn attach(&self, dir: &Path, now_ms: u64) {
        let mut inner = self.lock();
        save(&mut inner, now_ms);
        let path = dir.join(ACCESS_LOG_FILE_NAME);
        inner.entries = match fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<File>(&bytes) {
                Ok(file) if file.version == FORMAT_VERSION => {
                    file.entries.into_iter().take(MAX_ENTRIES).collect()
                }
                Ok(_) | Err(_) => {
                    log::warn!(
                        "CETP: {} is unreadable; the access history starts empty",
                        path.display()
                    );
                    BTreeMap::new()
                }
            },
            Err(_) => BTreeMap::new(),
        };
        inner.path = Some(path);
        inner.dirty = false;
        inner.saved_at_ms = now_ms;
    }

    /// Records one call of `tool` admitted by the grant of `package` pinned to
    /// `certificate_sha256`.
    pub(crate) fn record(
        &self,
        package: &str,
        certificate_sha256: Option<&str>,
        tool: &str,
        now_ms: u64,
    ) {
        let now_hour = now_ms / HOUR_MS;
        let mut inner = self.lock();
        let key = Key {
            package: package.to_owned(),
            certificate_sha256: certificate_sha256.map(str::to_owned),
            tool: tool.to_owned(),
        };
        if !inner.entries.contains_key(&key) && inner.entries.len() >= MAX_ENTRIES {
            evict_least_recent(&mut inner.entries);
        }
        let entry = inner.entries.entry(key).or_default();
        entry.last_ms = entry.last_ms.max(now_ms);
        entry.prune(now_hour);
        match entry.hours.last_mut() {
            Some((hour, calls)) if *hour == now_hour => *calls += 1,
            _ => entry.hours.push((now_hour, 1)),
        }
        inner.dirty = true;
        if now_ms.saturating_sub(inner.saved_at_ms) >= SAVE_EVERY_MS {
            save(&mut inner, now_ms);
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
        let inner = self.lock();
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
        tools.sort_by(|a, b| {
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
    pub(crate) fn forget(&self, package: &str, certificate_sha256: Option<&str>, now_ms: u64) {
        let mut inner = self.lock();
        let before = inner.entries.len();
        inner.entries.retain(|key, _| {
            !(key.package == package
                && same_certificate(&key.certificate_sha256, certificate_sha256))
        });
        if inner.entries.len() != before {
            inner.dirty = true;
            save(&mut inner, now_ms);
        }
    }

    /// Saves pending changes now (the approval screen is reading, or the provider is going away).
    pub(crate) fn flush(&self, now_ms: u64) {
        save(&mut self.lock(), now_ms);
    }
}

impl Drop for AccessLog {
    fn drop(&mut self) {
        let inner = self.inner.get_mut().unwrap_or_else(PoisonError::into_inner);
        let now = inner.saved_at_ms;
        save(inner, now);
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

/// Writes the log if it changed and has a file; a failure is logged and retried at the next save.
fn save(inner: &mut Inner, now_ms: u64) {
    if !inner.dirty {
        return;
    }
    let Some(path) = inner.path.clone() else {
        return;
    };
    let file = File {
        version: FORMAT_VERSION,
        entries: inner
            .entries
            .iter()
            .map(|(k, e)| (k.clone(), e.clone()))
            .collect(),
    };
    let result = serde_json::to_vec(&file)
        .map_err(std::io::Error::other)
        .and_then(|bytes| {
            let tmp = path.with_extension(format!("json.tmp-{}", std::process::id()));
            fs::write(&tmp, bytes)?;
            fs::rename(&tmp, &path)
        });
    match result {
        Ok(()) => {
            inner.dirty = false;
            inner.saved_at_ms = now_ms;
        }
        Err(e) => log::warn!("CETP: could not save {}: {e}", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: u64 = 1_767_225_600_000;

    const AGENT: &str = "com.example.agent";

    #[test]
    fn counts_by_day_and_week_and_keeps_the_last_call() {
        let log = AccessLog::default();
        let a = Some("aa");
        log.record(AGENT, a, "search", T0);
        log.record(AGENT, a, "search", T0 + 1000);
        log.record(AGENT, a, "get", T0 + 2 * 24 * HOUR_MS);
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
        let log = AccessLog::default();
        log.record(AGENT, Some("aa"), "search", T0);
        log.record(AGENT, Some("bb"), "search", T0);
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
    fn stays_bounded() {
        let log = AccessLog::default();
        let a = Some("aa");
        for i in 0..(MAX_ENTRIES as u64 + 40) {
            log.record(AGENT, a, &format!("tool{i}"), T0 + i);
        }
        let s = log.summary("com.example.agent", None, T0 + 1000);
        assert_eq!(s.tools.len(), MAX_ENTRIES);
        assert!(
            s.tools.iter().all(|t| t.name != "tool0"),
            "least recent evicted"
        );
        // A week of calls every hour keeps WEEK_HOURS buckets in one entry.
        let log = AccessLog::default();
        for h in 0..(3 * WEEK_HOURS) {
            log.record(AGENT, a, "search", T0 + h * HOUR_MS);
        }
        let inner = log.lock();
        let entry = inner.entries.values().next().unwrap();
        assert_eq!(entry.hours.len() as u64, WEEK_HOURS);
    }

    #[test]
    fn saves_lazily_and_reloads_and_forgets() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(ACCESS_LOG_FILE_NAME);
        let log = AccessLog::default();
        log.attach(dir.path(), T0);
        let a = Some("aa");
        log.record(AGENT, a, "search", T0 + 1);
        assert!(!file.exists(), "a call alone does not write");
        log.record(AGENT, a, "search", T0 + SAVE_EVERY_MS);
        assert!(file.exists(), "saved once SAVE_EVERY_MS passed");
        log.record(AGENT, a, "search", T0 + SAVE_EVERY_MS + 1);
        log.flush(T0 + SAVE_EVERY_MS + 2);

        let reopened = AccessLog::default();
        reopened.attach(dir.path(), T0 + SAVE_EVERY_MS + 3);
        let s = reopened.summary("com.example.agent", Some("aa"), T0 + SAVE_EVERY_MS + 3);
        assert_eq!(s.calls_day, 3);

        reopened.forget("com.example.agent", Some("aa"), T0 + SAVE_EVERY_MS + 4);
        let again = AccessLog::default();
        again.attach(dir.path(), T0 + SAVE_EVERY_MS + 5);
        assert_eq!(
            again.summary("com.example.agent", None, T0 + SAVE_EVERY_MS + 5),
            AccessSummary::default()
        );
    }

    #[test]
    fn an_unreadable_file_starts_empty() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(ACCESS_LOG_FILE_NAME), b"{not json").unwrap();
        let log = AccessLog::default();
        log.attach(dir.path(), T0);
        log.record(AGENT, Some("aa"), "search", T0);
        assert_eq!(log.summary("com.example.agent", None, T0).calls_day, 1);
        log.flush(T0);
        let text = fs::read_to_string(dir.path().join(ACCESS_LOG_FILE_NAME)).unwrap();
        assert!(text.starts_with("{\"version\":1"), "{text}");
    }
}
