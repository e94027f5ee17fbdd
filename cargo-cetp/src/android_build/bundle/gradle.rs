//! Reads what host-build needs from an app module's `build.gradle.kts`, line by line: the
//! `manifestPlaceholders["name"] = "value"` assignments, the application id
//! (`applicationId = "..."`, else `namespace = "..."`), `minSdk` / `targetSdk`, and the
//! `resValue("type", "name", "value")` resources AGP generates. Only literals are understood;
//! anything computed must go into `[package.metadata.cetp]` in `Cargo.toml` instead.
//!
//! One computed value is understood, the one `cargo cetp init` and `new` write: the authority
//! taken from each variant's application id ([`AUTHORITY_FROM_APPLICATION_ID`]), read as its
//! tail (`.tools`, after the application id the bundle or `check` uses), with the
//! `applicationIdSuffix` values the file sets beside it, so that `cargo cetp check` can tell
//! whether builds with a suffix would declare the same authority.

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
    /// `namespace = "..."`: the package of the module's `R` class (and of relative class names).
    pub namespace: Option<String>,
    /// `applicationIdSuffix = "..."` of the `debug` build type (after `defaultConfig`'s, if any):
    /// AGP appends it to the application id of a debug build.
    pub debug_suffix: Option<String>,
    /// The same for the `release` build type.
    pub release_suffix: Option<String>,
    /// `minSdk = N` and `targetSdk = N`: AGP writes them into the merged manifest's `<uses-sdk>`.
    pub min_sdk: Option<u32>,
    pub target_sdk: Option<u32>,
    /// The tail of an authority taken from each variant's application id (`.tools` in
    /// `variant.applicationId.map { "$it.tools" }`), when the file sets it that way.
    pub authority_tail: Option<String>,
    /// Every `applicationIdSuffix = "…"` (build types and flavours).
    pub application_id_suffixes: Vec<String>,
}

/// The authority placeholder, set from each variant's application id (AGP's variant API), so
/// that a build type or flavour with an `applicationIdSuffix` declares its own authority and
/// installs beside the others. What `cargo cetp init` and `new` write into the app module's
/// `build.gradle.kts`, at the top level.
pub(crate) const AUTHORITY_FROM_APPLICATION_ID: &str = r#"// The CETP provider's authority: each variant's application id + ".tools", so that a build
// with an applicationIdSuffix (debug) installs beside the release build.
androidComponents {
    onVariants { variant ->
        variant.manifestPlaceholders.put("cetpAuthority", variant.applicationId.map { "$it.tools" })
    }
}"#;

/// The tail of the authority in a line `variant.manifestPlaceholders.put("cetpAuthority",
/// variant.applicationId.map { "$it<tail>" })` (or `"${it}<tail>"`).
fn authority_tail(line: &str) -> Option<String> {
    let rest = line
        .trim()
        .strip_prefix("variant.manifestPlaceholders.put(")?;
    let (key, value) = rest.split_once(',')?;
    if string_literal(key)?.as_str() != "cetpAuthority" {
        return None;
    }
    let inner = value
        .trim()
        .strip_prefix("variant.applicationId.map")?
        .trim_start()
        .strip_prefix('{')?
        .trim_start()
        .strip_prefix('"')?;
    let tail = inner
        .strip_prefix("${it}")
        .or_else(|| inner.strip_prefix("$it"))?;
    let (tail, after) = tail.split_once('"')?;
    let after: String = after.chars().filter(|c| !c.is_whitespace()).collect();
    (after == "})" && !tail.contains(['\\', '$'])).then(|| tail.to_owned())
}

/// One generated resource: `resValue("string", "app_name", "Notes")`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResValue {
    pub kind: String,
    pub name: String,
    pub value: String,
}

/// Groovy's call form of a property the parser reads (`namespace 'com.example.app'`,
/// `minSdk 24`), as `(name, value)`.
fn groovy_setter(statement: &str) -> Option<(&str, &str)> {
    let (name, value) = statement.trim().split_once(char::is_whitespace)?;
    matches!(
        name,
        "namespace"
            | "applicationId"
            | "applicationIdSuffix"
            | "minSdk"
            | "minSdkVersion"
            | "targetSdk"
            | "targetSdkVersion"
    )
    .then_some((name, value))
}

/// A Groovy single-quoted string without escapes (`'com.example.app'`).
fn groovy_string(text: &str) -> Option<String> {
    let inner = text.trim().strip_prefix('\'')?.strip_suffix('\'')?;
    (!inner.contains(['\'', '\\'])).then(|| inner.to_owned())
}

