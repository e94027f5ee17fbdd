use cetp_provider::tool;

/// Searches notes.
#[tool(name = "search", name = "find")]
fn search_notes(query: String) -> String {
    query
}

fn main() {}
