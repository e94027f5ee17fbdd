//! The consent dialog's side: [`Approval`], the [`Authorizer`] methods that change the store,
//! and the JSON interface ([`AdminRequest`] → [`AdminResponse`]) the template's screens speak
//! (through `Provider::handle_admin_json`), with the types of its replies.

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub(crate) use super::access_log::AccessSummary;
pub use super::admin_request::{AdminRequest, LocalizedRequest};
use super::store::{Change, ScopeState, StoreData, access_level};
use super::{Authorizer, Denial, Grant, PendingRequest, ScopeGrant, ScopeInfo};
use crate::context::AccessLevel;
use crate::log_text::Escaped;

/// The user's choice when approving a [`PendingRequest`]: always the scopes the user saw,
/// named explicitly. A request grows while it waits (the caller asks for more), so "everything
/// requested" could grant a scope that appeared after the screen was drawn; an approval names
/// its scopes instead, and scopes added since stay unapproved.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Approval {
    scopes: Vec<String>,
    access: AccessLevel,
    duration: Option<Duration>,
}

impl Approval {
    /// Exactly `scopes`, which must all have been requested; full access, no expiry.
    #[cfg(any(test, feature = "test-util"))]
    pub fn scopes<S: Into<String>>(scopes: impl IntoIterator<Item = S>) -> Self {
        Approval {
            scopes: scopes.into_iter().map(Into::into).collect(),
            access: AccessLevel::Full,
            duration: None,
        }
    }

    /// The scopes `request` lists: what a screen showing this copy of the request showed.
    #[cfg(any(test, feature = "test-util"))]
    pub fn as_listed(request: &PendingRequest) -> Self {
        Approval::scopes(request.scopes.iter().map(|s| s.name.clone()))
    }

    /// The access level tools see in [`CallContext::access`](crate::CallContext::access).
    #[cfg(any(test, feature = "test-util"))]
    pub fn access(mut self, access: AccessLevel) -> Self {
        self.access = access;
        self
    }

    /// The grant lapses `duration` after approval (it never does by default).
    pub fn expires_after(mut self, duration: Duration) -> Self {
        self.duration = Some(duration);
        self
    }
}

/// Why an approval-screen operation did nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AdminError {
    /// No pending request has this id (already decided, replaced, expired, or never existed).
    #[error(
        "no pending request `{0}`; it may have been decided or dropped already: reload the list"
    )]
    UnknownRequest(String),
    /// The approval names a scope the request did not ask for.
    #[error("scope `{0}` was not requested; approve only scopes the request lists")]
    ScopeNotRequested(String),
    /// The platform reported no signing certificate for a package of the request, so a grant
    /// could not be pinned and would admit any app installed under that name.
    #[error(
        "`{0}` has no known signing certificate, so an approval would admit any app installed under that name; it cannot be approved until the platform reports its certificate"
    )]
    NoCertificate(String),
    /// Nothing matched the package (and certificate) given.
    #[error("nothing stored for `{0}`")]
    NotFound(String),
    /// No grant store is bound yet.
    #[error(
        "the grant store is not open; build the provider with the app (ProviderBuilder::app) or Auth::store_dir"
    )]
    StoreUnavailable,
    /// The store could not be saved; nothing changed.
    #[error("the grant store could not be saved, nothing changed: {0}")]
    Persist(String),
    /// The request is malformed.
    #[error("bad request: {0}")]
    BadRequest(String),
}

impl AdminError {
    /// A stable identifier for the JSON interface: `unknown_request`, `scope_not_requested`,
    /// `no_certificate`, `not_found`, `store_unavailable`, `persist_failed` or `bad_request`.
    pub fn kind(&self) -> &'static str {
        match self {
            AdminError::UnknownRequest(_) => "unknown_request",
            AdminError::ScopeNotRequested(_) => "scope_not_requested",
            AdminError::NoCertificate(_) => "no_certificate",
            AdminError::NotFound(_) => "not_found",
            AdminError::StoreUnavailable => "store_unavailable",
            AdminError::Persist(_) => "persist_failed",
            AdminError::BadRequest(_) => "bad_request",
        }
    }
}

