//! The expenses provider, driven the way an agent app drives it: through `execute_tool`, after
//! the user approved the agent. Expected totals are recomputed from the ledger independently.

use cetp_provider::testing::Agent;
use cetp_provider::{AccessLevel, ErrorCode, Provider};
use std::sync::LazyLock;

use cetp_sample_expenses::ledger::{Expense, Ledger};
use cetp_sample_expenses::{Category, provider};
use chrono::NaiveDate;
use serde_json::{Value, json};
use tempfile::TempDir;

struct App {
    provider: Provider,
    _files_dir: TempDir,
}

impl App {
    /// Started (grant store in a fresh directory) with the default agent approved at `access`.
    fn approved(access: AccessLevel) -> App {
        let app = App::start();
        let first = app.agent().execute("spending_by_category", "{}");
        assert_eq!(first.error_code(), Some(ErrorCode::AuthRequired), "{first}");
        app.agent().approve(access).expect("the approval is stored");
        app
    }

    fn start() -> App {
        let files_dir = tempfile::tempdir().unwrap();
        let app = cetp_provider::App::new("dev.cetp.samples.expenses", files_dir.path());
        let provider = provider(Ledger::demo())
            .app(app)
            .build()
            .expect("the provider builds and its grant store opens");
        App {
            provider,
            _files_dir: files_dir,
        }
    }

    fn agent(&self) -> Agent<'_> {
        Agent::new(&self.provider)
    }

    fn data(&self, tool: &str, args: Value) -> Value {
        let answer = self.agent().execute(tool, &args.to_string());
        answer
            .data_json()
            .unwrap_or_else(|e| panic!("{tool} {args}: {e}"))
    }

    fn error(&self, tool: &str, args: Value) -> (ErrorCode, String) {
        let answer = self.agent().execute(tool, &args.to_string());
        match (answer.error_code(), answer.error_message()) {
            (Some(code), Some(message)) => (code, message.to_owned()),
            _ => panic!("{tool} {args} should fail, got {answer}"),
        }
    }
}

fn day(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

/// The ledger's expenses from `from` to `to` that pass `keep`.
fn ledger_between(from: &str, to: &str, keep: impl Fn(&Expense) -> bool) -> Vec<&'static Expense> {
    let (from, to) = (day(from), day(to));
    static LEDGER: LazyLock<Ledger> = LazyLock::new(Ledger::demo);
    LEDGER
        .expenses()
        .iter()
        .filter(|e| e.date >= from && e.date <= to && keep(e))
        .collect()
}

fn euros(expenses: &[&Expense]) -> f64 {
    expenses.iter().map(|e| e.cents).sum::<i64>() as f64 / 100.0
}

fn march_2025() -> Value {
    json!({"from": "2025-03-01", "to": "2025-03-31"})
}

#[test]
fn an_approved_agent_gets_a_conformant_provider() {
    let app = App::approved(AccessLevel::Full);
    app.agent().check_conformance().unwrap();
}

#[test]
fn an_approved_agent_gets_a_cetp_v2_conformant_provider() {
    let app = App::approved(AccessLevel::Full);
    app.agent().check_v2_conformance().unwrap();
}

#[test]
fn the_schemas_show_enums_ranges_and_nested_objects() {
    let app = App::start();
    let list = app.agent().list_tools().data_json().unwrap();
    let tools = list["tools"].as_array().unwrap();
    let over_time = &tools[1]["parameters"];
    assert_eq!(tools[1]["name"], "spending_over_time");
    assert_eq!(over_time["required"], json!(["range", "period"]));
    assert_eq!(
        over_time["properties"]["period"]["enum"],
        json!(["day", "week", "month"])
    );
    let range = &over_time["properties"]["range"];
    assert_eq!(range["type"], "object");
    assert_eq!(range["required"], json!(["from", "to"]));
    assert_eq!(range["additionalProperties"], false);
    assert_eq!(range["properties"]["from"]["format"], "date");
    let filter = &over_time["properties"]["filter"];
    assert_eq!(filter["additionalProperties"], false);
    assert_eq!(
        filter["properties"]["categories"]["items"]["enum"]
            .as_array()
            .unwrap()
            .len(),
        9
    );
    assert_eq!(filter["properties"]["min_amount"]["minimum"], 0.0);
    let top = &tools[2]["parameters"]["properties"]["limit"];
    assert_eq!(
        (top["minimum"].as_u64(), top["maximum"].as_u64()),
        (Some(1), Some(25))
    );
}

