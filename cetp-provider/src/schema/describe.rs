//! Constraints restated in descriptions, for the models that never see the keywords (see
//! [`crate::ProviderBuilder::restate_constraints`]).

use schemars::Schema;
use schemars::transform::{Transform, transform_subschemas};
use serde_json::{Map, Value};

use super::normalize::OrderKeys;

/// Appends the constraints of `parameters` (and of every subschema) to their descriptions
/// when `on`.
pub(crate) fn restate_constraints(parameters: Value, on: bool) -> Value {
    if !on {
        return parameters;
    }
    let Ok(mut schema) = Schema::try_from(parameters.clone()) else {
        return parameters;
    };
    RestateConstraints.transform(&mut schema);
    OrderKeys.transform(&mut schema);
    schema.to_value()
}

/// Writes each schema's bounds, lengths, pattern, format and non-string `enum` into its
/// `description`, after what is already there, unless the description already says it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RestateConstraints;

impl Transform for RestateConstraints {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        let Some(obj) = schema.as_object_mut() else {
            return;
        };
        let existing = obj
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let phrases: Vec<String> = phrases(obj)
            .into_iter()
            .filter(|p| !p.already_in(&existing))
            .map(|p| p.text)
            .collect();
        if phrases.is_empty() {
            return;
        }
        let mut sentence = phrases.join(", ");
        if let Some(first) = sentence.get(..1) {
            sentence = first.to_uppercase() + &sentence[1..];
        }
        let description = if existing.trim().is_empty() {
            format!("{sentence}.")
        } else {
            let base = existing.trim_end();
            let sep = if base.ends_with(['.', '!', '?', ':']) {
                " "
            } else {
                ". "
            };
            format!("{base}{sep}{sentence}.")
        };
        obj.insert("description".into(), description.into());
    }
}

/// One constraint in words, with the spellings that count as already stating it.
struct Phrase {
    text: String,
    stated_as: Vec<String>,
}

impl Phrase {
    fn new(text: String, mut stated_as: Vec<String>) -> Self {
        stated_as.push(text.clone());
        Phrase { text, stated_as }
    }

    fn already_in(&self, description: &str) -> bool {
        let lower = description.to_lowercase();
        self.stated_as
            .iter()
            .any(|s| lower.contains(&s.to_lowercase()))
    }
}

fn number(obj: &Map<String, Value>, key: &str) -> Option<String> {
    let n = obj.get(key)?;
    Some(match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
        _ => n.to_string(),
    })
}

/// `1 to 50`, `at least 1`, `at most 50` (with a unit such as `characters` or `items`).
fn bounds(min: Option<String>, max: Option<String>, unit: &str) -> Option<Phrase> {
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    Some(match (min, max) {
        (Some(min), Some(max)) if min == max => Phrase::new(format!("exactly {min}{unit}"), vec![]),
        (Some(min), Some(max)) => Phrase::new(
            format!("{min} to {max}{unit}"),
            vec![
                format!("{min} to {max}"),
                format!("{min}-{max}"),
                format!("{min}–{max}"),
                format!("between {min} and {max}"),
            ],
        ),
        (Some(min), None) => Phrase::new(
            format!("at least {min}{unit}"),
            vec![format!("at least {min}"), format!("{min} or more")],
        ),
        (None, Some(max)) => Phrase::new(
            format!("at most {max}{unit}"),
            vec![format!("at most {max}"), format!("up to {max}")],
        ),
        (None, None) => return None,
    })
}

