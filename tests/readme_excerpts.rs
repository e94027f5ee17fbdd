//! The samples' READMEs walk through each sample's code in excerpts. An excerpt with a `#[tool]`
//! is compiled code only if it is the sample's code: each such ```rust block of
//! `samples/*/README.md` must appear, line for line, in a Rust file of that sample (blank lines
//! and doc comments aside, which the READMEs shorten), so the README cannot show a tool the
//! sample does not compile. (Whole examples, in the root README, the crates' READMEs and the
//! Android template's README, are doctests.)

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The lines that carry code: trimmed, without blank lines and doc comments.
fn code_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("///") && !l.starts_with("//!"))
        .collect()
}

/// Every ```rust block of a Markdown text, with its line number.
fn rust_blocks(markdown: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (n, line) in markdown.lines().enumerate() {
        match &mut open {
            None if line.trim_start().starts_with("```rust") => open = Some((n + 1, String::new())),
            Some((start, text)) => {
                if line.trim_start().starts_with("```") {
                    out.push((*start, std::mem::take(text)));
                    open = None;
                } else {
                    text.push_str(line);
                    text.push('\n');
                }
            }
            None => {}
        }
    }
    out
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                rust_files(&path, into);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

fn contains(haystack: &[&str], needle: &[&str]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn every_tool_in_a_samples_readme_is_the_samples_compiled_code() {
    let mut checked = 0;
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(root().join("samples")).unwrap() {
        let sample = entry.unwrap().path();
        let Ok(readme) = std::fs::read_to_string(sample.join("README.md")) else {
            continue;
        };
        let mut files = Vec::new();
        rust_files(&sample, &mut files);
        let sources: Vec<String> = files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect();
        for (line, block) in rust_blocks(&readme) {
            if !block.contains("#[tool") {
                continue;
            }
            checked += 1;
            let wanted = code_lines(&block);
            if !sources.iter().any(|s| contains(&code_lines(s), &wanted)) {
                problems.push(format!(
                    "{}/README.md line {line}: no Rust file of the sample holds this excerpt",
                    sample.display()
                ));
            }
        }
    }
    assert!(
        checked > 0,
        "no #[tool] excerpt found: the test reads nothing"
    );
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn excerpts_are_matched_line_for_line() {
    let source = "/// Doc.\n#[tool]\nfn a(\n    x: u32,\n) {}\n";
    assert!(contains(
        &code_lines(source),
        &code_lines("#[tool]\nfn a(\n\n  x: u32,\n")
    ));
    assert!(!contains(
        &code_lines(source),
        &code_lines("#[tool]\nfn a(\n    y: u32,\n")
    ));
    let blocks = rust_blocks("text\n```rust\nfn a() {}\n```\n```toml\nx = 1\n```\n");
    assert_eq!(blocks, [(2, "fn a() {}\n".to_owned())]);
}
