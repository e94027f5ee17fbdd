//! The tool bodies: SQL over the notes database, opened read-only.
//!
//! Nothing here knows about CETP except [`ToolError`] (what a failure tells the model) and
//! the [`CallContext`]'s [`AccessLevel`] (how much a caller may see) and
//! [`Deadline`] (when SQLite must stop). This is the code an app has, or would write,
//! anyway; `src/lib.rs` holds the integration.
//!
//! The schema is the one [`crate::demo`] creates: `notes(id, title, body, created)`,
//! `tags(note_id, tag)`, the FTS5 index `notes_fts(title, body)` over `notes`, and the FTS5
//! table `note_titles(title, created)`, which holds titles and dates only (for limited callers).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};

use cetp_provider::{AccessLevel, CallContext, Deadline, ToolError};
use chrono::NaiveDate;
use rusqlite::{Connection, OpenFlags, Row, params};
use schemars::JsonSchema;
use serde::Serialize;

/// The widest range `notes_between` accepts, in days (a leap year).
pub const MAX_SPAN_DAYS: i64 = 366;
/// How many hits `search_notes` returns without a `limit`.
pub const DEFAULT_HITS: u32 = 10;
/// How many notes `notes_between` lists without a `limit`.
pub const DEFAULT_LISTED: u32 = 50;

/// One search hit, best first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Hit {
    /// Note id, for `get_note`.
    pub id: i64,
    /// Title.
    pub title: String,
    /// When the note was written, `YYYY-MM-DDTHH:MM:SS` (UTC).
    pub created: String,
    /// The note's tags.
    pub tags: Vec<String>,
    /// The best-matching passage of the body, matches in `**bold**`; absent for limited callers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
}

/// A whole note.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Note {
    /// Note id.
    pub id: i64,
    /// Title.
    pub title: String,
    /// When the note was written, `YYYY-MM-DDTHH:MM:SS` (UTC).
    pub created: String,
    /// The note's tags.
    pub tags: Vec<String>,
    /// The text; absent for limited callers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// A note without its text, as `notes_between` lists it.
#[derive(Debug, Serialize, JsonSchema)]
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
#[derive(Debug, Serialize, JsonSchema)]
pub struct NoteList {
    /// How many notes the range holds; more than `notes.len()` when the limit cut the list.
    pub total: u64,
    /// The oldest notes of the range first, at most `limit`.
    pub notes: Vec<NoteSummary>,
}

/// A tag and how many notes carry it.
#[derive(Debug, Serialize, JsonSchema, PartialEq, Eq)]
pub struct TagCount {
    /// The tag, as `search_notes` accepts it.
    pub tag: String,
    /// Number of notes with this tag.
    pub notes: u64,
}

/// The notes database, shared by every tool as provider state: a small pool of read-only
/// connections, one slot per thread.
///
/// A call takes an idle connection (or opens one when all are busy) and puts it back after, so
/// in the steady state no call opens a file, sets pragmas or re-reads the schema, and the
/// statements each connection prepared stay cached (`prepare_cached`). At most [`POOL_SIZE`]
/// idle connections are kept: as many as Binder threads serve one provider at once.
///
/// Each thread has a slot of its own: it takes its connection from there and puts it back
/// there, so in the steady state two threads never touch the same slot, and calls on different
/// threads share nothing (no pool-wide lock, no shared cache line). Only a thread whose slot is
/// empty (its first call) looks in the others for an idle connection before opening one. A slot
/// is only ever tried (`try_lock`), never waited for. Each is
/// opened with `SQLITE_OPEN_READ_ONLY` and set to `PRAGMA query_only`, so no tool can write,
/// whatever SQL it runs; each statement outside a transaction sees what was last committed
/// through this same SQLite library. The app must therefore write the file through this crate
/// too, never with Android's SQLite (Room, `SQLiteDatabase`) in the same process: two SQLite
/// copies in one process do not see each other's POSIX locks (`docs/sqlite.md`).
///
/// Nothing is opened before the first call that needs the database, which runs on the Binder
/// thread serving it, never on the app's main thread (the build function only names the file).
/// A database the app has not created yet makes calls fail (`INTERNAL_ERROR` naming the file)
/// until it exists, without stopping the provider.
pub struct Database {
    path: PathBuf,
    idle: Box<[Slot]>,
    opened: AtomicUsize,
    first_use: Option<fn(&Path)>,
    prepared: Once,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("path", &self.path)
            .field("opened", &self.connections_opened())
            .finish_non_exhaustive()
    }
}

