//! A reading-list app whose core is this Rust library: the app's Kotlin writes through its
//! UniFFI API ([`Shelf`]), and agents read the same SQLite file through the same library's
//! tools. One `.so` (`libreading_core.so`), one SQLite in the process. Walkthrough: README.md.

pub mod shelf;

use cetp_provider::{App, Provider, ProviderBuilder, ToolError, tool, tools};
pub use shelf::{Book, Reader, Shelf, ShelfError};

uniffi::setup_scaffolding!();

/// The file the app and the tools share, in the app's files directory.
pub const DATABASE: &str = "reading.db";

/// Finds books on the user's reading list whose title or author contains the given words.
/// Answers an empty list when nothing matches.
#[tool(scopes = ["books.read"])]
pub fn find_books(
    /// Words the title or the author must contain, e.g. `tolstoy`.
    #[schemars(length(min = 1, max = 100))]
    words: String,
    /// How many books to return at most (default 10).
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u32>,
    reader: &Reader,
) -> Result<Vec<Book>, ToolError> {
    reader.find(&words, limit.unwrap_or(10))
}

/// Lists the books on the user's reading list not finished yet, oldest first.
#[tool(scopes = ["books.read"])]
pub fn reading_now(reader: &Reader) -> Result<Vec<Book>, ToolError> {
    reader.unfinished()
}

/// Declares the provider: the tools read the file the app's [`Shelf`] writes.
pub fn provider(app: &App) -> ProviderBuilder {
    Provider::builder("Reading list")
        .description("The books on your reading list")
        .scope("books.read", "your reading list")
        .full_access_only()
        .tools(tools![find_books, reading_now])
        .state(Reader::new(&app.files_dir().join(DATABASE)))
}

cetp_provider::export_provider!(provider);
