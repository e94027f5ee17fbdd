use cetp_provider::tool;

/// Searches notes.
#[tool(title = "")]
fn search_notes(query: String) -> String {
    query
}

fn main() {}
