//! The minimal provider, driven the way an agent app drives it.

use cetp_provider::testing::Agent;
use cetp_provider::{AccessLevel, App, Caller, ErrorCode, Provider};

/// The provider as the Android template starts it: declared for the app, then built with it
/// (the user's approvals are stored in its no-backup directory).
fn started(files_dir: &tempfile::TempDir) -> Provider {
    let app = App::new("dev.cetp.samples.minimal", files_dir.path());
    cetp_sample_minimal::provider(&app)
        .app(app)
        .build()
        .expect("the provider builds and its grant store opens")
}

/// Lets `agent` call: its first call is refused and queued, then the user approves it.
fn approve(agent: &Agent<'_>) {
    let first = agent.execute("greet", r#"{"name":"Ada"}"#);
    assert_eq!(first.error_code(), Some(ErrorCode::AuthRequired), "{first}");
    agent
        .approve_pending(AccessLevel::Full)
        .expect("the approval is stored");
}

#[test]
fn an_approved_agent_gets_a_conformant_provider() {
    let dir = tempfile::tempdir().unwrap();
    let provider = started(&dir);
    let agent = Agent::new(&provider);
    approve(&agent);
    agent.check_conformance().unwrap();
}

#[test]
fn an_approved_agent_gets_a_cetp_v2_conformant_provider() {
    let dir = tempfile::tempdir().unwrap();
    let provider = started(&dir);
    let agent = Agent::new(&provider);
    approve(&agent);
    agent.check_v2_conformance().unwrap();
}

#[test]
fn greet_answers_an_approved_agent() {
    let dir = tempfile::tempdir().unwrap();
    let provider = started(&dir);
    let agent = Agent::new(&provider);
    approve(&agent);
    let answer = agent.execute("greet", r#"{"name":"Zoë 🌱"}"#);
    assert_eq!(answer.data_json().unwrap(), "Hello, Zoë 🌱!");
}

#[test]
fn greet_needs_the_users_approval_first() {
    let dir = tempfile::tempdir().unwrap();
    let provider = started(&dir);
    let answer = Agent::new(&provider).execute("greet", r#"{"name":"Ada"}"#);
    assert_eq!(answer.error_code(), Some(ErrorCode::AuthRequired));
    assert_eq!(
        answer.get("authorize_intent"),
        Some("dev.cetp.samples.minimal.CETP_AUTHORIZE")
    );
    assert!(
        answer
            .get("resolution_hint")
            .is_some_and(|h| h.contains("Minimal sample"))
    );
}

#[test]
fn greet_rejects_a_missing_or_empty_name() {
    let dir = tempfile::tempdir().unwrap();
    let provider = started(&dir);
    let agent = Agent::new(&provider);
    approve(&agent);
    for args in ["{}", r#"{"name":""}"#, r#"{"name":42}"#] {
        let answer = agent.execute("greet", args);
        assert_eq!(
            answer.error_code(),
            Some(ErrorCode::InvalidArgs),
            "{args}: {answer}"
        );
        assert!(answer.error_message().unwrap().contains("name"), "{answer}");
    }
}

#[test]
fn greet_is_advertised_with_a_described_name_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let provider = started(&dir);
    let tools = Agent::new(&provider).list_tools().data_json().unwrap();
    let greet = &tools["tools"][0];
    assert_eq!(greet["name"], "greet");
    assert_eq!(greet["parameters"]["required"], serde_json::json!(["name"]));
    let name = &greet["parameters"]["properties"]["name"];
    assert_eq!(name["type"], "string");
    assert_eq!(
        name["description"],
        "The name of the person to greet. 1 to 100 characters."
    );
    assert_eq!(name["minLength"], 1);
}

#[test]
fn another_app_is_not_covered_by_the_first_apps_approval() {
    let dir = tempfile::tempdir().unwrap();
    let provider = started(&dir);
    approve(&Agent::new(&provider));
    let stranger = Agent::new(&provider).as_caller(Caller::app(10_777, "com.example.other"));
    let answer = stranger.execute("greet", r#"{"name":"Ada"}"#);
    assert_eq!(answer.error_code(), Some(ErrorCode::AuthRequired));
}

/// `greet` returns a `String`, which has a JSON Schema: `list_tools` advertises it.
#[test]
fn greet_advertises_its_output_schema() {
    let dir = tempfile::tempdir().unwrap();
    let provider = started(&dir);
    let list = Agent::new(&provider).list_tools().data_json().unwrap();
    assert_eq!(
        list["tools"][0]["output_schema"],
        serde_json::json!({"type": "string"})
    );
}

#[test]
fn its_description_speaks_every_language_of_the_approval_screens() {
    let files_dir = tempfile::tempdir().unwrap();
    let provider = started(&files_dir);
    for &language in cetp_provider::localized::TEMPLATE_LANGUAGES {
        assert_eq!(
            provider.untranslated(language),
            Vec::<String>::new(),
            "{language}"
        );
    }
}
