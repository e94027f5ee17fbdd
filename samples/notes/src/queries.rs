//! The tool bodies: SQL over the notes database, opened read-only.
//!
//! Nothing here knows about CETP except [`ToolError`] (what a failure tells the model) and
//! [`AccessLevel`] (how much a caller may see). This is the code an app has, or would write,
//! anyway; `src/lib.rs` holds the integration.
//!
//! The schema is the one [`crate::demo`] creates: `notes(id, title, body, created)`,
//! `tags(note_id, tag)` and the FTS5 index `notes_fts(title, body)` over `notes`.

use std::path::PathBuf;
use std::sync::{PoisonError, RwLock};

use cetp_provider::{AccessLevel, ToolError};
use chrono::NaiveDate;
use rusqlite::{Connection, OpenFlags, Row, params};
use serde::Serialize;

/// The widest range `notes_between` accepts, in days (a leap year).
pub const MAX_SPAN_DAYS: i64 = 366;
/// How many hits `search_notes` returns without a `limit`.
pub const DEFAULT_HITS: u32 = 10;
/// How many notes `notes_between` lists without a `limit`.
pub const DEFAULT_LISTED: u32 = 50;

/// One search hit, best first.
#[derive(Debug, Serialize)]
pub struct Hit {
    /// Note id, for `get_note`.
    pub id: i64,
    /// Title.
    pub title: String,
    /// When the note was written, `YYYY-MM-DDTHH:MM:SS` (UTC).
    pub created: String,
    /// The note's tags.
    pub tags: Vec<String>,
    /// The best-matching passage of the body, matches in `**bold**`; absent for redacted callers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
}

/// A whole note.
#[derive(Debug, Serialize)]
pub struct Note {
    /// Note id.
    pub id: i64,
    /// Title.
    pub title: String,
    /// When the note was written, `YYYY-MM-DDTHH:MM:SS` (UTC).
    pub created: String,
    /// The note's tags.
    pub tags: Vec<String>,
    /// The text; absent for redacted callers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// A note without its text, as `notes_between` lists it.
#[derive(Debug, Serialize)]
pub struct NoteSummary {
    /// Note id, for `get_note`.
    pub id: i64,
    /// Title.
    pub title: String,
    /// When the note was written, `YYYY-MM-DDTHH:MM:SS` (UTC).
    pub created: String,
    /// The note's tags.
    pub tags: Vec<String>,
}

/// The notes written in a date range.
#[derive(Debug, Serialize)]
pub struct NoteList {
    /// How many notes the range holds; more than `notes.len()` when the limit cut the list.
    pub total: u64,
    /// The oldest notes of the range first, at most `limit`.
    pub notes: Vec<NoteSummary>,
}

/// A tag and how many notes carry it.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct TagCount {
    /// The tag, as `search_notes` accepts it.
    pub tag: String,
    /// Number of notes with this tag.
    pub notes: u64,
}

/// Opens the database at `path` read-only: the file is opened with `SQLITE_OPEN_READ_ONLY` and
/// the connection set to `PRAGMA query_only`, so no tool can write, whatever SQL it runs.
///
/// One connection per call: opening costs far less than a Binder round trip, needs no lock
/// shared between Binder threads, and always sees what the app last committed.
///
/// # Errors
/// `INTERNAL_ERROR` if no path is set (the provider was not built), there is no database at
/// `path`, or it cannot be read.
/// The database the tools read: set by every provider build, so a restarted provider (or a new
/// test) never reads a previous app's file.
static DATABASE: RwLock<Option<PathBuf>> = RwLock::new(None);

/// Points the tools at the notes database `path`.
pub fn use_database(path: PathBuf) {
    *DATABASE.write().unwrap_or_else(PoisonError::into_inner) = Some(path);
}

/// Opens the current notes database read-only, for one call.
pub fn connect() -> Result<Connection, ToolError> {
    let path = DATABASE
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    open(path.as_ref())
}

