//! The validator against an oracle: the `jsonschema` crate (draft 2020-12, formats checked,
//! patterns on its `regex` engine), a dev-dependency only. For hand-written schemas of every
//! keyword and format, it generates values around each schema's edges and checks that the
//! validator accepts exactly what the oracle accepts, reports as many violations, with the same
//! messages, and hands on the same value (optional properties set to `null` dropped,
//! integer-valued floats as integers), as `cetp-provider` uses it for a tool's arguments; and
//! that patterns are refused and matched as the oracle reads them. (The workspace tests run the
//! same comparison through a provider on the golden schemas, schemas of Rust types and each
//! sample's tools: `tests/validator_oracle.rs`, `tests/oracle_<sample>.rs`.)
//!
//! Where the two differ on purpose, the test says so and why:
//!
//! - `idn-hostname` and `idn-email`: the oracle, without its `idna` feature (as this SDK linked
//!   it), checks neither; the validator checks both (`formats_the_oracle_does_not_check`).
//! - Patterns are ECMA-262 here; the oracle reads them as Rust `regex` syntax after a
//!   translation. Rust-only syntax (`(?i)abc`, `\pL`, `[[:alpha:]]`) is refused, and `\p{…}`
//!   classes (which `regex-lite` lacks) too; `\b` is ECMA-262's ASCII word boundary, not
//!   Rust's Unicode one; and `.` inside `(?s:…)` matches line terminators, which the oracle's
//!   translation forgets (`patterns_match_as_the_oracle_matches`).
//! - A few messages are worded better: `additionalProperties: false` without `properties` lists
//!   the unexpected names (the oracle says "False schema does not allow" the first value),
//!   `minContains`/`maxContains` say how many items matched, and `propertyNames: false` names
//!   the property. The schemas using them are marked and only compared on acceptance and count.
//! - `multipleOf` with an integer divisor and a float past 2^53: the oracle divides the binary
//!   value nearest to `1e300`, the validator the decimal written (as the oracle does for a
//!   fractional divisor); such values are skipped where a schema has `multipleOf`.
//! - The order of violations is the validator's (required properties, then each property in
//!   the value's order, then the unexpected ones); the sets are compared.

mod oracle;

use std::cell::Cell;
use std::collections::BTreeMap;

use cetp_validator::Validator;
use oracle::{Answer, Case, Subject, oracle, run_cases, truncate, wrap};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// The validator under test.

/// The validator compiled from a schema, used as `cetp-provider` uses it for a tool's arguments:
/// optional properties set to `null` dropped, at most five violations written out (each cut at
/// 240 characters), integer-valued floats handed on as integers.
struct Engine(Validator);

impl Subject for Engine {
    fn answer(&self, value: &Value) -> Answer {
        let mut value = value.clone();
        self.0.drop_null_optionals(&mut value);
        let report = self.0.validate(&value, 5);
        if report.is_valid() {
            if report.floats_as_integers() {
                self.0.integers(&mut value);
            }
            return Answer::Accepted(value);
        }
        let listed: Vec<String> = report
            .violations()
            .iter()
            .map(|v| {
                let path = if v.path().is_empty() { "/" } else { v.path() };
                format!("at `{path}`: {}", truncate(v.message(), 240))
            })
            .collect();
        Answer::Refused {
            more: report.total() - listed.len(),
            listed,
        }
    }
}

/// A case for `schema`, checked by the validator compiled from it.
fn case(name: &str, schema: &Value, compare_messages: bool) -> Case {
    let validator = Validator::new(schema)
        .unwrap_or_else(|e| panic!("{name}: the validator refused {schema}: {e}"));
    Case::new(
        name,
        Box::new(Engine(validator)),
        schema.clone(),
        compare_messages,
    )
}

// ---------------------------------------------------------------------------------------------
// The schemas.

/// Every keyword, and every format JSON Schema 2020-12 defines, in schemas written by hand; `false`
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

/// The formats JSON Schema 2020-12 defines, and whether the oracle checks them.
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
fn every_keyword_accepts_exactly_what_the_oracle_accepts() {
    let cases: Vec<Case> = keyword_schemas()
        .into_iter()
        .filter(|(name, _, _)| {
            !FORMATS
                .iter()
                .any(|(f, checked)| !checked && name.ends_with(f))
        })
        .map(|(name, schema, messages)| case(&name, &wrap(schema), messages))
        .collect();
    run_cases(&cases, 400);
}

#[test]
fn formats_the_oracle_does_not_check() {
    let check = |format: &str, text: &str| {
        let validator = Validator::new(&wrap(json!({"type": "string", "format": format}))).unwrap();
        validator.validate(&json!({ "v": text }), 0).is_valid()
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
    let case = case(
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
            match Validator::new(&schema).map_err(|e| e.to_string()) {
                Err(refusal) => {
                    // Refused: not ECMA-262, or a construct the linear engine lacks.
                    let unsupported = ["lookaround", "backreferences", "Unicode property"]
                        .iter()
                        .any(|what| refusal.contains(what));
                    prop_assert!(
                        !ecma || unsupported,
                        "{pattern:?} is ECMA-262, but the validator refused it: {refusal}"
                    );
                    prop_assert!(
                        refusal.contains(&format!("`{pattern}`"))
                            && refusal.contains("/properties/v/pattern"),
                        "{refusal}"
                    );
                }
                Ok(validator) => {
                    prop_assert!(
                        ecma,
                        "{pattern:?} is not ECMA-262, but the validator took it"
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
                        let mine = validator.validate(&json!({ "v": text }), 0).is_valid();
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
