//! `testing::check_noninterference` catches a Limited answer that depends on hidden data,
//! even when the hidden data never appears in it.

use cetp_provider::auth::Auth;
use cetp_provider::testing::{NoninterferenceError, check_noninterference};
use cetp_provider::{CallContext, Provider, Tool, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize, JsonSchema)]
pub struct Query {
    /// A word.
    pub word: String,
}

/// Titles of notes containing `word`: in the title only for limited callers when `sound`,
/// in the title or the hidden body otherwise.
pub struct Search {
    notes: Vec<(&'static str, &'static str)>,
    sound: bool,
}

impl Tool for Search {
    type Args = Query;
    type Output = Value;
    const NAME: &'static str = "search";
    const DESCRIPTION: &'static str = "Searches notes.";
    const SCOPES: &'static [&'static str] = &["notes"];
    fn call(&self, args: Query, ctx: &CallContext) -> Result<Value, ToolError> {
        let limited = ctx.access().is_limited();
        let titles: Vec<&str> = self
            .notes
            .iter()
            .filter(|(title, body)| {
                title.contains(&args.word)
                    || ((!limited || !self.sound) && body.contains(&args.word))
            })
            .map(|(title, _)| *title)
            .collect();
        // The body itself is never shown to a limited caller.
        Ok(json!({ "titles": titles }))
    }
}

fn provider(body: &'static str, sound: bool, dir: &tempfile::TempDir) -> Provider {
    Provider::builder("Notes")
        .scope("notes", "your notes")
        .tool(Search {
            notes: vec![("Lisbon trip", body), ("Groceries", "milk")],
            sound,
        })
        .auth(Auth::user_approval().store_dir(dir.path()))
        .build()
        .unwrap()
}

const CALLS: &[(&str, &str)] = &[
    ("search", r#"{"word":"Lisbon"}"#),
    ("search", r#"{"word":"Ana"}"#),
    ("search", r#"{"word":7}"#),
];

#[test]
fn a_search_over_hidden_bodies_is_caught_though_no_body_is_shown() {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let left = provider("met Ana at the castle", false, &dirs[0]);
    let right = provider("met Rui at the castle", false, &dirs[1]);
    let err = check_noninterference(&left, &right, CALLS).unwrap_err();
    let NoninterferenceError::Differs { tool, args, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!((tool.as_str(), args.as_str()), CALLS[1]);
    assert!(err.to_string().contains("Lisbon trip"), "{err}");
}

#[test]
fn a_search_over_shown_fields_only_passes() {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let left = provider("met Ana at the castle", true, &dirs[0]);
    let right = provider("met Rui at the castle", true, &dirs[1]);
    check_noninterference(&left, &right, CALLS).unwrap();
}

#[test]
fn a_check_that_compares_nothing_fails() {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let left = provider("a", true, &dirs[0]);
    let right = provider("b", true, &dirs[1]);
    let err = check_noninterference(&left, &right, &[("search", "{}")]).unwrap_err();
    assert_eq!(err, NoninterferenceError::NothingSucceeded(1));
    // Without user approval there is no limited agent to check with.
    let open = Provider::builder("Open")
        .auth(Auth::open())
        .build()
        .unwrap();
    let err = check_noninterference(&open, &open, CALLS).unwrap_err();
    assert!(
        matches!(err, NoninterferenceError::Approval { side: "left", .. }),
        "{err}"
    );
}
