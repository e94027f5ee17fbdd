use cetp_provider::tool;

/// Searches notes.
#[tool]
fn search_notes(query: impl Into<String>) -> String {
    query.into()
}

fn main() {}
