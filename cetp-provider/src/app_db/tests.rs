//! [`AppDatabase`]'s policy through a scripted reader: what reaches the reader, and what a tool
//! gets back.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;

use super::*;
use crate::caller::Caller;
use crate::clock::ManualClock;
use crate::error::ErrorCode;

/// One read as the reader saw it: the statement, the values, the row cap.
type Asked = (String, Vec<SqlValue>, usize);

/// What the reader was asked, and what it answers (or does to the clock first).
#[derive(Clone, Default)]
struct Script {
    asked: Arc<Mutex<Vec<Asked>>>,
    answer: Arc<Mutex<Option<Result<SqlRows, SqlFailure>>>>,
    advance_clock: Option<(ManualClock, Duration)>,
}

impl SqlReader for Script {
    fn read(
        &self,
        _name: &str,
        sql: &str,
        params: &[SqlValue],
        max_rows: usize,
        _deadline: &Deadline,
    ) -> Result<SqlRows, SqlFailure> {
        self.asked
            .lock()
            .unwrap()
            .push((sql.to_owned(), params.to_vec(), max_rows));
        if let Some((clock, by)) = &self.advance_clock {
            clock.advance(*by);
        }
        self.answer
            .lock()
            .unwrap()
            .take()
            .unwrap_or_else(|| Ok(SqlRows::default()))
    }
}

impl Script {
    fn answering(answer: Result<SqlRows, SqlFailure>) -> Self {
        let script = Script::default();
        *script.answer.lock().unwrap() = Some(answer);
        script
    }

    fn asked(&self) -> usize {
        self.asked.lock().unwrap().len()
    }
}

fn rows(columns: &[&str], rows: Vec<Vec<SqlValue>>) -> SqlRows {
    SqlRows {
        columns: columns.iter().map(|c| (*c).to_owned()).collect(),
        rows,
    }
}

#[derive(Debug, Deserialize, PartialEq)]
struct Entry {
    id: i64,
    title: String,
    mood: Option<String>,
    score: f64,
    pinned: bool,
    photo: Option<Vec<u8>>,
}

#[test]
fn rows_become_the_tools_type_with_the_values_bound_in_order() {
    let script = Script::answering(Ok(rows(
        &["id", "title", "mood", "score", "pinned", "photo"],
        vec![
            vec![
                SqlValue::Integer(1),
                SqlValue::Text("Monday".into()),
                SqlValue::Text("GOOD".into()),
                SqlValue::Real(0.5),
                SqlValue::Integer(1),
                SqlValue::Blob(vec![1, 2]),
            ],
            vec![
                SqlValue::Integer(2),
                SqlValue::Text("Tuesday".into()),
                SqlValue::Null,
                SqlValue::Integer(3),
                SqlValue::Integer(0),
                SqlValue::Null,
            ],
        ],
    )));
    let db = AppDatabase::with_reader("journal.db", script.clone()).unwrap();
    let caller = Caller::unknown();
    let ctx = CallContext::new(&caller);
    let got: Vec<Entry> = db
        .query(
            &ctx,
            "SELECT * FROM entry WHERE at > ? AND title <> ? LIMIT ?",
            &[5_i64.into(), "x".into(), None::<i64>.into()],
        )
        .unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].photo.as_deref(), Some(&[1, 2][..]));
    assert_eq!(
        (got[1].mood.as_deref(), got[1].score, got[1].pinned),
        (None, 3.0, false)
    );
    let asked = script.asked.lock().unwrap();
    assert_eq!(
        asked[0].1,
        [
            SqlValue::Integer(5),
            SqlValue::Text("x".into()),
            SqlValue::Null
        ]
    );
    // One row more than the cap, to tell a complete answer from a cut one.
    assert_eq!(asked[0].2, DEFAULT_MAX_ROWS + 1);
}

#[test]
fn a_statement_that_is_not_one_read_never_reaches_the_reader() {
    let script = Script::default();
    let db = AppDatabase::with_reader("journal.db", script.clone()).unwrap();
    let caller = Caller::unknown();
    let ctx = CallContext::new(&caller);
    for sql in [
        "INSERT INTO entry(title) VALUES (?)",
        "PRAGMA writable_schema=1",
        "ATTACH ? AS other",
        "SELECT 1; DELETE FROM entry",
        "WITH x AS (SELECT ?) INSERT INTO entry SELECT * FROM x",
    ] {
        let err = db
            .query::<serde_json::Value>(&ctx, sql, &["v".into()])
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InternalError);
        assert!(err.message().contains("not a single read"), "{sql}: {err}");
    }
    let err = db
        .query::<serde_json::Value>(&ctx, "SELECT ? , ?", &[1.into()])
        .unwrap_err();
    assert!(err.message().contains("2 `?` but 1 values"), "{err}");
    assert_eq!(script.asked(), 0);
}

