//! Single-use `resume_token`s: what an `AUTH_REQUIRED` call was (caller, a digest of the tool
//! name, a digest of its `args` bytes, request id) and from when until when it may be resumed.
//! A token is random (128 bits), names one record, and is gone once its own caller presents it,
//! whatever the outcome; another UID presenting it learns nothing and leaves it as it was. Only
//! refused calls and their retries come here, never an approved call, so one lock over a small
//! bounded table is enough.
//!
//! One UID's refusals never cost another UID its token: a UID over its share drops its own
//! oldest, and when the table is full a UID makes room only among its own tokens; a UID that
//! holds none then gets no token (the host answers `UNAVAILABLE`, see `CetpV2Host`).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use sha2::{Digest, Sha256};

use super::session::hex;

/// Tokens one UID may hold at once; its oldest goes first.
const MAX_PER_UID: usize = 8;
/// Tokens held at once for all callers: room for 128 UIDs at their full share. A record holds
/// two digests, a request id (a UUID) and three numbers, about 200 bytes with its key, so a full
/// table is about 200 KiB; 128 apps refused at once is far more than a phone has agents.
const MAX_TOTAL: usize = 128 * MAX_PER_UID;

/// What a token was issued for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resume {
    uid: u32,
    tool: [u8; 32],
    args: [u8; 32],
    request_id: String,
    issued_at_ms: u64,
    expires_at_ms: u64,
}

impl Resume {
    /// The call `uid` made at `issued_at_ms`: `tool` with `args` (absent and empty alike) under
    /// `request_id`, resumable until `expires_at_ms`. The tool name and `args` are kept as
    /// SHA-256 digests, whatever their length.
    pub(crate) fn new(
        uid: u32,
        tool: &str,
        args: Option<&str>,
        request_id: &str,
        issued_at_ms: u64,
        expires_at_ms: u64,
    ) -> Self {
        Resume {
            uid,
            tool: digest(Some(tool)),
            args: digest(args),
            request_id: request_id.to_owned(),
            issued_at_ms,
            expires_at_ms,
        }
    }

    /// The caller's UID.
    pub(crate) fn uid(&self) -> u32 {
        self.uid
    }

    /// Whether `call` is this one again, at `now_ms` within the token's life: after its issue
    /// (a clock set back before it does not revive it) and before its expiry.
    pub(crate) fn matches(&self, call: &Resume, now_ms: u64) -> bool {
        self.issued_at_ms <= now_ms
            && now_ms < self.expires_at_ms
            && self.uid == call.uid
            && self.tool == call.tool
            && self.args == call.args
            && self.request_id == call.request_id
    }
}

fn digest(text: Option<&str>) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(&Sha256::digest(text.unwrap_or_default().as_bytes()));
    out
}

/// Why no token was issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoToken {
    /// The OS gave no random bytes.
    NoRandom,
    /// The table is full of other UIDs' tokens; the first of them lapses in this many ms.
    Full { retry_after_ms: u64 },
}

/// The tokens a host issued and that were not presented yet.
#[derive(Debug, Default)]
pub(crate) struct Resumes {
    held: Mutex<Held>,
}

/// The records by token, each with its place in the order of issue.
#[derive(Debug, Default)]
struct Held {
    issued: u64,
    records: HashMap<String, (u64, Resume)>,
}

impl Resumes {
    /// A new token for `resume`. Tokens past their expiry go first; a UID at its share then
    /// drops its own oldest, and a full table drops the caller's own oldest or, when the caller
    /// holds none, issues nothing ([`NoToken::Full`]): no other UID's token is ever dropped.
    pub(crate) fn issue(&self, resume: Resume, now_ms: u64) -> Result<String, NoToken> {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).map_err(|_| NoToken::NoRandom)?;
        let token = hex(&nonce);
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let records = &mut held.records;
        records.retain(|_, (_, r)| r.expires_at_ms > now_ms);
        let uid = resume.uid;
        let mine = records.values().filter(|(_, r)| r.uid == uid).count();
        if mine >= MAX_PER_UID || (records.len() >= MAX_TOTAL && mine > 0) {
            drop_oldest(records, uid);
        } else if records.len() >= MAX_TOTAL {
            let first = records.values().map(|(_, r)| r.expires_at_ms).min();
            let retry_after_ms = first.map_or(1, |at| at.saturating_sub(now_ms).max(1));
            return Err(NoToken::Full { retry_after_ms });
        }
        held.issued += 1;
        let order = held.issued;
        held.records.insert(token.clone(), (order, resume));
        Ok(token)
    }

    /// The record `token` names, removed, if `uid` holds it: a token works once, and only for
    /// its own caller (for anyone else it is unknown and stays as it was).
    pub(crate) fn take(&self, token: &str, uid: u32) -> Option<Resume> {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if held.records.get(token)?.1.uid != uid {
            return None;
        }
        held.records.remove(token).map(|(_, resume)| resume)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .records
            .len()
    }
}

