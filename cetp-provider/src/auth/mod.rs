//! Who may call, and what they may see: the authorization policy ([`Auth`]), the user's
//! grants, pending requests, rate limits ([`RateLimit`]) and the consent dialog's
//! interface.
//!
//! # Policies
//!
//! Declare one with [`ProviderBuilder::auth`](crate::ProviderBuilder::auth):
//!
//! - [`Auth::user_approval`] (**the default**): an agent app may run a tool once the user
//!   approved it in the provider app, for the scopes the tool declares ([`Tool::SCOPES`]).
//!   Until then `execute_tool` answers `AUTH_REQUIRED` with a `resolution_hint` and an
//!   `authorize_intent`, and the request waits in the pending list for the consent dialog.
//! - [`Auth::allowlist`]: only the apps named with [`Auth::allow`] / [`Auth::allow_signed`];
//!   everyone else gets `PERMISSION_DENIED`. (`allow` also works with `user_approval`: those apps
//!   skip the prompt.)
//! - [`Auth::open`]: every caller, full access.
//!
//! `list_tools` and `get_provider_info` answer every caller unless [`Auth::gate_discovery`] is
//! set: an agent drops a provider whose `list_tools` fails, so a gated provider is invisible
//! (and cannot prompt) until the user approves the agent some other way.
//!
//! # Identity
//!
//! A [`Caller`] is a UID with every package under it (a shared UID has several),
//! each with its signing-certificate digests. A grant or allowlist entry names a package and,
//! when known, a certificate digest; it applies when any of the caller's packages matches, and a
//! pinned entry never matches the package signed with another certificate (an app installed
//! under a trusted app's name). When several grants apply, the most specific (pinned) one that
//! covers the needed scopes wins. A caller without packages is never admitted except by
//! [`Auth::open`].
//!
//! # Order of checks for `execute_tool`
//!
//! Every call is authorized once, first, in one decision at one instant: the policy, denials,
//! the scopes the tool needs and their expiry, then the rate limit (`PERMISSION_DENIED`,
//! `AUTH_REQUIRED`, `RATE_LIMITED`). With [`Auth::gate_discovery`], a caller holding no grant in
//! force gets the same `AUTH_REQUIRED` for every tool name, known or not, without scope names,
//! and learns nothing about the tools; an unknown name is refused that way too (and counts as a
//! refused call). Then: `request_id` too long or no tool name → `INVALID_ARGS`; unknown tool →
//! `TOOL_NOT_FOUND`; `args` over the size limit or invalid → `INVALID_ARGS`; the tool itself.
//! Only a call that reaches the tool is recorded in the access log, under the grant that
//! admitted it.
//!
//! Refused calls count against a per-caller limit of their own ([`Auth::refused_rate_limit`]):
//! past it an unapproved caller gets `RATE_LIMITED` and its pending request is not touched.
//!
//! # On Android
//!
//! The runtime builds the provider on its first call, with the app it runs in
//! ([`ProviderBuilder::app`](crate::ProviderBuilder::app)): the grant store opens in the app's
//! no-backup directory ([`App::no_backup_dir`]; see "Nothing leaves the phone" below) and
//! `<package>.CETP_AUTHORIZE` is the default `authorize_intent`. A provider built without an
//! app or [`Auth::store_dir`] (a host test) keeps the user's decisions in memory, for as long
//! as it lives, and works otherwise the same. The consent dialog's Activity talks to [`Provider::handle_admin_json`](crate::Provider::handle_admin_json)
//! (the admin JSON, `wire::ADMIN_*`).
//!
//! # The grant store
//!
//! Grants and denials live in one file, `cetp-grants.json`, in the store
//! directory (the app's no-backup directory on Android), format version 2:
//!
//! ```json
//! {
//!   "version": 2,
//!   "grants": [
//!     {
//!       "package": "com.clawseed.android",
//!       "certificate_sha256": "5f2a…(64 hex digits)",
//!       "scopes": {
//!         "calendar": { "access": "full", "granted_at_ms": 1767229200000, "expires_at_ms": null },
//!         "notes": { "access": "limited", "granted_at_ms": 1767225600000, "expires_at_ms": 1767229200000 }
//!       }
//!     },
//!     {
//!       "package": "com.example.minimal.agent",
//!       "certificate_sha256": "9c01…",
//!       "scopes": {},
//!       "no_scope": { "access": "full", "granted_at_ms": 1767225600000, "expires_at_ms": null }
//!     }
//!   ],
//!   "denials": [
//!     { "package": "com.example.other", "certificate_sha256": null, "denied_at_ms": 1767225600000 }
//!   ]
//! }
//! ```
//!
//! A grant holds, **per scope**, what the user chose when approving that scope: `access`
//! (`"full"` or `"limited"`), when (`granted_at_ms`) and until when (`expires_at_ms`, `null`
//! never expires). An approval sets only the scopes it names, so approving `calendar` (full,
//! forever) after `notes` (limited, for an hour) leaves `notes` limited and lapsing in an hour:
//! an approval changes what the screen showed and nothing else. A call is admitted when every
//! scope its tool needs is approved and not expired, at the most restrictive level among them.
//! `no_scope` (absent unless set) is what the user chose when approving a request that named no
//! scope, as every request of a provider without scopes does; a tool that needs no scope gets
//! it while it lasts, else the most restrictive level of the scopes in force. Per scope rather
//! than per approval because the screen shows and changes scopes: each has one current
//! decision, and a later approval of the same scope replaces it (narrower or wider), where
//! approvals kept side by side would leave the user to work out which of them is in force.
//!
//! Version 1 files, written before, had one `access`, `granted_at_ms` and `expires_at_ms` per
//! grant and `scopes` as a list of names; they are read with that level and expiry for each of
//! the grant's scopes (for `no_scope` when the list is empty), and written as version 2 at the
//! next change. `"redacted"`, an older name of `"limited"`, is still read.
//!
//! Times are milliseconds since the Unix epoch; `certificate_sha256` is the lower-case hex
//! SHA-256 digest of the agent's signing certificate. A grant is always pinned: the approval
//! screen cannot approve a package whose certificate the platform did not report
//! (`no_certificate`). A denial may have `certificate_sha256: null` (it then
//! refuses the package whatever its certificate). Unknown fields are ignored; another
//! `version` is not read. A file may carry `"decisions_lost": true` (see below).
//!
//! Every save writes the whole file and a last good copy of it, `cetp-grants.json.last-good`,
//! in this order: remove the copy (unless it already holds what is about to be written); write
//! the file, whose directory fsync also makes that removal durable; only once the file
//! committed, write the copy. Each
//! file goes through a uniquely named temp file in the same directory
//! (`cetp-grants.json.tmp-<pid>-<n>`): write, fsync, rename over the target, fsync the
//! directory. A crash at any point leaves the old or the new file, never a mix; leftover temp
//! files are removed on open. So the copy only ever holds a state whose file committed, never an
//! older one: recovering from it can bring back neither a change the screen was told failed
//! (`persist_failed`) nor a grant revoked since. A copy that cannot be written after the file
//! is only logged (the file holds the change) and is written again by the next save. All file
//! operations go through a file-system seam (`StoreFs`, public with the `test-util` feature), which
//! tests replace to inject faults.
//!
//! When a change takes effect depends on its direction:
//!
//! - **Narrowing** (revoke, deny) is in force in memory at once, then saved, with retries.
//!   If it cannot be saved (a full disk), it stays in force, the state says so
//!   (`unsaved_changes` in its state), and every later change, the consent dialog and (at
//!   most once a second) the call path retry the save.
//! - **Widening** (approve, clear a denial) is in force only once durably saved; if it cannot
//!   be, nothing changes and the screen gets `persist_failed`. An error after the new file was
//!   renamed into place (the directory fsync) counts as committed: the change is in force and
//!   the save is retried.
//!
//! A file that cannot be read or parsed, or has another `version` than 2 (format 1, never
//! released, included), is logged with `log::error!` and moved aside as
//! `cetp-grants.json.corrupt-<unix ms>`; the store then recovers from the last good copy
//! (written after the file committed), as it does when the file is missing and the copy is
//! there. Only when no usable copy is left do the decisions start empty: calls get
//! `AUTH_REQUIRED` (saying the saved approvals were reset), and the admin reply says
//! `"decisions_lost": true` (saved in the file, so it survives restarts) until the user's next
//! decision, so the screen can tell the user that earlier denials are gone. Nothing is granted
//! by accident, and nothing panics.
//!
//! One process writes the store: it holds an advisory record lock (`fcntl(F_SETLK)`, never
//! inherited by a child process) on `cetp-grants.json.lock` while the store is open, and a second
//! process fails to open it.
//! Within a process, every open of the same canonical directory shares one store.
//!
//! Pending requests are kept in memory only; an agent that retries after a restart simply
//! asks again. Repeats from one caller merge into its request, which keeps its place: the list
//! is in order of first request. No app can push another app's request off the list: each UID
//! has **one** request (a new identity of the same UID replaces its own), UIDs showing the
//! same signed package share one request, at most 64 are kept by default (plus 8 for
//! identities the user already approved), and when the list is full new identities wait (their
//! calls still get `AUTH_REQUIRED`) rather than anyone being dropped. A request **expires** 10
//! minutes after the last call that asked for it and 30 minutes after the first at the latest;
//! a call answered `RATE_LIMITED` does not count as asking, so a look-alike that asked first
//! holds its place for 30 minutes at most. The screen passes the UID of the app that opened it
//! (`caller_uid` in the admin JSON) so it offers only that app's request, never a look-alike's;
//! when it cannot tell who opened it, it lists them all with their identities.
//!
//! # Nothing leaves the phone
//!
//! Everything the SDK persists, the store file, its copy, its lock and the access log, lives in
//! the app's no-backup directory ([`App::no_backup_dir`], `Context.getNoBackupFilesDir()`),
//! which Auto Backup and device-to-device transfer never include, whatever backup rules the app
//! has. An approval names this phone's apps and certificates; restored on another phone it
//! would grant what the user never granted there.
//!
//! An earlier version kept them in the files dir, which backups do copy. When the provider is
//! built with an app whose no-backup directory holds no store (no file, no copy, nothing set
//! aside) and whose files dir does, the store is moved once: read from the files dir with the
//! usual rules (a format-1 copy is not trusted), saved in the no-backup directory, its access
//! log with it, and only once that save is durable are the old files removed (store, copy, lock,
//! temp and set-aside files, log). A crash before that leaves the old location the live one, and
//! the move starts over; after it the new location is the live one, and whatever is left in the
//! files dir is never read again (it is removed at the next save or start). So at every point
//! exactly one location is live, and a grant revoked after the move cannot come back from the
//! old one. With [`Auth::store_dir`] nothing is moved.
//!
//! # Example
//!
//! ```
//! use cetp_provider::auth::Auth;
//! use cetp_provider::testing::Agent;
//! use cetp_provider::{AccessLevel, ErrorCode, Provider, tool, tools};
//!
//! /// Counts the user's notes.
//! #[tool(scopes = ["notes"])]
//! fn count_notes() -> u32 { 3 }
//!
//! let dir = tempfile::tempdir().unwrap();
//! let provider = Provider::builder("Notes")
//!     .scope("notes", "your notes")
//!     .tools(tools![count_notes])
//!     .auth(Auth::user_approval().store_dir(dir.path()).authorize_intent("com.example.notes.AUTHORIZE"))
//!     .build()
//!     .unwrap();
//! let agent = Agent::new(&provider);
//!
//! let first = agent.execute("count_notes", "{}");
//! assert_eq!(first.error_code(), Some(ErrorCode::AuthRequired));
//! assert_eq!(first.get("authorize_intent"), Some("com.example.notes.AUTHORIZE"));
//!
//! // The consent dialog lists the request and the user allows it (as the test agent does here).
//! agent.approve_pending(AccessLevel::Full).unwrap();
//!
//! assert_eq!(agent.execute("count_notes", "{}").data_json().unwrap(), 3);
//! ```
//!
//! [`Tool::SCOPES`]: crate::Tool::SCOPES

