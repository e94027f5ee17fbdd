//! Reads what host-build needs from an app module's `build.gradle.kts`, line by line: the
//! `manifestPlaceholders["name"] = "value"` assignments and the application id
//! (`applicationId = "..."`, else `namespace = "..."`). Only string literals are understood;
//! anything computed must go into `[package.metadata.cetp]` in `Cargo.toml` instead.

use std::collections::BTreeMap;

/// The values found in one `build.gradle.kts`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct GradleApp {
    pub placeholders: BTreeMap<String, String>,
    /// `resValue("bool", "name", "value")` lines: generated boolean resources.
    pub bools: BTreeMap<String, String>,
    pub application_id: Option<String>,
}

pub fn parse(text: &str) -> GradleApp {
    let mut out = GradleApp::default();
    let mut namespace = None;
    for line in text.lines() {
        let line = strip_comment(line);
        if let Some(args) = line
            .trim()
            .strip_prefix("resValue(")
            .and_then(|a| a.trim_end().strip_suffix(')'))
        {
            let parts: Vec<Option<String>> = args.split(',').map(string_literal).collect();
            if let [Some(kind), Some(name), Some(value)] = parts.as_slice() {
                if kind == "bool" {
                    out.bools.insert(name.clone(), value.clone());
                }
            }
            continue;
        }
        // A line may hold several statements (`defaultConfig { minSdk = 21 }`).
        for statement in line.split(['{', '}', ';']) {
            let Some((lhs, rhs)) = statement.split_once('=') else {
                continue;
            };
            let Some(value) = string_literal(rhs) else {
                continue;
            };
            let lhs = lhs.trim();
            if let Some(key) = lhs
                .strip_prefix("manifestPlaceholders[")
                .and_then(|k| k.strip_suffix(']'))
                .and_then(string_literal)
            {
                out.placeholders.insert(key, value);
            } else if lhs == "applicationId" {
                out.application_id = Some(value);
            } else if lhs == "namespace" {
                namespace = Some(value);
            }
        }
    }
    out.application_id = out.application_id.or(namespace);
    out
}

/// `"text"` (surrounding whitespace allowed) without escapes or templates.
fn string_literal(text: &str) -> Option<String> {
    let inner = text.trim().strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['"', '\\', '$'])).then(|| inner.to_owned())
}

fn strip_comment(line: &str) -> &str {
    let mut in_string = false;
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        match bytes[i] {
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_placeholders_and_the_namespace() {
        let app = parse(
            r#"
plugins { id("com.android.application") version "8.7.3" }
android {
    namespace = "dev.cetp.samples.minimal" // also the application id
    defaultConfig {
        minSdk = 21
        // manifestPlaceholders["ignored"] = "in a comment"
        manifestPlaceholders["cetpAuthority"] = "dev.cetp.samples.minimal.tools"
        manifestPlaceholders["cetpLibrary"] = "cetp_sample_minimal"
        manifestPlaceholders["computed"] = "${project.name}"
    }
}
"#,
        );
        assert_eq!(
            app.application_id.as_deref(),
            Some("dev.cetp.samples.minimal")
        );
        assert_eq!(
            app.placeholders,
            [
                ("cetpAuthority", "dev.cetp.samples.minimal.tools"),
                ("cetpLibrary", "cetp_sample_minimal")
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
        );
    }

    #[test]
    fn reads_bool_res_values() {
        let app = parse(
            "defaultConfig {\n  resValue(\"bool\", \"cetp_serve_apex\", \"true\") // Apex\n  resValue(\"string\", \"x\", \"y\")\n}",
        );
        assert_eq!(
            app.bools.into_iter().collect::<Vec<_>>(),
            [("cetp_serve_apex".to_owned(), "true".to_owned())]
        );
    }

    #[test]
    fn application_id_wins_over_namespace() {
        let app = parse(
            "android { namespace = \"com.code\"\n defaultConfig { applicationId = \"com.app\" } }",
        );
        assert_eq!(app.application_id.as_deref(), Some("com.app"));
    }
}
