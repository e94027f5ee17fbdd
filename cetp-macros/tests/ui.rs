//! Compile tests of `#[tool]` with trybuild: every `tests/ui/pass_*.rs` must compile and run,
//! every other `tests/ui/*.rs` must fail to compile with exactly the `.stderr` checked in next to
//! it.
//!
//! After a deliberate change, regenerate the expected output with
//! `TRYBUILD=overwrite cargo test -p cetp-macros --test ui` and read every `.stderr`:
//! each message must say how to fix the problem and point at the user's tokens.

use std::path::Path;

#[test]
fn ui() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut cases: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/ui exists")
        .map(|entry| entry.expect("readable tests/ui").file_name())
        .filter_map(|name| name.into_string().ok())
        .filter(|name| name.ends_with(".rs"))
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no UI test cases in {}", dir.display());

    let t = trybuild::TestCases::new();
    for case in &cases {
        let path = format!("tests/ui/{case}");
        if case.starts_with("pass_") {
            t.pass(path);
        } else {
            t.compile_fail(path);
        }
    }
}
