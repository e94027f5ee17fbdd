//! Turning `///` doc comments into the tool description.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The doc strings of `attrs`, in order. `Err` carries the first `#[doc = ...]` whose value is not
/// a string literal (e.g. `#[doc = include_str!(...)]`).
pub(crate) fn doc_strings(attrs: &[Attribute]) -> Result<Vec<String>, &Attribute> {
    let mut docs = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        // `#[doc(hidden)]`, `#[doc(alias = ...)]` are not text.
        if let Meta::NameValue(nv) = &attr.meta {
            match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => docs.push(s.value()),
                _ => return Err(attr),
            }
        }
    }
    Ok(docs)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Blank,
    Prose,
    ListItem,
    Block,
    Fence,
    Code,
}

/// Joins doc-comment strings into one description, the way a reader sees the rendered text:
/// common indentation removed, lines of a paragraph joined with spaces, paragraphs separated by
/// one blank line, list items, headings, tables and code blocks kept on their own lines.
pub(crate) fn description(docs: &[String]) -> String {
    let lines = unindent(docs);

    let mut out = String::new();
    let mut prev = Kind::Blank;
    let mut in_fence = false;
    for line in &lines {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let fence_line = trimmed.starts_with("```") || trimmed.starts_with("~~~");
        let kind = if in_fence {
            if fence_line { Kind::Fence } else { Kind::Code }
        } else if trimmed.is_empty() {
            Kind::Blank
        } else if fence_line {
            Kind::Fence
        } else if indent >= 4 && matches!(prev, Kind::Blank | Kind::Code) {
            Kind::Code
        } else if is_list_item(trimmed) {
            Kind::ListItem
        } else if trimmed.starts_with('#') || trimmed.starts_with('|') || trimmed.starts_with('>') {
            Kind::Block
        } else {
            Kind::Prose
        };
        if fence_line {
            in_fence = !in_fence;
        }

        match kind {
            Kind::Blank => {
                if prev != Kind::Blank {
                    out.push('\n');
                }
            }
            Kind::Code | Kind::Fence => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(line);
            }
            Kind::Prose if matches!(prev, Kind::Prose | Kind::ListItem) => {
                out.push(' ');
                out.push_str(trimmed);
            }
            _ => {
                if !out.is_empty() {
                    out.push('\n');
                }
                if kind == Kind::ListItem || kind == Kind::Block {
                    // Keep nesting of list items.
                    out.push_str(line);
                } else {
                    out.push_str(trimmed);
                }
            }
        }
        // A prose line continues a list item only while it belongs to it.
        prev = match (kind, prev) {
            (Kind::Prose, Kind::ListItem) => Kind::ListItem,
            _ => kind,
        };
    }
    out.trim().to_owned()
}

fn is_list_item(line: &str) -> bool {
    if let Some(rest) = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .or_else(|| line.strip_prefix("+ "))
    {
        return !rest.is_empty() || line.len() == 2;
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0
        && digits < 10
        && (line[digits..].starts_with(". ") || line[digits..].starts_with(") "))
}

/// Splits the doc strings into lines, strips trailing whitespace, the `*` gutter of block
/// comments, and the indentation common to all non-blank lines.
fn unindent(docs: &[String]) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for doc in docs {
        let mut doc_lines: Vec<&str> = doc.split('\n').collect();
        if doc_lines.len() > 1 {
            // `/** ... */`: drop the first and last line when blank, and a ` * ` gutter.
            let gutter = doc_lines[1..]
                .iter()
                .filter(|l| !l.trim().is_empty())
                .all(|l| l.trim_start().starts_with('*'));
            if gutter {
                for l in doc_lines.iter_mut().skip(1) {
                    let t = l.trim_start();
                    if let Some(rest) = t.strip_prefix('*') {
                        *l = rest;
                    }
                }
            }
        }
        lines.extend(doc_lines.iter().map(|l| l.trim_end().replace('\t', "    ")));
    }
    let common = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .into_iter()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                l[common..].to_owned()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::description;

    fn d(lines: &[&str]) -> String {
        description(&lines.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn single_line() {
        assert_eq!(d(&[" Searches notes."]), "Searches notes.");
    }

    #[test]
    fn paragraphs() {
        assert_eq!(
            d(&[
                " Searches notes by words",
                " in their title or body.",
                "",
                "",
                " Returns at most `limit` hits.",
                ""
            ]),
            "Searches notes by words in their title or body.\n\nReturns at most `limit` hits."
        );
    }

    #[test]
    fn lists_and_code() {
        assert_eq!(
            d(&[
                " Modes:",
                " - `fast`: quick,",
                "   less precise",
                " - `exact`",
                "",
                " ```",
                " let x = 1;",
                "",
                "   y",
                " ```",
                " # Heading",
                " after",
            ]),
            "Modes:\n- `fast`: quick, less precise\n- `exact`\n\n```\nlet x = 1;\n\n  y\n```\n# Heading\nafter"
        );
    }

    #[test]
    fn block_comment() {
        assert_eq!(
            d(&["\n     * First line\n     * second line.\n     *\n     * Next.\n     "]),
            "First line second line.\n\nNext."
        );
    }

    #[test]
    fn empty() {
        assert_eq!(d(&[]), "");
        assert_eq!(d(&["", "   "]), "");
    }

    #[test]
    fn numbered() {
        assert_eq!(d(&[" Steps:", " 1. a", " 2) b"]), "Steps:\n1. a\n2) b");
    }
}
