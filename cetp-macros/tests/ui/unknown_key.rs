use cetp_provider::tool;

/// Searches notes.
#[tool(nmae = "search")]
fn search_notes(query: String) -> String {
    query
}

fn main() {}
