//! The argument validator against an oracle, the `jsonschema` crate, through a provider: for the
//! golden schemas and schemas of common Rust types (and, in `oracle_<sample>.rs`, each sample's
//! tools; one test binary per sample, as each exports its own `JNI_OnLoad`), it generates
//! argument values around each schema's edges and checks, through `Agent::execute` on a tool
//! that echoes its validated arguments, that the provider accepts exactly what the oracle
//! accepts, reports as many violations, with the same messages, and hands on the same value
//! (integer-valued floats as integers). The schemas are the ones the provider advertises, after
//! the SDK's normalization.
//!
//! The engine alone is compared with the oracle on a schema of every keyword and format, and on
//! generated patterns, in `cetp-validator/tests/validator_oracle.rs`, which also says where the
//! two differ on purpose.

mod provider_oracle;

use std::path::Path;

use cetp_provider::Provider;
use cetp_provider::auth::Auth;
use cetp_provider::testing::Agent;
use provider_oracle::{Case, case, echo_provider, run_cases, wrap};
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

// ---------------------------------------------------------------------------------------------
// The tests.

#[test]
fn the_golden_schemas_accept_exactly_what_the_oracle_accepts() {
    let cases: Vec<Case> = golden_schemas()
        .iter()
        .map(|(name, schema)| case(name, schema, true))
        .collect();
    assert!(cases.len() >= 15, "{} golden schemas", cases.len());
    run_cases(&cases, 300);
}

#[test]
fn schemas_of_rust_types_accept_exactly_what_the_oracle_accepts() {
    let cases: Vec<Case> = type_schemas()
        .iter()
        .map(|(name, schema)| case(name, schema, true))
        .collect();
    run_cases(&cases, 1500);
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
    let echoed = Agent::new(&provider)
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
    let agent = Agent::new(&provider);
    for (args, answer) in [
        (r#"{"id": 1.0}"#, "1 None"),
        (r#"{"id": -0}"#, "0 None"),
        (r#"{"id": 7, "offset": -2.0}"#, "7 Some(-2)"),
        (r#"{"id": 3e2}"#, "300 None"),
    ] {
        let reply = agent.execute("note_id", args);
        assert_eq!(
            reply.data_json().ok(),
            Some(json!(answer)),
            "{args}: {reply}"
        );
    }
    let fraction = agent.execute("note_id", r#"{"id": 1.5}"#);
    assert_eq!(
        fraction.error_message(),
        Some(
            "invalid arguments for `note_id`: at `/id`: 1.5 is not of type \"integer\". \
             Expected {id: integer (required), offset: integer}."
        )
    );
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
