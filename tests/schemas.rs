//! Golden tests of the schemas `list_tools` advertises, and of their compatibility with the LLM
//! APIs' rules.
//!
//! Each tool's `parameters` is compared with `tests/golden/<tool>.json`, its `output_schema`
//! with `tests/golden/output/<tool>.json`, and a whole `list_tools` answer with
//! `tests/golden/list_tools.json`. After an intended change, regenerate the files with
//! `CETP_BLESS=1 cargo test -p cetp-tests --test schemas` and review the diff.

use std::path::PathBuf;

use cetp_provider::testing::{Agent, check_conformance};
use cetp_provider::{CallContext, Provider, Tool, ToolError, tool, tools};
use cetp_schema_report::{Api, ConformanceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Returns the provider's clock time as an RFC 3339 string.
#[tool]
fn server_time() -> String {
    "2026-11-30T12:00:00Z".to_owned()
}

/// Lists the most recent notes.
#[tool]
fn list_recent(
    /// How many notes to return (default 20).
    limit: Option<u32>,
    /// Only notes carrying this tag.
    tag: Option<String>,
) -> Vec<String> {
    let _ = (limit, tag);
    Vec::new()
}

/// A rectangle on the map, in degrees.
#[derive(Deserialize, JsonSchema)]
pub struct BoundingBox {
    /// Northern edge latitude.
    #[schemars(range(min = -90.0, max = 90.0))]
    pub north: f64,
    /// Southern edge latitude.
    #[schemars(range(min = -90.0, max = 90.0))]
    pub south: f64,
    /// Corner points are given as a pair.
    pub corner: Point,
}

/// A point on the map.
#[derive(Deserialize, JsonSchema)]
pub struct Point {
    /// Latitude in degrees.
    pub lat: f64,
    /// Longitude in degrees.
    pub lon: f64,
}

/// Finds saved places inside an area.
#[tool]
fn find_places(
    /// The area to search.
    area: BoundingBox,
) -> Vec<String> {
    let _ = area;
    Vec::new()
}

/// What a transaction is for.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Food and drink.
    Groceries,
    /// Rent, power, water.
    Housing,
    /// Buses, trains, fuel.
    Transport,
}

/// Plain, undocumented variants.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    Week,
    Month,
    Year,
}

/// Sums spending in one category.
#[tool]
fn category_total(
    /// The category to sum.
    category: Category,
    /// The period to sum over.
    period: Period,
) -> f64 {
    let _ = (category, period);
    0.0
}

/// One line of a receipt.
#[derive(Deserialize, JsonSchema)]
pub struct LineItem {
    /// What was bought.
    pub name: String,
    /// How many.
    #[schemars(range(min = 1))]
    pub quantity: u32,
    /// Unit price in cents.
    pub unit_cents: i64,
}

/// Adds up a receipt.
#[tool]
fn receipt_total(
    /// The lines of the receipt.
    #[schemars(length(min = 1, max = 100))]
    items: Vec<LineItem>,
) -> i64 {
    items
        .iter()
        .map(|i| i64::from(i.quantity) * i.unit_cents)
        .sum()
}

/// Pages through search results.
#[tool]
fn paged_search(
    /// Page size.
    #[schemars(range(min = 1, max = 100))]
    limit: u32,
    /// Zero-based page number.
    #[schemars(range(max = 1000))]
    page: Option<u16>,
    /// Minimum relevance score.
    #[schemars(range(min = 0.0, max = 1.0))]
    min_score: Option<f32>,
) -> Vec<String> {
    let _ = (limit, page, min_score);
    Vec::new()
}

/// Looks up a contact.
#[tool]
fn find_contact(
    /// Part of the contact's name.
    #[schemars(length(min = 2, max = 64))]
    name: String,
    /// Their e-mail address.
    #[schemars(email)]
    email: Option<String>,
    /// Phone number in international format.
    #[schemars(regex(pattern = r"^\+[0-9]{6,15}$"))]
    phone: Option<String>,
    /// Born on or after this day (YYYY-MM-DD).
    #[schemars(extend("format" = "date"))]
    born_after: Option<String>,
) -> Vec<String> {
    let _ = (name, email, phone, born_after);
    Vec::new()
}

/// A filter with optional parts at every level.
#[derive(Deserialize, JsonSchema)]
pub struct Filter {
    /// Restrict by time.
    pub range: Option<TimeRange>,
    /// Restrict by tags.
    pub tags: Option<Vec<String>>,
}

