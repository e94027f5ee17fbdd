//! Pending authorization requests: callers that got `AUTH_REQUIRED` and wait for the user.
//!
//! The list is bounded in three ways, so that no app can push another app's request off it:
//! **one request per UID** (repeats merge into it; a new identity of the same UID, such as a
//! shared UID whose packages changed, replaces that UID's own request), **one request per
//! signed package** (another UID showing a package with the same certificates merges into the
//! request that names it, so many UIDs showing one identity hold one slot), and at most
//! [`DEFAULT_MAX_PENDING`](super::DEFAULT_MAX_PENDING) requests in all, past which new
//! identities' requests are not recorded until one expires (they still get `AUTH_REQUIRED`).
//! [`RESERVED_FOR_KNOWN`] more slots are kept for identities the user already approved, so an
//! approved agent asking for more is recorded while strangers fill the list. A request
//! expires [`PENDING_IDLE_EXPIRY`] after the last call that asked for it, and
//! [`PENDING_MAX_AGE`] after the first at the latest. Only calls that get `AUTH_REQUIRED`
//! count as asking: one answered `RATE_LIMITED` changes nothing.

use std::collections::BTreeSet;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::consent::Holdings;
pub use super::consent::PendingPackage;
use crate::caller::Caller;

/// A caller that asked for data it has no grant for, waiting for the user's decision.
///
/// The identity is recorded from what the platform reported for the call, so the approval
/// screen can only pick a request by [`id`](Self::id); it never supplies an identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingRequest {
    /// Opaque id the consent screens answer with (`approve` or `deny` in the admin JSON). Unique
    /// across process restarts.
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
    /// When the request lapses unless the caller asks again, in ms since the Unix epoch:
    /// [`PENDING_IDLE_EXPIRY`] after the last request, [`PENDING_MAX_AGE`] after the first at
    /// the latest. An expired request is no longer listed and cannot be approved.
    #[serde(default)]
    pub expires_at_ms: u64,
    /// What the app already holds besides the scopes it asks for now (see [`Holdings`]): the
    /// consent dialog lists it above the question.
    #[serde(default)]
    pub holds: Holdings,
    /// Whether the app already holds something, so that approving adds to its access: the
    /// consent dialog then asks for access "also" to the scopes listed.
    #[serde(default)]
    pub asks_for_more: bool,
}

/// How long a pending request lives after the last call that asked for it: 10 minutes, time
/// for the user to notice the agent's prompt, open the screen and decide, after which a request
/// nobody asks for any more is gone. A call answered `RATE_LIMITED` does not count as asking.
pub const PENDING_IDLE_EXPIRY: Duration = Duration::from_secs(10 * 60);

/// How long a pending request lives at most, however often it is asked for: 30 minutes. A
/// look-alike that asks first and keeps asking (within the refused-call limit) holds its place
/// at the top of the list for that long at most; its next request then starts anew, after the
/// requests made meanwhile.
pub const PENDING_MAX_AGE: Duration = Duration::from_secs(30 * 60);

fn ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
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
    /// Whether the identity held a grant (in force or expired) when it was recorded.
    pub(crate) known: bool,
}

impl Entry {
    /// See [`PendingRequest::expires_at_ms`].
    pub(crate) fn expires_at_ms(&self) -> u64 {
        let idle = self.requested_at_ms.saturating_add(ms(PENDING_IDLE_EXPIRY));
        let oldest = self.first_requested_ms.saturating_add(ms(PENDING_MAX_AGE));
        idle.min(oldest)
    }

    fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms() <= now_ms
    }

    /// Another call asking for `scopes` under this request; returns its id.
    fn merge(&mut self, scopes: &[String], now_ms: u64) -> String {
        self.scopes.extend(scopes.iter().cloned());
        self.requested_at_ms = now_ms;
        self.id.clone()
    }
}

/// How many requests beyond the list's maximum may come from identities the user already
/// approved (a grant in force or expired): an agent asking for a new scope, or again after
/// its grant expired, is recorded even while never-seen identities fill the list.
pub const RESERVED_FOR_KNOWN: usize = 8;

