//! [`check_noninterference`]: a Limited answer must not depend on what Limited hides.

use crate::context::AccessLevel;
use crate::provider::Provider;
use crate::testing::Agent;

/// Why [`check_noninterference`] failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NoninterferenceError {
    /// A Limited agent could not be approved on one of the providers.
    #[error("could not approve a limited agent on the {side} provider: {reason}")]
    Approval {
        /// `left` or `right`.
        side: &'static str,
        /// What the approval said.
        reason: String,
    },
    /// One call answered differently: the hidden data leaked into the answer.
    #[error(
        "`{tool}` with args {args} answered a limited caller differently, so the hidden data influenced it:\n  left:  {}\n  right: {}",
        pairs(.left),
        pairs(.right)
    )]
    Differs {
        /// The tool.
        tool: String,
        /// The arguments, as sent.
        args: String,
        /// The reply Bundle of the left provider, key by key, in wire order.
        left: Vec<(String, String)>,
        /// The reply Bundle of the right provider.
        right: Vec<(String, String)>,
    },
    /// No call succeeded on both sides, so nothing was compared that a tool computed.
    #[error(
        "none of the {0} calls succeeded, so the check compared only errors; include calls that return data"
    )]
    NothingSucceeded(usize),
}

/// A reply Bundle's pairs as `key="value", …`.
fn pairs(pairs: &[(String, String)]) -> String {
    let parts: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
    parts.join(", ")
}

/// Checks **noninterference** for Limited access: data a Limited caller may not see must not
/// influence its answers at all, not merely be absent from them. (Otherwise a caller learns the
/// hidden data by asking the right questions: which search finds a note, which filter changes a
/// total.)
///
/// Build `left` and `right` from two data sets that differ **only in hidden fields** (note
/// bodies, merchant names, …), each with user approval and a grant store. This approves
/// [`Agent::new`] with [`AccessLevel::Limited`] on both, runs every `(tool, args)` of
/// `calls` against both, and demands byte-identical replies: every key and value of the reply
/// Bundle, errors included. At least one call must succeed.
///
/// ```
/// use cetp_provider::auth::Auth;
/// use cetp_provider::testing::check_noninterference;
/// use cetp_provider::{CallContext, Provider, Tool, ToolError};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct NoArgs {}
///
/// /// The note's title, and its text for full access only.
/// struct ReadNote {
///     title: &'static str,
///     body: &'static str,
/// }
/// impl Tool for ReadNote {
///     type Args = NoArgs;
///     type Output = serde_json::Value;
///     const NAME: &'static str = "read_note";
///     const DESCRIPTION: &'static str = "Reads the note.";
///     const SCOPES: &'static [&'static str] = &["notes"];
///     fn call(&self, _: NoArgs, ctx: &CallContext) -> Result<serde_json::Value, ToolError> {
///         Ok(match ctx.access().is_limited() {
///             true => serde_json::json!({ "title": self.title }),
///             false => serde_json::json!({ "title": self.title, "body": self.body }),
///         })
///     }
/// }
///
/// let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
/// let build = |body, dir: &tempfile::TempDir| {
///     Provider::builder("Notes")
///         .scope("notes", "your notes")
///         .tool(ReadNote { title: "Groceries", body })
///         .auth(Auth::user_approval().store_dir(dir.path()))
///         .build()
///         .unwrap()
/// };
/// // The same notes but for the hidden text.
/// let (left, right) = (build("milk, eggs", &dirs[0]), build("call the lawyer", &dirs[1]));
/// check_noninterference(&left, &right, &[("read_note", "{}")]).unwrap();
/// ```
///
/// # Errors
/// [`NoninterferenceError`]: the first call that differs, an approval that failed, or no call
/// that succeeded.
pub fn check_noninterference(
    left: &Provider,
    right: &Provider,
    calls: &[(&str, &str)],
) -> Result<(), NoninterferenceError> {
    let agents = [("left", left), ("right", right)].map(|(side, provider)| {
        let agent = Agent::new(provider);
        agent
            .approve(AccessLevel::Limited)
            .map(|()| agent)
            .map_err(|e| NoninterferenceError::Approval {
                side,
                reason: e.to_string(),
            })
    });
    let [left, right] = agents;
    let (left, right) = (left?, right?);
    let mut succeeded = 0;
    for (tool, args) in calls {
        let pairs = |agent: &Agent<'_>| -> Vec<(String, String)> {
            agent
                .execute(tool, args)
                .to_pairs()
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect()
        };
        let (l, r) = (pairs(&left), pairs(&right));
        if l != r {
            return Err(NoninterferenceError::Differs {
                tool: (*tool).to_owned(),
                args: (*args).to_owned(),
                left: l,
                right: r,
            });
        }
        if l.iter()
            .any(|(k, v)| k == crate::wire::KEY_STATUS && v == crate::wire::STATUS_SUCCESS)
        {
            succeeded += 1;
        }
    }
    if succeeded == 0 {
        return Err(NoninterferenceError::NothingSucceeded(calls.len()));
    }
    Ok(())
}