impl From<PathBuf> for Database {
    fn from(path: PathBuf) -> Self {
        Database::new(path)
    }
}

/// How many idle connections [`Database`] keeps: Android serves a process's Binder calls on at
/// most 16 threads (15 pool threads and the main one).
pub const POOL_SIZE: usize = 16;

/// One idle connection (or none), on a cache line of its own.
#[derive(Default)]
#[repr(align(128))]
struct Slot(Mutex<Option<Connection>>);

/// The slot the current thread starts at: threads get consecutive ones as they first call.
fn home_slot() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    HOME.with(|home| *home.get_or_init(|| NEXT.fetch_add(1, Ordering::Relaxed) % POOL_SIZE))
}

thread_local! {
    /// The current thread's slot, chosen on its first call.
    static HOME: std::cell::OnceCell<usize> = const { std::cell::OnceCell::new() };
}

/// Gives the current thread `slot` as its own before its first call (tests that need to know
/// which slot a thread starts at, whatever other threads of the process took).
#[cfg(test)]
fn set_home_slot(slot: usize) {
    HOME.with(|home| assert_eq!(*home.get_or_init(|| slot), slot, "slot chosen already"));
}

/// How many virtual-machine steps SQLite runs between two looks at the call's deadline (a few
/// microseconds of work, so a query stops within well under a millisecond of it).
pub const PROGRESS_STEPS: std::ffi::c_int = 1_000;

impl Database {
    /// The notes database at `path`; nothing is opened yet.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Database {
            path: path.into(),
            idle: (0..POOL_SIZE).map(|_| Slot::default()).collect(),
            opened: AtomicUsize::new(0),
            first_use: None,
            prepared: Once::new(),
        }
    }

    /// Runs `prepare` with the path once, before the first connection opens, on the thread of
    /// the call that needs it (calls arriving meanwhile wait for it): where the demo creates
    /// its data, so that starting the provider costs nothing.
    #[must_use]
    pub fn on_first_use(mut self, prepare: fn(&Path)) -> Self {
        self.first_use = Some(prepare);
        self
    }

    /// Runs `read` with a read-only connection, then keeps the connection for the next call.
    ///
    /// SQLite stops at `deadline`: every [`PROGRESS_STEPS`] steps of a statement it asks
    /// whether the time is up, and if so the statement fails, and with it the call (with the
    /// deadline's error), so a query that takes too long frees its thread.
    ///
    /// # Errors
    /// `INTERNAL_ERROR` if there is no database at the path or it cannot be read, or the
    /// deadline passed; whatever `read` returns.
    pub fn read<T>(
        &self,
        deadline: &Deadline,
        read: impl FnOnce(&Connection) -> Result<T, ToolError>,
    ) -> Result<T, ToolError> {
        deadline.check()?;
        let conn = match self.take_idle() {
            Some(conn) => conn,
            None => self.open()?,
        };
        let watched = deadline.time_left() != std::time::Duration::MAX;
        if watched {
            let deadline = deadline.clone();
            conn.progress_handler(PROGRESS_STEPS, Some(move || deadline.is_past()));
        }
        // An interrupted statement fails with SQLite's words; the deadline's say what to do.
        let result = read(&conn).or_else(|err| deadline.check().and(Err(err)));
        if watched {
            conn.progress_handler(0, None::<fn() -> bool>);
        }
        self.keep(conn);
        result
    }

    /// How many connections were opened so far (for tests and benchmarks).
    pub fn connections_opened(&self) -> usize {
        self.opened.load(Ordering::Relaxed)
    }

    /// The slots in the order the current thread tries them: its own first.
    fn slots(&self) -> impl Iterator<Item = &Mutex<Option<Connection>>> {
        let home = home_slot();
        (0..POOL_SIZE).map(move |i| &self.idle[(home + i) % POOL_SIZE].0)
    }

    /// An idle connection: this thread's, else any other's.
    fn take_idle(&self) -> Option<Connection> {
        self.slots()
            .find_map(|slot| slot.try_lock().ok().and_then(|mut idle| idle.take()))
    }

    /// Puts `conn` back: in this thread's slot, else in the first empty one; closed when every
    /// slot is taken.
    fn keep(&self, conn: Connection) {
        let empty = self
            .slots()
            .find_map(|slot| slot.try_lock().ok().filter(|idle| idle.is_none()));
        if let Some(mut idle) = empty {
            *idle = Some(conn);
        }
    }

    fn open(&self) -> Result<Connection, ToolError> {
        if let Some(prepare) = self.first_use {
            self.prepared.call_once(|| prepare(&self.path));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&self.path, flags).map_err(|err| {
            ToolError::internal(format_args!(
                "the notes database ({}) cannot be opened: {err}; the Notes app has to create it first",
                self.path.display()
            ))
        })?;
        conn.pragma_update(None, "query_only", true)
            .map_err(db_error)?;
        self.opened.fetch_add(1, Ordering::Relaxed);
        Ok(conn)
    }
}