/// Every tool advertises the JSON Schema of its result; debug builds check each result
/// against it before replying, so the successful calls of these tests are checked too.
#[test]
fn every_tool_advertises_its_output_schema() {
    let app = App::approved(AccessLevel::Full);
    let list = app.agent().list_tools().data_json().unwrap();
    let schemas: Vec<&Value> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["output_schema"])
        .collect();
    assert_eq!(schemas[0]["type"], "object");
    assert_eq!(
        schemas[0]["properties"]["categories"]["items"]["properties"]["category"]["enum"][0],
        "groceries"
    );
    assert_eq!(schemas[1]["type"], "array");
    assert_eq!(
        schemas[1]["items"]["properties"]["starts"]["format"],
        "date"
    );
    assert_eq!(schemas[2]["items"]["required"][0], "merchant");
    let range = json!({"range": {"from": "2025-03-01", "to": "2025-03-31"}});
    for (tool, mut args) in [
        ("spending_by_category", range.clone()),
        ("spending_over_time", range.clone()),
        ("top_merchants", range),
    ] {
        if tool == "spending_over_time" {
            args["period"] = json!("week");
        }
        assert!(!app.data(tool, args).is_null());
    }
}

#[test]
fn calls_need_the_users_approval() {
    let app = App::start();
    let answer = app.agent().execute(
        "spending_by_category",
        &json!({"range": march_2025()}).to_string(),
    );
    assert_eq!(answer.error_code(), Some(ErrorCode::AuthRequired));
    assert_eq!(
        answer.get("authorize_intent"),
        Some("dev.cetp.samples.expenses.CETP_AUTHORIZE")
    );
}

#[test]
fn spending_by_category_totals_a_month() {
    let app = App::approved(AccessLevel::Full);
    let report = app.data("spending_by_category", json!({"range": march_2025()}));
    let expected = ledger_between("2025-03-01", "2025-03-31", |_| true);
    assert_eq!(report["count"], expected.len());
    assert_eq!(report["total"].as_f64().unwrap(), euros(&expected));
    let categories = report["categories"].as_array().unwrap();
    let totals: Vec<f64> = categories
        .iter()
        .map(|c| c["total"].as_f64().unwrap())
        .collect();
    assert!(totals.windows(2).all(|w| w[0] >= w[1]), "{totals:?}");
    let housing = categories
        .iter()
        .find(|c| c["category"] == "housing")
        .unwrap();
    assert_eq!(housing["total"], 1250.0);
    let shares: f64 = categories
        .iter()
        .map(|c| c["share_percent"].as_f64().unwrap())
        .sum();
    assert!((99.0..=100.0).contains(&shares), "{shares}");
}

#[test]
fn filters_combine_categories_amounts_and_merchants() {
    let app = App::approved(AccessLevel::Full);
    let report = app.data(
        "spending_by_category",
        json!({"range": march_2025(), "filter": {"categories": ["dining", "groceries"], "min_amount": 20}}),
    );
    let expected = ledger_between("2025-03-01", "2025-03-31", |e| {
        matches!(e.category, Category::Dining | Category::Groceries) && e.cents >= 2_000
    });
    assert_eq!(report["count"], expected.len());
    assert_eq!(report["total"].as_f64().unwrap(), euros(&expected));
    assert!(report["categories"].as_array().unwrap().len() <= 2);

    let cafe = app.data(
        "top_merchants",
        json!({"range": {"from": "2025-01-01", "to": "2025-12-31"}, "filter": {"merchant": "CAFÉ"}}),
    );
    assert_eq!(cafe.as_array().unwrap().len(), 1);
    assert_eq!(cafe[0]["merchant"], "Café de Flore");
}

#[test]
fn spending_over_time_lists_every_iso_week_and_month() {
    let app = App::approved(AccessLevel::Full);
    let weeks = app.data(
        "spending_over_time",
        json!({"range": {"from": "2025-01-01", "to": "2025-01-31"}, "period": "week"}),
    );
    let labels: Vec<&str> = weeks
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["period"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        ["2025-W01", "2025-W02", "2025-W03", "2025-W04", "2025-W05"]
    );
    assert_eq!(weeks[0]["starts"], "2024-12-30");
    let sum: f64 = weeks
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["total"].as_f64().unwrap())
        .sum();
    let expected = euros(&ledger_between("2025-01-01", "2025-01-31", |_| true));
    assert!((sum - expected).abs() < 0.005, "{sum} vs {expected}");

    let months = app.data(
        "spending_over_time",
        json!({"range": {"from": "2024-01-01", "to": "2024-12-31"}, "period": "month", "filter": {"categories": ["housing"]}}),
    );
    let months = months.as_array().unwrap();
    assert_eq!(months.len(), 12);
    assert!(
        months
            .iter()
            .all(|m| m["total"] == 1250.0 && m["count"] == 1),
        "{months:?}"
    );

    let days = app.data(
        "spending_over_time",
        json!({"range": {"from": "2024-02-01", "to": "2024-02-29"}, "period": "day", "filter": {"categories": ["travel"]}}),
    );
    let days = days.as_array().unwrap();
    assert_eq!(days.len(), 29);
    assert!(days.iter().all(|d| d["total"] == 0.0 && d["count"] == 0));
}

