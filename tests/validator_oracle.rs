//! The argument validator against an oracle: the `jsonschema` crate (draft 2020-12, formats
//! checked, patterns on its `regex` engine), a dev-dependency only. For the golden schemas,
//! schemas of common Rust types and hand-written schemas of every keyword (and, in
//! `oracle_<sample>.rs`, each sample's tools; one test binary per sample, as each exports its
//! own `JNI_OnLoad`), it
//! generates argument values around each schema's edges and checks, through
//! `Consumer::execute` on a tool that echoes its validated arguments, that the provider accepts
//! exactly what the oracle accepts, reports as many violations, with the same messages, and hands
//! on the same value (integer-valued floats as integers).
//!
//! Where the two differ on purpose, the test says so and why:
//!
//! - `idn-hostname` and `idn-email`: the oracle, without its `idna` feature (as this SDK linked
//!   it), checks neither; the provider checks both (`formats_the_oracle_does_not_check`).
//! - Patterns are ECMA-262 here; the oracle reads them as Rust `regex` syntax after a
//!   translation. Rust-only syntax (`(?i)abc`, `\pL`, `[[:alpha:]]`) is refused at build, and
//!   `\p{…}` classes (which `regex-lite` lacks) too; `\b` is ECMA-262's ASCII word boundary, not
//!   Rust's Unicode one; and `.` inside `(?s:…)` matches line terminators, which the oracle's
//!   translation forgets (`patterns_match_as_the_oracle_matches`).
//! - A few messages are worded better: `additionalProperties: false` without `properties` lists
//!   the unexpected names (the oracle says "False schema does not allow" the first value),
//!   `minContains`/`maxContains` say how many items matched, and `propertyNames: false` names
//!   the property. The schemas using them are marked and only compared on acceptance and count.
//! - `multipleOf` with an integer divisor and a float past 2^53: the oracle divides the binary
//!   value nearest to `1e300`, the provider the decimal written (as the oracle does for a
//!   fractional divisor); such values are skipped where a schema has `multipleOf`.
//! - The order of violations is the provider's (required properties, then each property in the
//!   arguments' order, then the unexpected ones); the sets are compared.

mod oracle;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::Path;

use cetp_provider::Provider;
use cetp_provider::auth::Auth;
use cetp_provider::testing::Consumer;
use oracle::{Case, echo_provider, oracle, run_cases, wrap};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// The schemas.

fn golden_schemas() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden");
    let mut out = Vec::new();
    for (sub, wrapped) in [("", false), ("output", true)] {
        let mut paths: Vec<_> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .filter(|p| p.file_stem().is_some_and(|s| s != "list_tools"))
            .collect();
        paths.sort();
        for path in paths {
            let schema: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let name = format!(
                "golden/{sub}/{}",
                path.file_stem().unwrap().to_string_lossy()
            );
            out.push((name, if wrapped { wrap(schema) } else { schema }));
        }
    }
    out
}

mod types {
    //! Rust types whose schemas use the keywords schemars emits beyond the samples'.
    #![allow(dead_code)]

    use std::collections::{BTreeMap, BTreeSet, HashMap};
    use std::num::{NonZeroI32, NonZeroU8};

    use schemars::JsonSchema;
    use serde::Deserialize;

    #[derive(Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
    pub enum Key {
        K1,
        K2,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(tag = "kind")]
    pub enum Shape {
        Circle { r: f64 },
        Square { side: u16 },
        Dot,
    }

    #[derive(Deserialize, JsonSchema)]
    pub enum External {
        A(u32),
        B { x: String },
        C,
        D(String, u8),
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(untagged)]
    pub enum Untagged {
        N(u32),
        S(String),
        O { a: bool },
    }

    #[derive(Deserialize, JsonSchema)]
    pub struct Collections {
        pub tuple: (u8, String),
        pub set: BTreeSet<String>,
        pub by_key: BTreeMap<Key, u8>,
        pub by_number: HashMap<u32, String>,
        pub by_signed: BTreeMap<i64, bool>,
        pub fixed: [i8; 3],
        #[schemars(length(min = 2, max = 3))]
        pub bounded: Vec<u8>,
        #[schemars(inner(range(min = 1)))]
        pub positive: Vec<i16>,
        pub anything: serde_json::Value,
    }