/// Removes `uid`'s oldest record (the first issued).
fn drop_oldest(records: &mut HashMap<String, (u64, Resume)>, uid: u32) {
    let first = records
        .iter()
        .filter(|(_, (_, r))| r.uid == uid)
        .min_by_key(|(_, (order, _))| *order)
        .map(|(token, _)| token.clone());
    if let Some(token) = first {
        records.remove(&token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(uid: u32, args: &str) -> Resume {
        Resume::new(uid, "find", Some(args), "id-1", 0, 1_000)
    }

    /// A call of `uid` resumable until `expires_at_ms`.
    fn until(uid: u32, expires_at_ms: u64) -> Resume {
        Resume::new(uid, "find", Some("{}"), "id-1", 0, expires_at_ms)
    }

    #[test]
    fn a_token_works_once_and_only_for_the_same_call_within_its_life() {
        let resumes = Resumes::default();
        let token = resumes.issue(call(7, r#"{"a":1}"#), 0).unwrap();
        assert_eq!(token.len(), 32);
        let held = resumes.take(&token, 7).unwrap();
        assert!(held.matches(&call(7, r#"{"a":1}"#), 999));
        assert!(!held.matches(&call(7, r#"{"a":1}"#), 1_000), "expired");
        assert!(!held.matches(&call(7, r#"{"a": 1}"#), 0), "other bytes");
        assert!(!held.matches(&call(8, r#"{"a":1}"#), 0), "other UID");
        let other_tool = Resume::new(7, "other", Some(r#"{"a":1}"#), "id-1", 0, 1_000);
        assert!(!held.matches(&other_tool, 0));
        let other_id = Resume::new(7, "find", Some(r#"{"a":1}"#), "id-2", 0, 1_000);
        assert!(!held.matches(&other_id, 0));
        assert_eq!(resumes.take(&token, 7), None, "used");
        assert_eq!(
            Resume::new(7, "find", None, "id", 0, 1),
            Resume::new(7, "find", Some(""), "id", 0, 1),
            "absent and empty args are the same call"
        );
        // Issued at 500: a clock set back before that does not make it valid again.
        let later = Resume::new(7, "find", None, "id", 500, 1_000);
        assert!(later.matches(&later, 500));
        assert!(!later.matches(&later, 499), "before its issue");
    }

    #[test]
    fn a_token_presented_by_another_uid_is_unknown_and_left_intact() {
        let resumes = Resumes::default();
        let token = resumes.issue(call(7, "{}"), 0).unwrap();
        assert_eq!(resumes.take(&token, 8), None, "not 8's");
        assert_eq!(resumes.len(), 1, "still held");
        assert!(resumes.take(&token, 7).is_some(), "its own caller's");
    }

    #[test]
    fn the_record_keeps_digests_not_the_callers_text() {
        let name = "n".repeat(4096);
        let resume = Resume::new(7, &name, Some("{}"), "id", 0, 1);
        let kept = format!("{resume:?}");
        assert!(!kept.contains("nnnn"), "the name is not kept");
        assert!(kept.len() < 1024, "{} characters", kept.len());
        assert!(resume.matches(&Resume::new(7, &name, Some("{}"), "id", 0, 1), 0));
        assert!(!resume.matches(&Resume::new(7, &name[1..], Some("{}"), "id", 0, 1), 0));
    }

    #[test]
    fn a_uid_over_its_share_drops_its_own_oldest_never_anothers() {
        let resumes = Resumes::default();
        // The victim's token expires first: a table dropping the soonest to expire of any UID
        // would take it.
        let victim = resumes.issue(until(8, 100), 0).unwrap();
        let first = resumes.issue(until(7, 1_000), 0).unwrap();
        for _ in 0..3 * MAX_PER_UID {
            resumes.issue(until(7, 1_000), 0).unwrap();
        }
        assert_eq!(resumes.len(), MAX_PER_UID + 1);
        assert_eq!(resumes.take(&first, 7), None, "7's oldest went");
        assert!(resumes.take(&victim, 8).is_some(), "8 keeps its token");
        // Held tokens past their expiry are dropped by the next issue.
        resumes.issue(call(9, "{}"), 1_000).unwrap();
        assert_eq!(resumes.len(), 1);
    }

    #[test]
    fn a_full_table_costs_no_uid_its_token() {
        let resumes = Resumes::default();
        // The victim's token expires first: a table dropping the soonest to expire of any UID
        // would take it.
        let victim = resumes.issue(until(1, 100), 0).unwrap();
        let uids = u32::try_from(MAX_TOTAL / MAX_PER_UID).unwrap() + 1;
        let mut refused = 0;
        for uid in 100..100 + uids {
            for _ in 0..MAX_PER_UID {
                match resumes.issue(until(uid, 1_000), 0) {
                    Ok(_) => {}
                    Err(NoToken::Full { retry_after_ms }) => {
                        assert_eq!(retry_after_ms, 100, "when the victim's lapses");
                        refused += 1;
                    }
                    Err(NoToken::NoRandom) => panic!("no random bytes"),
                }
            }
        }
        assert_eq!(resumes.len(), MAX_TOTAL);
        assert!(refused > 0, "the last UID got no token");
        assert!(
            resumes.take(&victim, 1).is_some(),
            "the victim keeps its token"
        );
        // A UID that holds tokens makes room among its own.
        let own = resumes.issue(until(100, 1_000), 0).unwrap();
        assert!(resumes.take(&own, 100).is_some());
        assert_eq!(resumes.len(), MAX_TOTAL - 2);
    }
}