#[test]
fn top_merchants_ranks_and_limits() {
    let app = App::approved(AccessLevel::Full);
    let year = json!({"from": "2025-01-01", "to": "2025-12-31"});
    let top = app.data("top_merchants", json!({"range": year, "limit": 3}));
    let top = top.as_array().unwrap();
    assert_eq!(top.len(), 3);
    assert_eq!(top[0]["merchant"], "Rent — Foncia");
    assert_eq!(top[0]["total"], 15_000.0);
    assert!(
        top.windows(2)
            .all(|w| w[0]["total"].as_f64() >= w[1]["total"].as_f64())
    );
    let default = app.data("top_merchants", json!({"range": year}));
    assert_eq!(default.as_array().unwrap().len(), 5);
}

#[test]
fn limited_callers_get_totals_but_no_merchants() {
    let app = App::approved(AccessLevel::Limited);
    assert!(
        app.data("spending_by_category", json!({"range": march_2025()}))["total"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    let (code, message) = app.error("top_merchants", json!({"range": march_2025()}));
    assert_eq!(code, ErrorCode::PermissionDenied);
    assert!(message.contains("spending_by_category"), "{message}");
    let (code, _) = app.error("export_expenses", json!({"range": march_2025()}));
    assert_eq!(
        code,
        ErrorCode::PermissionDenied,
        "single expenses are not totals"
    );
}

/// Two years of expenses with their line items are over the 256 KiB a reply carries: a CETP v2
/// agent that negotiated `large_results` gets them as a file (read-only, read once, its size
/// and digest right), one that did not gets `RESULT_TOO_LARGE`.
#[test]
fn a_two_year_export_reaches_a_cetp_v2_agent_as_a_large_result() {
    let app = App::approved(AccessLevel::Full);
    let args = json!({"range": {"from": "2024-01-01", "to": "2025-12-31"}}).to_string();
    let value = app
        .agent()
        .check_v2_large_result("export_expenses", &args)
        .unwrap();
    let lines = value.as_array().unwrap();
    let all = ledger_between("2024-01-01", "2025-12-31", |_| true);
    assert_eq!(lines.len(), all.len());
    let exported: f64 = lines.iter().map(|l| l["amount"].as_f64().unwrap()).sum();
    assert!((exported - euros(&all)).abs() < 0.005, "{exported}");
    assert!(
        lines
            .iter()
            .all(|l| !l["items"].as_array().unwrap().is_empty())
    );
    // A month fits inline.
    let month = app.data("export_expenses", json!({"range": march_2025()}));
    assert_eq!(
        month.as_array().unwrap().len(),
        ledger_between("2025-03-01", "2025-03-31", |_| true).len()
    );
}

#[test]
fn ranges_and_filters_that_make_no_sense_are_explained() {
    let app = App::approved(AccessLevel::Full);
    let (code, message) = app.error(
        "spending_by_category",
        json!({"range": {"from": "2025-03-31", "to": "2025-03-01"}}),
    );
    assert_eq!(code, ErrorCode::InvalidArgs);
    assert!(
        message.contains("`range.from` (2025-03-31) is after `range.to` (2025-03-01)"),
        "{message}"
    );

    let (code, message) = app.error(
        "spending_over_time",
        json!({"range": {"from": "2020-01-01", "to": "2025-12-31"}, "period": "month"}),
    );
    assert_eq!(code, ErrorCode::InvalidArgs);
    assert!(message.contains("at most 731 days"), "{message}");

    let (code, message) = app.error(
        "top_merchants",
        json!({"range": march_2025(), "filter": {"min_amount": 50, "max_amount": 20}}),
    );
    assert_eq!(code, ErrorCode::InvalidArgs);
    assert!(
        message.contains("`filter.min_amount` (50) is above `filter.max_amount` (20)"),
        "{message}"
    );
}

#[test]
fn arguments_outside_the_schema_are_invalid() {
    let app = App::approved(AccessLevel::Full);
    let cases = [
        ("spending_by_category", json!({})),
        (
            "spending_by_category",
            json!({"range": {"from": "2025-02-29", "to": "2025-03-01"}}),
        ),
        (
            "spending_by_category",
            json!({"range": {"from": "2025-03-01"}}),
        ),
        (
            "spending_by_category",
            json!({"range": march_2025(), "filter": {"categories": ["pets"]}}),
        ),
        (
            "spending_by_category",
            json!({"range": march_2025(), "filter": {"categories": []}}),
        ),
        (
            "spending_by_category",
            json!({"range": march_2025(), "filter": {"min_amount": -1}}),
        ),
        (
            "spending_by_category",
            json!({"range": march_2025(), "filter": {"currency": "USD"}}),
        ),
        (
            "spending_over_time",
            json!({"range": march_2025(), "period": "year"}),
        ),
        ("spending_over_time", json!({"range": march_2025()})),
        ("top_merchants", json!({"range": march_2025(), "limit": 0})),
        ("top_merchants", json!({"range": march_2025(), "limit": 26})),
    ];
    for (tool, args) in cases {
        let (code, message) = app.error(tool, args.clone());
        assert_eq!(code, ErrorCode::InvalidArgs, "{tool} {args}: {message}");
    }
}

/// Limited means noninterference: merchant names, hidden from a limited caller, must not
/// influence its answers. Two ledgers that differ only in merchant names answer every limited
/// call byte for byte the same, including the refused merchant filter.
#[test]
fn limited_answers_do_not_depend_on_merchants() {
    let renamed: Vec<Expense> = Ledger::demo()
        .expenses()
        .iter()
        .map(|e| Expense {
            merchant: Box::leak(format!("Shop {}", e.merchant.len() % 7).into_boxed_str()),
            ..e.clone()
        })
        .collect();
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let start = |ledger: Ledger, dir: &TempDir| {
        provider(ledger)
            .app(cetp_provider::App::new(
                "dev.cetp.samples.expenses",
                dir.path(),
            ))
            .build()
            .unwrap()
    };
    let left = start(Ledger::demo(), &dirs[0]);
    let right = start(Ledger::from(renamed), &dirs[1]);
    let range = r#"{"from":"2024-01-01","to":"2025-12-31"}"#;
    let mut calls: Vec<(&str, String)> = vec![
        ("spending_by_category", format!(r#"{{"range":{range}}}"#)),
        ("top_merchants", format!(r#"{{"range":{range}}}"#)),
    ];
    for period in ["day", "week", "month"] {
        calls.push((
            "spending_over_time",
            format!(r#"{{"range":{range},"period":"{period}"}}"#),
        ));
    }
    // The probes of a merchant name: each letter, and names of both ledgers.
    for merchant in ["a", "e", "Caf", "Lidl", "Shop", "Shop 3", "Uber"] {
        let filter = format!(r#""filter":{{"merchant":"{merchant}"}}"#);
        calls.push((
            "spending_by_category",
            format!(r#"{{"range":{range},{filter}}}"#),
        ));
        calls.push((
            "spending_over_time",
            format!(r#"{{"range":{range},"period":"month",{filter}}}"#),
        ));
    }
    calls.push((
        "spending_by_category",
        format!(r#"{{"range":{range},"filter":{{"categories":["dining"],"min_amount":20}}}}"#),
    ));
    let calls: Vec<(&str, &str)> = calls.iter().map(|(t, a)| (*t, a.as_str())).collect();
    cetp_provider::testing::check_noninterference(&left, &right, &calls).unwrap();

    // Full access does see the difference (the check would catch a leak).
    let full = |provider: &Provider| {
        let agent = Agent::new(provider);
        agent.approve(AccessLevel::Full).unwrap();
        agent
            .execute("top_merchants", &format!(r#"{{"range":{range}}}"#))
            .data_json()
            .unwrap()
    };
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let renamed_again: Vec<Expense> = Ledger::demo()
        .expenses()
        .iter()
        .map(|e| Expense {
            merchant: "Elsewhere",
            ..e.clone()
        })
        .collect();
    assert_ne!(
        full(&start(Ledger::demo(), &dirs[0])),
        full(&start(Ledger::from(renamed_again), &dirs[1]))
    );
}

#[test]
fn its_texts_speak_every_language_of_the_approval_screens() {
    let app = App::start();
    for &language in cetp_provider::localized::TEMPLATE_LANGUAGES {
        assert_eq!(
            app.provider.untranslated(language),
            Vec::<String>::new(),
            "{language}"
        );
    }
}