/// The constraint keywords of one schema, in words.
fn phrases(obj: &Map<String, Value>) -> Vec<Phrase> {
    let mut out = Vec::new();
    // A lone `minimum: 0` is what schemars writes for every unsigned integer: saying so on
    // each count would only add noise.
    let minimum = number(obj, "minimum");
    let maximum = number(obj, "maximum");
    if !(minimum.as_deref() == Some("0") && maximum.is_none()) {
        out.extend(bounds(minimum, maximum, ""));
    }
    if let Some(n) = number(obj, "exclusiveMinimum") {
        out.push(Phrase::new(format!("more than {n}"), vec![]));
    }
    if let Some(n) = number(obj, "exclusiveMaximum") {
        out.push(Phrase::new(format!("less than {n}"), vec![]));
    }
    if let Some(n) = number(obj, "multipleOf") {
        out.push(Phrase::new(format!("a multiple of {n}"), vec![]));
    }
    out.extend(bounds(
        number(obj, "minLength"),
        number(obj, "maxLength"),
        "characters",
    ));
    if let Some(Value::String(pattern)) = obj.get("pattern") {
        out.push(Phrase::new(
            format!("pattern {pattern}"),
            vec![pattern.clone()],
        ));
    }
    if let Some(Value::String(format)) = obj.get("format") {
        if let Some((text, stated)) = format_words(format) {
            out.push(Phrase::new(
                text.to_owned(),
                stated.iter().map(|s| (*s).to_owned()).collect(),
            ));
        }
    }
    out.extend(bounds(
        number(obj, "minItems"),
        number(obj, "maxItems"),
        "items",
    ));
    if obj.get("uniqueItems") == Some(&Value::Bool(true)) {
        out.push(Phrase::new(
            "no duplicates".to_owned(),
            vec!["duplicate".into()],
        ));
    }
    if let Some(Value::Array(values)) = obj.get("enum") {
        // Gemini takes string enums only, so a number or boolean set is dropped on the way.
        if values.iter().any(|v| !v.is_string()) {
            let list: Vec<String> = values.iter().map(Value::to_string).collect();
            out.push(Phrase::new(format!("one of {}", list.join(", ")), vec![]));
        }
    }
    out
}

/// A format in words, and what counts as already saying it.
fn format_words(format: &str) -> Option<(&'static str, &'static [&'static str])> {
    Some(match format {
        "date" => ("a date, YYYY-MM-DD", &["YYYY-MM-DD"]),
        "date-time" => (
            "a date and time, RFC 3339 (2024-03-01T09:30:00Z)",
            &["RFC 3339", "ISO 8601"],
        ),
        "time" => ("a time, HH:MM:SS", &["HH:MM"]),
        "duration" => ("an ISO 8601 duration such as P3D", &["ISO 8601"]),
        "email" | "idn-email" => ("an e-mail address", &["e-mail", "email"]),
        "hostname" | "idn-hostname" => ("a host name", &["host name", "hostname"]),
        "ipv4" => ("an IPv4 address", &["IPv4"]),
        "ipv6" => ("an IPv6 address", &["IPv6"]),
        "uri" | "iri" => ("an absolute URI", &["URI", "URL"]),
        "uri-reference" | "iri-reference" => ("a URI reference", &["URI", "URL"]),
        "uuid" => ("a UUID", &["UUID"]),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn restated(schema: Value) -> Value {
        restate_constraints(schema, true)
    }

    #[test]
    fn constraints_become_short_words() {
        let out = restated(json!({"type": "object", "properties": {
            "limit": {"type": "integer", "description": "How many", "minimum": 1, "maximum": 50},
            "count": {"type": "integer", "description": "A count.", "minimum": 0},
            "query": {"type": "string", "description": "Words.", "maxLength": 200},
            "day": {"type": "string", "format": "date"},
            "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "minItems": 1, "maxItems": 9},
            "level": {"type": "integer", "enum": [1, 2, 3]}
        }}));
        let p = &out["properties"];
        assert_eq!(p["limit"]["description"], "How many. 1 to 50.");
        assert_eq!(p["count"]["description"], "A count.");
        assert_eq!(p["query"]["description"], "Words. At most 200 characters.");
        assert_eq!(p["day"]["description"], "A date, YYYY-MM-DD.");
        assert_eq!(p["tags"]["description"], "1 to 9 items.");
        assert_eq!(p["tags"]["items"]["description"], "Pattern ^[a-z]+$.");
        assert_eq!(p["level"]["description"], "One of 1, 2, 3.");
        // The new description takes its place in the key order.
        let keys: Vec<&String> = p["day"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["type", "description", "format"]);
    }

    #[test]
    fn a_description_that_states_the_constraint_is_left_alone() {
        let schema = json!({"type": "object", "properties": {
            "limit": {"type": "integer", "description": "How many hits, 1 to 50 (default 10).", "minimum": 1, "maximum": 50},
            "from": {"type": "string", "description": "First day, `YYYY-MM-DD`.", "format": "date"},
            "name": {"type": "string", "description": "Up to 64 characters.", "maxLength": 64}
        }});
        assert_eq!(restated(schema.clone()), schema);
        assert_eq!(restate_constraints(schema.clone(), false), schema);
    }
}
