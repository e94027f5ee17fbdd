//! Per-caller token buckets: [`RateLimit`].

use std::time::Duration;

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

    pub(crate) fn cost_ms(&self) -> u64 {
        u64::try_from(self.refill_every.as_millis())
            .unwrap_or(u64::MAX)
            .max(1)
    }

    pub(crate) fn capacity_ms(&self) -> u64 {
        self.cost_ms().saturating_mul(u64::from(self.burst))
    }
}

/// The bucket of refused calls, apart from every tool's (no tool name contains a NUL).
pub(crate) const REFUSED_BUCKET: &str = "\0refused";

/// How many callers' buckets are kept; beyond that idle (full) buckets are dropped first, then
/// the least recently used.
pub(crate) const MAX_TRACKED_BUCKETS: usize = 1024;

/// One caller's bucket for one limit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bucket {
    /// Credit in ms: each call costs `refill_every`; time adds credit one to one.
    credit_ms: u64,
    capacity_ms: u64,
    last_ms: u64,
}

impl Bucket {
    /// A bucket with every token in it.
    pub(crate) fn full(limit: &RateLimit, now_ms: u64) -> Bucket {
        Bucket {
            credit_ms: limit.capacity_ms(),
            capacity_ms: limit.capacity_ms(),
            last_ms: now_ms,
        }
    }

    /// Takes one token; `Err` holds the wait until one is back.
    pub(crate) fn take(&mut self, limit: &RateLimit, now_ms: u64) -> Result<(), Duration> {
        let cost = limit.cost_ms();
        let capacity = limit.capacity_ms();
        self.capacity_ms = capacity;
        let elapsed = now_ms.saturating_sub(self.last_ms);
        self.credit_ms = self.credit_ms.saturating_add(elapsed).min(capacity);
        self.last_ms = self.last_ms.max(now_ms);
        if self.credit_ms >= cost {
            self.credit_ms -= cost;
            Ok(())
        } else {
            Err(Duration::from_millis(cost - self.credit_ms))
        }
    }

    /// Whether it has refilled completely by `now_ms` (dropping it then loses nothing).
    pub(crate) fn is_full(&self, now_ms: u64) -> bool {
        self.credit_ms
            .saturating_add(now_ms.saturating_sub(self.last_ms))
            >= self.capacity_ms
    }
}

/// "retry in 2 s": whole seconds, rounded up, at least 1.
pub(crate) fn retry_text(wait: Duration) -> String {
    let secs = wait.as_millis().div_ceil(1000).max(1);
    format!("retry in {secs} s")
}
