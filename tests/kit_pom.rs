//! The test kit's poms (`android-testkit/pom.xml`, the parent, and its two modules) meet what a
//! public repository requires before it takes an artifact. The rules are Maven Central's, the
//! strictest of them; each pom, with what it inherits from the parent, has:
//!
//! 1. coordinates: `groupId`, `artifactId`, `version`, the version the SDK's version (the crates'
//!    `[workspace.package] version`: one version for everything released together), not a
//!    `-SNAPSHOT`;
//! 2. its own `name` and `description` (Maven does not inherit a name);
//! 3. a project `url`, `licenses` (each with a name and a url), `developers` (each with a name or
//!    an id) and an `scm` with `connection`, `developerConnection` and `url`, the inherited ones
//!    kept as they are (`child.*.inherit.append.path="false"`, else Maven appends the module's
//!    name to each URL and they point nowhere);
//! 4. dependencies that Maven Central itself serves: no `<repositories>`, no `-SNAPSHOT` version;
//! 5. sources and javadoc jars: the `release` profile binds `maven-source-plugin` (`jar-no-fork`)
//!    and `maven-javadoc-plugin` (`jar`), both pinned in `pluginManagement`.
//!
//! Signing (`.asc` files) needs a key only a person holds, so no test can check it.

use std::path::PathBuf;

fn read(path: &str) -> String {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// The text of `text` between the first `<tag` (with or without attributes) and its `</tag>`,
/// or `None`.
fn element<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let mut rest = text;
    loop {
        let at = rest.find(&format!("<{tag}"))?;
        let after = &rest[at + tag.len() + 1..];
        if after.starts_with('>') || after.starts_with(char::is_whitespace) {
            let body = &after[after.find('>')? + 1..];
            return Some(&body[..body.find(&format!("</{tag}>"))?]);
        }
        rest = after;
    }
}

/// The trimmed text of an element, or "" when it is absent.
fn value<'a>(text: &'a str, tag: &str) -> &'a str {
    element(text, tag).map_or("", str::trim)
}

/// The pom without comments and without its `<parent>`, `<dependencies>`,
/// `<dependencyManagement>`, `<build>` and `<profiles>`: the project's own elements only.
fn own(pom: &str) -> String {
    let mut text = strip_comments(pom);
    for tag in [
        "parent",
        "dependencyManagement",
        "dependencies",
        "build",
        "profiles",
    ] {
        if let Some(body) = element(&text, tag) {
            text = text.replacen(body, "", 1);
        }
    }
    text
}

fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        rest = rest[start..]
            .find("-->")
            .map_or("", |end| &rest[start + end + 3..]);
    }
    out.push_str(rest);
    out
}

/// The version `[workspace.package]` gives the crates.
fn sdk_version() -> String {
    let manifest = read("Cargo.toml");
    let section = manifest.split("[workspace.package]").nth(1).unwrap();
    let line = section
        .lines()
        .find(|l| l.trim_start().starts_with("version"))
        .unwrap();
    line.split('"').nth(1).unwrap().to_owned()
}

