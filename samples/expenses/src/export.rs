//! The export: every expense of a range with its receipt's line items, what the user's own
//! "Export" button gives. Two years of it is about half a megabyte of JSON, more than the
//! 256 KiB a CETP reply carries inline, so a CETP v2 agent that negotiated `large_results`
//! receives it as a file (the SDK decides; the tool only returns its value).
//!
//! The ledger keeps each expense's total; its receipt lines are derived from the expense alone
//! (its day and amount seed them), so they are the same on every run and add up to the total
//! to the cent.

use cetp_provider::{AccessLevel, ToolError};
use chrono::{Datelike, NaiveDate};
use schemars::JsonSchema;
use serde::Serialize;

use crate::ledger::{Expense, Ledger};
use crate::report::{euros, select};
use crate::{Category, DateRange, Filter};

/// One expense as the export lists it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ExportLine {
    /// The day it was paid.
    pub date: NaiveDate,
    /// Where the money went.
    pub merchant: &'static str,
    /// Its category.
    pub category: Category,
    /// Amount in euros.
    pub amount: f64,
    /// The receipt's lines, adding up to `amount`.
    pub items: Vec<LineItem>,
}

/// One line of a receipt.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LineItem {
    /// What was bought.
    pub description: &'static str,
    /// How many.
    pub quantity: u32,
    /// The line's amount in euros.
    pub amount: f64,
}

/// Every expense of `range` that `filter` keeps, oldest first, with its line items.
pub fn export(
    ledger: &Ledger,
    range: &DateRange,
    filter: Option<&Filter>,
    access: AccessLevel,
) -> Result<Vec<ExportLine>, ToolError> {
    if access.is_limited() {
        return Err(ToolError::permission_denied(
            "the user shares totals but not single expenses with this app; use `spending_by_category` or `spending_over_time` instead",
        ));
    }
    Ok(select(ledger, range, filter, access)?
        .map(|expense| ExportLine {
            date: expense.date,
            merchant: expense.merchant,
            category: expense.category,
            amount: euros(expense.cents),
            items: items(expense),
        })
        .collect())
}

/// What a receipt of each category lists.
fn catalogue(category: Category) -> &'static [&'static str] {
    match category {
        Category::Groceries => &[
            "Baguette",
            "Milk 1 l",
            "Free-range eggs (6)",
            "Apples 1 kg",
            "Comté 200 g",
            "Ground coffee 250 g",
            "Fusilli 500 g",
            "Tomatoes 500 g",
            "Plain yogurt (4)",
            "Chicken breast",
            "Basmati rice 1 kg",
            "Olive oil 75 cl",
            "Butter 250 g",
            "Sparkling water (6)",
        ],
        Category::Dining => &[
            "Main course",
            "Starter",
            "Dessert",
            "Glass of wine",
            "Coffee",
            "Lemonade",
        ],
        Category::Shopping => &[
            "T-shirt",
            "Running socks",
            "Paperback",
            "Storage box",
            "USB-C cable",
            "Desk lamp",
        ],
        Category::Transport => &["Ticket", "Ride"],
        Category::Entertainment => &["Ticket", "Subscription"],
        Category::Health => &["Prescription", "Consultation"],
        Category::Housing => &["Monthly rent"],
        Category::Utilities => &["Electricity"],
        Category::Travel => &["Booking"],
    }
}

/// The receipt lines of `expense`: one to twelve lines (one for a ticket, a bill or a booking)
/// whose amounts add up to the expense's, seeded by its day and amount.
fn items(expense: &Expense) -> Vec<LineItem> {
    let names = catalogue(expense.category);
    let day = u64::from(expense.date.num_days_from_ce().unsigned_abs());
    let mut seed =
        (day << 32 ^ expense.cents.unsigned_abs()).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = |bound: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % bound.max(1)
    };
    let most = if names.len() == 1 { 1 } else { 12 };
    let count = (1 + next(most)).min(expense.cents.max(1) as u64) as usize;
    let weights: Vec<i64> = (0..count).map(|_| 1 + next(9) as i64).collect();
    let sum: i64 = weights.iter().sum();
    let mut left = expense.cents;
    weights
        .iter()
        .enumerate()
        .map(|(i, weight)| {
            let cents = if i + 1 == count {
                left
            } else {
                expense.cents * weight / sum
            };
            left -= cents;
            LineItem {
                description: names[next(names.len() as u64) as usize],
                quantity: 1 + next(3) as u32,
                amount: euros(cents),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{FIRST_DAY, LAST_DAY};

    fn everything() -> Vec<ExportLine> {
        let range = DateRange {
            from: FIRST_DAY,
            to: LAST_DAY,
        };
        export(&Ledger::demo(), &range, None, AccessLevel::Full).unwrap()
    }

    #[test]
    fn every_line_adds_up_to_its_expense_and_the_export_is_stable() {
        let lines = everything();
        assert_eq!(lines.len(), Ledger::demo().expenses().len());
        for line in &lines {
            let cents: i64 = line
                .items
                .iter()
                .map(|i| (i.amount * 100.0).round() as i64)
                .sum();
            assert_eq!(cents, (line.amount * 100.0).round() as i64, "{line:?}");
            assert!(!line.items.is_empty());
        }
        let again = serde_json::to_string(&everything()).unwrap();
        assert_eq!(serde_json::to_string(&lines).unwrap(), again);
    }

    #[test]
    fn two_years_exceed_what_a_reply_carries_inline_and_one_month_does_not() {
        let all = serde_json::to_string(&everything()).unwrap();
        assert!(all.len() > 256 * 1024, "{} bytes", all.len());
        let month = DateRange {
            from: FIRST_DAY,
            to: NaiveDate::from_ymd_opt(2024, 1, 31).unwrap(),
        };
        let january = export(&Ledger::demo(), &month, None, AccessLevel::Full).unwrap();
        assert!(serde_json::to_string(&january).unwrap().len() < 256 * 1024);
    }
}