mod access_log;
// The JSON the consent dialog and Apps with access exchange with the provider. Crate-private,
// as the store's types and file names below: an app reaches the screens only through the
// Android template, whose Java talks to `admin` through the JNI bridge in this crate.
pub(crate) mod admin;
mod admin_request;
pub(crate) mod callers;
mod consent;
mod fs;
mod pending;
mod rate;
mod store;
mod store_lock;
#[cfg(test)]
mod tests;
pub(crate) mod trace;

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

#[cfg(feature = "test-util")]
#[doc(hidden)]
pub use crate::clock::SystemClock;
#[cfg(feature = "test-util")]
#[cfg_attr(docsrs, doc(cfg(feature = "test-util")))]
pub use crate::clock::{Clock, ManualClock};
#[cfg(not(feature = "test-util"))]
pub(crate) use crate::clock::{Clock, SystemClock};
#[cfg(any(test, feature = "test-util"))]
pub(crate) use admin::Approval;
pub(crate) use consent::Holdings;
pub(crate) use fs::{OsFs, StoreFs};
pub(crate) use pending::{PendingRequest, ScopeInfo};
pub use rate::RateLimit;
pub(crate) use store::{Denial, Grant, ScopeGrant};
// What the crate's own tests name besides.
#[cfg(test)]
pub(crate) use fs::{ACCESS_LOG_FILE_NAME, LockGuard, StoreFile};
#[cfg(test)]
pub(crate) use pending::{PENDING_IDLE_EXPIRY, PENDING_MAX_AGE};
#[cfg(test)]
pub(crate) use store::STORE_FILE_NAME;

