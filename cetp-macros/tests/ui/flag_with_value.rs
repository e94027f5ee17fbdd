use cetp_provider::tool;

/// Searches notes.
#[tool(idempotent = true)]
fn search_notes(query: String) -> String {
    query
}

fn main() {}