pub(crate) fn parse(text: &str) -> GradleApp {
    let mut out = GradleApp::default();
    let mut namespace = None;
    let (mut default_suffix, mut debug_suffix, mut release_suffix) = (None, None, None);
    // The names of the blocks the current line is in (`android`, `buildTypes`, `debug`, ...).
    let mut blocks: Vec<String> = Vec::new();
    for line in text.lines() {
        let line = strip_comment(line);
        if let Some(tail) = authority_tail(line) {
            out.authority_tail = Some(tail);
            continue;
        }
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
        // The block a statement opens or closes changes the blocks of the next one.
        let mut pending: Option<(&str, Option<char>)> = None;
        for (statement, delimiter) in statements(line) {
            enter_or_leave(&mut blocks, pending.take());
            pending = Some((statement, delimiter));
            let in_block = |name: &str| blocks.iter().any(|b| b == name);
            let Some((lhs, rhs)) = statement
                .split_once('=')
                .or_else(|| groovy_setter(statement))
            else {
                continue;
            };
            if let Ok(number) = rhs.trim().parse::<u32>() {
                match lhs.trim() {
                    "minSdk" | "minSdkVersion" => out.min_sdk = Some(number),
                    "targetSdk" | "targetSdkVersion" => out.target_sdk = Some(number),
                    _ => {}
                }
                continue;
            }
            let lhs = lhs.trim();
            if let Some(key) = lhs
                .strip_prefix("manifestPlaceholders[")
                .and_then(|k| k.strip_suffix(']'))
                .and_then(string_literal)
            {
                // `"\${applicationId}.tools"`: the manifest merger resolves the placeholder.
                if let Some(value) = kotlin_string(rhs) {
                    out.placeholders.insert(key, value);
                }
                continue;
            }
            let Some(value) = string_literal(rhs).or_else(|| groovy_string(rhs)) else {
                continue;
            };
            if lhs == "applicationIdSuffix" {
                out.application_id_suffixes.push(value.clone());
                if in_block("debug") {
                    debug_suffix = Some(value);
                } else if in_block("release") {
                    release_suffix = Some(value);
                } else if in_block("defaultConfig") {
                    default_suffix = Some(value);
                }
            } else if lhs == "applicationId" {
                out.application_id = Some(value);
            } else if lhs == "namespace" {
                namespace = Some(value);
            }
        }
        enter_or_leave(&mut blocks, pending);
    }
    out.application_id = out.application_id.or(namespace.clone());
    out.namespace = namespace;
    let join = |own: Option<String>| match (&default_suffix, own) {
        (None, None) => None,
        (default, own) => Some(format!(
            "{}{}",
            default.clone().unwrap_or_default(),
            own.unwrap_or_default()
        )),
    };
    out.debug_suffix = join(debug_suffix);
    out.release_suffix = join(release_suffix);
    out
}

/// Enters the block `statement {` opens, or leaves the one `}` closes.
fn enter_or_leave(blocks: &mut Vec<String>, ended: Option<(&str, Option<char>)>) {
    match ended {
        Some((statement, Some('{'))) => blocks.push(block_name(statement)),
        Some((_, Some('}'))) => {
            blocks.pop();
        }
        _ => {}
    }
}

