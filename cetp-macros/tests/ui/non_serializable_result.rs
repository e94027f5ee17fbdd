use cetp_provider::{ToolError, tool};

pub struct Note {
    pub title: String,
}

/// Gets a note.
#[tool]
fn get_note(id: u64) -> Result<Note, ToolError> {
    Ok(Note { title: id.to_string() })
}

fn main() {}
