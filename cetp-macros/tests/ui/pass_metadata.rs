use cetp_provider::{Provider, tool, tools};

/// Searches notes.
#[tool(title = "Search your notes", idempotent, open_world, long_running)]
fn search_notes(
    /// Words to look for.
    query: String,
) -> Vec<String> {
    vec![query]
}

/// Counts notes.
#[tool]
fn count_notes() -> u32 {
    3
}

fn main() {
    let provider = Provider::builder("Notes")
        .tools(tools![search_notes, count_notes])
        .build()
        .unwrap();
    let search = &provider.tools()[0];
    assert_eq!(search.title(), "Search your notes");
    assert!(search.annotations().idempotent() && search.annotations().open_world());
    assert!(search.annotations().read_only() && !search.annotations().destructive());
    assert!(search.long_running());
    assert!(<search_notes as cetp_provider::Tool>::LONG_RUNNING);
    let count = &provider.tools()[1];
    assert_eq!(count.title(), "Count notes");
    assert!(!count.annotations().idempotent() && !count.annotations().open_world());
    assert!(!count.long_running());
    assert_eq!(
        count.output_schema(),
        Some(&serde_json::json!({"type": "integer", "minimum": 0}))
    );
}