/// A time range; either end may be open.
#[derive(Deserialize, JsonSchema)]
pub struct TimeRange {
    /// Start, Unix seconds.
    pub from: Option<i64>,
    /// End, Unix seconds.
    pub to: Option<Option<i64>>,
}

/// Counts events matching an optional filter.
#[tool]
fn count_events(
    /// The filter; all events when absent.
    filter: Option<Filter>,
) -> u64 {
    let _ = filter;
    0
}

/// One line of a spending summary.
#[derive(Serialize, JsonSchema)]
pub struct SummaryLine {
    /// The category.
    pub category: Category,
    /// Cents spent.
    pub cents: i64,
}

/// A spending summary.
#[derive(Serialize, JsonSchema)]
pub struct Summary {
    /// Cents spent in all.
    pub total_cents: i64,
    /// The largest merchant, if any.
    pub top_merchant: Option<String>,
    /// Per category, largest first.
    pub lines: Vec<SummaryLine>,
}

/// Summarizes this month's spending.
#[tool(title = "Spending summary", idempotent)]
fn spending_summary() -> Result<Summary, ToolError> {
    Ok(Summary {
        total_cents: 1250,
        top_merchant: None,
        lines: vec![SummaryLine {
            category: Category::Groceries,
            cents: 1250,
        }],
    })
}

fn provider() -> Provider {
    Provider::builder("Golden")
        .tools(tools![
            server_time,
            list_recent,
            find_places,
            category_total,
            receipt_total,
            paged_search,
            find_contact,
            count_events,
            spending_summary,
        ])
        .build()
        .expect("the golden provider builds")
}

fn golden_path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("golden")
        .join(format!("{file}.json"))
}

/// Compares `value` with `tests/golden/<file>.json` (or writes it under `CETP_BLESS`); a
/// mismatch is pushed onto `mismatches`.
fn compare_golden(file: &str, value: &Value, mismatches: &mut Vec<String>) {
    let actual = serde_json::to_string_pretty(value).unwrap() + "\n";
    let path = golden_path(file);
    if std::env::var_os("CETP_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with CETP_BLESS=1)", path.display()));
    if expected != actual {
        mismatches.push(format!(
            "{file}:\n--- expected\n{expected}--- actual\n{actual}"
        ));
    }
}

