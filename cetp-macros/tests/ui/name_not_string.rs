use cetp_provider::tool;

/// Searches notes.
#[tool(name = search)]
fn search_notes(query: String) -> String {
    query
}

fn main() {}
