//! The oracle the argument validator is compared with (see `validator_oracle.rs` for what is
//! compared and where the two differ on purpose): a tool that echoes its validated arguments,
//! values generated around a schema's edges, and the comparison of the provider's answer with
//! the `jsonschema` crate's.

// Each test binary uses a part of this module.
#![allow(dead_code)]

use std::cell::RefCell;

use cetp_provider::auth::Auth;
use cetp_provider::schemars::{JsonSchema, Schema, SchemaGenerator};
use cetp_provider::testing::Consumer;
use cetp_provider::{CallContext, ErrorCode, Provider, Tool, ToolError};
use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::{Config, TestRunner};
use serde::Deserialize;
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------------------------
// A tool whose argument schema is whatever the test sets, and which echoes what it receives.

thread_local! {
    static NEXT_SCHEMA: RefCell<Value> = const { RefCell::new(Value::Null) };
}

#[derive(Deserialize)]
#[serde(transparent)]
struct Raw(Value);

impl JsonSchema for Raw {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Raw".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        NEXT_SCHEMA.with(|s| Schema::try_from(s.borrow().clone()).expect("a schema object"))
    }
}

struct Echo;

impl Tool for Echo {
    type Args = Raw;
    type Output = Value;
    const NAME: &'static str = "echo";
    const DESCRIPTION: &'static str = "Returns its arguments as the validator handed them on.";

    fn call(&self, args: Raw, _: &CallContext) -> Result<Value, ToolError> {
        Ok(args.0)
    }
}

/// A provider whose `echo` tool takes `schema`, or the build error.
pub fn echo_provider(schema: &Value) -> Result<Provider, String> {
    NEXT_SCHEMA.with(|s| *s.borrow_mut() = schema.clone());
    Provider::builder("Oracle")
        .tool(Echo)
        .auth(Auth::open())
        .build()
        .map_err(|e| e.to_string())
}

/// The schema `echo` advertises (after the SDK's normalization).
fn advertised(provider: &Provider) -> Value {
    let tools = Consumer::new(provider).list_tools().data_json().unwrap();
    tools["tools"][0]["parameters"].clone()
}

pub fn oracle(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .unwrap_or_else(|e| panic!("the oracle cannot compile {schema}: {e}"))
}

/// As the provider does before validating: optional properties set to `null` are absent.
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

fn truncate(text: &str, max_chars: usize) -> String {
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

/// One schema under test: its echo provider, the advertised schema and the oracle for it.
pub struct Case {
    name: String,
    provider: Provider,
    schema: Value,
    oracle: jsonschema::Validator,
    /// Whether messages are compared (see the module docs for the exceptions).
    compare_messages: bool,
    /// The schema has `multipleOf`, which reads a float past 2^53 differently (see below).
    has_multiple_of: bool,
}

impl Case {
    pub fn new(name: &str, schema: &Value, compare_messages: bool) -> Case {
        let provider = echo_provider(schema)
            .unwrap_or_else(|e| panic!("{name}: the provider refused {schema}: {e}"));
        let advertised = advertised(&provider);
        Case {
            has_multiple_of: advertised.to_string().contains("\"multipleOf\""),
            name: name.to_owned(),
            oracle: oracle(&advertised),
            schema: advertised,
            provider,
            compare_messages,
        }
    }

    /// Checks one value; the error says how the provider and the oracle differ.
    pub fn compare(&self, value: &Value) -> Result<(), String> {
        if self.has_multiple_of && has_huge_float(value) {
            // `1e300` is a multiple of 3 for the oracle, which divides the binary value nearest
            // to it by an integer divisor; the provider reads every number as the decimal it is
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
        let answer = Consumer::new(&self.provider).execute("echo", &value.to_string());
        let context = || format!("{}: {value}", self.name);
        if errors.is_empty() {
            let data = answer
                .data_json()
                .map_err(|e| format!("{}: the oracle accepts, the provider says {e}", context()))?;
            if !same(&data, &expected) {
                return Err(format!("{}: handed on {data}, not {expected}", context()));
            }
            if !self.oracle.is_valid(&data) {
                return Err(format!("{}: handed on {data}, which is invalid", context()));
            }
            return Ok(());
        }
        if answer.error_code() != Some(ErrorCode::InvalidArgs) {
            return Err(format!(
                "{}: the oracle says {errors:?}, the provider answers {answer}",
                context()
            ));
        }
        let message = answer.error_message().unwrap_or("");
        let detail = message
            .strip_prefix("invalid arguments for `echo`: ")
            .and_then(|m| m.rsplit_once(". Expected ").map(|(detail, _)| detail))
            .ok_or_else(|| format!("{}: unexpected message {message}", context()))?;
        let (listed, more) = match detail.rsplit_once(" (and ") {
            Some((listed, more)) if more.ends_with(" more)") => (
                listed,
                more.trim_end_matches(" more)")
                    .parse::<usize>()
                    .unwrap_or(0),
            ),
            _ => (detail, 0),
        };
        let mut mine: Vec<String> = listed.split("; at `").map(str::to_owned).collect();
        for m in mine.iter_mut().skip(1) {
            m.insert_str(0, "at `");
        }
        if mine.len() + more != errors.len() {
            return Err(format!(
                "{}: {} violations, the oracle finds {}: {message} / {errors:?}",
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

/// Compares the validator with the oracle on every tool (arguments and results) of `provider`.
pub fn check_provider(sample: &str, provider: &Provider, per_schema: u32) {
    let tools = Consumer::new(provider).list_tools().data_json().unwrap();
    let mut cases = Vec::new();
    for tool in tools["tools"].as_array().unwrap() {
        let name = format!("{sample}/{}", tool["name"].as_str().unwrap());
        cases.push(Case::new(&name, &tool["parameters"], true));
        if let Some(output) = tool.get("output_schema") {
            cases.push(Case::new(
                &format!("{name} (output)"),
                &wrap(output.clone()),
                true,
            ));
        }
    }
    assert!(!cases.is_empty());
    run_cases(&cases, per_schema);
}
