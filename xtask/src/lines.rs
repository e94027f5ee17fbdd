//! `cargo xtask lines`: how many lines an app developer writes to integrate each sample, against
//! each sample's budget. The rules are documented in `samples/README.md`; in short:
//!
//! - **Counted files**: the sample's `Cargo.toml`, every `.rs` file under `src/` except those the
//!   sample lists in [`Sample::not_counted`] (tool bodies, SQL, demo data: code the app has
//!   anyway), and every file under `android/` (Gradle, properties, manifest, Java/Kotlin), except
//!   build output and the app's name (its `strings.xml`, listed as not counted).
//! - **Counted lines**: every line that is not blank, comments included: `#[tool]` requires doc
//!   comments (they are the descriptions the model reads), so they are lines the developer
//!   writes. Beside it, for comparison, the **code** lines: neither blank nor only a comment
//!   (`//`, `///`, `//!`, `/* … */` in Rust, Kotlin and Java; `#` in TOML and properties;
//!   `<!-- … -->` in XML; a line with code and a trailing comment is code). In `Cargo.toml` the
//!   `[dev-dependencies]` table is test support and is not counted at all.
//! - **Budget**: on counted lines (comments included). Each sample's target covers either everything above ([`Scope::Everything`]: the
//!   minimal sample, a whole app) or only its Rust integration code ([`Scope::RustCode`]: the
//!   larger samples, whose Cargo.toml and Android module are the minimal sample's boilerplate with
//!   other names and a few more dependencies). Every counted file is printed either way.
//! - **Second host**: the counted lines that mention `apex` (any case) are what serving the
//!   Apex agent's plugin host in addition to CETP costs; they have their own budget,
//!   [`SECOND_HOST_BUDGET`], and the sample's target covers the other lines.
//! - **Exit status**: non-zero if any sample exceeds a budget.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::util;

/// What a sample's target covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every counted file: `Cargo.toml`, `src/`, `android/`.
    Everything,
    /// The counted `.rs` files under `src/`.
    RustCode,
}

impl Scope {
    fn covers(self, path: &str) -> bool {
        match self {
            Scope::Everything => true,
            Scope::RustCode => path.starts_with("src/") && path.ends_with(".rs"),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Scope::Everything => "everything the developer writes",
            Scope::RustCode => "Rust integration code",
        }
    }
}

/// A sample and its integration budget.
#[derive(Debug)]
pub struct Sample {
    /// Directory under `samples/`.
    pub dir: &'static str,
    /// Most counted lines allowed in [`Sample::scope`].
    pub target: usize,
    /// What the target covers.
    pub scope: Scope,
    /// Files (relative to the sample) that are not integration code, with the reason.
    pub not_counted: &'static [(&'static str, &'static str)],
}

/// The app's string resources: its name (`android:label`), which every app declares.
const APP_NAME: &str = "android/src/main/res/values/strings.xml";

/// Every sample. A test fails if `samples/` holds a directory missing here.
/// Why a sample's `src/texts.rs` is not counted: like its `strings.xml`, the app's words and
/// their translations, which the app has in any case.
const TEXTS: &str = "the app's texts and their translations, as its strings.xml";

pub const SAMPLES: &[Sample] = &[
    Sample {
        dir: "minimal",
        target: 56,
        scope: Scope::Everything,
        not_counted: &[
            ("src/texts.rs", TEXTS),
            (APP_NAME, "the app's name, as every app has"),
        ],
    },
    Sample {
        dir: "notes",
        target: 105,
        scope: Scope::RustCode,
        not_counted: &[
            ("src/queries.rs", "tool bodies and SQL"),
            ("src/demo.rs", "demo data generator"),
            ("src/bin/notes-demo-db.rs", "demo data generator"),
            ("src/texts.rs", TEXTS),
            (APP_NAME, "the app's name, as every app has"),
        ],
    },
    Sample {
        dir: "expenses",
        target: 138,
        scope: Scope::RustCode,
        not_counted: &[
            ("src/report.rs", "tool bodies"),
            ("src/export.rs", "the export's tool body and row types"),
            ("src/ledger.rs", "the app's data"),
            ("src/texts.rs", TEXTS),
            (APP_NAME, "the app's name, as every app has"),
        ],
    },
    Sample {
        dir: "reading-list",
        target: 60,
        scope: Scope::RustCode,
        not_counted: &[
            ("src/shelf.rs", "the app's own core and its UniFFI API"),
            ("src/bin/uniffi-bindgen.rs", "UniFFI's bindings generator"),
            (APP_NAME, "the app's name, as every app has"),
        ],
    },
    Sample {
        dir: "journal",
        target: 60,
        scope: Scope::RustCode,
        not_counted: &[
            ("src/entries.rs", "tool bodies, SQL and row types"),
            ("src/texts.rs", TEXTS),
            (
                "android/src/main/java/dev/cetp/samples/journal/Journal.kt",
                "the app's own Room data layer",
            ),
            (APP_NAME, "the app's name, as every app has"),
        ],
    },
];

