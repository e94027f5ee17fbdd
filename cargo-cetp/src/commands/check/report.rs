//! What `check` finds in a provider's description (the runner's `describe`): the schema
//! compatibility per LLM API, parameters without a description, scope wording, CETP v2
//! violations. Also what `cargo xtask schema-report` prints for the samples.

use cetp_schema_report::{Api, CompatReport, ToolCompat};
use serde_json::Value;

use crate::android_build::bundle::V2_PROPERTY;

/// One finding: a warning (or an error) with its fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Whether it fails the check.
    pub error: bool,
    /// What is wrong.
    pub problem: String,
    /// How to fix it.
    pub fix: String,
}

impl Finding {
    /// A warning.
    pub(crate) fn warning(problem: impl Into<String>, fix: impl Into<String>) -> Self {
        Finding {
            error: false,
            problem: problem.into(),
            fix: fix.into(),
        }
    }

    /// An error.
    pub(crate) fn error(problem: impl Into<String>, fix: impl Into<String>) -> Self {
        Finding {
            error: true,
            problem: problem.into(),
            fix: fix.into(),
        }
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let level = if self.error { "error" } else { "warning" };
        write!(f, "{level}: {}", self.problem)?;
        if !self.fix.is_empty() {
            write!(f, "\n  fix: {}", self.fix)?;
        }
        Ok(())
    }
}

/// The tools of a `list_tools` answer (`{"tools":[…]}`).
fn tools(list_tools: &Value) -> &[Value] {
    list_tools["tools"].as_array().map_or(&[], Vec::as_slice)
}

/// The compatibility report of the tools in a `list_tools` answer: each tool's `parameters`
/// against every API's rules (`cetp-schema-report`). `Display`
/// renders the Markdown table the README carries.
///
/// ```
/// let list = serde_json::json!({"tools": [{"name": "find", "parameters": {"type": "object",
///     "properties": {"q": {"type": "string", "maxLength": 9}}, "required": ["q"],
///     "additionalProperties": false}}]});
/// let table = cargo_cetp::commands::check::report::compatibility(&list).to_string();
/// assert!(table.contains("| `find` | ok | no: maxLength | ok |"), "{table}");
/// ```
pub fn compatibility(list_tools: &Value) -> CompatReport {
    CompatReport {
        rows: tools(list_tools)
            .iter()
            .map(|tool| {
                ToolCompat::check(
                    tool["name"].as_str().unwrap_or_default(),
                    &tool["parameters"],
                )
            })
            .collect(),
    }
}

/// The APIs that take a schema as it is (no strict mode): what they would reject is worth a
/// warning; the strict modes and Gemini are adapted by agents and gateways.
pub(crate) const AS_IS_APIS: [Api; 2] = [Api::OpenAi, Api::Anthropic];

/// Warnings for what an API without strict mode would reject.
pub fn schema_findings(report: &CompatReport) -> Vec<Finding> {
    let mut out = Vec::new();
    for row in &report.rows {
        for api in AS_IS_APIS {
            for finding in row.findings(api) {
                out.push(Finding::warning(
                    format!("tool `{}`: {api} would reject {finding}", row.tool),
                    "change the parameter's type or attribute so the schema stays within what \
                     every API accepts (see the table above)",
                ));
            }
        }
    }
    out
}

/// Parameters whose description the model would not get: the declaration as written
/// (`raw_tools`, built without restating constraints) has none for them.
pub(crate) fn undescribed_parameters(raw_tools: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    for tool in tools(raw_tools) {
        let name = tool["name"].as_str().unwrap_or_default();
        let Some(properties) = tool["parameters"]["properties"].as_object() else {
            continue;
        };
        for (param, schema) in properties {
            let described = schema["description"]
                .as_str()
                .is_some_and(|d| !d.trim().is_empty());
            if !described {
                out.push(Finding::warning(
                    format!(
                        "parameter `{param}` of tool `{name}` has no description, so the model \
                         has only its name and type to go on"
                    ),
                    format!(
                        "write a `///` doc comment above `{param}` in the `#[tool]` function: \
                         what it is, with an example value"
                    ),
                ));
            }
        }
    }
    out
}