/// Opens the notes database at `path` read-only.
pub fn open(path: Option<&PathBuf>) -> Result<Connection, ToolError> {
    let path = path.ok_or_else(|| ToolError::internal("no notes database is set"))?;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|err| {
        ToolError::internal(format_args!(
            "the notes database ({}) cannot be opened: {err}; the Notes app has to create it first",
            path.display()
        ))
    })?;
    conn.pragma_update(None, "query_only", true)
        .map_err(db_error)?;
    Ok(conn)
}

/// Full-text search: every word of `query` must occur in the title or body (accents and case
/// ignored); ranked by BM25 with title matches weighing ten times body matches.
///
/// A redacted caller may not read bodies, so bodies must not decide its answer either (which
/// notes match, or their order), or it could learn what they say one query at a time. Its
/// search looks at titles and tags only: every word must occur in the title (accents and case
/// ignored) or be one of the note's tags (case ignored); newest first; no snippet.
///
/// # Errors
/// `INVALID_ARGS` for a query without letters or digits; `INTERNAL_ERROR` if the database fails.
pub fn search(
    conn: &Connection,
    query: &str,
    tag: Option<&str>,
    limit: Option<u32>,
    access: AccessLevel,
) -> Result<Vec<Hit>, ToolError> {
    let limit = limit.unwrap_or(DEFAULT_HITS);
    let terms = fts_terms(query).ok_or_else(|| {
        ToolError::invalid_args(format!(
            "the query `{query}` has no words to search for; send one or more words (letters or digits)"
        ))
    })?;
    if access == AccessLevel::Redacted {
        return search_titles_and_tags(conn, query, tag, limit);
    }
    let mut stmt = conn
        .prepare_cached(
            "SELECT n.id, n.title, n.created, \
                    (SELECT json_group_array(tag) FROM (SELECT tag FROM tags WHERE note_id = n.id ORDER BY tag)), \
                    snippet(notes_fts, 1, '**', '**', '…', 12) \
             FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid \
             WHERE notes_fts MATCH ?1 \
               AND (?2 IS NULL OR EXISTS (SELECT 1 FROM tags t WHERE t.note_id = n.id AND t.tag = ?2)) \
             ORDER BY bm25(notes_fts, 10.0, 1.0), n.id \
             LIMIT ?3",
        )
        .map_err(db_error)?;
    let rows = stmt
        .query_map(params![terms, tag, limit], |row| {
            Ok(Hit {
                id: row.get(0)?,
                title: row.get(1)?,
                created: row.get(2)?,
                tags: tags_column(row, 3)?,
                snippet: match access {
                    AccessLevel::Full => Some(row.get(4)?),
                    AccessLevel::Redacted => None,
                },
            })
        })
        .map_err(db_error)?;
    rows.collect::<Result<_, _>>().map_err(db_error)
}

/// The redacted search (see [`search`]): nothing in it reads a body.
fn search_titles_and_tags(
    conn: &Connection,
    query: &str,
    tag: Option<&str>,
    limit: u32,
) -> Result<Vec<Hit>, ToolError> {
    // One condition per word: in the title (FTS5 column filter), or a tag of the note.
    let words: Vec<&str> = query
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .collect();
    let mut sql = String::from(
        "SELECT n.id, n.title, n.created, \
                (SELECT json_group_array(tag) FROM (SELECT tag FROM tags WHERE note_id = n.id ORDER BY tag)) \
         FROM notes n WHERE (?1 IS NULL OR EXISTS (SELECT 1 FROM tags t WHERE t.note_id = n.id AND t.tag = ?1))",
    );
    let mut values: Vec<String> = Vec::with_capacity(words.len() * 2);
    for word in &words {
        let title = values.len() + 3;
        sql.push_str(&format!(
            " AND (n.id IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?{title}) \
               OR EXISTS (SELECT 1 FROM tags t WHERE t.note_id = n.id AND t.tag = ?{} COLLATE NOCASE))",
            title + 1
        ));
        values.push(format!("title : \"{}\"", word.replace('"', "\"\"")));
        values.push((*word).to_owned());
    }
    sql.push_str(" ORDER BY n.created DESC, n.id DESC LIMIT ?2");
    let mut stmt = conn.prepare(&sql).map_err(db_error)?;
    let mut params: Vec<&dyn rusqlite::ToSql> = vec![&tag, &limit];
    params.extend(values.iter().map(|v| v as &dyn rusqlite::ToSql));
    let rows = stmt
        .query_map(params.as_slice(), |row| {
            Ok(Hit {
                id: row.get(0)?,
                title: row.get(1)?,
                created: row.get(2)?,
                tags: tags_column(row, 3)?,
                snippet: None,
            })
        })
        .map_err(db_error)?;
    rows.collect::<Result<_, _>>().map_err(db_error)
}

