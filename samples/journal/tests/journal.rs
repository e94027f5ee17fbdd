//! The journal provider over a database written the way the app's Room code writes it (schema
//! version 1, then the migration that added `tags`), read through a host reader: the SDK's
//! `AppDatabase` policy on top of a SQLite of the test's own (on Android, the platform's).

use std::path::{Path, PathBuf};

use cetp_provider::app_db::{SqlFailure, SqlReader, SqlRows, SqlValue};
use cetp_provider::testing::Agent;
use cetp_provider::{AccessLevel, AppDatabase, Deadline, ErrorCode, Provider};
use cetp_sample_journal::entries::DATABASE;
use cetp_sample_journal::provider_over;
use rusqlite::{Connection, OpenFlags, params_from_iter, types::ValueRef};
use serde_json::{Value, json};
use tempfile::TempDir;

/// A reader over the files of one directory (the app's database directory), read-only.
struct HostReader(PathBuf);

impl SqlReader for HostReader {
    fn read(
        &self,
        name: &str,
        sql: &str,
        params: &[SqlValue],
        max_rows: usize,
        deadline: &Deadline,
    ) -> Result<SqlRows, SqlFailure> {
        let path = self.0.join(name);
        if !path.is_file() {
            return Err(SqlFailure::Missing);
        }
        let failed = |e: rusqlite::Error| SqlFailure::Failed(e.to_string());
        let conn =
            Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(failed)?;
        let deadline = deadline.clone();
        conn.progress_handler(100, Some(move || deadline.is_past()));
        let mut stmt = conn.prepare(sql).map_err(failed)?;
        let columns = stmt
            .column_names()
            .iter()
            .map(|c| (*c).to_owned())
            .collect();
        let count = stmt.column_count();
        let bound = params.iter().map(|p| match p {
            SqlValue::Null => rusqlite::types::Value::Null,
            SqlValue::Integer(i) => rusqlite::types::Value::Integer(*i),
            SqlValue::Real(r) => rusqlite::types::Value::Real(*r),
            SqlValue::Text(t) => rusqlite::types::Value::Text(t.clone()),
            SqlValue::Blob(b) => rusqlite::types::Value::Blob(b.clone()),
        });
        let mut rows = stmt.query(params_from_iter(bound)).map_err(failed)?;
        let mut out = Vec::new();
        while out.len() < max_rows {
            let Some(row) = rows.next().map_err(|e| match e {
                rusqlite::Error::SqliteFailure(f, _)
                    if f.code == rusqlite::ErrorCode::OperationInterrupted =>
                {
                    SqlFailure::Cancelled
                }
                e => failed(e),
            })?
            else {
                break;
            };
            out.push(
                (0..count)
                    .map(|i| match row.get_ref(i).unwrap() {
                        ValueRef::Null => SqlValue::Null,
                        ValueRef::Integer(i) => SqlValue::Integer(i),
                        ValueRef::Real(r) => SqlValue::Real(r),
                        ValueRef::Text(t) => {
                            SqlValue::Text(String::from_utf8_lossy(t).into_owned())
                        }
                        ValueRef::Blob(b) => SqlValue::Blob(b.to_vec()),
                    })
                    .collect(),
            );
        }
        Ok(SqlRows { columns, rows: out })
    }
}

/// Room's schema, version 1 (no tags yet), and the migration to version 2.
const SCHEMA_V1: &str = "CREATE TABLE entry (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, \
    title TEXT NOT NULL, body TEXT NOT NULL, mood TEXT NOT NULL, created_at INTEGER NOT NULL); \
    PRAGMA user_version = 1;";
const MIGRATION_1_2: &str =
    "ALTER TABLE entry ADD COLUMN tags TEXT NOT NULL DEFAULT '[]'; PRAGMA user_version = 2;";

/// 2025-03-04T18:30:00Z.
const MARCH_4: i64 = 1_741_113_000_000;
const DAY: i64 = 86_400_000;

