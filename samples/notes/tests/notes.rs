//! The notes provider, driven the way an agent app drives it: through `execute_tool`, after the
//! user approved the agent (with full or limited access), over the demo database.

use std::path::PathBuf;
use std::sync::LazyLock;

use cetp_provider::testing::Agent;
use cetp_provider::{AccessLevel, ErrorCode, Provider, Response};
use cetp_sample_notes::queries::MAX_SPAN_DAYS;
use cetp_sample_notes::{demo, provider_over};
use serde_json::{Value, json};
use tempfile::TempDir;

/// The demo database, written once per test run and shared by the tests (read-only).
static DATABASE: LazyLock<PathBuf> = LazyLock::new(|| {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cetp-sample-notes.db");
    demo::create(&path).expect("the demo database is written");
    path
});

/// A started provider (grant store in a fresh directory) and the agent's identity.
struct App {
    provider: Provider,
    _files_dir: TempDir,
}

impl App {
    fn start() -> App {
        let files_dir = tempfile::tempdir().unwrap();
        let provider = provider_over(DATABASE.clone())
            .app(cetp_provider::App::new(
                "dev.cetp.samples.notes",
                files_dir.path(),
            ))
            .build()
            .expect("the provider builds and its grant store opens");
        App {
            provider,
            _files_dir: files_dir,
        }
    }

    /// Started, with the default agent approved for `scopes` at `access`: the agent calls a
    /// tool needing each scope (refused, queued), then the user approves the request.
    fn approved(scopes: &[&str], access: AccessLevel) -> App {
        let app = App::start();
        let agent = app.agent();
        for scope in scopes {
            let (tool, args) = if *scope == "tags.read" {
                ("list_tags", "{}")
            } else {
                ("get_note", r#"{"id":1}"#)
            };
            let answer = agent.execute(tool, args);
            assert_eq!(
                answer.error_code(),
                Some(ErrorCode::AuthRequired),
                "{answer}"
            );
        }
        agent
            .approve_pending(access)
            .expect("the approval is stored");
        app
    }

    fn full() -> App {
        App::approved(&["notes.read", "tags.read"], AccessLevel::Full)
    }

    fn agent(&self) -> Agent<'_> {
        Agent::new(&self.provider)
    }

    fn data(&self, tool: &str, args: Value) -> Value {
        let answer = self.agent().execute(tool, &args.to_string());
        answer
            .data_json()
            .unwrap_or_else(|e| panic!("{tool} {args}: {e}"))
    }

    fn error(&self, tool: &str, args: Value) -> (ErrorCode, String) {
        let answer: Response = self.agent().execute(tool, &args.to_string());
        match (answer.error_code(), answer.error_message()) {
            (Some(code), Some(message)) => (code, message.to_owned()),
            _ => panic!("{tool} {args} should fail, got {answer}"),
        }
    }
}

fn ids(hits: &Value) -> Vec<i64> {
    hits.as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_i64().unwrap())
        .collect()
}

#[test]
fn an_approved_agent_gets_a_conformant_provider() {
    let app = App::full();
    app.agent().check_conformance().unwrap();
}

#[test]
fn an_approved_agent_gets_a_cetp_v2_conformant_provider() {
    let app = App::full();
    app.agent().check_v2_conformance().unwrap();
}

#[test]
fn list_tools_describes_five_tools_with_llm_ready_schemas() {
    let app = App::start();
    let list = app.agent().list_tools().data_json().unwrap();
    let tools = list["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "search_notes",
            "get_note",
            "list_tags",
            "notes_between",
            "find_text"
        ]
    );
    let search = &tools[0]["parameters"];
    assert_eq!(search["required"], json!(["query"]));
    assert_eq!(search["additionalProperties"], false);
    assert_eq!(search["properties"]["limit"]["maximum"], 50);
    let between = &tools[3]["parameters"];
    assert_eq!(between["required"], json!(["from", "to"]));
    for day in ["from", "to"] {
        assert_eq!(between["properties"][day]["type"], "string");
        assert_eq!(between["properties"][day]["format"], "date");
    }
    assert_eq!(tools[2]["parameters"]["properties"], json!({}));
    assert_eq!(tools[4]["parameters"]["required"], json!(["text"]));
}

