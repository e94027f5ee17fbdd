//! From a Rust type to the normalized schema: schemars does the generation, the inlining,
//! `const` → `enum` and the format filter; four [`Transform`]s here do the rest.

use std::borrow::Cow;

use schemars::generate::SchemaSettings;
use schemars::transform::{ReplaceConstValue, RestrictFormats, Transform, transform_subschemas};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

use super::SchemaError;

/// The `format`s kept: those JSON Schema 2020-12 defines (validators check them and models know
/// them). Numeric ones schemars adds (`int32`, `uint64`, `double`, …) are dropped.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The generator settings: draft 2020-12, every subschema inlined, no `$schema`, and the
/// transforms in the order they must run.
fn settings() -> SchemaSettings {
    let mut formats = RestrictFormats::default();
    formats.infer_from_meta_schema = false;
    formats.allowed_formats = STANDARD_FORMATS.iter().map(|f| Cow::Borrowed(*f)).collect();
    SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
        s.transforms = vec![
            Box::new(ReplaceConstValue::default()),
            Box::new(formats),
            Box::new(DropNull),
            Box::new(MergeUnitVariants),
            Box::new(CloseObjects),
            Box::new(OrderKeys),
        ];
    })
}

/// The normalized argument schema of `T`: an object schema (see the module docs of
/// [`crate::schema`]).
pub(crate) fn parameters_schema<T: JsonSchema>() -> Result<Value, SchemaError> {
    let mut root = generate::<T>()?;
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
    let mut schema = Schema::try_from(root).map_err(|e| SchemaError::Invalid(e.to_string()))?;
    OrderKeys.transform(&mut schema);
    Ok(schema.to_value())
}

/// The normalized schema of a tool's result type `T`: any JSON type at the root, otherwise
/// the same rules as the arguments.
pub(crate) fn output_schema<T: JsonSchema + ?Sized>() -> Result<Value, SchemaError> {
    let mut schema =
        Schema::try_from(generate::<T>()?).map_err(|e| SchemaError::Invalid(e.to_string()))?;
    OrderKeys.transform(&mut schema);
    Ok(schema.to_value())
}

/// Generates the schema of `T` with [`settings`], without `title` and with every reference
/// resolved; a reference left over means the type is recursive.
fn generate<T: JsonSchema + ?Sized>() -> Result<Value, SchemaError> {
    let mut root = settings().into_generator().into_root_schema_for::<T>();
    if let Some(obj) = root.as_object_mut() {
        obj.remove("title");
    }
    let root = root.to_value();
    if let Some(name) = first_ref(&root) {
        let name = if name == "#" {
            T::schema_name().into_owned()
        } else {
            name
        };
        return Err(SchemaError::Recursive(name));
    }
    Ok(root)
}

/// The definition name of the first `$ref` in `schema` (`#` for the root type itself), or the
/// first key of a leftover `$defs`.
fn first_ref(schema: &Value) -> Option<String> {
    match schema {
        Value::Object(obj) => {
            if let Some(Value::String(reference)) = obj.get("$ref") {
                let name = reference.rsplit('/').next().unwrap_or(reference);
                return Some(if name.is_empty() { "#" } else { name }.to_owned());
            }
            if let Some(Value::Object(defs)) = obj.get("$defs") {
                if let Some(name) = defs.keys().next() {
                    return Some(name.clone());
                }
            }
            obj.values().find_map(first_ref)
        }
        Value::Array(items) => items.iter().find_map(first_ref),
        _ => None,
    }
}

fn describe_kind(schema: &Value) -> String {
    match schema.get("type") {
        Some(t) => format!("of type {t}"),
        None => "not an object schema".to_owned(),
    }
}

/// Removes every way of saying "or null": `["T","null"]` type arrays, `anyOf`/`oneOf` branches
/// of type null, `nullable`, a `null` default and `null` in an `enum`. An optional value is
/// simply not `required`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DropNull;

