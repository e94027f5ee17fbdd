//! Unit tests of the pieces; the behaviour through `CetpV1Host::call` is tested in
//! `tests/auth_*.rs`.

use std::time::Duration;

use super::callers::RateLimiter;
use super::pending::PendingQueue;
use super::rate::retry_text;
use super::store::parse;
use super::*;
use crate::context::AccessLevel;

#[test]
fn retry_text_rounds_up_to_whole_seconds() {
    assert_eq!(retry_text(Duration::from_millis(1)), "retry in 1 s");
    assert_eq!(retry_text(Duration::from_millis(1000)), "retry in 1 s");
    assert_eq!(retry_text(Duration::from_millis(1001)), "retry in 2 s");
    assert_eq!(retry_text(Duration::ZERO), "retry in 1 s");
}

#[test]
fn token_bucket_refills_with_time_and_tolerates_a_clock_going_back() {
    let limiter = RateLimiter::new(8, Arc::new(SystemClock));
    let limit = RateLimit::new(2, Duration::from_millis(500));
    let caller = Caller::app(1, "a");
    assert!(limiter.take(&caller, None, &limit, 10_000).is_ok());
    assert!(limiter.take(&caller, None, &limit, 10_000).is_ok());
    assert_eq!(
        limiter.take(&caller, None, &limit, 10_000),
        Err(Duration::from_millis(500))
    );
    assert_eq!(
        limiter.take(&caller, None, &limit, 10_200),
        Err(Duration::from_millis(300))
    );
    assert!(limiter.take(&caller, None, &limit, 10_500).is_ok());
    // The clock jumps back: no credit, no panic, no negative time.
    assert!(limiter.take(&caller, None, &limit, 1_000).is_err());
    // Refill is capped at the burst.
    assert!(limiter.take(&caller, None, &limit, 99_000).is_ok());
    assert!(limiter.take(&caller, None, &limit, 99_000).is_ok());
    assert!(limiter.take(&caller, None, &limit, 99_000).is_err());
}

#[test]
fn tracked_buckets_are_bounded_and_idle_ones_go_first() {
    let limit = RateLimit::new(1, Duration::from_secs(10));
    // Never more than the bound, however many callers.
    let limiter = RateLimiter::new(4, Arc::new(SystemClock));
    for uid in 0..50 {
        let _ = limiter.take(&Caller::app(uid, "x"), None, &limit, u64::from(uid));
        assert!(limiter.tracked() <= 4);
    }
    // Idle (refilled) buckets are dropped before busy ones, even if used more recently.
    let limiter = RateLimiter::new(2, Arc::new(SystemClock));
    let hot = Caller::app(11, "hot");
    let idle = Caller::app(10, "idle");
    assert!(limiter.take(&hot, None, &limit, 5_000).is_ok());
    assert!(limiter.take(&idle, None, &limit, 0).is_ok());
    // At 10 s `idle` has refilled and `hot` has not: the newcomer evicts `idle`, and `hot`
    // stays limited although its bucket is the least recently used.
    assert!(
        limiter
            .take(&Caller::app(12, "new"), None, &limit, 10_000)
            .is_ok()
    );
    assert_eq!(limiter.tracked(), 2);
    assert_eq!(
        limiter.take(&hot, None, &limit, 10_000),
        Err(Duration::from_secs(5))
    );
    // With no idle bucket, the least recently used goes.
    let limiter = RateLimiter::new(2, Arc::new(SystemClock));
    assert!(limiter.take(&Caller::app(1, "a"), None, &limit, 0).is_ok());
    assert!(limiter.take(&Caller::app(2, "b"), None, &limit, 1).is_ok());
    assert!(limiter.take(&Caller::app(3, "c"), None, &limit, 2).is_ok());
    assert!(
        limiter.take(&Caller::app(2, "b"), None, &limit, 3).is_err(),
        "b kept"
    );
    assert!(
        limiter.take(&Caller::app(1, "a"), None, &limit, 4).is_ok(),
        "a was evicted"
    );
}

#[test]
fn pending_queue_coalesces_keeps_one_request_per_uid_and_never_reuses_ids() {
    let mut queue = PendingQueue::new(2);
    let a = Caller::app(1, "a").with_certificate("AB");
    let id = queue.record(&a, &["x".into()], false, 1).unwrap();
    assert_eq!(
        queue.record(&a, &["y".into()], false, 2).as_deref(),
        Some(&*id)
    );
    let entry = queue.get(&id, 2).unwrap();
    assert_eq!(entry.scopes.iter().collect::<Vec<_>>(), ["x", "y"]);
    assert_eq!(entry.requested_at_ms, 2);
    assert_eq!(entry.packages[0].certificate_sha256, ["ab"]);
    // The same signed package under another UID merges into the request naming it.
    let same = queue.record(
        &Caller::app(9, "a").with_certificate("ab"),
        &["z".into()],
        false,
        3,
    );
    assert_eq!(same.as_deref(), Some(&*id));
    assert_eq!(queue.get(&id, 3).unwrap().uid, Some(1));
    assert_eq!(queue.entries(3).count(), 1);
    // Another certificate is another identity.
    let other = queue.record(&Caller::app(2, "a").with_certificate("cd"), &[], false, 3);
    assert!(other.is_some() && other.as_deref() != Some(&*id));
    // Full: a third identity is not recorded, and nobody is dropped for it.
    assert_eq!(queue.record(&Caller::app(3, "c"), &[], false, 4), None);
    assert!(queue.get(&id, 4).is_some());
    // An identity the user decided on before takes a reserved slot.
    assert!(queue.record(&Caller::app(4, "k"), &[], true, 4).is_some());
    // UID 2 under another identity replaces its own request.
    let renamed = queue
        .record(&Caller::app(2, "b").with_certificate("ef"), &[], false, 5)
        .unwrap();
    assert!(queue.get(other.as_deref().unwrap(), 5).is_none());
    assert_eq!(queue.entries(5).count(), 3);
    assert!(queue.remove(&renamed).is_some());
    assert!(queue.remove(&renamed).is_none());
    // Another queue (another provider) never hands out the same ids.
    let mut later = PendingQueue::new(2);
    assert_ne!(later.record(&a, &[], false, 6).as_deref(), Some(&*id));
}