/// One note by id.
///
/// # Errors
/// `INVALID_ARGS` if there is no such note; `INTERNAL_ERROR` if the database fails.
pub fn note(conn: &Connection, id: i64, access: AccessLevel) -> Result<Note, ToolError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT n.id, n.title, n.created, \
                    (SELECT json_group_array(tag) FROM (SELECT tag FROM tags WHERE note_id = n.id ORDER BY tag)), \
                    n.body \
             FROM notes n WHERE n.id = ?1",
        )
        .map_err(db_error)?;
    let mut rows = stmt.query([id]).map_err(db_error)?;
    let row = rows.next().map_err(db_error)?.ok_or_else(|| {
        ToolError::invalid_args(format!(
            "there is no note with id {id}; take ids from `search_notes` or `notes_between`"
        ))
    })?;
    Ok(Note {
        id: row.get(0).map_err(db_error)?,
        title: row.get(1).map_err(db_error)?,
        created: row.get(2).map_err(db_error)?,
        tags: tags_column(row, 3).map_err(db_error)?,
        body: match access {
            AccessLevel::Full => Some(row.get(4).map_err(db_error)?),
            AccessLevel::Redacted => None,
        },
    })
}

/// Every tag with its number of notes, most used first.
///
/// # Errors
/// `INTERNAL_ERROR` if the database fails.
pub fn tags(conn: &Connection) -> Result<Vec<TagCount>, ToolError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT tag, count(*) AS notes FROM tags GROUP BY tag ORDER BY notes DESC, tag",
        )
        .map_err(db_error)?;
    let rows = stmt
        .query_map([], |row| {
            Ok(TagCount {
                tag: row.get(0)?,
                notes: row.get(1)?,
            })
        })
        .map_err(db_error)?;
    rows.collect::<Result<_, _>>().map_err(db_error)
}

