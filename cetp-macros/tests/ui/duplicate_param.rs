use cetp_provider::tool;

/// Filters by type.
#[tool]
fn filter(r#type: String, r#type: String) -> String {
    r#type
}

fn main() {}
