//! The constants of the SDK's Java sources, for the tests that prove them equal to Rust.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every `.java` file under `root`, recursively, sorted.
pub fn java_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "java") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A `static final` field declared on one line of Java source (`[public|private|protected]
/// static final Type NAME = initializer;`).
pub struct StaticFinal {
    /// Whether it is `public`.
    pub public: bool,
    /// Its type, as written.
    pub ty: String,
    /// Its name.
    pub name: String,
    /// Its initializer as written, without the `;` (only its first line when it goes on).
    pub initializer: String,
    /// Whether the declaration ends on its line.
    pub one_line: bool,
}

/// Every `static final` field of `source` that has an initializer on its declaration's line.
/// Lines whose words before `static final` are not modifiers (comments, text) are skipped.
pub fn static_finals(source: &str) -> Vec<StaticFinal> {
    let mut out = Vec::new();
    for line in source.lines() {
        let Some((modifiers, rest)) = line.trim().split_once("static final ") else {
            continue;
        };
        let modifiers: Vec<&str> = modifiers.split_whitespace().collect();
        if !modifiers
            .iter()
            .all(|m| matches!(*m, "public" | "private" | "protected"))
        {
            continue;
        }
        let Some((declared, initializer)) = rest.split_once('=') else {
            continue;
        };
        let Some((ty, name)) = declared.trim().rsplit_once(' ') else {
            continue;
        };
        let initializer = initializer.trim();
        let (initializer, one_line) = match initializer.strip_suffix(';') {
            Some(initializer) => (initializer.trim(), true),
            None => (initializer, false),
        };
        out.push(StaticFinal {
            public: modifiers.contains(&"public"),
            ty: ty.trim().to_owned(),
            name: name.to_owned(),
            initializer: initializer.to_owned(),
            one_line,
        });
    }
    out
}

/// The text of `initializer` when it is one plain string literal (no escape, nothing joined).
pub fn plain_string(initializer: &str) -> Option<&str> {
    initializer
        .strip_prefix('"')?
        .strip_suffix('"')
        .filter(|v| !v.contains(['\\', '"']))
}

/// Every `public static final String|int NAME = value;` of a Java file.
pub fn java_constants(source: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for constant in static_finals(source).into_iter().filter(|c| c.public) {
        let StaticFinal {
            ty,
            name,
            initializer,
            one_line,
            ..
        } = constant;
        assert!(one_line, "{name}: one line per constant");
        let value = match ty.as_str() {
            "String" => plain_string(&initializer)
                .unwrap_or_else(|| panic!("{name}: not a plain string literal: {initializer}"))
                .to_owned(),
            "int" => initializer,
            other => panic!("{name}: unexpected constant type {other}"),
        };
        assert!(
            out.insert(name.clone(), value).is_none(),
            "duplicate {name}"
        );
    }
    out
}

/// The string literals of Java `source`, comments and char literals skipped, escapes kept as
/// written.
pub fn java_string_literals(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut star = false;
                for c in chars.by_ref() {
                    if star && c == '/' {
                        break;
                    }
                    star = c == '*';
                }
            }
            '\'' => {
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '\'' => break,
                        _ => {}
                    }
                }
            }
            '"' => {
                let mut literal = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            literal.push(c);
                            literal.extend(chars.next());
                        }
                        '"' => break,
                        _ => literal.push(c),
                    }
                }
                out.push(literal);
            }
            _ => {}
        }
    }
    out
}
