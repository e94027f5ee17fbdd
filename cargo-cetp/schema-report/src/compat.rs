//! The compatibility report: each tool's advertised schema checked against each API's
//! [`RuleSet`].

use std::fmt;

use serde_json::Value;

use cetp_provider::Provider;

use crate::rules::{Api, RuleSet};

/// One thing an API would reject (or silently drop) in a tool definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Where, as a JSON pointer into `parameters` (empty for the root; `name` findings point
    /// at the tool name and say so).
    pub path: String,
    /// The keyword (or `name`, `required`, a property name) that breaks the rule.
    pub keyword: String,
    /// What is wrong, in a sentence.
    pub problem: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "`{}` at {at}: {}", self.keyword, self.problem)
    }
}

/// Checks one tool definition (its name and `parameters`) against `api`'s rules.
///
/// ```
/// use cetp_schema_report::{Api, check_tool};
/// use serde_json::json;
///
/// let parameters = json!({"type": "object", "properties": {
///     "limit": {"type": "integer", "minimum": 1}}, "additionalProperties": false});
/// assert!(check_tool("list", &parameters, Api::OpenAi).is_empty());
/// let strict = check_tool("list", &parameters, Api::OpenAiStrict);
/// assert_eq!(strict[0].keyword, "required"); // strict mode wants every property required
/// let gemini = check_tool("list", &parameters, Api::Gemini);
/// assert_eq!(gemini[0].keyword, "additionalProperties");
/// ```
pub fn check_tool(name: &str, parameters: &Value, api: Api) -> Vec<Finding> {
    let rules = api.rules();
    let mut check = Check {
        rules,
        findings: Vec::new(),
        properties: 0,
        enum_values: 0,
    };
    if !rules.tool_name.accepts(name) {
        check.finding(
            "",
            "name",
            format!(
                "the tool name `{name}` does not match {}",
                rules.tool_name.pattern()
            ),
        );
    }
    if parameters.get("type") != Some(&Value::from("object")) {
        check.finding("", "type", "the root must be `type: object`".to_owned());
    }
    if rules.plain_root {
        for keyword in ["anyOf", "oneOf", "allOf"] {
            if parameters.get(keyword).is_some() {
                check.finding(
                    "",
                    keyword,
                    format!("`{keyword}` is not supported at the root"),
                );
            }
        }
    }
    check.schema(parameters, "", 1);
    if let Some(max) = rules.max_properties {
        if check.properties > max {
            check.finding(
                "",
                "properties",
                format!("{} properties in all, over {max}", check.properties),
            );
        }
    }
    if let Some(max) = rules.max_enum_values {
        if check.enum_values > max {
            check.finding(
                "",
                "enum",
                format!("{} enum values in all, over {max}", check.enum_values),
            );
        }
    }
    check.findings
}

struct Check<'r> {
    rules: &'r RuleSet,
    findings: Vec<Finding>,
    properties: usize,
    enum_values: usize,
}