use crate::app::App;
use crate::caller::Caller;
use crate::context::AccessLevel;
use crate::descriptor::ToolDescriptor;
use crate::error::ToolError;
use crate::localized::Localized;
use crate::log_text::Escaped;
use callers::{CallerEntry, Callers, RateLimiter};
use pending::PendingQueue;
use store::GrantStore;

use crate::wire::AUTHORIZE_ACTION_SUFFIX;

/// Where the store of a provider given no directory lives (in memory; see `fs::MemFs`).
const MEMORY_STORE_DIR: &str = "/cetp-memory-store";

/// How many pending requests are kept by default, one per UID at most: 64. Filling the list
/// takes 64 apps installed under 64 UIDs, each asking again within
/// `PENDING_IDLE_EXPIRY`; even then no request already on the list is dropped, new ones wait
/// until one expires. Far more than the apps that ask for one provider in ten minutes, and a
/// few kilobytes of memory.
pub(crate) const DEFAULT_MAX_PENDING: usize = 64;

/// The default limit on refused calls (`AUTH_REQUIRED`, `PERMISSION_DENIED`) per caller:
/// 30 at once, then one every 2 s. See [`Auth::refused_rate_limit`].
pub(crate) const DEFAULT_REFUSED_RATE_LIMIT: RateLimit =
    RateLimit::new(30, std::time::Duration::from_secs(2));

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Open,
    Allowlist,
    UserApproval,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct AllowedApp {
    package: String,
    certificate_sha256: Option<String>,
}

/// The authorization policy of a provider, given to
/// [`ProviderBuilder::auth`](crate::ProviderBuilder::auth). See the [module docs](crate::auth).
///
/// ```
/// use std::time::Duration;
/// use cetp_provider::Provider;
/// use cetp_provider::auth::{Auth, RateLimit};
///
/// let provider = Provider::builder("Notes")
///     .auth(
///         Auth::allowlist()
///             .allow_signed("com.clawseed.android", "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89")
///             .rate_limit(RateLimit::new(10, Duration::from_secs(1))),
///     )
///     .build()
///     .unwrap();
/// # let _ = provider;
/// ```
#[must_use]
pub struct Auth {
    mode: Mode,
    allowed: Vec<AllowedApp>,
    gate_discovery: bool,
    hint_template: Option<String>,
    authorize_intent: Option<String>,
    rate_limit: Option<RateLimit>,
    tool_rate_limits: Vec<(String, RateLimit)>,
    refused_rate_limit: RateLimit,
    clock: Arc<dyn Clock>,
    store_dir: Option<PathBuf>,
    store_fs: Arc<dyn StoreFs>,
    max_pending: usize,
}

impl Default for Auth {
    /// [`Auth::user_approval`].
    fn default() -> Self {
        Auth::user_approval()
    }
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Auth")
            .field("mode", &self.mode)
            .field("allowed", &self.allowed)
            .field("gate_discovery", &self.gate_discovery)
            .field("rate_limit", &self.rate_limit)
            .field("tool_rate_limits", &self.tool_rate_limits)
            .field("store_dir", &self.store_dir)
            .finish_non_exhaustive()
    }
}

impl Auth {
    fn with_mode(mode: Mode) -> Self {
        Auth {
            mode,
            allowed: Vec::new(),
            gate_discovery: false,
            hint_template: None,
            authorize_intent: None,
            rate_limit: None,
            tool_rate_limits: Vec::new(),
            refused_rate_limit: DEFAULT_REFUSED_RATE_LIMIT,
            clock: Arc::new(SystemClock),
            store_dir: None,
            store_fs: Arc::new(OsFs),
            max_pending: DEFAULT_MAX_PENDING,
        }
    }

    /// Every caller may run every tool with full access. Rate limits still apply.
    pub fn open() -> Self {
        Auth::with_mode(Mode::Open)
    }

    /// Only the apps named with [`allow`](Self::allow) / [`allow_signed`](Self::allow_signed),
    /// with full access to every scope; everyone else gets `PERMISSION_DENIED`.
    pub fn allowlist() -> Self {
        Auth::with_mode(Mode::Allowlist)
    }

    /// The user approves each agent app in the provider app (the default). Needs a grant
    /// store: the app's no-backup directory ([`ProviderBuilder::app`](crate::ProviderBuilder::app),
    /// which the Android runtime sets), or [`store_dir`](Self::store_dir).
    pub fn user_approval() -> Self {
        Auth::with_mode(Mode::UserApproval)
    }

    /// Admits `package` whatever its signing certificate. Prefer
    /// [`allow_signed`](Self::allow_signed): a package name alone can be claimed by any app
    /// installed under it while the real one is absent. Not allowed with [`Auth::open`].
    pub fn allow(mut self, package: impl Into<String>) -> Self {
        self.allowed.push(AllowedApp {
            package: package.into(),
            certificate_sha256: None,
        });
        self
    }

    /// Admits `package` only when signed with the certificate whose SHA-256 digest is
    /// `certificate_sha256`: 64 hex digits, colons and case as `keytool -printcert` or
    /// `apksigner verify --print-certs` print them are accepted.
    pub fn allow_signed(
        mut self,
        package: impl Into<String>,
        certificate_sha256: impl AsRef<str>,
    ) -> Self {
        let digest: String = certificate_sha256
            .as_ref()
            .chars()
            .filter(|c| *c != ':' && !c.is_whitespace())
            .map(|c| c.to_ascii_lowercase())
            .collect();
        self.allowed.push(AllowedApp {
            package: package.into(),
            certificate_sha256: Some(digest),
        });
        self
    }

