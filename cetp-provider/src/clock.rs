//! [`Clock`]: where grant expiry, rate limits, pending requests and call deadlines read the
//! time.

use std::time::{SystemTime, UNIX_EPOCH};

/// A source of wall-clock time in milliseconds since the Unix epoch.
///
/// Grant expiry, rate limits, pending requests and call deadlines read the time only through
/// this trait, so tests can use a `ManualClock` (with the `test-util` feature) and stay
/// deterministic. The runtime calls [`Clock::now_ms`] without holding
/// any lock. A clock that goes backwards is tolerated: elapsed time is never negative.
///
/// ```
/// use cetp_provider::auth::{Clock, SystemClock};
/// assert!(SystemClock.now_ms() > 1_600_000_000_000);
/// ```
pub trait Clock: Send + Sync + 'static {
    /// The current time in milliseconds since 1970-01-01T00:00:00Z.
    fn now_ms(&self) -> u64;
}

/// The system's wall clock ([`SystemTime::now`]). The default.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        system_now_ms()
    }
}

pub(crate) fn system_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(any(test, feature = "test-util"))]
pub use manual::ManualClock;

#[cfg(any(test, feature = "test-util"))]
mod manual {
    use std::fmt;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    use super::Clock;

    /// A clock that only moves when told to. Clones share the same time, so keep one handle in the
    /// test and give a clone to [`Auth::clock`](crate::auth::Auth::clock).
    ///
    /// ```
    /// use std::time::Duration;
    /// use cetp_provider::auth::{Clock, ManualClock};
    ///
    /// let clock = ManualClock::new(1_000);
    /// let shared = clock.clone();
    /// clock.advance(Duration::from_secs(2));
    /// assert_eq!(shared.now_ms(), 3_000);
    /// clock.set_ms(10);
    /// assert_eq!(shared.now_ms(), 10);
    /// ```
    #[derive(Clone, Default)]
    pub struct ManualClock {
        now: Arc<AtomicU64>,
    }

    impl ManualClock {
        /// A clock showing `start_ms` milliseconds since the epoch.
        pub fn new(start_ms: u64) -> Self {
            ManualClock {
                now: Arc::new(AtomicU64::new(start_ms)),
            }
        }

        /// Moves the clock forward by `by` (saturating).
        pub fn advance(&self, by: Duration) {
            let by = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
            let _ = self
                .now
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| {
                    Some(now.saturating_add(by))
                });
        }

        /// Sets the clock to `now_ms` (it may go backwards).
        pub fn set_ms(&self, now_ms: u64) {
            self.now.store(now_ms, Ordering::SeqCst);
        }
    }

    impl Clock for ManualClock {
        fn now_ms(&self) -> u64 {
            self.now.load(Ordering::SeqCst)
        }
    }

    impl fmt::Debug for ManualClock {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_tuple("ManualClock").field(&self.now_ms()).finish()
        }
    }
}
