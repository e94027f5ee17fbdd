//! The test kit (`android-testkit/`) plays the agent, so it needs the protocol's words too. Those
//! the Android template's `Wire.java` has, it takes from there: its pom compiles a copy of that
//! file as `dev.cetp.testkit.internal.Wire`, and the kit's constants and code refer to it. The
//! CETP v2 words the template passes through without reading are spelled once in the kit, in
//! `dev.cetp.testkit.CetpV2`. This test proves each of the kit's words equal to the SDK's Rust
//! spelling (`cetp_provider::host::cetp_v2::words`, `cetp_provider::wire`), and that no kit
//! source spells a word of `Wire.java` itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cetp_provider::host::cetp_v2::{Code, words};
use cetp_provider::wire;

mod java;
use java::{StaticFinal, java_constants, java_string_literals, plain_string, static_finals};

/// The kit's Java sources, `android-testkit/testkit/src/main/java`.
fn kit_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../android-testkit/testkit/src/main/java")
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// The constants of the template's `Wire.java`, by name: what the kit's `Wire` holds.
fn wire_java() -> BTreeMap<String, String> {
    java_constants(&read(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../android-template/src/main/java/dev/cetp/Wire.java"),
    ))
}

/// The value of a kit constant: its literal, or the `Wire` constant it is initialized from.
fn resolve(constant: &StaticFinal, wire: &BTreeMap<String, String>) -> String {
    let init = constant.initializer.as_str();
    if let Some(name) = init.strip_prefix("Wire.") {
        return wire
            .get(name)
            .unwrap_or_else(|| panic!("{}: Wire.java has no {name}", constant.name))
            .clone();
    }
    match constant.ty.as_str() {
        "String" => plain_string(init)
            .unwrap_or_else(|| panic!("{}: neither a literal nor Wire's: {init}", constant.name))
            .to_owned(),
        "int" => init.to_owned(),
        other => panic!("{}: unexpected constant type {other}", constant.name),
    }
}

/// Every public `String` and `int` constant of the kit's `CetpV2.java`, resolved.
fn kit_constants() -> BTreeMap<String, String> {
    let wire = wire_java();
    static_finals(&read(&kit_root().join("dev/cetp/testkit/CetpV2.java")))
        .into_iter()
        .filter(|c| c.public && matches!(c.ty.as_str(), "String" | "int"))
        .map(|c| (c.name.clone(), resolve(&c, &wire)))
        .collect()
}