    /// Whether `list_tools` and `get_provider_info` need authorization too (default `false`).
    ///
    /// Agents skip a provider whose `list_tools` fails, so with this set an unapproved app
    /// neither sees the tools nor gets to show the user an `AUTH_REQUIRED` prompt for them.
    pub fn gate_discovery(mut self, gate: bool) -> Self {
        self.gate_discovery = gate;
        self
    }

    /// The `resolution_hint` of `AUTH_REQUIRED`. `{provider}`, `{provider_package}`,
    /// `{package}` and `{scopes}` are replaced by the provider name, the provider app's package
    /// (the provider name while unknown), the caller's package and the descriptions of the
    /// missing scopes (or "its tools"). The default is "Open {provider} ({provider_package})
    /// and allow {package} to read: {scopes}" (without the parenthesis while the app's package
    /// is unknown): the package tells the agent which app must handle `authorize_intent`, so
    /// it can call `Intent.setPackage` and never land on a look-alike consent dialog.
    pub fn resolution_hint(mut self, template: impl Into<String>) -> Self {
        self.hint_template = Some(template.into());
        self
    }

    /// The `authorize_intent` action of `AUTH_REQUIRED`, replacing the default
    /// `<app package>` + [`AUTHORIZE_ACTION_SUFFIX`].
    pub fn authorize_intent(mut self, action: impl Into<String>) -> Self {
        self.authorize_intent = Some(action.into());
        self
    }

    /// A rate limit per caller shared by every tool without its own
    /// [`tool_rate_limit`](Self::tool_rate_limit). None by default.
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.rate_limit = Some(limit);
        self
    }

    /// A rate limit per caller for one tool, replacing the provider's limit for it.
    pub fn tool_rate_limit(mut self, tool: impl Into<String>, limit: RateLimit) -> Self {
        self.tool_rate_limits.push((tool.into(), limit));
        self
    }

    /// The limit per caller (by UID) on refused calls: `execute_tool` (and gated discovery)
    /// answered `AUTH_REQUIRED` or `PERMISSION_DENIED`. Past it the caller gets `RATE_LIMITED`
    /// and its pending request is not updated, so an unapproved app can neither hammer the
    /// provider nor keep refreshing its request on the consent dialog. Default
    /// 30 at once, then one every 2 s; it applies whatever [`rate_limit`](Self::rate_limit) says.
    pub fn refused_rate_limit(mut self, limit: RateLimit) -> Self {
        self.refused_rate_limit = limit;
        self
    }

    /// The clock for grant expiry, rate limits, pending requests and call deadlines (default
    /// [`SystemClock`]); tests pass a [`ManualClock`]. A test seam: needs the `test-util`
    /// feature.
    #[cfg(feature = "test-util")]
    #[cfg_attr(docsrs, doc(cfg(feature = "test-util")))]
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Opens the grant store in `dir` when the provider is built (host tests and non-Android
    /// hosts); nothing is moved there from elsewhere. On Android leave it unset: the store opens
    /// in the app's no-backup directory ([`ProviderBuilder::app`](crate::ProviderBuilder::app),
    /// [`App::no_backup_dir`]), which no backup or device transfer includes.
    pub fn store_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.store_dir = Some(dir.into());
        self
    }

    /// The file system the grant store uses (default [`OsFs`]); tests pass one that injects
    /// faults. Stores on the real file system are shared per canonical directory within the
    /// process; stores on another [`StoreFs`] never are. A seam of the crate's own tests.
    #[cfg(test)]
    pub(crate) fn store_fs(mut self, fs: Arc<dyn StoreFs>) -> Self {
        self.store_fs = fs;
        self
    }

    /// How many pending requests to keep, one per UID and per signed package at most (default
    /// 64), plus 8 for identities the user already
    /// approved. When the list is full, no request on it is dropped: a new identity's
    /// request is not recorded (its call still gets `AUTH_REQUIRED`) until one expires
    /// (10 minutes after its last request, 30 after its first).
    pub fn max_pending(mut self, max: usize) -> Self {
        self.max_pending = max;
        self
    }
}

/// What a host asks authorization for: the one vocabulary every host and the core speak
/// ([`Provider::authorize`](crate::Provider::authorize), and the authorizer below it).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
#[doc(hidden)]
pub enum Need<'a> {
    /// Seeing the provider: `list_tools`, `get_provider_info`, a plugin host's metadata, tool
    /// list and lifecycle calls. Free while discovery is open (the default, see
    /// [`Auth::gate_discovery`]), else some grant in force.
    Discovery,
    /// Running an existing tool needing `scopes`. Hosts get it from
    /// [`ToolRef::need`](crate::host::ToolRef::need), never by hand.
    #[non_exhaustive]
    Tool {
        /// The tool's name (its rate limit, and the access log).
        name: &'a str,
        /// The scopes the tool declares.
        scopes: &'a [String],
    },
    /// Running a name that is no tool (or no name): refused like discovery while discovery
    /// is gated, so a stranger cannot tell tools from other names.
    UnknownTool,
}

/// What one state of the grant store says about one caller: whether a denial refuses it, and
/// the grants that may admit it. A caller's entry keeps the last one made
/// ([`CallerEntry::grant_view`]) while the store's generation stays the same, so an approved
/// caller's calls take neither the store's lock nor a reference to its shared state; only the
/// expiry of the grants is judged at each call, against the clock.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct GrantView {
    /// The store's generation it was made at.
    generation: u64,
    /// Who it was made for: a UID's packages and certificates may change.
    caller: Caller,
    /// A denial matches the caller.
    denied: bool,
    /// The pinned grants matching the caller, the most specific first (then in store order).
    candidates: Vec<Grant>,
    /// The store's "decisions lost" mark.
    decisions_lost: bool,
}

impl GrantView {
    /// What `data`, the store's state at `generation`, says about `caller`.
    fn of(data: &store::StoreData, generation: u64, caller: &Caller) -> GrantView {
        let denied = data
            .denials
            .iter()
            .any(|d| specificity(&d.package, d.certificate_sha256.as_deref(), caller).is_some());
        // A grant without a certificate (written by an older version) would match any app
        // installed under the package name: it admits nobody.
        let mut candidates: Vec<(u8, &Grant)> = data
            .grants
            .iter()
            .filter(|g| g.certificate_sha256.is_some())
            .filter_map(|g| {
                specificity(&g.package, g.certificate_sha256.as_deref(), caller).map(|s| (s, g))
            })
            .collect();
        crate::sort::sort_by_key(&mut candidates, |(s, _)| std::cmp::Reverse(*s));
        GrantView {
            generation,
            caller: caller.clone(),
            denied,
            candidates: candidates.into_iter().map(|(_, g)| g.clone()).collect(),
            decisions_lost: data.decisions_lost,
        }
    }
}

