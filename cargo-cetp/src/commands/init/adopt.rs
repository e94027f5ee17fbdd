//! The provider added to a crate the project already has (the app's cdylib, often a member of
//! a workspace built by a Gradle Rust plugin): its `Cargo.toml` gets the SDK, the library
//! types tests and `cargo cetp` need, and `[package.metadata.cetp]`; its library a module
//! `agent_tools` with the example tool and `export_provider!`; `tests/agent_tools.rs` the
//! conformance tests. `Cargo.toml` is edited with a format-preserving TOML editor: comments,
//! order and layout stay as they are.

use std::path::{Path, PathBuf};

use toml_edit::{Array, DocumentMut, Item, Table, Value};

use super::target::Existing;
use super::{NOT_UTF8, Project, Step, Text, append, read};
use crate::Result;
use crate::android_build::android::relative;
use crate::android_build::layout::code_lines;
use crate::commands::new::{self, SERDE_JSON_VERSION, SERDE_VERSION, TEMPFILE_VERSION};

/// The module `init` adds to the library.
const MODULE: &str = "agent_tools";

/// The steps for `existing`.
pub(super) fn steps(project: &Project, existing: &Existing) -> Result<Vec<Step>> {
    let mut steps: Vec<Step> = manifest(project, existing)?.into_iter().collect();
    steps.extend(module(project, existing)?);
    steps.extend(profile(existing)?);
    Ok(steps)
}

/// `Cargo.toml`: the SDK (with `jni`; with `test-util` for tests), serde's derive, tempfile for
/// the tests, a `cdylib` and an `rlib`, and the app module under `[package.metadata.cetp]`.
fn manifest(project: &Project, existing: &Existing) -> Result<Option<Step>> {
    let file = existing.manifest.clone();
    let dependency = new::sdk_dependency(&project.sdk, &existing.dir)?;
    let module = relative(
        &super::resolved(&existing.dir),
        &super::resolved(&project.layout.module),
    );
    let module = module.to_string_lossy().into_owned();
    let lines = manual_lines(&dependency, &module);
    let text = match read(&file)? {
        Text::Utf8(text) => text,
        Text::Missing | Text::NotUtf8 => {
            return Ok(Some(Step::Manual(file, NOT_UTF8.to_owned(), lines)));
        }
    };
    let mut doc: DocumentMut = match text.parse() {
        Ok(doc) => doc,
        Err(e) => {
            let first = e.to_string();
            let first = first.lines().next().unwrap_or_default().trim().to_owned();
            return Ok(Some(Step::Manual(
                file,
                format!("its TOML does not parse: {first}"),
                lines,
            )));
        }
    };
    let added = match edit(&mut doc, &dependency, &module) {
        Ok(added) => added,
        Err(why) => return Ok(Some(Step::Manual(file, why, lines))),
    };
    if added.is_empty() {
        return Ok(Some(Step::Unchanged(
            file,
            format!(
                "the crate `{}` depends on cetp-provider (lib{}.so)",
                existing.package, existing.lib_name
            ),
        )));
    }
    let out = keep_line_endings(&text, &doc.to_string());
    project
        .writer
        .put(file, &out, added.join("; "), lines)
        .map(Some)
}

/// What a developer adds by hand when `Cargo.toml` cannot be edited.
fn manual_lines(dependency: &str, module: &str) -> String {
    format!(
        "[lib]\ncrate-type = [\"cdylib\", \"rlib\"]   # keep the types it has, add these\n\n\
         [dependencies]\ncetp-provider = {{ {dependency}, features = [\"jni\"] }}\n\
         serde = {{ version = \"{SERDE_VERSION}\", features = [\"derive\"] }}\n\n\
         [dev-dependencies]\ncetp-provider = {{ {dependency}, features = [\"test-util\"] }}\n\
         serde_json = \"{SERDE_JSON_VERSION}\"\ntempfile = \"{TEMPFILE_VERSION}\"\n\n\
         [package.metadata.cetp]\nandroid-module = \"{module}\""
    )
}

