//! What a host bundle cannot have, and what it takes instead: the **substitutions**.
//!
//! A host bundle compiles the app module's resources and Java, the Android template and the
//! platform API; it does not compile the module's Kotlin, nor the libraries (AARs) the module
//! depends on. An app written the ordinary way reaches into both: a theme whose parent is an
//! AndroidX theme (`Theme.SplashScreen`), style items that set a library's attributes
//! (`windowSplashScreenBackground`), an `Application` subclass in Kotlin, an AndroidX
//! `FileProvider`. Rather than fail the whole build on them, the bundle takes the nearest
//! platform equivalent — a platform theme as the parent, the item left out, the plain
//! `android.app.Application`, the component left out — and says so, one line per
//! [`Substitution`]. Everything else of the app stays as written: its strings, label, icon,
//! locales, `supportsRtl`, its own styles and their platform items.

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use super::tools as util;
use crate::{Error, Result};

/// One thing of the app the host bundle replaced or left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Substitution {
    /// What the app declares (`the parent Theme.SplashScreen of style Theme.Journal.Starting`).
    pub what: String,
    /// What the bundle has instead (`android:Theme.Material.Light.NoActionBar`, `left out`).
    pub by: String,
    /// Why (`no resource of the module or the platform defines it: it comes from a library`).
    pub why: String,
}

impl fmt::Display for Substitution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "host bundle: {} -> {} ({})",
            self.what, self.by, self.why
        )
    }
}

/// The light platform theme a theme with an unknown parent gets.
pub(crate) const LIGHT_THEME: &str = "android:Theme.Material.Light.NoActionBar";
/// The dark one, for a dark or night theme.
pub(crate) const DARK_THEME: &str = "android:Theme.Material.NoActionBar";
/// The light theme with an action bar, for a parent that names one (`…DarkActionBar`).
pub(crate) const ACTION_BAR_THEME: &str = "android:Theme.Material.Light.DarkActionBar";
/// The `Application` class an app whose own cannot be loaded runs with.
pub(crate) const PLATFORM_APPLICATION: &str = "android.app.Application";

const WHY_LIBRARY: &str = "a library (AAR) defines it, not the module, the template or the platform; host bundles compile no library";

/// The resources the bundle's resource directories define: `type/name` for every values entry
/// (`style/Theme.Journal`, `attr/journalAccent`, `string/app_name`) and every file resource
/// (`drawable/ic_launcher_foreground`, `xml/file_paths`).
#[derive(Debug, Default, Clone)]
pub(crate) struct Defined {
    entries: BTreeSet<String>,
}

impl Defined {
    /// What the directories `dirs` (each a `res/`) define.
    pub(crate) fn in_dirs(dirs: &[PathBuf]) -> Result<Self> {
        let mut defined = Defined::default();
        for dir in dirs {
            for entry in fs::read_dir(dir).map_err(Error::cannot("read", dir))? {
                let sub = entry.map_err(Error::cannot("read", dir))?.path();
                if !sub.is_dir() {
                    continue;
                }
                let folder = sub.file_name().unwrap_or_default().to_string_lossy();
                let kind = folder.split('-').next().unwrap_or_default().to_owned();
                let mut files = Vec::new();
                for file in fs::read_dir(&sub).map_err(Error::cannot("read", &sub))? {
                    files.push(file.map_err(Error::cannot("read", &sub))?.path());
                }
                for file in files {
                    if kind == "values" {
                        if file.extension().is_some_and(|e| e == "xml") {
                            let text =
                                fs::read_to_string(&file).map_err(Error::cannot("read", &file))?;
                            defined.add_values(&text);
                        }
                    } else if let Some(stem) = file.file_name().and_then(|n| n.to_str()) {
                        let name = stem.split('.').next().unwrap_or(stem);
                        defined.entries.insert(format!("{kind}/{name}"));
                    }
                }
            }
        }
        Ok(defined)
    }

