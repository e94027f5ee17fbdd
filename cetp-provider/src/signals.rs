//! [`CallSignals`]: what passes between a running tool and whoever waits for it besides the
//! reply: the tool's [`Progress`] out, a cancellation request in.
//!
//! A host that can report progress or cancel a call (CETP v2's operations, the MCP bridge) gives
//! the call its signals ([`ToolCall::signals`](crate::host::ToolCall::signals)); the tool sees
//! them through [`CallContext::progress`](crate::CallContext::progress) and
//! [`CallContext::is_cancelled`](crate::CallContext::is_cancelled). A call without them (CETP
//! v1, Apex, a hand-made context) reports nowhere and is never cancelled.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// The longest progress message kept, in characters (a longer one is cut).
pub(crate) const MAX_PROGRESS_MESSAGE_CHARS: usize = 200;

/// How far a tool has come: `current` of `total` (when it knows the total), and a short
/// message for people ("Searching notes"). Display data only: it never decides an outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Progress {
    /// Work done so far, in the tool's own unit.
    pub current: u64,
    /// All the work, when the tool knows it.
    pub total: Option<u64>,
    /// What the tool is doing, when it said.
    pub message: Option<String>,
}

type Observer = Box<dyn Fn(&Progress) + Send + Sync>;

/// The progress and cancellation of one call in flight. Shared (`Arc`) between the host and
/// the tool's [`CallContext`](crate::CallContext); each call has its own, so callers never
/// wait for each other here.
#[derive(Default)]
pub struct CallSignals {
    cancelled: AtomicBool,
    progress: Mutex<Option<Progress>>,
    observer: Option<Observer>,
}

impl fmt::Debug for CallSignals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallSignals")
            .field("cancelled", &self.is_cancelled())
            .field("progress", &self.progress())
            .finish_non_exhaustive()
    }
}

impl CallSignals {
    /// Signals nobody observes but by asking ([`progress`](Self::progress)).
    pub fn new() -> Self {
        CallSignals::default()
    }

    /// Signals whose every progress report is also handed to `observer` (on the tool's thread,
    /// so it must be quick: the MCP bridge queues a notification).
    pub fn observed(observer: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        CallSignals {
            observer: Some(Box::new(observer)),
            ..CallSignals::default()
        }
    }

    /// Asks the tool to stop. Cooperative: the tool sees it at its next check, and the call
    /// ends as cancelled whatever it returns (as a call past its deadline ends as such).
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// The last progress the tool reported, if any.
    pub fn progress(&self) -> Option<Progress> {
        self.progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Records the tool's progress (the message cut to [`MAX_PROGRESS_MESSAGE_CHARS`], its
    /// control characters dropped) and tells the observer.
    pub(crate) fn report(&self, current: u64, total: Option<u64>, message: Option<&str>) {
        let progress = Progress {
            current,
            total,
            message: message.map(|text| {
                text.chars()
                    .filter(|c| !c.is_control())
                    .take(MAX_PROGRESS_MESSAGE_CHARS)
                    .collect()
            }),
        };
        if let Some(observer) = &self.observer {
            observer(&progress);
        }
        *self.progress.lock().unwrap_or_else(PoisonError::into_inner) = Some(progress);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicU64;

    use super::*;

    #[test]
    fn progress_is_kept_cut_and_observed() {
        let seen = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&seen);
        let signals = CallSignals::observed(move |p| counter.store(p.current, Ordering::SeqCst));
        assert_eq!(signals.progress(), None);
        let long = format!("a\nb{}", "x".repeat(500));
        signals.report(3, Some(10), Some(&long));
        let progress = signals.progress().unwrap();
        assert_eq!((progress.current, progress.total), (3, Some(10)));
        let message = progress.message.unwrap();
        assert_eq!(message.chars().count(), MAX_PROGRESS_MESSAGE_CHARS);
        assert!(message.starts_with("abx"), "{message}");
        assert_eq!(seen.load(Ordering::SeqCst), 3);
        assert!(!signals.is_cancelled());
        signals.cancel();
        assert!(signals.is_cancelled());
    }
}
