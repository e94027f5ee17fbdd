use cetp_provider::tool;

/// Echoes anything.
#[tool]
fn echo<T: serde::Serialize>(value: T) -> T {
    value
}

/// Echoes with a where clause.
#[tool]
fn echo_where(value: String) -> String
where
    String: Clone,
{
    value
}

fn main() {}
