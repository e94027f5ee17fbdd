//! The oracle the validator is compared with (see `validator_oracle.rs` for what is compared
//! and where the two differ on purpose): values generated around a schema's edges, and the
//! comparison of a validator's answer with the `jsonschema` crate's. The validator under test is
//! a [`Subject`]: the engine itself here, and in the workspace tests (`tests/provider_oracle/`,
//! which include this file) a provider's tool that echoes its validated arguments.

// Each test binary uses a part of this module.
#![allow(dead_code)]

use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------------------------
// The validator under test, and the oracle.

/// What the validator under test answers for one value of arguments.
pub enum Answer {
    /// Accepted: the value handed on (optional properties set to `null` dropped, integer-valued
    /// floats as integers where only integers are admitted).
    Accepted(Value),
    /// Refused as invalid: the violations listed (`` at `/path`: message ``) and how many more.
    Refused { listed: Vec<String>, more: usize },
    /// Any other answer, described.
    Other(String),
}

/// A validator under test, for one schema.
pub trait Subject {
    fn answer(&self, value: &Value) -> Answer;
}

pub fn oracle(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .unwrap_or_else(|e| panic!("the oracle cannot compile {schema}: {e}"))
}

/// As the validator under test does before checking: optional properties set to `null` are
/// absent.
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

/// Whether `value` holds a float of magnitude 2^53 or more.
fn has_huge_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.is_f64()
                && n.as_f64()
                    .is_some_and(|f| f.abs() >= 9_007_199_254_740_992.0)
        }
        Value::Array(items) => items.iter().any(has_huge_float),
        Value::Object(members) => members.values().any(has_huge_float),
        _ => false,
    }
}

/// `text` cut after `max_chars` characters, as the validator cuts a long violation.
pub fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// JSON Schema equality: numbers by value.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// One schema under test: the validator under test, the schema it checks and the oracle for it.
pub struct Case {
    name: String,
    subject: Box<dyn Subject>,
    schema: Value,
    oracle: jsonschema::Validator,
    /// Whether messages are compared (see the module docs for the exceptions).
    compare_messages: bool,
    /// The schema has `multipleOf`, which reads a float past 2^53 differently (see below).
    has_multiple_of: bool,
}

impl Case {
    /// `subject` checks values against `schema` (as it is after the subject's normalization).
    pub fn new(
        name: &str,
        subject: Box<dyn Subject>,
        schema: Value,
        compare_messages: bool,
    ) -> Case {
        Case {
            has_multiple_of: schema.to_string().contains("\"multipleOf\""),
            name: name.to_owned(),
            oracle: oracle(&schema),
            schema,
            subject,
            compare_messages,
        }
    }

