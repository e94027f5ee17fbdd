use cetp_provider::{CallContext, tool};

/// Needs the context twice.
#[tool]
fn twice(ctx: &CallContext, query: String, again: &CallContext) -> String {
    let _ = (ctx, again);
    query
}

fn main() {}
