//! A deterministic demo database, standing in for the one a real notes app already has.
//!
//! [`create`] writes [`NOTE_COUNT`] notes dated over two years (2023–2024) with titles, bodies
//! and tags in English, French, Japanese and Chinese, with emoji, from a fixed seed: the same
//! file every time, no network. The schema is what `queries.rs` reads, including the FTS5
//! indexes and the triggers a real app uses to keep them in step with its writes: `notes_fts`
//! over titles and bodies, and `note_titles`, titles and dates only, which the search for
//! limited callers reads so that hidden bodies cannot decide what it finds nor how long it
//! takes.

use std::io;
use std::path::{Path, PathBuf};

use chrono::{Duration, NaiveDate};
use rusqlite::{Connection, params};

/// How many notes the demo database holds.
pub const NOTE_COUNT: usize = 320;

/// The seed of the generator; change it for different (still deterministic) notes.
const SEED: u64 = 0x5EED_CE7F;

/// The tables, the full-text index and the triggers that keep the index current.
pub const SCHEMA: &str = "
CREATE TABLE notes (
    id      INTEGER PRIMARY KEY,
    title   TEXT NOT NULL,
    body    TEXT NOT NULL,
    created TEXT NOT NULL -- UTC, YYYY-MM-DDTHH:MM:SS
);
CREATE INDEX notes_by_created ON notes(created);
CREATE TABLE tags (
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    tag     TEXT NOT NULL,
    PRIMARY KEY (note_id, tag)
) WITHOUT ROWID;
CREATE INDEX tags_by_tag ON tags(tag);
CREATE VIRTUAL TABLE notes_fts USING fts5(
    title, body,
    content = 'notes', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
    INSERT INTO notes_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
    INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;
CREATE TRIGGER notes_au AFTER UPDATE ON notes BEGIN
    INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO notes_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
";

/// The titles-and-dates index for limited callers, with the triggers that keep it in step with
/// `notes` (its own copy of titles and dates: nothing in it refers to a body).
pub const TITLES_SCHEMA: &str = "
CREATE VIRTUAL TABLE IF NOT EXISTS note_titles USING fts5(
    title, created UNINDEXED,
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS note_titles_ai AFTER INSERT ON notes BEGIN
    INSERT INTO note_titles(rowid, title, created) VALUES (new.id, new.title, new.created);
END;
CREATE TRIGGER IF NOT EXISTS note_titles_ad AFTER DELETE ON notes BEGIN
    DELETE FROM note_titles WHERE rowid = old.id;
END;
CREATE TRIGGER IF NOT EXISTS note_titles_au AFTER UPDATE OF id, title, created ON notes BEGIN
    DELETE FROM note_titles WHERE rowid = old.id;
    INSERT INTO note_titles(rowid, title, created) VALUES (new.id, new.title, new.created);
END;
";

/// Creates the demo database at `path` unless a file is already there, as the app would on
/// first start (a demo database from before `note_titles` gets it added). The provider runs it
/// on the first call that needs the database ([`Database::on_first_use`](crate::queries::Database::on_first_use)).
/// A failure is logged (logcat tag `cetp` on Android); the tools then answer `INTERNAL_ERROR`
/// naming the missing file.
pub fn seed(path: &Path) {
    if path.exists() {
        if let Err(err) = add_titles_index(path) {
            log::error!(
                "cannot add the titles index to the demo notes database {}: {err}",
                path.display()
            );
        }
        return;
    }
    match create(path) {
        Ok(()) => log::info!("created the demo notes database {}", path.display()),
        Err(err) => log::error!(
            "cannot create the demo notes database {}: {err}",
            path.display()
        ),
    }
}

/// Creates the demo database at `path`, replacing any file there. The database is written to
/// a temporary file next to `path` and renamed into place, so readers never see half of it.
///
/// # Errors
/// Any I/O or SQLite failure.
pub fn create(path: &Path) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut partial = PathBuf::from(path);
    partial.as_mut_os_string().push(".partial");
    if partial.exists() {
        std::fs::remove_file(&partial)?;
    }
    fill(&partial).map_err(io::Error::other)?;
    std::fs::rename(&partial, path)
}

/// Adds `note_titles` (and fills it) to a database that lacks it.
fn add_titles_index(path: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    let tx = conn.transaction()?;
    let present: bool = tx.query_row(
        "SELECT count(*) > 0 FROM sqlite_schema WHERE name = 'note_titles'",
        [],
        |row| row.get(0),
    )?;
    if !present {
        tx.execute_batch(TITLES_SCHEMA)?;
        tx.execute(
            "INSERT INTO note_titles(rowid, title, created) SELECT id, title, created FROM notes",
            [],
        )?;
    }
    tx.commit()
}

fn fill(path: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch(SCHEMA)?;
    conn.execute_batch(TITLES_SCHEMA)?;
    let tx = conn.transaction()?;
    {
        let mut note =
            tx.prepare("INSERT INTO notes (id, title, body, created) VALUES (?1, ?2, ?3, ?4)")?;
        let mut tag = tx.prepare("INSERT OR IGNORE INTO tags (note_id, tag) VALUES (?1, ?2)")?;
        for (id, generated) in (1_i64..).zip(notes()) {
            note.execute(params![
                id,
                generated.title,
                generated.body,
                generated.created
            ])?;
            for t in &generated.tags {
                tag.execute(params![id, t])?;
            }
        }
    }
    tx.commit()
}

/// One generated note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoNote {
    /// Title.
    pub title: String,
    /// Text.
    pub body: String,
    /// `YYYY-MM-DDTHH:MM:SS`.
    pub created: String,
    /// Tags, the topic's first.
    pub tags: Vec<String>,
}

