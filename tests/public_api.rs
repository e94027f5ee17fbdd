//! The public API of `cetp-provider` as an app developer sees it, compared with the list checked
//! in beside this file (`public_api.txt`), so the API grows or shrinks only on purpose.
//!
//! "Sees" means rustdoc: the crate is documented with the features an app and its tests use
//! (`jni`, `test-util`), and every page of `all.html` is read for the item, its fields,
//! variants, associated items and methods, the traits it implements, and whether it is `Send`
//! and `Sync`, and whether it is `#[non_exhaustive]`. What is `#[doc(hidden)]` (the hosts' interface to the core, the protocol
//! constants, the admin interface, the tooling's hooks) is public for the SDK's own crates and
//! is not listed.
//!
//! After a deliberate change: `CETP_BLESS=1 cargo test -p cetp-tests --test public_api`, then
//! review the diff of `tests/public_api.txt`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The features the app's library (`jni`) and its tests (`test-util`) enable.
const FEATURES: &str = "jni,test-util";

/// What an app developer reads at most, the library and its tests together (docs.rs shows both
/// features), and at most `MAX_ROOT_ITEMS` at the crate root. 40 before `app_db` (a database
/// the app owns: `AppDatabase`, the values it binds and the reader seam host tests implement).
const MAX_ITEMS: usize = 45;
const MAX_ROOT_ITEMS: usize = 20;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Documents `cetp-provider` into a directory of this test's own (never the one `cargo test`
/// is building into) and returns the crate's doc directory.
fn document() -> PathBuf {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("public-api");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(repository())
        .args([
            "doc",
            "--locked",
            "--no-deps",
            "-p",
            "cetp-provider",
            "--features",
            FEATURES,
        ])
        .env("CARGO_TARGET_DIR", &target)
        .env("RUSTDOCFLAGS", "-D warnings")
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo doc failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    target.join("doc").join("cetp_provider")
}

/// The `href`s of `all.html`: one page per public item.
fn item_pages(all: &str) -> Vec<String> {
    let mut pages = Vec::new();
    let mut rest = all;
    while let Some(at) = rest.find("<li><a href=\"") {
        rest = &rest[at + "<li><a href=\"".len()..];
        let end = rest.find('"').expect("a closed href");
        // The sidebar links to the page's own sections (`#structs`); items have pages.
        if rest[..end].ends_with(".html") {
            pages.push(rest[..end].to_owned());
        }
    }
    pages
}

/// `auth/struct.Auth.html` → (`struct`, `auth::Auth`).
fn item_name(page: &str) -> (String, String) {
    let (dirs, file) = page.rsplit_once('/').map_or(("", page), |(d, f)| (d, f));
    let file = file.strip_suffix(".html").expect("an html page");
    let (kind, name) = file.split_once('.').expect("kind.name");
    let path = if dirs.is_empty() {
        name.to_owned()
    } else {
        format!("{}::{name}", dirs.replace('/', "::"))
    };
    (kind.replace("attr", "attribute macro"), path)
}

/// Every `id="…"` of a page, in order.
fn ids(html: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(" id=\"") {
        rest = &rest[at + " id=\"".len()..];
        let end = rest.find('"').expect("a closed id");
        found.push(&rest[..end]);
        rest = &rest[end..];
    }
    found
}

/// What one item's page shows: its members and its trait implementations, as lines.
fn members(path: &str, html: &str) -> Vec<String> {
    #[derive(PartialEq)]
    enum Section {
        Item,
        TraitImpls,
        AutoImpls,
    }
    let own = path.rsplit("::").next().unwrap_or(path);
    let mut section = Section::Item;
    let mut lines = Vec::new();
    for id in ids(html) {
        match id {
            "trait-implementations" | "trait-implementations-list" => {
                section = Section::TraitImpls;
                continue;
            }
            "synthetic-implementations" | "synthetic-implementations-list" => {
                section = Section::AutoImpls;
                continue;
            }
            // Blanket implementations are the standard library's; implementors are the app's.
            "blanket-implementations" | "implementors" => break,
            _ => {}
        }
        match section {
            Section::Item => {
                for prefix in [
                    "structfield.",
                    "variant.",
                    "method.",
                    "tymethod.",
                    "associatedconstant.",
                    "associatedtype.",
                ] {
                    let Some(name) = id.strip_prefix(prefix) else {
                        continue;
                    };
                    let kind = prefix.trim_end_matches('.').replace("tymethod", "method");
                    match name.split_once('.') {
                        // `variant.Host.field.reason`: a field of a struct-like variant.
                        Some((variant, field)) => {
                            if let Some(field) = field.strip_prefix("field.") {
                                lines.push(format!("{path}::{variant}::{field} (variant field)"));
                            }
                        }
                        None => lines.push(format!("{path}::{name} ({kind})")),
                    }
                }
            }
            Section::TraitImpls => {
                if let Some(imp) = id.strip_prefix("impl-") {
                    lines.push(format!("{path}: {}", decode(imp, own)));
                }
            }
            // Of the auto traits, the two a caller relies on across threads; the others come
            // and go with the toolchain.
            Section::AutoImpls => {
                for auto in ["Send", "Sync"] {
                    if id.starts_with(&format!("impl-{auto}-for-"))
                        || id.starts_with(&format!("impl-%21{auto}-for-"))
                    {
                        lines.push(format!("{path}: {}", decode(&id["impl-".len()..], own)));
                    }
                }
            }
        }
    }
    lines.sort();
    lines.dedup();
    lines
}