/// What each kit constant must equal.
fn rust_words() -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = [
        ("META_VERSIONS", words::META_VERSIONS),
        ("META_VERSION", wire::META_VERSION),
        ("META_AUTHORITY", wire::META_AUTHORITY),
        ("METHOD_NEGOTIATE", words::METHOD_NEGOTIATE),
        ("METHOD_LIST_TOOLS", wire::METHOD_LIST_TOOLS),
        ("METHOD_GET_PROVIDER_INFO", wire::METHOD_GET_PROVIDER_INFO),
        ("METHOD_EXECUTE_TOOL", wire::METHOD_EXECUTE_TOOL),
        ("EXTRA_PROTOCOL_VERSION", words::EXTRA_PROTOCOL_VERSION),
        ("EXTRA_SESSION_TOKEN", words::EXTRA_SESSION_TOKEN),
        ("EXTRA_REQUEST_ID", words::EXTRA_REQUEST_ID),
        ("EXTRA_DEADLINE_AT_MS", words::EXTRA_DEADLINE_AT_MS),
        ("EXTRA_RESUME_TOKEN", words::EXTRA_RESUME_TOKEN),
        ("EXTRA_CONSUMER_VERSIONS", words::EXTRA_CONSUMER_VERSIONS),
        (
            "EXTRA_CONSUMER_CAPABILITIES",
            words::EXTRA_CONSUMER_CAPABILITIES,
        ),
        ("EXTRA_TOOL_NAME", wire::EXTRA_TOOL_NAME),
        ("EXTRA_ARGS", wire::EXTRA_ARGS),
        ("KEY_STATUS", wire::KEY_STATUS),
        ("KEY_DATA", wire::KEY_DATA),
        ("KEY_ERROR_CODE", wire::KEY_ERROR_CODE),
        ("KEY_ERROR_MESSAGE", wire::KEY_ERROR_MESSAGE),
        ("KEY_RESOLUTION_HINT", wire::KEY_RESOLUTION_HINT),
        ("KEY_PROTOCOL_VERSION", words::KEY_PROTOCOL_VERSION),
        ("KEY_REQUEST_ID", words::KEY_REQUEST_ID),
        ("KEY_RETRYABLE", words::KEY_RETRYABLE),
        ("KEY_RETRY_AFTER_MS", words::KEY_RETRY_AFTER_MS),
        ("KEY_RESUME_TOKEN", words::KEY_RESUME_TOKEN),
        ("KEY_RESOLUTION", words::KEY_RESOLUTION),
        ("STATUS_SUCCESS", wire::STATUS_SUCCESS),
        ("STATUS_ERROR", wire::STATUS_ERROR),
        ("RESULT_KIND_INLINE", words::RESULT_KIND_INLINE),
        ("RESULT_KIND_FILE", words::RESULT_KIND_FILE),
        ("KEY_RESULT_FD", words::KEY_RESULT_FD),
        ("MEDIA_TYPE_JSON", words::MEDIA_TYPE_JSON),
        ("CAPABILITY_LARGE_RESULTS", words::CAPABILITY_LARGE_RESULTS),
        ("SCHEMA_DIALECT", words::SCHEMA_DIALECT),
        ("METHOD_GET_OPERATION", words::METHOD_GET_OPERATION),
        ("METHOD_CANCEL_OPERATION", words::METHOD_CANCEL_OPERATION),
        ("EXTRA_OPERATION_ID", words::EXTRA_OPERATION_ID),
        ("STATUS_ACCEPTED", words::STATUS_ACCEPTED),
        (
            "CAPABILITY_ASYNC_OPERATIONS",
            words::CAPABILITY_ASYNC_OPERATIONS,
        ),
        ("CAPABILITY_CANCELLATION", words::CAPABILITY_CANCELLATION),
        ("EXECUTION_SYNC", words::EXECUTION_SYNC),
        ("EXECUTION_SYNC_OR_ASYNC", words::EXECUTION_SYNC_OR_ASYNC),
        ("STATE_QUEUED", words::STATE_QUEUED),
        ("STATE_RUNNING", words::STATE_RUNNING),
        ("STATE_SUCCEEDED", words::STATE_SUCCEEDED),
        ("STATE_FAILED", words::STATE_FAILED),
        ("STATE_CANCELLED", words::STATE_CANCELLED),
        (
            "STATE_CANCELLATION_REQUESTED",
            words::STATE_CANCELLATION_REQUESTED,
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    out.insert(
        "PROTOCOL_VERSION".to_owned(),
        words::PROTOCOL_VERSION.to_string(),
    );
    for code in Code::ALL {
        out.insert(code.as_str().to_owned(), code.as_str().to_owned());
    }
    out
}

#[test]
fn the_kits_v2_words_equal_the_sdks() {
    let kit = kit_constants();
    let rust = rust_words();
    let mut problems = Vec::new();
    for (name, value) in &kit {
        match rust.get(name) {
            Some(expected) if expected == value => {}
            Some(expected) => problems.push(format!("CetpV2.{name} = {value:?}, Rust has {expected:?}")),
            None => problems.push(format!(
                "CetpV2.{name} has no Rust counterpart in this test; map it to its words.rs or wire.rs constant"
            )),
        }
    }
    for name in rust.keys() {
        if !kit.contains_key(name) {
            problems.push(format!("CetpV2.{name} is missing from the kit"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The public kit classes' constants (other than `CetpV2`'s) taken from `Wire`, each with the
/// SDK's word its public name stands for: an app's test reads the name, so it must mean that
/// word and not merely some word of `Wire.java`. A new one fails until it is mapped here.
#[test]
fn the_kits_public_constants_from_wire_mean_the_sdks_words() {
    let expected: &[(&str, &str, &str)] = &[(
        "dev/cetp/testkit/AppsWithAccess.java",
        "ACTION_SUFFIX",
        wire::MANAGE_ACTION_SUFFIX,
    )];
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    let wire = wire_java();
    for file in kit_sources() {
        let relative = file
            .strip_prefix(kit_root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if relative.contains("/internal/") || relative.ends_with("/CetpV2.java") {
            continue;
        }
        for constant in static_finals(&read(&file)) {
            if !constant.public || !constant.initializer.starts_with("Wire.") {
                continue;
            }
            seen.push((relative.clone(), constant.name.clone()));
            let value = resolve(&constant, &wire);
            match expected
                .iter()
                .find(|(f, n, _)| *f == relative && *n == constant.name)
            {
                Some((_, _, word)) if *word == value => {}
                Some((_, _, word)) => problems.push(format!(
                    "{relative}: {} = {} ({value:?}), Rust has {word:?}",
                    constant.name, constant.initializer
                )),
                None => problems.push(format!(
                    "{relative}: {} is new: map it here to the Rust word it stands for",
                    constant.name
                )),
            }
        }
    }
    for (file, name, _) in expected {
        if !seen.iter().any(|(f, n)| f == file && n == name) {
            problems.push(format!("{file}: {name} is missing or not taken from Wire"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every Java source of the kit (the public API and `internal`), sorted.
fn kit_sources() -> Vec<PathBuf> {
    java::java_files(&kit_root())
}

/// A word of `Wire.java` that the kit spells itself instead of taking it from `Wire`, or `None`.
///
/// Many of `Wire.java`'s values are short generic words ("id", "name", "state", "s", …) that
/// the kit rightly uses for other things (manifest attributes, v1 tool fields, resource types),
/// so a value alone does not make a copy. The rules:
///
/// - a `static final String` initialized by a literal and named as a `Wire` constant is a copy,
///   whatever its value;
/// - a `static final String` initialized by a literal that equals a *protocol word* is a copy:
///   the value of a `Wire` constant outside the admin JSON (`ADMIN_*`), the Apex JSON keys
///   (`APEX_KEY_*`) and the typed-extra tags (`TAG_*`), which are the generic ones;
/// - any other string literal that equals a protocol word is a copy, unless that word is one
///   plain lowercase English word ("status", "data", "error", "negotiate", …): those also name
///   other things the kit reads (the manifest's `<data>` element) or label its messages.
fn copied_word(
    constant: Option<&StaticFinal>,
    literal: &str,
    wire: &BTreeMap<String, String>,
) -> Option<String> {
    let generic = |name: &str| {
        ["ADMIN_", "APEX_KEY_", "TAG_"]
            .iter()
            .any(|p| name.starts_with(p))
    };
    if let Some(constant) = constant.filter(|c| wire.contains_key(&c.name)) {
        return Some(format!(
            "{} = \"{literal}\" copies Wire.{}",
            constant.name, constant.name
        ));
    }
    let plain_word = literal.chars().all(|c| c.is_ascii_lowercase());
    if constant.is_none() && plain_word {
        return None;
    }
    let (name, _) = wire
        .iter()
        .find(|(name, value)| value.as_str() == literal && !generic(name))?;
    Some(match constant {
        Some(constant) => format!("{} = \"{literal}\" copies Wire.{name}", constant.name),
        None => format!("\"{literal}\" copies Wire.{name}"),
    })
}

/// No source of the kit spells a word `Wire.java` has (see [`copied_word`]): it takes it from
/// `dev.cetp.testkit.internal.Wire`, the copy of `Wire.java` its pom compiles.
#[test]
fn the_kit_spells_no_word_of_wire_java_itself() {
    let wire = wire_java();
    // The rules, on what the kit once spelled itself.
    let constant = |name: &str, literal: &str| StaticFinal {
        public: true,
        ty: "String".to_owned(),
        name: name.to_owned(),
        initializer: format!("\"{literal}\""),
        one_line: true,
    };
    for (name, literal) in [
        ("KEY_STATUS", "status"),
        ("AUTH_REQUIRED", "AUTH_REQUIRED"),
        ("ACTION", "com.apex.agent.plugin.PLUGIN"),
        ("APEX_KEY_ID", "id"),
    ] {
        assert!(
            copied_word(Some(&constant(name, literal)), literal, &wire).is_some(),
            "{name}"
        );
    }
    assert!(copied_word(Some(&constant("ATTRIBUTE", "name")), "name", &wire).is_none());
    assert!(copied_word(None, "Error: ", &wire).is_some());
    assert!(copied_word(None, "data", &wire).is_none());
    assert!(copied_word(None, "id", &wire).is_none());

    let files = kit_sources();
    for known in [
        "CetpV2.java",
        "CetpTransport.java",
        "ApexAgent.java",
        "ConsentAdmin.java",
    ] {
        assert!(
            files.iter().any(|f| f.ends_with(known)),
            "{known} is not among the kit's sources"
        );
    }
    let mut problems = Vec::new();
    for file in &files {
        let source = read(file);
        let relative = file.strip_prefix(kit_root()).unwrap().display().to_string();
        let constants: Vec<StaticFinal> = static_finals(&source)
            .into_iter()
            .filter(|c| c.ty == "String")
            .collect();
        // The constants' literals, checked as constants and not again among the other literals.
        let mut initializers = Vec::new();
        for constant in &constants {
            let Some(literal) = plain_string(&constant.initializer) else {
                continue;
            };
            initializers.push(literal);
            let problem = copied_word(Some(constant), literal, &wire);
            problems.extend(problem.map(|p| format!("{relative}: {p}")));
        }
        for literal in java_string_literals(&source) {
            if let Some(at) = initializers.iter().position(|i| *i == literal) {
                initializers.swap_remove(at);
                continue;
            }
            if let Some(problem) = copied_word(None, &literal, &wire) {
                problems.push(format!("{relative}: {problem}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "take these from dev.cetp.testkit.internal.Wire:\n{}",
        problems.join("\n")
    );
}
