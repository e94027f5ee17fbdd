//! The tool bodies: SQL over the app's Room database, and the rows as the tools return them.
//!
//! The schema is Room's for the app's `Entry` entity (version 2; `android/…/Journal.kt`):
//! `entry(id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT, body TEXT, mood TEXT,
//! created_at INTEGER, tags TEXT)`: the mood is the Kotlin enum's name (Room's default for an
//! enum), `created_at` milliseconds since the epoch, `tags` a JSON array of strings (a
//! `TypeConverter`), added by the migration from version 1 (older rows hold `'[]'`).

use cetp_provider::{AppDatabase, CallContext, ToolError};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The file Room creates (`Room.databaseBuilder(context, Journal::class.java, "journal.db")`).
pub const DATABASE: &str = "journal.db";
/// How many entries `recent_entries` lists without a `limit`.
pub const DEFAULT_LISTED: u32 = 20;

/// How the user felt, as the app's `Mood` enum names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Mood {
    /// A great day.
    Great,
    /// A good day.
    Good,
    /// An ordinary day.
    Okay,
    /// A bad day.
    Bad,
}

impl Mood {
    /// The name Room stores.
    pub fn as_str(self) -> &'static str {
        match self {
            Mood::Great => "GREAT",
            Mood::Good => "GOOD",
            Mood::Okay => "OKAY",
            Mood::Bad => "BAD",
        }
    }
}

/// An entry without its text.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EntrySummary {
    /// Entry id, for `read_entry`.
    pub id: i64,
    /// Title.
    pub title: String,
    /// How the user felt.
    pub mood: Mood,
    /// When it was written, RFC 3339 in UTC (e.g. `2025-03-04T18:30:00Z`).
    pub created: DateTime<Utc>,
    /// The entry's tags.
    pub tags: Vec<String>,
}

/// A whole entry.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Entry {
    /// Entry id.
    pub id: i64,
    /// Title.
    pub title: String,
    /// How the user felt.
    pub mood: Mood,
    /// When it was written, RFC 3339 in UTC (e.g. `2025-03-04T18:30:00Z`).
    pub created: DateTime<Utc>,
    /// The entry's tags.
    pub tags: Vec<String>,
    /// The text; absent for limited callers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// A row of `entry` as Room stores it.
#[derive(Deserialize)]
struct Row {
    id: i64,
    title: String,
    mood: Mood,
    created_at: i64,
    tags: String,
    body: Option<String>,
}

impl Row {
    fn summary(self) -> Result<EntrySummary, ToolError> {
        let entry = self.entry(false)?;
        Ok(EntrySummary {
            id: entry.id,
            title: entry.title,
            mood: entry.mood,
            created: entry.created,
            tags: entry.tags,
        })
    }

    fn entry(self, with_body: bool) -> Result<Entry, ToolError> {
        let created = DateTime::from_timestamp_millis(self.created_at)
            .ok_or_else(|| ToolError::internal("an entry's date is out of range"))?;
        let tags: Vec<String> = serde_json::from_str(&self.tags)
            .map_err(|_| ToolError::internal("an entry's tags are not a JSON array of strings"))?;
        Ok(Entry {
            id: self.id,
            title: self.title,
            mood: self.mood,
            created,
            tags,
            body: self.body.filter(|_| with_body),
        })
    }
}

/// `recent_entries`: the newest entries, optionally of one mood.
///
/// # Errors
/// Those of [`AppDatabase::query`].
pub fn recent(
    db: &AppDatabase,
    mood: Option<Mood>,
    limit: Option<u32>,
    ctx: &CallContext,
) -> Result<Vec<EntrySummary>, ToolError> {
    let mood = mood.map(Mood::as_str);
    let rows: Vec<Row> = db.query(
        ctx,
        "SELECT id, title, mood, created_at, tags, NULL AS body FROM entry \
         WHERE (? IS NULL OR mood = ?) ORDER BY created_at DESC, id DESC LIMIT ?",
        &[
            mood.into(),
            mood.into(),
            limit.unwrap_or(DEFAULT_LISTED).into(),
        ],
    )?;
    rows.into_iter().map(Row::summary).collect()
}

/// `read_entry`: one entry, its text only for full access.
///
/// # Errors
/// `INVALID_ARGS` for an unknown id; those of [`AppDatabase::query`].
pub fn one(db: &AppDatabase, id: i64, ctx: &CallContext) -> Result<Entry, ToolError> {
    // A limited caller's answer is made without reading the text at all.
    let sql = if ctx.access().is_limited() {
        "SELECT id, title, mood, created_at, tags, NULL AS body FROM entry WHERE id = ?"
    } else {
        "SELECT id, title, mood, created_at, tags, body FROM entry WHERE id = ?"
    };
    let rows: Vec<Row> = db.query(ctx, sql, &[id.into()])?;
    let row = rows.into_iter().next().ok_or_else(|| {
        ToolError::invalid_args(format!(
            "no journal entry has id {id}; recent_entries lists the ids"
        ))
    })?;
    row.entry(!ctx.access().is_limited())
}
