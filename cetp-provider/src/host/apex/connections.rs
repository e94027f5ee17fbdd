//! The Apex hosts that activated the plugin: one entry per UID, bounded and aged, for the
//! consent dialog's state and for running the lifecycle hooks once per connection.

use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::caller::Caller;

/// How many hosts are remembered at most. When the table is full, the least recently seen
/// inactive host makes room for a newcomer; a host with open bindings is never dropped, and a
/// newcomer finding only such hosts is not counted (its hooks do not run).
pub const MAX_TRACKED_AGENTS: usize = 32;

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

#[derive(Debug, Default)]
pub(super) struct Connections {
    hosts: Mutex<Vec<AgentConnection>>,
}

impl Connections {
    /// Counts an activation (or a deactivation) of `caller` at `now_ms`.
    pub(super) fn update(&self, caller: &Caller, activate: bool, now_ms: u64) -> Transition {
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        forget_stale(&mut hosts, now_ms);
        let index = match hosts.iter().position(|h| h.uid == caller.uid()) {
            Some(index) => index,
            // A deactivation of a host never counted, or a caller without a package (an
            // isolated process, a UID the platform names no app for): no slot, no hook.
            None if !activate || caller.package_names().next().is_none() => {
                return Transition::Unchanged;
            }
            None => {
                if hosts.len() >= MAX_TRACKED_AGENTS {
                    // Only an inactive host makes room (the least recently seen); a full table
                    // of open bindings keeps them all and the newcomer is not counted, so its
                    // hooks do not run (each activation would otherwise look like a first one).
                    let Some(oldest) = hosts
                        .iter()
                        .enumerate()
                        .filter(|(_, h)| h.active == 0)
                        .min_by_key(|(_, h)| h.last_seen_ms)
                        .map(|(i, _)| i)
                    else {
                        return Transition::Unchanged;
                    };
                    hosts.remove(oldest);
                }
                hosts.push(AgentConnection {
                    host: "apex".to_owned(),
                    uid: caller.uid(),
                    packages: Vec::new(),
                    activations: 0,
                    active: 0,
                    last_seen_ms: now_ms,
                });
                hosts.len() - 1
            }
        };
        let entry = &mut hosts[index];
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

    /// The tracked hosts, most recently seen first.
    pub(super) fn snapshot(&self, now_ms: u64) -> Vec<AgentConnection> {
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        forget_stale(&mut hosts, now_ms);
        let mut out = hosts.clone();
        out.sort_by_key(|h| std::cmp::Reverse(h.last_seen_ms));
        out
    }
}

fn forget_stale(hosts: &mut Vec<AgentConnection>, now_ms: u64) {
    hosts.retain(|h| {
        h.active > 0 || now_ms.saturating_sub(h.last_seen_ms) < FORGET_INACTIVE_AFTER_MS
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_entry_per_uid_whatever_packages_it_shows() {
        let table = Connections::default();
        let host = Caller::app(10_300, "com.apex.agent");
        assert_eq!(table.update(&host, true, 1), Transition::Connected);
        assert_eq!(table.update(&host, true, 2), Transition::Unchanged);
        let renamed = Caller::app(10_300, "com.apex.agent").with_package("com.apex.helper");
        assert_eq!(table.update(&renamed, true, 3), Transition::Unchanged);
        let hosts = table.snapshot(3);
        assert_eq!(hosts.len(), 1);
        assert_eq!((hosts[0].activations, hosts[0].active), (3, 3));
        assert_eq!(hosts[0].packages, ["com.apex.agent", "com.apex.helper"]);
        assert_eq!(table.update(&host, false, 4), Transition::Unchanged);
        assert_eq!(table.update(&host, false, 5), Transition::Unchanged);
        assert_eq!(table.update(&host, false, 6), Transition::Disconnected);
        assert_eq!(table.update(&host, false, 7), Transition::Unchanged);
        assert_eq!(table.snapshot(7)[0].active, 0);
    }

    #[test]
    fn the_table_is_bounded_and_inactive_hosts_age_out() {
        let table = Connections::default();
        for uid in 0..(MAX_TRACKED_AGENTS as u32 + 5) {
            let caller = Caller::app(uid, format!("host.n{uid}"));
            table.update(&caller, true, u64::from(uid));
            table.update(&caller, false, u64::from(uid));
        }
        assert_eq!(table.snapshot(100).len(), MAX_TRACKED_AGENTS);
        // An active host stays; inactive ones are forgotten after a day.
        table.update(&Caller::app(7_777, "still.bound"), true, 200);
        let later = 200 + FORGET_INACTIVE_AFTER_MS;
        let left = table.snapshot(later);
        assert_eq!(left.len(), 1, "{left:?}");
        assert_eq!(left[0].uid, Some(7_777));
        // A deactivation from a host never seen creates nothing.
        assert_eq!(
            table.update(&Caller::app(1, "never"), false, later),
            Transition::Unchanged
        );
        assert_eq!(table.snapshot(later).len(), 1);
    }
}