/// The demo notes, oldest first (their ids are their positions, from 1).
pub fn notes() -> Vec<DemoNote> {
    let mut rng = SplitMix64(SEED);
    let first_day = NaiveDate::from_ymd_opt(2023, 1, 1).expect("a valid date");
    let mut notes: Vec<(i64, DemoNote)> = (0..NOTE_COUNT)
        .map(|_| {
            let topic = &TOPICS[rng.below(TOPICS.len())];
            let day = first_day + Duration::days(rng.below(731) as i64);
            let seconds = 7 * 3600 + rng.below(16 * 3600) as i64;
            let created =
                day.and_hms_opt(0, 0, 0).expect("midnight exists") + Duration::seconds(seconds);
            let mut sentences = topic.sentences.to_vec();
            let body: Vec<String> = (0..2 + rng.below(2))
                .map(|_| {
                    let sentence = sentences.swap_remove(rng.below(sentences.len()));
                    rng.fill(sentence)
                })
                .collect();
            let mut tags = vec![topic.tag.to_owned()];
            if rng.below(10) < 3 {
                tags.push(rng.pick(EXTRA_TAGS).to_owned());
            }
            let title = rng.pick(topic.titles);
            let note = DemoNote {
                title: rng.fill(title),
                body: body.join(" "),
                created: created.format("%Y-%m-%dT%H:%M:%S").to_string(),
                tags,
            };
            (created.and_utc().timestamp(), note)
        })
        .collect();
    notes.sort_by_key(|(at, _)| *at);
    notes.into_iter().map(|(_, note)| note).collect()
}

struct Topic {
    tag: &'static str,
    titles: &'static [&'static str],
    sentences: &'static [&'static str],
}

const EXTRA_TAGS: &[&str] = &["important", "weekend", "family"];

const TOPICS: &[Topic] = &[
    Topic {
        tag: "work",
        titles: &[
            "Meeting notes: {project}",
            "Standup {project}",
            "Retro: {project}",
        ],
        sentences: &[
            "Discussed the {project} roadmap with Priya.",
            "Action item: send the budget draft before Friday.",
            "The deadline moved to the next sprint.",
            "Review the API design for {project}.",
            "Ask Tomás about the release checklist.",
        ],
    },
    Topic {
        tag: "recipes",
        titles: &["Recipe: {dish}", "{dish}, second attempt"],
        sentences: &[
            "Preheat the oven to 180 °C.",
            "Use ripe bananas and a pinch of salt.",
            "Let it rest overnight in the fridge.",
            "Serve with fresh basil and a glass of rosé.",
            "Whisk the eggs with the sugar until pale.",
        ],
    },
    Topic {
        tag: "travel",
        titles: &["Trip to {city}", "Packing list for {city}"],
        sentences: &[
            "Book the train from the airport to {city}.",
            "The museum opens at 9 and is closed on Mondays.",
            "Try the café near the old harbour.",
            "Passport, adapter, sunscreen ☀️.",
            "Hotel check-in after 15:00.",
        ],
    },
    Topic {
        tag: "reading",
        titles: &["Reading: {book}", "Quotes from {book}"],
        sentences: &[
            "Chapter {n} was slow but the ending paid off.",
            "Favourite line so far: keep going.",
            "Lend {book} to Sam afterwards 📚.",
            "Compare it with the film adaptation.",
        ],
    },
    Topic {
        tag: "shopping",
        titles: &["Groceries for {weekday}", "Shopping list 🛒"],
        sentences: &[
            "Milk, eggs, spinach and coffee.",
            "Oat milk, tofu and jasmine rice.",
            "Pick up batteries and light bulbs.",
            "Birthday present for Zoë.",
        ],
    },
    Topic {
        tag: "garden",
        titles: &["Garden log 🌱", "Tomatoes 🍅 week {n}"],
        sentences: &[
            "Watered the tomatoes and the basil.",
            "The first strawberries are ripe 🍓.",
            "Aphids on the roses again.",
            "Planted garlic for next summer.",
        ],
    },
    Topic {
        tag: "français",
        titles: &[
            "Notes de réunion — {project}",
            "Liste de courses",
            "Idée : un café-atelier",
        ],
        sentences: &[
            "Acheter du café, des pâtes et du fromage affiné.",
            "Réunion déplacée à jeudi après-midi.",
            "Penser à l'anniversaire d'Hélène 🎂.",
            "Crème fraîche, œufs et pommes.",
            "Vérifier les billets de train pour Orléans.",
        ],
    },
    Topic {
        tag: "日本語",
        titles: &["買い物リスト", "京都旅行の計画", "読書メモ"],
        sentences: &[
            "牛乳、卵、抹茶、豆腐。",
            "清水寺、金閣寺、嵐山。",
            "新幹線の切符を予約する。",
            "村上春樹、ノルウェイの森。",
        ],
    },
    Topic {
        tag: "中文",
        titles: &["读书笔记", "周末计划 🌳"],
        sentences: &[
            "今天 读了 三体 第二章。",
            "周六 去 公园 散步。",
            "买 茶叶 和 水果。",
        ],
    },
];