/// The grant that admitted a call: its package and the certificate it is pinned to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AdmittedBy {
    /// The caller's view of the store when the call was decided, and the grant's place in it
    /// (no copy of its strings on the call path).
    view: Arc<GrantView>,
    index: usize,
}

impl AdmittedBy {
    fn grant(&self) -> &Grant {
        &self.view.candidates[self.index]
    }
}

/// An admitted call: the access level it gets, and which grant admitted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decision {
    access: AccessLevel,
    /// The grant that admitted the call; `None` when no grant was involved (open or
    /// allowlist policy, open discovery).
    grant: Option<AdmittedBy>,
    /// When it was decided; the access log records the read at this time.
    at_ms: u64,
}

impl Decision {
    /// Admitted without looking at anything: full access, no grant.
    fn free(at_ms: u64) -> Self {
        Decision {
            access: AccessLevel::Full,
            grant: None,
            at_ms,
        }
    }

    /// The access level the tool sees in [`CallContext::access`](crate::CallContext::access).
    pub(crate) fn access(&self) -> AccessLevel {
        self.access
    }

    /// When the call was decided, in ms on the provider's clock (its deadline counts from here).
    pub(crate) fn at_ms(&self) -> u64 {
        self.at_ms
    }
}

/// A provider's authorization at run time: decides every call and serves the consent dialog.
/// Get it from [`Provider::authorizer`](crate::Provider::authorizer).
///
/// All methods take `&self` and are safe to call from any thread while calls are served. Store
/// changes are serialized and saved before they take effect; a method that fails changes nothing.
pub(crate) struct Authorizer {
    mode: Mode,
    allowed: Vec<AllowedApp>,
    gate_discovery: bool,
    hint_template: Option<String>,
    intent_override: Option<String>,
    rate_limit: Option<RateLimit>,
    tool_rate_limits: HashMap<String, RateLimit>,
    refused_rate_limit: RateLimit,
    clock: Arc<dyn Clock>,
    provider_name: String,
    scopes: Vec<(String, String)>,
    app_package: Option<String>,
    store: Option<Arc<GrantStore>>,
    pending: Mutex<PendingQueue>,
    limiter: RateLimiter,
    /// Whether the consent dialog offers limited access; see
    /// [`ProviderBuilder::full_access_only`](crate::ProviderBuilder::full_access_only).
    pub(crate) offers_limited_access: bool,
    /// The declared scopes with their descriptions' translations, in declaration order: what
    /// the screens show in the user's language (`scopes` holds the default texts).
    pub(crate) scope_texts: Vec<(String, Localized)>,
}

impl fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authorizer")
            .field("mode", &self.mode)
            .field("gate_discovery", &self.gate_discovery)
            .field("store", &self.store_path())
            .finish_non_exhaustive()
    }
}

