use std::rc::Rc;

use cetp_provider::tool;

/// The notes database.
pub struct Database;

/// Argument attributes on provider state have no effect.
#[tool]
fn with_attrs(
    #[schemars(length(min = 1))]
    db: &Database,
) -> usize {
    let _ = db;
    1
}

/// State is shared by every Binder thread, so it must be `Sync`.
#[tool]
fn not_sync(counter: &Rc<u32>) -> u32 {
    **counter
}

fn main() {}