    /// Adds the entries of one `res/values` file.
    pub(crate) fn add_values(&mut self, xml: &str) {
        let text = without_comments(xml);
        let mut rest = text.as_str();
        while let Some(start) = rest.find('<') {
            rest = &rest[start + 1..];
            let end = rest.find('>').unwrap_or(rest.len());
            let tag = &rest[..end];
            let element = tag
                .split(|c: char| c.is_whitespace() || c == '/')
                .next()
                .unwrap_or_default();
            if let Some(name) = attribute(tag, "name") {
                let kind = match element {
                    "item" => attribute(tag, "type"),
                    "string-array" | "integer-array" => Some("array".to_owned()),
                    "declare-styleable" => Some("styleable".to_owned()),
                    "" | "resources" | "eat-comment" | "skip" | "enum" | "flag" => None,
                    other if other.starts_with(['?', '!', '/']) => None,
                    other => Some(other.to_owned()),
                };
                if let Some(kind) = kind {
                    self.entries.insert(format!("{kind}/{name}"));
                }
            }
            rest = &rest[end.min(rest.len())..];
        }
    }

    fn has(&self, kind: &str, name: &str) -> bool {
        self.entries.contains(&format!("{kind}/{name}"))
    }

    /// Whether a reference resolves in the bundle: `@android:…`, `?android:…` and
    /// `android:…` are the platform's; `@type/name` and `?attr/name` must be defined here.
    /// Anything that is not a reference (a colour, a number, text) resolves.
    fn resolves(&self, value: &str) -> bool {
        let value = value.trim();
        let Some(reference) = value.strip_prefix('@').or_else(|| value.strip_prefix('?')) else {
            return true;
        };
        let reference = reference.trim_start_matches('+').trim_start_matches('*');
        if reference.starts_with("android:") || reference == "null" || reference == "empty" {
            return true;
        }
        match reference.split_once('/') {
            Some((kind, name)) => self.has(kind, name),
            // `?name`: an attribute.
            None if value.starts_with('?') => self.has("attr", reference),
            None => true,
        }
    }
}

/// A copy of the app's resource directory `res` in `out` (replaced) in which every style whose
/// parent the bundle lacks gets a platform parent, and every style item whose attribute or
/// value the bundle lacks is left out; the substitutions, one per change. `defined` covers
/// every resource directory of the bundle (the app's, the template's, the generated values).
pub(crate) fn resources(res: &Path, defined: &Defined, out: &Path) -> Result<Vec<Substitution>> {
    if out.exists() {
        fs::remove_dir_all(out).map_err(Error::cannot("clean", out))?;
    }
    let mut files = Vec::new();
    collect_all(res, &mut files)?;
    files.sort();
    let mut substitutions = Vec::new();
    for file in files {
        let relative = file.strip_prefix(res).unwrap_or(&file);
        let target = out.join(relative);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(Error::cannot("create", parent))?;
        }
        let folder = relative
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .unwrap_or_default();
        let is_values = folder == "values" || folder.starts_with("values-");
        if is_values && file.extension().is_some_and(|e| e == "xml") {
            let text = fs::read_to_string(&file).map_err(Error::cannot("read", &file))?;
            let night = folder.split('-').any(|q| q == "night");
            let (rewritten, found) = styles(&text, defined, night);
            for mut s in found {
                s.what = format!("{} ({})", s.what, relative.display());
                substitutions.push(s);
            }
            fs::write(&target, rewritten).map_err(Error::cannot("write", &target))?;
        } else {
            fs::copy(&file, &target).map_err(Error::cannot("copy", &file))?;
        }
    }
    Ok(substitutions)
}

fn collect_all(dir: &Path, into: &mut Vec<PathBuf>) -> Result<()> {
    for entry in fs::read_dir(dir).map_err(Error::cannot("read", dir))? {
        let path = entry.map_err(Error::cannot("read", dir))?.path();
        if path.is_dir() {
            collect_all(&path, into)?;
        } else {
            into.push(path);
        }
    }
    Ok(())
}

/// The platform theme nearest to a theme named `name` whose parent `parent` the bundle lacks.
pub(crate) fn platform_theme(name: &str, parent: &str, night: bool) -> &'static str {
    let both = format!("{name} {parent}");
    if both.contains("DarkActionBar") {
        ACTION_BAR_THEME
    } else if night || both.contains("Dark") || both.contains(".Black") {
        DARK_THEME
    } else {
        LIGHT_THEME
    }
}

