use cetp_provider::tool;

#[derive(Debug)]
pub struct MyError;

/// Gets a note.
#[tool]
fn get_note(id: u64) -> Result<String, MyError> {
    Ok(id.to_string())
}

fn main() {}