    #[derive(Deserialize, JsonSchema)]
    pub struct Scalars {
        pub nonzero: NonZeroI32,
        pub nonzero_u8: NonZeroU8,
        pub letter: char,
        pub ratio: f32,
        pub big: i128,
        pub address: std::net::Ipv4Addr,
        pub address6: std::net::Ipv6Addr,
        pub unit: (),
        pub maybe: Option<Option<u8>>,
        pub result: Result<u8, String>,
        #[schemars(regex(pattern = r"^\w+(-\d{2,3})?$"))]
        pub code: String,
        #[schemars(contains(pattern = "ab"))]
        pub needle: String,
        #[schemars(email)]
        pub email: String,
        #[schemars(url)]
        pub url: String,
        #[schemars(range(min = -2.5, max = 1e3))]
        pub bounded: f64,
    }

    #[derive(Deserialize, JsonSchema)]
    pub struct Variants {
        pub shape: Shape,
        pub external: External,
        pub untagged: Untagged,
        pub shapes: Vec<Shape>,
    }
}

fn type_schemas() -> Vec<(String, Value)> {
    use cetp_provider::schema::output_schema;
    vec![
        (
            "types/Collections".into(),
            wrap(output_schema::<types::Collections>().unwrap()),
        ),
        (
            "types/Scalars".into(),
            wrap(output_schema::<types::Scalars>().unwrap()),
        ),
        (
            "types/Variants".into(),
            wrap(output_schema::<types::Variants>().unwrap()),
        ),
    ]
}

/// Every keyword, and every format the normalizer keeps, in schemas written by hand; `false`
/// marks those whose messages are worded differently on purpose.
fn keyword_schemas() -> Vec<(String, Value, bool)> {
    let mut out: Vec<(String, Value, bool)> = [
        ("types", json!({"type": ["integer", "string", "null"]}), true),
        ("const", json!({"const": {"a": [1, 2]}}), true),
        ("enum", json!({"enum": [1, "two", [3], {"four": 4}, null]}), true),
        ("bounds", json!({"type": "number", "minimum": -2.5, "maximum": 10}), true),
        ("exclusive", json!({"exclusiveMinimum": 0, "exclusiveMaximum": 1.5}), true),
        ("multipleOf", json!({"type": "number", "multipleOf": 0.5}), true),
        ("multipleOf integer", json!({"multipleOf": 3}), true),
        ("lengths", json!({"type": "string", "minLength": 2, "maxLength": 3}), true),
        ("pattern", json!({"type": "string", "pattern": "^[a-zé]{2,}(-[0-9]+)?$"}), true),
        ("pattern search", json!({"pattern": "é|🌱"}), true),
        ("pattern i", json!({"pattern": "^(?i:ab[é-ü])$"}), true),
        ("items", json!({"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3}), true),
        ("prefixItems", json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}], "items": false}), true),
        ("uniqueItems", json!({"type": "array", "uniqueItems": true}), true),
        ("contains", json!({"type": "array", "contains": {"type": "string"}}), true),
        ("min/maxContains", json!({"type": "array", "contains": {"type": "integer"}, "minContains": 2, "maxContains": 3}), false),
        ("object", json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {}}, "required": ["a", "b"], "additionalProperties": false}), true),
        ("additional schema", json!({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}}), true),
        ("patternProperties", json!({"type": "object", "patternProperties": {"^[0-9]+$": {"type": "string"}}, "additionalProperties": false}), true),
        ("closed without properties", json!({"type": "object", "additionalProperties": false}), false),
        ("min/maxProperties", json!({"type": "object", "minProperties": 1, "maxProperties": 2}), true),
        ("propertyNames", json!({"type": "object", "propertyNames": {"maxLength": 2, "pattern": "^[a-z]"}}), true),
        ("dependentRequired", json!({"type": "object", "dependentRequired": {"a": ["b", "c"]}}), true),
        ("dependentSchemas", json!({"type": "object", "dependentSchemas": {"a": {"required": ["b"]}}}), true),
        ("allOf", json!({"allOf": [{"type": "integer"}, {"minimum": 3}, {"maximum": 5}]}), true),
        ("anyOf", json!({"anyOf": [{"type": "integer", "minimum": 3}, {"type": "string", "maxLength": 1}]}), true),
        ("oneOf", json!({"oneOf": [{"type": "integer"}, {"type": "number", "maximum": 2}]}), true),
        ("not", json!({"not": {"enum": [0, "x"]}}), true),
        ("if/then/else", json!({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "integer", "minimum": 3}}), true),
        ("booleans", json!({"type": "object", "properties": {"yes": true, "no": false}}), true),
        ("annotations", json!({"title": "t", "description": "d", "default": 1, "examples": [1], "deprecated": false, "readOnly": true, "x-note": "n", "type": "integer"}), true),
    ]
    .into_iter()
    .map(|(name, schema, messages)| (name.to_owned(), schema, messages))
    .collect();
    for (format, _) in FORMATS {
        out.push((
            format!("format {format}"),
            json!({"type": "string", "format": format}),
            true,
        ));
    }
    out
}