/// The app's data: two entries written under version 1, the migration, three more with tags.
fn write_journal(dir: &Path, body: impl Fn(i64) -> String) {
    let conn = Connection::open(dir.join(DATABASE)).unwrap();
    conn.execute_batch(SCHEMA_V1).unwrap();
    let old = "INSERT INTO entry(title, body, mood, created_at) VALUES (?, ?, ?, ?)";
    conn.execute(
        old,
        rusqlite::params!["First day", body(1), "GOOD", MARCH_4],
    )
    .unwrap();
    conn.execute(
        old,
        rusqlite::params!["Rain", body(2), "BAD", MARCH_4 + DAY],
    )
    .unwrap();
    conn.execute_batch(MIGRATION_1_2).unwrap();
    let new = "INSERT INTO entry(title, body, mood, created_at, tags) VALUES (?, ?, ?, ?, ?)";
    conn.execute(
        new,
        rusqlite::params![
            "Hike",
            body(3),
            "GREAT",
            MARCH_4 + 2 * DAY,
            r#"["outdoors","friends"]"#
        ],
    )
    .unwrap();
    conn.execute(
        new,
        rusqlite::params![
            "Dentist",
            body(4),
            "OKAY",
            MARCH_4 + 3 * DAY,
            r#"["health"]"#
        ],
    )
    .unwrap();
    conn.execute(
        new,
        rusqlite::params![
            "Concert",
            body(5),
            "GREAT",
            MARCH_4 + 4 * DAY,
            r#"["music","friends"]"#
        ],
    )
    .unwrap();
}

/// The app's database directory and grant store, and the provider over them.
struct Phone {
    provider: Provider,
    databases: TempDir,
    _files: TempDir,
}

fn phone(body: impl Fn(i64) -> String, write: bool) -> Phone {
    let databases = tempfile::tempdir().unwrap();
    if write {
        write_journal(databases.path(), body);
    }
    let files = tempfile::tempdir().unwrap();
    let db = AppDatabase::with_reader(DATABASE, HostReader(databases.path().to_owned())).unwrap();
    let provider = provider_over(db)
        .app(cetp_provider::App::new(
            "dev.cetp.samples.journal",
            files.path(),
        ))
        .build()
        .unwrap();
    Phone {
        provider,
        databases,
        _files: files,
    }
}

fn private(n: i64) -> String {
    format!("private text {n}")
}

