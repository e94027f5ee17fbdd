//! The part of the Android Gradle Plugin's manifest merger host bundles need: the template's
//! `<application>` children go into the app's `<application>`, then `${...}` placeholders are
//! resolved.

use std::collections::BTreeMap;

use crate::{Error, Result};

/// Merges the template manifest into the app manifest and resolves `placeholders`.
pub(crate) fn merge(
    template: &str,
    app: &str,
    placeholders: &BTreeMap<String, String>,
) -> Result<String> {
    let components = application_body(template).ok_or_else(|| {
        Error::Bundle("the template manifest has no <application>...</application>".into())
    })?;
    for class in ["dev.cetp.CetpToolProvider", "dev.cetp.CetpDiscoveryService"] {
        if app.contains(&format!("\"{class}\"")) {
            return Err(Error::Bundle(format!(
                "the app manifest declares {class}, which the template already provides; remove it and set the placeholders instead"
            )));
        }
    }
    let normalized = normalize_root(app)?;
    let app = normalized.as_str();
    let merged = match find_tag(app, "application") {
        Some((start, end)) if app[..end].ends_with("/>") => {
            let open = app[start..end - 2].trim_end();
            format!(
                "{}{open}>{components}</application>{}",
                &app[..start],
                &app[end..]
            )
        }
        Some(_) => {
            let close = app.rfind("</application>").ok_or_else(|| {
                Error::Bundle("the app manifest's <application> is never closed".into())
            })?;
            format!("{}{components}{}", &app[..close], &app[close..])
        }
        None => {
            let close = app
                .rfind("</manifest>")
                .ok_or_else(|| Error::Bundle("the app manifest has no </manifest>".into()))?;
            format!(
                "{}    <application>{components}</application>\n{}",
                &app[..close],
                &app[close..]
            )
        }
    };
    substitute(&merged, placeholders)
}

const ANDROID_NS: &str = "http://schemas.android.com/apk/res/android";

/// Opens a self-closing `<manifest/>` and declares the `android:` namespace on it if missing
/// (AGP-style app manifests may be as short as `<manifest />`).
fn normalize_root(app: &str) -> Result<String> {
    let (start, end) = find_tag(app, "manifest")
        .ok_or_else(|| Error::Bundle("the app manifest has no <manifest>".into()))?;
    let tag = &app[start..end];
    let self_closing = tag.ends_with("/>");
    let mut open = tag
        .trim_end_matches('>')
        .trim_end_matches('/')
        .trim_end()
        .to_owned();
    if attribute(tag, "xmlns:android").is_none() {
        open.push_str(&format!(" xmlns:android=\"{ANDROID_NS}\""));
    }
    open.push('>');
    let close = if self_closing { "\n</manifest>" } else { "" };
    Ok(format!("{}{open}{close}{}", &app[..start], &app[end..]))
}

/// Sets the `package` attribute of `<manifest>` (the AGP `namespace` / application id) when the
/// manifest has none.
pub(crate) fn with_package(manifest: &str, package: &str) -> Result<String> {
    if package_name(manifest).is_some() {
        return Ok(manifest.to_owned());
    }
    let (_, end) = find_tag(manifest, "manifest")
        .ok_or_else(|| Error::Bundle("the manifest has no <manifest>".into()))?;
    let insert_at = if manifest[..end].ends_with("/>") {
        end - 2
    } else {
        end - 1
    };
    Ok(format!(
        "{} package=\"{}\"{}",
        manifest[..insert_at].trim_end(),
        xml_escape(package),
        &manifest[insert_at..]
    ))
}

