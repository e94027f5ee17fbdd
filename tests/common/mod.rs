//! A small provider shared by the dispatch tests.

use cetp_provider::auth::Auth;
use cetp_provider::{CallContext, Provider, ToolError, tool, tools};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The kind of a note.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A plain text note.
    Text,
    /// A checklist.
    Checklist,
}

/// One search hit.
#[derive(Debug, Serialize)]
pub struct Hit {
    /// Note id.
    pub id: u64,
    /// Note title.
    pub title: String,
}

/// Searches notes by words in their title or body.
#[tool]
pub fn search(
    /// Words to look for.
    #[schemars(length(min = 1, max = 100))]
    query: String,
    /// How many hits to return.
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u32>,
    /// Only notes of this kind.
    kind: Option<Kind>,
) -> Vec<Hit> {
    let limit = limit.unwrap_or(3) as u64;
    (1..=limit)
        .map(|id| Hit {
            id,
            title: format!("{query} #{id} ({kind:?})"),
        })
        .collect()
}

/// Fetches one note by id.
#[tool]
pub fn get_note(
    /// The note id from `search`.
    id: u64,
    ctx: &CallContext,
) -> Result<Hit, ToolError> {
    if id == 0 {
        return Err(ToolError::invalid_args(
            "there is no note 0; ids start at 1",
        ));
    }
    Ok(Hit {
        id,
        title: format!("note {id} for {}", ctx.request_id().unwrap_or("-")),
    })
}

/// The panic message of [`explode`].
#[allow(dead_code)]
pub const EXPLODE_MESSAGE: &str = "the database handle was poisoned";

/// Always panics (a bug in the app).
#[tool]
pub fn explode() -> String {
    panic!("{EXPLODE_MESSAGE}")
}

/// Returns a result far larger than a Binder transaction can carry.
#[tool]
pub fn huge(
    /// Size of the result in KiB.
    kib: usize,
) -> String {
    "x".repeat(kib * 1024)
}

/// The provider used by the dispatch tests.
pub fn provider() -> Provider {
    Provider::builder("Test notes")
        .description("Notes for tests")
        .scope("notes.read", "Read your notes")
        .tools(tools![search, get_note, explode, huge])
        .auth(Auth::open())
        .build()
        .expect("the test provider builds")
}