    /// Checks one value; the error says how the validator and the oracle differ.
    pub fn compare(&self, value: &Value) -> Result<(), String> {
        if self.has_multiple_of && has_huge_float(value) {
            // `1e300` is a multiple of 3 for the oracle, which divides the binary value nearest
            // to it by an integer divisor; the validator reads every number as the decimal it is
            // written as (10^300 is not), as the oracle itself does for fractional divisors.
            return Ok(());
        }
        let mut expected = value.clone();
        drop_null_optionals(&self.schema, &mut expected);
        let errors: Vec<String> = self
            .oracle
            .iter_errors(&expected)
            .map(|e| {
                let path = e.instance_path().to_string();
                let path = if path.is_empty() {
                    "/".to_owned()
                } else {
                    path
                };
                format!("at `{path}`: {}", truncate(&e.to_string(), 240))
            })
            .collect();
        let answer = self.subject.answer(value);
        let context = || format!("{}: {value}", self.name);
        if errors.is_empty() {
            let data = match answer {
                Answer::Accepted(data) => data,
                Answer::Refused { listed, .. } => {
                    return Err(format!(
                        "{}: the oracle accepts, the validator says {listed:?}",
                        context()
                    ));
                }
                Answer::Other(answer) => {
                    return Err(format!(
                        "{}: the oracle accepts, the validator says {answer}",
                        context()
                    ));
                }
            };
            if !same(&data, &expected) {
                return Err(format!("{}: handed on {data}, not {expected}", context()));
            }
            if !self.oracle.is_valid(&data) {
                return Err(format!("{}: handed on {data}, which is invalid", context()));
            }
            return Ok(());
        }
        let (mut mine, more) = match answer {
            Answer::Refused { listed, more } => (listed, more),
            Answer::Accepted(data) => {
                return Err(format!(
                    "{}: the oracle says {errors:?}, the validator hands on {data}",
                    context()
                ));
            }
            Answer::Other(answer) => {
                return Err(format!(
                    "{}: the oracle says {errors:?}, the validator answers {answer}",
                    context()
                ));
            }
        };
        if mine.len() + more != errors.len() {
            return Err(format!(
                "{}: {} violations, the oracle finds {}: {mine:?} (and {more} more) / {errors:?}",
                context(),
                mine.len() + more,
                errors.len()
            ));
        }
        if self.compare_messages && errors.len() <= 5 {
            let mut theirs = errors.clone();
            theirs.sort();
            mine.sort();
            if mine != theirs {
                return Err(format!(
                    "{}: said {mine:?}, the oracle {theirs:?}",
                    context()
                ));
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Values around a schema's edges.

const TEXT_CHARS: &[char] = &[
    'a', 'Z', '0', '-', '_', ' ', '+', '.', '@', 'é', '🌱', '抹', '\n',
];

fn text(lengths: std::ops::RangeInclusive<usize>) -> BoxedStrategy<String> {
    prop::collection::vec(prop::sample::select(TEXT_CHARS), lengths)
        .prop_map(|chars| chars.into_iter().collect())
        .boxed()
}

fn any_json(depth: u32) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-5i64..5).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1000.0f64..1000.0).prop_map(Value::from),
        prop::sample::select(vec![0.5, -0.0, 1.0, 2.0, 1e300]).prop_map(Value::from),
        text(0..=4).prop_map(Value::from),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map(text(1..=2), inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

/// Mostly values shaped by `schema`, sometimes anything.
fn arbitrary(schema: &Value, depth: u32) -> BoxedStrategy<Value> {
    prop_oneof![8 => shaped(schema, depth), 1 => any_json(depth.min(1))].boxed()
}

fn shaped(schema: &Value, depth: u32) -> BoxedStrategy<Value> {
    let Value::Object(s) = schema else {
        return any_json(depth.min(1));
    };
    let mut options: Vec<BoxedStrategy<Value>> = Vec::new();
    for key in ["enum", "const"] {
        let values = match s.get(key) {
            Some(Value::Array(values)) if key == "enum" && !values.is_empty() => values.clone(),
            Some(value) if key == "const" => vec![value.clone()],
            _ => continue,
        };
        // Numbers also as floats (`1.0` equals `1`).
        let mut with_floats = values.clone();
        with_floats.extend(
            values
                .iter()
                .filter_map(|v| v.as_i64())
                .map(|i| json!(i as f64)),
        );
        options.push(prop::sample::select(with_floats).boxed());
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for branch in s.get(key).and_then(Value::as_array).into_iter().flatten() {
            options.push(shaped(branch, depth));
        }
    }
    for branch in ["then", "else", "if"].iter().filter_map(|k| s.get(*k)) {
        options.push(shaped(branch, depth));
    }
    let types: Vec<String> = match s.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => {
            let mut guessed = Vec::new();
            let has = |keys: &[&str]| keys.iter().any(|k| s.contains_key(*k));
            if has(&[
                "properties",
                "patternProperties",
                "additionalProperties",
                "required",
            ]) {
                guessed.push("object".to_owned());
            }
            if has(&[
                "items",
                "prefixItems",
                "contains",
                "minItems",
                "uniqueItems",
            ]) {
                guessed.push("array".to_owned());
            }
            if has(&["minLength", "maxLength", "pattern", "format"]) {
                guessed.push("string".to_owned());
            }
            if has(&[
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
            ]) {
                guessed.push("number".to_owned());
            }
            guessed
        }
    };
    for t in &types {
        options.push(of_type(t, s, depth));
    }
    if options.is_empty() {
        return any_json(depth.min(1));
    }
    Union::new(options).boxed()
}

fn of_type(t: &str, s: &Map<String, Value>, depth: u32) -> BoxedStrategy<Value> {
    match t {
        "null" => Just(Value::Null).boxed(),
        "boolean" => any::<bool>().prop_map(Value::from).boxed(),
        "integer" | "number" => numbers(s, t == "integer"),
        "string" => strings_value(s),
        "array" if depth > 0 => arrays(s, depth - 1),
        "object" if depth > 0 => objects(s, depth - 1),
        _ => any_json(0),
    }
}

fn numbers(s: &Map<String, Value>, integer: bool) -> BoxedStrategy<Value> {
    let mut edges: Vec<f64> = vec![0.0, -0.0, 1.0, -1.0, 7.0];
    for key in [
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ] {
        if let Some(b) = s.get(key).and_then(Value::as_f64) {
            edges.extend([b - 1.0, b, b + 1.0, b - 0.5, b + 0.5, b * 2.0, b * 3.0]);
        }
    }
    let as_int: Vec<Value> = edges
        .iter()
        .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
        .map(|f| json!(*f as i64))
        .collect();
    let as_float: Vec<Value> = edges.iter().map(|f| json!(f)).collect();
    let mut options = vec![
        prop::sample::select(as_int).boxed(),
        prop::sample::select(as_float).boxed(),
        (-100i64..100).prop_map(Value::from).boxed(),
        prop::sample::select(vec![
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1e300),
            json!(-1e300),
        ])
        .boxed(),
    ];
    if !integer {
        options.push((-100.0f64..100.0).prop_map(Value::from).boxed());
    }
    Union::new(options).boxed()
}

/// Examples in and out of every format.
pub fn format_examples(format: &str) -> Vec<&'static str> {
    let examples: &[&str] = match format {
        "date" => &[
            "2024-02-29",
            "2023-02-29",
            "2023-13-01",
            "2023-1-1",
            "20230101",
            "2023-04-31",
        ],
        "date-time" => &[
            "2024-01-31T08:30:00Z",
            "2024-01-31t08:30:00.5+02:00",
            "2024-01-31 08:30:00Z",
            "2016-12-31T23:59:60Z",
            "2024-01-31T08:30:00",
        ],
        "time" => &[
            "08:30:00Z",
            "23:59:60Z",
            "12:00:60Z",
            "08:30:00.123-01:00",
            "08:30",
            "24:00:00Z",
        ],
        "duration" => &[
            "P1Y2M3D", "PT1H", "P2W", "P", "PT", "P1D2M", "P1WT1H", "PT1H1S", "P1.5D",
        ],
        "email" => &[
            "ada@example.com",
            "a.b+c@sub.example.org",
            "\"quoted\"@example.com",
            "ada@[192.0.2.1]",
            "ada@[IPv6:2001:db8::1]",
            "ada@@example.com",
            "ada@exa_mple.com",
            "@example.com",
            "ada",
            "bücher@example.com",
            "Ada <ada@example.com>",
        ],
        "hostname" => &[
            "example.com",
            "a-b.c",
            "xn--bcher-kva.example",
            "xn--a.example",
            "-a.com",
            "ab--c.com",
            "a..b",
            "example.com.",
            "under_score.com",
            "bücher.example",
        ],
        "ipv4" => &[
            "192.0.2.1",
            "0.0.0.0",
            "256.1.1.1",
            "01.2.3.4",
            "1.2.3",
            "::1",
        ],
        "ipv6" => &[
            "::1",
            "2001:db8::1",
            "::ffff:192.0.2.1",
            "2001:db8:::1",
            "12345::",
            "1.2.3.4",
        ],
        "uri" => &[
            "https://example.com/a?b#c",
            "urn:isbn:0451450523",
            "http://[::1]:8080/",
            "http://[v7.x]/",
            "//example.com",
            "/relative",
            "http://exa mple.com",
            "http://example.com/%zz",
            "http://host:80a/",
            "http://exämple.com",
        ],
        "uri-reference" => &[
            "/relative?x#y",
            "",
            "a:b",
            "1a:b",
            "#frag",
            "http://a b",
            "%zz",
        ],
        "iri" => &[
            "http://exämple.com/päth",
            "http://example.com/?\u{E000}",
            "http://example.com/#\u{E000}",
            "ä",
        ],
        "iri-reference" => &["/päth", "päth:x", "1ä:b", "#ß"],
        "uuid" => &[
            "123e4567-e89b-12d3-a456-426614174000",
            "123E4567-E89B-12D3-A456-426614174000",
            "123e4567e89b12d3a456426614174000",
            "123e4567-e89b-12d3-a456-42661417400g",
        ],
        "uri-template" => &[
            "http://example.com/{id}{?q,page:3}",
            "{a..b}",
            "{a:0}",
            "{id",
            "}",
            "{+path}",
            "a b",
        ],
        "json-pointer" => &["", "/a~1b/~0c/0", "a", "/~2", "/~"],
        "relative-json-pointer" => &["0", "0#", "1/a", "01", "-1", "#", "2/~0"],
        "regex" => &[
            "^[a-z]+$",
            "(unclosed",
            "\\d{2,1}",
            "(?<n>a)\\k<n>",
            "\\p{L}",
            "a**",
        ],
        _ => &[],
    };
    examples.to_vec()
}

