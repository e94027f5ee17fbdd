//! The tool bodies: aggregations over the ledger.
//!
//! Amounts are added up in cents (exact) and reported in euros. Checks the schema cannot
//! express (a range's order and width, `min_amount ≤ max_amount`) are made here, with messages
//! that tell the model what to send instead.

use std::collections::{BTreeMap, HashMap};

use cetp_provider::{AccessLevel, ToolError};
use chrono::{Datelike, Days, NaiveDate, Weekday};
use schemars::JsonSchema;
use serde::Serialize;

use crate::ledger::{Expense, Ledger};
use crate::{Category, DateRange, Filter, Period};

/// The widest range a report covers, in days (two years).
pub const MAX_SPAN_DAYS: i64 = 731;
/// How many merchants `top_merchants` lists without a `limit`.
pub const DEFAULT_MERCHANTS: u8 = 5;

/// Spending per category over a range.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CategoryReport {
    /// Total spent, in euros.
    pub total: f64,
    /// Number of expenses.
    pub count: usize,
    /// Categories with spending, largest first.
    pub categories: Vec<CategoryTotal>,
}

/// One category's spending.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CategoryTotal {
    /// The category.
    pub category: Category,
    /// Total spent, in euros.
    pub total: f64,
    /// Number of expenses.
    pub count: usize,
    /// Share of the report's total, in percent (one decimal).
    pub share_percent: f64,
}

/// One period's spending.
#[derive(Debug, Serialize, JsonSchema, PartialEq)]
pub struct PeriodTotal {
    /// `2024-03-05` (day), `2024-W10` (ISO week) or `2024-03` (month).
    pub period: String,
    /// The period's first day.
    pub starts: NaiveDate,
    /// Total spent, in euros.
    pub total: f64,
    /// Number of expenses.
    pub count: usize,
}

/// One merchant's takings.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MerchantTotal {
    /// The merchant.
    pub merchant: &'static str,
    /// The category of its expenses.
    pub category: Category,
    /// Total spent there, in euros.
    pub total: f64,
    /// Number of expenses.
    pub count: usize,
}

/// Totals per category, largest first.
///
/// # Errors
/// `INVALID_ARGS` for a reversed or too wide range, `min_amount > max_amount`, or a merchant
/// filter from a limited caller (see [`select`]).
pub fn by_category(
    ledger: &Ledger,
    range: &DateRange,
    filter: Option<&Filter>,
    access: AccessLevel,
) -> Result<CategoryReport, ToolError> {
    let mut sums: HashMap<Category, (i64, usize)> = HashMap::new();
    for expense in select(ledger, range, filter, access)? {
        let sum = sums.entry(expense.category).or_default();
        *sum = (sum.0 + expense.cents, sum.1 + 1);
    }
    let total: i64 = sums.values().map(|(cents, _)| cents).sum();
    let mut categories: Vec<CategoryTotal> = sums
        .into_iter()
        .map(|(category, (cents, count))| CategoryTotal {
            category,
            total: euros(cents),
            count,
            share_percent: if total == 0 {
                0.0
            } else {
                (cents * 1000 / total) as f64 / 10.0
            },
        })
        .collect();
    // Largest first; equal totals in the order the categories are declared.
    categories.sort_by(|a, b| {
        let declared = (a.category as u8).cmp(&(b.category as u8));
        b.total.total_cmp(&a.total).then(declared)
    });
    Ok(CategoryReport {
        total: euros(total),
        count: categories.iter().map(|c| c.count).sum(),
        categories,
    })
}

/// Totals per day, ISO week or month, every period of the range listed (zero when nothing was
/// spent), oldest first.
///
/// # Errors
/// As [`by_category`].
pub fn over_time(
    ledger: &Ledger,
    range: &DateRange,
    period: Period,
    filter: Option<&Filter>,
    access: AccessLevel,
) -> Result<Vec<PeriodTotal>, ToolError> {
    let selected = select(ledger, range, filter, access)?;
    let mut periods: BTreeMap<NaiveDate, PeriodTotal> = BTreeMap::new();
    for day in range.from.iter_days().take_while(|d| *d <= range.to) {
        let (starts, label) = period_of(day, period);
        periods.entry(starts).or_insert_with(|| PeriodTotal {
            period: label,
            starts,
            total: 0.0,
            count: 0,
        });
    }
    let mut cents: BTreeMap<NaiveDate, i64> = BTreeMap::new();
    for expense in selected {
        let (starts, _) = period_of(expense.date, period);
        *cents.entry(starts).or_default() += expense.cents;
        if let Some(entry) = periods.get_mut(&starts) {
            entry.count += 1;
        }
    }
    for (starts, sum) in cents {
        if let Some(entry) = periods.get_mut(&starts) {
            entry.total = euros(sum);
        }
    }
    Ok(periods.into_values().collect())
}