/// Most counted lines a sample may spend on serving the second agent host (Apex).
pub const SECOND_HOST_BUDGET: usize = 3;

/// One counted file.
#[derive(Debug, PartialEq, Eq)]
pub struct FileCount {
    /// Path relative to the sample directory, with `/`.
    pub path: String,
    /// Its lines.
    pub count: Count,
}

/// The lines of a file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Count {
    /// Every line that is not blank, comments included: what the budget counts.
    pub lines: usize,
    /// The lines with code (not blank, not only a comment).
    pub code: usize,
    /// The counted lines that mention `apex` (any case): the cost of the second host.
    pub second_host: usize,
}

impl std::ops::Add for Count {
    type Output = Count;
    fn add(self, other: Count) -> Count {
        Count {
            lines: self.lines + other.lines,
            code: self.code + other.code,
            second_host: self.second_host + other.second_host,
        }
    }
}

impl std::iter::Sum for Count {
    fn sum<I: Iterator<Item = Count>>(iter: I) -> Count {
        iter.fold(Count::default(), std::ops::Add::add)
    }
}

/// Runs the task: prints every sample's counts; fails if one is over budget.
pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!("`lines` takes no arguments, got `{extra}`"));
    }
    let samples_dir = util::workspace_root().join("samples");
    let (report, over) = report(&samples_dir)?;
    print!("{report}");
    if over.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "over budget: {}; see samples/README.md, \"Counting lines\"",
            over.join(", ")
        ))
    }
}

/// The printed report, and the samples over budget.
pub fn report(samples_dir: &Path) -> Result<(String, Vec<String>), String> {
    let mut out = String::new();
    let mut over = Vec::new();
    for sample in SAMPLES {
        let files = count_sample(&samples_dir.join(sample.dir), sample)?;
        let total: Count = files.iter().map(|f| f.count).sum();
        let scoped: Count = files
            .iter()
            .filter(|f| sample.scope.covers(&f.path))
            .map(|f| f.count)
            .sum();
        // The target covers the first host (CETP); the second host has its own budget.
        let in_scope = scoped.lines - scoped.second_host;
        let _ = writeln!(
            out,
            "samples/{} (target: {} ≤ {} lines, comments included)",
            sample.dir,
            sample.scope.describe(),
            sample.target
        );
        let _ = writeln!(out, "  lines  code");
        for file in &files {
            let mark = if sample.scope.covers(&file.path) {
                ""
            } else {
                "  (outside the target)"
            };
            let Count { lines, code, .. } = file.count;
            let _ = writeln!(out, "  {lines:>5} {code:>5}  {}{mark}", file.path);
        }
        for (path, why) in sample.not_counted {
            let _ = writeln!(out, "      -     -  {path} (not counted: {why})");
        }
        let verdict = if in_scope <= sample.target {
            "ok"
        } else {
            "OVER"
        };
        if sample.scope == Scope::Everything {
            let _ = writeln!(
                out,
                "  {:>5} {:>5}  total: {} lines for CETP: {verdict}",
                total.lines, total.code, in_scope
            );
        } else {
            let _ = writeln!(
                out,
                "  {:>5} {:>5}  {}: {in_scope} lines for CETP: {verdict} ({} lines, {} code, with the files outside the target)",
                scoped.lines,
                scoped.code,
                sample.scope.describe(),
                total.lines,
                total.code
            );
        }
        let second_host = total.second_host;
        let _ = writeln!(
            out,
            "  {second_host:>5}        + the second host, the Apex plugin (lines naming apex): {} (≤ {SECOND_HOST_BUDGET})\n",
            if second_host <= SECOND_HOST_BUDGET {
                "ok"
            } else {
                "OVER"
            }
        );
        if second_host > SECOND_HOST_BUDGET {
            over.push(format!(
                "samples/{} spends {second_host} lines on the Apex plugin host (target {SECOND_HOST_BUDGET})",
                sample.dir
            ));
        }
        if in_scope > sample.target {
            over.push(format!(
                "samples/{} has {in_scope} lines of {} (target {})",
                sample.dir,
                sample.scope.describe(),
                sample.target
            ));
        }
    }
    Ok((out, over))
}

