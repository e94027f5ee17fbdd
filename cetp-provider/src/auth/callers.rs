//! What the provider keeps per caller, found without a process-wide lock: [`Callers`].
//!
//! One [`CallerEntry`] per caller (by UID, else by package set) holds everything a call of that
//! caller changes: its calls in flight (an atomic counter), its rate-limit buckets (a mutex of
//! its own), its access-log buffer, and what the grant store said about it at the store's last
//! change (a [`GrantView`], so an approved call reads nothing of the store's shared state). The entries live in [`SHARDS`] maps, each behind a
//! read-write lock that a known caller's call takes for reading only (readers never wait for
//! each other); a write lock is taken when a caller is seen for the first time, or when the
//! table is full and idle entries are dropped. So two callers' calls never wait for the same
//! lock, and one caller's own calls wait only for each other.
//!
//! The table is bounded ([`super::rate::MAX_TRACKED_BUCKETS`] entries): when it is full,
//! entries whose buckets have all refilled (dropping them loses nothing) go first, then the
//! least recently used, until a [batch](Callers::batch) of entries is free, so the pass that
//! takes every shard's lock is paid once for that many new callers, not once per new caller.
//! An entry with calls in flight is never dropped (its count would start again at zero): it is
//! retired under its own lock, and a call that finds its entry retired looks it up again.
//!
//! A caller is known by its UID. A caller without one never comes through Binder (the platform
//! always names the calling UID); it is an in-process client (the MCP host, a test), known by
//! its set of package names, in any order: two such callers naming different packages never
//! share a rate limit or slots, and every [`Caller::unknown`] is one caller.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, RwLock};
use std::time::Duration;

use super::GrantView;
use super::access_log::LogBuffer;
use super::rate::{Bucket, RateLimit};
use super::trace;
use crate::caller::Caller;
use crate::clock::Clock;

/// How many maps the entries are spread over.
pub(crate) const SHARDS: usize = 64;

/// Set in [`CallerEntry::in_flight`] once the entry left the table.
const RETIRED: usize = 1 << (usize::BITS - 1);

/// Who a caller is for its limits: buckets and slots are per UID (all packages of a shared
/// UID share them), else per set of package names (sorted, without repeats; a caller that never
/// came through Binder, see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum CallerKey {
    Uid(u32),
    Packages(Box<[String]>),
}

impl CallerKey {
    fn of(caller: &Caller) -> CallerKey {
        match caller.uid() {
            Some(uid) => CallerKey::Uid(uid),
            None => {
                let mut names: Vec<String> = caller.package_names().map(str::to_owned).collect();
                crate::sort::sort_by(&mut names, Ord::cmp);
                names.dedup();
                CallerKey::Packages(names.into_boxed_slice())
            }
        }
    }

    fn shard(&self) -> usize {
        let hash = match self {
            // Fibonacci hashing: consecutive UIDs (apps installed one after another) spread.
            CallerKey::Uid(uid) => u64::from(*uid).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            // FNV-1a over the names, each ended by a zero byte.
            CallerKey::Packages(names) => names
                .iter()
                .flat_map(|n| n.bytes().chain([0]))
                .fold(0xCBF2_9CE4_8422_2325, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3)
                }),
        };
        (hash >> 58) as usize % SHARDS
    }
}

/// One caller's state (see the [module docs](self)).
#[derive(Debug, Default)]
pub(crate) struct CallerEntry {
    /// Calls running now; [`RETIRED`] once the entry left the table.
    in_flight: AtomicUsize,
    /// The last time a bucket was used, in ms (least recently used goes first).
    last_ms: AtomicU64,
    buckets: Mutex<Vec<(Option<String>, Bucket)>>,
    log: OnceLock<Arc<LogBuffer>>,
    /// What the grant store said about the caller at its last change.
    grants: Mutex<Option<Arc<GrantView>>>,
}

/// Why a slot was not taken.
pub(crate) enum Busy {
    /// The caller runs `max` calls already.
    Full,
    /// The entry left the table: look the caller up again.
    Retired,
}

