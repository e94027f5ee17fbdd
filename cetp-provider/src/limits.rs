//! [`Limits`]: what one call may cost, and the per-caller count of calls in flight.

use std::sync::Arc;
use std::time::Duration;

use crate::auth::callers::{Busy, CallerEntry, Callers};
use crate::caller::Caller;
use crate::error::ToolError;

/// What one call may cost. Sizes are in **wire bytes**: what crosses Binder, where the Bundle's
/// keys and string values travel as UTF-16 (two bytes per UTF-16 code unit, so an ASCII text of
/// `n` bytes is `2n` wire bytes). Besides these, `error_message` is capped at 2,048 and
/// `resolution_hint` at 512 UTF-16 code units (cut, ending in `…`), `request_id` at 128
/// characters.
///
/// A provider runs tools on the app's Binder threads (about 16 per process, shared with
/// everything else the app serves), so one caller must not be able to occupy them all:
/// [`max_calls_in_flight_per_caller`](Self::max_calls_in_flight_per_caller) caps the calls one
/// UID has running at once (more answer `RATE_LIMITED` at once, before any tool work), and
/// [`call_deadline`](Self::call_deadline) bounds how long a call may run.
///
/// ```
/// use std::time::Duration;
/// use cetp_provider::Limits;
/// let limits = Limits::default();
/// assert_eq!(limits.max_args_bytes, 64 * 1024);
/// assert_eq!(limits.max_result_bytes, 256 * 1024);
/// assert_eq!(limits.max_calls_in_flight_per_caller, 4);
/// assert_eq!(limits.call_deadline, Duration::from_secs(5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest accepted `args` text, in wire bytes (UTF-16; default 64 KiB).
    pub max_args_bytes: usize,
    /// Largest reply a call may return, in wire bytes: every key and string value of the reply
    /// Bundle as UTF-16 (default 256 KiB, about 128 Ki ASCII characters of `data`). Binder's
    /// transaction buffer is 1 MiB per process, shared by all calls in flight, so a reply far
    /// below that keeps concurrent calls from failing silently.
    pub max_result_bytes: usize,
    /// How many `execute_tool` calls one caller (UID) may have running at once (default 4:
    /// an agent running a few tools in parallel, while a flood from one app leaves most of the
    /// Binder threads to everyone else). Calls over it answer `RATE_LIMITED` at once.
    pub max_calls_in_flight_per_caller: usize,
    /// How long a call may run before it answers `INTERNAL_ERROR` (default 5 s); tools see it
    /// as [`CallContext::deadline`](crate::CallContext::deadline).
    pub call_deadline: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_args_bytes: 64 * 1024,
            max_result_bytes: 256 * 1024,
            max_calls_in_flight_per_caller: 4,
            call_deadline: Duration::from_secs(5),
        }
    }
}

/// The calls each caller has running: a counter in the caller's own state
/// ([`Callers`]), so that callers never wait for each other to count. A slot is taken before
/// any other work and given back when the call ends, however it ends (the guard's drop).
#[derive(Debug)]
pub(crate) struct InFlight {
    max: usize,
}

/// One call in flight, with its caller's state; dropping it ends the call.
pub(crate) struct Slot {
    entry: Arc<CallerEntry>,
}

impl Slot {
    /// The caller's state, for the rest of the call.
    pub(crate) fn entry(&self) -> &CallerEntry {
        &self.entry
    }
}

impl InFlight {
    pub(crate) fn new(max: usize) -> Self {
        InFlight { max: max.max(1) }
    }

    /// A slot for `caller`, or `RATE_LIMITED` when it already runs `max` calls.
    pub(crate) fn enter(&self, callers: &Callers, caller: &Caller) -> Result<Slot, ToolError> {
        loop {
            let entry = callers.entry(caller);
            match entry.enter(self.max) {
                Ok(()) => return Ok(Slot { entry }),
                Err(Busy::Retired) => continue,
                Err(Busy::Full) => {
                    return Err(ToolError::rate_limited(format!(
                        "this app already has {} calls running here, the most one app may have at once; wait for an answer before calling again",
                        self.max
                    )));
                }
            }
        }
    }