/// Everything the consent dialog shows, returned with every [`AdminResponse`]; the JSON is
/// shown there. Each pending request carries its identity (UID, packages with their
/// certificates), the scopes it lacks, when it was first and last asked for and when it expires
/// ([`PendingRequest`]); each grant what the app has, per scope ([`GrantState`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AdminState {
    /// The provider name.
    pub provider_name: String,
    /// The declared scopes with their descriptions.
    pub scopes: Vec<ScopeInfo>,
    /// Requests waiting for the user, in order of first request (only the launching app's
    /// when the request named `caller_uid`).
    pub pending: Vec<PendingRequest>,
    /// Stored grants, per scope, each with its app's access history (see [`GrantState`]).
    pub grants: Vec<GrantState>,
    /// Stored denials.
    pub denials: Vec<Denial>,
    /// Whether a grant store is bound.
    pub store_open: bool,
    /// Whether a change (a revoke or a denial) is in force but not yet saved, e.g. because the
    /// disk is full; the store keeps retrying. Until saved, a restart would undo it.
    #[serde(default)]
    pub unsaved_changes: bool,
    /// The provider's clock, in ms since the Unix epoch.
    pub now_ms: u64,
    /// Whether the screen offers limited access; `false` when the provider declared
    /// it declared `full_access_only`
    /// ([`ProviderBuilder::full_access_only`](crate::ProviderBuilder::full_access_only)).
    pub offers_limited_access: bool,
}

/// A stored [`Grant`] as the screen shows it: what the app has, per scope, and what the
/// on-device access log knows about its calls.
///
/// ```json
/// {"package": "com.example.agent", "certificate_sha256": "5f2a…",
///  "scopes": ["notes", "calendar"], "access": "full",
///  "granted_at_ms": 1767225660000, "expires_at_ms": null,
///  "per_scope": [
///    {"scope": "notes", "access": "limited", "granted_at_ms": 1767225600000, "expires_at_ms": 1767229200000},
///    {"scope": "calendar", "access": "full", "granted_at_ms": 1767225660000, "expires_at_ms": null}],
///  "no_scope": null,
///  "last_access_ms": 1767225700000, "calls_day": 3, "calls_week": 9,
///  "tools": [{"name": "read_notes", "last_access_ms": 1767225700000, "calls_day": 3, "calls_week": 9}]}
/// ```
///
/// `per_scope` is the detail, in the provider's declaration order: each approved scope with
/// its own level and expiry (an expired one has `expires_at_ms <= now_ms` until the next change
/// of the store). `no_scope` is what the user chose when approving a request that named no
/// scope (a provider without scopes), `null` otherwise. The grant-wide fields summarize, never
/// understating what the app has: `scopes` names the approved scopes (same order), `access` is
/// `"full"` when any of them is full, `expires_at_ms` is when the last of them lapses (`null`
/// when one never does), `granted_at_ms` the latest approval. `last_access_ms` (`null` if
/// never), `calls_day`, `calls_week` and `tools` (most recent first) come from the access log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GrantState {
    /// The agent's package name.
    pub package: String,
    /// The certificate digest the grant is pinned to.
    pub certificate_sha256: Option<String>,
    /// The approved scopes' names, in the provider's declaration order.
    pub scopes: Vec<String>,
    /// `Full` when any approved scope is full ([`Grant::access`]).
    #[serde(with = "access_level")]
    pub access: AccessLevel,
    /// The latest approval ([`Grant::granted_at_ms`]).
    pub granted_at_ms: u64,
    /// When the last scope lapses, `None` when one never does ([`Grant::expires_at_ms`]).
    pub expires_at_ms: Option<u64>,
    /// Each approved scope with its level and expiry, in the provider's declaration order.
    pub per_scope: Vec<ScopeState>,
    /// What the user chose for the tools that need no scope, when an approval named none.
    pub no_scope: Option<NoScopeState>,
    /// Its app's calls, from the access log.
    #[serde(flatten)]
    pub history: AccessSummary,
}

/// What a grant gives the tools that need no scope, as Apps with access shows it: the user's
/// choice, and whether it had lapsed when the state was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NoScopeState {
    /// What the user chose.
    #[serde(flatten)]
    pub grant: ScopeGrant,
    /// Whether it had lapsed at the state's `now_ms`.
    #[serde(default)]
    pub expired: bool,
}

