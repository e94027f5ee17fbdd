use cetp_provider::tool;

/// Searches notes.
#[tool]
fn search_notes(query: String, #[cfg(test)] tag: String) -> String {
    query
}

fn main() {}
