use cetp_provider::tool;

#[doc = concat!("Searches", " notes.")]
#[tool]
fn search_notes(query: String) -> String {
    query
}

fn main() {}