impl Authorizer {
    /// Checks `auth` against the provider's scopes and tools; opens the store in
    /// [`Auth::store_dir`], else in the app's no-backup directory (moving it there from the
    /// files dir, where an earlier version kept it).
    pub(crate) fn new(
        auth: Auth,
        provider_name: &str,
        scopes: Vec<(String, String)>,
        tools: &[ToolDescriptor],
        app: Option<&App>,
    ) -> Result<Authorizer, String> {
        if auth.mode == Mode::Open && !auth.allowed.is_empty() {
            return Err(
                "`allow`/`allow_signed` has no effect with `Auth::open()`; use `Auth::allowlist()`"
                    .to_owned(),
            );
        }
        for app in &auth.allowed {
            if app.package.trim().is_empty() {
                return Err("an allowed package name is empty".to_owned());
            }
            if let Some(digest) = &app.certificate_sha256 {
                if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(format!(
                        "the certificate digest for `{}` is not a SHA-256 digest (64 hex digits): `{digest}`",
                        app.package
                    ));
                }
            }
        }
        if auth
            .authorize_intent
            .as_deref()
            .is_some_and(|a| a.trim().is_empty())
        {
            return Err("the `authorize_intent` action is empty".to_owned());
        }
        if let Some(limit) = &auth.rate_limit {
            limit.check()?;
        }
        auth.refused_rate_limit
            .check()
            .map_err(|e| format!("refused-call limit: {e}"))?;
        let mut tool_rate_limits = HashMap::new();
        for (tool, limit) in auth.tool_rate_limits {
            limit.check().map_err(|e| format!("tool `{tool}`: {e}"))?;
            if !tools.iter().any(|t| t.name == tool) {
                return Err(format!(
                    "a rate limit is set for tool `{tool}`, which the provider does not have"
                ));
            }
            if tool_rate_limits.insert(tool.clone(), limit).is_some() {
                return Err(format!("tool `{tool}` has two rate limits"));
            }
        }
        // Everything the store keeps stays on the phone: the app's no-backup directory, which
        // Auto Backup and device transfer never copy. An earlier version kept the store in the
        // files dir, which they do copy: from there it is moved once.
        let (store_dir, legacy) = match (&auth.store_dir, app) {
            (Some(dir), _) => (Some(dir.as_path()), None),
            (None, Some(app)) => (Some(app.no_backup_dir()), Some(app.files_dir())),
            (None, None) => (None, None),
        };
        let store = match store_dir {
            Some(dir) => Some(
                GrantStore::open(dir, auth.store_fs.clone(), auth.clock.now_ms(), legacy)
                    .map_err(|e| e.to_string())?,
            ),
            // No app and no directory (a host test): the user's decisions are kept in memory,
            // for as long as the provider lives. On Android the runtime always gives the app.
            None if auth.mode == Mode::UserApproval => {
                log::info!(
                    "CETP: `{provider_name}` was given no app and no store directory; its approvals are kept in memory only"
                );
                Some(
                    GrantStore::open(
                        Path::new(MEMORY_STORE_DIR),
                        Arc::new(fs::MemFs::default()),
                        auth.clock.now_ms(),
                        None,
                    )
                    .map_err(|e| e.to_string())?,
                )
            }
            None => None,
        };
        let limiter = RateLimiter::new(rate::MAX_TRACKED_BUCKETS, Arc::clone(&auth.clock));
        Ok(Authorizer {
            mode: auth.mode,
            allowed: auth.allowed,
            gate_discovery: auth.gate_discovery,
            hint_template: auth.hint_template,
            intent_override: auth.authorize_intent,
            rate_limit: auth.rate_limit,
            tool_rate_limits,
            refused_rate_limit: auth.refused_rate_limit,
            clock: auth.clock,
            provider_name: provider_name.to_owned(),
            scopes,
            app_package: app.map(|app| app.package_name().to_owned()),
            store,
            pending: Mutex::new(PendingQueue::new(auth.max_pending)),
            limiter,
            offers_limited_access: true,
            scope_texts: Vec::new(),
        })
    }

    /// The declared scopes as `(name, description)` pairs: held here once, for the decisions
    /// and the screens, and read by [`Provider::scopes`](crate::Provider::scopes).
    pub(crate) fn scopes(&self) -> &[(String, String)] {
        &self.scopes
    }

    /// The path of the store file, if the store is on disk (`None` for one kept in memory).
    pub fn store_path(&self) -> Option<PathBuf> {
        self.bound_store()
            .map(|s| s.path().to_owned())
            .filter(|path| !path.starts_with(MEMORY_STORE_DIR))
    }

    /// The `authorize_intent` action sent with `AUTH_REQUIRED`, if one is known.
    pub fn authorize_intent(&self) -> Option<String> {
        if let Some(action) = &self.intent_override {
            return Some(action.clone());
        }
        self.app_package
            .as_ref()
            .map(|p| format!("{p}{AUTHORIZE_ACTION_SUFFIX}"))
    }

    /// The grant store, borrowed (a call takes no reference to it).
    fn bound_store(&self) -> Option<&Arc<GrantStore>> {
        self.store.as_ref()
    }

    fn pending_queue(&self) -> MutexGuard<'_, PendingQueue> {
        trace::note(&self.pending, trace::Kind::Exclusive);
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a call may wait for the user's consent (the user-approval policy), as a host
    /// that announces a confirmation policy says.
    pub(crate) fn asks_the_user(&self) -> bool {
        self.mode == Mode::UserApproval
    }

    /// Whether `list_tools` and `get_provider_info` answer every caller alike (discovery is
    /// not gated), so their replies may be kept and served without identifying the caller.
    pub(crate) fn discovery_is_open(&self) -> bool {
        !self.gate_discovery
    }

    /// Whether `caller` holds what the user or the developer gave it: a grant in force for its
    /// identity (any scope, or the one for tools without a scope) and no denial, or a place on
    /// the allowlist; every caller under the open policy. Counts nothing against any limit and
    /// records no request: a host's tables use it to keep room for the apps the user chose.
    pub(crate) fn holds_grant(&self, caller: &Caller) -> bool {
        if self.mode == Mode::Open {
            return true;
        }
        if caller.packages().is_empty() {
            return false;
        }
        if self
            .allowed
            .iter()
            .any(|a| specificity(&a.package, a.certificate_sha256.as_deref(), caller).is_some())
        {
            return true;
        }
        let Some(store) = self
            .bound_store()
            .filter(|_| self.mode == Mode::UserApproval)
        else {
            return false;
        };
        let view = view_of(None, store, caller);
        let now = self.clock.now_ms();
        !view.denied && view.candidates.iter().any(|g| g.admits(&[], now).is_ok())
    }

    /// The clock of grant expiry and rate limits, which call deadlines follow too.
    pub(crate) fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// Decides one call: the single authorization the core makes per call, at one instant.
    ///
    /// - [`Need::Discovery`]: `Ok` at no cost while discovery is open; otherwise the caller
    ///   needs some grant in force.
    /// - [`Need::Tool`]: with gated discovery, a caller holding no grant in force gets exactly
    ///   the answer an unknown tool gets (`AUTH_REQUIRED` without scope names); then denials,
    ///   the tool's scopes and their expiry, then the tool's rate limit.
    /// - [`Need::UnknownTool`]: like [`Need::Discovery`] while discovery is gated (a refusal
    ///   counts against the refused-call limit); `Ok` while it is open, and the core answers
    ///   `TOOL_NOT_FOUND`.
    ///
    /// The [`Decision`] says which grant admitted the call; pass it to
    /// [`record_read`](Self::record_read) once the arguments are valid, just before the tool
    /// runs.
    pub(crate) fn authorize(&self, caller: &Caller, need: Need<'_>) -> Result<Decision, ToolError> {
        self.authorize_as(None, caller, need)
    }

    /// The per-caller state calls are counted in: calls in flight, rate-limit buckets, the
    /// access-log buffer.
    pub(crate) fn callers(&self) -> &Callers {
        self.limiter.callers()
    }

    /// [`authorize`](Self::authorize) for a call that holds `entry`, `caller`'s state (its
    /// rate limit is taken there, without looking the caller up again).
    pub(crate) fn authorize_as(
        &self,
        entry: Option<&CallerEntry>,
        caller: &Caller,
        need: Need<'_>,
    ) -> Result<Decision, ToolError> {
        let gated = self.gate_discovery;
        if !gated && matches!(need, Need::Discovery | Need::UnknownTool) {
            return Ok(Decision::free(0));
        }
        let now = self.clock.now_ms();
        let (access, grant) = self.decide(entry, caller, need, now)?;
        if let Need::Tool { name, .. } = need {
            self.take_rate_limit(entry, caller, name, now)?;
        }
        Ok(Decision {
            access,
            grant,
            at_ms: now,
        })
    }

    /// Records in the access log that the grant behind `decision` read `tool` (user
    /// approval only; nothing for calls no grant admitted). The core calls it after the
    /// arguments were validated, just before the tool runs.
    pub(crate) fn record_read(&self, tool: &str, decision: &Decision, entry: &CallerEntry) {
        if let (Some(grant), Some(store)) = (&decision.grant, &self.store) {
            let grant = grant.grant();
            let log = store.access_log();
            log.record(
                entry.log_buffer(|| log.buffer()),
                &grant.package,
                grant.certificate_sha256.as_deref(),
                tool,
                decision.at_ms,
            );
        }
    }

    /// The per-tool rate limit, else the provider's, if any.
    fn take_rate_limit(
        &self,
        entry: Option<&CallerEntry>,
        caller: &Caller,
        tool: &str,
        now: u64,
    ) -> Result<(), ToolError> {
        let (limit, bucket) = match self.tool_rate_limits.get(tool) {
            Some(limit) => (Some(limit), Some(tool)),
            None => (self.rate_limit.as_ref(), None),
        };
        let Some(limit) = limit else {
            return Ok(());
        };
        // A call in flight holds its entry, which is never retired while it runs.
        entry
            .and_then(|entry| entry.take(bucket, limit, now))
            .unwrap_or_else(|| self.limiter.take(caller, bucket, limit, now))
            .map_err(|wait| {
                ToolError::rate_limited(format!(
                    "too many calls to `{tool}` from this app (at most {} at once, then one every {} ms); {}",
                    limit.burst(),
                    limit.refill_every().as_millis(),
                    rate::retry_text(wait)
                ))
                .with_retry_after(wait)
            })
    }

    /// The policy and the grants: the access level and the admitting grant, or the refusal
    /// (counted against the refused-call limit, and recorded as a pending request).
    fn decide(
        &self,
        entry: Option<&CallerEntry>,
        caller: &Caller,
        need: Need<'_>,
        now: u64,
    ) -> Result<(AccessLevel, Option<AdmittedBy>), ToolError> {
        if self.mode == Mode::Open {
            return Ok((AccessLevel::Full, None));
        }
        if caller.packages().is_empty() {
            self.charge_refusal(caller, now)?;
            return Err(ToolError::permission_denied(format!(
                "{} could not identify the calling app ({}), and it only answers apps it knows; call from an installed app",
                self.provider_name,
                caller.describe()
            )));
        }
        if self
            .allowed
            .iter()
            .any(|a| specificity(&a.package, a.certificate_sha256.as_deref(), caller).is_some())
        {
            return Ok((AccessLevel::Full, None));
        }
        if self.mode == Mode::Allowlist {
            self.charge_refusal(caller, now)?;
            return Err(ToolError::permission_denied(format!(
                "{who} is not among the apps {} answers (with the signing certificate it has); the app's developer decides which apps may call",
                self.provider_name,
                who = who(caller),
            )));
        }
        let Some(store) = self.bound_store() else {
            log::error!(
                "CETP: `{}` uses user approval but has no grant store; give the builder the app (ProviderBuilder::app) or Auth::store_dir",
                self.provider_name
            );
            return Err(crate::error::provider_bug(format_args!(
                "{} is not ready to check approvals (its grant store is not open)",
                self.provider_name
            )));
        };
        store.retry_unsaved(now);
        let view = view_of(entry, store, caller);
        if view.denied {
            self.charge_refusal(caller, now)?;
            return Err(ToolError::permission_denied(format!(
                "the user declined access for {who} to {name}; do not retry: only the user can change this, in the {name} app",
                who = who(caller),
                name = self.provider_name
            )));
        }
        let candidates = &view.candidates;
        let needed = match need {
            Need::Tool { scopes, .. } => scopes,
            Need::Discovery | Need::UnknownTool => &[][..],
        };
        let mut best: Option<store::Lacking> = None;
        for (index, grant) in candidates.iter().enumerate() {
            match grant.admits(needed, now) {
                Ok(access) => {
                    let admitted_by = AdmittedBy {
                        view: Arc::clone(&view),
                        index,
                    };
                    return Ok((access, Some(admitted_by)));
                }
                Err(lacking) => {
                    if best
                        .as_ref()
                        .is_none_or(|b| lacking.scopes.len() < b.scopes.len())
                    {
                        best = Some(lacking);
                    }
                }
            }
        }
        // Refused like discovery: no scope names in the answer. With gated discovery that is
        // also how a tool refuses a caller with nothing in force, which so learns nothing
        // about the tool (whether it exists, what it needs).
        let like_discovery = match need {
            Need::Tool { .. } => {
                self.gate_discovery && candidates.iter().all(|g| g.is_expired(now))
            }
            Need::Discovery | Need::UnknownTool => true,
        };
        let (missing, expired) = match need {
            Need::Tool { scopes, .. } if !like_discovery => {
                let expired = best.as_ref().is_some_and(|b| b.expired);
                (best.map_or_else(|| scopes.to_vec(), |b| b.scopes), expired)
            }
            Need::Tool { scopes, .. } => (scopes.to_vec(), !candidates.is_empty()),
            // Everything the provider offers: the caller asked to see the tools.
            Need::Discovery | Need::UnknownTool => (
                self.scopes.iter().map(|(name, _)| name.clone()).collect(),
                !candidates.is_empty(),
            ),
        };
        let shown: &[String] = if like_discovery { &[] } else { &missing };
        self.charge_refusal(caller, now)?;
        // `candidates` are the grants for this identity, in force or not: the user decided
        // on it before, and its request may take a reserved slot.
        let known = !candidates.is_empty();
        match self.pending_queue().record(caller, &missing, known, now) {
            Some(id) => log::info!(
                "CETP: {} needs approval for {:?} (pending request {id})",
                Escaped(&caller.describe()),
                missing
            ),
            None => log::warn!(
                "CETP: {} needs approval for {:?}, but the list of pending requests is full; it is not recorded until one expires",
                Escaped(&caller.describe()),
                missing
            ),
        }
        Err(self.auth_required(&who(caller), shown, expired, view.decisions_lost))
    }

    /// Counts one refused call against `caller`'s refused-call limit
    /// ([`Auth::refused_rate_limit`]); over it, the answer is `RATE_LIMITED` instead and
    /// nothing is recorded.
    fn charge_refusal(&self, caller: &Caller, now: u64) -> Result<(), ToolError> {
        let limit = &self.refused_rate_limit;
        self.limiter
            .take(caller, Some(rate::REFUSED_BUCKET), limit, now)
            .map_err(|wait| {
                ToolError::rate_limited(format!(
                    "too many refused calls from this app to {} (at most {} at once, then one every {} ms); only the user can let it in, in the {} app; {}",
                    self.provider_name,
                    limit.burst(),
                    limit.refill_every().as_millis(),
                    self.provider_name,
                    rate::retry_text(wait)
                ))
                .with_retry_after(wait)
            })
    }

    fn auth_required(
        &self,
        who: &str,
        missing: &[String],
        expired: bool,
        recovered: bool,
    ) -> ToolError {
        let name = &self.provider_name;
        let mut message = if expired {
            format!("the user's approval for {who} to use {name} has expired")
        } else if missing.is_empty() {
            format!("the user has not yet allowed {who} to use {name}")
        } else {
            let list: Vec<String> = missing.iter().map(|s| format!("`{s}`")).collect();
            format!(
                "the user has not yet allowed {who} to read {} from {name}",
                if list.len() == 1 {
                    format!("scope {}", list[0])
                } else {
                    format!("scopes {}", list.join(", "))
                }
            )
        };
        if recovered {
            message.push_str(" (its saved approvals were unreadable and have been reset)");
        }
        message.push_str(&format!(
            "; ask the user to approve it in the {name} app, then call again"
        ));
        let descriptions: Vec<&str> = missing
            .iter()
            .map(|s| {
                self.scopes
                    .iter()
                    .find(|(n, _)| n == s)
                    .map_or(s.as_str(), |(n, d)| if d.trim().is_empty() { n } else { d })
            })
            .collect();
        let package = self.app_package.clone();
        let opened = match &package {
            Some(package) => format!("{name} ({package})"),
            None => name.clone(),
        };
        let hint = match &self.hint_template {
            Some(template) => template
                .replace("{provider_package}", package.as_deref().unwrap_or(name))
                .replace("{provider}", name)
                .replace("{package}", who)
                .replace(
                    "{scopes}",
                    &if descriptions.is_empty() {
                        "its tools".to_owned()
                    } else {
                        descriptions.join(", ")
                    },
                ),
            None if descriptions.is_empty() => {
                format!("Open {opened} and allow {who} to use its tools")
            }
            None => format!(
                "Open {opened} and allow {who} to read: {}",
                descriptions.join(", ")
            ),
        };
        let mut err = ToolError::auth_required(message).with_hint(hint);
        if let Some(action) = self.authorize_intent() {
            err = err.with_authorize_intent(action);
        }
        err
    }

    /// The declared scope `name` described in the language `locale` (the default text when it
    /// has no translation, or for `None`).
    pub(crate) fn scope_info(&self, name: &str, default: &str, locale: Option<&str>) -> ScopeInfo {
        let text = self
            .scope_texts
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, text)| locale.and_then(|l| text.translation(l)))
            .unwrap_or(default);
        ScopeInfo {
            name: name.to_owned(),
            description: text.to_owned(),
        }
    }

    fn scope_infos(&self, names: &BTreeSet<String>, locale: Option<&str>) -> Vec<ScopeInfo> {
        let mut out: Vec<ScopeInfo> = self
            .scopes
            .iter()
            .filter(|(n, _)| names.contains(n))
            .map(|(n, d)| self.scope_info(n, d, locale))
            .collect();
        for name in names {
            if !self.scopes.iter().any(|(n, _)| n == name) {
                out.push(ScopeInfo {
                    name: name.clone(),
                    description: String::new(),
                });
            }
        }
        out
    }

    /// The requests waiting for the user, in order of first request (a caller asking again
    /// keeps its place).
    #[cfg(any(test, feature = "test-util"))]
    pub fn pending(&self) -> Vec<PendingRequest> {
        self.pending_from(None)
    }

    /// The requests from `uid` only, or all of them for `None`, in order of first request.
    /// The consent dialog passes the UID of the app that opened it, so a look-alike app's
    /// request is never offered on a screen another app started.
    #[cfg(any(test, feature = "test-util"))]
    pub fn pending_from(&self, uid: Option<u32>) -> Vec<PendingRequest> {
        self.pending_in(uid, None)
    }

    /// The pending requests of `uid` (all of them for `None`), with the scopes described in the
    /// language `locale` (a BCP 47 tag), as the screens show them.
    pub fn pending_in(&self, uid: Option<u32>, locale: Option<&str>) -> Vec<PendingRequest> {
        let now = self.clock.now_ms();
        let data = self.bound_store().map(|s| s.snapshot());
        let grants = data.as_ref().map_or(&[][..], |d| &d.grants[..]);
        let queue = self.pending_queue();
        queue
            .entries(now)
            .filter(|e| uid.is_none() || e.uid == uid)
            .map(|e| {
                let asked: Vec<&str> = e.scopes.iter().map(String::as_str).collect();
                let holds = Holdings::of(grants, &e.packages, &asked, &self.scopes, now);
                PendingRequest {
                    id: e.id.clone(),
                    uid: e.uid,
                    packages: e.packages.clone(),
                    scopes: self.scope_infos(&e.scopes, locale),
                    first_requested_ms: e.first_requested_ms,
                    requested_at_ms: e.requested_at_ms,
                    expires_at_ms: e.expires_at_ms(),
                    asks_for_more: !holds.is_empty(),
                    holds,
                }
            })
            .collect()
    }

    /// The stored grants (empty while no store is bound). Expired grants stay listed until the
    /// next change of the store.
    #[cfg(test)]
    pub fn grants(&self) -> Vec<Grant> {
        self.bound_store()
            .map(|s| s.snapshot().grants.clone())
            .unwrap_or_default()
    }

    /// The stored denials (empty while no store is bound).
    #[cfg(test)]
    pub fn denials(&self) -> Vec<Denial> {
        self.bound_store()
            .map(|s| s.snapshot().denials.clone())
            .unwrap_or_default()
    }
}