impl CallerEntry {
    fn buckets(&self) -> MutexGuard<'_, Vec<(Option<String>, Bucket)>> {
        trace::note(&self.buckets, trace::Kind::Exclusive);
        self.buckets.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn is_retired(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) & RETIRED != 0
    }

    /// One more call in flight, unless `max` run already.
    pub(crate) fn enter(&self, max: usize) -> Result<(), Busy> {
        let mut now = self.in_flight.load(Ordering::Relaxed);
        loop {
            if now & RETIRED != 0 {
                return Err(Busy::Retired);
            }
            if now >= max {
                return Err(Busy::Full);
            }
            match self.in_flight.compare_exchange_weak(
                now,
                now + 1,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Ok(()),
                Err(seen) => now = seen,
            }
        }
    }

    /// One call fewer in flight.
    pub(crate) fn leave(&self) {
        self.in_flight.fetch_sub(1, Ordering::Release);
    }

    /// Calls running now.
    #[cfg(test)]
    pub(crate) fn running(&self) -> usize {
        self.in_flight.load(Ordering::Acquire) & !RETIRED
    }

    /// Takes one token from this caller's bucket for `limit` (`tool` is `None` for the
    /// provider's shared bucket). `Err` holds the wait until a token is back; `None`: the entry
    /// was retired, nothing was taken.
    pub(crate) fn take(
        &self,
        tool: Option<&str>,
        limit: &RateLimit,
        now_ms: u64,
    ) -> Option<Result<(), Duration>> {
        let mut buckets = self.buckets();
        if self.is_retired() {
            return None;
        }
        self.last_ms.fetch_max(now_ms, Ordering::Relaxed);
        let index = match buckets.iter().position(|(name, _)| name.as_deref() == tool) {
            Some(index) => index,
            None => {
                buckets.push((tool.map(str::to_owned), Bucket::full(limit, now_ms)));
                buckets.len() - 1
            }
        };
        Some(buckets[index].1.take(limit, now_ms))
    }

    /// The caller's view of the grant store kept by the last call that made one.
    pub(crate) fn grant_view(&self) -> Option<Arc<GrantView>> {
        trace::note(&self.grants, trace::Kind::Exclusive);
        self.grants
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Keeps `view` for the caller's next calls.
    pub(crate) fn keep_grant_view(&self, view: Arc<GrantView>) {
        trace::note(&self.grants, trace::Kind::Exclusive);
        *self.grants.lock().unwrap_or_else(PoisonError::into_inner) = Some(view);
    }

    /// The caller's access-log buffer, made by `make` the first time.
    pub(crate) fn log_buffer(&self, make: impl FnOnce() -> Arc<LogBuffer>) -> &LogBuffer {
        self.log.get_or_init(make)
    }

    /// How many buckets it has.
    #[cfg(test)]
    fn bucket_count(&self) -> usize {
        self.buckets().len()
    }

    /// Retires the entry if no call is in flight and, with `idle_only`, every bucket has
    /// refilled. Under the buckets' lock, so a `take` either happened before or sees it.
    fn retire(&self, idle_only: bool, now_ms: u64) -> bool {
        let buckets = self.buckets();
        if idle_only && !buckets.iter().all(|(_, b)| b.is_full(now_ms)) {
            return false;
        }
        self.in_flight
            .compare_exchange(0, RETIRED, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    }
}

/// A cache line of its own per shard, so that callers in different shards share nothing.
#[derive(Debug, Default)]
#[repr(align(128))]
struct Shard(RwLock<HashMap<CallerKey, Arc<CallerEntry>>>);

/// The per-caller state of one provider (see the [module docs](self)).
pub(crate) struct Callers {
    shards: Box<[Shard]>,
    entries: AtomicUsize,
    max: usize,
    clock: Arc<dyn Clock>,
    /// How many times a full table was cleared ([`Callers::make_room`]).
    passes: AtomicUsize,
}

impl std::fmt::Debug for Callers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callers")
            .field("entries", &self.entries)
            .field("max", &self.max)
            .finish_non_exhaustive()
    }
}

