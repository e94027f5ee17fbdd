//! A notes app's notes, searchable by on-device agents through CETP.
//!
//! The notes live in SQLite (`<filesDir>/notes.db`), opened read-only for every call. This file
//! is the whole integration: four `#[tool]` functions, the provider and the export line. The
//! tool bodies and the SQL are in `queries.rs`; `demo.rs` creates demo data. Walkthrough:
//! `README.md`.

pub mod demo;
pub mod queries;

use std::path::PathBuf;

use cetp_provider::{BuildError, CallContext, Provider, ToolError, tool, tools};
use chrono::NaiveDate;
use queries::{Hit, Note, NoteList, TagCount, connect};

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
    ctx: &CallContext,
) -> Result<Vec<Hit>, ToolError> {
    queries::search(&connect()?, &query, tag.as_deref(), limit, ctx.access())
}

/// Fetches one note by id, with its full text (redacted callers get title, date and tags).
#[tool(scopes = ["notes.read"])]
pub fn get_note(
    /// The note's id, from `search_notes` or `notes_between`.
    #[schemars(range(min = 1))]
    id: i64,
    ctx: &CallContext,
) -> Result<Note, ToolError> {
    queries::note(&connect()?, id, ctx.access())
}

/// Lists every tag with the number of notes carrying it, most used first.
#[tool(scopes = ["tags.read"])]
pub fn list_tags() -> Result<Vec<TagCount>, ToolError> {
    queries::tags(&connect()?)
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
) -> Result<NoteList, ToolError> {
    queries::between(&connect()?, from, to, limit)
}

/// Declares the provider over the notes database at `database`.
///
/// # Errors
/// A [`BuildError`] if the declaration is inconsistent (it is not).
pub fn provider(database: PathBuf) -> Result<Provider, BuildError> {
    queries::use_database(database);
    Provider::builder("Notes")
        .description("The user's notes: full-text search, tags and notes by date")
        .scope("notes.read", "your notes: titles, dates and text")
        .scope("tags.read", "your tag names and how many notes use each")
        .tools(tools![search_notes, get_note, list_tags, notes_between])
        .build()
}

/// What the Android template calls at start-up: the database is in the app's files dir.
fn build_provider() -> Result<Provider, BuildError> {
    let files_dir = cetp_provider::jni::app().map(|app| app.files_dir().to_owned());
    let database = files_dir.unwrap_or_default().join("notes.db");
    demo::seed(&database); // Demo only: a real notes app has its database already.
    provider(database)
}

cetp_provider::export_provider!(build_provider);