/// One values file with its styles made buildable (see [`resources`]).
pub(crate) fn styles(xml: &str, defined: &Defined, night: bool) -> (String, Vec<Substitution>) {
    let mut out = String::with_capacity(xml.len());
    let mut found = Vec::new();
    let mut rest = xml;
    while let Some((start, end)) = find_tag(rest, "style") {
        out.push_str(&rest[..start]);
        let tag = &rest[start..end];
        let name = attribute(tag, "name").unwrap_or_default();
        let mut new_tag = tag.to_owned();
        if let Some(parent) = attribute(tag, "parent").filter(|p| !p.is_empty()) {
            let reference = if parent.starts_with('@') {
                parent.clone()
            } else if let Some(platform) = parent.strip_prefix("android:") {
                format!("@android:style/{platform}")
            } else {
                format!("@style/{parent}")
            };
            if !defined.resolves(&reference) {
                let theme = name.starts_with("Theme") || parent.contains("Theme");
                let by = if theme {
                    platform_theme(&name, &parent, night).to_owned()
                } else {
                    String::new()
                };
                new_tag = set_attribute(tag, "parent", &by);
                found.push(Substitution {
                    what: format!("the parent {parent} of style {name}"),
                    by: if by.is_empty() {
                        "no parent".to_owned()
                    } else {
                        by
                    },
                    why: WHY_LIBRARY.to_owned(),
                });
            }
        }
        out.push_str(&new_tag);
        rest = &rest[end..];
        if tag.ends_with("/>") {
            continue;
        }
        let Some(close) = rest.find("</style>") else {
            break;
        };
        let body = &rest[..close];
        out.push_str(&items(body, &name, defined, &mut found));
        rest = &rest[close..];
    }
    out.push_str(rest);
    (out, found)
}

/// The `<item>`s of one style's body, less those the bundle cannot have.
fn items(body: &str, style: &str, defined: &Defined, found: &mut Vec<Substitution>) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some((start, end)) = find_tag(rest, "item") {
        let tag = &rest[start..end];
        let (value, after) = if tag.ends_with("/>") {
            ("", end)
        } else {
            match rest[end..].find("</item>") {
                Some(close) => (&rest[end..end + close], end + close + "</item>".len()),
                None => break,
            }
        };
        let attr = attribute(tag, "name").unwrap_or_default();
        let attr_ok = attr.starts_with("android:") || defined.has("attr", &attr);
        let value_ok = defined.resolves(value);
        if attr_ok && value_ok {
            out.push_str(&rest[..after]);
        } else {
            // Drop the item and the white space that indented it.
            out.push_str(rest[..start].trim_end_matches([' ', '\t']));
            let missing = if attr_ok {
                format!("its value {}", value.trim())
            } else {
                format!("the attribute {attr}")
            };
            found.push(Substitution {
                what: format!("the item {attr} of style {style}"),
                by: "left out".to_owned(),
                why: format!("{missing}: {WHY_LIBRARY}"),
            });
            let tail = &rest[after..];
            let line_end = tail.find('\n').filter(|n| tail[..*n].trim().is_empty());
            // The newline before the item stays; the one ending its line goes with it.
            rest = match line_end {
                Some(n) => &tail[n + 1..],
                None => tail,
            };
            continue;
        }
        rest = &rest[after..];
    }
    out.push_str(rest);
    out
}

/// Which classes the bundle holds: the template's and the module's Java (by file path), the
/// platform's (`android.*`, `java.*`). Kotlin files are named so the line can say why.
#[derive(Debug, Default, Clone)]
pub(crate) struct Classes {
    java: BTreeSet<String>,
    /// Fully qualified names of classes declared in a `.kt` file of the same name, with the file.
    kotlin: Vec<(String, PathBuf)>,
}

