//! Pending authorization requests: callers that got `AUTH_REQUIRED` and wait for the user.

use std::collections::{BTreeSet, VecDeque};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::context::Caller;

/// A caller that asked for data it has no grant for, waiting for the user's decision.
///
/// The identity is recorded from what the platform reported for the call, so the approval
/// screen can only pick a request by [`id`](Self::id); it never supplies an identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingRequest {
    /// Opaque id to pass to [`Authorizer::approve`](crate::auth::Authorizer::approve) or
    /// [`Authorizer::deny`](crate::auth::Authorizer::deny). Unique across process restarts.
    pub id: String,
    /// The calling UID, if known.
    pub uid: Option<u32>,
    /// Every package under the UID, with its certificate digests.
    pub packages: Vec<PendingPackage>,
    /// The scopes the caller lacked, with the provider's descriptions, in declaration order.
    pub scopes: Vec<ScopeInfo>,
    /// When the caller first asked, in ms since the Unix epoch. Requests are listed in this
    /// order: asking again never moves a request ahead of another.
    pub first_requested_ms: u64,
    /// When the caller last asked, in ms since the Unix epoch.
    pub requested_at_ms: u64,
}

/// One package of a [`PendingRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingPackage {
    /// The package name.
    pub name: String,
    /// Lower-case hex SHA-256 digests of its signing certificates (empty when unknown).
    pub certificate_sha256: Vec<String>,
}

/// A scope and the description the provider declared for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ScopeInfo {
    /// The scope name.
    pub name: String,
    /// What the scope gives access to, for the user.
    pub description: String,
}

#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) id: String,
    pub(crate) uid: Option<u32>,
    pub(crate) packages: Vec<PendingPackage>,
    pub(crate) scopes: BTreeSet<String>,
    pub(crate) first_requested_ms: u64,
    pub(crate) requested_at_ms: u64,
}

/// At most `max` requests in order of first request, oldest dropped first; a repeat from the
/// same caller is merged into its request, which keeps its place.
#[derive(Debug)]
pub(crate) struct PendingQueue {
    entries: VecDeque<Entry>,
    max: usize,
}

/// A fresh request id: unique within the process (a global counter) and across restarts (a
/// per-process prefix from the start time and the PID). An approval screen that survived the
/// process could otherwise approve a different caller under an old id.
fn next_id() -> String {
    static PREFIX: OnceLock<String> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let prefix = PREFIX.get_or_init(|| {
        let nonce = crate::auth::clock::system_now_ms() ^ (u64::from(std::process::id()) << 40);
        format!("{nonce:x}")
    });
    format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

impl PendingQueue {
    pub(crate) fn new(max: usize) -> Self {
        PendingQueue {
            entries: VecDeque::new(),
            max: max.max(1),
        }
    }

    /// Records that `caller` lacks `scopes`; returns the request id.
    pub(crate) fn record(&mut self, caller: &Caller, scopes: &[String], now_ms: u64) -> String {
        let packages = identity(caller);
        if let Some(entry) = self
            .entries
            .iter_mut()
            .find(|e| e.uid == caller.uid() && e.packages == packages)
        {
            entry.scopes.extend(scopes.iter().cloned());
            entry.requested_at_ms = now_ms;
            return entry.id.clone();
        }
        let id = next_id();
        self.entries.push_back(Entry {
            id: id.clone(),
            uid: caller.uid(),
            packages,
            scopes: scopes.iter().cloned().collect(),
            first_requested_ms: now_ms,
            requested_at_ms: now_ms,
        });
        while self.entries.len() > self.max {
            if let Some(dropped) = self.entries.pop_front() {
                log::info!("CETP: dropped the oldest pending request {}", dropped.id);
            }
        }
        id
    }

    pub(crate) fn get(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    pub(crate) fn remove(&mut self, id: &str) -> Option<Entry> {
        let pos = self.entries.iter().position(|e| e.id == id)?;
        self.entries.remove(pos)
    }

    pub(crate) fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter()
    }
}

/// The caller's packages sorted by name; certificates lower-cased, in the platform's order.
fn identity(caller: &Caller) -> Vec<PendingPackage> {
    let mut packages: Vec<PendingPackage> = caller
        .packages()
        .iter()
        .map(|p| {
            let mut certs: Vec<String> = p
                .certificate_sha256
                .iter()
                .map(|c| c.to_ascii_lowercase())
                .collect();
            certs.dedup();
            PendingPackage {
                name: p.name.clone(),
                certificate_sha256: certs,
            }
        })
        .collect();
    packages.sort_by(|a, b| a.name.cmp(&b.name));
    packages
}