#[test]
fn a_missing_database_is_a_clear_error_with_a_hint() {
    let db = AppDatabase::with_reader("journal.db", Script::answering(Err(SqlFailure::Missing)))
        .unwrap();
    let caller = Caller::unknown();
    let err = db
        .query::<serde_json::Value>(&CallContext::new(&caller), "SELECT 1", &[])
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InternalError);
    assert!(
        err.message()
            .contains("has not created its database journal.db"),
        "{err}"
    );
    assert!(err.resolution_hint().unwrap().contains("Open the app once"));
}

#[test]
fn a_read_stopped_at_the_deadline_answers_the_deadlines_error() {
    let clock = ManualClock::new(10_000);
    let script = Script {
        advance_clock: Some((clock.clone(), Duration::from_millis(600))),
        ..Script::answering(Err(SqlFailure::Cancelled))
    };
    let db = AppDatabase::with_reader("journal.db", script.clone()).unwrap();
    let caller = Caller::unknown();
    let ctx = CallContext::new(&caller)
        .with_deadline(Deadline::new(clock.clone(), Duration::from_millis(500)));
    let err = db
        .query::<serde_json::Value>(&ctx, "SELECT 1", &[])
        .unwrap_err();
    assert!(err.message().contains("stopped at its deadline"), "{err}");
    assert_eq!(script.asked(), 1);

    // Rows that arrive after the deadline are not an answer either.
    let late = Script {
        advance_clock: Some((clock.clone(), Duration::from_millis(600))),
        ..Script::answering(Ok(rows(&["x"], vec![vec![SqlValue::Integer(1)]])))
    };
    let db = AppDatabase::with_reader("journal.db", late).unwrap();
    let ctx = CallContext::new(&caller)
        .with_deadline(Deadline::new(clock.clone(), Duration::from_millis(500)));
    let err = db
        .query::<serde_json::Value>(&ctx, "SELECT 1", &[])
        .unwrap_err();
    assert!(err.message().contains("stopped at its deadline"), "{err}");

    // A call already past its deadline does not start a read.
    let idle = Script::default();
    let db = AppDatabase::with_reader("journal.db", idle.clone()).unwrap();
    let ctx = CallContext::new(&caller).with_deadline(Deadline::new(clock, Duration::ZERO));
    assert!(
        db.query::<serde_json::Value>(&ctx, "SELECT 1", &[])
            .is_err()
    );
    assert_eq!(idle.asked(), 0);
}

#[test]
fn more_rows_than_the_cap_fail_instead_of_being_cut_silently() {
    let three = || {
        Ok(rows(
            &["x"],
            (0..3).map(|i| vec![SqlValue::Integer(i)]).collect(),
        ))
    };
    let caller = Caller::unknown();
    let ctx = CallContext::new(&caller);
    let capped = Script::answering(three());
    let db = AppDatabase::with_reader("journal.db", capped.clone())
        .unwrap()
        .max_rows(2);
    let err = db
        .query::<serde_json::Value>(&ctx, "SELECT 1", &[])
        .unwrap_err();
    assert!(err.message().contains("more than 2 rows"), "{err}");
    assert_eq!(capped.asked.lock().unwrap()[0].2, 3);
    let db = AppDatabase::with_reader("journal.db", Script::answering(three()))
        .unwrap()
        .max_rows(3);
    assert_eq!(
        db.query::<serde_json::Value>(&ctx, "SELECT 1", &[])
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn a_row_that_does_not_fit_says_so_without_its_values() {
    let db = AppDatabase::with_reader(
        "journal.db",
        Script::answering(Ok(rows(
            &["id", "title"],
            vec![vec![
                SqlValue::Text("secret text".into()),
                SqlValue::Integer(1),
            ]],
        ))),
    )
    .unwrap();
    let caller = Caller::unknown();
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Row {
        id: i64,
        title: String,
    }
    let err = db
        .query::<Row>(
            &CallContext::new(&caller),
            "SELECT id, title FROM entry",
            &[],
        )
        .unwrap_err();
    assert!(err.message().contains("does not fit"), "{err}");
    assert!(!err.message().contains("secret"), "{err}");
}

#[test]
fn a_database_is_named_by_a_file_name_only() {
    for bad in [
        "",
        ".",
        "..",
        "../shared_prefs/x.xml",
        "/data/x.db",
        "a/b.db",
        "a\\b",
        "a\0b",
    ] {
        assert!(
            AppDatabase::with_reader(bad, Script::default()).is_err(),
            "{bad:?}"
        );
    }
    let db = AppDatabase::with_reader("journal.db", Script::default()).unwrap();
    assert_eq!(db.name(), "journal.db");
    assert!(format!("{db:?}").contains("journal.db"));
}