fn strings(s: &Map<String, Value>) -> BoxedStrategy<String> {
    let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = s
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    let top = max.map_or(min + 6, |m| m + 1).min(min + 40).max(2);
    let mut options = vec![text(min.saturating_sub(1)..=top), text(0..=3)];
    if let Some(format) = s.get("format").and_then(Value::as_str) {
        let examples: Vec<String> = format_examples(format)
            .into_iter()
            .map(str::to_owned)
            .collect();
        if !examples.is_empty() {
            options.push(prop::sample::select(examples).boxed());
        }
    }
    if let Some(pattern) = s.get("pattern").and_then(Value::as_str) {
        if let Ok(matching) = proptest::string::string_regex(pattern) {
            options.push(matching.boxed());
        }
    }
    Union::new(options).boxed()
}

fn strings_value(s: &Map<String, Value>) -> BoxedStrategy<Value> {
    strings(s).prop_map(Value::from).boxed()
}

fn arrays(s: &Map<String, Value>, depth: u32) -> BoxedStrategy<Value> {
    let prefix: Vec<Value> = s
        .get("prefixItems")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let items = s.get("items").cloned().unwrap_or(Value::Bool(true));
    let min = s.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = s
        .get("maxItems")
        .and_then(Value::as_u64)
        .map_or(min + 3, |m| m as usize + 1);
    let max = max.min(min + 4).min(6);
    let head: Vec<BoxedStrategy<Value>> = prefix.iter().map(|p| arbitrary(p, depth)).collect();
    let tail = prop::collection::vec(
        arbitrary(&items, depth),
        0..=max.saturating_sub(prefix.len()).max(1),
    );
    let length = prefix.len();
    (head, tail, 0..=length)
        .prop_map(move |(head, tail, keep)| {
            // Fewer items than `prefixItems` lists, or all of them and more.
            let mut all: Vec<Value> = head.into_iter().take(keep).collect();
            if keep == length {
                all.extend(tail);
            }
            Value::Array(all)
        })
        .boxed()
}