/// Counts the integration files of the sample in `dir`.
pub fn count_sample(dir: &Path, sample: &Sample) -> Result<Vec<FileCount>, String> {
    let mut paths = vec![dir.join("Cargo.toml")];
    walk(&dir.join("src"), &mut paths)?;
    paths.retain(|p| p.file_name().is_some_and(|n| n == "Cargo.toml") || has_ext(p, "rs"));
    walk(&dir.join("android"), &mut paths)?;
    for (path, _) in sample.not_counted {
        if !dir.join(path).is_file() {
            return Err(format!(
                "samples/{}: `{path}` is listed as not counted but does not exist",
                sample.dir
            ));
        }
    }
    let mut files = Vec::new();
    for path in paths {
        let relative = path
            .strip_prefix(dir)
            .map_err(|_| format!("{} is outside {}", path.display(), dir.display()))?
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        if sample.not_counted.iter().any(|(p, _)| *p == relative) {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let count = count_lines(&relative, &text)
            .ok_or_else(|| format!("samples/{}/{relative}: unknown file type", sample.dir))?;
        files.push(FileCount {
            path: relative,
            count,
        });
    }
    if !files.iter().any(|f| f.path == "src/lib.rs") {
        return Err(format!("samples/{}: no src/lib.rs", sample.dir));
    }
    Ok(files)
}

/// Files under `dir` (sorted, recursively), skipping build output. A missing `dir` adds nothing.
fn walk(dir: &Path, into: &mut Vec<PathBuf>) -> Result<(), String> {
    if !dir.is_dir() {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir() {
            if !matches!(name.as_str(), "build" | ".gradle" | "target") {
                walk(&path, into)?;
            }
        } else {
            into.push(path);
        }
    }
    Ok(())
}

fn has_ext(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|e| e == ext)
}

/// Comment syntax of a file type.
enum Syntax {
    /// `//` lines and `/* … */` blocks.
    CLike,
    /// `#` lines.
    Hash,
    /// `<!-- … -->` blocks.
    Xml,
}