/// SplitMix64: a tiny, fixed pseudo-random generator, so the demo data never depends on a
/// library's choice of algorithm.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; the modulo bias is irrelevant for demo data).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// One of `items` (not empty).
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// Replaces the `{placeholders}` of `template`.
    fn fill(&mut self, template: &str) -> String {
        const PLACES: [(&str, &[&str]); 5] = [
            ("{project}", &["Atlas", "Borealis", "Cedar", "Dune"]),
            (
                "{dish}",
                &[
                    "Crème brûlée",
                    "Ratatouille",
                    "Pad thai",
                    "Banana bread",
                    "Jalapeño cornbread",
                ],
            ),
            (
                "{city}",
                &["Lisbon", "Kyoto", "Montréal", "Reykjavík", "São Paulo"],
            ),
            (
                "{book}",
                &["Middlemarch", "Le Petit Prince", "Norwegian Wood", "三体"],
            ),
            ("{weekday}", &["Monday", "Wednesday", "Saturday"]),
        ];
        let mut text = template.to_owned();
        for (placeholder, values) in PLACES {
            if text.contains(placeholder) {
                text = text.replace(placeholder, values[self.below(values.len())]);
            }
        }
        if text.contains("{n}") {
            text = text.replace("{n}", &(1 + self.below(12)).to_string());
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_creates_the_database_once_and_keeps_an_existing_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join("notes.db");
        seed(&path);
        let conn = Connection::open(&path).unwrap();
        let count = |conn: &Connection| -> i64 {
            conn.query_row("SELECT count(*) FROM notes", [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(count(&conn), NOTE_COUNT as i64);
        conn.execute("DELETE FROM notes WHERE id = 1", []).unwrap();
        seed(&path);
        assert_eq!(count(&conn), NOTE_COUNT as i64 - 1);
        assert!(!dir.path().join("nested").join("notes.db.partial").exists());
    }

    /// A demo database made before `note_titles` existed gets it, filled, at the next seed.
    #[test]
    fn seed_adds_the_titles_index_to_an_older_demo_database() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(SCHEMA).unwrap();
            conn.execute(
                "INSERT INTO notes (id, title, body, created) VALUES (1, 'Trip to Kyoto', 'b', '2024-01-02T10:00:00')",
                [],
            )
            .unwrap();
        }
        seed(&path);
        seed(&path);
        let conn = Connection::open(&path).unwrap();
        let titles: Vec<(i64, String, String)> = conn
            .prepare("SELECT rowid, title, created FROM note_titles")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            titles,
            [(
                1,
                "Trip to Kyoto".to_owned(),
                "2024-01-02T10:00:00".to_owned()
            )]
        );
        // And the triggers keep it in step from then on.
        conn.execute("UPDATE notes SET title = 'Trip to Osaka' WHERE id = 1", [])
            .unwrap();
        let title: String = conn
            .query_row("SELECT title FROM note_titles WHERE rowid = 1", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(title, "Trip to Osaka");
    }

    #[test]
    fn the_notes_are_the_same_every_time_and_in_date_order() {
        let (a, b) = (notes(), notes());
        assert_eq!(a, b);
        assert_eq!(a.len(), NOTE_COUNT);
        assert!(a.windows(2).all(|w| w[0].created <= w[1].created));
        assert!(a.first().unwrap().created.starts_with("2023-"));
        assert!(a.last().unwrap().created.starts_with("2024-"));
    }

    #[test]
    fn the_notes_have_no_unfilled_placeholders_and_include_non_ascii_text() {
        let all = notes();
        assert!(
            all.iter()
                .all(|n| !n.title.contains('{') && !n.body.contains('{'))
        );
        for needle in ["é", "抹茶", "🌱", "三体"] {
            assert!(
                all.iter()
                    .any(|n| n.title.contains(needle) || n.body.contains(needle)),
                "no note contains {needle}"
            );
        }
    }
}