impl Callers {
    /// A table of at most `max` entries; `clock` says which buckets have refilled when it is
    /// full.
    pub(crate) fn new(max: usize, clock: Arc<dyn Clock>) -> Callers {
        Callers {
            shards: (0..SHARDS).map(|_| Shard::default()).collect(),
            entries: AtomicUsize::new(0),
            max: max.max(1),
            clock,
            passes: AtomicUsize::new(0),
        }
    }

    /// How many entries a full table frees at least when a new caller arrives: an eighth of
    /// the table (128 of 1,024), at least one.
    pub(crate) fn batch(&self) -> usize {
        (self.max / 8).max(1)
    }

    /// `caller`'s entry, made if it has none. A known caller's lookup takes its shard's lock
    /// for reading only.
    pub(crate) fn entry(&self, caller: &Caller) -> Arc<CallerEntry> {
        self.entry_at(caller, None)
    }

    /// [`entry`](Self::entry), with the time to judge idle buckets by if the table is full
    /// (`None`: the clock's).
    pub(crate) fn entry_at(&self, caller: &Caller, now_ms: Option<u64>) -> Arc<CallerEntry> {
        let key = CallerKey::of(caller);
        let shard = &self.shards[key.shard()].0;
        {
            trace::note(shard, trace::Kind::Shared);
            let map = shard.read().unwrap_or_else(PoisonError::into_inner);
            if let Some(entry) = map.get(&key).filter(|e| !e.is_retired()) {
                return Arc::clone(entry);
            }
        }
        self.insert(key, now_ms)
    }

    /// The slow path: a caller seen for the first time (or whose entry was retired).
    fn insert(&self, key: CallerKey, now_ms: Option<u64>) -> Arc<CallerEntry> {
        if self.entries.load(Ordering::Relaxed) >= self.max {
            self.make_room(now_ms.unwrap_or_else(|| self.clock.now_ms()));
        }
        let shard = &self.shards[key.shard()].0;
        trace::note(shard, trace::Kind::Exclusive);
        let mut map = shard.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = map.get(&key) {
            if !entry.is_retired() {
                return Arc::clone(entry);
            }
            map.remove(&key);
            self.entries.fetch_sub(1, Ordering::Relaxed);
        }
        let entry = Arc::new(CallerEntry::default());
        map.insert(key, Arc::clone(&entry));
        self.entries.fetch_add(1, Ordering::Relaxed);
        entry
    }

    /// Drops the entries whose buckets have all refilled, then the least recently used until
    /// [`batch`](Self::batch) entries are free; never one with calls in flight. Takes every
    /// shard's write lock: only when a new caller arrives at a full table, and then the next
    /// `batch - 1` new callers find room without it.
    fn make_room(&self, now_ms: u64) {
        let mut maps: Vec<_> = self
            .shards
            .iter()
            .map(|s| s.0.write().unwrap_or_else(PoisonError::into_inner))
            .collect();
        let entries = self.entries.load(Ordering::Relaxed);
        if entries < self.max {
            // Another new caller made room while this one waited for the locks.
            return;
        }
        self.passes.fetch_add(1, Ordering::Relaxed);
        let mut removed = 0;
        for map in &mut maps {
            map.retain(|_, entry| {
                let keep = !entry.retire(true, now_ms);
                removed += usize::from(!keep);
                keep
            });
        }
        let target = self.max - self.batch();
        let mut left = entries - removed;
        if left > target {
            let mut oldest: Vec<(u64, usize, CallerKey)> = maps
                .iter()
                .enumerate()
                .flat_map(|(i, map)| map.iter().map(move |(k, e)| (i, k, e)))
                .filter(|(_, _, e)| !e.is_retired() && e.in_flight.load(Ordering::Relaxed) == 0)
                .map(|(i, k, e)| (e.last_ms.load(Ordering::Relaxed), i, k.clone()))
                .collect();
            crate::sort::sort_by_key(&mut oldest, |(last_ms, _, _)| *last_ms);
            for (_, shard, key) in oldest {
                if left <= target {
                    break;
                }
                // A call that entered since it was listed keeps the entry.
                if maps[shard]
                    .get(&key)
                    .is_some_and(|e| e.retire(false, now_ms))
                {
                    maps[shard].remove(&key);
                    removed += 1;
                    left -= 1;
                }
            }
        }
        self.entries.fetch_sub(removed, Ordering::Relaxed);
    }