impl GrantState {
    fn new(
        grant: &Grant,
        declared: &[(String, String)],
        history: AccessSummary,
        now_ms: u64,
    ) -> Self {
        let rank = |name: &str| {
            declared
                .iter()
                .position(|(n, _)| n == name)
                .unwrap_or(usize::MAX)
        };
        let mut per_scope: Vec<ScopeState> = grant
            .scopes
            .iter()
            .map(|(scope, grant)| ScopeState {
                scope: scope.clone(),
                grant: *grant,
                expired: grant.is_expired(now_ms),
            })
            .collect();
        crate::sort::sort_by_key(&mut per_scope, |s| rank(&s.scope));
        GrantState {
            package: grant.package.clone(),
            certificate_sha256: grant.certificate_sha256.clone(),
            scopes: per_scope.iter().map(|s| s.scope.clone()).collect(),
            access: grant.access(),
            granted_at_ms: grant.granted_at_ms(),
            expires_at_ms: grant.expires_at_ms(),
            per_scope,
            no_scope: grant.no_scope.map(|grant| NoScopeState {
                grant,
                expired: grant.is_expired(now_ms),
            }),
            history,
        }
    }
}

/// An error in an [`AdminResponse`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AdminErrorBody {
    /// [`AdminError::kind`].
    pub kind: String,
    /// A sentence for the developer's log.
    pub message: String,
}

/// The answer to an [`AdminRequest`]: `ok`, the `error` if not, whether earlier decisions
/// were lost, and the `state` after it.
///
/// ```json
/// {"ok": true, "decisions_lost": false,
///  "state": {"provider_name": "Notes", "scopes": [{"name": "notes", "description": "your notes"}],
///   "pending": [{"id": "18f…-3", "uid": 10123, "packages": [{"name": "com.example.agent",
///     "certificate_sha256": ["5f2a…"]}], "scopes": [{"name": "notes", "description": "your notes"}],
///     "first_requested_ms": 1767225599000, "requested_at_ms": 1767225600000,
///     "expires_at_ms": 1767226200000,
///     "holds": {"scopes": [], "no_scope": null}, "asks_for_more": false}],
///   "grants": [{"package": "com.example.other", "certificate_sha256": "9c01…",
///     "scopes": ["notes"], "access": "limited", "granted_at_ms": 1767225000000,
///     "expires_at_ms": null,
///     "per_scope": [{"scope": "notes", "access": "limited", "granted_at_ms": 1767225000000,
///       "expires_at_ms": null}],
///     "no_scope": null, "last_access_ms": null, "calls_day": 0, "calls_week": 0, "tools": []}],
///   "denials": [], "store_open": true, "unsaved_changes": false, "now_ms": 1767225601000,
///   "connections": [], "offers_limited_access": true}}
/// {"ok": false, "decisions_lost": false, "error": {"kind": "unknown_request", "message": "no pending request `x`; …"}, "state": {…}}
/// ```
///
/// `decisions_lost` is `true` when the store file was found unreadable and no good copy of it
/// was left, so earlier approvals **and denials** are gone (a denied app may ask again). It
/// stays set, across restarts, until the user's next decision; the screen should say so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AdminResponse {
    /// Whether the operation succeeded.
    pub ok: bool,
    /// What went wrong, when `ok` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<AdminErrorBody>,
    /// The saved decisions were lost (see above).
    #[serde(default)]
    pub decisions_lost: bool,
    /// The state after the operation.
    pub state: AdminState,
}

fn same_cert(stored: Option<&str>, wanted: Option<&str>) -> bool {
    match wanted {
        None => true,
        Some(w) => stored.is_some_and(|s| s.eq_ignore_ascii_case(w)),
    }
}

fn prune_expired(data: &mut StoreData, now_ms: u64) {
    data.grants.retain_mut(|g| g.prune(now_ms));
}

impl Authorizer {
    fn store_for_admin(&self) -> Result<std::sync::Arc<super::GrantStore>, AdminError> {
        self.bound_store()
            .cloned()
            .ok_or(AdminError::StoreUnavailable)
    }

    /// The pending request `id`, if it is pending (and from `uid` when given).
    fn pending_entry(
        &self,
        id: &str,
        uid: Option<u32>,
        now_ms: u64,
    ) -> Result<super::pending::Entry, AdminError> {
        self.pending_queue()
            .get(id, now_ms)
            .filter(|e| uid.is_none() || e.uid == uid)
            .cloned()
            .ok_or_else(|| AdminError::UnknownRequest(id.to_owned()))
    }

