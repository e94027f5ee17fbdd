//! Grants per scope: an approval changes only the scopes it names, with the access level and
//! expiry the user chose for them; a call gets the most restrictive level of the scopes it
//! needs; the admin state shows, per scope, what an app already has. Through `CetpV1Host::call`
//! and the consent dialog's JSON.

use super::support;

use std::time::Duration;

use cetp_provider::auth::{Auth, ManualClock};
use cetp_provider::{ErrorCode, Provider};
use serde_json::{Value, json};
use support::*;

const T0: u64 = 1_767_225_600_000;
const HOUR_MS: u64 = 3_600_000;

fn admin(provider: &Provider, request: &str) -> Value {
    serde_json::from_str(&provider.handle_admin_json(request)).expect("admin JSON")
}

/// Calls `tool` as the agent (refused), then approves the agent's request from the screen's
/// JSON with `fields` (`"scopes"`, `"access"`, `"duration_secs"`).
fn ask_and_approve(provider: &Provider, tool: &str, fields: &str) {
    assert_eq!(
        call(provider, &agent(), tool).error_code(),
        Some(ErrorCode::AuthRequired)
    );
    let id = pending_id_for(provider, &agent());
    let reply = admin(
        provider,
        &format!(r#"{{"op":"approve","id":"{id}",{fields}}}"#),
    );
    assert_eq!(reply["ok"], true, "{reply}");
}

fn access_seen(provider: &Provider, tool: &str) -> Value {
    call(provider, &agent(), tool).data_json().unwrap()["access"].clone()
}

fn with_clock(dir: &std::path::Path, clock: &ManualClock) -> Provider {
    provider(Auth::user_approval().store_dir(dir).clock(clock.clone()))
}

#[test]
fn a_later_approval_changes_only_the_scopes_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let provider = with_clock(dir.path(), &clock);
    // `notes`, limited, for an hour.
    ask_and_approve(
        &provider,
        "read_notes",
        r#""scopes":["notes"],"access":"limited","duration_secs":3600"#,
    );
    clock.advance(Duration::from_secs(60));
    // Later `calendar` only, full, forever (agenda needs both, so `calendar` is what it lacks).
    ask_and_approve(
        &provider,
        "agenda",
        r#""scopes":["calendar"],"access":"full""#,
    );

    // `notes` is still what the user chose for it.
    assert_eq!(access_seen(&provider, "read_notes"), "limited");
    // A tool needing both gets the most restrictive of the two.
    assert_eq!(access_seen(&provider, "agenda"), "limited");

    // The screen sees each scope's level and expiry; the grant-wide fields say the most the
    // app has (full somewhere, lasting as long as its longest scope).
    let state = admin(&provider, r#"{"op":"state"}"#);
    let grant = &state["state"]["grants"][0];
    assert_eq!(grant["scopes"], json!(["notes", "calendar"]), "{grant}");
    assert_eq!(
        grant["per_scope"],
        json!([
            {"scope": "notes", "access": "limited", "granted_at_ms": T0,
             "expires_at_ms": T0 + HOUR_MS, "expired": false},
            {"scope": "calendar", "access": "full", "granted_at_ms": T0 + 60_000,
             "expires_at_ms": null, "expired": false}
        ]),
        "{grant}"
    );
    assert_eq!(grant["access"], "full", "{grant}");
    assert_eq!(grant["expires_at_ms"], Value::Null, "{grant}");
    assert_eq!(grant["granted_at_ms"], T0 + 60_000, "{grant}");

    // An hour later `notes` has lapsed, and only `notes`.
    clock.set_ms(T0 + HOUR_MS);
    let answer = call(&provider, &agent(), "read_notes");
    assert_eq!(answer.error_code(), Some(ErrorCode::AuthRequired));
    assert!(
        answer.error_message().unwrap().contains("has expired"),
        "{answer}"
    );
    assert_eq!(
        call(&provider, &agent(), "agenda").error_code(),
        Some(ErrorCode::AuthRequired)
    );
    // What needs no scope is judged by the scopes still in force: `calendar`, full.
    assert_eq!(access_seen(&provider, "ping"), "full");
    // The screens are told which scope lapsed; they word it from that, not from the times.
    let state = admin(&provider, r#"{"op":"state"}"#);
    let lapsed = &state["state"]["grants"][0]["per_scope"];
    assert_eq!(lapsed[0]["scope"], "notes", "{lapsed}");
    assert_eq!(lapsed[0]["expired"], true, "{lapsed}");
    assert_eq!(lapsed[1]["expired"], false, "{lapsed}");

    // Re-approving `notes` (full, for a day) leaves `calendar` as it was.
    let id = pending_id_for(&provider, &agent());
    let reply = admin(
        &provider,
        &format!(
            r#"{{"op":"approve","id":"{id}","scopes":["notes"],"access":"full","duration_secs":86400}}"#
        ),
    );
    assert_eq!(reply["ok"], true, "{reply}");
    let grant = &reply["state"]["grants"][0];
    assert_eq!(
        grant["per_scope"],
        json!([
            {"scope": "notes", "access": "full", "granted_at_ms": T0 + HOUR_MS,
             "expires_at_ms": T0 + HOUR_MS + 24 * HOUR_MS, "expired": false},
            {"scope": "calendar", "access": "full", "granted_at_ms": T0 + 60_000,
             "expires_at_ms": null, "expired": false}
        ]),
        "{grant}"
    );
    assert_eq!(access_seen(&provider, "agenda"), "full");

    // And a restart reads the same back.
    drop(provider);
    let reopened = with_clock(dir.path(), &clock);
    let again = admin(&reopened, r#"{"op":"state"}"#);
    assert_eq!(again["state"]["grants"][0]["per_scope"], grant["per_scope"]);
}

/// A narrower approval of a scope replaces the wider one: approvals are not merged upwards.
#[test]
fn re_approving_a_scope_as_limited_makes_it_limited() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let provider = with_clock(dir.path(), &clock);
    ask_and_approve(
        &provider,
        "read_notes",
        r#""scopes":["notes"],"access":"full""#,
    );
    assert_eq!(access_seen(&provider, "read_notes"), "full");
    // The agent asks for `calendar`; the user approves `calendar`, limited, for a minute.
    ask_and_approve(
        &provider,
        "agenda",
        r#""scopes":["calendar"],"access":"limited","duration_secs":60"#,
    );
    assert_eq!(access_seen(&provider, "read_notes"), "full");
    assert_eq!(access_seen(&provider, "agenda"), "limited");
    clock.advance(Duration::from_secs(60));
    assert_eq!(access_seen(&provider, "read_notes"), "full");
    assert_eq!(
        call(&provider, &agent(), "agenda").error_code(),
        Some(ErrorCode::AuthRequired)
    );
}

/// A provider without scopes: the approval names none, and its level and expiry apply to
/// every tool.
#[test]
fn a_provider_without_scopes_keeps_its_access_level_and_expiry() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let provider = Provider::builder("Ping")
        .tool(Ping)
        .auth(
            Auth::user_approval()
                .store_dir(dir.path())
                .clock(clock.clone()),
        )
        .build()
        .unwrap();
    ask_and_approve(
        &provider,
        "ping",
        r#""scopes":[],"access":"limited","duration_secs":60"#,
    );
    assert_eq!(access_seen(&provider, "ping"), "limited");
    let state = admin(&provider, r#"{"op":"state"}"#);
    let grant = &state["state"]["grants"][0];
    assert_eq!(grant["scopes"], json!([]), "{grant}");
    assert_eq!(grant["per_scope"], json!([]), "{grant}");
    assert_eq!(
        grant["no_scope"],
        json!({"access": "limited", "granted_at_ms": T0, "expires_at_ms": T0 + 60_000,
               "expired": false}),
        "{grant}"
    );
    assert_eq!(grant["access"], "limited");
    assert_eq!(grant["expires_at_ms"], T0 + 60_000);
    clock.advance(Duration::from_secs(60));
    let answer = call(&provider, &agent(), "ping");
    assert!(
        answer.error_message().unwrap().contains("has expired"),
        "{answer}"
    );
    let state = admin(&provider, r#"{"op":"state"}"#);
    assert_eq!(
        state["state"]["grants"][0]["no_scope"]["expired"], true,
        "{state}"
    );
}

/// An app that holds only what a request naming no scope gave it (the tools that need no
/// scope) and now asks for a scope asks for more than it has: the dialog's state says so, with
/// what it holds.
#[test]
fn an_app_holding_only_the_no_scope_grant_asks_for_more() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let provider = with_clock(dir.path(), &clock);
    ask_and_approve(
        &provider,
        "ping",
        r#""scopes":[],"access":"limited","duration_secs":3600"#,
    );
    assert_eq!(access_seen(&provider, "ping"), "limited");
    assert_eq!(
        call(&provider, &agent(), "read_notes").error_code(),
        Some(ErrorCode::AuthRequired)
    );
    let uid = agent().uid().unwrap();
    let state = admin(
        &provider,
        &format!(r#"{{"op":"state","caller_uid":{uid}}}"#),
    );
    let request = &state["state"]["pending"][0];
    assert_eq!(request["scopes"][0]["name"], "notes", "{request}");
    assert_eq!(request["asks_for_more"], true, "{request}");
    assert_eq!(request["holds"]["scopes"], json!([]), "{request}");
    assert_eq!(
        request["holds"]["no_scope"]["access"], "limited",
        "{request}"
    );
    assert_eq!(request["holds"]["no_scope"]["expires_at_ms"], T0 + HOUR_MS);
}
