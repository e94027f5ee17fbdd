//! `#[tool]` output stays quiet under strict lints.
#![deny(warnings, missing_docs, unreachable_pub, unused, rust_2018_idioms, missing_debug_implementations)]

use cetp_provider::{CallContext, tool, tools};

/// Public tools of the app.
pub mod notes {
    use cetp_provider::{CallContext, ToolError, tool};

    /// A search hit.
    #[derive(Debug, serde::Serialize)]
    pub struct Hit {
        /// The note title.
        pub title: String,
    }

    /// Searches notes by words in their title or body.
    #[tool(scopes = ["notes.read"])]
    pub fn search_notes(
        /// Words to look for.
        #[schemars(length(min = 1, max = 200))]
        query: String,
        /// Only notes carrying this tag.
        tag: Option<String>,
        ctx: &CallContext<'_>,
    ) -> Result<Vec<Hit>, ToolError> {
        let _ = (tag, ctx);
        Ok(vec![Hit { title: query }])
    }
}

/// Pings.
#[tool]
fn ping(_ctx: &CallContext<'_>) {}

/// Never registered: its function is used below, the tool is not.
#[tool]
fn unregistered() -> u8 {
    1
}

fn main() {
    let _ = unregistered();
    let tools = tools![notes::search_notes, ping];
    assert_eq!(tools.len(), 2);
}