impl Transform for DropNull {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        let Some(obj) = schema.as_object_mut() else {
            return;
        };
        if let Some(Value::Array(types)) = obj.get_mut("type") {
            types.retain(|t| t != "null");
            if types.len() == 1 {
                let only = types.remove(0);
                obj.insert("type".into(), only);
            }
        }
        unwrap_null_branch(obj, "anyOf");
        unwrap_null_branch(obj, "oneOf");
        obj.remove("nullable");
        if obj.get("default").is_some_and(Value::is_null) {
            obj.remove("default");
        }
        if let Some(Value::Array(values)) = obj.get_mut("enum") {
            values.retain(|v| !v.is_null());
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
/// the variant docs listed in the description (`Values: "a" = A; …`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MergeUnitVariants;

impl Transform for MergeUnitVariants {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        if let Some(obj) = schema.as_object_mut() {
            merge_unit_variants(obj);
        }
    }
}

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

/// Every object with `properties` gets `additionalProperties: false` unless it says otherwise:
/// arguments are validated against exactly the advertised schema.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CloseObjects;

impl Transform for CloseObjects {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        if let Some(obj) = schema.as_object_mut() {
            if obj.contains_key("properties") {
                obj.entry("additionalProperties").or_insert(false.into());
            }
        }
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

/// Puts the keys of every (sub)schema in reading order ([`KEY_ORDER`]); property names keep the
/// declaration order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OrderKeys;

impl Transform for OrderKeys {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        let Some(obj) = schema.as_object_mut() else {
            return;
        };
        let mut entries: Vec<(String, Value)> = std::mem::take(obj).into_iter().collect();
        crate::sort::sort_by_key(&mut entries, |(k, _)| {
            KEY_ORDER
                .iter()
                .position(|known| known == k)
                .unwrap_or(KEY_ORDER.len())
        });
        obj.extend(entries);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn apply(transform: &mut impl Transform, value: Value) -> Value {
        let mut schema = Schema::try_from(value).unwrap();
        transform.transform(&mut schema);
        schema.to_value()
    }

    #[test]
    fn null_branches_and_type_arrays_disappear() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": ["integer", "null"], "default": null},
                "b": {"anyOf": [{"type": "string", "enum": ["x", "y", null]}, {"type": "null"}], "description": "b doc"},
                "c": {"type": "string", "nullable": true}
            }
        });
        assert_eq!(
            apply(&mut DropNull, schema),
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "b": {"description": "b doc", "type": "string", "enum": ["x", "y"]},
                    "c": {"type": "string"}
                }
            })
        );
    }

    #[test]
    fn documented_unit_variants_become_one_enum() {
        let schema = json!({"description": "Pick.", "oneOf": [
            {"type": "string", "enum": ["a"], "description": "First."},
            {"type": "string", "enum": ["b"], "description": "Second."}
        ]});
        assert_eq!(
            apply(&mut MergeUnitVariants, schema),
            json!({"description": "Pick. Values: \"a\" = First; \"b\" = Second.", "type": "string", "enum": ["a", "b"]})
        );
        let mixed = json!({"oneOf": [{"enum": ["a"]}, {"type": "object", "properties": {}}]});
        assert_eq!(apply(&mut MergeUnitVariants, mixed.clone()), mixed);
    }

    #[test]
    fn objects_are_closed_and_keys_ordered() {
        let schema = json!({"required": ["x"], "properties": {"z": {"description": "d", "type": "string"}, "x": {"type": "integer"}}, "type": "object"});
        let out = apply(&mut CloseObjects, schema);
        let out = apply(&mut OrderKeys, out);
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"type":"object","properties":{"z":{"type":"string","description":"d"},"x":{"type":"integer"}},"required":["x"],"additionalProperties":false}"#
        );
    }

    #[test]
    fn a_recursive_type_is_reported_not_expanded() {
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Node {
            next: Option<Box<Node>>,
        }
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Args {
            node: Node,
        }
        assert_eq!(
            parameters_schema::<Args>(),
            Err(SchemaError::Recursive("Node".into()))
        );
    }

    #[test]
    fn a_non_object_root_is_rejected() {
        assert!(matches!(
            parameters_schema::<String>(),
            Err(SchemaError::NotAnObject(_))
        ));
        assert_eq!(
            output_schema::<u8>(),
            Ok(json!({"type": "integer", "minimum": 0, "maximum": 255}))
        );
    }
}