/// Full-text search: every word of `query` must occur in the title or body (accents and case
/// ignored); ranked by BM25 with title matches weighing ten times body matches.
///
/// A limited caller may not read bodies, so bodies must not decide its answer either (which
/// notes match, or their order), or it could learn what they say one query at a time. Its
/// search looks at titles and tags only: every word must occur in the title (accents and case
/// ignored) or be one of the note's tags (case ignored); newest first; no snippet. Nor may
/// bodies decide how long it takes: it reads `note_titles` (titles and dates) and `tags`, never
/// the body index or the notes themselves, so a word common in hidden bodies makes it no
/// slower.
///
/// # Errors
/// `INVALID_ARGS` for a query without letters or digits; `INTERNAL_ERROR` if the database fails.
pub fn search(
    db: &Database,
    query: &str,
    tag: Option<&str>,
    limit: Option<u32>,
    ctx: &CallContext,
) -> Result<Vec<Hit>, ToolError> {
    let limit = limit.unwrap_or(DEFAULT_HITS);
    let terms = fts_terms(query).ok_or_else(|| {
        ToolError::invalid_args(format!(
            "the query `{query}` has no words to search for; send one or more words (letters or digits)"
        ))
    })?;
    let access = ctx.access();
    if access == AccessLevel::Limited {
        return db.read(ctx.deadline(), |conn| {
            search_titles_and_tags(conn, query, tag, limit)
        });
    }
    db.read(ctx.deadline(), |conn| {
        search_terms(conn, &terms, tag, limit, access)
    })
}

fn search_terms(
    conn: &Connection,
    terms: &str,
    tag: Option<&str>,
    limit: u32,
    access: AccessLevel,
) -> Result<Vec<Hit>, ToolError> {
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
                    AccessLevel::Limited => None,
                },
            })
        })
        .map_err(db_error)?;
    rows.collect::<Result<_, _>>().map_err(db_error)
}