/// The statements of a line, each with the `{`, `}` or `;` that ends it (`None` for the last),
/// split outside string literals (`"\${applicationId}.tools"` holds braces).
fn statements(line: &str) -> Vec<(&str, Option<char>)> {
    let mut out = Vec::new();
    let (mut start, mut in_string, mut escaped) = (0, false, false);
    for (i, c) in line.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '}' | ';' => {
                out.push((&line[start..i], Some(c)));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((&line[start..], None));
    out
}

/// The name of a block from the text before its `{`: the last word (`debug {`,
/// `buildTypes.debug {`), or the string a `getByName("debug")`-style call names.
fn block_name(head: &str) -> String {
    let head = head.trim();
    if let Some((call, args)) = head.split_once('(') {
        if matches!(
            call.trim(),
            "getByName" | "named" | "create" | "register" | "maybeCreate"
        ) {
            return string_literal(args.trim_end().trim_end_matches(')')).unwrap_or_default();
        }
    }
    head.rsplit(|c: char| c.is_whitespace() || c == '.')
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// A Kotlin string literal whose only escape is `\$` (a literal dollar, as in
/// `"\${applicationId}.tools"`): its text, or `None` for anything else (templates, other
/// escapes).
pub(crate) fn kotlin_string(text: &str) -> Option<String> {
    let inner = text.trim().strip_prefix('"')?.strip_suffix('"')?;
    let rest = inner.replace("\\$", "");
    (!rest.contains(['"', '\\', '$'])).then(|| inner.replace("\\$", "$"))
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

    /// Groovy build files set properties as calls, without `=`.
    #[test]
    fn groovy_call_form_is_read() {
        let app = parse(
            "android {\n    namespace 'com.example.shelf'\n    defaultConfig {\n        \
             applicationId \"com.example.shelf.app\"\n        minSdkVersion 24\n        \
             targetSdk 35\n    }\n    buildTypes {\n        debug {\n            \
             applicationIdSuffix '.debug'\n        }\n    }\n}\n",
        );
        assert_eq!(app.namespace.as_deref(), Some("com.example.shelf"));
        assert_eq!(app.application_id.as_deref(), Some("com.example.shelf.app"));
        assert_eq!((app.min_sdk, app.target_sdk), (Some(24), Some(35)));
        assert_eq!(app.application_id_suffixes, vec![".debug".to_owned()]);
        // Other calls are not properties.
        assert_eq!(
            parse("dependencies {\n    implementation 'a:b:1'\n}\n").namespace,
            None
        );
    }

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
    fn reads_the_authority_init_writes_from_the_application_id() {
        let text = format!(
            "android {{\n  namespace = \"com.journal\"\n  defaultConfig {{ applicationId = \"com.journal.app\" }}\n  buildTypes {{\n    debug {{\n      applicationIdSuffix = \".debug\"\n    }}\n  }}\n}}\n{AUTHORITY_FROM_APPLICATION_ID}\n"
        );
        let app = parse(&text);
        assert_eq!(app.authority_tail.as_deref(), Some(".tools"));
        assert!(app.placeholders.is_empty(), "no literal authority");
        assert_eq!(app.application_id_suffixes, [".debug"]);
        let braces = parse(
            "namespace = \"a.b\"\nvariant.manifestPlaceholders.put(\"cetpAuthority\", variant.applicationId.map { \"${it}.agent\" })",
        );
        assert_eq!(braces.authority_tail.as_deref(), Some(".agent"));
        // Anything else computed is not read.
        for other in [
            "variant.manifestPlaceholders.put(\"cetpAuthority\", variant.applicationId.map { \"$it.tools\" + x })",
            "variant.manifestPlaceholders.put(\"other\", variant.applicationId.map { \"$it.tools\" })",
            "// variant.manifestPlaceholders.put(\"cetpAuthority\", variant.applicationId.map { \"$it.tools\" })",
        ] {
            let app = parse(&format!("namespace = \"a.b\"\n{other}"));
            assert_eq!(app.authority_tail, None, "{other}");
            assert!(app.placeholders.is_empty(), "{other}");
        }
        // A literal authority wins.
        let both = parse(&format!(
            "namespace = \"a.b\"\nmanifestPlaceholders[\"cetpAuthority\"] = \"x.y\"\n{AUTHORITY_FROM_APPLICATION_ID}"
        ));
        assert_eq!(both.placeholders["cetpAuthority"], "x.y");
    }

    #[test]
    fn build_type_suffixes_and_the_namespace_are_read() {
        let app = parse(
            r#"android {
    namespace = "com.example.journal"
    defaultConfig {
        applicationId = "com.example.journal"
        manifestPlaceholders["cetpAuthority"] = "\${applicationId}.tools"
        manifestPlaceholders["computed"] = "${applicationId}.tools"
    }
    buildTypes {
        release { isMinifyEnabled = false }
        debug {
            applicationIdSuffix = ".debug"
        }
        getByName("release") {
            applicationIdSuffix = ".rel" // unusual, but read
        }
    }
}
"#,
        );
        assert_eq!(app.namespace.as_deref(), Some("com.example.journal"));
        assert_eq!(app.debug_suffix.as_deref(), Some(".debug"));
        assert_eq!(app.release_suffix.as_deref(), Some(".rel"));
        assert_eq!(
            app.placeholders.get("cetpAuthority").map(String::as_str),
            Some("${applicationId}.tools")
        );
        assert!(
            !app.placeholders.contains_key("computed"),
            "a Kotlin template is computed"
        );
        let plain = parse("android { defaultConfig { applicationIdSuffix = \".x\" } }");
        assert_eq!(plain.debug_suffix.as_deref(), Some(".x"));
        assert_eq!(plain.release_suffix.as_deref(), Some(".x"));
        assert_eq!(plain.namespace, None);
    }

    #[test]
    fn application_id_wins_over_namespace() {
        let app = parse(
            "android { namespace = \"com.code\"\n defaultConfig { applicationId = \"com.app\" } }",
        );
        assert_eq!(app.application_id.as_deref(), Some("com.app"));
    }
}
