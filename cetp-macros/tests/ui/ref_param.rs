use cetp_provider::tool;

/// Searches notes.
#[tool]
fn search_notes(query: &str, tags: &[String]) -> usize {
    query.len() + tags.len()
}

/// Nested references are caught too.
#[tool]
fn nested(query: Option<&str>, pairs: Vec<(String, &'static str)>) -> usize {
    query.map_or(0, str::len) + pairs.len()
}

fn main() {}