/// The limited search (see [`search`]): it reads `note_titles` and `tags` only.
fn search_titles_and_tags(
    conn: &Connection,
    query: &str,
    tag: Option<&str>,
    limit: u32,
) -> Result<Vec<Hit>, ToolError> {
    // One condition per word: in the title, or a tag of the note.
    let words: Vec<&str> = query
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .collect();
    let mut sql = String::from(
        "SELECT t.rowid, t.title, t.created, \
                (SELECT json_group_array(tag) FROM (SELECT tag FROM tags WHERE note_id = t.rowid ORDER BY tag)) \
         FROM note_titles t WHERE (?1 IS NULL OR EXISTS (SELECT 1 FROM tags g WHERE g.note_id = t.rowid AND g.tag = ?1))",
    );
    let mut values: Vec<String> = Vec::with_capacity(words.len() * 2);
    for word in &words {
        let title = values.len() + 3;
        sql.push_str(&format!(
            " AND (t.rowid IN (SELECT rowid FROM note_titles WHERE note_titles MATCH ?{title}) \
               OR EXISTS (SELECT 1 FROM tags g WHERE g.note_id = t.rowid AND g.tag = ?{} COLLATE NOCASE))",
            title + 1
        ));
        values.push(format!("title : \"{}\"", word.replace('"', "\"\"")));
        values.push((*word).to_owned());
    }
    sql.push_str(" ORDER BY t.created DESC, t.rowid DESC LIMIT ?2");
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
pub fn note(db: &Database, id: i64, ctx: &CallContext) -> Result<Note, ToolError> {
    db.read(ctx.deadline(), |conn| note_by_id(conn, id, ctx.access()))
}

fn note_by_id(conn: &Connection, id: i64, access: AccessLevel) -> Result<Note, ToolError> {
    // A limited caller's statement never names the body: SQLite then never reads it (a long
    // body's overflow pages included), so the body cannot even decide how long the answer takes.
    let sql = match access {
        AccessLevel::Full => {
            "SELECT n.id, n.title, n.created, \
                    (SELECT json_group_array(tag) FROM (SELECT tag FROM tags WHERE note_id = n.id ORDER BY tag)), \
                    n.body \
             FROM notes n WHERE n.id = ?1"
        }
        AccessLevel::Limited => {
            "SELECT n.id, n.title, n.created, \
                    (SELECT json_group_array(tag) FROM (SELECT tag FROM tags WHERE note_id = n.id ORDER BY tag)) \
             FROM notes n WHERE n.id = ?1"
        }
    };
    let mut stmt = conn.prepare_cached(sql).map_err(db_error)?;
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
            AccessLevel::Limited => None,
        },
    })
}

/// Every tag with its number of notes, most used first.
///
/// # Errors
/// `INTERNAL_ERROR` if the database fails.
pub fn tags(db: &Database, ctx: &CallContext) -> Result<Vec<TagCount>, ToolError> {
    db.read(ctx.deadline(), |conn| {
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
    })
}

/// The notes written from `from` to `to` (both days included), oldest first.
///
/// # Errors
/// `INVALID_ARGS` if `from` is after `to` or the range spans more than [`MAX_SPAN_DAYS`]
/// (checked before the database is touched); `INTERNAL_ERROR` if the database fails.
pub fn between(
    db: &Database,
    from: NaiveDate,
    to: NaiveDate,
    limit: Option<u32>,
    ctx: &CallContext,
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
    db.read(ctx.deadline(), |conn| notes_in(conn, &start, &end, limit))
}

