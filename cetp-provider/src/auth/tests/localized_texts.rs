//! The app's texts in the user's language: a scope's description given as a [`Localized`]
//! text reaches the consent screens in the language their admin request names, the default
//! text everywhere else (the agent's hint, `get_provider_info` as built, a screen that names no
//! language), and [`Provider::untranslated`] names what a language lacks.

use super::support;

use cetp_provider::auth::Auth;
use cetp_provider::{Localized, Provider, wire};
use serde_json::{Value, json};
use support::*;

fn translated() -> Provider {
    Provider::builder("Notes")
        .description(Localized::new("Test notes").with("fr", "Notes de test"))
        .scope(
            "notes",
            Localized::new("your notes")
                .with("fr", "vos notes")
                .with("ar", "ملاحظاتك")
                .with("pt", "as suas notas")
                .with("pt-BR", "suas notas"),
        )
        .scope("calendar", "your calendar events")
        .tool(ReadNotes)
        .tool(Agenda)
        .tool(Ping)
        .auth(Auth::user_approval())
        .build()
        .expect("valid provider")
}

/// The admin reply to `{"op":"state"}` with `locale` (none for `None`).
fn state(provider: &Provider, locale: Option<&str>) -> Value {
    let mut request = json!({ wire::ADMIN_OP: wire::ADMIN_OP_STATE });
    if let Some(locale) = locale {
        request[wire::ADMIN_KEY_LOCALE] = json!(locale);
    }
    let reply: Value = serde_json::from_str(&provider.handle_admin_json(&request.to_string()))
        .expect("the reply is JSON");
    assert_eq!(reply[wire::ADMIN_KEY_OK], true, "{reply}");
    reply[wire::ADMIN_KEY_STATE].clone()
}

/// Every scope description the state carries, declared and pending, as `name=description`.
fn descriptions(state: &Value) -> Vec<String> {
    let listed = |scopes: &Value| -> Vec<String> {
        scopes
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                format!(
                    "{}={}",
                    s[wire::ADMIN_KEY_NAME].as_str().unwrap(),
                    s[wire::ADMIN_KEY_DESCRIPTION].as_str().unwrap()
                )
            })
            .collect()
    };
    let mut out = listed(&state[wire::ADMIN_KEY_SCOPES]);
    for request in state[wire::ADMIN_KEY_PENDING].as_array().unwrap() {
        out.extend(
            listed(&request[wire::ADMIN_KEY_SCOPES])
                .into_iter()
                .map(|d| format!("pending {d}")),
        );
    }
    out
}

#[test]
fn the_screens_get_the_scopes_in_the_language_they_ask_for() {
    let provider = translated();
    let refused = call(&provider, &agent(), "agenda");
    assert!(refused.error().is_some());

    assert_eq!(
        descriptions(&state(&provider, Some("fr-FR"))),
        [
            "notes=vos notes",
            "calendar=your calendar events",
            "pending notes=vos notes",
            "pending calendar=your calendar events",
        ]
    );
    assert_eq!(
        descriptions(&state(&provider, Some("ar")))[..1],
        ["notes=ملاحظاتك"]
    );
    assert_eq!(
        descriptions(&state(&provider, Some("pt-BR")))[..1],
        ["notes=suas notas"]
    );
    assert_eq!(
        descriptions(&state(&provider, Some("pt-PT")))[..1],
        ["notes=as suas notas"]
    );
    // A language without a translation, and a screen that names none: the default text.
    for locale in [Some("ja"), None] {
        assert_eq!(
            descriptions(&state(&provider, locale)),
            [
                "notes=your notes",
                "calendar=your calendar events",
                "pending notes=your notes",
                "pending calendar=your calendar events",
            ]
        );
    }
}

#[test]
fn a_decision_answers_in_the_screens_language_too() {
    let provider = translated();
    assert!(call(&provider, &agent(), "read_notes").error().is_some());
    let id = pending_id_for(&provider, &agent());
    let reply: Value = serde_json::from_str(
        &provider.handle_admin_json(
            &json!({
                wire::ADMIN_OP: wire::ADMIN_OP_DENY,
                wire::ADMIN_KEY_ID: id,
                wire::ADMIN_KEY_LOCALE: "fr",
            })
            .to_string(),
        ),
    )
    .unwrap();
    assert_eq!(reply[wire::ADMIN_KEY_OK], true, "{reply}");
    assert_eq!(
        descriptions(&reply[wire::ADMIN_KEY_STATE])[0],
        "notes=vos notes"
    );
}

