//! A benchmark fixture, never an app's shape: the same query on the same rows through the two
//! SQLite paths a tool can take, `AppDatabase` (Android's SQLite, over JNI) and the crate's own
//! bundled SQLite (as `samples/notes` reads). The bundled path reads a *copy* of the file
//! (`bench-copy.db`, written by the benchmark before it starts), so no file is ever opened by two
//! SQLite libraries in this process (`docs/sqlite.md`). `AppDatabaseBenchmark` in
//! `tests/android` times both.
#![deny(missing_docs)]

use std::path::PathBuf;
use std::sync::Mutex;

use cetp_provider::auth::Auth;
use cetp_provider::{
    App, AppDatabase, CallContext, Provider, ProviderBuilder, ToolError, tool, tools,
};
use rusqlite::{Connection, OpenFlags};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The query both tools run.
pub const SQL: &str =
    "SELECT id, title, mood, created_at, tags FROM entry ORDER BY created_at DESC, id DESC LIMIT ?";

/// One row, as both paths return it.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Row {
    /// Id.
    pub id: i64,
    /// Title.
    pub title: String,
    /// Mood.
    pub mood: String,
    /// Epoch milliseconds.
    pub created_at: i64,
    /// JSON array text.
    pub tags: String,
}

/// The bundled SQLite's read-only connection to the copy, opened on first use.
pub struct Bundled {
    path: PathBuf,
    conn: Mutex<Option<Connection>>,
}

/// Reads `limit` rows through Android's SQLite.
#[tool]
pub fn framework_rows(
    /// How many rows.
    limit: u32,
    db: &AppDatabase,
    ctx: &CallContext,
) -> Result<Vec<Row>, ToolError> {
    db.query(ctx, SQL, &[limit.into()])
}

/// Reads `limit` rows through the bundled SQLite.
#[tool]
pub fn bundled_rows(
    /// How many rows.
    limit: u32,
    bundled: &Bundled,
) -> Result<Vec<Row>, ToolError> {
    let mut conn = bundled
        .conn
        .lock()
        .map_err(|_| ToolError::internal("poisoned"))?;
    if conn.is_none() {
        let opened = Connection::open_with_flags(&bundled.path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| ToolError::internal(format!("open: {e}")))?;
        *conn = Some(opened);
    }
    let conn = conn
        .as_ref()
        .ok_or_else(|| ToolError::internal("no connection"))?;
    let mut stmt = conn
        .prepare_cached(SQL)
        .map_err(|e| ToolError::internal(e.to_string()))?;
    let rows = stmt
        .query_map([limit], |r| {
            Ok(Row {
                id: r.get(0)?,
                title: r.get(1)?,
                mood: r.get(2)?,
                created_at: r.get(3)?,
                tags: r.get(4)?,
            })
        })
        .map_err(|e| ToolError::internal(e.to_string()))?;
    rows.collect::<Result<_, _>>()
        .map_err(|e| ToolError::internal(e.to_string()))
}

/// The provider: open policy (the benchmark times reads, not approvals).
pub fn provider(app: &App) -> Result<ProviderBuilder, String> {
    let databases = app.files_dir().parent().map_or_else(
        || app.files_dir().join("databases"),
        |p| p.join("databases"),
    );
    Ok(Provider::builder("App database benchmark")
        .description("Two SQLite paths over the same rows, for a benchmark")
        .auth(Auth::open())
        .tools(tools![framework_rows, bundled_rows])
        .state(AppDatabase::android("bench.db")?)
        .state(Bundled {
            path: databases.join("bench-copy.db"),
            conn: Mutex::new(None),
        }))
}

cetp_provider::export_provider!(provider);