impl Classes {
    /// The classes of the Java roots `java` (compiled into the bundle) and the Kotlin files
    /// under `kotlin_roots` (not compiled).
    pub(crate) fn of(java: &[PathBuf], kotlin_roots: &[PathBuf]) -> Result<Self> {
        let mut classes = Classes::default();
        for root in java {
            let mut files = Vec::new();
            util::collect_files(root, "java", &mut files)?;
            for file in files {
                if let Ok(relative) = file.strip_prefix(root) {
                    let name = relative.with_extension("");
                    let parts: Vec<String> = name
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect();
                    classes.java.insert(parts.join("."));
                }
            }
        }
        for root in kotlin_roots.iter().filter(|r| r.is_dir()) {
            let mut files = Vec::new();
            util::collect_files(root, "kt", &mut files)?;
            for file in files {
                let text = fs::read_to_string(&file).unwrap_or_default();
                let package = text
                    .lines()
                    .map(str::trim)
                    .find_map(|l| l.strip_prefix("package "))
                    .map(|p| p.trim().trim_end_matches(';').to_owned())
                    .unwrap_or_default();
                let stem = file
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let name = if package.is_empty() {
                    stem
                } else {
                    format!("{package}.{stem}")
                };
                classes.kotlin.push((name, file));
            }
        }
        Ok(classes)
    }

    fn has(&self, class: &str) -> bool {
        let outer = class.split('$').next().unwrap_or(class);
        ["android.", "java.", "javax."]
            .iter()
            .any(|p| class.starts_with(p))
            || self.java.contains(outer)
    }

    fn why_missing(&self, class: &str) -> String {
        match self.kotlin.iter().find(|(name, _)| name == class) {
            Some((_, file)) => format!(
                "it is Kotlin ({}); host bundles compile the module's Java only",
                file.display()
            ),
            None => "a library (AAR) declares it, not the module's Java, the template or the platform; host bundles compile no library".to_owned(),
        }
    }
}

/// The manifest with every class the bundle lacks replaced: an `<application android:name>`
/// by the platform's `Application`, a `<provider>` left out (providers are created when the app
/// starts); an `<activity>`, `<activity-alias>`, `<service>` or `<receiver>` stays declared
/// (only starting it needs the class) with its line; a theme the resources lack by a platform
/// theme.
/// Relative class names are resolved against `namespace`.
pub(crate) fn manifest(
    text: &str,
    namespace: &str,
    classes: &Classes,
    defined: &Defined,
) -> (String, Vec<Substitution>) {
    let mut found = Vec::new();
    let absolute = |name: &str| {
        if name.starts_with('.') {
            format!("{namespace}{name}")
        } else if name.contains('.') {
            name.to_owned()
        } else {
            format!("{namespace}.{name}")
        }
    };
    let mut text = text.to_owned();
    // The Application class.
    if let Some((start, end)) = find_tag(&text, "application") {
        let tag = text[start..end].to_owned();
        if let Some(name) = attribute(&tag, "android:name") {
            let class = absolute(&name);
            if !classes.has(&class) {
                found.push(Substitution {
                    what: format!("the Application class {class}"),
                    by: PLATFORM_APPLICATION.to_owned(),
                    why: classes.why_missing(&class),
                });
                text.replace_range(start..end, &remove_attribute(&tag, "android:name"));
            }
        }
    }
    // Components.
    for element in [
        "activity-alias",
        "activity",
        "service",
        "receiver",
        "provider",
    ] {
        let mut from = 0;
        while let Some((start, end)) = find_tag(&text[from..], element) {
            let (start, end) = (from + start, from + end);
            let tag = text[start..end].to_owned();
            let attr = if element == "activity-alias" {
                "android:targetActivity"
            } else {
                "android:name"
            };
            let class = attribute(&tag, attr).map(|n| absolute(&n));
            match class.filter(|c| !classes.has(c)) {
                // Declared, but created only when something starts it: the manifest stays the
                // app's (a launcher Activity still resolves), and the line says what would fail.
                Some(class) if element != "provider" => {
                    found.push(Substitution {
                        what: format!("the {element} {class}"),
                        by: "declared without its class (starting it fails)".to_owned(),
                        why: classes.why_missing(&class),
                    });
                    from = end;
                }
                // A provider is created when the app starts: without its class, nothing would.
                Some(class) => {
                    let close = format!("</{element}>");
                    let stop = if tag.ends_with("/>") {
                        end
                    } else {
                        text[end..]
                            .find(&close)
                            .map_or(end, |c| end + c + close.len())
                    };
                    let line_start = text[..start].rfind('\n').map_or(start, |n| {
                        if text[n + 1..start].trim().is_empty() {
                            n
                        } else {
                            start
                        }
                    });
                    found.push(Substitution {
                        what: format!("the {element} {class}"),
                        by: "left out".to_owned(),
                        why: classes.why_missing(&class),
                    });
                    text.replace_range(line_start..stop, "");
                    from = line_start;
                }
                None => from = end,
            }
        }
    }
    // Themes the resources lack.
    let mut from = 0;
    while let Some(at) = text[from..].find("android:theme=\"") {
        let value_start = from + at + "android:theme=\"".len();
        let Some(len) = text[value_start..].find('"') else {
            break;
        };
        let value = text[value_start..value_start + len].to_owned();
        if defined.resolves(&value) {
            from = value_start + len;
            continue;
        }
        let name = value.rsplit('/').next().unwrap_or(&value).to_owned();
        let by = format!(
            "@{}",
            platform_theme(&name, "", false).replacen(':', ":style/", 1)
        );
        found.push(Substitution {
            what: format!("the theme {value} in the manifest"),
            by: by.clone(),
            why: WHY_LIBRARY.to_owned(),
        });
        text.replace_range(value_start..value_start + len, &by);
        from = value_start + by.len();
    }
    (text, found)
}

