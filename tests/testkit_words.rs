//! The test kit (`android-testkit/`) spells the CETP v2 words its consumer sends and reads in
//! `dev.cetp.testkit.CetpV2`; this test proves each equal to the SDK's Rust spelling
//! (`cetp_provider::host::cetp_v2::words`, `cetp_provider::wire`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use cetp_provider::host::cetp_v2::{Code, words};
use cetp_provider::wire;

mod java;

/// Every `public static final String|int NAME = value;` of the kit's `CetpV2.java`.
fn kit_constants() -> BTreeMap<String, String> {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../android-testkit/testkit/src/main/java/dev/cetp/testkit/CetpV2.java");
    let source =
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    java::java_constants(&source)
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
        ("SCHEMA_DIALECT", words::SCHEMA_DIALECT),
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

/// The public `String` constants of one kit class (`dev/cetp/<package>/<class>.java`) whose
/// value is a plain literal: the only form a protocol word takes there.
fn kit_class_strings(package: &str, class: &str) -> BTreeMap<String, String> {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../android-testkit/testkit/src/main/java/dev/cetp/{package}/{class}.java"
    ));
    let source =
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut out = BTreeMap::new();
    for line in source.lines() {
        let Some(rest) = line.trim().strip_prefix("public static final String ") else {
            continue;
        };
        let Some((name, value)) = rest.split_once(" = ") else {
            continue;
        };
        let plain = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix("\";"))
            .filter(|v| !v.contains(['\\', '"']));
        if let Some(value) = plain {
            out.insert(name.to_owned(), value.to_owned());
        }
    }
    out
}

/// A kit class (its package and name) and the SDK's word each of its constants must equal.
type KitClass = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// The CETP v1 and Apex words the kit's other classes keep (the v1 transport and its reply keys,
/// the Apex agent, Apps with access): each equal to the SDK's, class by class. A new string constant
/// of these classes fails until it is mapped here or listed as the kit's own.
#[test]
fn the_kits_v1_and_apex_words_equal_the_sdks() {
    let expected: &[KitClass] = &[
        (
            "testkit/internal",
            "CetpTransport",
            &[
                ("ACTION_TOOL_PROVIDER", wire::DISCOVERY_ACTION),
                ("META_AUTHORITY", wire::META_AUTHORITY),
                ("META_VERSION", wire::META_VERSION),
                ("METHOD_LIST_TOOLS", wire::METHOD_LIST_TOOLS),
                ("METHOD_EXECUTE_TOOL", wire::METHOD_EXECUTE_TOOL),
                ("METHOD_GET_PROVIDER_INFO", wire::METHOD_GET_PROVIDER_INFO),
                ("EXTRA_TOOL_NAME", wire::EXTRA_TOOL_NAME),
                ("EXTRA_ARGS", wire::EXTRA_ARGS),
                ("EXTRA_REQUEST_ID", wire::EXTRA_REQUEST_ID),
                ("KEY_STATUS", wire::KEY_STATUS),
                ("KEY_DATA", wire::KEY_DATA),
                ("KEY_ERROR_CODE", wire::KEY_ERROR_CODE),
                ("KEY_ERROR_MESSAGE", wire::KEY_ERROR_MESSAGE),
                ("KEY_RESOLUTION_HINT", wire::KEY_RESOLUTION_HINT),
                ("KEY_AUTHORIZE_INTENT", wire::KEY_AUTHORIZE_INTENT),
            ],
        ),
        (
            "testkit/internal",
            "ApexAgent",
            &[("ACTION", wire::APEX_PLUGIN_ACTION)],
        ),
        (
            "testkit",
            "AppsWithAccess",
            &[("ACTION_SUFFIX", wire::MANAGE_ACTION_SUFFIX)],
        ),
    ];
    // String constants of those classes that are the kit's own choices, not protocol words.
    let own: [(&str, &str); 0] = [];
    let mut problems = Vec::new();
    for (package, class, words) in expected {
        let kit = kit_class_strings(package, class);
        for (name, value) in words.iter() {
            match kit.get(*name) {
                Some(found) if found == value => {}
                Some(found) => {
                    problems.push(format!("{class}.{name} = {found:?}, Rust has {value:?}"))
                }
                None => problems.push(format!("{class}.{name} is missing from the kit")),
            }
        }
        for name in kit.keys() {
            let mapped = words.iter().any(|(n, _)| n == name);
            let listed = own.iter().any(|(c, n)| c == class && n == name);
            if !mapped && !listed {
                problems.push(format!(
                    "{class}.{name} is new: map it to its wire.rs constant here, or list it as the kit's own"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
