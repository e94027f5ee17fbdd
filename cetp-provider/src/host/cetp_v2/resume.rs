//! Single-use `resume_token`s: what an `AUTH_REQUIRED` call was (caller, tool, a digest of its
//! `args` bytes, request id) and until when it may be resumed. A token is random (128 bits),
//! names one record, and is gone once presented, whatever the outcome. Only refused calls and
//! their retries come here, never an approved call, so one lock over a small bounded table is
//! enough.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use sha2::{Digest, Sha256};

use super::session::hex;

/// Tokens one UID may hold at once; its oldest goes first.
const MAX_PER_UID: usize = 8;
/// Tokens held at once for all callers; the one expiring first goes first.
const MAX_TOTAL: usize = 256;

/// What a token was issued for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resume {
    uid: u32,
    tool: String,
    args: [u8; 32],
    request_id: String,
    expires_at_ms: u64,
}

impl Resume {
    /// The call `uid` made: `tool` with `args` (absent and empty alike) under `request_id`,
    /// resumable until `expires_at_ms`.
    pub(crate) fn new(
        uid: u32,
        tool: &str,
        args: Option<&str>,
        request_id: &str,
        expires_at_ms: u64,
    ) -> Self {
        Resume {
            uid,
            tool: tool.to_owned(),
            args: digest(args),
            request_id: request_id.to_owned(),
            expires_at_ms,
        }
    }

    /// The caller's UID.
    pub(crate) fn uid(&self) -> u32 {
        self.uid
    }

    /// Whether `call` is this one again, before its expiry at `now_ms`.
    pub(crate) fn matches(&self, call: &Resume, now_ms: u64) -> bool {
        now_ms < self.expires_at_ms
            && self.uid == call.uid
            && self.tool == call.tool
            && self.args == call.args
            && self.request_id == call.request_id
    }
}

fn digest(args: Option<&str>) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(&Sha256::digest(args.unwrap_or_default().as_bytes()));
    out
}

/// The tokens a host issued and that were not presented yet.
#[derive(Debug, Default)]
pub(crate) struct Resumes {
    held: Mutex<HashMap<String, Resume>>,
}

impl Resumes {
    /// A new token for `resume`, or `None` when the OS gave no random bytes. Expired tokens
    /// are dropped first; over the bounds, the caller's oldest, then the soonest to expire.
    pub(crate) fn issue(&self, resume: Resume, now_ms: u64) -> Option<String> {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).ok()?;
        let token = hex(&nonce);
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        held.retain(|_, r| r.expires_at_ms > now_ms);
        let mine = held.values().filter(|r| r.uid == resume.uid).count();
        if mine >= MAX_PER_UID {
            drop_first(&mut held, |r| r.uid == resume.uid);
        }
        if held.len() >= MAX_TOTAL {
            drop_first(&mut held, |_| true);
        }
        held.insert(token.clone(), resume);
        Some(token)
    }

    /// The record `token` names, removed: a token works once.
    pub(crate) fn take(&self, token: &str) -> Option<Resume> {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(token)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// Removes the record among those `which` selects that expires first.
fn drop_first(held: &mut HashMap<String, Resume>, which: impl Fn(&Resume) -> bool) {
    let first = held
        .iter()
        .filter(|(_, r)| which(r))
        .min_by_key(|(_, r)| r.expires_at_ms)
        .map(|(token, _)| token.clone());
    if let Some(token) = first {
        held.remove(&token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(uid: u32, args: &str) -> Resume {
        Resume::new(uid, "find", Some(args), "id-1", 1_000)
    }

    #[test]
    fn a_token_works_once_and_only_for_the_same_call_before_its_expiry() {
        let resumes = Resumes::default();
        let token = resumes.issue(call(7, r#"{"a":1}"#), 0).unwrap();
        assert_eq!(token.len(), 32);
        let held = resumes.take(&token).unwrap();
        assert!(held.matches(&call(7, r#"{"a":1}"#), 999));
        assert!(!held.matches(&call(7, r#"{"a":1}"#), 1_000), "expired");
        assert!(!held.matches(&call(7, r#"{"a": 1}"#), 0), "other bytes");
        assert!(!held.matches(&call(8, r#"{"a":1}"#), 0), "other UID");
        let other_tool = Resume::new(7, "other", Some(r#"{"a":1}"#), "id-1", 1_000);
        assert!(!held.matches(&other_tool, 0));
        let other_id = Resume::new(7, "find", Some(r#"{"a":1}"#), "id-2", 1_000);
        assert!(!held.matches(&other_id, 0));
        assert_eq!(resumes.take(&token), None, "used");
        assert_eq!(
            Resume::new(7, "find", None, "id", 1),
            Resume::new(7, "find", Some(""), "id", 1),
            "absent and empty args are the same call"
        );
    }

    #[test]
    fn one_caller_cannot_fill_the_table_and_expired_tokens_go() {
        let resumes = Resumes::default();
        let first = resumes.issue(call(7, "{}"), 0).unwrap();
        for _ in 0..MAX_PER_UID {
            resumes.issue(call(7, "{}"), 0).unwrap();
        }
        assert_eq!(resumes.len(), MAX_PER_UID);
        let other = resumes.issue(call(8, "{}"), 0).unwrap();
        assert_eq!(resumes.len(), MAX_PER_UID + 1);
        assert!(
            resumes.take(&other).is_some(),
            "another UID keeps its token"
        );
        // Held tokens past their expiry are dropped by the next issue.
        resumes.issue(call(9, "{}"), 1_000).unwrap();
        assert_eq!(resumes.len(), 1);
        assert_eq!(resumes.take(&first), None);
        for uid in 0..(MAX_TOTAL as u32 + 10) {
            resumes.issue(call(100 + uid, "{}"), 0).unwrap();
        }
        assert_eq!(resumes.len(), MAX_TOTAL);
    }
}
