//! Argument schemas: generated with schemars, then normalized into the subset of JSON Schema
//! that every LLM tool-calling API accepts.
//!
//! The normalized form:
//! - the root is `{"type":"object","properties":{…},"required":[…],"additionalProperties":false}`,
//!   with `properties` present even when empty and `required` omitted when empty;
//! - no `$schema`, no root `title`, no `$ref`/`$defs` (every reference is inlined; a recursive
//!   type is a [`SchemaError::Recursive`]);
//! - no `nullable`, no `["T","null"]` type arrays, no `anyOf` with a `null` branch: an optional
//!   value is simply not `required`;
//! - a `default` of `null` (what an optional parameter defaults to anyway) is dropped;
//! - `const` becomes a one-value `enum`; a `oneOf` of documented unit variants becomes one
//!   `enum`, with the variant docs appended to the description;
//! - non-standard numeric `format`s (`int32`, `uint64`, `double`, …) are dropped;
//! - every object with `properties` is closed (`additionalProperties: false`), because the
//!   arguments are validated against exactly this schema;
//! - keys come in a reading order: `type`, `description`, `enum`, `properties`, `required`, …

use serde_json::{Map, Value};

/// Why a tool's argument schema could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// The argument type refers to itself; LLM clients cannot use `$ref`, so it cannot be inlined.
    #[error(
        "the argument type `{0}` is recursive; tool schemas are inlined for LLM clients, so break the cycle (for example with a flat list and ids)"
    )]
    Recursive(String),
    /// A `$ref` points somewhere that does not exist.
    #[error("schema reference `{0}` cannot be resolved")]
    UnresolvedRef(String),
    /// The generated schema is not valid JSON Schema.
    #[error("the generated schema is invalid: {0}")]
    Invalid(String),
    /// The arguments are not a JSON object (a tool's arguments always are).
    #[error("tool arguments must be an object with named fields, but the schema is {0}")]
    NotAnObject(String),
}

/// Generates the normalized argument schema of `T`.
pub(crate) fn parameters_schema<T: schemars::JsonSchema>() -> Result<Value, SchemaError> {
    let settings = schemars::generate::SchemaSettings::draft2020_12();
    let generator = settings.into_generator();
    let schema = generator.into_root_schema_for::<T>();
    normalize(schema.to_value())
}

/// Normalizes a schemars draft 2020-12 root schema (see the module docs).
pub(crate) fn normalize(mut root: Value) -> Result<Value, SchemaError> {
    let defs = match root.as_object_mut() {
        Some(obj) => {
            let mut defs = obj.remove("$defs").unwrap_or(Value::Null);
            if let Some(legacy) = obj.remove("definitions") {
                if defs.is_null() {
                    defs = legacy;
                }
            }
            obj.remove("$schema");
            obj.remove("title");
            defs
        }
        None => return Err(SchemaError::NotAnObject(root.to_string())),
    };
    let mut stack = Vec::new();
    let mut root = inline(root, &defs, &mut stack)?;
    simplify(&mut root);

    let is_object =
        root.get("type") == Some(&Value::from("object")) || root.get("properties").is_some();
    let obj = match root.as_object_mut() {
        Some(obj) if is_object => obj,
        _ => return Err(SchemaError::NotAnObject(describe_kind(&root))),
    };
    obj.insert("type".into(), "object".into());
    obj.entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    obj.insert("additionalProperties".into(), false.into());
    if obj
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| r.is_empty())
    {
        obj.remove("required");
    }
    reorder(&mut root);
    Ok(root)
}

fn describe_kind(schema: &Value) -> String {
    match schema.get("type") {
        Some(t) => format!("of type {t}"),
        None => "not an object schema".to_owned(),
    }
}

/// Replaces every `$ref` with the definition it points to.
fn inline(value: Value, defs: &Value, stack: &mut Vec<String>) -> Result<Value, SchemaError> {
    match value {
        Value::Object(mut obj) => {
            if let Some(Value::String(reference)) = obj.remove("$ref") {
                let name = reference
                    .rsplit('/')
                    .next()
                    .unwrap_or(&reference)
                    .to_owned();
                if stack.contains(&name) {
                    return Err(SchemaError::Recursive(name));
                }
                let target = defs
                    .get(&name)
                    .cloned()
                    .ok_or_else(|| SchemaError::UnresolvedRef(reference.clone()))?;
                stack.push(name);
                let resolved = inline(target, defs, stack)?;
                stack.pop();
                // Sibling keywords (usually a field's `description`) win over the definition's.
                let mut merged = match resolved {
                    Value::Object(map) => map,
                    other => return Ok(other),
                };
                for (k, v) in obj {
                    merged.insert(k, inline(v, defs, stack)?);
                }
                return Ok(Value::Object(merged));
            }
            let mut out = Map::with_capacity(obj.len());
            for (k, v) in obj {
                out.insert(k, inline(v, defs, stack)?);
            }
            Ok(Value::Object(out))
        }
        Value::Array(items) => items
            .into_iter()
            .map(|v| inline(v, defs, stack))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        other => Ok(other),
    }
}

