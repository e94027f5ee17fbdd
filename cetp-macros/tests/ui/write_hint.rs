use cetp_provider::tool;

/// Deletes a note.
#[tool(destructive)]
fn delete_note(id: i64) -> i64 {
    id
}

fn main() {}