    /// How many calls `caller` has running now.
    #[cfg(test)]
    pub(crate) fn running(&self, callers: &Callers, caller: &Caller) -> usize {
        callers.entry(caller).running()
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.entry.leave();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::auth::RateLimit;
    use crate::caller::CallerPackage;
    use crate::clock::ManualClock;

    fn table(max: usize) -> Callers {
        Callers::new(max, Arc::new(ManualClock::new(0)))
    }

    #[test]
    fn each_caller_has_its_own_slots_and_gets_them_back() {
        let callers = Callers::new(16, std::sync::Arc::new(crate::clock::SystemClock));
        let in_flight = InFlight::new(2);
        let hostile = Caller::app(10_666, "com.hostile");
        let agent = Caller::app(10_001, "com.agent");
        let a = in_flight.enter(&callers, &hostile).unwrap();
        let b = in_flight.enter(&callers, &hostile).unwrap();
        let refused = in_flight.enter(&callers, &hostile).err().unwrap();
        assert_eq!(refused.code(), crate::ErrorCode::RateLimited);
        assert!(
            in_flight.enter(&callers, &agent).is_ok(),
            "another app is not affected"
        );
        drop(a);
        assert_eq!(in_flight.running(&callers, &hostile), 1);
        let c = in_flight.enter(&callers, &hostile).unwrap();
        drop((b, c));
        assert_eq!(in_flight.running(&callers, &hostile), 0);
        assert_eq!(
            in_flight.running(&callers, &agent),
            0,
            "nothing left behind"
        );
    }

    /// An entry with calls in flight is never retired to make room, however old: its count
    /// would start again at zero, and the caller would get its slots back while its calls run.
    #[test]
    fn a_full_table_never_retires_a_caller_with_calls_in_flight() {
        let callers = table(2);
        let in_flight = InFlight::new(1);
        let running = Caller::app(1, "com.running");
        let slot = in_flight.enter(&callers, &running).unwrap();
        // 100 new callers pass through the table, each a full table's newcomer.
        for uid in 100..200 {
            drop(
                in_flight
                    .enter(&callers, &Caller::app(uid, "com.other"))
                    .unwrap(),
            );
        }
        assert!(callers.passes() >= 99, "{}", callers.passes());
        let refused = in_flight.enter(&callers, &running).err().unwrap();
        assert_eq!(refused.code(), crate::ErrorCode::RateLimited);
        assert_eq!(callers.entry(&running).running(), 1);
        drop(slot);
        assert!(in_flight.enter(&callers, &running).is_ok());
    }

    /// Callers without a UID (never through Binder: the MCP host, tests) are told apart by
    /// their package names, in any order: different packages never share slots or buckets.
    #[test]
    fn callers_without_a_uid_are_kept_apart_by_their_packages() {
        let callers = table(16);
        let in_flight = InFlight::new(1);
        let named = |names: &[&str]| {
            Caller::from_parts(
                None,
                names
                    .iter()
                    .map(|n| CallerPackage {
                        name: (*n).to_owned(),
                        certificate_sha256: Vec::new(),
                    })
                    .collect(),
            )
        };
        let one = in_flight
            .enter(&callers, &named(&["com.a", "com.b"]))
            .unwrap();
        for other in [
            named(&["com.c"]),
            named(&["com.a"]),
            named(&["com.a,com.b"]),
            Caller::unknown(),
        ] {
            assert!(in_flight.enter(&callers, &other).is_ok(), "{other}");
        }
        let same = in_flight.enter(&callers, &named(&["com.b", "com.a", "com.b"]));
        assert_eq!(
            same.err().map(|e| e.code()),
            Some(crate::ErrorCode::RateLimited),
            "the same packages in another order are the same caller"
        );
        drop(one);
        // Rate limits likewise.
        let limit = RateLimit::new(1, Duration::from_secs(10));
        let take = |caller: &Caller| callers.entry_at(caller, Some(0)).take(None, &limit, 0);
        assert!(matches!(take(&named(&["com.c"])), Some(Ok(()))));
        assert!(matches!(take(&named(&["com.d"])), Some(Ok(()))));
        assert!(matches!(take(&Caller::unknown()), Some(Ok(()))));
        assert!(matches!(take(&named(&["com.c"])), Some(Err(_))));
        assert!(matches!(take(&Caller::unknown()), Some(Err(_))));
    }
}