fn objects(s: &Map<String, Value>, depth: u32) -> BoxedStrategy<Value> {
    let required: Vec<String> = s
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut members: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
    for (name, schema) in s
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let weight = if required.contains(name) { 12 } else { 3 };
        let name = name.clone();
        let value = prop_oneof![1 => Just(Value::Null), 9 => arbitrary(schema, depth)];
        members.push(
            prop::option::weighted(
                weight as f64 / 13.0,
                value.prop_map(move |v| (name.clone(), v)),
            )
            .boxed(),
        );
    }
    for (pattern, schema) in s
        .get("patternProperties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let keys: BoxedStrategy<String> = match proptest::string::string_regex(pattern) {
            Ok(matching) => matching
                .prop_filter("short", |k| k.chars().count() < 8)
                .boxed(),
            Err(_) => text(1..=3),
        };
        members.push(prop::option::of((keys, arbitrary(schema, depth))).boxed());
    }
    let extra_value = match s.get("additionalProperties") {
        Some(schema @ Value::Object(_)) => arbitrary(schema, depth),
        _ => any_json(0),
    };
    let extra_keys = prop_oneof![
        Just("extra".to_owned()),
        Just("a/b~c".to_owned()),
        text(1..=3),
    ];
    members.push(prop::option::weighted(0.25, (extra_keys, extra_value)).boxed());
    members
        .prop_map(|members| Value::Object(members.into_iter().flatten().collect()))
        .boxed()
}

/// Values for a root (object) schema.
pub fn arguments(schema: &Value) -> BoxedStrategy<Value> {
    match schema {
        Value::Object(s) => objects(s, 4),
        _ => Just(json!({})).boxed(),
    }
}

pub fn run_cases(cases: &[Case], per_schema: u32) {
    let mut failures = Vec::new();
    for case in cases {
        let mut runner = TestRunner::new(Config {
            cases: per_schema,
            failure_persistence: None,
            ..Config::default()
        });
        let outcome = runner.run(&arguments(&case.schema), |value| {
            case.compare(&value).map_err(TestCaseError::fail)
        });
        if let Err(e) = outcome {
            failures.push(e.to_string());
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// `schema` as the one required property `v` of the arguments.
pub fn wrap(schema: Value) -> Value {
    json!({"type": "object", "properties": {"v": schema}, "required": ["v"], "additionalProperties": false})
}