impl Check<'_> {
    fn finding(&mut self, path: &str, keyword: &str, problem: String) {
        self.findings.push(Finding {
            path: path.to_owned(),
            keyword: keyword.to_owned(),
            problem,
        });
    }

    fn schema(&mut self, schema: &Value, path: &str, depth: usize) {
        let Some(obj) = schema.as_object() else {
            return;
        };
        let rules = self.rules;
        for key in obj.keys() {
            let allowed = rules
                .allowed_keywords
                .is_none_or(|list| list.contains(&key.as_str()));
            if !allowed || rules.rejected_keywords.contains(&key.as_str()) {
                self.finding(path, key, "keyword not supported".to_owned());
            }
        }
        let is_object =
            obj.get("type") == Some(&Value::from("object")) || obj.contains_key("properties");
        if let Some(Value::Array(_)) = obj.get("type") {
            if rules.single_type {
                self.finding(path, "type", "a list of types is not supported".to_owned());
            }
        }
        if let (Some(allowed), Some(Value::String(format))) =
            (rules.allowed_formats, obj.get("format"))
        {
            if !allowed.contains(&format.as_str()) {
                self.finding(path, "format", format!("format `{format}` not supported"));
            }
        }
        if let Some(Value::Array(values)) = obj.get("enum") {
            self.enum_values += values.len();
            if rules.string_enums && values.iter().any(|v| !v.is_string()) {
                self.finding(path, "enum", "enum values must be strings".to_owned());
            }
        }
        if let (Some(max), Some(min)) = (rules.max_min_items, obj.get("minItems")) {
            if min.as_u64().is_none_or(|m| m > max) {
                self.finding(path, "minItems", format!("minItems {min}, over {max}"));
            }
        }
        if rules.items_required
            && obj.get("type") == Some(&Value::from("array"))
            && !obj.contains_key("items")
        {
            self.finding(
                path,
                "items",
                "an array must declare its `items`".to_owned(),
            );
        }
        if is_object {
            if let Some(max) = rules.max_depth {
                if depth > max {
                    self.finding(
                        path,
                        "properties",
                        format!("objects nested {depth} deep, over {max}"),
                    );
                }
            }
            if rules.closed_objects && obj.get("additionalProperties") != Some(&Value::Bool(false))
            {
                self.finding(
                    path,
                    "additionalProperties",
                    "every object must say `additionalProperties: false`".to_owned(),
                );
            }
        }
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(Value::Object(properties)) = obj.get("properties") {
            for (name, child) in properties {
                self.properties += 1;
                let child_path = format!("{path}/properties/{}", escape(name));
                if !rules.property_name.accepts(name) {
                    self.finding(
                        &child_path,
                        name,
                        format!(
                            "property name does not match {}",
                            rules.property_name.pattern()
                        ),
                    );
                }
                if rules.all_required && !required.contains(&name.as_str()) {
                    self.finding(
                        &child_path,
                        "required",
                        "every property must be listed in `required` (optional ones typed with null)"
                            .to_owned(),
                    );
                }
                self.schema(child, &child_path, depth + 1);
            }
        }
        for key in ["items", "additionalProperties", "not", "if", "then", "else"] {
            if let Some(child) = obj.get(key).filter(|c| c.is_object()) {
                let child_depth = if key == "items" { depth } else { depth + 1 };
                self.schema(child, &format!("{path}/{key}"), child_depth);
            }
        }
        for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
            if let Some(Value::Array(branches)) = obj.get(key) {
                for (i, branch) in branches.iter().enumerate() {
                    self.schema(branch, &format!("{path}/{key}/{i}"), depth);
                }
            }
        }
    }
}

/// JSON pointer escaping of one reference token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Every tool of a provider checked against every [`Api`].
///
/// [`report`] makes one; `Display` renders it as a Markdown table (one row per tool, one
/// column per API, each cell `ok` or the keywords that break the rule set), and
/// [`CompatReport::details`] lists every finding with its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompatReport {
    /// One row per tool, in declaration order.
    pub rows: Vec<ToolCompat>,
}

/// One tool's row of a [`CompatReport`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCompat {
    /// The tool name.
    pub tool: String,
    /// For each API of [`Api::ALL`], in that order, what it would reject (empty: accepted).
    pub results: Vec<(Api, Vec<Finding>)>,
}

impl ToolCompat {
    /// The findings for `api` (empty when the tool passes).
    pub fn findings(&self, api: Api) -> &[Finding] {
        self.results
            .iter()
            .find(|(a, _)| *a == api)
            .map_or(&[], |(_, f)| f.as_slice())
    }
}

/// Checks every tool of `provider`, as `list_tools` advertises it, against every [`Api`].
///
/// ```
/// use cetp_schema_report::{Api, report};
/// use cetp_provider::{Provider, tool, tools};
///
/// /// Counts to `n`.
/// #[tool]
/// fn count(
///     /// Where to stop.
///     #[schemars(range(max = 10))]
///     n: u8,
/// ) -> Vec<u8> {
///     (1..=n).collect()
/// }
///
/// let provider = Provider::builder("Counter").tools(tools![count]).build().unwrap();
/// let report = report(&provider);
/// assert!(report.rows[0].findings(Api::OpenAi).is_empty());
/// let strict = report.rows[0].findings(Api::AnthropicStrict);
/// assert!(strict.iter().any(|f| f.keyword == "maximum" && f.path == "/properties/n"));
/// println!("{report}");
/// ```
pub fn report(provider: &Provider) -> CompatReport {
    CompatReport {
        rows: provider
            .tools()
            .iter()
            .map(|tool| ToolCompat::check(&tool.name, &tool.parameters))
            .collect(),
    }
}

