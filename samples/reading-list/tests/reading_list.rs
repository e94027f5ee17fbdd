//! The app's core writing (what the Kotlin side calls through UniFFI), and an agent reading the
//! same file through the provider's tools, in one library.

use cetp_provider::testing::{Agent, check_conformance};
use cetp_provider::{AccessLevel, App, ErrorCode, Provider};
use reading_core::{DATABASE, Shelf};
use serde_json::json;

fn started(files: &tempfile::TempDir) -> Provider {
    let app = App::new("dev.cetp.samples.readinglist", files.path());
    reading_core::provider(&app)
        .app(app)
        .build()
        .expect("the provider builds")
}

fn shelf(files: &tempfile::TempDir) -> std::sync::Arc<Shelf> {
    let path = files.path().join(DATABASE);
    Shelf::open(path.to_str().unwrap().to_owned()).unwrap()
}

#[test]
fn the_provider_is_cetp_v1_conformant() {
    let files = tempfile::tempdir().unwrap();
    check_conformance(&started(&files)).unwrap();
}

#[test]
fn an_approved_agent_gets_a_cetp_v2_conformant_provider() {
    let files = tempfile::tempdir().unwrap();
    let provider = started(&files);
    let agent = Agent::new(&provider);
    agent.approve(AccessLevel::Full).unwrap();
    agent.check_v2_conformance().unwrap();
}

#[test]
fn what_the_app_writes_an_agent_reads() {
    let files = tempfile::tempdir().unwrap();
    let provider = started(&files);
    let agent = Agent::new(&provider);
    agent.approve(AccessLevel::Full).unwrap();
    // Before the app wrote anything: no file yet, an empty list.
    let empty = agent.execute("reading_now", "{}");
    assert_eq!(empty.data_json().unwrap(), json!([]), "{empty}");

    let shelf = shelf(&files);
    let war = shelf
        .add("War and Peace".into(), "Leo Tolstoy".into())
        .unwrap();
    shelf
        .add("Middlemarch".into(), "George Eliot".into())
        .unwrap();
    let found = agent.execute("find_books", r#"{"words":"tolstoy"}"#);
    assert_eq!(
        found.data_json().unwrap(),
        json!([{"id": war, "title": "War and Peace", "author": "Leo Tolstoy", "finished": false}])
    );

    // A later write is seen by the next call, through the connection the tools keep.
    shelf.finish(war).unwrap();
    let now = agent.execute("reading_now", "{}");
    let titles: Vec<String> = now
        .data_json()
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["title"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(titles, ["Middlemarch"]);
    assert_eq!(shelf.list().unwrap().len(), 2);
}

#[test]
fn an_agent_needs_the_users_approval_and_valid_arguments() {
    let files = tempfile::tempdir().unwrap();
    let provider = started(&files);
    let agent = Agent::new(&provider);
    let refused = agent.execute("reading_now", "{}");
    assert_eq!(
        refused.error_code(),
        Some(ErrorCode::AuthRequired),
        "{refused}"
    );
    agent.approve(AccessLevel::Full).unwrap();
    let wrong = agent.execute("find_books", r#"{"words":""}"#);
    assert_eq!(wrong.error_code(), Some(ErrorCode::InvalidArgs), "{wrong}");
}

#[test]
fn the_tools_cannot_write() {
    let files = tempfile::tempdir().unwrap();
    let shelf = shelf(&files);
    shelf.add("Emma".into(), "Jane Austen".into()).unwrap();
    let reader = reading_core::Reader::new(&files.path().join(DATABASE));
    // The reader's connection is read-only: a search with SQL in it is only a search.
    let found = reader.find("'; DELETE FROM books; --", 10).unwrap();
    assert!(found.is_empty());
    assert_eq!(shelf.list().unwrap().len(), 1);
}
