//! The module structure of `cetp-provider`, checked against its own source tree: no module
//! depends on itself through others (neither the crate's top-level modules nor the files of
//! `src/auth/`), and the core names no host. It reads only the crate's own files; the file
//! tables of `docs/architecture.md` are checked by the workspace tests
//! (`tests/architecture_doc.rs`).
//!
//! A module is a top-level module of the crate (`auth`, `provider`, …); the hosts under
//! `src/host/` are one module each (`host::apex`), because they are independent adapters over
//! the same provider. A dependency is any `crate::…` path in a module's files, a name the crate
//! root re-exports counting as the module that defines it. Test-only files (a module's
//! `tests.rs` and what sits in a `tests/` folder under `src/`) are not part of the structure: a
//! test may reach any module.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The crate's own `src/`.
fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Files under `root` (recursively) ending with `extension`, as `/`-separated relative paths.
fn files(root: &Path, extension: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == extension) {
                let relative = path.strip_prefix(root).unwrap();
                let parts: Vec<_> = relative.iter().map(|p| p.to_string_lossy()).collect();
                found.insert(parts.join("/"));
            }
        }
    }
    found
}

/// The module a file of `src/` belongs to (`None` for the crate root).
fn module_of(relative: &str) -> Option<String> {
    let mut parts = relative.split('/');
    let first = parts.next().unwrap().trim_end_matches(".rs");
    match (first, parts.next()) {
        ("lib", None) => None,
        ("host", Some(second)) if second != "mod.rs" => {
            Some(format!("host::{}", second.trim_end_matches(".rs")))
        }
        _ => Some(first.to_owned()),
    }
}

/// Source text without `//` comments (doc comments included: their examples use the public
/// API, not the crate's modules).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What `pub use module::{A, B}` lines in the crate root re-export: name → module.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for statement in code(lib).split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, items)) = path.split_once("::") else {
            continue;
        };
        for item in items.trim_matches(|c| c == '{' || c == '}').split(',') {
            let item = item.trim();
            if !item.is_empty() {
                names.insert(item.to_owned(), module.to_owned());
            }
        }
    }
    names
}

/// The modules the paths in `source` that start with `crate::` name.
fn dependencies(
    source: &str,
    modules: &BTreeSet<String>,
    reexported: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    let resolve = |path: &str| -> Option<String> {
        let mut segments = path.split("::").map(str::trim);
        let first = segments.next()?;
        let nested = segments.next().map(|second| format!("{first}::{second}"));
        if let Some(nested) = nested.filter(|n| modules.contains(n)) {
            return Some(nested);
        }
        if modules.contains(first) {
            return Some(first.to_owned());
        }
        reexported.get(first).cloned()
    };
    let mut found = BTreeSet::new();
    let source = code(source);
    for (at, _) in source.match_indices("crate::") {
        let rest = &source[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            found.extend(group.split(',').filter_map(resolve));
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            found.extend(resolve(&rest[..end]));
        }
    }
    found
}

/// Whether a file of `src/` holds only tests: `tests.rs`, or a file under a `tests/` folder.
fn is_test_only(relative: &str) -> bool {
    let mut parts: Vec<&str> = relative.split('/').collect();
    let file = parts.pop();
    file == Some("tests.rs") || parts.contains(&"tests")
}

fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = src();
    let rust_files = files(&src, "rs");
    let modules: BTreeSet<String> = rust_files.iter().filter_map(|f| module_of(f)).collect();
    let reexported = reexports(&fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &rust_files {
        let Some(module) = module_of(file) else {
            continue;
        };
        if is_test_only(file) {
            continue;
        }
        let text = fs::read_to_string(src.join(file)).unwrap();
        let uses = dependencies(&text, &modules, &reexported);
        let edges = graph.entry(module.clone()).or_default();
        for target in uses {
            // A host may use its parent (`host`, the shared host vocabulary).
            let parent = module.starts_with(&format!("{target}::"));
            if target != module && !parent && target != "__private" {
                edges.insert(target);
            }
        }
    }
    graph
}

