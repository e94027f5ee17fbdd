//! Reading a database the app owns (Room, `SQLiteDatabase`) through Android's own SQLite:
//! [`AppDatabase`], the values it binds ([`SqlValue`]), and the seam it reads through
//! ([`SqlReader`]).
//!
//! The tools' reads go through the same SQLite library as the app's writes (Room's), so the
//! process has one SQLite and the app's locks and WAL hold (`docs/sqlite.md`, "My data is in
//! Room"). Policy is here, in Rust: which statements may run, how many rows a call may take,
//! the call's deadline, how a row becomes the tool's type. The reader only runs the statement:
//! on Android, the template's `CetpAppDatabase` (feature `jni`); in host tests, any
//! [`SqlReader`] the test gives.

mod codec;
mod row;
mod statement;

use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use crate::context::{CallContext, Deadline};
use crate::error::ToolError;

#[cfg(feature = "jni")]
pub(crate) use codec::{decode_reply, encode_params};

/// How many rows one query may return unless [`AppDatabase::max_rows`] says otherwise.
pub(crate) const DEFAULT_MAX_ROWS: usize = 1_000;

/// One value bound to a `?` of a query, or read from a column: SQLite's five storage classes.
///
/// Build them with `From` (`5_i64.into()`, `"text".into()`, `None::<i64>.into()` for `NULL`).
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    /// `NULL`.
    Null,
    /// An `INTEGER`.
    Integer(i64),
    /// A `REAL`.
    Real(f64),
    /// `TEXT`.
    Text(String),
    /// A `BLOB`.
    Blob(Vec<u8>),
}

macro_rules! integer_values {
    ($($t:ty),*) => {$(
        impl From<$t> for SqlValue {
            fn from(value: $t) -> Self {
                SqlValue::Integer(i64::from(value))
            }
        }
    )*};
}
integer_values!(i8, i16, i32, i64, u8, u16, u32, bool);

impl From<f64> for SqlValue {
    fn from(value: f64) -> Self {
        SqlValue::Real(value)
    }
}

impl From<&str> for SqlValue {
    fn from(value: &str) -> Self {
        SqlValue::Text(value.to_owned())
    }
}

impl From<String> for SqlValue {
    fn from(value: String) -> Self {
        SqlValue::Text(value)
    }
}

impl From<Vec<u8>> for SqlValue {
    fn from(value: Vec<u8>) -> Self {
        SqlValue::Blob(value)
    }
}

impl<T: Into<SqlValue>> From<Option<T>> for SqlValue {
    fn from(value: Option<T>) -> Self {
        value.map_or(SqlValue::Null, Into::into)
    }
}

/// What a [`SqlReader`] returns: the columns' names and the rows, each as many values as there
/// are columns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SqlRows {
    /// The result's column names, as SQLite names them (`AS` gives a column its name).
    pub columns: Vec<String>,
    /// The rows, in the order SQLite returned them.
    pub rows: Vec<Vec<SqlValue>>,
}

/// Why a [`SqlReader`] has no rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqlFailure {
    /// The database file does not exist (yet): the app has not created it.
    Missing,
    /// The statement was stopped at the call's deadline.
    Cancelled,
    /// Anything else, in the reader's words (no value of the call or row of the data in them).
    Failed(String),
}

/// Runs one statement [`AppDatabase`] has checked, on the database named `name`.
///
/// On Android the SDK's reader runs it on Android's SQLite (feature `jni`,
/// [`AppDatabase::android`]). A host test gives its own: for example over `rusqlite` on a file
/// the test wrote with the app's schema, never linked into the app's library (one SQLite per
/// process).
pub trait SqlReader: Send + Sync + 'static {
    /// Runs `sql` (one read, already checked) with `params` bound to its `?` in order; returns
    /// at most `max_rows` rows (fewer are fine: [`AppDatabase`] asks for one more than it
    /// allows, to tell a full answer from a cut one). Stops the statement once `deadline` is
    /// past ([`SqlFailure::Cancelled`]).
    ///
    /// # Errors
    /// The database is missing, the statement was cancelled, or it failed.
    fn read(
        &self,
        name: &str,
        sql: &str,
        params: &[SqlValue],
        max_rows: usize,
        deadline: &Deadline,
    ) -> Result<SqlRows, SqlFailure>;
}