fn without_comments(xml: &str) -> String {
    let mut text = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(start) = rest.find("<!--") {
        text.push_str(&rest[..start]);
        rest = rest[start..]
            .find("-->")
            .map_or("", |end| &rest[start + end + 3..]);
    }
    text.push_str(rest);
    text
}

/// The byte range of the next opening tag `<name …>` outside comments.
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

/// The value of `name="…"` (or `name='…'`) in a tag.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let (start, quote) = attribute_start(tag, name)?;
    let len = tag[start..].find(quote)?;
    Some(tag[start..start + len].to_owned())
}

/// Where the value of attribute `name` starts, and its quote.
fn attribute_start(tag: &str, name: &str) -> Option<(usize, char)> {
    for quote in ['"', '\''] {
        let needle = format!("{name}={quote}");
        let mut from = 0;
        while let Some(found) = tag[from..].find(&needle) {
            let at = from + found;
            if tag[..at].ends_with(char::is_whitespace) {
                return Some((at + needle.len(), quote));
            }
            from = at + needle.len();
        }
    }
    None
}

fn set_attribute(tag: &str, name: &str, value: &str) -> String {
    match attribute_start(tag, name) {
        Some((start, quote)) => {
            let len = tag[start..].find(quote).unwrap_or(0);
            format!("{}{value}{}", &tag[..start], &tag[start + len..])
        }
        None => tag.to_owned(),
    }
}