/// The formats the normalizer keeps, and whether the oracle checks them.
const FORMATS: &[(&str, bool)] = &[
    ("date-time", true),
    ("date", true),
    ("time", true),
    ("duration", true),
    ("email", true),
    ("idn-email", false),
    ("hostname", true),
    ("idn-hostname", false),
    ("ipv4", true),
    ("ipv6", true),
    ("uri", true),
    ("uri-reference", true),
    ("iri", true),
    ("iri-reference", true),
    ("uuid", true),
    ("uri-template", true),
    ("json-pointer", true),
    ("relative-json-pointer", true),
    ("regex", true),
];

// ---------------------------------------------------------------------------------------------
// The tests.

#[test]
fn the_golden_schemas_accept_exactly_what_the_oracle_accepts() {
    let cases: Vec<Case> = golden_schemas()
        .iter()
        .map(|(name, schema)| Case::new(name, schema, true))
        .collect();
    assert!(cases.len() >= 15, "{} golden schemas", cases.len());
    run_cases(&cases, 300);
}

#[test]
fn schemas_of_rust_types_accept_exactly_what_the_oracle_accepts() {
    let cases: Vec<Case> = type_schemas()
        .iter()
        .map(|(name, schema)| Case::new(name, schema, true))
        .collect();
    run_cases(&cases, 1500);
}

#[test]
fn every_keyword_accepts_exactly_what_the_oracle_accepts() {
    let cases: Vec<Case> = keyword_schemas()
        .into_iter()
        .filter(|(name, _, _)| {
            !FORMATS
                .iter()
                .any(|(f, checked)| !checked && name.ends_with(f))
        })
        .map(|(name, schema, messages)| Case::new(&name, &wrap(schema), messages))
        .collect();
    run_cases(&cases, 400);
}

#[test]
fn formats_the_oracle_does_not_check() {
    let check = |format: &str, text: &str| {
        let provider = echo_provider(&wrap(json!({"type": "string", "format": format}))).unwrap();
        Consumer::new(&provider)
            .execute("echo", &json!({ "v": text }).to_string())
            .is_success()
    };
    for valid in [
        "bücher.example",
        "例え.テスト",
        "xn--bcher-kva.example",
        "l·l.example",
    ] {
        assert!(check("idn-hostname", valid), "{valid}");
    }
    for invalid in [
        "",
        "-bücher.example",
        "bü_cher.example",
        "☃.example",
        "a·b.example",
        "example.com.",
    ] {
        assert!(!check("idn-hostname", invalid), "{invalid}");
    }
    assert!(check("idn-email", "bücher@bücher.example"));
    assert!(check("idn-email", "\"ü\"@example.com"));
    assert!(!check("idn-email", "bücher@☃.example"));
    assert!(!check("idn-email", "no-at-sign"));
}

/// Pattern pieces: enough to build most of what ECMA-262 and its neighbours write.
const PIECES: &[&str] = &[
    "a",
    "b",
    "é",
    "🌱",
    "0",
    "-",
    ",",
    "\\d",
    "\\w",
    "\\s",
    "\\D",
    "\\W",
    "\\S",
    "\\b",
    "\\1",
    "\\k<n>",
    "(",
    ")",
    "(?:",
    "(?=",
    "(?!",
    "(?<=",
    "(?<n>",
    "(?i:",
    "(?-i:",
    "(?s:",
    "[",
    "]",
    "[^",
    "a-z",
    "^",
    "$",
    ".",
    "*",
    "+",
    "?",
    "{",
    "}",
    "{2}",
    "{1,3}",
    "{2,1}",
    "|",
    "\\",
    "\\u0041",
    "\\u{1F331}",
    "\\x4",
    "\\x41",
    "\\c",
    "\\cA",
    "\\0",
    "\\p{L}",
    "\\pL",
    "\\-",
    "\\/",
    "\\]",
    "\\.",
    "(?i)",
    "[[:alpha:]]",
    "\\A",
    "\\z",
];

