//! The architecture, as `docs/architecture.md` states it, checked against the source tree:
//! every file of `cetp-provider/src`, of `cetp-validator/src` and of the template's Java has a
//! row in the doc's file tables, and every row names a file that exists. (That no module of `cetp-provider` depends
//! on itself is `cetp-provider/tests/architecture.rs`, which reads only that crate.)

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Files under `root` (recursively) ending with `extension`, as `/`-separated relative paths.
fn files(root: &Path, extension: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == extension) {
                let relative = path.strip_prefix(root).unwrap();
                let parts: Vec<_> = relative.iter().map(|p| p.to_string_lossy()).collect();
                found.insert(parts.join("/"));
            }
        }
    }
    found
}

/// The first-column entries of the tables under the heading that names `root` in backticks,
/// up to the next heading of the same or a higher level.
fn table_entries(doc: &str, root: &str) -> BTreeSet<String> {
    let marker = format!("`{root}`");
    let mut lines = doc.lines();
    let level = loop {
        let Some(line) = lines.next() else {
            panic!("docs/architecture.md has no heading naming {marker}");
        };
        if line.starts_with('#') && line.contains(&marker) {
            break line.chars().take_while(|c| *c == '#').count();
        }
    };
    let mut entries = BTreeSet::new();
    for line in lines {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if hashes > 0 && hashes <= level {
            break;
        }
        let Some(row) = line.strip_prefix("| `") else {
            continue;
        };
        let entry = row.split('`').next().unwrap();
        assert!(
            entries.insert(entry.to_owned()),
            "`{entry}` has two rows under {marker}"
        );
    }
    entries
}

fn assert_table_matches(root: &str, extension: &str) {
    let doc = fs::read_to_string(repository().join("docs/architecture.md")).unwrap();
    let listed = table_entries(&doc, root);
    let present = files(&repository().join(root), extension);
    let missing: Vec<_> = present.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&present).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/architecture.md's table for `{root}` is out of date:\n  \
         files without a row: {missing:?}\n  rows without a file: {stale:?}"
    );
}

#[test]
fn every_rust_file_of_the_runtime_has_a_row_in_the_architecture_doc() {
    assert_table_matches("cetp-provider/src", "rs");
}

#[test]
fn every_rust_file_of_the_validator_has_a_row_in_the_architecture_doc() {
    assert_table_matches("cetp-validator/src", "rs");
}

#[test]
fn every_java_file_of_the_android_library_has_a_row_in_the_architecture_doc() {
    assert_table_matches("android-template/src/main/java/dev/cetp", "java");
}