    /// How many times a full table was cleared.
    #[cfg(test)]
    pub(crate) fn passes(&self) -> usize {
        self.passes.load(Ordering::Relaxed)
    }

    /// How many callers the table holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.load(Ordering::Relaxed)
    }

    /// How many buckets the table holds.
    #[cfg(test)]
    pub(crate) fn tracked(&self) -> usize {
        self.shards
            .iter()
            .map(|s| {
                s.0.read()
                    .unwrap_or_else(PoisonError::into_inner)
                    .values()
                    .map(|e| e.bucket_count())
                    .sum::<usize>()
            })
            .sum()
    }
}

/// The rate limiter of one provider: the token buckets of [`rate`](super::rate), kept in each
/// caller's entry of [`Callers`].
#[derive(Debug)]
pub(crate) struct RateLimiter {
    callers: Callers,
}

impl RateLimiter {
    pub(crate) fn new(max_buckets: usize, clock: Arc<dyn Clock>) -> Self {
        RateLimiter {
            callers: Callers::new(max_buckets, clock),
        }
    }

    /// The per-caller state the buckets live in.
    pub(crate) fn callers(&self) -> &Callers {
        &self.callers
    }

    /// Takes one token from `caller`'s bucket for `limit` (`tool` is `None` for the provider's
    /// shared bucket). `Err` holds the wait until a token is back.
    pub(crate) fn take(
        &self,
        caller: &Caller,
        tool: Option<&str>,
        limit: &RateLimit,
        now_ms: u64,
    ) -> Result<(), Duration> {
        loop {
            let entry = self.callers.entry_at(caller, Some(now_ms));
            if let Some(taken) = entry.take(tool, limit, now_ms) {
                return taken;
            }
        }
    }

    #[cfg(test)]
    pub(crate) fn tracked(&self) -> usize {
        self.callers.tracked()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::clock::ManualClock;

    fn table(max: usize) -> Callers {
        Callers::new(max, Arc::new(ManualClock::new(0)))
    }

    /// A caller with one token taken from a bucket that refills only after ten seconds: not
    /// idle, so only the least-recently-used rule can drop it.
    fn busy_caller(callers: &Callers, uid: u32, now_ms: u64) {
        let limit = RateLimit::new(1, Duration::from_secs(10));
        let entry = callers.entry_at(&Caller::app(uid, "x"), Some(now_ms));
        assert!(matches!(entry.take(None, &limit, now_ms), Some(Ok(()))));
    }

    /// A full table clears a batch at once: one pass over every shard's lock, then the next
    /// `batch - 1` new callers find room without one. Counted in passes, not in time.
    #[test]
    fn a_full_table_makes_room_for_a_batch_of_new_callers_in_one_pass() {
        let callers = table(64);
        let batch = callers.batch();
        assert_eq!(batch, 8);
        for uid in 0..64 {
            busy_caller(&callers, uid, u64::from(uid));
        }
        assert_eq!((callers.len(), callers.passes()), (64, 0));
        busy_caller(&callers, 1_000, 100);
        assert_eq!(callers.passes(), 1);
        for uid in 1_001..1_000 + batch as u32 {
            busy_caller(&callers, uid, 100);
        }
        assert_eq!(
            callers.passes(),
            1,
            "new callers after the first of a batch"
        );
        assert_eq!(callers.len(), 64);
        busy_caller(&callers, 2_000, 100);
        assert_eq!(callers.passes(), 2);
        // Always the least recently used went: the first 2 × 8 callers (0..16).
        let kept = |uid: u32| {
            callers.shards[CallerKey::Uid(uid).shard()]
                .0
                .read()
                .unwrap()
                .contains_key(&CallerKey::Uid(uid))
        };
        assert!((0..16).all(|uid| !kept(uid)));
        assert!((16..64).all(kept));
        // 1,024 callers churning through a table of 1,024: one pass per 128 new callers.
        let callers = table(1_024);
        for uid in 0..1_024 + 1_280 {
            busy_caller(&callers, uid, u64::from(uid));
        }
        assert_eq!(callers.passes(), 10);
    }
}
