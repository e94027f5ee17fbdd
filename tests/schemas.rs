//! Golden tests of the argument schemas `list_tools` advertises.
//!
//! Each tool's `parameters` is compared with `tests/golden/<tool>.json`. After an intended change,
//! regenerate the files with `CETP_BLESS=1 cargo test -p cetp-tests --test schemas` and review
//! the diff.

use std::path::PathBuf;

use cetp_provider::{Provider, tool, tools};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

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
#[derive(Deserialize, JsonSchema)]
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
        ])
        .build()
        .expect("the golden provider builds")
}

fn golden_path(tool: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("golden")
        .join(format!("{tool}.json"))
}

#[test]
fn schemas_match_the_golden_files() {
    let bless = std::env::var_os("CETP_BLESS").is_some();
    let mut mismatches = Vec::new();
    for tool in provider().tools() {
        let actual = serde_json::to_string_pretty(&tool.parameters).unwrap() + "\n";
        let path = golden_path(&tool.name);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with CETP_BLESS=1)", path.display()));
        if expected != actual {
            mismatches.push(format!(
                "{}:\n--- expected\n{expected}--- actual\n{actual}",
                tool.name
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
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
