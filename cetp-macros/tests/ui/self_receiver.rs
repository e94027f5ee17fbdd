use cetp_provider::tool;

struct Notes;

impl Notes {
    /// Counts notes.
    #[tool]
    fn count(&self) -> usize {
        0
    }
}

fn main() {}
