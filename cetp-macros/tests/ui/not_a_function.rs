use cetp_provider::tool;

/// Not a function.
#[tool]
struct SearchNotes {
    query: String,
}

fn main() {}