    /// Approves pending request `id` for the scopes `approval` names: for each package the
    /// request recorded (pinned to the first certificate digest the platform reported for it),
    /// sets each named scope to the approval's access level and expiry, clears the package's
    /// denials, and removes the request. Only the named scopes change: the package's other
    /// scopes keep the level and expiry the user chose for them. An approval that names no
    /// scope (a request that listed none, as from a provider without scopes) sets what the
    /// tools needing no scope get ([`Grant::no_scope`]). The approval takes effect only once
    /// durably saved, also where it makes a scope narrower than before.
    ///
    /// Returns the grants as stored.
    ///
    /// # Errors
    /// [`AdminError::UnknownRequest`] for an id that is not pending,
    /// [`AdminError::ScopeNotRequested`], [`AdminError::NoCertificate`] when a package has no
    /// known signing certificate, [`AdminError::StoreUnavailable`], [`AdminError::Persist`].
    /// Nothing changes on error.
    #[cfg(any(test, feature = "test-util"))]
    pub(crate) fn approve(&self, id: &str, approval: Approval) -> Result<Vec<Grant>, AdminError> {
        self.approve_from(id, approval, None)
    }

    fn approve_from(
        &self,
        id: &str,
        approval: Approval,
        uid: Option<u32>,
    ) -> Result<Vec<Grant>, AdminError> {
        if approval.duration == Some(Duration::ZERO) {
            return Err(AdminError::BadRequest(
                "a grant duration must be positive (or absent for no expiry)".to_owned(),
            ));
        }
        let store = self.store_for_admin()?;
        let now = self.clock.now_ms();
        let expires_at_ms = approval
            .duration
            .map(|d| now.saturating_add(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)));
        let grants = store.update(
            Change::Widening,
            |data| {
                let entry = self.pending_entry(id, uid, now)?;
                if let Some(extra) = approval.scopes.iter().find(|s| !entry.scopes.contains(*s)) {
                    return Err(AdminError::ScopeNotRequested(extra.clone()));
                }
                if let Some(unsigned) = entry
                    .packages
                    .iter()
                    .find(|p| p.certificate_sha256.is_empty())
                {
                    return Err(AdminError::NoCertificate(unsigned.name.clone()));
                }
                prune_expired(data, now);
                let chosen = ScopeGrant::new(approval.access, now, expires_at_ms);
                let mut created = Vec::with_capacity(entry.packages.len());
                for package in &entry.packages {
                    let cert = package.certificate_sha256.first().cloned();
                    data.denials
                        .retain(|d| !(d.package == package.name && d.certificate_sha256 == cert));
                    let pos = match data
                        .grants
                        .iter()
                        .position(|g| g.package == package.name && g.certificate_sha256 == cert)
                    {
                        Some(pos) => pos,
                        None => {
                            data.grants.push(Grant::new(package.name.clone(), cert));
                            data.grants.len() - 1
                        }
                    };
                    let grant = &mut data.grants[pos];
                    if approval.scopes.is_empty() {
                        grant.no_scope = Some(chosen);
                    }
                    for scope in &approval.scopes {
                        grant.scopes.insert(scope.clone(), chosen);
                    }
                    created.push(grant.clone());
                }
                Ok(created)
            },
            |e| AdminError::Persist(e.to_string()),
        )?;
        self.pending_queue().remove(id);
        log::info!(
            "CETP: approved pending request {id}: {}",
            Escaped(&format!("{grants:?}"))
        );
        Ok(grants)
    }

    /// Denies pending request `id`: stores a denial for each package it recorded (pinned like
    /// a grant, unpinned when no certificate is known), removes their grants, and removes the
    /// request. The app then gets `PERMISSION_DENIED` for every call until
    /// [`clear_denial`](Self::clear_denial) or an approval. To refuse only some scopes, approve
    /// the others instead. The denial is in force at once, even if it cannot be saved yet
    /// (the store retries; [`AdminState::unsaved_changes`] says so meanwhile).
    ///
    /// # Errors
    /// [`AdminError::UnknownRequest`], [`AdminError::StoreUnavailable`].
    #[cfg(test)]
    pub(crate) fn deny(&self, id: &str) -> Result<Vec<Denial>, AdminError> {
        self.deny_from(id, None)
    }

    fn deny_from(&self, id: &str, uid: Option<u32>) -> Result<Vec<Denial>, AdminError> {
        let store = self.store_for_admin()?;
        let now = self.clock.now_ms();
        let denials = store.update(
            Change::Narrowing,
            |data| {
                let entry = self.pending_entry(id, uid, now)?;
                prune_expired(data, now);
                let mut created = Vec::with_capacity(entry.packages.len());
                for package in &entry.packages {
                    let cert = package.certificate_sha256.first().cloned();
                    data.grants
                        .retain(|g| !(g.package == package.name && g.certificate_sha256 == cert));
                    data.denials
                        .retain(|d| !(d.package == package.name && d.certificate_sha256 == cert));
                    let denial = Denial {
                        package: package.name.clone(),
                        certificate_sha256: cert,
                        denied_at_ms: now,
                    };
                    data.denials.push(denial.clone());
                    created.push(denial);
                    store.access_log().forget(
                        &package.name,
                        package.certificate_sha256.first().map(String::as_str),
                    );
                }
                Ok(created)
            },
            |e| AdminError::Persist(e.to_string()),
        )?;
        self.pending_queue().remove(id);
        log::info!(
            "CETP: denied pending request {id}: {}",
            Escaped(&format!("{denials:?}"))
        );
        Ok(denials)
    }

    /// Removes the grants of `package` (only the one pinned to `certificate_sha256` when
    /// given); returns how many. The app's next call gets `AUTH_REQUIRED`. The revocation is
    /// in force at once, even if it cannot be saved yet (the store retries;
    /// [`AdminState::unsaved_changes`] says so meanwhile).
    ///
    /// # Errors
    /// [`AdminError::NotFound`] when nothing matched, [`AdminError::StoreUnavailable`].
    pub(crate) fn revoke(
        &self,
        package: &str,
        certificate_sha256: Option<&str>,
    ) -> Result<usize, AdminError> {
        self.remove_entries(Change::Narrowing, package, |data| {
            let before = data.grants.len();
            data.grants.retain(|g| {
                !(g.package == package
                    && same_cert(g.certificate_sha256.as_deref(), certificate_sha256))
            });
            before - data.grants.len()
        })
        .inspect(|_| {
            if let Some(store) = self.bound_store() {
                store.access_log().forget(package, certificate_sha256);
            }
        })
    }

    /// Removes the denials of `package` (only the one pinned to `certificate_sha256` when
    /// given); returns how many. The app's next call gets `AUTH_REQUIRED` and a new pending
    /// request. Takes effect only once saved.
    ///
    /// # Errors
    /// [`AdminError::NotFound`] when nothing matched, [`AdminError::StoreUnavailable`],
    /// [`AdminError::Persist`].
    pub(crate) fn clear_denial(
        &self,
        package: &str,
        certificate_sha256: Option<&str>,
    ) -> Result<usize, AdminError> {
        self.remove_entries(Change::Widening, package, |data| {
            let before = data.denials.len();
            data.denials.retain(|d| {
                !(d.package == package
                    && same_cert(d.certificate_sha256.as_deref(), certificate_sha256))
            });
            before - data.denials.len()
        })
    }

    /// Runs `remove` (which returns how many entries it dropped) in one store update; when it
    /// removed nothing the answer is [`AdminError::NotFound`] and the file is not rewritten.
    fn remove_entries(
        &self,
        kind: Change,
        package: &str,
        remove: impl FnOnce(&mut StoreData) -> usize,
    ) -> Result<usize, AdminError> {
        let store = self.store_for_admin()?;
        let now = self.clock.now_ms();
        store.update(
            kind,
            |data| {
                let removed = remove(data);
                if removed == 0 {
                    return Err(AdminError::NotFound(package.to_owned()));
                }
                prune_expired(data, now);
                Ok(removed)
            },
            |e| AdminError::Persist(e.to_string()),
        )
    }

    /// Everything the consent dialog shows.
    #[cfg(test)]
    pub(crate) fn state(&self) -> AdminState {
        self.state_for(None)
    }

    /// What the screen opened by the app with `uid` shows: the same as [`state`](Self::state)
    /// with only that app's pending requests (all of them for `None`).
    #[cfg(test)]
    pub(crate) fn state_for(&self, uid: Option<u32>) -> AdminState {
        self.state_in(uid, None)
    }

    /// `state_for` with the scopes described in the language `locale` (a
    /// BCP 47 tag), where the app translated them.
    pub(crate) fn state_in(&self, uid: Option<u32>, locale: Option<&str>) -> AdminState {
        let store = self.bound_store();
        let now_ms = self.clock.now_ms();
        if let Some(store) = &store {
            store.retry_unsaved(now_ms);
            store.access_log().flush();
        }
        let data = store.as_ref().map(|s| s.snapshot());
        AdminState {
            provider_name: self.provider_name.clone(),
            scopes: self
                .scopes
                .iter()
                .map(|(name, description)| self.scope_info(name, description, locale))
                .collect(),
            pending: self.pending_in(uid, locale),
            grants: data
                .as_ref()
                .map(|d| {
                    d.grants
                        .iter()
                        .map(|g| {
                            let history = store.as_ref().map_or_else(AccessSummary::default, |s| {
                                s.access_log().summary(
                                    &g.package,
                                    g.certificate_sha256.as_deref(),
                                    now_ms,
                                )
                            });
                            GrantState::new(g, &self.scopes, history, now_ms)
                        })
                        .collect()
                })
                .unwrap_or_default(),
            denials: data.as_ref().map(|d| d.denials.clone()).unwrap_or_default(),
            store_open: store.is_some(),
            unsaved_changes: store.as_ref().is_some_and(|s| s.unsaved()),
            now_ms,
            offers_limited_access: self.offers_limited_access,
        }
    }

    /// Runs one [`AdminRequest`].
    #[cfg(test)]
    pub(crate) fn admin(&self, request: AdminRequest) -> AdminResponse {
        self.admin_in(request, None)
    }

    /// `admin`, the reply's state in the language `locale` (see
    /// [`state_in`](Self::state_in)).
    pub(crate) fn admin_in(&self, request: AdminRequest, locale: Option<&str>) -> AdminResponse {
        let mut viewer = None;
        let outcome = match request {
            AdminRequest::State { caller_uid } => {
                viewer = caller_uid;
                Ok(())
            }
            AdminRequest::Approve {
                id,
                scopes,
                access,
                duration_secs,
                caller_uid,
            } => {
                viewer = caller_uid;
                let mut approval = Approval {
                    scopes,
                    access,
                    duration: None,
                };
                if let Some(secs) = duration_secs {
                    approval = approval.expires_after(Duration::from_secs(secs));
                }
                self.approve_from(&id, approval, caller_uid).map(drop)
            }
            AdminRequest::Deny { id, caller_uid } => {
                viewer = caller_uid;
                self.deny_from(&id, caller_uid).map(drop)
            }
            AdminRequest::Revoke {
                package,
                certificate_sha256,
            } => self
                .revoke(&package, certificate_sha256.as_deref())
                .map(drop),
            AdminRequest::ClearDenial {
                package,
                certificate_sha256,
            } => self
                .clear_denial(&package, certificate_sha256.as_deref())
                .map(drop),
        };
        self.respond(outcome, viewer, locale)
    }

    fn respond(
        &self,
        outcome: Result<(), AdminError>,
        viewer: Option<u32>,
        locale: Option<&str>,
    ) -> AdminResponse {
        AdminResponse {
            ok: outcome.is_ok(),
            error: outcome.err().map(|e| AdminErrorBody {
                kind: e.kind().to_owned(),
                message: e.to_string(),
            }),
            decisions_lost: self.bound_store().is_some_and(|s| s.decisions_lost()),
            state: self.state_in(viewer, locale),
        }
    }

    /// The consent dialog's single entry point: an [`AdminRequest`] as JSON in, an
    /// [`AdminResponse`] as JSON out. Never panics; malformed JSON gets
    /// `{"ok": false, "error": {"kind": "bad_request", …}, "state": …}`. This is what the JNI
    /// bridge exposes to the consent dialog; it must only be reachable from the provider app
    /// itself, never from an agent. The request's `locale` (a string, any operation) is the
    /// language of the reply's scope descriptions.
    pub(crate) fn handle_admin_json(&self, request: &str) -> String {
        let response = match serde_json::from_str::<LocalizedRequest>(request) {
            Ok(sent) => self.admin_in(sent.request, sent.locale.as_deref()),
            Err(e) => self.respond(Err(AdminError::BadRequest(e.to_string())), None, None),
        };
        serde_json::to_string(&response).unwrap_or_else(|e| {
            format!(
                r#"{{"ok":false,"error":{{"kind":"internal","message":{}}}}}"#,
                serde_json::Value::from(e.to_string())
            )
        })
    }
}