/// Verbs a scope description should not start with: it completes "allow `<agent>` to read: …",
/// which already says what the agent does.
const VERBS: &[&str] = &[
    "read",
    "reads",
    "view",
    "views",
    "see",
    "sees",
    "access",
    "accesses",
    "get",
    "gets",
    "list",
    "lists",
    "show",
    "shows",
    "fetch",
    "fetches",
    "search",
    "searches",
    "use",
    "uses",
    "allow",
    "allows",
    "let",
    "lets",
    "browse",
    "browses",
    "query",
    "queries",
    "find",
    "finds",
    "manage",
    "manages",
    "retrieve",
    "retrieves",
    "know",
    "knows",
];

/// Scope descriptions that read wrongly where the user and the agent see them: the hint `Open
/// <app> and allow <agent> to read: <description>` and the consent question `Allow <agent> to
/// read <description> from <app>?`.
pub(crate) fn scope_wording(provider_info: &Value, package: &str) -> Vec<Finding> {
    let app = provider_info["provider_name"].as_str().unwrap_or("the app");
    let mut out = Vec::new();
    for scope in provider_info["scopes"].as_array().into_iter().flatten() {
        let name = scope["name"].as_str().unwrap_or_default();
        let text = scope["description"].as_str().unwrap_or_default();
        let reads = format!("\"Open {app} ({package}) and allow <agent> to read: {text}\"");
        let trimmed = text.trim();
        let first = trimmed.split_whitespace().next().unwrap_or("");
        let mut problems = Vec::new();
        let mut suggestion = trimmed.to_owned();
        if trimmed.is_empty() {
            out.push(Finding::warning(
                format!("scope `{name}` has no description, so the user is asked about `{name}`"),
                format!(
                    "describe the data in lower case: `.scope(\"{name}\", \"your …\")`, which \
                     completes {reads}"
                ),
            ));
            continue;
        }
        if VERBS.contains(&first.to_lowercase().as_str()) {
            problems.push(format!("it starts with the verb \"{first}\""));
            suggestion = trimmed[first.len()..].trim_start().to_owned();
        }
        if suggestion.chars().next().is_some_and(char::is_uppercase) {
            let word = suggestion.split_whitespace().next().unwrap_or("");
            // A word in capitals only (an acronym) or a name stays as written.
            if word.chars().skip(1).all(|c| !c.is_uppercase()) {
                problems.push("it starts with a capital letter, mid-sentence".to_owned());
                let mut chars = suggestion.chars();
                suggestion = chars
                    .next()
                    .map(|c| c.to_lowercase().chain(chars).collect())
                    .unwrap_or_default();
            }
        }
        if suggestion.ends_with('.') {
            problems.push("it ends with a period, inside the consent question".to_owned());
            suggestion.pop();
        }
        if !problems.is_empty() {
            out.push(Finding::warning(
                format!(
                    "scope `{name}`: {} ({reads})",
                    problems.join(", and ")
                ),
                format!(
                    "name the data, in lower case, without a verb: `.scope(\"{name}\", \"{suggestion}\")` \
                     (unless the first word is a name)"
                ),
            ));
        }
    }
    out
}