/// Edits `doc`; what was added, one phrase each (empty: nothing to add).
fn edit(doc: &mut DocumentMut, dependency: &str, module: &str) -> Result<Vec<String>, String> {
    let mut added = Vec::new();
    let sdk = |feature: &str| inline(&format!("{{ {dependency}, features = [\"{feature}\"] }}"));

    // [lib] crate-type: a cdylib (the app's .so) and an rlib (its tests, cargo cetp).
    let lib = table(doc.as_table_mut(), "lib")?;
    match lib.get_mut("crate-type") {
        None => {
            lib.insert(
                "crate-type",
                Item::Value(Value::Array(strings(&["cdylib", "rlib"]))),
            );
            added.push("crate-type = [\"cdylib\", \"rlib\"]".to_owned());
        }
        Some(item) => {
            let types = item
                .as_array_mut()
                .ok_or("its [lib] crate-type is not a list")?;
            let has = |t: &str| types.iter().any(|v| v.as_str() == Some(t));
            let mut more = Vec::new();
            if !has("cdylib") {
                more.push("cdylib");
            }
            if !has("rlib") && !has("lib") {
                more.push("rlib");
            }
            for t in &more {
                types.push(*t);
            }
            if !more.is_empty() {
                added.push(format!("crate-type + {}", more.join(", ")));
            }
        }
    }

    let deps = table(doc.as_table_mut(), "dependencies")?;
    match deps.get_mut("cetp-provider") {
        None => {
            deps.insert("cetp-provider", Item::Value(sdk("jni")?));
            added.push("cetp-provider (jni)".to_owned());
        }
        Some(item) => {
            if add_feature(item, "jni")? {
                added.push("cetp-provider's feature jni".to_owned());
            }
        }
    }
    match deps.get_mut("serde") {
        None => {
            deps.insert(
                "serde",
                Item::Value(inline(&format!(
                    "{{ version = \"{SERDE_VERSION}\", features = [\"derive\"] }}"
                ))?),
            );
            added.push("serde (derive)".to_owned());
        }
        Some(item) => {
            if add_feature(item, "derive")? {
                added.push("serde's feature derive".to_owned());
            }
        }
    }

    let dev = table(doc.as_table_mut(), "dev-dependencies")?;
    if !dev.contains_key("cetp-provider") {
        dev.insert("cetp-provider", Item::Value(sdk("test-util")?));
        added.push("cetp-provider (test-util) for tests".to_owned());
    }
    for (name, version) in [
        ("serde_json", SERDE_JSON_VERSION),
        ("tempfile", TEMPFILE_VERSION),
    ] {
        let in_dev = doc
            .get("dev-dependencies")
            .and_then(Item::as_table_like)
            .is_some_and(|d| d.contains_key(name));
        if !in_dev && !deps_have(doc, name) {
            table(doc.as_table_mut(), "dev-dependencies")?
                .insert(name, Item::Value(Value::from(version)));
            added.push(format!("{name} for tests"));
        }
    }

    let package = doc
        .get_mut("package")
        .and_then(Item::as_table_like_mut)
        .ok_or("it has no [package]")?;
    if package.get("metadata").is_none() {
        let mut metadata = Table::new();
        metadata.set_implicit(true);
        package.insert("metadata", Item::Table(metadata));
    }
    let metadata = package
        .get_mut("metadata")
        .and_then(Item::as_table_like_mut)
        .ok_or("its package.metadata is not a table")?;
    if metadata.get("cetp").is_none() {
        let mut cetp = Table::new();
        // Last of all, after the tables added above.
        cetp.set_position(Some(isize::MAX));
        metadata.insert("cetp", Item::Table(cetp));
    }
    let cetp = metadata
        .get_mut("cetp")
        .and_then(Item::as_table_like_mut)
        .ok_or("its package.metadata.cetp is not a table")?;
    if cetp.get("android-module").is_none() {
        cetp.insert("android-module", Item::Value(Value::from(module)));
        added.push(format!(
            "[package.metadata.cetp] android-module = \"{module}\""
        ));
    }
    Ok(added)
}