/// The merchants that received the most, largest first. Not for limited callers.
///
/// # Errors
/// `PERMISSION_DENIED` for a limited caller; otherwise as [`by_category`].
pub fn top_merchants(
    ledger: &Ledger,
    range: &DateRange,
    limit: Option<u8>,
    filter: Option<&Filter>,
    access: AccessLevel,
) -> Result<Vec<MerchantTotal>, ToolError> {
    if access.is_limited() {
        return Err(ToolError::permission_denied(
            "the user shares totals but not merchant names with this app; use `spending_by_category` or `spending_over_time` instead",
        ));
    }
    let mut sums: HashMap<&'static str, (Category, i64, usize)> = HashMap::new();
    for expense in select(ledger, range, filter, access)? {
        let sum = sums
            .entry(expense.merchant)
            .or_insert((expense.category, 0, 0));
        *sum = (sum.0, sum.1 + expense.cents, sum.2 + 1);
    }
    let mut merchants: Vec<MerchantTotal> = sums
        .into_iter()
        .map(|(merchant, (category, cents, count))| MerchantTotal {
            merchant,
            category,
            total: euros(cents),
            count,
        })
        .collect();
    merchants.sort_by(|a, b| b.total.total_cmp(&a.total).then(a.merchant.cmp(b.merchant)));
    merchants.truncate(limit.unwrap_or(DEFAULT_MERCHANTS).into());
    Ok(merchants)
}

/// The expenses in `range` that pass `filter`, after checking both.
///
/// Merchant names are hidden from a limited caller, so they must not decide its answers
/// either: a merchant filter would let it recover a name letter by letter from which totals
/// change, then the dates of every visit. A limited caller's merchant filter is refused, with
/// the same answer whatever the data.
pub(crate) fn select<'a>(
    ledger: &'a Ledger,
    range: &'a DateRange,
    filter: Option<&'a Filter>,
    access: AccessLevel,
) -> Result<impl Iterator<Item = &'a Expense> + 'a, ToolError> {
    if access.is_limited() && filter.is_some_and(|f| f.merchant.is_some()) {
        return Err(ToolError::invalid_args(
            "the user shares totals but not merchant names with this app, so `filter.merchant` cannot be used; drop it",
        ));
    }
    let DateRange { from, to } = *range;
    if from > to {
        return Err(ToolError::invalid_args(format!(
            "`range.from` ({from}) is after `range.to` ({to}); send the earlier day as `from`"
        )));
    }
    let days = (to - from).num_days() + 1;
    if days > MAX_SPAN_DAYS {
        return Err(ToolError::invalid_args(format!(
            "the range {from} to {to} spans {days} days; ask for at most {MAX_SPAN_DAYS} days (two years) per call"
        )));
    }
    let filter = filter.cloned().unwrap_or_default();
    let reversed = filter.min_amount.zip(filter.max_amount);
    if let Some((min, max)) = reversed.filter(|(min, max)| min > max) {
        return Err(ToolError::invalid_args(format!(
            "`filter.min_amount` ({min}) is above `filter.max_amount` ({max}); swap them or drop one"
        )));
    }
    let min = filter.min_amount.map(cents);
    let max = filter.max_amount.map(cents);
    let merchant = filter.merchant.as_deref().map(str::to_lowercase);
    let categories = filter.categories.unwrap_or_default();
    Ok(ledger
        .expenses()
        .iter()
        .skip_while(move |e| e.date < from)
        .take_while(move |e| e.date <= to)
        .filter(move |e| categories.is_empty() || categories.contains(&e.category))
        .filter(move |e| min.is_none_or(|min| e.cents >= min))
        .filter(move |e| max.is_none_or(|max| e.cents <= max))
        .filter(move |e| {
            merchant
                .as_deref()
                .is_none_or(|m| e.merchant.to_lowercase().contains(m))
        }))
}

/// The first day and the label of the period containing `day`.
fn period_of(day: NaiveDate, period: Period) -> (NaiveDate, String) {
    match period {
        Period::Day => (day, day.to_string()),
        Period::Week => {
            let week = day.iso_week();
            let monday = NaiveDate::from_isoywd_opt(week.year(), week.week(), Weekday::Mon)
                .expect("every ISO week has a Monday");
            (monday, format!("{}-W{:02}", week.year(), week.week()))
        }
        Period::Month => {
            let first = day - Days::new(u64::from(day.day0()));
            (first, format!("{}-{:02}", day.year(), day.month()))
        }
    }
}

pub(crate) fn euros(cents: i64) -> f64 {
    cents as f64 / 100.0
}

fn cents(euros: f64) -> i64 {
    (euros * 100.0).round() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn iso_weeks_start_on_monday_and_can_belong_to_the_previous_year() {
        assert_eq!(
            period_of(day("2021-01-03"), Period::Week),
            (day("2020-12-28"), "2020-W53".into())
        );
        assert_eq!(
            period_of(day("2024-12-30"), Period::Week),
            (day("2024-12-30"), "2025-W01".into())
        );
        assert_eq!(
            period_of(day("2024-02-29"), Period::Month),
            (day("2024-02-01"), "2024-02".into())
        );
        assert_eq!(
            period_of(day("2024-02-29"), Period::Day),
            (day("2024-02-29"), "2024-02-29".into())
        );
    }

    #[test]
    fn amounts_convert_between_euros_and_cents_exactly() {
        assert_eq!(cents(12.34), 1234);
        assert_eq!(cents(0.1 + 0.2), 30);
        assert_eq!(euros(1234), 12.34);
    }
}