fn pattern_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..7).prop_map(|p| p.concat())
}

#[test]
fn the_regex_format_accepts_exactly_the_ecma_262_patterns_the_oracle_accepts() {
    let case = Case::new(
        "format regex",
        &wrap(json!({"type": "string", "format": "regex"})),
        true,
    );
    let mut runner = TestRunner::new(Config {
        cases: 4000,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&pattern_strategy(), |pattern| {
            case.compare(&json!({ "v": pattern }))
                .map_err(TestCaseError::fail)
        })
        .unwrap();
}

const MATCH_CHARS: &[char] = &[
    'a', 'A', 'b', 'z', 'é', 'É', '🌱', '0', '5', '-', ',', ' ', '\n', '\r', '\u{2028}', '\u{A0}',
    '_', 'K', 'k', '\u{212A}',
];

#[test]
fn patterns_match_as_the_oracle_matches() {
    let regex_format = oracle(&json!({"format": "regex"}));
    let mut runner = TestRunner::new(Config {
        cases: 3000,
        failure_persistence: None,
        ..Config::default()
    });
    let texts = prop::collection::vec(
        prop::collection::vec(prop::sample::select(MATCH_CHARS), 0..6)
            .prop_map(|c| c.into_iter().collect::<String>()),
        8,
    );
    let compared = Cell::new(0usize);
    runner
        .run(&(pattern_strategy(), texts), |(pattern, texts)| {
            let schema = wrap(json!({"type": "string", "pattern": pattern}));
            let ecma = regex_format.is_valid(&json!(pattern));
            match echo_provider(&schema) {
                Err(refusal) => {
                    // Refused: not ECMA-262, or a construct the linear engine lacks.
                    let unsupported = ["lookaround", "backreferences", "Unicode property"]
                        .iter()
                        .any(|what| refusal.contains(what));
                    prop_assert!(
                        !ecma || unsupported,
                        "{pattern:?} is ECMA-262, but the provider refused it: {refusal}"
                    );
                    prop_assert!(
                        refusal.contains(&format!("`{pattern}`"))
                            && refusal.contains("/properties/v/pattern"),
                        "{refusal}"
                    );
                }
                Ok(provider) => {
                    prop_assert!(
                        ecma,
                        "{pattern:?} is not ECMA-262, but the provider took it"
                    );
                    let Ok(theirs) = jsonschema::draft202012::options()
                        .with_pattern_options(jsonschema::PatternOptions::regex())
                        .build(&json!({"pattern": pattern}))
                    else {
                        // ECMA-262 the oracle's Rust syntax lacks (`\0`, `[\b]`, …).
                        return Ok(());
                    };
                    let unicode_boundary = pattern.contains("\\b") || pattern.contains("\\B");
                    let dot_all = pattern.contains("(?s:");
                    for text in texts {
                        if unicode_boundary && !text.is_ascii() {
                            continue; // ECMA-262's `\b` is ASCII; the oracle's is Unicode.
                        }
                        if dot_all && text.contains(['\n', '\r', '\u{2028}']) {
                            continue; // The oracle's `.` stops at line terminators under `s` too.
                        }
                        let mine = Consumer::new(&provider)
                            .execute("echo", &json!({ "v": text }).to_string())
                            .is_success();
                        prop_assert_eq!(
                            mine,
                            theirs.is_valid(&json!(text)),
                            "{:?} on {:?}",
                            pattern,
                            text
                        );
                        compared.set(compared.get() + 1);
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(
        compared.get() > 2000,
        "only {} texts compared",
        compared.get()
    );
}

#[test]
fn integer_valued_numbers_reach_the_tool_as_integers() {
    let provider = echo_provider(&json!({
        "type": "object",
        "properties": {
            "id": {"type": "integer", "minimum": 0},
            "ids": {"type": "array", "items": {"type": "integer"}},
            "share": {"type": "number"}
        }
    }))
    .unwrap();
    let echoed = Consumer::new(&provider)
        .execute(
            "echo",
            r#"{"id": 1.0, "ids": [-0, 2.0, -3.0], "share": 1.0}"#,
        )
        .data()
        .unwrap()
        .to_owned();
    assert_eq!(echoed, r#"{"id":1,"ids":[0,2,-3],"share":1.0}"#);
}

/// Returns the id it was given.
#[cetp_provider::tool]
fn note_id(
    /// The note id.
    id: u64,
    /// A signed offset.
    offset: Option<i32>,
) -> String {
    format!("{id} {offset:?}")
}

#[test]
fn integer_valued_numbers_deserialize_into_rust_integers() {
    let provider = Provider::builder("Notes")
        .tools(cetp_provider::tools![note_id])
        .auth(Auth::open())
        .build()
        .unwrap();
    let consumer = Consumer::new(&provider);
    for (args, answer) in [
        (r#"{"id": 1.0}"#, "1 None"),
        (r#"{"id": -0}"#, "0 None"),
        (r#"{"id": 7, "offset": -2.0}"#, "7 Some(-2)"),
        (r#"{"id": 3e2}"#, "300 None"),
    ] {
        let reply = consumer.execute("note_id", args);
        assert_eq!(
            reply.data_json().ok(),
            Some(json!(answer)),
            "{args}: {reply}"
        );
    }
    let fraction = consumer.execute("note_id", r#"{"id": 1.5}"#);
    assert_eq!(
        fraction.error_message(),
        Some(
            "invalid arguments for `note_id`: at `/id`: 1.5 is not of type \"integer\". \
             Expected {id: integer (required), offset: integer}."
        )
    );
}

#[test]
fn the_oracle_corpus_covers_every_keyword_a_schema_can_carry() {
    let mut seen = BTreeMap::<String, usize>::new();
    fn walk(schema: &Value, seen: &mut BTreeMap<String, usize>) {
        let Value::Object(map) = schema else {
            return;
        };
        for (keyword, value) in map {
            *seen.entry(keyword.clone()).or_default() += 1;
            match keyword.as_str() {
                "properties" | "patternProperties" | "dependentSchemas" => {
                    value
                        .as_object()
                        .into_iter()
                        .flatten()
                        .for_each(|(_, s)| walk(s, seen));
                }
                "prefixItems" | "allOf" | "anyOf" | "oneOf" => {
                    value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .for_each(|s| walk(s, seen));
                }
                "enum" | "const" | "default" | "examples" | "required" | "dependentRequired" => {}
                _ => walk(value, seen),
            }
        }
    }
    for (_, schema) in golden_schemas().iter().chain(&type_schemas()) {
        walk(schema, &mut seen);
    }
    for (_, schema, _) in keyword_schemas() {
        walk(&schema, &mut seen);
    }
    for keyword in [
        "type",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
        "minContains",
        "maxContains",
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "dependentRequired",
        "dependentSchemas",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
    ] {
        assert!(
            seen.contains_key(keyword),
            "no schema in the corpus uses `{keyword}`"
        );
    }
}

#[test]
fn keywords_the_validator_does_not_check_fail_the_build_with_their_place() {
    for (schema, named) in [
        (
            // (`$ref` and `$defs` are refused earlier, as a recursive type.)
            json!({"type": "object", "properties": {"a": {"$anchor": "a"}}}),
            "`$anchor` at `/properties/a/$anchor`",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string", "x": 1}}}),
            "`x` at `/properties/a/x`",
        ),
        (
            // (A `format` JSON Schema does not define never gets here: the normalizer drops it.)
            json!({"type": "object", "properties": {"a": {"dependencies": {"b": ["c"]}}}}),
            "`dependencies` at `/properties/a/dependencies`",
        ),
        (
            json!({"type": "object", "unevaluatedProperties": false, "properties": {}}),
            "`unevaluatedProperties` at `/unevaluatedProperties`",
        ),
        (
            json!({"type": "object", "properties": {"a": {"items": [true]}}}),
            "`items` at `/properties/a/items`",
        ),
    ] {
        let error = echo_provider(&schema)
            .err()
            .unwrap_or_else(|| panic!("{schema} built"));
        assert!(error.contains(named), "{error}");
    }
}