/// Whether `[dependencies]` has `name` (a test can use it then).
fn deps_have(doc: &DocumentMut, name: &str) -> bool {
    doc.get("dependencies")
        .and_then(Item::as_table_like)
        .is_some_and(|d| d.contains_key(name))
}

/// The table `key` of `parent`, created (as `[key]`) when missing.
fn table<'a>(parent: &'a mut Table, key: &str) -> Result<&'a mut Table, String> {
    parent
        .entry(key)
        .or_insert_with(|| Item::Table(last_table()))
        .as_table_mut()
        .ok_or_else(|| format!("its [{key}] is not a table"))
}

/// A new table, written after every table the file has.
fn last_table() -> Table {
    let mut table = Table::new();
    table.set_position(Some(isize::MAX - 1));
    table
}

/// `text`, an inline value such as `{ path = "…", features = ["jni"] }`.
fn inline(text: &str) -> Result<Value, String> {
    text.parse::<Value>()
        .map_err(|e| format!("cannot write `{text}`: {e}"))
}

fn strings(items: &[&str]) -> Array {
    items.iter().copied().collect()
}

/// Adds `feature` to a dependency (`"1"` becomes `{ version = "1", features = [...] }`);
/// whether it was missing. A dependency taken from the workspace (`workspace = true`) gets the
/// feature beside it, which Cargo adds to the workspace's.
fn add_feature(item: &mut Item, feature: &str) -> Result<bool, String> {
    if let Some(version) = item.as_str().map(str::to_owned) {
        let mut table = toml_edit::InlineTable::new();
        table.insert("version", Value::from(version));
        table.insert("features", Value::Array(strings(&[feature])));
        *item = Item::Value(Value::InlineTable(table));
        return Ok(true);
    }
    let table = item
        .as_table_like_mut()
        .ok_or("a dependency it declares is neither a version nor a table")?;
    match table.get_mut("features") {
        None => {
            table.insert("features", Item::Value(Value::Array(strings(&[feature]))));
            Ok(true)
        }
        Some(features) => {
            let features = features
                .as_array_mut()
                .ok_or("a dependency's features are not a list")?;
            if features.iter().any(|f| f.as_str() == Some(feature)) {
                return Ok(false);
            }
            features.push(feature);
            Ok(true)
        }
    }
    .inspect(|_| {
        if let Some(inline) = item.as_inline_table_mut() {
            inline.fmt();
        }
    })
}

/// `edited` with the line endings of `original` (the editor writes `\n`).
fn keep_line_endings(original: &str, edited: &str) -> String {
    if original.contains("\r\n") {
        edited.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        edited.to_owned()
    }
}