#[test]
fn schemas_match_the_golden_files() {
    let mut mismatches = Vec::new();
    let mut outputs = 0;
    for tool in provider().tools() {
        compare_golden(&tool.name, &tool.parameters, &mut mismatches);
        if let Some(output) = tool.output_schema() {
            compare_golden(&format!("output/{}", tool.name), output, &mut mismatches);
            outputs += 1;
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert_eq!(
        outputs,
        provider().tools().len(),
        "every golden tool returns a JsonSchema type"
    );
}

/// Title, hints and output schema of a tool, and its arguments, as an agent receives them.
#[test]
fn list_tools_matches_the_golden_file() {
    let provider = Provider::builder("Golden")
        .tools(tools![spending_summary, list_recent, find_places])
        .auth(cetp_provider::auth::Auth::open())
        .build()
        .unwrap();
    let data = Agent::new(&provider).list_tools().data_json().unwrap();
    let mut mismatches = Vec::new();
    compare_golden("list_tools", &data, &mut mismatches);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// A tool whose result type has no `JsonSchema` advertises no `output_schema`.
#[test]
fn a_result_without_json_schema_has_no_output_schema() {
    #[derive(Serialize)]
    struct Opaque {
        n: u8,
    }

    /// Returns something opaque.
    #[tool]
    fn opaque() -> Opaque {
        Opaque { n: 1 }
    }

    let provider = Provider::builder("Opaque")
        .tools(tools![opaque])
        .auth(cetp_provider::auth::Auth::open())
        .build()
        .unwrap();
    assert_eq!(provider.tools()[0].output_schema(), None);
    let data = Agent::new(&provider).list_tools().data_json().unwrap();
    assert!(data["tools"][0].get("output_schema").is_none(), "{data}");
    assert_eq!(data["tools"][0]["title"], "Opaque");
    assert_eq!(
        data["tools"][0]["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false})
    );
}

/// In a debug build a result that breaks its advertised output schema is an internal error,
/// not a silent lie to the agent.
#[test]
fn a_result_that_breaks_its_output_schema_is_refused_in_debug_builds() {
    /// A count that lies about itself.
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Count {
        /// How many.
        n: u8,
    }

    struct Liar;
    impl Tool for Liar {
        type Args = NoArgs;
        type Output = Value;
        const NAME: &'static str = "liar";
        const DESCRIPTION: &'static str = "Claims a `Count` and returns something else.";
        fn output_schema() -> Option<Result<Value, cetp_provider::schema::SchemaError>> {
            Some(cetp_provider::schema::output_schema::<Count>())
        }
        fn call(&self, _: NoArgs, _: &CallContext) -> Result<Value, ToolError> {
            Ok(json!({"n": 300}))
        }
    }

    let provider = Provider::builder("Liar")
        .tool(Liar)
        .auth(cetp_provider::auth::Auth::open())
        .build()
        .unwrap();
    let answer = Agent::new(&provider).execute("liar", "{}");
    if cfg!(debug_assertions) {
        assert_eq!(
            answer.error_code(),
            Some(cetp_provider::ErrorCode::InternalError)
        );
        let message = answer.error_message().unwrap();
        assert!(
            message.contains("output schema") && message.contains("/n"),
            "{message}"
        );
    } else {
        assert!(answer.is_success(), "{answer}");
    }
}

/// No arguments.
#[derive(Deserialize, JsonSchema)]
pub struct NoArgs {}

/// The arguments of a [`Crafted`] tool: a hand-made schema.
pub struct CraftedArgs<const N: usize>;

impl<'de, const N: usize> Deserialize<'de> for CraftedArgs<N> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| CraftedArgs)
    }
}

impl<const N: usize> JsonSchema for CraftedArgs<N> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Crafted{N}").into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let schema = match N {
            // OpenAI (non-strict): an array without `items`.
            0 => json!({"type": "object", "properties": {"tags": {"type": "array"}}}),
            // Anthropic (non-strict): `anyOf` at the root.
            1 => {
                json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                "anyOf": [{"required": ["a"]}, {"required": ["b"]}]})
            }
            // OpenAI strict: an optional property.
            2 => json!({"type": "object", "properties": {"q": {"type": "string"}}}),
            // Anthropic strict: a numeric bound.
            3 => json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}},
                "required": ["n"]}),
            // Gemini: a property name Vertex refuses.
            4 => json!({"type": "object", "properties": {"min-score": {"type": "number"}}}),
            // Portable core: a `pattern`.
            _ => {
                json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}})
            }
        };
        schemars::Schema::try_from(schema).unwrap()
    }
}

/// A hand-written tool with schema number `N` of [`CraftedArgs`].
pub struct Crafted<const N: usize>;

impl<const N: usize> Tool for Crafted<N> {
    type Args = CraftedArgs<N>;
    type Output = ();
    const NAME: &'static str = "crafted";
    const DESCRIPTION: &'static str = "A tool with a hand-made schema.";
    fn call(&self, _: CraftedArgs<N>, _: &CallContext) -> Result<(), ToolError> {
        Ok(())
    }
}

fn crafted<T: Tool>(tool: T) -> Provider {
    Provider::builder("Crafted")
        .tool(tool)
        .restate_constraints(false)
        .auth(cetp_provider::auth::Auth::open())
        .build()
        .unwrap()
}

/// For each API's rule set, a deliberately incompatible schema: `check_conformance` passes
/// (CETP allows it) with a warning, which `require` turns into an error for that API only.
#[test]
fn check_conformance_flags_a_schema_each_api_rejects() {
    let cases: Vec<(Provider, Api, &str)> = vec![
        (
            crafted(Crafted::<0>),
            Api::OpenAi,
            "`items` at /properties/tags",
        ),
        (crafted(Crafted::<1>), Api::Anthropic, "`anyOf` at /"),
        (
            crafted(Crafted::<2>),
            Api::OpenAiStrict,
            "`required` at /properties/q",
        ),
        (
            crafted(Crafted::<3>),
            Api::AnthropicStrict,
            "`maximum` at /properties/n",
        ),
        (
            crafted(Crafted::<4>),
            Api::Gemini,
            "`min-score` at /properties/min-score",
        ),
        (
            crafted(Crafted::<5>),
            Api::Portable,
            "`pattern` at /properties/code",
        ),
    ];
    for (provider, api, expected) in cases {
        let conformance = check_conformance(&provider).expect("CETP v1 conformant");
        let warnings = conformance.warnings();
        assert!(
            warnings
                .iter()
                .any(|w| w.contains(&format!("{api}: {expected}"))),
            "{api}: {warnings:#?}"
        );
        let error = conformance.require(&[api]).unwrap_err().to_string();
        assert!(error.contains(expected), "{api}: {error}");
    }
    // The two lenient APIs accept what the others reject.
    let strict_only = check_conformance(&crafted(Crafted::<3>)).unwrap();
    strict_only.require(&[Api::OpenAi, Api::Anthropic]).unwrap();
}