#[test]
fn tools_need_the_users_approval_for_their_scope() {
    let app = App::approved(&["tags.read"], AccessLevel::Full);
    assert!(app.data("list_tags", json!({})).is_array());
    let (code, message) = app.error("search_notes", json!({"query": "café"}));
    assert_eq!(code, ErrorCode::AuthRequired);
    assert!(message.contains("notes.read"), "{message}");
}

#[test]
fn search_ignores_accents_and_case_and_ranks_with_snippets() {
    let app = App::full();
    let accented = app.data("search_notes", json!({"query": "Café", "limit": 50}));
    let plain = app.data("search_notes", json!({"query": "cafe", "limit": 50}));
    assert!(!ids(&accented).is_empty());
    assert_eq!(ids(&accented), ids(&plain));
    for hit in accented.as_array().unwrap() {
        let text = format!("{} {}", hit["title"], hit["snippet"]).to_lowercase();
        assert!(text.contains("café"), "{hit}");
        assert!(hit["created"].as_str().unwrap().len() == 19, "{hit}");
    }
    let snippets: Vec<&str> = accented
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["snippet"].as_str().unwrap())
        .collect();
    assert!(
        snippets
            .iter()
            .any(|s| s.to_lowercase().contains("**café**")),
        "{snippets:?}"
    );
}

#[test]
fn search_finds_cjk_words_and_filters_by_tag() {
    let app = App::full();
    let matcha = app.data("search_notes", json!({"query": "抹茶"}));
    assert!(!ids(&matcha).is_empty());
    assert!(
        matcha
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["tags"][0] == "日本語"
                || h["tags"].as_array().unwrap().contains(&json!("日本語")))
    );

    let everywhere = ids(&app.data("search_notes", json!({"query": "café", "limit": 50})));
    let french = app.data(
        "search_notes",
        json!({"query": "café", "tag": "français", "limit": 50}),
    );
    assert!(!ids(&french).is_empty() && ids(&french).len() < everywhere.len());
    for hit in french.as_array().unwrap() {
        assert!(
            hit["tags"].as_array().unwrap().contains(&json!("français")),
            "{hit}"
        );
    }
}

#[test]
fn search_requires_every_word_and_honours_the_limit() {
    let app = App::full();
    let tomatoes = ids(&app.data("search_notes", json!({"query": "tomatoes", "limit": 50})));
    let basil = ids(&app.data("search_notes", json!({"query": "basil", "limit": 50})));
    let both = ids(&app.data(
        "search_notes",
        json!({"query": "tomatoes basil", "limit": 50}),
    ));
    assert!(!both.is_empty());
    assert!(
        both.iter()
            .all(|id| tomatoes.contains(id) && basil.contains(id))
    );
    assert!(both.len() < basil.len());
    assert_eq!(
        ids(&app.data("search_notes", json!({"query": "basil", "limit": 1}))).len(),
        1
    );
}

#[test]
fn search_treats_query_syntax_as_plain_words() {
    let app = App::full();
    let hits = app.data("search_notes", json!({"query": "\"café\" OR (NOT* -"}));
    assert!(hits.is_array(), "{hits}");
}

#[test]
fn search_rejects_queries_it_cannot_run() {
    let app = App::full();
    let (code, message) = app.error("search_notes", json!({"query": "🌱 --"}));
    assert_eq!(code, ErrorCode::InvalidArgs);
    assert!(message.contains("no words to search for"), "{message}");
    for args in [
        json!({"query": ""}),
        json!({"query": "basil", "limit": 0}),
        json!({"query": "basil", "limit": 51}),
        json!({"query": "basil", "tag": ""}),
        json!({"tag": "work"}),
    ] {
        assert_eq!(
            app.error("search_notes", args.clone()).0,
            ErrorCode::InvalidArgs,
            "{args}"
        );
    }
}