#[test]
fn a_locale_that_is_not_a_string_or_a_misspelt_field_is_a_bad_request() {
    let provider = translated();
    for request in [
        r#"{"op":"state","locale":7}"#,
        r#"{"op":"state","locale":"fr","lang":"fr"}"#,
    ] {
        let reply: Value = serde_json::from_str(&provider.handle_admin_json(request)).unwrap();
        assert_eq!(reply[wire::ADMIN_KEY_OK], false, "{request}");
        assert_eq!(
            reply[wire::ADMIN_KEY_ERROR][wire::ADMIN_KEY_KIND],
            "bad_request"
        );
    }
}

/// A language tag is short: one of up to 128 bytes is read, a longer one (a megabyte, say) is
/// a `bad_request` that changes nothing, refused before it is split into subtags; and
/// [`Localized::translation`] finds nothing for it.
#[test]
fn a_locale_longer_than_a_language_tag_is_a_bad_request() {
    let provider = translated();
    assert!(call(&provider, &agent(), "read_notes").error().is_some());
    let id = pending_id_for(&provider, &agent());
    let longest = format!("fr-FR-u-{}", "-mu".repeat(40));
    assert_eq!(longest.len(), 128);
    assert_eq!(
        descriptions(&state(&provider, Some(&longest)))[0],
        "notes=vos notes"
    );
    let one_more = format!("{longest}x");
    let huge = format!("fr-{}", "a-".repeat(512 * 1024));
    for locale in [&one_more, &huge] {
        let request = json!({
            wire::ADMIN_OP: wire::ADMIN_OP_DENY,
            wire::ADMIN_KEY_ID: id,
            wire::ADMIN_KEY_LOCALE: locale,
        });
        let reply: Value =
            serde_json::from_str(&provider.handle_admin_json(&request.to_string())).unwrap();
        assert_eq!(reply[wire::ADMIN_KEY_OK], false, "{}", locale.len());
        assert_eq!(
            reply[wire::ADMIN_KEY_ERROR][wire::ADMIN_KEY_KIND],
            "bad_request"
        );
        assert_eq!(
            reply[wire::ADMIN_KEY_STATE][wire::ADMIN_KEY_PENDING][0][wire::ADMIN_KEY_ID],
            id.as_str(),
            "the request is still pending"
        );
    }
    let notes = Localized::new("your notes").with("fr", "vos notes");
    assert_eq!(notes.translation(&longest), Some("vos notes"));
    assert_eq!(notes.translation(&one_more), None);
    assert_eq!(notes.get(Some(&huge)), "your notes");
}

#[test]
fn the_agent_and_get_provider_info_keep_the_default_texts() {
    let provider = translated();
    let info: Value = serde_json::from_str(provider.provider_info_json()).unwrap();
    assert_eq!(info["description"], "Test notes");
    assert_eq!(info["scopes"][0]["description"], "your notes");
    assert_eq!(provider.description(), "Test notes");
    assert_eq!(provider.scopes()[0].1, "your notes");
    assert_eq!(provider.description_text().get(Some("fr")), "Notes de test");
    let refused = call(&provider, &agent(), "read_notes");
    let hint = refused
        .error()
        .unwrap()
        .resolution_hint()
        .unwrap_or_default()
        .to_owned();
    assert!(hint.contains("your notes"), "{hint}");
}

#[test]
fn untranslated_names_each_text_a_language_lacks() {
    let provider = translated();
    assert_eq!(provider.untranslated("fr-FR"), ["scope calendar"]);
    assert_eq!(
        provider.untranslated("pt-BR"),
        ["description", "scope calendar"]
    );
    assert_eq!(
        provider.untranslated("ja"),
        ["description", "scope notes", "scope calendar"]
    );
    // A provider without a description needs no translation of it.
    let bare = Provider::builder("Bare").build().unwrap();
    assert!(bare.untranslated("ja").is_empty());
}
