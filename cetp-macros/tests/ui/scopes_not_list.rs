use cetp_provider::tool;

/// Searches notes.
#[tool(scopes = "notes.read")]
fn search_notes(query: String) -> String {
    query
}

/// Searches notes again.
#[tool(scopes = [NOTES_READ])]
fn search_again(query: String) -> String {
    query
}

const NOTES_READ: &str = "notes.read";

fn main() {}
