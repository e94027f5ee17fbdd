use cetp_provider::tool;

/// Adds a pair.
#[tool]
fn add((a, b): (i32, i32)) -> i32 {
    a + b
}

fn main() {}
