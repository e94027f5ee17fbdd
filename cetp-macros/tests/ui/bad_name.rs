use cetp_provider::tool;

/// Searches notes.
#[tool]
#[allow(non_snake_case)]
fn searchNotes(query: String) -> Vec<String> {
    vec![query]
}

fn main() {}
