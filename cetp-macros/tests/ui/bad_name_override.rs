use cetp_provider::tool;

/// Searches notes.
#[tool(name = "Search-Notes")]
fn search_notes(query: String) -> Vec<String> {
    vec![query]
}

fn main() {}
