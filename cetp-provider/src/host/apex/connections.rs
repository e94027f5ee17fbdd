//! The Apex hosts that activated the plugin: one entry per UID, bounded and aged, for the
//! consent dialog's state and for running the lifecycle hooks once per connection.

use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::caller::Caller;

/// How many hosts are remembered at most. When the table is full, the least recently seen
/// inactive host makes room for a newcomer; a host with open bindings is never dropped, and a
/// newcomer finding only such hosts is not counted (its hooks do not run). Hosts that hold no
/// grant take at most `MAX_TRACKED_AGENTS - 8` entries: the last 8 are kept for hosts the user
/// (or the developer's allowlist) let in.
pub const MAX_TRACKED_AGENTS: usize = 32;

/// Entries only a host holding a grant may take (see [`MAX_TRACKED_AGENTS`]).
const RESERVED_FOR_GRANTED: usize = 8;

/// How long an inactive host is remembered, in ms (a day).
const FORGET_INACTIVE_AFTER_MS: u64 = 24 * 60 * 60 * 1000;

/// One host (one UID) that called `onActivate`, as the admin state lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentConnection {
    /// Which host interface (`"apex"`).
    pub host: String,
    /// The host's UID, if known.
    pub uid: Option<u32>,
    /// The package names under that UID, as last seen.
    pub packages: Vec<String>,
    /// How many times it called `onActivate`.
    pub activations: u64,
    /// Activations not yet matched by `onDeactivate` (bindings currently open).
    pub active: u64,
    /// When it was last seen, in ms since the Unix epoch (the provider's clock).
    pub last_seen_ms: u64,
}

/// What an update did to a host's connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Transition {
    /// Its first open binding: the `on_activate` hook runs.
    Connected,
    /// Its last open binding closed: the `on_deactivate` hook runs.
    Disconnected,
    /// Nothing the hooks care about.
    Unchanged,
}

/// One tracked host: what the admin state shows, the caller its hooks get, and whether it
/// held a grant when it was first counted.
#[derive(Debug)]
struct Tracked {
    connection: AgentConnection,
    caller: Caller,
    granted: bool,
}

#[derive(Debug, Default)]
pub(super) struct Connections {
    hosts: Mutex<Vec<Tracked>>,
}

impl Connections {
    /// Counts an activation (or a deactivation) of `caller` at `now_ms`; `granted` says, for a
    /// host not yet counted, whether it holds a grant (asked only then).
    pub(super) fn update(
        &self,
        caller: &Caller,
        activate: bool,
        now_ms: u64,
        granted: impl FnOnce() -> bool,
    ) -> Transition {
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        forget_stale(&mut hosts, now_ms);
        let index = match hosts.iter().position(|h| h.connection.uid == caller.uid()) {
            Some(index) => index,
            // A deactivation of a host never counted, or a caller without a package (an
            // isolated process, a UID the platform names no app for): no slot, no hook.
            None if !activate || caller.package_names().next().is_none() => {
                return Transition::Unchanged;
            }
            None => {
                let granted = granted();
                let ungranted = hosts.iter().filter(|h| !h.granted).count();
                let full = if granted {
                    hosts.len() >= MAX_TRACKED_AGENTS
                } else {
                    hosts.len() >= MAX_TRACKED_AGENTS
                        || ungranted >= MAX_TRACKED_AGENTS - RESERVED_FOR_GRANTED
                };
                if full {
                    // Only an inactive host makes room (the least recently seen; for a host
                    // without a grant, one without a grant, as only that frees its kind's
                    // room); a full table of open bindings keeps them all and the newcomer is
                    // not counted, so its hooks do not run (each activation would otherwise
                    // look like a first one).
                    let Some(oldest) = hosts
                        .iter()
                        .enumerate()
                        .filter(|(_, h)| h.connection.active == 0 && (granted || !h.granted))
                        .min_by_key(|(_, h)| (h.granted, h.connection.last_seen_ms))
                        .map(|(i, _)| i)
                    else {
                        return Transition::Unchanged;
                    };
                    hosts.remove(oldest);
                }
                hosts.push(Tracked {
                    connection: AgentConnection {
                        host: "apex".to_owned(),
                        uid: caller.uid(),
                        packages: Vec::new(),
                        activations: 0,
                        active: 0,
                        last_seen_ms: now_ms,
                    },
                    caller: caller.clone(),
                    granted,
                });
                hosts.len() - 1
            }
        };
        let tracked = &mut hosts[index];
        tracked.caller = caller.clone();
        let entry = &mut tracked.connection;
        entry.last_seen_ms = now_ms;
        entry.packages = caller.package_names().map(str::to_owned).collect();
        if activate {
            entry.activations += 1;
            entry.active += 1;
            if entry.active == 1 {
                return Transition::Connected;
            }
        } else if entry.active > 0 {
            entry.active -= 1;
            if entry.active == 0 {
                return Transition::Disconnected;
            }
        }
        Transition::Unchanged
    }

