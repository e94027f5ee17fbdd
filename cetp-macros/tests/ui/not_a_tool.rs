use cetp_provider::tools;

/// A plain function, without `#[tool]`.
fn plain() -> u32 {
    1
}

fn main() {
    let _ = plain();
    let _ = tools![plain];
}