const NUMERIC_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// Rewrites the LLM-hostile constructs, bottom-up.
fn simplify(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(simplify),
        Value::Object(obj) => {
            for (_, child) in obj.iter_mut() {
                simplify(child);
            }
            drop_null_type(obj);
            unwrap_null_branch(obj, "anyOf");
            unwrap_null_branch(obj, "oneOf");
            obj.remove("nullable");
            if obj.get("default").is_some_and(Value::is_null) {
                obj.remove("default");
            }
            if let Some(c) = obj.remove("const") {
                obj.insert("enum".into(), Value::Array(vec![c]));
            }
            merge_unit_variants(obj);
            if let Some(Value::String(format)) = obj.get("format") {
                if NUMERIC_FORMATS.contains(&format.as_str()) {
                    obj.remove("format");
                }
            }
            if let Some(Value::Array(values)) = obj.get_mut("enum") {
                values.retain(|v| !v.is_null());
            }
            if obj.contains_key("properties") {
                obj.entry("additionalProperties").or_insert(false.into());
            }
        }
        _ => {}
    }
}

/// The keys a reader looks for first, in that order; the rest keep their order after them.
const KEY_ORDER: &[&str] = &[
    "type",
    "description",
    "enum",
    "format",
    "properties",
    "required",
    "additionalProperties",
    "items",
];

fn reorder(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(reorder),
        Value::Object(obj) => {
            let mut entries: Vec<(String, Value)> = std::mem::take(obj).into_iter().collect();
            entries.sort_by_key(|(k, _)| {
                KEY_ORDER
                    .iter()
                    .position(|known| known == k)
                    .unwrap_or(KEY_ORDER.len())
            });
            for (key, mut child) in entries {
                // Inside `properties` the keys are parameter names: keep their order.
                if key != "properties" {
                    reorder(&mut child);
                } else if let Value::Object(props) = &mut child {
                    props.values_mut().for_each(reorder);
                }
                obj.insert(key, child);
            }
        }
        _ => {}
    }
}

/// `"type": ["string", "null"]` → `"type": "string"`.
fn drop_null_type(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            obj.insert("type".into(), only);
        }
    }
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::from("null"))
        || schema.get("enum") == Some(&Value::Array(vec![Value::Null]))
}

/// `{"anyOf": [X, {"type":"null"}], "description": d}` → `X` with `description: d`.
fn unwrap_null_branch(obj: &mut Map<String, Value>, keyword: &str) {
    let Some(Value::Array(branches)) = obj.get_mut(keyword) else {
        return;
    };
    branches.retain(|b| !is_null_schema(b));
    if branches.len() != 1 {
        return;
    }
    let Some(Value::Object(only)) = branches.pop() else {
        return;
    };
    obj.remove(keyword);
    for (k, v) in only {
        obj.entry(k).or_insert(v);
    }
}

/// `{"oneOf": [{"enum":["a"],"description":"A"}, …]}` → `{"type":"string","enum":["a",…]}` with
/// the variant descriptions listed in the description.
fn merge_unit_variants(obj: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = obj.get("oneOf") else {
        return;
    };
    let mut values = Vec::with_capacity(branches.len());
    let mut notes = Vec::new();
    for branch in branches {
        let Some(Value::Array(one)) = branch.get("enum") else {
            return;
        };
        let [Value::String(value)] = one.as_slice() else {
            return;
        };
        let allowed = ["enum", "type", "description"];
        if branch
            .as_object()
            .is_some_and(|b| b.keys().any(|k| !allowed.contains(&k.as_str())))
        {
            return;
        }
        if let Some(Value::String(doc)) = branch.get("description") {
            notes.push(format!(
                "\"{value}\" = {}",
                doc.trim().trim_end_matches('.')
            ));
        }
        values.push(Value::String(value.clone()));
    }
    obj.remove("oneOf");
    obj.insert("type".into(), "string".into());
    obj.insert("enum".into(), Value::Array(values));
    if !notes.is_empty() {
        let list = notes.join("; ");
        let description = match obj.get("description").and_then(Value::as_str) {
            Some(d) => format!("{d} Values: {list}."),
            None => format!("Values: {list}."),
        };
        obj.insert("description".into(), description.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn recursion_is_reported_not_expanded() {
        let schema = json!({
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}
        });
        assert_eq!(
            normalize(schema),
            Err(SchemaError::Recursive("Node".into()))
        );
    }

    #[test]
    fn null_branches_and_type_arrays_disappear() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {
                "a": {"type": ["integer", "null"], "format": "int32"},
                "b": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}], "description": "b doc"}
            },
            "$defs": {"B": {"type": "string", "enum": ["x", "y"]}}
        });
        assert_eq!(
            normalize(schema).unwrap(),
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "b": {"type": "string", "enum": ["x", "y"], "description": "b doc"}
                },
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn a_non_object_root_is_rejected() {
        assert!(matches!(
            normalize(json!({"type": "string"})),
            Err(SchemaError::NotAnObject(_))
        ));
    }
}