#[test]
fn get_note_returns_the_whole_note() {
    let app = App::full();
    let first = &demo::notes()[0];
    let note = app.data("get_note", json!({"id": 1}));
    assert_eq!(note["id"], 1);
    assert_eq!(note["title"], first.title.as_str());
    assert_eq!(note["body"], first.body.as_str());
    assert_eq!(note["created"], first.created.as_str());
}

#[test]
fn get_note_explains_unknown_and_invalid_ids() {
    let app = App::full();
    let (code, message) = app.error("get_note", json!({"id": 99_999}));
    assert_eq!(code, ErrorCode::InvalidArgs);
    assert!(message.contains("no note with id 99999"), "{message}");
    for args in [json!({"id": 0}), json!({"id": "seven"}), json!({})] {
        assert_eq!(
            app.error("get_note", args.clone()).0,
            ErrorCode::InvalidArgs,
            "{args}"
        );
    }
}

#[test]
fn list_tags_counts_every_tag_most_used_first() {
    let app = App::full();
    let tags = app.data("list_tags", json!({}));
    let tags = tags.as_array().unwrap();
    let counts: Vec<u64> = tags.iter().map(|t| t["notes"].as_u64().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    let expected: usize = demo::notes().iter().map(|n| n.tags.len()).sum();
    assert_eq!(counts.iter().sum::<u64>(), expected as u64);
    assert!(tags.iter().any(|t| t["tag"] == "中文"));
}

#[test]
fn notes_between_lists_a_month_oldest_first_with_the_total() {
    let app = App::full();
    let march = app.data(
        "notes_between",
        json!({"from": "2023-03-01", "to": "2023-03-31", "limit": 3}),
    );
    let expected = demo::notes()
        .iter()
        .filter(|n| n.created.starts_with("2023-03"))
        .count();
    assert!(expected > 3);
    assert_eq!(march["total"], expected);
    let notes = march["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 3);
    let created: Vec<&str> = notes
        .iter()
        .map(|n| n["created"].as_str().unwrap())
        .collect();
    assert!(created.iter().all(|c| c.starts_with("2023-03")));
    assert!(created.windows(2).all(|w| w[0] <= w[1]));
    assert!(notes[0].get("body").is_none());

    let one_day = demo::notes()[0].created[..10].to_owned();
    let day = app.data("notes_between", json!({"from": one_day, "to": one_day}));
    assert_eq!(day["notes"][0]["id"], 1);
}

#[test]
fn notes_between_explains_bad_ranges() {
    let app = App::full();
    let (code, message) = app.error(
        "notes_between",
        json!({"from": "2024-05-01", "to": "2024-04-01"}),
    );
    assert_eq!(code, ErrorCode::InvalidArgs);
    assert!(
        message.contains("`from` (2024-05-01) is after `to` (2024-04-01)"),
        "{message}"
    );

    let (code, message) = app.error(
        "notes_between",
        json!({"from": "2023-01-01", "to": "2024-12-31"}),
    );
    assert_eq!(code, ErrorCode::InvalidArgs);
    assert!(
        message.contains("spans 731 days") && message.contains(&MAX_SPAN_DAYS.to_string()),
        "{message}"
    );

    for args in [
        json!({"from": "2023-02-30", "to": "2023-03-01"}),
        json!({"from": "March 1", "to": "2023-03-31"}),
        json!({"from": "2023-03-01"}),
        json!({"from": "2023-03-01", "to": "2023-03-31", "limit": 201}),
    ] {
        let (code, message) = app.error("notes_between", args.clone());
        assert_eq!(code, ErrorCode::InvalidArgs, "{args}");
        assert!(message.contains("notes_between"), "{message}");
    }
}

#[test]
fn limited_callers_get_titles_and_dates_but_no_text() {
    let app = App::approved(&["notes.read", "tags.read"], AccessLevel::Limited);
    let hits = app.data("search_notes", json!({"query": "café"}));
    assert!(!ids(&hits).is_empty());
    for hit in hits.as_array().unwrap() {
        assert!(
            hit["title"].is_string() && hit["created"].is_string(),
            "{hit}"
        );
        assert!(hit.get("snippet").is_none(), "{hit}");
    }
    // The search looks at titles and tags: a tag finds its notes, newest first.
    let tagged = app.data("search_notes", json!({"query": "Work", "limit": 50}));
    let hits = tagged.as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(
        hits.iter()
            .all(|h| h["tags"].as_array().unwrap().contains(&json!("work"))
                || h["title"].as_str().unwrap().to_lowercase().contains("work")),
        "{tagged}"
    );
    let dates: Vec<&str> = hits
        .iter()
        .map(|h| h["created"].as_str().unwrap())
        .collect();
    assert!(
        dates.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {dates:?}"
    );
    let note = app.data("get_note", json!({"id": 1}));
    assert_eq!(note["title"], demo::notes()[0].title.as_str());
    assert!(note.get("body").is_none(), "{note}");
    assert!(
        app.data("list_tags", json!({}))
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
}

/// Limited means noninterference: note bodies, hidden from a limited caller, must not
/// influence its answers (which notes a search finds, or their order). Two databases that
/// differ only in bodies answer every limited call byte for byte the same.
#[test]
fn limited_answers_do_not_depend_on_note_bodies() {
    let other = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cetp-sample-notes-bodies.db");
    demo::create(&other).unwrap();
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute(
            "UPDATE notes SET body = 'zebra quantum ' || id || ' ' || substr(body, 1, 20)",
            [],
        )
        .unwrap();
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let start = |database: PathBuf, dir: &TempDir| {
        provider_over(database)
            .app(cetp_provider::App::new(
                "dev.cetp.samples.notes",
                dir.path(),
            ))
            .build()
            .unwrap()
    };
    let left = start(DATABASE.clone(), &dirs[0]);
    let right = start(other, &dirs[1]);

    // Words of the demo bodies that no title has, words of the titles, and of the new bodies.
    let notes = demo::notes();
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() > 3)
            .map(str::to_lowercase)
            .collect()
    };
    let in_titles: Vec<String> = notes.iter().flat_map(|n| words(&n.title)).collect();
    let mut body_only: Vec<String> = notes
        .iter()
        .flat_map(|n| words(&n.body))
        .filter(|w| !in_titles.contains(w))
        .collect();
    body_only.sort();
    body_only.dedup();
    assert!(body_only.len() > 10, "{body_only:?}");
    let mut queries: Vec<String> = body_only.iter().take(25).cloned().collect();
    queries.extend(in_titles.iter().take(10).cloned());
    queries.extend(["zebra", "quantum", "café", "lisbon", "matcha"].map(String::from));
    let mut calls: Vec<(&str, String)> = queries
        .iter()
        .map(|q| ("search_notes", json!({"query": q, "limit": 50}).to_string()))
        .collect();
    calls.push((
        "search_notes",
        json!({"query": format!("{} {}", in_titles[0], body_only[0])}).to_string(),
    ));
    for id in [1, 2, 3, 50, 320] {
        calls.push(("get_note", json!({"id": id}).to_string()));
    }
    calls.push((
        "notes_between",
        json!({"from": "2023-01-01", "to": "2023-12-31", "limit": 200}).to_string(),
    ));
    calls.push(("list_tags", "{}".to_owned()));
    let calls: Vec<(&str, &str)> = calls.iter().map(|(t, a)| (*t, a.as_str())).collect();
    cetp_provider::testing::check_noninterference(&left, &right, &calls).unwrap();
}

/// The build function only names the database: building the provider (which the runtime does
/// on the first call, within its budget) opens and creates nothing. The first call that needs
/// the notes creates the demo database, on that call's thread; calls arriving at the same time
/// wait for it, and it is created once.
#[test]
fn the_demo_database_is_created_by_the_first_call_not_by_the_build_function() {
    let phone = tempfile::tempdir().unwrap();
    let files = phone.path().join("files");
    let app = cetp_provider::App::new("dev.cetp.samples.notes", &files);
    // As the runtime builds it: the build function, then the app.
    let provider = cetp_sample_notes::provider(&app)
        .app(app.clone())
        .build()
        .unwrap();
    let db = files.join("notes.db");
    assert!(!db.exists(), "the build function created {}", db.display());
    let agent = Agent::new(&provider);
    assert_eq!(
        agent.execute("list_tags", "{}").error_code(),
        Some(ErrorCode::AuthRequired)
    );
    assert_eq!(
        agent.execute("get_note", r#"{"id":1}"#).error_code(),
        Some(ErrorCode::AuthRequired)
    );
    assert!(!db.exists(), "a refused call opens nothing");
    agent.approve(AccessLevel::Full).unwrap();
    let answers: Vec<Response> = std::thread::scope(|scope| {
        // As many concurrent first calls as one caller may have in flight (Limits).
        let calls: Vec<_> = (0..4)
            .map(|i| {
                let agent = agent.clone();
                scope.spawn(move || agent.execute("get_note", &json!({"id": i + 1}).to_string()))
            })
            .collect();
        calls.into_iter().map(|c| c.join().unwrap()).collect()
    });
    for (i, answer) in answers.iter().enumerate() {
        assert_eq!(
            answer.data_json().unwrap()["title"],
            demo::notes()[i].title.as_str(),
            "{answer}"
        );
    }
    assert!(db.is_file());
}

/// Every tool advertises the JSON Schema of its result (`output_schema`), and every result
/// the tests get is checked against it (debug builds check each result before replying).
#[test]
fn every_tool_advertises_its_output_schema() {
    let app = App::full();
    let list = app.agent().list_tools().data_json().unwrap();
    for tool in list["tools"].as_array().unwrap() {
        let schema = &tool["output_schema"];
        assert!(schema.is_object(), "{}: no output_schema", tool["name"]);
    }
    let tools = list["tools"].as_array().unwrap();
    assert_eq!(tools[0]["output_schema"]["type"], "array");
    assert_eq!(tools[1]["output_schema"]["type"], "object");
    assert!(
        tools[1]["output_schema"]["properties"]["body"].is_object(),
        "{}",
        tools[1]["output_schema"]
    );
    // The results fit them, limited ones included.
    let limited = App::approved(&["notes.read", "tags.read"], AccessLevel::Limited);
    for (tool, args) in [
        ("search_notes", json!({"query": "café"})),
        ("get_note", json!({"id": 3})),
        ("list_tags", json!({})),
        (
            "notes_between",
            json!({"from": "2023-01-01", "to": "2023-01-31"}),
        ),
    ] {
        assert!(app.agent().execute(tool, &args.to_string()).is_success());
        assert!(
            limited
                .agent()
                .execute(tool, &args.to_string())
                .is_success()
        );
    }
}

#[test]
fn its_texts_speak_every_language_of_the_approval_screens() {
    let app = App::start();
    for &language in cetp_provider::localized::TEMPLATE_LANGUAGES {
        assert_eq!(
            app.provider.untranslated(language),
            Vec::<String>::new(),
            "{language}"
        );
    }
    let notes = &app.provider.scope_texts()[0].1;
    assert_eq!(
        notes.get(Some("fr-FR")),
        "vos notes : titres, dates et texte"
    );
}