/// What is wrong with one pom, given its parent's own elements (none for the parent).
fn problems(path: &str, pom: &str, parent: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let mine = own(pom);
    let inherited = |tag: &str| -> String {
        let here = value(&mine, tag);
        if !here.is_empty() {
            return here.to_owned();
        }
        parent.map_or(String::new(), |p| value(p, tag).to_owned())
    };
    let parent_coordinates = element(pom, "parent").unwrap_or("");
    let group = match value(&mine, "groupId") {
        "" => value(parent_coordinates, "groupId"),
        g => g,
    };
    let version = match value(&mine, "version") {
        "" => value(parent_coordinates, "version"),
        v => v,
    };
    if group.is_empty() || value(&mine, "artifactId").is_empty() {
        out.push("has no groupId or artifactId".to_owned());
    }
    let sdk = sdk_version();
    if version != sdk {
        out.push(format!(
            "has version {version:?}, the SDK {sdk:?} (Cargo.toml [workspace.package])"
        ));
    }
    for tag in ["name", "description"] {
        if value(&mine, tag).is_empty() {
            out.push(format!("has no <{tag}> of its own"));
        }
    }
    if inherited("url").is_empty() {
        out.push("has no <url>".to_owned());
    }
    let licenses = inherited("licenses");
    let each: Vec<&str> = licenses.split("<license>").skip(1).collect();
    if each.is_empty() {
        out.push("has no <licenses>".to_owned());
    }
    for license in each {
        if value(license, "name").is_empty() || value(license, "url").is_empty() {
            out.push("has a <license> without a name or a url".to_owned());
        }
    }
    let developers = inherited("developers");
    let each: Vec<&str> = developers.split("<developer>").skip(1).collect();
    if each.is_empty() {
        out.push("has no <developers>".to_owned());
    }
    for developer in each {
        if value(developer, "name").is_empty() && value(developer, "id").is_empty() {
            out.push("has a <developer> without a name or an id".to_owned());
        }
    }
    let scm = inherited("scm");
    for tag in ["connection", "developerConnection", "url"] {
        if value(&scm, tag).is_empty() {
            out.push(format!("has no <scm><{tag}>"));
        }
    }
    if parent.is_none() {
        // The parent's URLs reach the modules unchanged only with these.
        for attribute in [
            "child.project.url.inherit.append.path=\"false\"",
            "child.scm.connection.inherit.append.path=\"false\"",
            "child.scm.developerConnection.inherit.append.path=\"false\"",
            "child.scm.url.inherit.append.path=\"false\"",
        ] {
            if !pom.contains(attribute) {
                out.push(format!(
                    "lacks {attribute}: its modules' URLs would be wrong"
                ));
            }
        }
    }
    let plain = strip_comments(pom);
    if plain.contains("<repositories>") || plain.contains("<pluginRepositories>") {
        out.push("names a repository besides Maven Central".to_owned());
    }
    if plain.contains("-SNAPSHOT") {
        out.push("names a -SNAPSHOT version".to_owned());
    }
    out.into_iter().map(|p| format!("{path} {p}")).collect()
}

#[test]
fn the_kits_poms_meet_a_public_repositorys_rules() {
    let parent_path = "android-testkit/pom.xml";
    let parent = read(parent_path);
    let parent_own = own(&parent);
    let mut report = problems(parent_path, &parent, None);
    for module in ["testkit", "androidx-test-standin"] {
        let path = format!("android-testkit/{module}/pom.xml");
        let pom = read(&path);
        assert!(
            parent.contains(&format!("<module>{module}</module>")),
            "{module} is a module of the parent"
        );
        report.extend(problems(&path, &pom, Some(&parent_own)));
    }

    // Sources and javadoc jars: bound in the release profile, the plugins pinned.
    let plain = strip_comments(&parent);
    let managed = element(&plain, "pluginManagement").unwrap_or("");
    let profiles = element(&plain, "profiles").unwrap_or("");
    let release = profiles
        .split("<profile>")
        .find(|p| value(p, "id") == "release")
        .unwrap_or("");
    for (plugin, goal) in [
        ("maven-source-plugin", "jar-no-fork"),
        ("maven-javadoc-plugin", "jar"),
    ] {
        let pinned = managed
            .split("<plugin>")
            .any(|p| value(p, "artifactId") == plugin && !value(p, "version").is_empty());
        if !pinned {
            report.push(format!("{parent_path} does not pin {plugin}"));
        }
        let bound = release.split("<plugin>").any(|p| {
            value(p, "artifactId") == plugin && p.contains(&format!("<goal>{goal}</goal>"))
        });
        if !bound {
            report.push(format!(
                "{parent_path}'s release profile does not run {plugin}:{goal}"
            ));
        }
    }
    assert!(report.is_empty(), "\n{}", report.join("\n"));
}

#[test]
fn the_rules_read_what_they_should() {
    let pom = "<project a=\"b\"><!-- <url>x</url> --><parent><url>p</url></parent>\
               <name>N</name><url>u</url><build><url>b</url></build></project>";
    let mine = own(pom);
    assert_eq!(value(&mine, "url"), "u");
    assert_eq!(value(&mine, "name"), "N");
    assert_eq!(value(&mine, "description"), "");
    assert_eq!(
        value("<scm a=\"1\"><url>s</url></scm>", "scm"),
        "<url>s</url>"
    );
    assert_eq!(element("<names>x</names><name>y</name>", "name"), Some("y"));
}
