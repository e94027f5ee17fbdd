use cetp_provider::tool;

pub struct Filter {
    pub tag: String,
}

/// Searches notes.
#[tool]
fn search_notes(
    /// The filter.
    filter: Filter,
) -> String {
    filter.tag
}

fn main() {}