/// A path `from → … → from`, if there is one.
fn cycle_through(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    let mut stack = vec![vec![from.to_owned()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last().unwrap();
        for next in graph.get(last).into_iter().flatten() {
            if next == from {
                let mut cycle = path.clone();
                cycle.push(from.to_owned());
                return Some(cycle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push(longer);
            }
        }
    }
    None
}

#[test]
fn no_module_depends_on_itself() {
    let graph = module_graph();
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|module| cycle_through(&graph, module))
        .map(|cycle| cycle.join(" → "))
        .collect();
    assert!(
        cycles.is_empty(),
        "module cycles:\n  {}",
        cycles.join("\n  ")
    );
}

/// What `use` lines of a module's root file (`pub use`, `pub(crate) use` or private) bring in
/// from its own submodules: name → submodule, for the names in `submodules`.
fn imports_from_submodules(root: &str, submodules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for statement in code(root).split(';') {
        let statement = statement.trim();
        let Some(at) = statement.find("use ") else {
            continue;
        };
        let Some((module, items)) = statement[at + "use ".len()..].split_once("::") else {
            continue;
        };
        if !submodules.contains(module.trim()) {
            continue;
        }
        for item in items.trim_matches(|c| c == '{' || c == '}').split(',') {
            let item = item.trim();
            if !item.is_empty() {
                names.insert(item.to_owned(), module.trim().to_owned());
            }
        }
    }
    names
}

/// The files of `src/auth/` as modules (`store`, `access_log`, …; `mod.rs` is their parent,
/// which each may use) and the siblings each names: through `super::sibling::…`,
/// `crate::auth::sibling::…`, or a name `auth/mod.rs` takes from a sibling (`super::Grant`).
fn auth_graph() -> BTreeMap<String, BTreeSet<String>> {
    let dir = src().join("auth");
    let submodules: BTreeSet<String> = files(&dir, "rs")
        .iter()
        .filter(|f| f.as_str() != "mod.rs" && !is_test_only(&format!("auth/{f}")))
        .map(|f| f.trim_end_matches(".rs").to_owned())
        .collect();
    let imported = imports_from_submodules(
        &fs::read_to_string(dir.join("mod.rs")).unwrap(),
        &submodules,
    );
    let resolve = |path: &str| -> Option<String> {
        let first = path.split("::").next()?.trim();
        if submodules.contains(first) {
            Some(first.to_owned())
        } else {
            imported.get(first).cloned()
        }
    };
    let mut graph = BTreeMap::new();
    for module in &submodules {
        let source = code(&fs::read_to_string(dir.join(format!("{module}.rs"))).unwrap());
        let mut edges = BTreeSet::new();
        for prefix in ["super::", "crate::auth::"] {
            for (at, _) in source.match_indices(prefix) {
                let rest = &source[at + prefix.len()..];
                if let Some(group) = rest.strip_prefix('{') {
                    let group = &group[..group.find('}').unwrap_or(group.len())];
                    edges.extend(group.split(',').filter_map(resolve));
                } else {
                    let end = rest
                        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                        .unwrap_or(rest.len());
                    edges.extend(resolve(&rest[..end]));
                }
            }
        }
        edges.remove(module);
        graph.insert(module.clone(), edges);
    }
    graph
}

#[test]
fn no_module_of_auth_depends_on_itself() {
    let graph = auth_graph();
    // The reader sees a sibling named by path and one named through the parent's imports.
    assert!(graph["admin"].contains("store"));
    assert!(graph["store"].contains("fs"));
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|module| cycle_through(&graph, module))
        .map(|cycle| cycle.join(" → "))
        .collect();
    assert_eq!(
        cycles.len(),
        0,
        "module cycles in auth/:\n  {}",
        cycles.join("\n  ")
    );
}

/// The modules that may name a host: the hosts themselves, what starts and holds them (the
/// runtime, the JNI bridge) and the test kit that calls as an agent.
fn may_name_hosts(module: &str) -> bool {
    module == "host"
        || module.starts_with("host::")
        || ["runtime", "jni", "testing"].contains(&module)
}

#[test]
fn the_core_names_no_host() {
    let graph = module_graph();
    let offenders: Vec<String> = graph
        .iter()
        .filter(|(module, _)| !may_name_hosts(module))
        .flat_map(|(module, edges)| {
            edges
                .iter()
                .filter(|target| target.as_str() == "host" || target.starts_with("host::"))
                .map(move |target| format!("{module} → {target}"))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "the core speaks no protocol, yet these modules name a host:\n  {}",
        offenders.join("\n  ")
    );
    // Nor does a host speak through the core's own type: each host is a type of its own.
    let src = src();
    let grafted: Vec<String> = files(&src.join("host"), "rs")
        .into_iter()
        .filter(|file| {
            let text = code(&fs::read_to_string(src.join("host").join(file)).unwrap());
            text.contains("impl Provider") || text.contains("impl crate::Provider")
        })
        .collect();
    assert!(
        grafted.is_empty(),
        "hosts adding methods to `Provider` (make them a host type built from it): {grafted:?}"
    );
}

#[test]
fn the_graph_reader_sees_the_dependencies_it_must() {
    let graph = module_graph();
    let depends = |from: &str, to: &str| graph.get(from).is_some_and(|e| e.contains(to));
    // Known edges through each kind of path: `crate::module::Item`, a nested host module and a
    // root re-export inside a group (`crate::{App, ProviderBuilder}` in jni/mod.rs).
    assert!(depends("provider", "validate"));
    assert!(depends("runtime", "host::apex"));
    assert!(depends("jni", "app"));
    assert!(depends("jni", "provider"));
    // And never an edge into the crate root's support module or from a host to its parent.
    assert!(!depends("host::cetp_v1", "host"));
    assert!(graph.values().all(|edges| !edges.contains("__private")));
    // Test-only files stay out of the graph; the files they test do not.
    assert!(is_test_only("auth/tests.rs") && is_test_only("auth/tests/support/mod.rs"));
    assert!(!is_test_only("auth/store.rs") && !is_test_only("testing.rs"));

    let mut cyclic = BTreeMap::new();
    cyclic.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    cyclic.insert("b".to_owned(), BTreeSet::from(["c".to_owned()]));
    cyclic.insert("c".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert_eq!(
        cycle_through(&cyclic, "a").map(|c| c.join(" → ")),
        Some("a → b → c → a".to_owned())
    );
    cyclic.get_mut("c").unwrap().clear();
    assert_eq!(cycle_through(&cyclic, "a"), None);
}