fn remove_attribute(tag: &str, name: &str) -> String {
    match attribute_start(tag, name) {
        Some((start, quote)) => {
            let len = tag[start..].find(quote).unwrap_or(0);
            let name_start = start - name.len() - 2;
            let before = tag[..name_start].trim_end_matches([' ', '\t', '\n', '\r']);
            format!("{before}{}", &tag[start + len + 1..])
        }
        None => tag.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defined(values: &[&str]) -> Defined {
        let mut d = Defined::default();
        for v in values {
            d.add_values(v);
        }
        d
    }

    const THEMES: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<resources>
    <!-- <style name="Commented" parent="Theme.Nope" /> -->
    <style name="Theme.Journal" parent="android:Theme.Material.Light.NoActionBar">
        <item name="android:statusBarColor">@color/journal_ink</item>
    </style>
    <style name="Theme.Journal.Starting" parent="Theme.SplashScreen">
        <item name="windowSplashScreenBackground">@color/journal_paper</item>
        <item name="windowSplashScreenAnimatedIcon">@drawable/ic_launcher_foreground</item>
        <item name="postSplashScreenTheme">@style/Theme.Journal</item>
        <item name="android:windowLightStatusBar">true</item>
        <item name="android:colorAccent">?attr/colorPrimary</item>
    </style>
    <style name="Widget.Journal.Button" parent="Widget.Material3.Button" />
</resources>
"#;

    #[test]
    fn a_library_theme_parent_becomes_a_platform_theme_and_its_items_go() {
        let defined = defined(&[
            THEMES,
            "<resources><color name=\"journal_ink\">#000</color><color name=\"journal_paper\">#fff</color></resources>",
        ]);
        let (xml, found) = styles(THEMES, &defined, false);
        assert!(
            xml.contains(r#"<style name="Theme.Journal.Starting" parent="android:Theme.Material.Light.NoActionBar">"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<style name="Widget.Journal.Button" parent="" />"#),
            "{xml}"
        );
        for gone in [
            "windowSplashScreen",
            "postSplashScreenTheme",
            "?attr/colorPrimary",
        ] {
            assert!(!xml.contains(gone), "{gone} in {xml}");
        }
        // The app's own and the platform's stay as written.
        for kept in [
            "<item name=\"android:statusBarColor\">@color/journal_ink</item>",
            "        <item name=\"android:windowLightStatusBar\">true</item>\n    </style>",
            "<!-- <style name=\"Commented\" parent=\"Theme.Nope\" /> -->",
        ] {
            assert!(xml.contains(kept), "no {kept} in {xml}");
        }
        let lines: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(lines.len(), 6, "{lines:#?}");
        assert_eq!(
            lines[0],
            format!(
                "host bundle: the parent Theme.SplashScreen of style Theme.Journal.Starting -> \
                 android:Theme.Material.Light.NoActionBar ({WHY_LIBRARY})"
            )
        );
        assert!(lines[1].starts_with("host bundle: the item windowSplashScreenBackground of style Theme.Journal.Starting -> left out (the attribute windowSplashScreenBackground: "), "{}", lines[1]);
        assert!(
            lines[5].contains(
                "the parent Widget.Material3.Button of style Widget.Journal.Button -> no parent"
            ),
            "{}",
            lines[5]
        );
        // A night variant gets the dark platform theme.
        let (night, _) = styles(THEMES, &defined, true);
        assert!(
            night.contains(&format!("parent=\"{DARK_THEME}\"")),
            "{night}"
        );
        // A file whose every parent resolves is copied as it is.
        let own = "<resources><style name=\"A\" parent=\"Theme.Journal\"><item name=\"journalAccent\">@color/journal_ink</item></style><attr name=\"journalAccent\" format=\"color\"/></resources>";
        let mut with_attr = defined.clone();
        with_attr.add_values(own);
        assert_eq!(styles(own, &with_attr, false), (own.to_owned(), Vec::new()));
    }

    #[test]
    fn resources_are_defined_by_values_and_files() {
        let dir = tempfile::tempdir().unwrap();
        let res = dir.path().join("res");
        for (path, text) in [
            (
                "values/strings.xml",
                "<resources><string name=\"app_name\">J</string><declare-styleable name=\"S\"><attr name=\"a1\" format=\"color\"/></declare-styleable><item type=\"id\" name=\"row\"/><string-array name=\"moods\"><item>x</item></string-array></resources>",
            ),
            (
                "values-fr/strings.xml",
                "<resources><string name=\"app_name\">J</string></resources>",
            ),
            ("xml/file_paths.xml", "<paths/>"),
            ("mipmap-anydpi-v26/ic_launcher.xml", "<adaptive-icon/>"),
            ("drawable/ic_launcher_foreground.xml", "<vector/>"),
        ] {
            let file = res.join(path);
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(file, text).unwrap();
        }
        let d = Defined::in_dirs(&[res]).unwrap();
        for (kind, name) in [
            ("string", "app_name"),
            ("attr", "a1"),
            ("styleable", "S"),
            ("id", "row"),
            ("array", "moods"),
            ("xml", "file_paths"),
            ("mipmap", "ic_launcher"),
            ("drawable", "ic_launcher_foreground"),
        ] {
            assert!(d.has(kind, name), "{kind}/{name}");
        }
        assert!(!d.has("item", "x") && !d.has("string", "x"));
        assert!(d.resolves("@android:style/Theme.Material") && d.resolves("?android:attr/x"));
        assert!(d.resolves("#ff0000") && d.resolves("@null") && d.resolves("true"));
        assert!(d.resolves("?a1") && !d.resolves("?colorPrimary") && !d.resolves("@style/Nope"));
    }

    const MANIFEST: &str = r#"<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="com.example.journal.debug">
    <application
        android:name=".JournalApp"
        android:label="@string/app_name"
        android:supportsRtl="true"
        android:theme="@style/Theme.AppCompat.DayNight">
        <activity
            android:name=".MainActivity"
            android:exported="true"
            android:theme="@style/Theme.Journal.Starting">
            <intent-filter>
                <action android:name="android.intent.action.MAIN" />
            </intent-filter>
        </activity>
        <activity android:name=".SettingsActivity" />
        <provider
            android:name="androidx.core.content.FileProvider"
            android:authorities="${applicationId}.files"
            android:exported="false"
            android:grantUriPermissions="true">
            <meta-data
                android:name="android.support.FILE_PROVIDER_PATHS"
                android:resource="@xml/file_paths" />
        </provider>
        <provider android:name="dev.cetp.CetpToolProvider" android:authorities="x.tools" />
    </application>
</manifest>"#;

    #[test]
    fn classes_the_bundle_lacks_are_replaced_or_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let java = dir.path().join("java");
        let kotlin_file = java.join("com/example/journal/MainActivity.kt");
        for file in [
            java.join("com/example/journal/SettingsActivity.java"),
            java.join("dev/cetp/CetpToolProvider.java"),
            kotlin_file.clone(),
            java.join("com/example/journal/JournalApp.kt"),
        ] {
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(&file, "package com.example.journal\n").unwrap();
        }
        let classes =
            Classes::of(std::slice::from_ref(&java), std::slice::from_ref(&java)).unwrap();
        let defined =
            defined(&[r#"<resources><style name="Theme.Journal.Starting"/></resources>"#]);
        let (text, found) = manifest(MANIFEST, "com.example.journal", &classes, &defined);
        assert!(!text.contains("JournalApp"), "{text}");
        assert!(
            text.contains("<application\n        android:label=\"@string/app_name\""),
            "{text}"
        );
        // Declared still: only starting it would need the class.
        assert!(
            text.contains(".MainActivity") && text.contains("intent-filter"),
            "{text}"
        );
        assert!(
            !text.contains("FileProvider") && !text.contains("file_paths"),
            "{text}"
        );
        assert!(
            text.contains("<activity android:name=\".SettingsActivity\" />"),
            "{text}"
        );
        assert!(text.contains("dev.cetp.CetpToolProvider"), "{text}");
        assert!(text.contains("android:supportsRtl=\"true\""), "{text}");
        assert!(
            text.contains("android:theme=\"@android:style/Theme.Material.Light.NoActionBar\""),
            "{text}"
        );
        let lines: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(lines.len(), 4, "{lines:#?}");
        assert!(lines[0].starts_with("host bundle: the Application class com.example.journal.JournalApp -> android.app.Application (it is Kotlin ("), "{}", lines[0]);
        assert!(
            lines[1].contains("the activity com.example.journal.MainActivity -> declared without its class (starting it fails)"),
            "{}",
            lines[1]
        );
        assert!(
            lines[1].contains(&kotlin_file.display().to_string()),
            "{}",
            lines[1]
        );
        assert!(lines[2].starts_with("host bundle: the provider androidx.core.content.FileProvider -> left out (a library (AAR) declares it"), "{}", lines[2]);
        assert!(
            lines[3].contains("the theme @style/Theme.AppCompat.DayNight in the manifest"),
            "{}",
            lines[3]
        );
        // Nothing to replace: the manifest as it was.
        let all = Classes {
            java: [
                "com.example.journal.JournalApp",
                "com.example.journal.MainActivity",
                "com.example.journal.SettingsActivity",
                "androidx.core.content.FileProvider",
                "dev.cetp.CetpToolProvider",
            ]
            .map(String::from)
            .into(),
            kotlin: Vec::new(),
        };
        let themed = defined_with_appcompat();
        assert_eq!(
            manifest(MANIFEST, "com.example.journal", &all, &themed),
            (MANIFEST.to_owned(), Vec::new())
        );
    }

    fn defined_with_appcompat() -> Defined {
        defined(&[
            r#"<resources><style name="Theme.Journal.Starting"/><style name="Theme.AppCompat.DayNight"/></resources>"#,
        ])
    }
}