/// The app's texts (its description, its scopes' descriptions) that a language the template's
/// screens ship in has no translation for: the consent dialog would ask its question in that
/// language with the app's words in the default one. `untranslated` is the runner's
/// `{"<language>": ["description", "scope <name>", …], …}`; one warning per text, naming the
/// languages it lacks.
pub(crate) fn untranslated_texts(untranslated: &Value) -> Vec<Finding> {
    let mut texts: Vec<(&str, Vec<&str>)> = Vec::new();
    for (language, missing) in untranslated.as_object().into_iter().flatten() {
        for text in missing
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            match texts.iter_mut().find(|(t, _)| *t == text) {
                Some((_, languages)) => languages.push(language),
                None => texts.push((text, vec![language])),
            }
        }
    }
    texts
        .into_iter()
        .map(|(text, languages)| {
            let (what, call) = match text.strip_prefix("scope ") {
                Some(scope) => (
                    format!("scope `{scope}`'s description"),
                    format!(
                        ".scope(\"{scope}\", Localized::new(\"…\").with(\"{}\", \"…\"))",
                        languages[0]
                    ),
                ),
                None => (
                    "the provider's description".to_owned(),
                    format!(
                        ".description(Localized::new(\"…\").with(\"{}\", \"…\"))",
                        languages[0]
                    ),
                ),
            };
            Finding::warning(
                format!(
                    "{what} has no translation to {} ({} the consent screens ship in): a user \
                     there reads it in the default language inside a translated sentence",
                    languages.join(", "),
                    if languages.len() == 1 {
                        "a language"
                    } else {
                        "languages"
                    }
                ),
                format!("give the text with its translations: `{call}`, one `.with` per language"),
            )
        })
        .collect()
}

/// The CETP v2 violations of `cetp_provider::testing::Agent::check_v2_conformance` (the runner's
/// `conformance_v2`), each with what to change. Errors while the app advertises v2 (ClawSeed's
/// newest client then speaks only v2 to it and drops a provider that fails one check, with no
/// fallback to v1), each saying how to turn v2 off too; warnings when `cetp.v2=false` has turned
/// it off. `properties` names the app's `gradle.properties`.
pub(crate) fn cetp_v2(violations: &Value, advertised: bool, properties: &str) -> Vec<Finding> {
    violations
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|violation| {
            let violation = violation.strip_prefix("v2 ").unwrap_or(violation);
            let problem = format!("{CETP_V2}: {violation}");
            let fix = v2_fix(violation);
            if advertised {
                Finding::error(
                    problem,
                    format!(
                        "{fix}; or, until it passes, stop advertising v2 with `{V2_PROPERTY}=false` \
                         in {properties} (the newest client then uses v1)"
                    ),
                )
            } else {
                Finding::warning(
                    problem,
                    format!("{fix}, before removing `{V2_PROPERTY}=false` from {properties}"),
                )
            }
        })
        .collect()
}

/// How every CETP v2 finding's problem starts.
pub(crate) const CETP_V2: &str = "CETP v2";

/// What to change for one violation (without its leading `v2 `).
fn v2_fix(violation: &str) -> String {
    let named = violation.split('`').nth(1).unwrap_or_default();
    if violation.starts_with("scope `") {
        if violation.contains("the name must match") {
            return format!(
                "rename the scope with lower-case letters, digits, `_`, `.` and `-` only \
                 (e.g. `{}`), in `.scope(…)` and in every `#[tool(scopes = […])]` naming it",
                v2_scope_name(named)
            );
        }
        if violation.contains("`title` is missing") {
            return format!(
                "describe the scope: `.scope(\"{named}\", \"your …\")`, or give it a v2 title \
                 with `.host(CetpV2::new().scope(\"{named}\", \"<title>\", ScopeAccess::Read, \
                 Sensitivity::Personal))`"
            );
        }
        return format!(
            "say what it gives access to: `.host(CetpV2::new().scope(\"{named}\", \"<title>\", \
             ScopeAccess::Read, Sensitivity::Personal))` (cetp_provider::host::cetp_v2)"
        );
    }
    if violation.starts_with("tool `") {
        if violation.contains("high risk") {
            return format!(
                "confirm every call: `.host(CetpV2::new().confirmation(\"{named}\", \
                 Confirmation::Always))`, or lower its risk"
            );
        }
        if violation.contains("the name must match") {
            return "rename the tool with lower-case letters, digits and `_` only, starting with \
                    a letter, at most 64 characters: `#[tool(name = \"…\")]`"
                .to_owned();
        }
        if violation.contains("`scopes`") {
            return "declare every scope the tool names with `.scope(\"…\", \"your …\")`"
                .to_owned();
        }
    }
    "the answer comes from the SDK's CETP v2 host and the provider's authorization, not from one \
     declaration: depend on a cetp-provider whose v2 host passes, admit the checking agent, \
     and see the call in a test with `cetp_provider::testing::Agent::check_v2_conformance`"
        .to_owned()
}

