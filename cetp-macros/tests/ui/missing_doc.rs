use cetp_provider::tool;

#[tool]
fn search_notes(query: String) -> Vec<String> {
    vec![query]
}

fn main() {}