/// The module with the provider, the line that declares it in the library, and its tests;
/// nothing when the crate exports a provider already.
fn module(project: &Project, existing: &Existing) -> Result<Vec<Step>> {
    let src = existing
        .lib_src
        .parent()
        .map_or_else(|| existing.dir.join("src"), Path::to_path_buf);
    let sources = rust_files(&src);
    if let Some(exporting) = sources.iter().find(|f| mentions(f, "export_provider!")) {
        return Ok(vec![Step::Unchanged(
            exporting.clone(),
            "exports the provider (export_provider!)".to_owned(),
        )]);
    }
    let own_onload = sources
        .iter()
        .find(|f| mentions(f, "fn JNI_OnLoad"))
        .cloned();
    let export = if own_onload.is_some() {
        "// The library defines its own JNI_OnLoad, which calls cetp_provider::jni::on_load.\n\
         cetp_provider::export_provider!(provider, jni_onload = false);"
    } else {
        "cetp_provider::export_provider!(provider);"
    };
    let names = &project.names;
    let text = new::provider_module(
        &names.title,
        &format!(
            "{}'s data as read-only tools for on-device AI agents (CETP, Apex): the example tool, \
             the provider and its export. Added by `cargo cetp init`; make it yours.",
            names.title
        ),
        // The SDK's schemars, whatever version (if any) the crate depends on.
        "use cetp_provider::schemars::{self, JsonSchema};",
        export,
    );
    let module_file = src.join(format!("{MODULE}.rs"));
    let mut steps = Vec::new();
    if module_file.exists() {
        return Ok(vec![Step::Manual(
            module_file,
            "it is there, and cargo cetp init replaces no file".to_owned(),
            format!(
                "(the provider module, as in `cargo cetp new`'s src/lib.rs)\npub mod {MODULE};"
            ),
        )]);
    }
    steps.push(project.writer.create(
        module_file.clone(),
        &text,
        format!(
            "the module `{MODULE}`: an example tool, the provider `{}`, export_provider!",
            names.title
        ),
        format!(
            "(write the provider into {}, as `cargo cetp new` writes src/lib.rs)",
            module_file.display()
        ),
    )?);

    let declaration = format!("pub mod {MODULE};");
    let lib = existing.lib_src.clone();
    let lines = format!(
        "// {}'s data as tools for on-device AI agents (CETP, Apex).\n{declaration}\n",
        names.title
    );
    steps.push(match read(&lib)? {
        Text::Utf8(text) => {
            let declared = code_lines(&text)
                .iter()
                .any(|l| l.trim() == declaration || l.trim() == format!("mod {MODULE};"));
            if declared {
                Step::Unchanged(lib, format!("declares the module `{MODULE}`"))
            } else {
                project.writer.put(
                    lib,
                    &append(&text, &format!("\n{lines}")),
                    declaration.clone(),
                    lines,
                )?
            }
        }
        Text::Missing | Text::NotUtf8 => Step::Manual(lib, NOT_UTF8.to_owned(), lines),
    });
    if let Some(onload) = own_onload {
        steps.push(Step::Manual(
            onload,
            "it defines JNI_OnLoad, which the library may have only once".to_owned(),
            format!(
                "in JNI_OnLoad, after the library's own work:\n\
                 cetp_provider::jni::on_load(vm, crate::{MODULE}::provider)"
            ),
        ));
    }
    let test = existing.dir.join(format!("tests/{MODULE}.rs"));
    if test.exists() {
        steps.push(Step::Unchanged(test, "is there (left as it is)".to_owned()));
    } else {
        steps.push(project.writer.create(
            test.clone(),
            &new::provider_test(
                &names.package,
                &format!("{}::{MODULE}::provider", existing.lib_name),
            ),
            "the provider driven as an agent drives it (cetp_provider::testing)".to_owned(),
            format!(
                "(the tests of `cargo cetp new`'s tests/provider.rs, into {})",
                test.display()
            ),
        )?);
    }
    Ok(steps)
}

/// A release profile that aborts on panic, which the SDK cannot work with: left to the
/// developer (the profile is theirs), with the line to change.
fn profile(existing: &Existing) -> Result<Option<Step>> {
    let file = existing.workspace_root.join("Cargo.toml");
    let Text::Utf8(text) = read(&file)? else {
        return Ok(None);
    };
    let Ok(table) = text.parse::<toml::Table>() else {
        return Ok(None);
    };
    let aborts = table
        .get("profile")
        .and_then(|p| p.get("release"))
        .and_then(|r| r.get("panic"))
        .and_then(toml::Value::as_str)
        == Some("abort");
    Ok(aborts.then(|| {
        Step::Manual(
            file,
            "its release profile aborts on panic: a panicking tool would end the app instead of \
             answering INTERNAL_ERROR"
                .to_owned(),
            "[profile.release]\npanic = \"unwind\"".to_owned(),
        )
    }))
}

/// The `.rs` files under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "rs") => {
                    out.push(path);
                }
                _ => {}
            }
        }
    }
    out.sort();
    out
}