/// `caller`'s view of `store`: the one its entry keeps while the store's generation is the one
/// it was made at (a load of one atomic that only a change of the store writes), else one made
/// from the store's current state under its read lock, and kept in the entry for the next call.
fn view_of(entry: Option<&CallerEntry>, store: &GrantStore, caller: &Caller) -> Arc<GrantView> {
    let generation = store.generation();
    if let Some(kept) = entry
        .and_then(CallerEntry::grant_view)
        .filter(|v| v.generation == generation && v.caller == *caller)
    {
        return kept;
    }
    let (data, generation) = store.snapshot_at();
    let view = Arc::new(GrantView::of(&data, generation, caller));
    if let Some(entry) = entry {
        entry.keep_grant_view(Arc::clone(&view));
    }
    view
}

/// How well a grant / denial / allowlist entry for `package` (pinned to `cert` if `Some`)
/// matches `caller`: `None` = not at all, 1 = by package name, 2 = by name and certificate.
fn specificity(package: &str, cert: Option<&str>, caller: &Caller) -> Option<u8> {
    caller
        .packages()
        .iter()
        .filter(|p| p.name == package)
        .filter_map(|p| match cert {
            None => Some(1),
            Some(cert) => p
                .certificate_sha256
                .iter()
                .any(|d| d.eq_ignore_ascii_case(cert))
                .then_some(2),
        })
        .max()
}

/// The caller's package names for messages: `com.a` or `com.a, com.b`.
fn who(caller: &Caller) -> String {
    caller.package_names().collect::<Vec<_>>().join(", ")
}
