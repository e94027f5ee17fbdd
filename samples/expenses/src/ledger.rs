//! The app's data: every expense the user recorded, in memory.
//!
//! A real expense tracker loads these from its own storage; this sample generates two years of
//! them (2024–2025) from a fixed seed when the provider is built, so every run sees the same
//! ledger. The provider holds the [`Ledger`] as state and the tools borrow it.

use chrono::{Datelike, Days, NaiveDate};

use crate::Category;

/// One recorded expense.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expense {
    /// The day it was paid.
    pub date: NaiveDate,
    /// Amount in euro cents (positive).
    pub cents: i64,
    /// Spending category.
    pub category: Category,
    /// Where the money went.
    pub merchant: &'static str,
}

/// The first day of the ledger.
pub const FIRST_DAY: NaiveDate = NaiveDate::from_ymd_opt(2024, 1, 1).expect("a valid date");
/// The last day of the ledger.
pub const LAST_DAY: NaiveDate = NaiveDate::from_ymd_opt(2025, 12, 31).expect("a valid date");

/// Every expense the user recorded, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ledger(Vec<Expense>);

impl Ledger {
    /// The sample's two years of expenses, the same on every run.
    pub fn demo() -> Self {
        Ledger(generate())
    }

    /// Every expense, oldest first.
    pub fn expenses(&self) -> &[Expense] {
        &self.0
    }
}

impl From<Vec<Expense>> for Ledger {
    /// A ledger of `expenses`, sorted oldest first.
    fn from(mut expenses: Vec<Expense>) -> Self {
        expenses.sort_by_key(|e| e.date);
        Ledger(expenses)
    }
}

/// How often a category is paid, where, and how much (in cents).
struct Habit {
    category: Category,
    /// Chance per day, in percent.
    daily_percent: u64,
    merchants: &'static [&'static str],
    cents: (i64, i64),
}

const HABITS: &[Habit] = &[
    Habit {
        category: Category::Groceries,
        daily_percent: 45,
        merchants: &["Lidl", "Carrefour", "Bio c' Bon", "Marché Saint-Martin"],
        cents: (850, 9_500),
    },
    Habit {
        category: Category::Dining,
        daily_percent: 25,
        merchants: &[
            "Café de Flore",
            "Pho 14",
            "Sushi Kyō",
            "Le Petit Bistro",
            "Burger Fabrik",
        ],
        cents: (450, 6_800),
    },
    Habit {
        category: Category::Transport,
        daily_percent: 30,
        merchants: &["RATP", "SNCF", "Uber", "Vélib'"],
        cents: (190, 4_500),
    },
    Habit {
        category: Category::Entertainment,
        daily_percent: 6,
        merchants: &["Cinéma Max Linder", "Spotify", "Fnac Spectacles"],
        cents: (999, 7_500),
    },
    Habit {
        category: Category::Health,
        daily_percent: 3,
        merchants: &["Pharmacie Centrale", "Dr Moreau"],
        cents: (600, 6_000),
    },
    Habit {
        category: Category::Shopping,
        daily_percent: 8,
        merchants: &["Fnac", "Decathlon", "IKEA", "Zalando"],
        cents: (1_500, 18_000),
    },
];

fn generate() -> Vec<Expense> {
    let mut rng = SplitMix64(0xE79E_45E5);
    let mut ledger = Vec::new();
    let mut day = FIRST_DAY;
    while day <= LAST_DAY {
        if day.day() == 1 {
            ledger.push(Expense {
                date: day,
                cents: 125_000,
                category: Category::Housing,
                merchant: "Rent — Foncia",
            });
            ledger.push(Expense {
                date: day,
                cents: 6_000 + rng.between(0, 6_000),
                category: Category::Utilities,
                merchant: "EDF",
            });
        }
        // Two trips a year, paid in late spring and autumn.
        if (day.month() == 5 || day.month() == 10) && day.day() == 20 {
            let merchant = if day.month() == 5 {
                "Air France"
            } else {
                "Booking.com"
            };
            ledger.push(Expense {
                date: day,
                cents: rng.between(35_000, 90_000),
                category: Category::Travel,
                merchant,
            });
        }
        for habit in HABITS {
            if rng.between(0, 100) < habit.daily_percent as i64 {
                let merchant =
                    habit.merchants[rng.between(0, habit.merchants.len() as i64) as usize];
                ledger.push(Expense {
                    date: day,
                    cents: rng.between(habit.cents.0, habit.cents.1),
                    category: habit.category,
                    merchant,
                });
            }
        }
        day = day + Days::new(1);
    }
    ledger
}

/// SplitMix64: a tiny, fixed pseudo-random generator, so the data never depends on a
/// library's choice of algorithm.
struct SplitMix64(u64);

impl SplitMix64 {
    /// A number in `low..high` (`low < high`; the modulo bias is irrelevant here).
    fn between(&mut self, low: i64, high: i64) -> i64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        low + (z % (high - low) as u64) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ledger_covers_two_years_in_date_order() {
        let ledger = Ledger::demo();
        let all = ledger.expenses();
        assert!(all.len() > 800, "{}", all.len());
        assert_eq!(all.first().unwrap().date, FIRST_DAY);
        assert!(all.last().unwrap().date <= LAST_DAY);
        assert!(all.windows(2).all(|w| w[0].date <= w[1].date));
        assert!(all.iter().all(|e| e.cents > 0));
        let rent = all
            .iter()
            .filter(|e| e.category == Category::Housing)
            .count();
        assert_eq!(rent, 24);
    }

    #[test]
    fn the_ledger_is_the_same_every_time() {
        assert_eq!(generate(), generate());
    }
}
