use cetp_provider::tool;

pub struct Note {
    pub title: String,
}

/// Gets a note.
#[tool]
fn get_note(id: u64) -> Note {
    Note { title: id.to_string() }
}

fn main() {}
