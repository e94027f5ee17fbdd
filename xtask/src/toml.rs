//! Reads the few `Cargo.toml` values host-build needs: `[package] name`, `[lib] name` and
//! `[package.metadata.cetp]` strings. Only `key = "string"` lines are understood, which is how
//! these values are written.

use std::collections::BTreeMap;

/// `section -> key -> raw value`.
#[derive(Debug, Default)]
pub struct CargoToml {
    sections: BTreeMap<String, BTreeMap<String, String>>,
}

impl CargoToml {
    pub fn parse(text: &str) -> CargoToml {
        let mut out = CargoToml::default();
        let mut section = String::new();
        for line in text.lines() {
            let line = strip_comment(line).trim();
            if line.is_empty() {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = name.trim().trim_matches(['[', ']']).trim().to_owned();
                continue;
            }
            if let Some((key, value)) = line.split_once('=') {
                out.sections
                    .entry(section.clone())
                    .or_default()
                    .insert(key.trim().to_owned(), value.trim().to_owned());
            }
        }
        out
    }

    /// A string value (`key = "value"`), unquoted.
    pub fn string(&self, section: &str, key: &str) -> Option<String> {
        let raw = self.sections.get(section)?.get(key)?;
        unquote(raw)
    }
}

fn unquote(raw: &str) -> Option<String> {
    raw.strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .map(str::to_owned)
}

fn strip_comment(line: &str) -> &str {
    let mut in_string = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_string = !in_string,
            '#' if !in_string => return &line[..i],
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_package_lib_and_metadata() {
        let toml = CargoToml::parse(
            r#"
[package]
name = "cetp-fixture-provider" # the package
version.workspace = true

[lib]
name = "cetp_fixture"
crate-type = ["cdylib", "rlib"]

[package.metadata.cetp]
authority = "dev.cetp.fixture.tools"
"#,
        );
        assert_eq!(
            toml.string("package", "name").as_deref(),
            Some("cetp-fixture-provider")
        );
        assert_eq!(toml.string("lib", "name").as_deref(), Some("cetp_fixture"));
        assert_eq!(
            toml.string("package.metadata.cetp", "authority").as_deref(),
            Some("dev.cetp.fixture.tools")
        );
        assert_eq!(toml.string("package", "version.workspace"), None);
    }
}