/// Counts the non-blank lines of `text`, and those that are not only comment, by the type of
/// `path`. `None` for a file type without known comment syntax.
pub fn count_lines(path: &str, text: &str) -> Option<Count> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    let syntax = match ext {
        "rs" | "kts" | "kt" | "java" | "gradle" => Syntax::CLike,
        "toml" | "properties" | "pro" => Syntax::Hash,
        "xml" => Syntax::Xml,
        _ => return None,
    };
    let cargo_toml = name == "Cargo.toml";
    let mut count = Count::default();
    let mut in_block = false;
    let mut in_dev_dependencies = false;
    for line in text.lines() {
        let mut rest = line.trim();
        if cargo_toml && rest.starts_with('[') {
            in_dev_dependencies = rest
                .trim_start_matches('[')
                .trim_end_matches(']')
                .ends_with("dev-dependencies");
        }
        if in_dev_dependencies || rest.is_empty() {
            continue;
        }
        count.lines += 1;
        if rest.to_ascii_lowercase().contains("apex") {
            count.second_host += 1;
        }
        let (open, close) = match syntax {
            Syntax::CLike => ("/*", "*/"),
            Syntax::Xml => ("<!--", "-->"),
            Syntax::Hash => ("", ""),
        };
        // Strip leading block comments (and what follows them on the same line).
        loop {
            if in_block {
                match rest.find(close) {
                    Some(end) => {
                        rest = rest[end + close.len()..].trim();
                        in_block = false;
                    }
                    None => {
                        rest = "";
                        break;
                    }
                }
            } else if !open.is_empty() && rest.starts_with(open) {
                rest = &rest[open.len()..];
                in_block = true;
            } else {
                break;
            }
        }
        let comment_only = match syntax {
            Syntax::CLike => rest.starts_with("//"),
            Syntax::Hash => rest.starts_with('#'),
            Syntax::Xml => false,
        };
        if !rest.is_empty() && !comment_only {
            count.code += 1;
        }
    }
    Some(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_comments_count_as_lines_but_not_as_code_and_blank_lines_not_at_all() {
        let text = "//! Crate docs.\n\nuse a::b;\n/// Doc.\n#[tool]\nfn f(\n    /// Param doc.\n    x: u8, // trailing\n) {}\n/* block\n   still */\n/* one */ let y = 1;\n   \n";
        assert_eq!(count_lines("src/lib.rs", text), Some(count(11, 6)));
    }

    fn count(lines: usize, code: usize) -> Count {
        Count {
            lines,
            code,
            second_host: 0,
        }
    }

    #[test]
    fn lines_naming_apex_are_the_second_hosts_cost() {
        let text = "android {\n    // Serve the Apex agent too.\n    resValue(\"bool\", \"cetp_serve_apex\", \"true\")\n}\n";
        let counted = count_lines("android/build.gradle.kts", text).unwrap();
        assert_eq!(
            (counted.lines, counted.code, counted.second_host),
            (4, 3, 2)
        );
    }

    #[test]
    fn kotlin_and_java_use_c_comments() {
        let text = "// comment\nplugins {\n    id(\"x\") // why\n}\n/**\n * doc\n */\nclass A {}\n";
        assert_eq!(
            count_lines("android/build.gradle.kts", text),
            Some(count(8, 4))
        );
        assert_eq!(
            count_lines("android/src/main/java/A.java", text),
            Some(count(8, 4))
        );
    }

    #[test]
    fn xml_comments_may_span_lines_and_precede_code() {
        let text = "<!-- one -->\n<manifest>\n<!--\n  two\n-->\n<!-- three --> <application />\n</manifest>\n";
        assert_eq!(
            count_lines("android/src/main/AndroidManifest.xml", text),
            Some(count(7, 3))
        );
    }

    #[test]
    fn cargo_toml_dev_dependencies_are_not_counted() {
        let text = "# comment\n[package]\nname = \"x\"\n\n[dev-dependencies]\ntempfile = \"3\"\n\n[dependencies]\nserde = \"1\"\n[target.'cfg(unix)'.dev-dependencies]\nlibc = \"0.2\"\n";
        assert_eq!(count_lines("Cargo.toml", text), Some(count(5, 4)));
        assert_eq!(
            count_lines("gradle.properties", "# c\ncetp.rustCrate=..\n"),
            Some(count(2, 1))
        );
    }

    #[test]
    fn unknown_file_types_are_refused() {
        assert_eq!(count_lines("android/src/main/res/raw/data.bin", "x"), None);
    }

    fn samples_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples")
    }

    #[test]
    fn every_sample_directory_has_a_budget() {
        for entry in std::fs::read_dir(samples_dir()).unwrap() {
            let path = entry.unwrap().path();
            if path.join("Cargo.toml").is_file() {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                assert!(
                    SAMPLES.iter().any(|s| s.dir == name),
                    "samples/{name} has no entry in SAMPLES"
                );
            }
        }
    }

    #[test]
    fn every_sample_is_within_its_budget() {
        let (report, over) = report(&samples_dir()).unwrap();
        assert!(over.is_empty(), "{}\n{report}", over.join("\n"));
        for sample in SAMPLES {
            let files = count_sample(&samples_dir().join(sample.dir), sample).unwrap();
            assert!(files.iter().any(|f| f.path == "Cargo.toml"));
            assert!(files.iter().all(|f| f.count.code > 0), "{files:?}");
            assert!(files.iter().all(|f| f.count.lines >= f.count.code));
        }
    }
}
