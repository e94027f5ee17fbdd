//! The test kit's pom (`android-testkit/pom.xml`) and the SDK's suites' parent
//! (`tests/android/pom.xml`) are separate parents: the kit ships to app developers with its own
//! settings only, and the suites inherit nothing from it. What both pin must still agree, or the
//! suites would test the kit with other versions than an app gets.

use std::collections::BTreeMap;
use std::path::PathBuf;

fn pom(path: &str) -> String {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// The text between the first `<tag>` and its `</tag>`, or "".
fn section<'a>(text: &'a str, tag: &str) -> &'a str {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let Some(start) = text.find(&open) else {
        return "";
    };
    let rest = &text[start + open.len()..];
    rest.find(&close).map_or("", |end| &rest[..end])
}

/// Every `<name>value</name>` directly inside `<properties>`.
fn properties(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in section(text, "properties").lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix('<') else {
            continue;
        };
        let Some((name, rest)) = rest.split_once('>') else {
            continue;
        };
        if name.starts_with('!') || name.starts_with('/') {
            continue;
        }
        if let Some(value) = rest.strip_suffix(&format!("</{name}>")) {
            out.insert(name.to_owned(), value.to_owned());
        }
    }
    out
}

/// `groupId:artifactId` → version of every `<plugin>` or `<dependency>` in `section`.
fn versions(section: &str, element: &str) -> BTreeMap<String, String> {
    let open = format!("<{element}>");
    let close = format!("</{element}>");
    let mut out = BTreeMap::new();
    for chunk in section.split(&open).skip(1) {
        let body = chunk.split(&close).next().unwrap_or("");
        // Only the element's own coordinates, not those of its exclusions.
        let own = body.split("<exclusions>").next().unwrap_or(body);
        let group = self::section(own, "groupId");
        let group = if group.is_empty() {
            "org.apache.maven.plugins"
        } else {
            group
        };
        let artifact = self::section(own, "artifactId");
        let version = self::section(own, "version");
        out.insert(format!("{group}:{artifact}"), version.to_owned());
    }
    out
}

/// Fails naming every key both maps hold with different values; returns how many both hold.
fn compare(
    what: &str,
    kit: &BTreeMap<String, String>,
    suites: &BTreeMap<String, String>,
    problems: &mut Vec<String>,
) -> usize {
    let mut shared = 0;
    for (key, value) in kit {
        if let Some(other) = suites.get(key) {
            shared += 1;
            if other != value {
                problems.push(format!(
                    "{what} {key}: android-testkit/pom.xml has {value:?}, tests/android/pom.xml {other:?}"
                ));
            }
        }
    }
    shared
}

#[test]
fn the_kit_and_the_suites_pin_the_same_versions() {
    let kit = pom("android-testkit/pom.xml");
    let suites = pom("tests/android/pom.xml");
    assert!(
        !suites.contains("<parent>"),
        "tests/android/pom.xml inherits from another pom; the suites' parent stands alone"
    );
    let mut problems = Vec::new();
    let shared_properties = compare(
        "property",
        &properties(&kit),
        &properties(&suites),
        &mut problems,
    );
    let shared_plugins = compare(
        "plugin",
        &versions(section(&kit, "pluginManagement"), "plugin"),
        &versions(section(&suites, "pluginManagement"), "plugin"),
        &mut problems,
    );
    let shared_dependencies = compare(
        "dependency",
        &versions(section(&kit, "dependencyManagement"), "dependency"),
        &versions(section(&suites, "dependencyManagement"), "dependency"),
        &mut problems,
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The comparison saw what matters: Robolectric, JUnit, the framework jar, the compiler and
    // Surefire are pinned in both.
    for (what, count, at_least) in [
        ("properties", shared_properties, 6),
        ("plugins", shared_plugins, 9),
        ("dependencies", shared_dependencies, 5),
    ] {
        assert!(count >= at_least, "only {count} shared {what}");
    }
    for property in [
        "robolectric.version",
        "junit.version",
        "android.api.version",
    ] {
        assert!(
            properties(&kit).contains_key(property) && properties(&suites).contains_key(property),
            "{property} is not pinned in both parents"
        );
    }
}

#[test]
fn a_different_pin_is_named() {
    let kit = pom("android-testkit/pom.xml");
    let changed = kit.replace(
        "<junit.version>4.13.2</junit.version>",
        "<junit.version>4.13.1</junit.version>",
    );
    assert_ne!(kit, changed, "the kit's pom no longer pins JUnit 4.13.2");
    let mut problems = Vec::new();
    compare(
        "property",
        &properties(&changed),
        &properties(&pom("tests/android/pom.xml")),
        &mut problems,
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("junit.version"), "{problems:?}");
}
