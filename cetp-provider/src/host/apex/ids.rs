//! Apex tool ids: how a tool name becomes the function name the Apex agent gives the model.

use crate::descriptor::ToolDescriptor;

/// Longest tool id every LLM API accepts as a function name.
pub const MAX_TOOL_ID_LEN: usize = 64;

/// How tool ids are formed from tool names. See [the module docs](super#tool-ids).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolIds {
    /// `<label>__<tool>`, the label being the last segment of the app's package, lower-cased,
    /// characters outside `[a-z0-9]` replaced by `_` (the default). If an id would exceed 64
    /// characters the label is shortened; a tool name of 62 or more characters is used alone.
    #[default]
    AppLabel,
    /// `<prefix><tool>`. The prefix must be 1 to 32 characters of `[A-Za-z0-9_-]`, start with a
    /// letter or `_`, and leave every id within 64 characters;
    /// [`ProviderBuilder::build`](crate::ProviderBuilder::build) checks.
    Prefix(String),
    /// The tool name alone, for hosts that namespace ids themselves.
    ToolName,
}

impl ToolIds {
    /// Whether the scheme fits the tools: a [`ToolIds::Prefix`] must be valid and leave every
    /// id within [`MAX_TOOL_ID_LEN`].
    pub(super) fn check(&self, tools: &[ToolDescriptor]) -> Result<(), String> {
        let ToolIds::Prefix(prefix) = self else {
            return Ok(());
        };
        let valid = (1..=32).contains(&prefix.len())
            && prefix
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && prefix
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return Err(format!(
                "the tool id prefix `{prefix}` is invalid: use 1 to 32 characters of ASCII letters, digits, `_` and `-`, starting with a letter or `_`"
            ));
        }
        if let Some(long) = tools
            .iter()
            .find(|t| prefix.len() + t.name.len() > MAX_TOOL_ID_LEN)
        {
            return Err(format!(
                "the tool id `{prefix}{}` is longer than {MAX_TOOL_ID_LEN} characters, which LLM APIs reject as a function name; use a shorter prefix or tool name",
                long.name
            ));
        }
        Ok(())
    }

    /// The id of the tool `name` of an app whose namespace label is `label`.
    pub(super) fn id(&self, label: &str, name: &str) -> String {
        match self {
            ToolIds::ToolName => name.to_owned(),
            ToolIds::Prefix(prefix) => format!("{prefix}{name}"),
            ToolIds::AppLabel => {
                let room = MAX_TOOL_ID_LEN.saturating_sub(name.len() + 2);
                if room == 0 {
                    return name.to_owned();
                }
                let short: String = label.chars().take(room).collect();
                format!("{short}__{name}")
            }
        }
    }
}

/// The namespace label of a package or name: its last `.` segment, lower-cased, every character
/// outside `[a-z0-9]` replaced by `_`, with `_` in front if it would start with a digit.
pub(super) fn label(package: &str) -> String {
    let last = package.rsplit('.').next().unwrap_or(package);
    let mut out: String = last
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A valid function name for every LLM API.
    fn valid_function_name(id: &str) -> bool {
        (1..=MAX_TOOL_ID_LEN).contains(&id.len())
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            && id
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
    }

    #[test]
    fn ids_follow_the_scheme_and_stay_valid_function_names() {
        assert_eq!(ToolIds::AppLabel.id("notes", "get"), "notes__get");
        assert_eq!(ToolIds::ToolName.id("notes", "get"), "get");
        assert_eq!(ToolIds::Prefix("n-".into()).id("x", "get"), "n-get");
        assert_eq!(label("dev.cetp.samples.notes"), "notes");
        assert_eq!(label("com.example.3d"), "_3d");
        assert_eq!(label("com.example.Echo-Box"), "echo_box");
        let long_label = "l".repeat(80);
        let name = "n".repeat(50);
        let id = ToolIds::AppLabel.id(&long_label, &name);
        assert_eq!(id.len(), 64);
        assert!(valid_function_name(&id), "{id}");
        let longest = "n".repeat(64);
        assert_eq!(ToolIds::AppLabel.id("notes", &longest), longest);
        assert!(valid_function_name(&ToolIds::AppLabel.id("_3d", "a")));
    }

    #[test]
    fn a_bad_prefix_is_refused() {
        for prefix in ["", "has/slash", "9lives", &"p".repeat(33)] {
            assert!(
                ToolIds::Prefix(prefix.to_owned()).check(&[]).is_err(),
                "{prefix}"
            );
        }
        let long =
            ToolDescriptor::for_test("a_tool_name_that_is_thirty_three3", serde_json::json!({}));
        let err = ToolIds::Prefix("p".repeat(32)).check(&[long]).unwrap_err();
        assert!(err.contains("longer than 64"), "{err}");
    }
}
