//! The app's core: its reading list in SQLite, the same code for the app (through UniFFI, from
//! Kotlin) and for the tools (through CETP). Nothing here knows about CETP but [`ToolError`].

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cetp_provider::ToolError;
use rusqlite::{Connection, OpenFlags, params};
use schemars::JsonSchema;
use serde::Serialize;

const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
CREATE TABLE IF NOT EXISTS books (
    id       INTEGER PRIMARY KEY,
    title    TEXT NOT NULL,
    author   TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
";

/// One book on the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema, uniffi::Record)]
pub struct Book {
    /// The book's id.
    pub id: i64,
    /// Its title.
    pub title: String,
    /// Its author.
    pub author: String,
    /// Whether the user has finished it.
    pub finished: bool,
}

/// What went wrong in the core, as Kotlin sees it (an exception).
#[derive(Debug, thiserror::Error, uniffi::Error)]
pub enum ShelfError {
    /// The database could not be read or written.
    #[error("the reading list's database failed: {reason}")]
    Storage {
        /// SQLite's words (not `message`, which Kotlin's `Throwable` already has).
        reason: String,
    },
}

impl From<rusqlite::Error> for ShelfError {
    fn from(err: rusqlite::Error) -> Self {
        ShelfError::Storage {
            reason: err.to_string(),
        }
    }
}

/// The app's handle on its reading list: the one writer, opened by the app (Kotlin) at start.
#[derive(Debug, uniffi::Object)]
pub struct Shelf {
    conn: Mutex<Connection>,
}

#[uniffi::export]
impl Shelf {
    /// Opens (creating if needed) the reading list at `path`.
    #[uniffi::constructor]
    pub fn open(path: String) -> Result<Arc<Self>, ShelfError> {
        let conn = Connection::open(path)?;
        conn.execute_batch(SCHEMA)?;
        Ok(Arc::new(Shelf {
            conn: Mutex::new(conn),
        }))
    }

    /// Adds a book; answers its id.
    pub fn add(&self, title: String, author: String) -> Result<i64, ShelfError> {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        conn.execute(
            "INSERT INTO books (title, author) VALUES (?1, ?2)",
            params![title, author],
        )?;
        Ok(conn.last_insert_rowid())
    }

    /// Marks a book finished.
    pub fn finish(&self, id: i64) -> Result<(), ShelfError> {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        conn.execute("UPDATE books SET finished = 1 WHERE id = ?1", [id])?;
        Ok(())
    }

    /// Every book, in the order they were added.
    pub fn list(&self) -> Result<Vec<Book>, ShelfError> {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        Ok(books(&conn, "", &[])?)
    }
}

/// The tools' side: one read-only connection to the same file, through the same SQLite,
/// opened on the first call that needs it. Provider state.
#[derive(Debug)]
pub struct Reader {
    path: PathBuf,
    conn: Mutex<Option<Connection>>,
}

impl Reader {
    /// Names the file; opens nothing yet.
    pub fn new(path: &Path) -> Self {
        Reader {
            path: path.to_path_buf(),
            conn: Mutex::new(None),
        }
    }

    /// The books whose title or author contains `words` (any case), at most `limit`.
    pub fn find(&self, words: &str, limit: u32) -> Result<Vec<Book>, ToolError> {
        let pattern = format!("%{}%", words.replace(['%', '_'], ""));
        self.read(
            "WHERE title LIKE ?1 OR author LIKE ?1 ORDER BY id LIMIT ?2",
            &[&pattern, &limit],
        )
    }

    /// The books not finished yet, oldest first.
    pub fn unfinished(&self) -> Result<Vec<Book>, ToolError> {
        self.read("WHERE finished = 0 ORDER BY id", &[])
    }

    fn read(&self, clause: &str, args: &[&dyn rusqlite::ToSql]) -> Result<Vec<Book>, ToolError> {
        if !self.path.exists() {
            return Ok(Vec::new()); // the app has not written a book yet
        }
        let mut slot = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            let conn = Connection::open_with_flags(&self.path, flags).map_err(internal)?;
            *slot = Some(conn);
        }
        let conn = slot.as_ref().expect("opened above");
        books(conn, clause, args).map_err(internal)
    }
}

fn books(
    conn: &Connection,
    clause: &str,
    args: &[&dyn rusqlite::ToSql],
) -> rusqlite::Result<Vec<Book>> {
    let sql = format!("SELECT id, title, author, finished FROM books {clause}");
    let mut statement = conn.prepare_cached(&sql)?;
    let rows = statement.query_map(args, |row| {
        Ok(Book {
            id: row.get(0)?,
            title: row.get(1)?,
            author: row.get(2)?,
            finished: row.get(3)?,
        })
    })?;
    rows.collect()
}

fn internal(err: rusqlite::Error) -> ToolError {
    ToolError::internal(format!("cannot read the reading list: {err}"))
}