impl ToolCompat {
    /// Checks one tool definition against every [`Api`].
    pub fn check(name: &str, parameters: &Value) -> Self {
        ToolCompat {
            tool: name.to_owned(),
            results: Api::ALL
                .iter()
                .map(|api| (*api, check_tool(name, parameters, *api)))
                .collect(),
        }
    }
}

impl CompatReport {
    /// Every finding, one line each: `tool / API: finding`.
    pub fn details(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for row in &self.rows {
            for (api, findings) in &row.results {
                for finding in findings {
                    lines.push(format!("{} / {api}: {finding}", row.tool));
                }
            }
        }
        lines
    }
}

impl fmt::Display for CompatReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "| tool |")?;
        for api in Api::ALL {
            write!(f, " {api} |")?;
        }
        writeln!(f)?;
        write!(f, "|---|")?;
        for _ in Api::ALL {
            write!(f, "---|")?;
        }
        writeln!(f)?;
        for row in &self.rows {
            write!(f, "| `{}` |", row.tool)?;
            for (_, findings) in &row.results {
                if findings.is_empty() {
                    write!(f, " ok |")?;
                } else {
                    let mut keywords: Vec<&str> =
                        findings.iter().map(|f| f.keyword.as_str()).collect();
                    keywords.sort_unstable();
                    keywords.dedup();
                    write!(f, " no: {} |", keywords.join(", "))?;
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keywords(name: &str, schema: &Value, api: Api) -> Vec<String> {
        check_tool(name, schema, api)
            .into_iter()
            .map(|f| format!("{} {}", f.keyword, f.path))
            .collect()
    }

    /// One deliberately incompatible schema per rule set, and what each reports.
    #[test]
    fn each_rule_set_flags_what_its_api_rejects() {
        let untyped_array = json!({"type": "object", "properties": {"tags": {"type": "array"}}});
        assert_eq!(
            keywords("t", &untyped_array, Api::OpenAi),
            ["items /properties/tags"]
        );
        assert!(keywords("t", &untyped_array, Api::Anthropic).is_empty());

        let optional = json!({"type": "object", "properties": {"q": {"type": "string", "minLength": 1}},
            "additionalProperties": false});
        assert_eq!(
            keywords("t", &optional, Api::OpenAiStrict),
            ["required /properties/q", "minLength /properties/q"]
        );

        let bounded = json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 5},
            "xs": {"type": "array", "items": {"type": "object", "properties": {}}, "minItems": 2}},
            "additionalProperties": false});
        assert_eq!(
            keywords("t", &bounded, Api::AnthropicStrict),
            [
                "maximum /properties/n",
                "minItems /properties/xs",
                "additionalProperties /properties/xs/items"
            ]
        );

        let gemini = json!({"type": "object", "properties": {
            "min-score": {"type": ["number", "null"]},
            "day": {"type": "string", "format": "date"},
            "level": {"type": "integer", "enum": [1, 2]}}, "additionalProperties": false});
        assert_eq!(
            keywords("t", &gemini, Api::Gemini),
            [
                "additionalProperties ",
                "min-score /properties/min-score",
                "type /properties/min-score",
                "format /properties/day",
                "enum /properties/level"
            ]
        );

        let portable =
            json!({"type": "object", "properties": {"q": {"type": "string", "pattern": "^a"}}});
        assert_eq!(
            keywords("workflow/save", &portable, Api::Portable),
            ["name ", "pattern /properties/q"]
        );
    }

    #[test]
    fn strict_limits_count_the_whole_schema() {
        let mut schema = json!({"type": "string"});
        for _ in 0..11 {
            schema = json!({"type": "object", "properties": {"x": schema}, "required": ["x"],
                "additionalProperties": false});
        }
        let findings = check_tool("deep", &schema, Api::OpenAiStrict);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].problem, "objects nested 11 deep, over 10");
    }

    #[test]
    fn the_table_names_the_breaking_keywords() {
        let tool = ToolCompat::check(
            "find",
            &json!({"type": "object", "properties": {"q": {"type": "string", "maxLength": 9}},
                "required": ["q"], "additionalProperties": false}),
        );
        let table = CompatReport { rows: vec![tool] }.to_string();
        let row = table.lines().nth(2).unwrap();
        assert_eq!(
            row,
            "| `find` | ok | no: maxLength | ok | no: maxLength | no: additionalProperties | no: additionalProperties, maxLength |"
        );
    }
}
