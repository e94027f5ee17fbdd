//! Argument validation: the `args` object is checked against the same normalized schema that
//! `list_tools` advertises, before the tool runs, and every violation is reported with its JSON
//! path in words a model can act on.
//!
//! `pattern` and `patternProperties` run on the `regex` crate's engine, which matches in time
//! linear in the input: a caller cannot make one call cost seconds of CPU with a crafted value.
//! That engine has no backreferences (`\1`) and no lookaround (`(?=…)`, `(?<!…)`); a schema
//! using them is rejected when the provider is built.

use serde_json::{Map, Value};

use crate::error::ToolError;

/// How many violations one `INVALID_ARGS` message lists at most.
const MAX_REPORTED: usize = 5;
/// Longest excerpt of a single violation, in characters.
const MAX_VIOLATION_CHARS: usize = 240;

/// A compiled argument schema.
pub(crate) struct ArgsValidator {
    schema: Value,
    compiled: jsonschema::Validator,
    signature: String,
}

impl ArgsValidator {
    /// Compiles a normalized schema. Fails if the schema is invalid JSON Schema or has a
    /// pattern the linear-time engine cannot compile.
    pub(crate) fn new(schema: &Value) -> Result<Self, String> {
        check_patterns(schema, &mut String::new())?;
        let compiled = options().build(schema).map_err(|e| e.to_string())?;
        Ok(ArgsValidator {
            schema: schema.clone(),
            compiled,
            signature: signature(schema),
        })
    }

    /// Parses `args` text into the object the tool receives, or explains what is wrong.
    ///
    /// Absent, empty or `null` arguments mean `{}`. Optional properties set to `null` are
    /// treated as absent (models often send them).
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
        drop_null_optionals(&self.schema, &mut value);
        let mut violations: Vec<String> = Vec::new();
        let mut total = 0usize;
        for error in self.compiled.iter_errors(&value) {
            total += 1;
            if violations.len() < MAX_REPORTED {
                let path = error.instance_path().to_string();
                let path = if path.is_empty() { "/" } else { path.as_str() };
                violations.push(format!(
                    "at `{path}`: {}",
                    truncate(&error.to_string(), MAX_VIOLATION_CHARS)
                ));
            }
        }
        if total == 0 {
            return Ok(value);
        }
        let mut detail = violations.join("; ");
        if total > violations.len() {
            detail.push_str(&format!(" (and {} more)", total - violations.len()));
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

fn options() -> jsonschema::ValidationOptions<'static> {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .with_pattern_options(jsonschema::PatternOptions::regex())
}

/// Finds the first `pattern` / `patternProperties` key under `schema` (at JSON pointer `at`)
/// that the linear-time engine cannot compile, and says why in terms of the schema.
fn check_patterns(schema: &Value, at: &mut String) -> Result<(), String> {
    let compiles = |pattern: &str| {
        options()
            .build(&serde_json::json!({ "pattern": pattern }))
            .is_ok()
    };
    let explain = |pattern: &str, at: &str| {
        format!(
            "the pattern `{pattern}` at `{at}` cannot be compiled by the linear-time regex engine used for `pattern` (the `regex` crate, which has no backreferences such as `\\1` and no lookaround such as `(?=…)`); rewrite it without them, or check the value in the tool"
        )
    };
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                let len = at.len();
                at.push('/');
                at.push_str(&key.replace('~', "~0").replace('/', "~1"));
                if key == "pattern" {
                    if let Some(pattern) = value.as_str().filter(|p| !compiles(p)) {
                        return Err(explain(pattern, at));
                    }
                }
                if key == "patternProperties" {
                    if let Some(patterns) = value.as_object() {
                        if let Some(pattern) = patterns.keys().find(|p| !compiles(p)) {
                            return Err(explain(pattern, at));
                        }
                    }
                }
                check_patterns(value, at)?;
                at.truncate(len);
            }
            Ok(())
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                check_patterns(item, at)?;
                at.truncate(len);
            }
            Ok(())
        }
        _ => Ok(()),
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

fn kind_of(value: &Value) -> &'static str {
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

/// Removes `"key": null` where `key` is an optional property, recursively along the schema.
fn drop_null_optionals(schema: &Value, value: &mut Value) {
    match value {
        Value::Object(obj) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            let required = schema.get("required").and_then(Value::as_array);
            let is_required = |k: &str| required.is_some_and(|r| r.iter().any(|v| v == k));
            obj.retain(|k, v| !(v.is_null() && props.contains_key(k) && !is_required(k)));
            for (k, v) in obj.iter_mut() {
                if let Some(sub) = props.get(k) {
                    drop_null_optionals(sub, v);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    drop_null_optionals(item_schema, item);
                }
            }
        }
        _ => {}
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
        for pattern in [r"^(a|a)+\1b$", r"(?=a)b", r"a(?<!b)"] {
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
