//! Tests of the authorization layer. This file: unit tests of the pieces. The modules below test
//! the behaviour through the hosts and the consent screens' admin interface, whose types are
//! crate-private; `support` holds their shared fixtures.

mod access_history;
mod admin_wire;
mod backup;
mod crash;
mod faults;
mod hostile;
mod inputs;
mod localized_texts;
mod pending;
mod policy;
mod scopes;
mod store;
mod support;
mod unsaved;

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
    assert!(parse(br#"{"version":2,"grants":[],"denials":[]}"#).is_ok());
    // Unknown fields from a later minor revision are ignored.
    assert!(parse(br#"{"version":2,"grants":[],"denials":[],"note":"x"}"#).is_ok());
    for (bad, why) in [
        (
            &br#"{"version":3,"grants":[],"denials":[]}"#[..],
            "unsupported version 3 (expected 2)",
        ),
        // Version 1 (one level and expiry per grant) was never released and is not read.
        (
            br#"{"version":1,"grants":[],"denials":[]}"#,
            "unsupported version 1 (expected 2)",
        ),
        (br#"{"grants":[],"denials":[]}"#, "no numeric `version`"),
        (br#"{"version":2}"#, "unexpected content"),
        (br#"[1,2]"#, "no numeric `version`"),
        (b"{\"version\":2,", "not valid JSON"),
        // Read as text first: bytes that are not UTF-8 are named as such.
        (
            b"{\"version\":2,\"grants\":[],\"denials\":[],\"x\":\"\xff\"}",
            "not valid JSON: not UTF-8",
        ),
        (
            br#"{"version":2,"grants":[{"package":"","scopes":{}}],"denials":[]}"#,
            "invalid grant",
        ),
        (
            br#"{"version":2,"grants":[{"package":"a","scopes":{"x":{"access":"all","granted_at_ms":0}}}],"denials":[]}"#,
            "unknown access level",
        ),
        (
            br#"{"version":2,"grants":[],"denials":[{"package":"a","certificate_sha256":"g1","denied_at_ms":0}]}"#,
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

/// The store's hand-written reader reads what serde's derived readers of the same types read
/// from a `serde_json::Value`: the same content, or an error for both, over files whose every
/// field takes each shape a file may hold (absent, `null`, the wrong type, out of range, a
/// struct as an object or as an array of its fields, unknown members).
#[test]
fn the_store_reader_reads_what_serde_reads() {
    use super::store::{FileIn, read_file};
    use serde_json::{Value, json};

    // A fixed sequence of choices (a linear congruential generator), so the test is repeatable.
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut pick = move |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(state >> 33).unwrap() % n
    };
    let odd = [
        Value::Null,
        json!(true),
        json!(-1),
        json!(1.5),
        json!("x"),
        json!([]),
        json!({}),
    ];
    // A struct with `fields` (name and good values), in one of the shapes serde reads or not.
    let shape = |pick: &mut dyn FnMut(usize) -> usize, fields: Vec<(&str, Vec<Value>)>| {
        let mut chosen = Vec::new();
        for (name, good) in fields {
            let value = match pick(10) {
                0 => None,
                1 => Some(odd[pick(odd.len())].clone()),
                _ => Some(good[pick(good.len())].clone()),
            };
            chosen.push((name, value));
        }
        match pick(8) {
            0 => Value::Array(
                chosen
                    .into_iter()
                    .map_while(|(_, v)| v)
                    .chain((pick(6) == 0).then(|| json!(1)))
                    .collect(),
            ),
            1 => odd[pick(odd.len())].clone(),
            _ => {
                let mut map = serde_json::Map::new();
                for (name, value) in chosen {
                    if let Some(value) = value {
                        map.insert(name.to_owned(), value);
                    }
                }
                if pick(4) == 0 {
                    map.insert("later".to_owned(), json!({"x": 1}));
                }
                Value::Object(map)
            }
        }
    };
    let scope_grant = |pick: &mut dyn FnMut(usize) -> usize| {
        shape(
            pick,
            vec![
                (
                    "access",
                    vec![
                        json!("full"),
                        json!("limited"),
                        json!("redacted"),
                        json!("all"),
                    ],
                ),
                ("granted_at_ms", vec![json!(0), json!(5), json!(u64::MAX)]),
                ("expires_at_ms", vec![Value::Null, json!(9)]),
            ],
        )
    };
    let (mut same_ok, mut same_err) = (0, 0);
    for _ in 0..3000 {
        let pick: &mut dyn FnMut(usize) -> usize = &mut pick;
        let mut grants = Vec::new();
        for _ in 0..pick(3) {
            let mut scopes = serde_json::Map::new();
            for name in ["notes", "calendar"].into_iter().take(pick(3)) {
                scopes.insert(name.to_owned(), scope_grant(pick));
            }
            let no_scope = scope_grant(pick);
            grants.push(shape(
                pick,
                vec![
                    ("package", vec![json!("com.example.agent")]),
                    ("certificate_sha256", vec![Value::Null, json!("5f2a")]),
                    ("scopes", vec![Value::Object(scopes)]),
                    ("no_scope", vec![Value::Null, no_scope]),
                ],
            ));
        }
        let mut denials = Vec::new();
        for _ in 0..pick(3) {
            denials.push(shape(
                pick,
                vec![
                    ("package", vec![json!("com.example.agent")]),
                    ("certificate_sha256", vec![Value::Null, json!("5f2a")]),
                    ("denied_at_ms", vec![json!(0), json!(7)]),
                ],
            ));
        }
        let file = match shape(
            pick,
            vec![
                ("grants", vec![Value::Array(grants)]),
                ("denials", vec![Value::Array(denials)]),
                ("decisions_lost", vec![json!(false), json!(true)]),
            ],
        ) {
            // The version is checked before; only an object has one.
            Value::Object(mut map) => {
                map.insert("version".to_owned(), json!(2));
                Value::Object(map)
            }
            _ => continue,
        };
        let by_hand = read_file(file.clone());
        let by_serde = serde_json::from_value::<FileIn>(file.clone());
        match (by_hand, by_serde) {
            (Ok(hand), Ok(serde)) => {
                assert_eq!(hand, serde, "{file}");
                same_ok += 1;
            }
            (Err(_), Err(_)) => same_err += 1,
            (hand, serde) => panic!("{file}: by hand {hand:?}, serde {serde:?}"),
        }
    }
    // Both outcomes were seen often.
    assert!(
        same_ok > 100 && same_err > 100,
        "{same_ok} read, {same_err} refused"
    );
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

// The examples of the crate-private store and admin types, as tests.

#[test]
fn an_approval_names_its_scopes_access_and_expiry() {
    let notes = Approval::scopes(["notes"]);
    assert_eq!(
        notes,
        Approval::scopes(vec!["notes".to_owned()]),
        "full access, no expiry by default"
    );
    let week = Duration::from_secs(7 * 24 * 3600);
    let some = Approval::scopes(["notes", "calendar"])
        .access(AccessLevel::Limited)
        .expires_after(week);
    assert_ne!(some, Approval::scopes(["notes", "calendar"]));
    assert_eq!(
        some,
        Approval::scopes(["notes", "calendar"])
            .expires_after(week)
            .access(AccessLevel::Limited)
    );
}

#[test]
fn a_scope_grant_parses_and_lapses_at_its_expiry() {
    let notes: ScopeGrant = serde_json::from_str(
        r#"{"access": "limited", "granted_at_ms": 0, "expires_at_ms": 60000}"#,
    )
    .unwrap();
    assert!(notes.access.is_limited());
    assert!(!notes.is_expired(59_999));
    assert!(notes.is_expired(60_000));
    let forever = ScopeGrant::new(AccessLevel::Full, 0, None);
    assert!(!forever.is_expired(u64::MAX));
}

#[test]
fn a_grant_gives_the_most_of_its_scopes_until_the_last_lapses() {
    let grant: Grant = serde_json::from_str(
        r#"{
            "package": "com.example.agent", "certificate_sha256": "5f2a",
            "scopes": {
                "notes": {"access": "limited", "granted_at_ms": 0, "expires_at_ms": 60000},
                "calendar": {"access": "full", "granted_at_ms": 0, "expires_at_ms": null}
            }
        }"#,
    )
    .unwrap();
    assert!(grant.scopes["notes"].access.is_limited());
    assert_eq!(
        grant.scope_names().collect::<Vec<_>>(),
        ["calendar", "notes"]
    );
    assert!(!grant.access().is_limited());
    assert_eq!(grant.expires_at_ms(), None);
    assert!(!grant.is_expired(60_000));

    let empty = Grant::new("com.example.agent", Some("5f2a".to_owned()));
    assert!(empty.scopes.is_empty() && empty.no_scope.is_none());
    assert!(empty.is_expired(0), "it admits nothing");
}

#[test]
fn the_authorize_intent_follows_the_app() {
    let provider = crate::Provider::builder("Notes").build().unwrap();
    assert_eq!(provider.authorizer().authorize_intent(), None);
    let files = tempfile::tempdir().unwrap();
    let provider = crate::Provider::builder("Notes")
        .app(crate::App::new("com.example.notes", files.path()))
        .build()
        .unwrap();
    assert_eq!(
        provider.authorizer().authorize_intent().as_deref(),
        Some("com.example.notes.CETP_AUTHORIZE")
    );
    assert!(provider.authorizer().store_path().is_some());
}

#[test]
fn full_access_only_takes_limited_access_off_the_consent_dialog() {
    let provider = crate::Provider::builder("Greeter").build().unwrap();
    assert!(provider.authorizer().state().offers_limited_access);
    let provider = crate::Provider::builder("Greeter")
        .full_access_only()
        .build()
        .unwrap();
    assert!(!provider.authorizer().state().offers_limited_access);
}

#[test]
fn the_admin_json_answers_the_state_and_names_an_unknown_request() {
    use admin::AdminResponse;
    let dir = tempfile::tempdir().unwrap();
    let provider = crate::Provider::builder("Notes")
        .app(crate::App::new("com.example.notes", dir.path()))
        .build()
        .unwrap();
    let reply: AdminResponse =
        serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
    assert!(reply.ok && reply.state.store_open && reply.state.pending.is_empty());
    let reply: AdminResponse =
        serde_json::from_str(&provider.handle_admin_json(r#"{"op":"deny","id":"nope"}"#)).unwrap();
    assert_eq!(reply.error.unwrap().kind, "unknown_request");
}

/// The reader of admin requests takes exactly what the screens may send: a field given twice is
/// malformed (never "the last one wins"), an optional field may be `null`, and `op` may be the
/// operation's index; a malformed request's message names the operation and the field.
#[test]
fn an_admin_request_is_read_strictly_and_its_errors_name_the_field() {
    use admin::{AdminRequest, LocalizedRequest};
    let read = |text: &str| serde_json::from_str::<LocalizedRequest>(text);
    let approve = AdminRequest::Approve {
        id: "r".to_owned(),
        scopes: vec!["notes".to_owned()],
        access: AccessLevel::Limited,
        duration_secs: None,
        caller_uid: Some(7),
    };
    for accepted in [
        r#"{"op":"approve","id":"r","scopes":["notes"],"access":"limited","caller_uid":7}"#,
        r#"{"caller_uid":7,"access":"limited","scopes":["notes"],"id":"r","op":"approve"}"#,
        r#"{"op":1,"id":"r","scopes":["notes"],"access":"limited","caller_uid":7,"duration_secs":null,"locale":null}"#,
    ] {
        assert_eq!(read(accepted).unwrap().request, approve, "{accepted}");
    }
    for (malformed, says) in [
        (
            r#"{"op":"approve","id":"r","scopes":[],"scopes":["notes"]}"#,
            "duplicate field `scopes`",
        ),
        (
            r#"{"op":"state","op":"approve","id":"r","scopes":[]}"#,
            "duplicate field `op`",
        ),
        (
            r#"{"op":"state","locale":"fr","locale":"de"}"#,
            "duplicate field `locale`",
        ),
        (r#"{"id":"r"}"#, "missing field `op`"),
        (r#"{"op":5}"#, "index is 0 to 4"),
        (r#"{"op":"grant_all"}"#, "unknown operation `grant_all`"),
        (
            r#"{"op":"deny","id":"r","scopes":[]}"#,
            "unknown field `scopes` for `deny`",
        ),
        (
            r#"{"op":"approve","id":"r"}"#,
            "missing field `scopes` for `approve`",
        ),
        (
            r#"{"op":"approve","id":"r","scopes":[],"access":null}"#,
            "`access` of `approve` must be a string",
        ),
        (
            r#"{"op":"approve","id":"r","scopes":[3]}"#,
            "`scopes` of `approve` must hold only strings",
        ),
        (
            r#"{"op":"approve","id":"r","scopes":[],"duration_secs":1.5}"#,
            "`duration_secs` of `approve` must be a whole number",
        ),
        (
            r#"{"op":"state","caller_uid":4294967296}"#,
            "`caller_uid` of `state` must be a whole number from 0 to 4294967295",
        ),
        (
            r#"{"op":"revoke","package":"p","certificate_sha256":7}"#,
            "`certificate_sha256` of `revoke` must be a string or null",
        ),
        (r#"["state"]"#, "expected an admin request"),
    ] {
        let error = read(malformed).unwrap_err().to_string();
        assert!(error.contains(says), "{malformed}: {error}");
    }
}

#[test]
fn an_admin_request_carries_the_screens_language_and_refuses_unknown_fields() {
    use admin::{AdminRequest, LocalizedRequest};
    let sent: LocalizedRequest =
        serde_json::from_str(r#"{"op": "state", "caller_uid": 10123, "locale": "fr-FR"}"#).unwrap();
    assert_eq!(sent.locale.as_deref(), Some("fr-FR"));
    assert!(matches!(
        sent.request,
        AdminRequest::State {
            caller_uid: Some(10123)
        }
    ));
    assert!(
        serde_json::from_str::<LocalizedRequest>(r#"{"op": "state", "locael": "fr"}"#).is_err()
    );
}
