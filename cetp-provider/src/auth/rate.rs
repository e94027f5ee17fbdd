//! Per-caller token buckets: [`RateLimit`].

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use crate::caller::Caller;

/// A token bucket: up to `burst` calls at once, then one more every `refill_every`.
///
/// Each caller (by UID) gets its own bucket per limit: one shared by every tool without a limit
/// of its own, and one per tool that has one. A call over the limit gets `RATE_LIMITED` with
/// the time to wait ("retry in 2 s").
///
/// ```
/// use std::time::Duration;
/// use cetp_provider::auth::RateLimit;
///
/// let limit = RateLimit::per_minute(30); // bursts of 30, then one every 2 s
/// assert_eq!(limit, RateLimit::new(30, Duration::from_secs(2)));
/// assert_eq!(limit.burst(), 30);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    burst: u32,
    refill_every: Duration,
}

impl RateLimit {
    /// Up to `burst` calls at once, then one call every `refill_every`. `burst` must be at least
    /// 1 and `refill_every` at least 1 ms ([`ProviderBuilder::build`](crate::ProviderBuilder::build)
    /// checks).
    pub const fn new(burst: u32, refill_every: Duration) -> Self {
        RateLimit {
            burst,
            refill_every,
        }
    }

    /// `n` calls per second, in bursts of up to `n`.
    pub fn per_second(n: u32) -> Self {
        Self::new(n, Duration::from_secs(1) / n.max(1))
    }

    /// `n` calls per minute, in bursts of up to `n`.
    pub fn per_minute(n: u32) -> Self {
        Self::new(n, Duration::from_secs(60) / n.max(1))
    }

    /// The largest burst.
    pub fn burst(&self) -> u32 {
        self.burst
    }

    /// The time one call's token takes to come back.
    pub fn refill_every(&self) -> Duration {
        self.refill_every
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        if self.burst == 0 {
            return Err("a rate limit needs a burst of at least 1".to_owned());
        }
        if self.refill_every < Duration::from_millis(1) {
            return Err("a rate limit needs a refill interval of at least 1 ms".to_owned());
        }
        Ok(())
    }

    fn cost_ms(&self) -> u64 {
        u64::try_from(self.refill_every.as_millis())
            .unwrap_or(u64::MAX)
            .max(1)
    }

    fn capacity_ms(&self) -> u64 {
        self.cost_ms().saturating_mul(u64::from(self.burst))
    }
}

/// The bucket of refused calls, apart from every tool's (no tool name contains a NUL).
pub(crate) const REFUSED_BUCKET: &str = "\0refused";

/// How many callers' buckets are kept; beyond that idle (full) buckets are dropped first, then
/// the least recently used.
pub(crate) const MAX_TRACKED_BUCKETS: usize = 1024;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    /// Credit in ms: each call costs `refill_every`; time adds credit one to one.
    credit_ms: u64,
    capacity_ms: u64,
    last_ms: u64,
}

/// The buckets of one provider.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    buckets: Mutex<HashMap<(String, Option<String>), Bucket>>,
    max_buckets: usize,
}

impl RateLimiter {
    pub(crate) fn new(max_buckets: usize) -> Self {
        RateLimiter {
            buckets: Mutex::new(HashMap::new()),
            max_buckets: max_buckets.max(1),
        }
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
        let key = (caller_key(caller), tool.map(str::to_owned));
        let cost = limit.cost_ms();
        let capacity = limit.capacity_ms();
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if !buckets.contains_key(&key) && buckets.len() >= self.max_buckets {
            evict(&mut buckets, self.max_buckets, now_ms);
        }
        let bucket = buckets.entry(key).or_insert(Bucket {
            credit_ms: capacity,
            capacity_ms: capacity,
            last_ms: now_ms,
        });
        bucket.capacity_ms = capacity;
        let elapsed = now_ms.saturating_sub(bucket.last_ms);
        bucket.credit_ms = bucket.credit_ms.saturating_add(elapsed).min(capacity);
        bucket.last_ms = bucket.last_ms.max(now_ms);
        if bucket.credit_ms >= cost {
            bucket.credit_ms -= cost;
            Ok(())
        } else {
            Err(Duration::from_millis(cost - bucket.credit_ms))
        }
    }

    #[cfg(test)]
    pub(crate) fn tracked(&self) -> usize {
        self.buckets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// Makes room for one more bucket: drops buckets that have refilled completely (dropping them
/// loses nothing), then, if still full, the least recently used.
fn evict(buckets: &mut HashMap<(String, Option<String>), Bucket>, max: usize, now_ms: u64) {
    buckets.retain(|_, b| {
        b.credit_ms.saturating_add(now_ms.saturating_sub(b.last_ms)) < b.capacity_ms
    });
    while buckets.len() >= max {
        let Some(oldest) = buckets
            .iter()
            .min_by_key(|(_, b)| b.last_ms)
            .map(|(k, _)| k.clone())
        else {
            break;
        };
        buckets.remove(&oldest);
    }
}

/// Buckets are per UID (all packages of a shared UID share them), else per package set.
fn caller_key(caller: &Caller) -> String {
    match caller.uid() {
        Some(uid) => format!("uid:{uid}"),
        None => {
            let mut names: Vec<&str> = caller.package_names().collect();
            names.sort_unstable();
            format!("pkg:{}", names.join(","))
        }
    }
}

/// "retry in 2 s": whole seconds, rounded up, at least 1.
pub(crate) fn retry_text(wait: Duration) -> String {
    let secs = wait.as_millis().div_ceil(1000).max(1);
    format!("retry in {secs} s")
}
