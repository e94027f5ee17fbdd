//! A journal app's entries, readable by on-device agents through CETP.
//!
//! The app keeps its journal in Room (`android/src/main/java/…/Journal.kt`): the file
//! `journal.db` in its database directory, written by Kotlin through Android's SQLite. The tools
//! read it through the same SQLite (`AppDatabase::android`): read-only, never migrating it,
//! one SQLite in the process. This file is the whole integration; the SQL and the row types are
//! in `entries.rs`. Walkthrough: `README.md`.

pub mod entries;
mod texts;

use cetp_provider::{
    App, AppDatabase, CallContext, Provider, ProviderBuilder, ToolError, tool, tools,
};
use entries::{Entry, EntrySummary, Mood};

/// Lists the user's journal entries, newest first: title, mood, tags and when each was
/// written, without the text. Filter by mood if asked.
#[tool(scopes = ["journal.read"])]
pub fn recent_entries(
    /// Only entries with this mood.
    mood: Option<Mood>,
    /// How many entries to list, 1 to 100 (default 20).
    #[schemars(range(min = 1, max = 100))]
    limit: Option<u32>,
    db: &AppDatabase,
    ctx: &CallContext,
) -> Result<Vec<EntrySummary>, ToolError> {
    entries::recent(db, mood, limit, ctx)
}

/// Reads one journal entry with its text (limited callers get everything but the text).
#[tool(scopes = ["journal.text"])]
pub fn read_entry(
    /// The entry's id, from `recent_entries`.
    #[schemars(range(min = 1))]
    id: i64,
    db: &AppDatabase,
    ctx: &CallContext,
) -> Result<Entry, ToolError> {
    entries::one(db, id, ctx)
}

/// Declares the provider over the journal database.
pub fn provider_over(db: AppDatabase) -> ProviderBuilder {
    Provider::builder("Journal")
        .description(texts::description())
        .scope("journal.read", texts::journal_read())
        .scope("journal.text", texts::journal_text())
        .tools(tools![recent_entries, read_entry])
        .state(db)
}

/// What the Android template calls: the app's Room database, by the name Room gives it.
pub fn provider(_app: &App) -> Result<ProviderBuilder, String> {
    Ok(provider_over(AppDatabase::android(entries::DATABASE)?))
}

cetp_provider::export_provider!(provider);