fn notes_in(conn: &Connection, start: &str, end: &str, limit: u32) -> Result<NoteList, ToolError> {
    let total = conn
        .prepare_cached("SELECT count(*) FROM notes WHERE created >= ?1 AND created < ?2")
        .and_then(|mut stmt| stmt.query_row(params![start, end], |row| row.get(0)))
        .map_err(db_error)?;
    // The page of notes (the `created` index gives their order), then the tags of that page
    // in one query (the tags' key gives their order): no sorting, no sub-select per note.
    let mut notes: Vec<NoteSummary> = conn
        .prepare_cached(
            "SELECT id, title, created FROM notes \
             WHERE created >= ?1 AND created < ?2 ORDER BY created, id LIMIT ?3",
        )
        .and_then(|mut stmt| {
            stmt.query_map(params![start, end, limit], |row| {
                Ok(NoteSummary {
                    id: row.get(0)?,
                    title: row.get(1)?,
                    created: row.get(2)?,
                    tags: Vec::new(),
                })
            })?
            .collect()
        })
        .map_err(db_error)?;
    let place: std::collections::HashMap<i64, usize> =
        notes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    let mut tags = conn
        .prepare_cached(
            "SELECT note_id, tag FROM tags WHERE note_id IN \
             (SELECT id FROM notes WHERE created >= ?1 AND created < ?2 \
              ORDER BY created, id LIMIT ?3) \
             ORDER BY note_id, tag",
        )
        .map_err(db_error)?;
    let mut rows = tags.query(params![start, end, limit]).map_err(db_error)?;
    while let Some(row) = rows.next().map_err(db_error)? {
        let note: i64 = row.get(0).map_err(db_error)?;
        if let Some(&i) = place.get(&note) {
            notes[i].tags.push(row.get(1).map_err(db_error)?);
        }
    }
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

/// What `find_text` found: the matching notes (at most the limit) and how many notes it read.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TextMatches {
    /// Notes containing the text, oldest first.
    pub notes: Vec<NoteSummary>,
    /// How many notes were read to find them (all of them, unless the limit was reached).
    pub read: u64,
    /// How many notes there are.
    pub total: u64,
}

/// Notes read per query of `find_text`: between two batches it reports progress and SQLite
/// checks the deadline (and the cancellation) within each.
pub const SCAN_BATCH: u32 = 250;

/// Every note whose title or text contains `text` anywhere (case ignored, inside words too: a
/// part of a number, a code, a URL), oldest first: it reads every note, [`SCAN_BATCH`] at a
/// time, reporting its progress between batches, and stops when the agent cancels or the
/// deadline passes. A limited caller's search reads titles only, as `search` does.
///
/// # Errors
/// `INVALID_ARGS` for an empty text; `INTERNAL_ERROR` if the database fails, the deadline
/// passes or the agent cancels.
pub fn find_text(
    db: &Database,
    text: &str,
    limit: Option<u32>,
    ctx: &CallContext,
) -> Result<TextMatches, ToolError> {
    let needle = text.trim().to_lowercase();
    if needle.is_empty() {
        return Err(ToolError::invalid_args(
            "`text` is empty; send the characters to look for",
        ));
    }
    let limit = limit.unwrap_or(DEFAULT_HITS) as usize;
    let titles_only = ctx.access() == AccessLevel::Limited;
    let total: u64 = db.read(ctx.deadline(), |conn| {
        conn.query_row("SELECT count(*) FROM notes", [], |row| row.get::<_, i64>(0))
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(db_error)
    })?;
    let mut found = Vec::new();
    let mut read = 0u64;
    let mut after = 0i64;
    while found.len() < limit {
        ctx.progress(read, total, "Reading notes");
        let batch = db.read(ctx.deadline(), |conn| {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT id, title, created, CASE WHEN ?3 THEN '' ELSE body END, \
                            (SELECT json_group_array(tag) FROM (SELECT tag FROM tags WHERE note_id = notes.id ORDER BY tag)) \
                     FROM notes WHERE id > ?1 ORDER BY id LIMIT ?2",
                )
                .map_err(db_error)?;
            let rows = stmt
                .query_map(params![after, SCAN_BATCH, titles_only], |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, String>(3)?,
                        row.get::<_, String>(4)?,
                    ))
                })
                .map_err(db_error)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(db_error)
        })?;
        if batch.is_empty() {
            break;
        }
        for (id, title, created, body, tags) in batch {
            after = id;
            read += 1;
            let hit = title.to_lowercase().contains(&needle)
                || (!titles_only && body.to_lowercase().contains(&needle));
            if hit && found.len() < limit {
                found.push(NoteSummary {
                    id,
                    title,
                    created,
                    tags: serde_json::from_str(&tags).unwrap_or_default(),
                });
            }
        }
    }
    ctx.progress(read, total, "Done");
    Ok(TextMatches {
        notes: found,
        read,
        total,
    })
}

