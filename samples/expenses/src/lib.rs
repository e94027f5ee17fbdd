//! An expense tracker's spending reports for on-device agents, through CETP.
//!
//! This file is the integration: the argument types (enums, a nested range, an optional filter
//! with a list) whose JSON Schemas the agent sees, four `#[tool]` functions, the provider and the
//! export line. The aggregations are in `report.rs`, the export in `export.rs`, the data in
//! `ledger.rs`. Walkthrough:
//! `README.md`.

pub mod export;
pub mod ledger;
pub mod report;
mod texts;

use cetp_provider::{CallContext, Provider, ProviderBuilder, ToolError, tool, tools};
use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A spending category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Groceries,
    Dining,
    Transport,
    Housing,
    Utilities,
    Health,
    Entertainment,
    Shopping,
    Travel,
}

/// How to group totals over time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Period {
    /// One total per day.
    Day,
    /// One total per ISO week (Monday to Sunday), labelled like `2024-W09`.
    Week,
    /// One total per calendar month, labelled like `2024-03`.
    Month,
}

/// Days from `from` to `to`, both included, at most 731 days (two years).
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub struct DateRange {
    /// First day, `YYYY-MM-DD`.
    pub from: NaiveDate,
    /// Last day, `YYYY-MM-DD`, not before `from`.
    pub to: NaiveDate,
}

/// Which expenses to count; every condition given must hold.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct Filter {
    /// Only these categories.
    #[schemars(length(min = 1, max = 9))]
    pub categories: Option<Vec<Category>>,
    /// Only expenses of at least this many euros.
    #[schemars(range(min = 0.0, max = 1_000_000.0))]
    pub min_amount: Option<f64>,
    /// Only expenses of at most this many euros.
    #[schemars(range(min = 0.0, max = 1_000_000.0))]
    pub max_amount: Option<f64>,
    /// Only merchants whose name contains this text (case ignored), e.g. `café`. Not available
    /// when the user shares totals only.
    #[schemars(length(min = 1, max = 64))]
    pub merchant: Option<String>,
}

/// Totals the user's spending per category over a date range, largest first, with each
/// category's share. Amounts are in euros.
#[tool(scopes = ["expenses.read"])]
pub fn spending_by_category(
    /// The days to cover, at most two years.
    range: DateRange,
    /// Which expenses to count (all when absent).
    filter: Option<Filter>,
    ledger: &ledger::Ledger,
    ctx: &CallContext,
) -> Result<report::CategoryReport, ToolError> {
    report::by_category(ledger, &range, filter.as_ref(), ctx.access())
}

/// Totals the user's spending per day, ISO week or month over a date range, oldest first;
/// periods without spending are listed with 0. Amounts are in euros.
#[tool(scopes = ["expenses.read"])]
pub fn spending_over_time(
    /// The days to cover, at most two years.
    range: DateRange,
    /// The length of each period.
    period: Period,
    /// Which expenses to count (all when absent).
    filter: Option<Filter>,
    ledger: &ledger::Ledger,
    ctx: &CallContext,
) -> Result<Vec<report::PeriodTotal>, ToolError> {
    report::over_time(ledger, &range, period, filter.as_ref(), ctx.access())
}

/// Lists the merchants where the user spent most over a date range, largest first. Amounts are
/// in euros. Not available when the user shares totals only.
#[tool(scopes = ["expenses.read"])]
pub fn top_merchants(
    /// The days to cover, at most two years.
    range: DateRange,
    /// How many merchants to list, 1 to 25 (default 5).
    #[schemars(range(min = 1, max = 25))]
    limit: Option<u8>,
    /// Which expenses to count (all when absent).
    filter: Option<Filter>,
    ledger: &ledger::Ledger,
    ctx: &CallContext,
) -> Result<Vec<report::MerchantTotal>, ToolError> {
    report::top_merchants(ledger, &range, limit, filter.as_ref(), ctx.access())
}

/// Exports every expense of a date range with its receipt's line items, oldest first: date,
/// merchant, category, amount in euros and the lines that make it up. Not available when the
/// user shares totals only.
#[tool(scopes = ["expenses.read"])]
pub fn export_expenses(
    /// The days to cover, at most two years.
    range: DateRange,
    /// Which expenses to export (all when absent).
    filter: Option<Filter>,
    ledger: &ledger::Ledger,
    ctx: &CallContext,
) -> Result<Vec<export::ExportLine>, ToolError> {
    export::export(ledger, &range, filter.as_ref(), ctx.access())
}

/// Declares the provider over the user's `ledger`.
pub fn provider(ledger: ledger::Ledger) -> ProviderBuilder {
    Provider::builder("Expenses")
        .description(texts::description())
        .scope("expenses.read", texts::expenses_read())
        .tools(tools![
            spending_by_category,
            spending_over_time,
            top_merchants,
            export_expenses
        ])
        .state(ledger)
}

// When the app starts, over the demo ledger (a real app loads its own from `app.files_dir()`).
cetp_provider::export_provider!(|_| provider(ledger::Ledger::demo()));
