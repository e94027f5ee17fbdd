//! Which locks a thread takes, recorded in the crate's own tests: the proof that two callers'
//! calls take disjoint sets of exclusive locks. A no-op in every other build.

/// How a lock is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// Shared with other readers (a read lock): readers never wait for each other.
    Shared,
    /// Alone (a mutex, a write lock).
    Exclusive,
}

#[cfg(test)]
thread_local! {
    static TAKEN: std::cell::RefCell<Option<Vec<(usize, Kind)>>> =
        const { std::cell::RefCell::new(None) };
}

/// Notes that this thread takes `lock` as `kind`.
#[cfg(test)]
pub(crate) fn note<T: ?Sized>(lock: &T, kind: Kind) {
    let address = std::ptr::from_ref(lock).cast::<()>() as usize;
    TAKEN.with(|t| {
        if let Some(taken) = t.borrow_mut().as_mut() {
            taken.push((address, kind));
        }
    });
}

#[cfg(not(test))]
#[inline(always)]
pub(crate) fn note<T: ?Sized>(_lock: &T, _kind: Kind) {}

/// The locks this thread takes while `f` runs, by address.
#[cfg(test)]
pub(crate) fn record<R>(f: impl FnOnce() -> R) -> (R, Vec<(usize, Kind)>) {
    TAKEN.with(|t| *t.borrow_mut() = Some(Vec::new()));
    let result = f();
    let taken = TAKEN.with(|t| t.borrow_mut().take()).unwrap_or_default();
    (result, taken)
}