/// `name` as a v2 scope name (`[a-z][a-z0-9_.-]{0,127}`): lower case, other characters `.`.
fn v2_scope_name(name: &str) -> String {
    let mut out: String = name
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_lowercase() || c.is_ascii_digit() || "_.-".contains(c) {
                c
            } else {
                '.'
            }
        })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_lowercase()) {
        out.insert_str(0, "scope.");
    }
    out.chars().take(128).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_cetp_v2_violation_says_what_to_change() {
        let violations = json!([
            "v2 scope `Secrets:Read`: the name must match [a-z][a-z0-9_.-]{0,127}",
            "v2 scope `9lives`: the name must match [a-z][a-z0-9_.-]{0,127}",
            "v2 scope `notes.read`: `title` is missing",
            "v2 scope `notes.read`: unknown `sensitivity`",
            "v2 tool `wire_money`: high risk needs `confirmation` always",
            "v2 negotiate: `limits.max_request_bytes` is below 65536",
        ]);
        let on = cetp_v2(&violations, true, "gradle.properties");
        assert!(on.iter().all(|f| f.error), "{on:#?}");
        assert!(
            on.iter().all(
                |f| f.problem.starts_with("CETP v2: ") && !f.problem.starts_with("CETP v2: v2")
            )
        );
        assert!(on.iter().all(|f| f.fix.ends_with(
            "stop advertising v2 with `cetp.v2=false` in gradle.properties (the newest client then uses v1)"
        )));
        assert!(on[0].fix.contains("(e.g. `secrets.read`)"), "{}", on[0].fix);
        assert!(on[1].fix.contains("(e.g. `scope.9lives`)"), "{}", on[1].fix);
        assert!(
            on[2].fix.contains(r#"`.scope("notes.read", "your …")`"#),
            "{}",
            on[2].fix
        );
        assert!(
            on[3]
                .fix
                .contains(r#"CetpV2::new().scope("notes.read", "<title>""#),
            "{}",
            on[3].fix
        );
        assert!(
            on[4]
                .fix
                .contains(r#"confirmation("wire_money", Confirmation::Always)"#),
            "{}",
            on[4].fix
        );
        assert!(on[5].fix.contains("SDK's CETP v2 host"), "{}", on[5].fix);

        let off = cetp_v2(&violations, false, "gradle.properties");
        assert!(off.iter().all(|f| !f.error), "{off:#?}");
        assert!(
            off[0]
                .fix
                .ends_with(", before removing `cetp.v2=false` from gradle.properties")
        );
        assert!(cetp_v2(&json!([]), true, "gradle.properties").is_empty());
    }

    #[test]
    fn scope_wording_catches_verbs_capitals_and_periods_only() {
        let info = json!({"provider_name": "Notes", "scopes": [
            {"name": "a", "description": "your notes: titles, dates and text"},
            {"name": "b", "description": "Lets the agent see your notes."},
            {"name": "c", "description": "Your calendar"},
            {"name": "d", "description": "ICS feeds you subscribed to"},
            {"name": "e", "description": ""}]});
        let found = scope_wording(&info, "com.example.notes");
        let names: Vec<&str> = found
            .iter()
            .map(|f| f.problem.split('`').nth(1).unwrap())
            .collect();
        assert_eq!(names, ["b", "c", "e"], "{found:#?}");
        assert!(
            found[0].fix.contains(r#""the agent see your notes""#),
            "{}",
            found[0].fix
        );
        assert!(found[0].problem.contains("verb \"Lets\""));
        assert!(found[0].problem.contains("period"));
        assert!(
            found[1].fix.contains(r#""your calendar""#),
            "{}",
            found[1].fix
        );
    }

    #[test]
    fn each_untranslated_text_is_one_warning_naming_its_languages() {
        let untranslated = json!({
            "de": ["description", "scope a"],
            "fr": ["scope a"],
            "ar": []});
        let found = untranslated_texts(&untranslated);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(!found[0].error && !found[1].error);
        let about_a = found.iter().find(|f| f.problem.contains("`a`")).unwrap();
        assert!(about_a.problem.contains("de, fr"), "{}", about_a.problem);
        let about_description = found
            .iter()
            .find(|f| f.problem.contains("provider's description"))
            .unwrap();
        assert!(
            about_description.problem.contains("to de (a language"),
            "{}",
            about_description.problem
        );
        assert!(
            about_description
                .fix
                .contains(".description(Localized::new")
        );
        assert!(untranslated_texts(&json!({})).is_empty());
    }

    #[test]
    fn a_constraint_restated_is_not_a_description() {
        // As written, `limit` had no doc; the served schema says "1 to 50." for it.
        let raw = json!({"tools": [{"name": "t", "parameters": {"type": "object", "properties": {
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            "q": {"type": "string", "description": "Words to look for."}}}}]});
        let found = undescribed_parameters(&raw);
        assert_eq!(found.len(), 1);
        assert!(found[0].problem.contains("`limit`"));
        assert!(!found[0].error);
    }
}

#[cfg(test)]
mod examples {
    /// The example that documented `undescribed_parameters`.
    #[test]
    fn example_check_report_undescribed_parameters() {
        let raw = serde_json::json!({"tools": [{"name": "find", "parameters": {"type": "object",
            "properties": {"q": {"type": "string", "description": "Words."}, "limit": {"type": "integer"}}}}]});
        let found = crate::commands::check::report::undescribed_parameters(&raw);
        assert_eq!(found.len(), 1);
        assert!(found[0].problem.contains("`limit` of tool `find`"));
    }

    /// The example that documented `scope_wording`.
    #[test]
    fn example_check_report_scope_wording() {
        let info = serde_json::json!({"provider_name": "Recipes", "scopes": [
            {"name": "recipes.read", "description": "Read your recipes"},
            {"name": "menus.read", "description": "your weekly menus"}]});
        let found = crate::commands::check::report::scope_wording(&info, "com.example.recipes");
        assert_eq!(found.len(), 1);
        assert!(
            found[0].problem.contains("to read: Read your recipes"),
            "{}",
            found[0].problem
        );
        assert!(
            found[0]
                .fix
                .contains(r#".scope("recipes.read", "your recipes")"#),
            "{}",
            found[0].fix
        );
    }

    /// The example that documented `untranslated_texts`.
    #[test]
    fn example_check_report_untranslated_texts() {
        let untranslated = serde_json::json!({"fr": ["scope notes.read"], "ja": ["scope notes.read", "description"]});
        let found = crate::commands::check::report::untranslated_texts(&untranslated);
        assert_eq!(found.len(), 2);
        assert!(
            found[0].problem.contains("`notes.read`") && found[0].problem.contains("fr, ja"),
            "{}",
            found[0].problem
        );
        assert!(
            found[0]
                .fix
                .contains(r#"Localized::new("…").with("fr", "…")"#),
            "{}",
            found[0].fix
        );
    }

    /// The example that documented `cetp_v2`.
    #[test]
    fn example_check_report_cetp_v2() {
        let violations = serde_json::json!([
            "v2 scope `items:read`: the name must match [a-z][a-z0-9_.-]{0,127}"
        ]);
        let found =
            crate::commands::check::report::cetp_v2(&violations, true, "android/gradle.properties");
        assert!(found[0].error);
        assert!(
            found[0].problem.starts_with("CETP v2: scope `items:read`"),
            "{}",
            found[0].problem
        );
        assert!(found[0].fix.contains("`items.read`"), "{}", found[0].fix);
        assert!(
            found[0]
                .fix
                .contains("`cetp.v2=false` in android/gradle.properties"),
            "{}",
            found[0].fix
        );
        assert!(
            !crate::commands::check::report::cetp_v2(&violations, false, "gradle.properties")[0]
                .error
        );
    }
}