/// At most `max` requests, one per UID, in order of first request; a repeat from the same
/// caller is merged into its request, which keeps its place. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct PendingQueue {
    entries: Vec<Entry>,
    max: usize,
}

/// A fresh request id: unique within the process (a global counter) and across restarts (a
/// per-process prefix from the start time and the PID). A consent dialog that survived the
/// process could otherwise approve a different caller under an old id.
fn next_id() -> String {
    static PREFIX: OnceLock<String> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let prefix = PREFIX.get_or_init(|| {
        let nonce = crate::clock::system_now_ms() ^ (u64::from(std::process::id()) << 40);
        format!("{nonce:x}")
    });
    format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

impl PendingQueue {
    pub(crate) fn new(max: usize) -> Self {
        PendingQueue {
            entries: Vec::new(),
            max: max.max(1),
        }
    }

    fn expire(&mut self, now_ms: u64) {
        self.entries.retain(|e| !e.is_expired(now_ms));
    }

    /// Records that `caller` lacks `scopes`; returns the request id, or `None` when the list
    /// is full of other identities' requests. `known` says whether the user already approved
    /// the caller's identity (a grant for it, in force or not): such a request may take one of
    /// the [`RESERVED_FOR_KNOWN`] slots beyond `max`.
    pub(crate) fn record(
        &mut self,
        caller: &Caller,
        scopes: &[String],
        known: bool,
        now_ms: u64,
    ) -> Option<String> {
        self.expire(now_ms);
        let packages = identity(caller);
        if let Some(entry) = self
            .entries
            .iter_mut()
            .find(|e| e.uid == caller.uid() && e.packages == packages)
        {
            return Some(entry.merge(scopes, now_ms));
        }
        // One request per UID: a new identity of the UID replaces its own old request (the
        // screen showing the old one then gets `unknown_request` and reloads).
        if let Some(uid) = caller.uid() {
            self.entries.retain(|e| e.uid != Some(uid));
        }
        // One request per (package, certificate): another UID showing a signed package that a
        // request already names merges into that request, which keeps its place and its UID.
        if let Some(entry) = self
            .entries
            .iter_mut()
            .find(|e| shares_signed_package(&e.packages, &packages))
        {
            return Some(entry.merge(scopes, now_ms));
        }
        // Never-decided identities hold at most `max` entries, so the reserved ones are always
        // there for identities the user approved before.
        let all = self.entries.len();
        let strangers = self.entries.iter().filter(|e| !e.known).count();
        if all >= self.max.saturating_add(RESERVED_FOR_KNOWN) || (!known && strangers >= self.max) {
            return None;
        }
        let id = next_id();
        // As `merge` adds them (one copy of the set's insertion code).
        let mut requested = BTreeSet::new();
        requested.extend(scopes.iter().cloned());
        self.entries.push(Entry {
            id: id.clone(),
            uid: caller.uid(),
            packages,
            scopes: requested,
            first_requested_ms: now_ms,
            requested_at_ms: now_ms,
            known,
        });
        Some(id)
    }

    /// The request `id`, unless it expired.
    pub(crate) fn get(&self, id: &str, now_ms: u64) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.id == id && !e.is_expired(now_ms))
    }

    pub(crate) fn remove(&mut self, id: &str) -> Option<Entry> {
        let pos = self.entries.iter().position(|e| e.id == id)?;
        Some(self.entries.remove(pos))
    }

    /// The requests in force, in order of first request.
    pub(crate) fn entries(&self, now_ms: u64) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(move |e| !e.is_expired(now_ms))
    }
}

/// Whether `a` and `b` name the same package with the same known certificates.
fn shares_signed_package(a: &[PendingPackage], b: &[PendingPackage]) -> bool {
    a.iter().any(|p| {
        !p.certificate_sha256.is_empty()
            && b.iter()
                .any(|q| q.name == p.name && q.certificate_sha256 == p.certificate_sha256)
    })
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
    crate::sort::sort_by(&mut packages, |a, b| a.name.cmp(&b.name));
    packages
}