/// `From%3CToolError%3E-for-Response` → `From<ToolError> for Response`, and `Clone-for-X`
/// → `Clone` on `X`'s own page.
fn decode(id: &str, own: &str) -> String {
    let text = id
        .replace("%3C", "<")
        .replace("%3E", ">")
        .replace("%21", "!")
        .replace("%2C", ",")
        .replace("-for-", " for ");
    match text.strip_suffix(&format!(" for {own}")) {
        Some(bare) => bare.to_owned(),
        None => text,
    }
}

/// Whether the item's page shows it `#[non_exhaustive]` (rustdoc folds a note saying so into a
/// toggle of that class): an enum or struct an app may not match or build exhaustively.
fn non_exhaustive(html: &str) -> bool {
    html.contains("class=\"toggle non-exhaustive\"")
}

/// The API as the snapshot spells it, with the item counts at its head.
fn snapshot(doc: &Path) -> (String, usize, usize) {
    let all = fs::read_to_string(doc.join("all.html")).expect("all.html");
    let mut items = BTreeSet::new();
    let mut body = Vec::new();
    for page in item_pages(&all) {
        let (kind, path) = item_name(&page);
        items.insert(path.clone());
        let html = fs::read_to_string(doc.join(&page)).expect("an item's page");
        let mut block = vec![format!(
            "{kind} cetp_provider::{path}{}",
            if non_exhaustive(&html) {
                " #[non_exhaustive]"
            } else {
                ""
            }
        )];
        block.extend(
            members(&format!("cetp_provider::{path}"), &html)
                .into_iter()
                .map(|m| format!("    {m}")),
        );
        body.push((path, block));
    }
    body.sort();
    let root = items.iter().filter(|p| !p.contains("::")).count();
    let mut text = format!(
        "# The public API of cetp-provider (features {FEATURES}) as rustdoc shows it: {} items, {root} at the root.\n\
         # Regenerate with CETP_BLESS=1 cargo test -p cetp-tests --test public_api (see tests/public_api.rs).\n",
        items.len()
    );
    for (_, block) in body {
        for line in block {
            text.push_str(&line);
            text.push('\n');
        }
    }
    (text, items.len(), root)
}

#[test]
fn the_public_api_is_the_one_checked_in() {
    let (actual, items, root) = snapshot(&document());
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("public_api.txt");
    if std::env::var_os("CETP_BLESS").is_some() {
        fs::write(&file, &actual).unwrap();
    }
    let expected = fs::read_to_string(&file).unwrap_or_default();
    if actual != expected {
        let old: BTreeSet<_> = expected.lines().collect();
        let new: BTreeSet<_> = actual.lines().collect();
        let added: Vec<_> = new.difference(&old).collect();
        let removed: Vec<_> = old.difference(&new).collect();
        panic!(
            "the public API changed.\nadded:\n  {}\nremoved:\n  {}\nIf this is on purpose, run \
             CETP_BLESS=1 cargo test -p cetp-tests --test public_api and commit tests/public_api.txt.",
            added
                .iter()
                .map(|l| l.trim())
                .collect::<Vec<_>>()
                .join("\n  "),
            removed
                .iter()
                .map(|l| l.trim())
                .collect::<Vec<_>>()
                .join("\n  "),
        );
    }
    assert!(
        items <= MAX_ITEMS,
        "{items} public items; the goal is at most {MAX_ITEMS}"
    );
    assert!(
        root <= MAX_ROOT_ITEMS,
        "{root} items at the root; the goal is at most {MAX_ROOT_ITEMS}"
    );
}

#[test]
fn members_are_read_from_the_item_and_its_impls_only() {
    let html = r#"<section id="structfield.name"></section><section id="variant.Host.fields">
        <section id="variant.Host.field.reason"></section><h2 id="implementations">
        <div id="implementations-list"><section id="method.new"></section></div>
        <h2 id="trait-implementations"></h2><section id="impl-Clone-for-X"><section id="method.clone">
        <h2 id="synthetic-implementations"></h2><section id="impl-Send-for-X"></section>
        <section id="impl-Unpin-for-X"></section><section id="impl-%21Sync-for-X"></section>
        <h2 id="blanket-implementations"></h2><section id="impl-Borrow%3CT%3E-for-T"></section>"#;
    assert_eq!(
        members("X", html),
        [
            "X: !Sync",
            "X: Clone",
            "X: Send",
            "X::Host::reason (variant field)",
            "X::name (structfield)",
            "X::new (method)",
        ]
    );
    assert_eq!(
        item_name("auth/struct.Auth.html"),
        ("struct".into(), "auth::Auth".into())
    );
    assert_eq!(
        item_name("attr.tool.html"),
        ("attribute macro".into(), "tool".into())
    );
    assert!(!non_exhaustive(html));
    assert!(non_exhaustive(
        r#"<h2 id="variants">Variants (Non-exhaustive)</h2><details class="toggle non-exhaustive" open>"#
    ));
}