#[test]
fn pending_requests_expire_idle_or_old() {
    let idle = u64::try_from(PENDING_IDLE_EXPIRY.as_millis()).unwrap();
    let max = u64::try_from(PENDING_MAX_AGE.as_millis()).unwrap();
    let mut queue = PendingQueue::new(4);
    let a = Caller::app(1, "a");
    let id = queue.record(&a, &[], false, 0).unwrap();
    assert_eq!(queue.get(&id, 0).unwrap().expires_at_ms(), idle);
    assert!(queue.get(&id, idle - 1).is_some());
    assert!(queue.get(&id, idle).is_none());
    // Asked for again and again, it still lapses at the maximum age.
    let id = queue.record(&a, &[], false, idle).unwrap();
    let mut now = idle;
    while now + 1_000 < idle + max {
        now += 1_000;
        assert_eq!(queue.record(&a, &[], false, now).as_deref(), Some(&*id));
    }
    assert_eq!(queue.get(&id, now).unwrap().expires_at_ms(), idle + max);
    let fresh = queue.record(&a, &[], false, idle + max).unwrap();
    assert_ne!(fresh, id);
    assert_eq!(
        queue.get(&fresh, idle + max).unwrap().first_requested_ms,
        idle + max
    );
}

#[test]
fn store_parsing_is_strict_about_what_matters() {
    assert!(parse(br#"{"version":1,"grants":[],"denials":[]}"#).is_ok());
    assert!(parse(br#"{"version":2,"grants":[],"denials":[]}"#).is_ok());
    // Unknown fields from a later minor revision are ignored.
    assert!(parse(br#"{"version":2,"grants":[],"denials":[],"note":"x"}"#).is_ok());
    // Version 1: the grant's level and expiry for each of its scopes.
    let v1 = parse(
        br#"{"version":1,"grants":[{"package":"a","certificate_sha256":"ab","scopes":["x","y"],
            "access":"limited","granted_at_ms":5,"expires_at_ms":9}],"denials":[]}"#,
    )
    .unwrap();
    let grant = &v1.grants[0];
    assert_eq!(grant.scope_names().collect::<Vec<_>>(), ["x", "y"]);
    assert!(
        grant
            .scopes
            .values()
            .all(|e| *e == ScopeGrant::new(AccessLevel::Limited, 5, Some(9)))
    );
    assert_eq!(grant.no_scope, None);
    for (bad, why) in [
        (&br#"{"version":3,"grants":[],"denials":[]}"#[..], "unsupported version 3"),
        (br#"{"grants":[],"denials":[]}"#, "no numeric `version`"),
        (br#"{"version":1}"#, "unexpected content"),
        (br#"[1,2]"#, "no numeric `version`"),
        (b"{\"version\":1,", "not valid JSON"),
        (
            br#"{"version":1,"grants":[{"package":"","scopes":[],"access":"full","granted_at_ms":0}],"denials":[]}"#,
            "invalid grant",
        ),
        (
            br#"{"version":1,"grants":[{"package":"a","scopes":[],"access":"all","granted_at_ms":0}],"denials":[]}"#,
            "unknown access level",
        ),
        (
            br#"{"version":1,"grants":[],"denials":[{"package":"a","certificate_sha256":"g1","denied_at_ms":0}]}"#,
            "invalid denial",
        ),
        (
            br#"{"version":2,"grants":[{"package":"a","certificate_sha256":"ab","scopes":{"":{"access":"full","granted_at_ms":0}}}],"denials":[]}"#,
            "invalid grant",
        ),
        (
            br#"{"version":2,"grants":[{"package":"a","scopes":["x"]}],"denials":[]}"#,
            "unexpected content",
        ),
    ] {
        let err = parse(bad).unwrap_err();
        assert!(err.contains(why), "{err} should mention {why}");
    }
}

#[test]
fn specificity_prefers_pinned_matches_and_rejects_other_certificates() {
    let caller = Caller::app(1, "a").with_certificate("c1").with_package("b");
    assert_eq!(specificity("a", None, &caller), Some(1));
    assert_eq!(specificity("a", Some("C1"), &caller), Some(2));
    assert_eq!(specificity("a", Some("c2"), &caller), None);
    assert_eq!(specificity("b", Some("c1"), &caller), None);
    assert_eq!(specificity("b", None, &caller), Some(1));
    assert_eq!(specificity("z", None, &caller), None);
}

#[test]
fn allow_signed_accepts_keytool_formatting() {
    let auth = Auth::allowlist().allow_signed("a", "AB:cd:EF");
    assert_eq!(
        auth.allowed[0].certificate_sha256.as_deref(),
        Some("abcdef")
    );
}