#[cfg(test)]
mod tests {
    use cetp_provider::Caller;
    use cetp_provider::auth::Clock;

    use super::*;

    /// A context with full access and no deadline, as a hand-made one has.
    fn full() -> CallContext<'static> {
        static CALLER: std::sync::OnceLock<Caller> = std::sync::OnceLock::new();
        CallContext::new(CALLER.get_or_init(Caller::unknown))
    }

    #[test]
    fn fts_terms_quote_every_word_so_operators_are_plain_words() {
        assert_eq!(
            fts_terms("café OR NOT"),
            Some(r#""café" "OR" "NOT""#.into())
        );
        assert_eq!(fts_terms(r#"say "hi"*"#), Some(r#""say" """hi""*""#.into()));
        assert_eq!(fts_terms("  抹茶  "), Some(r#""抹茶""#.into()));
    }

    /// The linked SQLite is built for parallel readers (`LIBSQLITE3_FLAGS` in the workspace's
    /// `.cargo/config.toml`): no page cache shared by every connection behind one mutex, and no
    /// global mutex taken by each allocation to count it.
    #[test]
    fn sqlite_is_built_for_parallel_readers() {
        let conn = Connection::open_in_memory().unwrap();
        let options: Vec<String> = conn
            .prepare("PRAGMA compile_options")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            options.iter().any(|o| o == "DEFAULT_MEMSTATUS=0"),
            "{options:?}"
        );
        assert!(
            !options.iter().any(|o| o == "ENABLE_MEMORY_MANAGEMENT"),
            "{options:?}"
        );
        assert!(options.iter().any(|o| o == "THREADSAFE=1"), "{options:?}");
        // The same answers from the C API the pragma reads.
        let used = |name: &std::ffi::CStr| {
            // SAFETY: `name` is a NUL-terminated string that outlives the call, and the
            // function only reads it.
            unsafe { rusqlite::ffi::sqlite3_compileoption_used(name.as_ptr()) }
        };
        assert_eq!(used(c"SQLITE_DEFAULT_MEMSTATUS=0"), 1);
        assert_eq!(used(c"SQLITE_ENABLE_MEMORY_MANAGEMENT"), 0);
        assert_eq!(used(c"SQLITE_ENABLE_FTS5"), 1, "the check itself works");
    }

    #[test]
    fn the_connection_cannot_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.db");
        crate::demo::create(&path).unwrap();
        let db = Database::new(&path);
        db.read(&Deadline::none(), |conn| {
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
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn connections_are_opened_once_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.db");
        crate::demo::create(&path).unwrap();
        let db = Database::new(&path);
        assert_eq!(
            db.connections_opened(),
            0,
            "nothing is opened before a call"
        );
        for id in 1..=50 {
            note(&db, id, &full()).unwrap();
            tags(&db, &full()).unwrap();
        }
        assert_eq!(db.connections_opened(), 1);
        // Calls in flight at once each get a connection; all of them are kept afterwards.
        let threads = 8;
        let barrier = std::sync::Barrier::new(threads);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    db.read(&Deadline::none(), |_| {
                        barrier.wait();
                        Ok(())
                    })
                    .unwrap()
                });
            }
        });
        assert_eq!(db.connections_opened(), threads);
        note(&db, 1, &full()).unwrap();
        assert_eq!(db.connections_opened(), threads);
    }

    /// Each thread gets its own connection back at its next call, also when another thread
    /// called in between: the connection the other thread just put back is not handed over.
    #[test]
    fn each_thread_gets_its_own_connection_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.db");
        crate::demo::create(&path).unwrap();
        let db = Database::new(&path);
        let turn = std::sync::Barrier::new(2);
        // Which connection serves a call: its SQLite handle, only compared. With `together`
        // both threads are in a call at once (so each has a connection of its own).
        let connection = |together: bool| {
            db.read(&Deadline::none(), |conn| {
                if together {
                    turn.wait();
                }
                // SAFETY: the pointer is only compared, never used.
                Ok(unsafe { conn.handle() } as usize)
            })
            .unwrap()
        };
        let seen: Vec<Vec<usize>> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..2)
                .map(|thread| {
                    let (connection, turn) = (&connection, &turn);
                    scope.spawn(move || {
                        // Slots of their own, whatever other tests' threads took.
                        set_home_slot(thread);
                        let mut seen = vec![connection(true)];
                        // Then one at a time: thread 1 calls, then thread 0.
                        for _ in 0..10 {
                            if thread == 0 {
                                turn.wait();
                                seen.push(connection(false));
                                turn.wait();
                            } else {
                                seen.push(connection(false));
                                turn.wait();
                                turn.wait();
                            }
                        }
                        seen
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        for calls in &seen {
            assert!(calls.iter().all(|c| *c == calls[0]), "{seen:?}");
        }
        assert_ne!(seen[0][0], seen[1][0]);
        assert_eq!(db.connections_opened(), 2);
    }

    #[test]
    fn argument_checks_come_before_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::new(dir.path().join("absent.db"));
        let day = |text: &str| text.parse::<NaiveDate>().unwrap();
        let reversed =
            between(&db, day("2024-03-02"), day("2024-03-01"), None, &full()).unwrap_err();
        assert_eq!(
            reversed.code(),
            cetp_provider::ErrorCode::InvalidArgs,
            "{reversed}"
        );
        let long = between(&db, day("2023-01-01"), day("2024-03-01"), None, &full()).unwrap_err();
        assert_eq!(long.code(), cetp_provider::ErrorCode::InvalidArgs, "{long}");
        let wordless = search(&db, "🌱", None, None, &full()).unwrap_err();
        assert_eq!(
            wordless.code(),
            cetp_provider::ErrorCode::InvalidArgs,
            "{wordless}"
        );
        assert_eq!(db.connections_opened(), 0);
    }

    /// A clock that moves one millisecond each time it is read, so a deadline passes after a
    /// known number of looks however fast the machine is.
    #[derive(Default)]
    struct Ticking(std::sync::Arc<std::sync::atomic::AtomicU64>);

    impl Clock for Ticking {
        fn now_ms(&self) -> u64 {
            self.0.fetch_add(1, Ordering::Relaxed)
        }
    }

    #[test]
    fn a_query_stops_at_the_deadline_and_its_connection_serves_the_next_call() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.db");
        crate::demo::create(&path).unwrap();
        let db = Database::new(&path);
        let ticks = Ticking::default();
        let looks = std::sync::Arc::clone(&ticks.0);
        let deadline = Deadline::new(ticks, std::time::Duration::from_millis(50));
        // Two million rows: far more steps than the deadline allows, unless SQLite stops at the deadline.
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 2000000) \
                       SELECT count(*) FROM c";
        let err = db
            .read(&deadline, |conn| {
                conn.query_row(endless, [], |row| row.get::<_, i64>(0))
                    .map_err(db_error)
            })
            .unwrap_err();
        assert_eq!(err.code(), cetp_provider::ErrorCode::InternalError);
        assert!(err.message().contains("deadline"), "{err}");
        let looked = looks.load(Ordering::Relaxed);
        assert!((50..60).contains(&looked), "SQLite looked {looked} times");
        // The same connection answers the next call in full: the watch went with the call.
        let counted: i64 = db
            .read(&Deadline::none(), |conn| {
                conn.query_row(endless, [], |row| row.get(0))
                    .map_err(db_error)
            })
            .unwrap();
        assert_eq!(counted, 2_000_000);
        assert_eq!(db.connections_opened(), 1);
    }

    #[test]
    fn a_call_already_past_its_deadline_opens_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::new(dir.path().join("notes.db")).on_first_use(crate::demo::seed);
        let caller = Caller::unknown();
        let late = CallContext::new(&caller).with_deadline(Deadline::new(
            cetp_provider::auth::SystemClock,
            std::time::Duration::ZERO,
        ));
        let err = tags(&db, &late).unwrap_err();
        assert!(err.message().contains("deadline"), "{err}");
        assert_eq!(db.connections_opened(), 0);
        assert!(!dir.path().join("notes.db").exists());
    }

    #[test]
    fn a_missing_database_is_an_internal_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("absent.db");
        let err = tags(&Database::new(&path), &full()).unwrap_err();
        assert_eq!(err.code(), cetp_provider::ErrorCode::InternalError);
        assert!(err.message().contains("absent.db"), "{err}");
        assert!(!path.exists(), "opening must not create the file");
    }

    /// Every (table, column) a statement prepared on `conn` while `run` runs may read, as
    /// SQLite's authorizer reports them (the full-text index of bodies is the table
    /// `notes_fts`; reading it at all lets bodies decide how long a query takes).
    fn tables_read(conn: &Connection, run: impl FnOnce()) -> Vec<(String, String)> {
        use rusqlite::hooks::{AuthAction, Authorization};
        let seen = std::sync::Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        conn.authorizer(Some(move |ctx: rusqlite::hooks::AuthContext<'_>| {
            if let AuthAction::Read {
                table_name,
                column_name,
            } = ctx.action
            {
                log.lock()
                    .unwrap()
                    .push((table_name.to_owned(), column_name.to_owned()));
            }
            Authorization::Allow
        }));
        run();
        conn.authorizer(None::<fn(rusqlite::hooks::AuthContext<'_>) -> Authorization>);
        let mut seen = seen.lock().unwrap().clone();
        seen.sort();
        seen.dedup();
        seen
    }

    /// A limited search never reads a body, nor the full-text index over bodies: how long it
    /// takes cannot depend on what the bodies say.
    #[test]
    fn the_limited_search_reads_titles_tags_and_dates_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.db");
        crate::demo::create(&path).unwrap();
        let db = Database::new(&path);
        db.read(&Deadline::none(), |conn| {
            let read = tables_read(conn, || {
                let hits = search_titles_and_tags(conn, "café Lisbon", Some("travel"), 10).unwrap();
                assert!(hits.iter().all(|h| h.snippet.is_none()));
            });
            assert!(!read.is_empty());
            for (table, column) in &read {
                assert!(
                    !table.starts_with("notes_fts") && column != "body",
                    "the limited search reads {table}.{column}: {read:?}"
                );
                assert!(
                    table.starts_with("note_titles") || table == "tags",
                    "the limited search reads {table}.{column}: {read:?}"
                );
            }
            // The full search does read the body index (the check sees it).
            let full = tables_read(conn, || {
                search_terms(conn, "\"café\"", None, 10, AccessLevel::Full).unwrap();
            });
            assert!(full.iter().any(|(t, _)| t == "notes_fts"), "{full:?}");
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn a_limited_get_note_never_reads_the_body() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.db");
        crate::demo::create(&path).unwrap();
        let db = Database::new(&path);
        db.read(&Deadline::none(), |conn| {
            let limited = tables_read(conn, || {
                let note = note_by_id(conn, 16, AccessLevel::Limited).unwrap();
                assert!(note.body.is_none());
            });
            assert!(limited.iter().any(|(t, c)| t == "notes" && c == "title"));
            assert!(
                !limited.iter().any(|(_, c)| c == "body"),
                "the limited get_note reads {limited:?}"
            );
            // The full one does (the check sees it).
            let full = tables_read(conn, || {
                assert!(
                    note_by_id(conn, 16, AccessLevel::Full)
                        .unwrap()
                        .body
                        .is_some()
                );
            });
            assert!(
                full.iter().any(|(t, c)| t == "notes" && c == "body"),
                "{full:?}"
            );
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn fts_terms_refuse_text_without_letters_or_digits() {
        assert_eq!(fts_terms("🌱 -- ()"), None);
        assert_eq!(fts_terms(""), None);
    }
}