/// The notes written from `from` to `to` (both days included), oldest first.
///
/// # Errors
/// `INVALID_ARGS` if `from` is after `to` or the range spans more than [`MAX_SPAN_DAYS`];
/// `INTERNAL_ERROR` if the database fails.
pub fn between(
    conn: &Connection,
    from: NaiveDate,
    to: NaiveDate,
    limit: Option<u32>,
) -> Result<NoteList, ToolError> {
    let limit = limit.unwrap_or(DEFAULT_LISTED);
    if from > to {
        return Err(ToolError::invalid_args(format!(
            "`from` ({from}) is after `to` ({to}); send the earlier day as `from`"
        )));
    }
    let days = (to - from).num_days() + 1;
    if days > MAX_SPAN_DAYS {
        return Err(ToolError::invalid_args(format!(
            "{from} to {to} spans {days} days; ask for at most {MAX_SPAN_DAYS} days per call and split longer periods into several calls"
        )));
    }
    // `created` is `YYYY-MM-DDTHH:MM:SS`, so the range is [from, to + 1 day) in text order.
    let start = from.to_string();
    let end = to
        .succ_opt()
        .map_or_else(|| "9999-12-32".to_owned(), |d| d.to_string());
    let total = conn
        .query_row(
            "SELECT count(*) FROM notes WHERE created >= ?1 AND created < ?2",
            params![start, end],
            |row| row.get(0),
        )
        .map_err(db_error)?;
    let mut stmt = conn
        .prepare_cached(
            "SELECT n.id, n.title, n.created, \
                    (SELECT json_group_array(tag) FROM (SELECT tag FROM tags WHERE note_id = n.id ORDER BY tag)) \
             FROM notes n WHERE n.created >= ?1 AND n.created < ?2 \
             ORDER BY n.created, n.id LIMIT ?3",
        )
        .map_err(db_error)?;
    let notes = stmt
        .query_map(params![start, end, limit], |row| {
            Ok(NoteSummary {
                id: row.get(0)?,
                title: row.get(1)?,
                created: row.get(2)?,
                tags: tags_column(row, 3)?,
            })
        })
        .map_err(db_error)?
        .collect::<Result<_, _>>()
        .map_err(db_error)?;
    Ok(NoteList { total, notes })
}

/// Turns free text into an FTS5 query that cannot be a syntax error: each word becomes a
/// quoted string (`"` doubled inside), and FTS5 requires all of them. `None` without any
/// letter or digit, which the tokenizer would ignore.
fn fts_terms(query: &str) -> Option<String> {
    if !query.chars().any(char::is_alphanumeric) {
        return None;
    }
    let terms: Vec<String> = query
        .split_whitespace()
        .map(|word| format!("\"{}\"", word.replace('"', "\"\"")))
        .collect();
    Some(terms.join(" "))
}

/// Reads a `json_group_array(tag)` column.
fn tags_column(row: &Row<'_>, index: usize) -> rusqlite::Result<Vec<String>> {
    let json: String = row.get(index)?;
    serde_json::from_str(&json).map_err(|err| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, err.into())
    })
}

fn db_error(err: rusqlite::Error) -> ToolError {
    ToolError::internal(format_args!("reading the notes database failed: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fts_terms_quote_every_word_so_operators_are_plain_words() {
        assert_eq!(
            fts_terms("café OR NOT"),
            Some(r#""café" "OR" "NOT""#.into())
        );
        assert_eq!(fts_terms(r#"say "hi"*"#), Some(r#""say" """hi""*""#.into()));
        assert_eq!(fts_terms("  抹茶  "), Some(r#""抹茶""#.into()));
    }

    #[test]
    fn the_connection_cannot_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.db");
        crate::demo::create(&path).unwrap();
        let conn = open(Some(&path)).unwrap();
        for write in [
            "DELETE FROM notes",
            "UPDATE notes SET title = 'x'",
            "CREATE TABLE t (x)",
            "PRAGMA query_only = false; DELETE FROM notes",
        ] {
            let err = conn.execute_batch(write).unwrap_err();
            assert!(err.to_string().contains("readonly"), "{write}: {err}");
        }
        let count: i64 = conn
            .query_row("SELECT count(*) FROM notes", [], |r| r.get(0))
            .unwrap();
        assert_eq!(count, crate::demo::NOTE_COUNT as i64);
    }

    #[test]
    fn a_missing_database_is_an_internal_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("absent.db");
        let err = open(Some(&path)).unwrap_err();
        assert_eq!(err.code(), cetp_provider::ErrorCode::InternalError);
        assert!(err.message().contains("absent.db"), "{err}");
        assert!(!path.exists(), "opening must not create the file");
        assert_eq!(
            open(None).unwrap_err().code(),
            cetp_provider::ErrorCode::InternalError
        );
    }

    #[test]
    fn fts_terms_refuse_text_without_letters_or_digits() {
        assert_eq!(fts_terms("🌱 -- ()"), None);
        assert_eq!(fts_terms(""), None);
    }
}
