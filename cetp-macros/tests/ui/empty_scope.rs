use cetp_provider::tool;

/// Searches notes.
#[tool(scopes = ["notes.read", ""])]
fn search_notes(query: String) -> String {
    query
}

fn main() {}