/// What the report says about the golden tools, as the README claims it.
#[test]
fn the_golden_schemas_pass_the_lenient_apis() {
    let conformance = check_conformance(
        &Provider::builder("Golden")
            .tools(tools![
                server_time,
                list_recent,
                find_places,
                category_total,
                receipt_total,
                paged_search,
                find_contact,
                count_events,
                spending_summary,
            ])
            .auth(cetp_provider::auth::Auth::open())
            .build()
            .unwrap(),
    )
    .unwrap();
    conformance.require(&[Api::OpenAi, Api::Anthropic]).unwrap();
    // Every schema closes its objects, which Gemini's subset does not know.
    assert!(conformance.require(&[Api::Gemini]).is_err());
}

/// Walks every subschema and checks the constructs LLM clients reject are gone.
fn assert_llm_safe(tool: &str, path: &str, schema: &Value) {
    match schema {
        Value::Object(obj) => {
            for banned in [
                "$ref",
                "$defs",
                "$schema",
                "definitions",
                "nullable",
                "const",
            ] {
                assert!(
                    !obj.contains_key(banned),
                    "{tool}{path}: `{banned}` survived"
                );
            }
            if let Some(t) = obj.get("type") {
                assert!(t.is_string(), "{tool}{path}: type {t} is not a single type");
                assert_ne!(t, "null", "{tool}{path}: a null type survived");
            }
            for (key, child) in obj {
                assert_llm_safe(tool, &format!("{path}/{key}"), child);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                assert_llm_safe(tool, &format!("{path}/{i}"), item);
            }
        }
        _ => {}
    }
}

#[test]
fn every_schema_is_an_llm_safe_object_schema() {
    for tool in provider().tools() {
        let p = &tool.parameters;
        assert_eq!(p["type"], "object", "{}", tool.name);
        assert!(p["properties"].is_object(), "{}", tool.name);
        assert_eq!(p["additionalProperties"], false, "{}", tool.name);
        assert!(p.get("title").is_none(), "{}", tool.name);
        assert_llm_safe(&tool.name, "", p);
    }
}

#[test]
fn optional_parameters_are_not_required() {
    let provider = provider();
    let by_name = |n: &str| {
        provider
            .tools()
            .iter()
            .find(|t| t.name == n)
            .unwrap()
            .parameters
            .clone()
    };
    assert!(by_name("list_recent").get("required").is_none());
    assert_eq!(
        by_name("paged_search")["required"],
        serde_json::json!(["limit"])
    );
    assert_eq!(
        by_name("find_contact")["required"],
        serde_json::json!(["name"])
    );
}

#[test]
fn documented_enum_variants_become_one_enum_with_their_docs() {
    let provider = provider();
    let total = provider
        .tools()
        .iter()
        .find(|t| t.name == "category_total")
        .unwrap();
    let category = &total.parameters["properties"]["category"];
    assert_eq!(
        category["enum"],
        serde_json::json!(["groceries", "housing", "transport"])
    );
    let doc = category["description"].as_str().unwrap();
    assert!(doc.starts_with("The category to sum."), "{doc}");
    assert!(
        doc.ends_with("\"housing\" = Rent, power, water; \"transport\" = Buses, trains, fuel."),
        "{doc}"
    );
}

#[test]
fn a_recursive_argument_type_fails_the_build_with_a_clear_error() {
    /// A tree of folders.
    #[derive(Deserialize, JsonSchema)]
    pub struct Folder {
        /// Child folders.
        pub children: Vec<Folder>,
    }

    /// Counts folders.
    #[tool]
    fn count_folders(
        /// The root folder.
        root: Folder,
    ) -> usize {
        root.children.len()
    }

    let err = Provider::builder("Recursive")
        .tools(tools![count_folders])
        .build()
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("count_folders") && message.contains("recursive"),
        "{message}"
    );
}