/// Adds `<uses-sdk>` with the module's `minSdk` / `targetSdk` (as AGP writes them into the
/// merged manifest) when the manifest declares none; an existing `<uses-sdk>` is kept.
pub(crate) fn with_uses_sdk(
    manifest: &str,
    min_sdk: Option<u32>,
    target_sdk: Option<u32>,
) -> Result<String> {
    if find_tag(manifest, "uses-sdk").is_some() || (min_sdk.is_none() && target_sdk.is_none()) {
        return Ok(manifest.to_owned());
    }
    let (_, end) = find_tag(manifest, "manifest")
        .ok_or_else(|| Error::Bundle("the manifest has no <manifest>".into()))?;
    if manifest[..end].ends_with("/>") {
        return Err(Error::Bundle(
            "the manifest's <manifest> is empty (self-closing)".into(),
        ));
    }
    let mut tag = String::from("\n    <uses-sdk");
    if let Some(min) = min_sdk {
        tag.push_str(&format!(" android:minSdkVersion=\"{min}\""));
    }
    if let Some(target) = target_sdk {
        tag.push_str(&format!(" android:targetSdkVersion=\"{target}\""));
    }
    tag.push_str(" />");
    Ok(format!("{}{tag}{}", &manifest[..end], &manifest[end..]))
}

/// The `package` attribute of `<manifest>`.
pub(crate) fn package_name(manifest: &str) -> Option<String> {
    let (start, end) = find_tag(manifest, "manifest")?;
    attribute(&manifest[start..end], "package")
}

/// Placeholder values that name other placeholders (`"\${applicationId}.tools"` in Kotlin, so
/// `${applicationId}.tools`) with those resolved, as the manifest merger resolves them; a name
/// without a value stays as written (and [`substitute`] reports it).
pub(crate) fn resolve_values(placeholders: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    placeholders
        .iter()
        .map(|(name, value)| {
            let mut value = value.clone();
            for (other, replacement) in placeholders {
                if other != name && !replacement.contains("${") {
                    value = value.replace(&format!("${{{other}}}"), replacement);
                }
            }
            (name.clone(), value)
        })
        .collect()
}

/// Replaces every `${name}` outside XML comments; fails listing the names without a value.
pub(crate) fn substitute(text: &str, placeholders: &BTreeMap<String, String>) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut missing = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        if let Some(comment) = rest[..start].find("<!--") {
            // Copy the comment through unchanged.
            let end = rest[comment..]
                .find("-->")
                .map(|e| comment + e + 3)
                .ok_or_else(|| Error::Bundle("unterminated <!-- in the manifest".into()))?;
            out.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(len) = after.find('}') else {
            return Err(Error::Bundle("unterminated ${ in the manifest".into()));
        };
        let name = &after[..len];
        match placeholders.get(name) {
            Some(value) => out.push_str(&xml_escape(value)),
            None => missing.push(name.to_owned()),
        }
        rest = &after[len + 1..];
    }
    out.push_str(rest);
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(Error::Bundle(format!(
            "unresolved manifest placeholders: {} (set them under [package.metadata.cetp] in Cargo.toml)",
            missing.join(", ")
        )))
    }
}

/// The `<bool name="…">true|false</bool>` resources of a `res/values` XML file.
pub(crate) fn bool_resources(xml: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = xml;
    while let Some((start, end)) = find_tag(rest, "bool") {
        let tag = &rest[start..end];
        let body = &rest[end..];
        if let (Some(name), Some(close)) = (attribute(tag, "name"), body.find("</bool>")) {
            out.insert(name, body[..close].trim().to_owned());
        }
        rest = &rest[end..];
    }
    out
}