impl Phone {
    fn approved(self, access: AccessLevel) -> Phone {
        let agent = Agent::new(&self.provider);
        for (tool, args) in [("recent_entries", "{}"), ("read_entry", r#"{"id":1}"#)] {
            assert_eq!(
                agent.execute(tool, args).error_code(),
                Some(ErrorCode::AuthRequired)
            );
        }
        agent.approve_pending(access).unwrap();
        self
    }

    fn data(&self, tool: &str, args: Value) -> Value {
        Agent::new(&self.provider)
            .execute(tool, &args.to_string())
            .data_json()
            .unwrap_or_else(|e| panic!("{tool} {args}: {e}"))
    }
}

#[test]
fn entries_come_back_typed_newest_first_bounded_by_limit() {
    let phone = phone(private, true).approved(AccessLevel::Full);
    let listed = phone.data("recent_entries", json!({"limit": 4}));
    assert_eq!(
        listed,
        json!([
            {"id": 5, "title": "Concert", "mood": "GREAT", "created": "2025-03-08T18:30:00Z", "tags": ["music", "friends"]},
            {"id": 4, "title": "Dentist", "mood": "OKAY", "created": "2025-03-07T18:30:00Z", "tags": ["health"]},
            {"id": 3, "title": "Hike", "mood": "GREAT", "created": "2025-03-06T18:30:00Z", "tags": ["outdoors", "friends"]},
            // Written before the migration: the column's default.
            {"id": 2, "title": "Rain", "mood": "BAD", "created": "2025-03-05T18:30:00Z", "tags": []},
        ])
    );
    let great = phone.data("recent_entries", json!({"mood": "GREAT"}));
    assert_eq!(great.as_array().unwrap().len(), 2);
    let entry = phone.data("read_entry", json!({"id": 1}));
    assert_eq!(entry["body"], "private text 1");
    assert_eq!(entry["created"], "2025-03-04T18:30:00Z");
}

#[test]
fn the_schemas_say_enum_timestamp_and_array() {
    let phone = phone(private, true);
    let list = Agent::new(&phone.provider)
        .list_tools()
        .data_json()
        .unwrap();
    let recent = &list["tools"][0];
    assert_eq!(
        recent["parameters"]["properties"]["mood"]["enum"],
        json!(["GREAT", "GOOD", "OKAY", "BAD"])
    );
    assert_eq!(recent["parameters"]["properties"]["limit"]["maximum"], 100);
    let item = &recent["output_schema"]["items"];
    let props = if item["properties"].is_object() {
        item["properties"].clone()
    } else {
        // A referenced definition.
        let name = item["$ref"].as_str().unwrap().rsplit('/').next().unwrap();
        recent["output_schema"]["$defs"][name]["properties"].clone()
    };
    assert_eq!(props["created"]["format"], "date-time");
    assert_eq!(props["tags"]["type"], "array");
}

#[test]
fn a_write_by_the_app_is_seen_by_the_next_call() {
    let phone = phone(private, true).approved(AccessLevel::Full);
    assert_eq!(
        phone.data("recent_entries", json!({"limit": 1}))[0]["id"],
        5
    );
    Connection::open(phone.databases.path().join(DATABASE))
        .unwrap()
        .execute(
            "INSERT INTO entry(title, body, mood, created_at, tags) VALUES ('New', 'x', 'GOOD', ?, '[]')",
            [MARCH_4 + 9 * DAY],
        )
        .unwrap();
    assert_eq!(
        phone.data("recent_entries", json!({"limit": 1}))[0]["title"],
        "New"
    );
}

#[test]
fn before_the_app_created_its_database_calls_fail_clearly() {
    let phone = phone(private, false).approved(AccessLevel::Full);
    let answer = Agent::new(&phone.provider).execute("recent_entries", "{}");
    assert_eq!(
        answer.error_code(),
        Some(ErrorCode::InternalError),
        "{answer}"
    );
    assert!(
        answer
            .error_message()
            .unwrap()
            .contains("has not created its database journal.db"),
        "{answer}"
    );
    // Once the app wrote it, the next call reads it.
    write_journal(phone.databases.path(), private);
    assert_eq!(
        phone
            .data("recent_entries", json!({}))
            .as_array()
            .unwrap()
            .len(),
        5
    );
}

#[test]
fn limited_callers_never_get_the_text_and_their_answers_do_not_depend_on_it() {
    let phone_l = phone(private, true).approved(AccessLevel::Limited);
    let entry = phone_l.data("read_entry", json!({"id": 3}));
    assert!(entry.get("body").is_none(), "{entry}");
    assert_eq!(entry["title"], "Hike");

    let left = phone(private, true);
    let right = phone(|n| format!("something else entirely, {n}{n}{n}"), true);
    let mut calls = vec![
        ("recent_entries", json!({}).to_string()),
        (
            "recent_entries",
            json!({"mood": "GREAT", "limit": 1}).to_string(),
        ),
    ];
    calls.extend((1..=6).map(|id| ("read_entry", json!({"id": id}).to_string())));
    let calls: Vec<(&str, &str)> = calls.iter().map(|(t, a)| (*t, a.as_str())).collect();
    cetp_provider::testing::check_noninterference(&left.provider, &right.provider, &calls).unwrap();
}

#[test]
fn an_approved_agent_gets_a_conformant_provider_over_v1_and_v2() {
    let phone = phone(private, true).approved(AccessLevel::Full);
    Agent::new(&phone.provider).check_conformance().unwrap();
    Agent::new(&phone.provider).check_v2_conformance().unwrap();
}
