//! Reads what host-build needs from an app module's `build.gradle.kts`, line by line: the
//! `manifestPlaceholders["name"] = "value"` assignments, the application id
//! (`applicationId = "..."`, else `namespace = "..."`), `minSdk` / `targetSdk`, and the
//! `resValue("type", "name", "value")` resources AGP generates. Only literals are understood;
//! anything computed must go into `[package.metadata.cetp]` in `Cargo.toml` instead.

use std::collections::BTreeMap;

/// The values found in one `build.gradle.kts`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct GradleApp {
    pub placeholders: BTreeMap<String, String>,
    /// `resValue("bool", "name", "value")` lines: generated boolean resources.
    pub bools: BTreeMap<String, String>,
    /// Every `resValue("type", "name", "value")` line, in order: the resources AGP generates
    /// (`generated/res/resValues`), which win over the app's and the libraries' own.
    pub res_values: Vec<ResValue>,
    pub application_id: Option<String>,
    /// `minSdk = N` and `targetSdk = N`: AGP writes them into the merged manifest's `<uses-sdk>`.
    pub min_sdk: Option<u32>,
    pub target_sdk: Option<u32>,
}

/// One generated resource: `resValue("string", "app_name", "Notes")`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResValue {
    pub kind: String,
    pub name: String,
    pub value: String,
}

pub(crate) fn parse(text: &str) -> GradleApp {
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
                out.res_values.push(ResValue {
                    kind: kind.clone(),
                    name: name.clone(),
                    value: value.clone(),
                });
            }
            continue;
        }
        // A line may hold several statements (`defaultConfig { minSdk = 21 }`).
        for statement in line.split(['{', '}', ';']) {
            let Some((lhs, rhs)) = statement.split_once('=') else {
                continue;
            };
            if let Ok(number) = rhs.trim().parse::<u32>() {
                match lhs.trim() {
                    "minSdk" => out.min_sdk = Some(number),
                    "targetSdk" => out.target_sdk = Some(number),
                    _ => {}
                }
                continue;
            }
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
pub(crate) fn string_literal(text: &str) -> Option<String> {
    let inner = text.trim().strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['"', '\\', '$'])).then(|| inner.to_owned())
}

/// `line` up to a `//` comment outside a string.
pub(crate) fn strip_comment(line: &str) -> &str {
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
        let kinds: Vec<_> = app.res_values.iter().map(|r| r.kind.as_str()).collect();
        assert_eq!(kinds, ["bool", "string"]);
        assert_eq!(app.res_values[1].value, "y");
    }

    #[test]
    fn reads_the_sdk_levels() {
        let app =
            parse("defaultConfig {\n  minSdk = 21\n  targetSdk = 34 // T\n  versionCode = 3\n}");
        assert_eq!((app.min_sdk, app.target_sdk), (Some(21), Some(34)));
    }

    #[test]
    fn application_id_wins_over_namespace() {
        let app = parse(
            "android { namespace = \"com.code\"\n defaultConfig { applicationId = \"com.app\" } }",
        );
        assert_eq!(app.application_id.as_deref(), Some("com.app"));
    }
}
