use cetp_provider::{CallContext, tool};

/// Takes the context by value.
#[tool]
fn owned(ctx: CallContext) -> String {
    ctx.tool_name().to_owned()
}

/// Takes the context mutably.
#[tool]
fn mutable(ctx: &mut CallContext) -> String {
    ctx.tool_name().to_owned()
}

fn main() {}