    /// Every binding closed at once (the Service's last client unbound, or died): each host
    /// with open bindings has none now, and the callers whose `on_deactivate` hook runs are
    /// returned. Their entries stay listed, inactive: the first to make room.
    pub(super) fn unbind_all(&self, now_ms: u64) -> Vec<Caller> {
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        let mut closed = Vec::new();
        for host in hosts.iter_mut().filter(|h| h.connection.active > 0) {
            host.connection.active = 0;
            host.connection.last_seen_ms = now_ms;
            closed.push(host.caller.clone());
        }
        closed
    }

    /// The tracked hosts, most recently seen first.
    pub(super) fn snapshot(&self, now_ms: u64) -> Vec<AgentConnection> {
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        forget_stale(&mut hosts, now_ms);
        let mut out: Vec<AgentConnection> = hosts.iter().map(|h| h.connection.clone()).collect();
        crate::sort::sort_by_key(&mut out, |h| std::cmp::Reverse(h.last_seen_ms));
        out
    }
}

fn forget_stale(hosts: &mut Vec<Tracked>, now_ms: u64) {
    hosts.retain(|h| {
        let h = &h.connection;
        h.active > 0 || now_ms.saturating_sub(h.last_seen_ms) < FORGET_INACTIVE_AFTER_MS
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yes() -> bool {
        true
    }

    fn no() -> bool {
        false
    }

    fn stranger(n: u32) -> Caller {
        Caller::app(20_000 + n, format!("com.stranger{n}"))
    }

    /// Hosts without a grant that activate and never deactivate fill their part of the table
    /// only: a host holding a grant still finds an entry and runs its hook, however many
    /// strangers come before it.
    #[test]
    fn hosts_without_a_grant_leave_room_for_hosts_that_hold_one() {
        let table = Connections::default();
        let open = MAX_TRACKED_AGENTS - RESERVED_FOR_GRANTED;
        let connected = (0..40)
            .filter(|&n| {
                table.update(&stranger(n), true, u64::from(n), no) == Transition::Connected
            })
            .count();
        assert_eq!(connected, open);
        assert_eq!(table.snapshot(50).len(), open);
        for n in 0..RESERVED_FOR_GRANTED as u32 {
            let granted = Caller::app(10_300 + n, format!("com.apex.agent{n}"));
            assert_eq!(table.update(&granted, true, 60, yes), Transition::Connected);
        }
        assert_eq!(table.snapshot(60).len(), MAX_TRACKED_AGENTS);
        // The table is full of open bindings: nobody more is counted, granted or not.
        assert_eq!(
            table.update(&stranger(99), true, 70, no),
            Transition::Unchanged
        );
        let late = Caller::app(10_400, "com.apex.late");
        assert_eq!(table.update(&late, true, 70, yes), Transition::Unchanged);
        // A granted host that closes its binding makes room for a stranger only while the
        // strangers hold less than their part: not now.
        let first = Caller::app(10_300, "com.apex.agent0");
        assert_eq!(
            table.update(&first, false, 80, yes),
            Transition::Disconnected
        );
        assert_eq!(
            table.update(&stranger(99), true, 90, no),
            Transition::Unchanged
        );
        assert_eq!(table.update(&late, true, 90, yes), Transition::Connected);
    }

    /// The Service's last binding closed: every host with open bindings has none, each is
    /// returned once for its hook, and their entries make room for newcomers.
    #[test]
    fn unbinding_closes_every_open_binding_and_frees_the_table() {
        let table = Connections::default();
        let open = MAX_TRACKED_AGENTS - RESERVED_FOR_GRANTED;
        for n in 0..open as u32 {
            table.update(&stranger(n), true, u64::from(n), no);
        }
        let twice = Caller::app(10_300, "com.apex.agent");
        table.update(&twice, true, 30, yes);
        table.update(&twice, true, 31, yes);
        let left = Caller::app(10_301, "com.apex.left");
        table.update(&left, true, 32, yes);
        table.update(&left, false, 33, yes);
        assert_eq!(
            table.update(&stranger(99), true, 34, no),
            Transition::Unchanged
        );

        let mut closed: Vec<Option<u32>> = table.unbind_all(40).iter().map(Caller::uid).collect();
        closed.sort_unstable();
        let mut expected: Vec<Option<u32>> = (0..open as u32).map(|n| Some(20_000 + n)).collect();
        expected.push(Some(10_300));
        expected.sort_unstable();
        assert_eq!(closed, expected, "each open host once, the closed one not");
        assert!(table.snapshot(40).iter().all(|h| h.active == 0));
        assert!(table.unbind_all(41).is_empty());
        // Newcomers are counted again, and a host binding anew is a first binding.
        assert_eq!(
            table.update(&stranger(99), true, 50, no),
            Transition::Connected
        );
        assert_eq!(table.update(&twice, true, 51, yes), Transition::Connected);
        assert_eq!(
            table.update(&twice, false, 52, yes),
            Transition::Disconnected
        );
    }

    #[test]
    fn one_entry_per_uid_whatever_packages_it_shows() {
        let table = Connections::default();
        let host = Caller::app(10_300, "com.apex.agent");
        assert_eq!(table.update(&host, true, 1, yes), Transition::Connected);
        assert_eq!(table.update(&host, true, 2, yes), Transition::Unchanged);
        let renamed = Caller::app(10_300, "com.apex.agent").with_package("com.apex.helper");
        assert_eq!(table.update(&renamed, true, 3, yes), Transition::Unchanged);
        let hosts = table.snapshot(3);
        assert_eq!(hosts.len(), 1);
        assert_eq!((hosts[0].activations, hosts[0].active), (3, 3));
        assert_eq!(hosts[0].packages, ["com.apex.agent", "com.apex.helper"]);
        assert_eq!(table.update(&host, false, 4, yes), Transition::Unchanged);
        assert_eq!(table.update(&host, false, 5, yes), Transition::Unchanged);
        assert_eq!(table.update(&host, false, 6, yes), Transition::Disconnected);
        assert_eq!(table.update(&host, false, 7, yes), Transition::Unchanged);
        assert_eq!(table.snapshot(7)[0].active, 0);
    }

    #[test]
    fn the_table_is_bounded_and_inactive_hosts_age_out() {
        let table = Connections::default();
        for uid in 0..(MAX_TRACKED_AGENTS as u32 + 5) {
            let caller = Caller::app(uid, format!("host.n{uid}"));
            table.update(&caller, true, u64::from(uid), yes);
            table.update(&caller, false, u64::from(uid), yes);
        }
        assert_eq!(table.snapshot(100).len(), MAX_TRACKED_AGENTS);
        // An active host stays; inactive ones are forgotten after a day.
        table.update(&Caller::app(7_777, "still.bound"), true, 200, yes);
        let later = 200 + FORGET_INACTIVE_AFTER_MS;
        let left = table.snapshot(later);
        assert_eq!(left.len(), 1, "{left:?}");
        assert_eq!(left[0].uid, Some(7_777));
        // A deactivation from a host never seen creates nothing.
        assert_eq!(
            table.update(&Caller::app(1, "never"), false, later, yes),
            Transition::Unchanged
        );
        assert_eq!(table.snapshot(later).len(), 1);
    }
}
