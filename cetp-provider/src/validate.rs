//! Argument validation: the `args` object is checked against the same normalized schema that
//! `list_tools` advertises, before the tool runs, and every violation is reported with its JSON
//! path in words a model can act on.
//!
//! The validator is the SDK's own (`cetp-validator`), written for JSON Schema 2020-12 as the
//! SDK emits it: every keyword a schema may carry is enforced, and a schema with one that is not
//! (`unevaluatedProperties`, the reference keywords, an unknown keyword or `format`, a pattern
//! the linear-time engine cannot compile) fails [`crate::ProviderBuilder::build`] with the
//! keyword and its JSON pointer, so nothing is advertised unchecked. An integer written as `1.0`
//! or `-0` is handed to the tool as an integer.

use cetp_validator::Validator;
use serde_json::{Map, Value};

use crate::error::ToolError;

/// How many violations one `INVALID_ARGS` message lists at most.
const MAX_REPORTED: usize = 5;
/// Longest excerpt of a single violation, in characters.
const MAX_VIOLATION_CHARS: usize = 240;

/// A compiled argument schema.
pub(crate) struct ArgsValidator {
    compiled: Validator,
    signature: String,
}

impl ArgsValidator {
    /// Compiles a normalized schema. Fails, naming the keyword and its JSON pointer, if the
    /// schema has a keyword or `format` the validator does not check, or a pattern the
    /// linear-time engine cannot compile.
    pub(crate) fn new(schema: &Value) -> Result<Self, String> {
        Ok(ArgsValidator {
            compiled: Validator::new(schema).map_err(|e| e.to_string())?,
            signature: signature(schema),
        })
    }

    /// Parses `args` text into the object the tool receives, or explains what is wrong.
    ///
    /// Absent, empty or `null` arguments mean `{}`. Optional properties set to `null` are
    /// treated as absent (models often send them). Integer-valued numbers (`1.0`, `-0`) where
    /// the schema admits only integers come out as integers.
    pub(crate) fn check(&self, tool: &str, args: Option<&str>) -> Result<Value, ToolError> {
        let text = args.map(str::trim).unwrap_or("");
        let mut value = if text.is_empty() {
            Value::Object(Map::new())
        } else {
            serde_json::from_str::<Value>(text).map_err(|e| {
                self.invalid(
                    tool,
                    &format!("`args` is not valid JSON ({e}); send a JSON object"),
                )
            })?
        };
        if value.is_null() {
            value = Value::Object(Map::new());
        }
        if !value.is_object() {
            return Err(self.invalid(
                tool,
                &format!(
                    "`args` must be a JSON object of named parameters, not {}",
                    kind_of(&value)
                ),
            ));
        }
        self.compiled.drop_null_optionals(&mut value);
        let report = self.compiled.validate(&value, MAX_REPORTED);
        if report.is_valid() {
            if report.floats_as_integers() {
                self.compiled.integers(&mut value);
            }
            return Ok(value);
        }
        let violations: Vec<String> = report
            .violations()
            .iter()
            .map(|v| {
                let path = if v.path().is_empty() { "/" } else { v.path() };
                format!(
                    "at `{path}`: {}",
                    truncate(v.message(), MAX_VIOLATION_CHARS)
                )
            })
            .collect();
        let mut detail = violations.join("; ");
        if report.total() > violations.len() {
            detail.push_str(&format!(
                " (and {} more)",
                report.total() - violations.len()
            ));
        }
        Err(self.invalid(tool, &detail))
    }

    /// An `INVALID_ARGS` error for `tool` that ends with the expected parameters.
    pub(crate) fn invalid(&self, tool: &str, detail: &str) -> ToolError {
        ToolError::invalid_args(format!(
            "invalid arguments for `{tool}`: {detail}. Expected {}.",
            self.signature
        ))
    }
}

/// `{query: string (required), limit: integer}`: a one-line reminder of the parameters.
fn signature(schema: &Value) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let props = schema.get("properties").and_then(Value::as_object);
    let Some(props) = props.filter(|p| !p.is_empty()) else {
        return "no parameters (send `{}`)".to_owned();
    };
    let parts: Vec<String> = props
        .iter()
        .map(|(name, prop)| {
            let ty = type_name(prop);
            if required.contains(&name.as_str()) {
                format!("{name}: {ty} (required)")
            } else {
                format!("{name}: {ty}")
            }
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

fn type_name(schema: &Value) -> String {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let list: Vec<String> = values.iter().map(Value::to_string).collect();
        return format!("one of {}", list.join("|"));
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("array") => match schema.get("items") {
            Some(items) => format!("array of {}", type_name(items)),
            None => "array".to_owned(),
        },
        Some(t) => t.to_owned(),
        None => "value".to_owned(),
    }
}

/// What a JSON value is, for a message: never its content (arguments and stored files hold the
/// user's data and package names).
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn validator() -> ArgsValidator {
        ArgsValidator::new(&json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            },
            "required": ["query"],
            "additionalProperties": false
        }))
        .unwrap()
    }

    #[test]
    fn a_violation_names_the_path_and_the_expected_parameters() {
        let err = validator()
            .check("search", Some(r#"{"query":"x","limit":500}"#))
            .unwrap_err();
        assert_eq!(
            err.message(),
            "invalid arguments for `search`: at `/limit`: 500 is greater than the maximum of 100. \
             Expected {query: string (required), limit: integer}."
        );
    }

    #[test]
    fn null_optional_properties_count_as_absent() {
        let value = validator()
            .check("search", Some(r#"{"query":"x","limit":null}"#))
            .unwrap();
        assert_eq!(value, json!({"query": "x"}));
        assert!(
            validator()
                .check("search", Some(r#"{"query":null}"#))
                .is_err()
        );
    }

    #[test]
    fn patterns_the_linear_engine_cannot_compile_are_named_with_their_place() {
        let schema = |pattern: &str| json!({"type": "object", "properties": {"code": {"type": "string", "pattern": pattern}}});
        for pattern in [r"^(a|a)+\1b$", r"(?=a)b", r"a(?<!b)", r"\p{L}"] {
            let err = ArgsValidator::new(&schema(pattern)).err().unwrap();
            assert!(
                err.contains(&format!("`{pattern}` at `/properties/code/pattern`"))
                    && err.contains("linear-time"),
                "{err}"
            );
        }
        let err =
            ArgsValidator::new(&json!({"type": "object", "patternProperties": {"(?=x)": {}}}))
                .err()
                .unwrap();
        assert!(err.contains("at `/patternProperties`"), "{err}");
        assert!(ArgsValidator::new(&schema(r"^\d{3}-[a-z]+$")).is_ok());
    }

    #[test]
    fn long_violations_are_truncated() {
        assert_eq!(truncate("abcdef", 3), "abc…");
        assert_eq!(truncate("äöü", 3), "äöü");
    }
}
