use cetp_provider::tool;

/// Ignores its argument.
#[tool]
fn ignore(_: String) {}

fn main() {}