/// Replaces every attribute value `"@bool/<name>"` with the resource's value, as aapt resolves
/// it into the installed manifest; fails naming resources without a value.
pub(crate) fn resolve_bools(text: &str, bools: &BTreeMap<String, String>) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("\"@bool/") {
        let after = &rest[start + 7..];
        let len = after
            .find('"')
            .ok_or_else(|| Error::Bundle("unterminated @bool/ reference".into()))?;
        let name = &after[..len];
        let value = bools.get(name).ok_or_else(|| {
            Error::Bundle(format!(
                "the manifest uses @bool/{name}, which no res/values file defines"
            ))
        })?;
        if value != "true" && value != "false" {
            return Err(Error::Bundle(format!(
                "bool resource {name} is `{value}`, not true or false"
            )));
        }
        out.push_str(&rest[..start + 1]);
        out.push_str(value);
        rest = &after[len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The text between `<application ...>` and `</application>`.
fn application_body(manifest: &str) -> Option<&str> {
    let (_, open_end) = find_tag(manifest, "application")?;
    let close = manifest.rfind("</application>")?;
    manifest.get(open_end..close)
}

/// The byte range of the opening tag `<name ...>` (outside comments).
fn find_tag(text: &str, name: &str) -> Option<(usize, usize)> {
    let needle = format!("<{name}");
    let mut from = 0;
    while let Some(found) = text[from..].find(&needle) {
        let start = from + found;
        let next = text[start + needle.len()..].chars().next()?;
        let in_comment = text[..start].rfind("<!--") > text[..start].rfind("-->");
        if (next.is_whitespace() || next == '>' || next == '/') && !in_comment {
            let end = start + text[start..].find('>')? + 1;
            return Some((start, end));
        }
        from = start + needle.len();
    }
    None
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let needle = format!("{name}=\"");
    let mut from = 0;
    while let Some(found) = tag[from..].find(&needle) {
        let start = from + found;
        let preceded_by_space = tag[..start].ends_with(char::is_whitespace);
        let value_start = start + needle.len();
        if preceded_by_space {
            let len = tag[value_start..].find('"')?;
            return Some(tag[value_start..value_start + len].to_owned());
        }
        from = value_start;
    }
    None
}

fn xml_escape(value: &str) -> String {
    value
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = r#"<manifest xmlns:android="http://schemas.android.com/apk/res/android">
    <!-- <application> in a comment, and ${cetpAuthority} -->
    <application>
        <provider android:name="dev.cetp.CetpToolProvider" android:authorities="${cetpAuthority}">
            <meta-data android:name="dev.cetp.library" android:value="${cetpLibrary}" />
        </provider>
    </application>
</manifest>"#;

    fn placeholders() -> BTreeMap<String, String> {
        [("cetpAuthority", "com.x.tools"), ("cetpLibrary", "x")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    #[test]
    fn merges_into_an_open_application() {
        let app = r#"<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="com.x">
    <application android:label="X">
        <!-- kept: ${cetpLibrary} -->
        <activity android:name=".Main" />
    </application>
</manifest>"#;
        let merged = merge(TEMPLATE, app, &placeholders()).unwrap();
        assert!(merged.contains(r#"<application android:label="X">"#));
        let activity = merged.find(".Main").unwrap();
        let provider = merged.find("dev.cetp.CetpToolProvider").unwrap();
        let close = merged.find("</application>").unwrap();
        assert!(activity < provider && provider < close, "{merged}");
        assert!(merged.contains(r#"android:authorities="com.x.tools""#));
        assert!(merged.contains(r#"android:value="x""#));
        assert!(merged.contains("<!-- kept: ${cetpLibrary} -->"), "{merged}");
        assert_eq!(package_name(&merged).as_deref(), Some("com.x"));
    }

    #[test]
    fn merges_into_a_self_closing_or_missing_application() {
        let closed = r#"<manifest package="com.x"><application android:label="X" /></manifest>"#;
        let merged = merge(TEMPLATE, closed, &placeholders()).unwrap();
        assert!(
            merged.contains(r#"<application android:label="X">"#),
            "{merged}"
        );
        assert!(merged.contains("</application></manifest>"), "{merged}");

        let none = "<manifest package=\"com.x\">\n</manifest>";
        let merged = merge(TEMPLATE, none, &placeholders()).unwrap();
        assert!(merged.contains("dev.cetp.CetpToolProvider"), "{merged}");
        assert_eq!(merged.matches("<application>").count(), 1);
    }

    #[test]
    fn unresolved_placeholders_and_duplicate_components_fail() {
        let app = r#"<manifest package="com.x"><application /></manifest>"#;
        let err = merge(TEMPLATE, app, &BTreeMap::new())
            .unwrap_err()
            .to_string();
        assert!(!err.contains("cetpAuthority, cetpAuthority"), "{err}");
        assert!(err.contains("cetpAuthority, cetpLibrary"), "{err}");
        let dup = r#"<manifest package="com.x"><application><provider android:name="dev.cetp.CetpToolProvider"/></application></manifest>"#;
        assert!(merge(TEMPLATE, dup, &placeholders()).is_err());
    }

    #[test]
    fn a_bare_agp_style_manifest_gets_namespace_components_and_package() {
        let merged = merge(
            TEMPLATE,
            "<!-- nothing here -->\n<manifest />\n",
            &placeholders(),
        )
        .unwrap();
        assert!(
            merged.contains(&format!("<manifest xmlns:android=\"{ANDROID_NS}\">")),
            "{merged}"
        );
        assert!(merged.contains("dev.cetp.CetpToolProvider"), "{merged}");
        assert!(merged.trim_end().ends_with("</manifest>"), "{merged}");
        assert_eq!(package_name(&merged), None);
        let with = with_package(&merged, "dev.cetp.samples.minimal").unwrap();
        assert_eq!(
            package_name(&with).as_deref(),
            Some("dev.cetp.samples.minimal")
        );
        assert!(
            with.contains(&format!("xmlns:android=\"{ANDROID_NS}\" package=")),
            "{with}"
        );
        // An existing package attribute wins.
        let app = r#"<manifest xmlns:android="x" package="com.keep"><application/></manifest>"#;
        let merged = merge(TEMPLATE, app, &placeholders()).unwrap();
        assert_eq!(
            package_name(&with_package(&merged, "com.other").unwrap()).as_deref(),
            Some("com.keep")
        );
    }

    #[test]
    fn bool_resources_resolve_into_attributes() {
        let bools = bool_resources(
            r#"<resources><!-- <bool name="c">x</bool> -->
            <bool name="cetp_serve_apex">false</bool>
            <bool name="cetp_serve_cetp"> true </bool></resources>"#,
        );
        assert_eq!(bools.len(), 2, "{bools:?}");
        let text = r#"<service android:enabled="@bool/cetp_serve_cetp" /><s android:enabled="@bool/cetp_serve_apex"/>"#;
        assert_eq!(
            resolve_bools(text, &bools).unwrap(),
            r#"<service android:enabled="true" /><s android:enabled="false"/>"#
        );
        assert!(resolve_bools(r#"a="@bool/nope""#, &bools).is_err());
    }

    #[test]
    fn uses_sdk_comes_from_gradle_unless_declared() {
        let app = r#"<manifest xmlns:android="x" package="com.x"><application/></manifest>"#;
        let with = with_uses_sdk(app, Some(21), Some(34)).unwrap();
        assert!(
            with.contains(
                r#"package="com.x">
    <uses-sdk android:minSdkVersion="21" android:targetSdkVersion="34" /><application/>"#
            ),
            "{with}"
        );
        assert_eq!(with_uses_sdk(&with, Some(26), Some(30)).unwrap(), with);
        assert_eq!(with_uses_sdk(app, None, None).unwrap(), app);
    }

    #[test]
    fn a_placeholder_may_name_the_application_id() {
        let mut values = placeholders();
        values.insert("cetpAuthority".into(), "${applicationId}.tools".into());
        values.insert("applicationId".into(), "com.x.debug".into());
        let app = r#"<manifest package="com.x.debug"><application /></manifest>"#;
        let merged = merge(TEMPLATE, app, &resolve_values(&values)).unwrap();
        assert!(
            merged.contains(r#"android:authorities="com.x.debug.tools""#),
            "{merged}"
        );
    }

    #[test]
    fn package_attribute_is_not_confused_with_other_attributes() {
        let m = r#"<manifest xmlns:android="x" android:sharedUserLabel="package" package="com.y">"#;
        assert_eq!(package_name(m).as_deref(), Some("com.y"));
    }
}
