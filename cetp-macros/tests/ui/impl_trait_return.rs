use cetp_provider::tool;

/// Lists numbers.
#[tool]
fn numbers() -> impl serde::Serialize {
    vec![1, 2, 3]
}

fn main() {}
