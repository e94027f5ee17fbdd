//! A parameter without a doc comment compiles, with a warning at the parameter; denied here so
//! that the warning's text is checked.
#![deny(deprecated)]

use cetp_provider::tool;

/// Searches notes.
#[tool]
fn search_notes(
    query: String,
    /// How many notes to return.
    limit: Option<u32>,
    r#type: Option<String>,
) -> Vec<String> {
    let _ = (limit, r#type);
    vec![query]
}

fn main() {}
