//! A notes app's notes, searchable by on-device agents through CETP.
//!
//! The notes live in SQLite (`<filesDir>/notes.db`), read through a pool of read-only
//! connections the provider holds as state (`queries::Database`), opened on first use. This
//! file is the whole integration: five `#[tool]` functions, the provider and the export line.
//! The tool bodies and the SQL are in `queries.rs`; `demo.rs` creates demo data. Walkthrough:
//! `README.md`.

pub mod demo;
pub mod queries;
mod texts;

use std::time::Duration;

use cetp_provider::{App, CallContext, Provider, ProviderBuilder, ToolError, tool, tools};
use chrono::NaiveDate;
use queries::{Database, Hit, Note, NoteList, TagCount, TextMatches};

/// Searches the user's notes by words in their title or body, best matches first. Every word
/// must occur; case and accents are ignored. When the user shares titles only, the search
/// looks at titles and tags (not the text), newest first, without snippets.
#[tool(scopes = ["notes.read"])]
pub fn search_notes(
    /// Words to look for, e.g. `cafe lisbon` or `抹茶`.
    #[schemars(length(min = 1, max = 200))]
    query: String,
    /// Only notes with this tag (see `list_tags`).
    #[schemars(length(min = 1, max = 64))]
    tag: Option<String>,
    /// How many hits to return, 1 to 50 (default 10).
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u32>,
    db: &Database,
    ctx: &CallContext,
) -> Result<Vec<Hit>, ToolError> {
    queries::search(db, &query, tag.as_deref(), limit, ctx)
}

/// Fetches one note by id, with its full text (limited callers get title, date and tags).
#[tool(scopes = ["notes.read"])]
pub fn get_note(
    /// The note's id, from `search_notes` or `notes_between`.
    #[schemars(range(min = 1))]
    id: i64,
    db: &Database,
    ctx: &CallContext,
) -> Result<Note, ToolError> {
    queries::note(db, id, ctx)
}

/// Lists every tag with the number of notes carrying it, most used first.
#[tool(scopes = ["tags.read"])]
pub fn list_tags(db: &Database, ctx: &CallContext) -> Result<Vec<TagCount>, ToolError> {
    queries::tags(db, ctx)
}

/// Lists the notes written between two days (both included, 366 days at most), oldest
/// first, with the total number in the range.
#[tool(scopes = ["notes.read"])]
pub fn notes_between(
    /// First day, `YYYY-MM-DD`.
    from: NaiveDate,
    /// Last day, `YYYY-MM-DD`, not before `from`.
    to: NaiveDate,
    /// How many notes to list, 1 to 200 (default 50).
    #[schemars(range(min = 1, max = 200))]
    limit: Option<u32>,
    db: &Database,
    ctx: &CallContext,
) -> Result<NoteList, ToolError> {
    queries::between(db, from, to, limit, ctx)
}

/// Finds every note containing a text anywhere, even inside words (part of a number, a code
/// or an address), oldest first. It reads every note, so it can take seconds: prefer
/// `search_notes` for words. When the user shares titles only, it looks at titles alone.
#[tool(scopes = ["notes.read"], long_running)]
pub fn find_text(
    /// The characters to look for, e.g. `4417` or `lisbon`.
    #[schemars(length(min = 1, max = 200))]
    text: String,
    /// How many notes to return, 1 to 50 (default 10).
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u32>,
    db: &Database,
    ctx: &CallContext,
) -> Result<TextMatches, ToolError> {
    queries::find_text(db, &text, limit, ctx)
}

/// How long `find_text` may read: on CETP v2 it goes on as an operation the agent polls; on
/// CETP v1 and Apex the call waits for it.
pub const FIND_TEXT_DEADLINE: Duration = Duration::from_secs(30);

/// Declares the provider over the notes database (its path, or a [`Database`]).
pub fn provider_over(database: impl Into<Database>) -> ProviderBuilder {
    Provider::builder("Notes")
        .description(texts::description())
        .scope("notes.read", texts::notes_read())
        .scope("tags.read", texts::tags_read())
        .tools(tools![
            search_notes,
            get_note,
            list_tags,
            notes_between,
            find_text
        ])
        .tool_deadline("find_text", FIND_TEXT_DEADLINE)
        .state(database.into())
}

/// What the Android template calls at start-up: the database is in the app's files dir, opened
/// by the first call that needs it. Demo only: that call creates the demo notes.
pub fn provider(app: &App) -> ProviderBuilder {
    provider_over(Database::new(app.files_dir().join("notes.db")).on_first_use(demo::seed))
}

cetp_provider::export_provider!(provider);
