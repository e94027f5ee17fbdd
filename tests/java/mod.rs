//! The constants of the SDK's Java sources, for the tests that prove them equal to Rust.

use std::collections::BTreeMap;

/// Every `public static final String|int NAME = value;` of a Java file.
pub fn java_constants(source: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in source.lines() {
        let Some(rest) = line.trim().strip_prefix("public static final ") else {
            continue;
        };
        let (ty, rest) = rest.split_once(' ').expect("a type");
        let (name, value) = rest.split_once('=').expect("an initializer");
        let value = value
            .trim()
            .strip_suffix(';')
            .expect("one line per constant")
            .trim();
        let value = match ty {
            "String" => value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .filter(|v| !v.contains(['\\', '"']))
                .unwrap_or_else(|| panic!("{name}: not a plain string literal: {value}"))
                .to_owned(),
            "int" => value.to_owned(),
            other => panic!("{name}: unexpected constant type {other}"),
        };
        assert!(
            out.insert(name.trim().to_owned(), value).is_none(),
            "duplicate {name}"
        );
    }
    out
}