/// A database the app owns, read through Android's own SQLite (the library Room uses): held as
/// provider state, used by tools with [`query`](Self::query).
///
/// It never creates, migrates or changes the database: the reader opens it read-only
/// (`OPEN_READONLY`), and every statement is checked before it reaches SQLite: one `SELECT`
/// (or `VALUES`, possibly after `WITH`), values bound to plain `?` placeholders, never formatted
/// into the SQL. A call gets at most [`max_rows`](Self::max_rows) rows and stops at its
/// deadline.
///
/// ```
/// use cetp_provider::app_db::{SqlFailure, SqlReader, SqlRows, SqlValue};
/// use cetp_provider::{AppDatabase, CallContext, Caller, Deadline};
///
/// /// A reader with one fixed answer, as a host test might have.
/// struct OneRow;
/// impl SqlReader for OneRow {
///     fn read(&self, _: &str, _: &str, params: &[SqlValue], _: usize, _: &Deadline)
///         -> Result<SqlRows, SqlFailure> {
///         Ok(SqlRows {
///             columns: vec!["id".into(), "title".into()],
///             rows: vec![vec![params[0].clone(), SqlValue::Text("Tuesday".into())]],
///         })
///     }
/// }
///
/// #[derive(Debug, serde::Deserialize)]
/// struct Entry { id: i64, title: String }
///
/// let db = AppDatabase::with_reader("journal.db", OneRow).unwrap();
/// let caller = Caller::unknown();
/// let ctx = CallContext::new(&caller);
/// let rows: Vec<Entry> = db.query(&ctx, "SELECT id, title FROM entry WHERE id = ?", &[7.into()]).unwrap();
/// assert_eq!((rows[0].id, rows[0].title.as_str()), (7, "Tuesday"));
///
/// let refused = db.query::<Entry>(&ctx, "DELETE FROM entry", &[]).unwrap_err();
/// assert!(refused.message().contains("not a single read"));
/// ```
#[derive(Clone)]
pub struct AppDatabase {
    name: Arc<str>,
    reader: Arc<dyn SqlReader>,
    max_rows: usize,
}

impl fmt::Debug for AppDatabase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AppDatabase")
            .field("name", &self.name)
            .field("max_rows", &self.max_rows)
            .finish_non_exhaustive()
    }
}

impl AppDatabase {
    /// The database `name` read through `reader` (host tests; see [`SqlReader`]).
    ///
    /// # Errors
    /// `name` is empty, holds a path separator, is `.` or `..`, or holds a NUL.
    pub fn with_reader(name: &str, reader: impl SqlReader) -> Result<Self, String> {
        check_name(name)?;
        Ok(AppDatabase {
            name: name.into(),
            reader: Arc::new(reader),
            max_rows: DEFAULT_MAX_ROWS,
        })
    }

    /// At most `rows` rows per query (default 1,000); a query that would return
    /// more fails, telling the app's developer to bound it (`LIMIT ?`). At least 1.
    #[must_use]
    pub fn max_rows(mut self, rows: usize) -> Self {
        self.max_rows = rows.max(1);
        self
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs `sql`, one read, with `params` bound to its `?` in order, and turns each row into a
    /// `T` (a struct whose fields are named like the columns: `INTEGER` into integers or
    /// `bool`, `REAL` into floats, `TEXT` into strings, `BLOB` into `Vec<u8>`, `NULL` into
    /// `None`), within the call's deadline.
    ///
    /// # Errors
    /// `INTERNAL_ERROR`, with a message for the model and without any value of the call or the
    /// data, when: the statement is not one read (refused before it reaches SQLite), the count
    /// of values differs from its `?`, the database does not exist yet (with a hint for the
    /// user), the deadline passed (the statement is stopped), more than
    /// [`max_rows`](Self::max_rows) rows came back, a row does not fit `T`, or SQLite failed.
    pub fn query<T: DeserializeOwned>(
        &self,
        ctx: &CallContext<'_>,
        sql: &str,
        params: &[SqlValue],
    ) -> Result<Vec<T>, ToolError> {
        let deadline = ctx.deadline();
        deadline.check()?;
        let read = statement::check(sql).map_err(|r| ToolError::internal(r.0))?;
        if read.placeholders != params.len() {
            return Err(ToolError::internal(format!(
                "the query has {} `?` but {} values were given",
                read.placeholders,
                params.len()
            )));
        }
        let rows = self
            .reader
            .read(&self.name, sql, params, self.max_rows + 1, deadline)
            .map_err(|failure| self.failure(failure, deadline))?;
        deadline.check()?;
        if rows.rows.len() > self.max_rows {
            return Err(ToolError::internal(format!(
                "the query returned more than {} rows, the most one call may read from {}; bound it (LIMIT ?)",
                self.max_rows, self.name
            )));
        }
        let columns = rows.columns;
        rows.rows
            .into_iter()
            .map(|row| {
                // serde's words may quote the value: say only that the row does not fit.
                row::from_row(&columns, row).map_err(|_| {
                    ToolError::internal(format!(
                        "a row of {} does not fit the tool's row type (a column's type or name differs)",
                        self.name
                    ))
                })
            })
            .collect()
    }

    fn failure(&self, failure: SqlFailure, deadline: &Deadline) -> ToolError {
        match failure {
            SqlFailure::Missing => ToolError::internal(format!(
                "the app has not created its database {} yet",
                self.name
            ))
            .with_hint("Open the app once, so that it creates its data, then ask again."),
            SqlFailure::Cancelled => match deadline.check() {
                Err(past) => past,
                Ok(()) => ToolError::internal(format!(
                    "the read of {} was cancelled before it had an answer",
                    self.name
                )),
            },
            SqlFailure::Failed(why) => match deadline.check() {
                Err(past) => past,
                Ok(()) => ToolError::internal(format!("reading {} failed: {why}", self.name)),
            },
        }
    }
}

/// A database name is a file name in the app's database directory, nothing more.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
        return Err(format!(
            "an app database is named by its file name in the app's database directory (e.g. \"journal.db\"), not {name:?}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