/// Whether the code of `file` (comments aside) mentions `what`.
fn mentions(file: &Path, what: &str) -> bool {
    std::fs::read_to_string(file)
        .is_ok_and(|text| code_lines(&text).iter().any(|l| l.contains(what)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_manifest_gets_what_it_lacks_and_keeps_the_rest() {
        let original = "# The FFI crate Kotlin calls through UniFFI.\n[package]\nname = \"journal-ffi\"\nversion.workspace = true\n\n[lib]\nname = \"journal_ffi\"\ncrate-type = [\"cdylib\", \"staticlib\"] # Android, iOS\n\n[dependencies]\nuniffi.workspace = true\nserde = { workspace = true }\nschemars = \"0.8\"\n";
        let mut doc: DocumentMut = original.parse().unwrap();
        let added = edit(&mut doc, "path = \"../../sdk/cetp-provider\"", "../../app").unwrap();
        let text = doc.to_string();
        assert!(text.starts_with("# The FFI crate Kotlin calls through UniFFI.\n[package]\nname = \"journal-ffi\"\nversion.workspace = true\n"), "{text}");
        assert!(
            text.contains("crate-type = [\"cdylib\", \"staticlib\", \"rlib\"] # Android, iOS"),
            "{text}"
        );
        assert!(text.contains("uniffi.workspace = true\nserde = { workspace = true, features = [\"derive\"] }\nschemars = \"0.8\"\ncetp-provider = { path = \"../../sdk/cetp-provider\", features = [\"jni\"] }\n"), "{text}");
        assert!(text.contains("[dev-dependencies]\ncetp-provider = { path = \"../../sdk/cetp-provider\", features = [\"test-util\"] }\nserde_json = \"1"), "{text}");
        assert!(
            text.ends_with("[package.metadata.cetp]\nandroid-module = \"../../app\"\n"),
            "{text}"
        );
        assert_eq!(added.len(), 7, "{added:?}");
        // A second edit adds nothing.
        let mut again: DocumentMut = text.parse().unwrap();
        assert!(edit(&mut again, "path = \"x\"", "y").unwrap().is_empty());
        assert_eq!(again.to_string(), text);
    }

    #[test]
    fn a_plain_version_gets_the_feature_and_a_missing_crate_type_both_types() {
        let mut doc: DocumentMut =
            "[package]\nname = \"core\"\n\n[dependencies]\nserde = \"1.0\"\n"
                .parse()
                .unwrap();
        edit(&mut doc, "git = \"https://example.com/cetp-rs\"", "../app").unwrap();
        let text = doc.to_string();
        assert!(
            text.contains("serde = { version = \"1.0\", features = [\"derive\"] }"),
            "{text}"
        );
        assert!(
            text.contains("[lib]\ncrate-type = [\"cdylib\", \"rlib\"]"),
            "{text}"
        );
        assert!(
            text.contains(
                "cetp-provider = { git = \"https://example.com/cetp-rs\", features = [\"jni\"] }"
            ),
            "{text}"
        );
    }

    #[test]
    fn shapes_it_cannot_edit_are_reasons() {
        for (text, why) in [
            (
                "[package]\nname = \"x\"\n[lib]\ncrate-type = \"cdylib\"\n",
                "crate-type is not a list",
            ),
            ("lib = 3\n[package]\nname = \"x\"\n", "[lib] is not a table"),
            (
                "[package]\nname = \"x\"\n[dependencies]\nserde = 1\n",
                "neither a version nor a table",
            ),
        ] {
            let mut doc: DocumentMut = text.parse().unwrap();
            let err = edit(&mut doc, "path = \"p\"", "m").unwrap_err();
            assert!(err.contains(why), "{err}");
        }
    }

    #[test]
    fn crlf_is_kept() {
        assert_eq!(
            keep_line_endings("a\r\nb\r\n", "a\nb\nc\n"),
            "a\r\nb\r\nc\r\n"
        );
        assert_eq!(keep_line_endings("a\nb\n", "a\nb\nc\n"), "a\nb\nc\n");
    }
}
