//! The Android template (`android-template/`) spells the protocol strings it needs in Java and
//! XML; this test proves they equal `cetp_provider::wire`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use cetp_provider::host::cetp_v2::{extras, words};
use cetp_provider::{ErrorCode, wire};

mod java;
use java::{java_constants, java_string_literals};

fn template_file(path: &str) -> String {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../android-template")
        .join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// What each `Wire.java` constant must equal.
fn rust_wire() -> BTreeMap<&'static str, String> {
    [
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
        ("STATUS_SUCCESS", wire::STATUS_SUCCESS),
        ("STATUS_ERROR", wire::STATUS_ERROR),
        ("CODE_AUTH_REQUIRED", ErrorCode::AuthRequired.as_str()),
        (
            "CODE_PERMISSION_DENIED",
            ErrorCode::PermissionDenied.as_str(),
        ),
        ("CODE_TOOL_NOT_FOUND", ErrorCode::ToolNotFound.as_str()),
        ("CODE_INVALID_ARGS", ErrorCode::InvalidArgs.as_str()),
        ("CODE_RATE_LIMITED", ErrorCode::RateLimited.as_str()),
        ("CODE_INTERNAL_ERROR", ErrorCode::InternalError.as_str()),
        ("APEX_PLUGIN_ACTION", wire::APEX_PLUGIN_ACTION),
        ("APEX_ERROR_PREFIX", wire::APEX_ERROR_PREFIX),
        ("APEX_KEY_ID", wire::APEX_KEY_ID),
        ("APEX_KEY_NAME", wire::APEX_KEY_NAME),
        ("APEX_KEY_DESCRIPTION", wire::APEX_KEY_DESCRIPTION),
        ("APEX_KEY_VERSION", wire::APEX_KEY_VERSION),
        ("APEX_KEY_VERSION_NAME", wire::APEX_KEY_VERSION_NAME),
        ("APEX_KEY_MIN_HOST_VERSION", wire::APEX_KEY_MIN_HOST_VERSION),
        ("AUTHORIZE_ACTION_SUFFIX", wire::AUTHORIZE_ACTION_SUFFIX),
        ("MANAGE_ACTION_SUFFIX", wire::MANAGE_ACTION_SUFFIX),
        ("DISCOVERY_ACTION", wire::DISCOVERY_ACTION),
        ("META_AUTHORITY", wire::META_AUTHORITY),
        ("META_VERSION", wire::META_VERSION),
        ("ACCESS_PERMISSION", wire::ACCESS_PERMISSION),
        ("ADMIN_OP", wire::ADMIN_OP),
        ("ADMIN_OP_STATE", wire::ADMIN_OP_STATE),
        ("ADMIN_OP_APPROVE", wire::ADMIN_OP_APPROVE),
        ("ADMIN_OP_DENY", wire::ADMIN_OP_DENY),
        ("ADMIN_OP_REVOKE", wire::ADMIN_OP_REVOKE),
        ("ADMIN_OP_CLEAR_DENIAL", wire::ADMIN_OP_CLEAR_DENIAL),
        ("ADMIN_KEY_ID", wire::ADMIN_KEY_ID),
        ("ADMIN_KEY_SCOPES", wire::ADMIN_KEY_SCOPES),
        ("ADMIN_KEY_ACCESS", wire::ADMIN_KEY_ACCESS),
        ("ADMIN_KEY_DURATION_SECS", wire::ADMIN_KEY_DURATION_SECS),
        ("ADMIN_KEY_LOCALE", wire::ADMIN_KEY_LOCALE),
        ("ADMIN_KEY_CALLER_UID", wire::ADMIN_KEY_CALLER_UID),
        ("ADMIN_KEY_PACKAGE", wire::ADMIN_KEY_PACKAGE),
        (
            "ADMIN_KEY_CERTIFICATE_SHA256",
            wire::ADMIN_KEY_CERTIFICATE_SHA256,
        ),
        ("ADMIN_KEY_OK", wire::ADMIN_KEY_OK),
        ("ADMIN_KEY_ERROR", wire::ADMIN_KEY_ERROR),
        ("ADMIN_KEY_KIND", wire::ADMIN_KEY_KIND),
        ("ADMIN_KEY_DECISIONS_LOST", wire::ADMIN_KEY_DECISIONS_LOST),
        ("ADMIN_KEY_STATE", wire::ADMIN_KEY_STATE),
        ("ADMIN_KEY_PROVIDER_NAME", wire::ADMIN_KEY_PROVIDER_NAME),
        ("ADMIN_KEY_PENDING", wire::ADMIN_KEY_PENDING),
        ("ADMIN_KEY_GRANTS", wire::ADMIN_KEY_GRANTS),
        ("ADMIN_KEY_DENIALS", wire::ADMIN_KEY_DENIALS),
        ("ADMIN_KEY_STORE_OPEN", wire::ADMIN_KEY_STORE_OPEN),
        ("ADMIN_KEY_UNSAVED_CHANGES", wire::ADMIN_KEY_UNSAVED_CHANGES),
        ("ADMIN_KEY_NOW_MS", wire::ADMIN_KEY_NOW_MS),
        (
            "ADMIN_KEY_OFFERS_LIMITED_ACCESS",
            wire::ADMIN_KEY_OFFERS_LIMITED_ACCESS,
        ),
        ("ADMIN_KEY_NAME", wire::ADMIN_KEY_NAME),
        ("ADMIN_KEY_DESCRIPTION", wire::ADMIN_KEY_DESCRIPTION),
        ("ADMIN_KEY_UID", wire::ADMIN_KEY_UID),
        ("ADMIN_KEY_PACKAGES", wire::ADMIN_KEY_PACKAGES),
        (
            "ADMIN_KEY_FIRST_REQUESTED_MS",
            wire::ADMIN_KEY_FIRST_REQUESTED_MS,
        ),
        ("ADMIN_KEY_REQUESTED_AT_MS", wire::ADMIN_KEY_REQUESTED_AT_MS),
        ("ADMIN_KEY_EXPIRES_AT_MS", wire::ADMIN_KEY_EXPIRES_AT_MS),
        ("ADMIN_KEY_PER_SCOPE", wire::ADMIN_KEY_PER_SCOPE),
        ("ADMIN_KEY_SCOPE", wire::ADMIN_KEY_SCOPE),
        ("ADMIN_KEY_NO_SCOPE", wire::ADMIN_KEY_NO_SCOPE),
        ("ADMIN_KEY_EXPIRED", wire::ADMIN_KEY_EXPIRED),
        ("ADMIN_KEY_LAST_ACCESS_MS", wire::ADMIN_KEY_LAST_ACCESS_MS),
        ("ADMIN_KEY_CALLS_DAY", wire::ADMIN_KEY_CALLS_DAY),
        ("ADMIN_KEY_CALLS_WEEK", wire::ADMIN_KEY_CALLS_WEEK),
        ("ADMIN_KEY_DENIED_AT_MS", wire::ADMIN_KEY_DENIED_AT_MS),
        ("ADMIN_KEY_HOLDS", wire::ADMIN_KEY_HOLDS),
        ("ADMIN_KEY_ASKS_FOR_MORE", wire::ADMIN_KEY_ASKS_FOR_MORE),
        ("ADMIN_ACCESS_FULL", wire::ADMIN_ACCESS_FULL),
        ("ADMIN_ACCESS_LIMITED", wire::ADMIN_ACCESS_LIMITED),
        (
            "ADMIN_ERROR_UNKNOWN_REQUEST",
            wire::ADMIN_ERROR_UNKNOWN_REQUEST,
        ),
        (
            "ADMIN_ERROR_SCOPE_NOT_REQUESTED",
            wire::ADMIN_ERROR_SCOPE_NOT_REQUESTED,
        ),
        ("ADMIN_ERROR_NOT_FOUND", wire::ADMIN_ERROR_NOT_FOUND),
        ("META_VERSIONS", words::META_VERSIONS),
        ("VERSIONS_DUAL_STACK", words::VERSIONS_DUAL_STACK),
        ("METHOD_NEGOTIATE", words::METHOD_NEGOTIATE),
        ("EXTRA_PROTOCOL_VERSION", words::EXTRA_PROTOCOL_VERSION),
        ("EXTRA_SESSION_TOKEN", words::EXTRA_SESSION_TOKEN),
        ("EXTRA_DEADLINE_AT_MS", words::EXTRA_DEADLINE_AT_MS),
        ("EXTRA_RESUME_TOKEN", words::EXTRA_RESUME_TOKEN),
        ("EXTRA_CONSUMER_VERSIONS", words::EXTRA_CONSUMER_VERSIONS),
        (
            "EXTRA_CONSUMER_CAPABILITIES",
            words::EXTRA_CONSUMER_CAPABILITIES,
        ),
        ("EXTRA_OPERATION_ID", words::EXTRA_OPERATION_ID),
        ("TAG_STRING", extras::TAG_STRING),
        ("TAG_INT", extras::TAG_INT),
        ("TAG_LONG", extras::TAG_LONG),
        ("TAG_BOOLEAN", extras::TAG_BOOLEAN),
        ("TAG_INT_ARRAY", extras::TAG_INT_ARRAY),
        ("TAG_RESOLUTION", extras::TAG_RESOLUTION),
        ("TAG_RESULT_FILE", extras::TAG_RESULT_FILE),
    ]
    .into_iter()
    .map(|(k, v)| (k, v.to_owned()))
    .chain([("PROTOCOL_VERSION", wire::PROTOCOL_VERSION.to_string())])
    .collect()
}

#[test]
fn java_wire_constants_equal_the_rust_wire_module() {
    let java = java_constants(&template_file("src/main/java/dev/cetp/Wire.java"));
    let rust = rust_wire();
    let mut problems = Vec::new();
    for (name, value) in &java {
        match rust.get(name.as_str()) {
            Some(expected) if expected == value => {}
            Some(expected) => {
                problems.push(format!("Wire.{name} = {value:?}, Rust has {expected:?}"))
            }
            None => problems.push(format!(
                "Wire.{name} has no Rust counterpart in this test; map it to cetp_provider::wire"
            )),
        }
    }
    for name in rust.keys() {
        if !java.contains_key(*name) {
            problems.push(format!("Wire.{name} is missing from Wire.java"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_template_manifest_uses_the_wire_strings() {
    let manifest = template_file("src/main/AndroidManifest.xml");
    let attr = |name: &str, value: &str| format!("android:{name}=\"{value}\"");
    for (what, expected) in [
        ("discovery action", attr("name", wire::DISCOVERY_ACTION)),
        ("authority meta-data", attr("name", wire::META_AUTHORITY)),
        ("version meta-data", attr("name", wire::META_VERSION)),
        (
            "provider permission placeholder",
            attr("permission", "${cetpProviderPermission}"),
        ),
        (
            "integer version",
            attr("value", &wire::PROTOCOL_VERSION.to_string()),
        ),
        ("exported provider", attr("exported", "true")),
        ("init order", attr("initOrder", "100")),
        (
            "authority placeholder",
            attr("authorities", "${cetpAuthority}"),
        ),
        ("library placeholder", attr("value", "${cetpLibrary}")),
    ] {
        assert!(
            manifest.contains(&expected),
            "{what}: `{expected}` not in the manifest"
        );
    }
    // The opt-in permission the placeholder resolves to is the wire's.
    let gradle = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../android-template/build.gradle.kts"),
    )
    .unwrap();
    assert!(
        gradle.contains(&format!("\"{}\"", wire::ACCESS_PERMISSION)),
        "build.gradle.kts does not name {}",
        wire::ACCESS_PERMISSION
    );
    // The version is a bare integer so aapt types it as one (agents call getInt).
    let version = manifest
        .split(&attr("name", wire::META_VERSION))
        .nth(1)
        .unwrap();
    assert!(
        version.trim_start().starts_with(&attr("value", "1")),
        "the version meta-data value must directly follow its name"
    );
    // The versions list the discovery Service advertises is the one the provider serves, from
    // one placeholder (a string "1,2" unless the app sets cetp.v2=false).
    let versions = attr("name", words::META_VERSIONS);
    assert_eq!(
        manifest.matches(&versions).count(),
        2,
        "{versions} on the Service and the provider"
    );
    for (at, _) in manifest.match_indices(&versions) {
        assert!(
            manifest[at + versions.len()..]
                .trim_start()
                .starts_with(&attr("value", "${cetpProtocolVersions}")),
            "the versions meta-data must take ${{cetpProtocolVersions}}"
        );
    }
    let discovery = service_element(&manifest, "dev.cetp.CetpDiscoveryService");
    assert!(discovery.contains(&versions), "{discovery}");
    assert!(
        gradle.contains(&format!("\"{}\"", words::VERSIONS_DUAL_STACK))
            && gradle.contains("\"cetp.v2\""),
        "build.gradle.kts derives cetpProtocolVersions from cetp.v2"
    );
    // The template must not declare the permission (see the template README).
    assert!(
        !without_comments(&manifest).contains("<permission"),
        "declaring the permission breaks installing two providers from different signers"
    );
}

fn without_comments(xml: &str) -> String {
    let mut out = String::new();
    let mut rest = xml;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("-->").expect("closed comment");
        rest = &rest[start + end + 3..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_java_library_meta_data_key_matches_the_manifest() {
    let runtime = template_file("src/main/java/dev/cetp/CetpRuntime.java");
    let key = java_constants(&runtime)
        .remove("META_LIBRARY")
        .expect("CetpRuntime.META_LIBRARY");
    let manifest = template_file("src/main/AndroidManifest.xml");
    assert!(
        manifest.contains(&format!("android:name=\"{key}\"")),
        "the manifest's library meta-data is not {key}"
    );
}

/// The `<service>` element of `class` in the template manifest (comments removed).
fn service_element(manifest: &str, class: &str) -> String {
    let manifest = without_comments(manifest);
    let start = manifest
        .find(&format!("android:name=\"{class}\""))
        .unwrap_or_else(|| panic!("no <service> {class} in the template manifest"));
    let open = manifest[..start]
        .rfind("<service")
        .expect("a <service> tag");
    let close = open
        + manifest[open..]
            .find("</service>")
            .expect("a closed <service>");
    manifest[open..close].to_owned()
}

#[test]
fn the_apex_plugin_service_is_exported_with_its_action_and_off_by_default() {
    let manifest = template_file("src/main/AndroidManifest.xml");
    let service = service_element(&manifest, "dev.cetp.ApexPluginService");
    for expected in [
        format!("<action android:name=\"{}\" />", wire::APEX_PLUGIN_ACTION),
        "android:exported=\"true\"".to_owned(),
        "android:enabled=\"@bool/cetp_serve_apex\"".to_owned(),
        "android:name=\"dev.cetp.library\"".to_owned(),
        "android:value=\"${cetpLibrary}\"".to_owned(),
    ] {
        assert!(service.contains(&expected), "`{expected}` not in {service}");
    }
    let hosts = template_file("src/main/res/values/cetp_hosts.xml");
    assert!(hosts.contains("<bool name=\"cetp_serve_apex\">false</bool>"));
    assert!(hosts.contains("<bool name=\"cetp_serve_cetp\">true</bool>"));
    let discovery = service_element(&manifest, "dev.cetp.CetpDiscoveryService");
    assert!(discovery.contains("android:enabled=\"@bool/cetp_serve_cetp\""));
}

#[test]
fn the_aidl_file_is_the_apex_contract_byte_for_byte() {
    // The interface as the Apex agent publishes it: the generated Stub must match its Proxy.
    let expected = "package com.apex.agent.plugin.api;\n\ninterface IApexPlugin {\n    String getMetadataJson();\n    String getToolsJson();\n    String executeTool(String toolId, String argumentsJson);\n    void onActivate();\n    void onDeactivate();\n}\n";
    assert_eq!(
        template_file("src/main/aidl/com/apex/agent/plugin/api/IApexPlugin.aidl"),
        expected
    );
    assert!(
        template_file("build.gradle.kts").contains("aidl = true"),
        "the template must enable AGP's AIDL compilation"
    );
}

/// Every word of the consent screens' admin JSON, as `cetp_provider::wire` spells it.
fn admin_vocabulary() -> BTreeSet<&'static str> {
    wire::ADMIN_KEYS
        .iter()
        .chain(wire::ADMIN_VALUES)
        .copied()
        .collect()
}

#[test]
fn the_template_spells_admin_json_keys_only_in_wire_java() {
    assert_eq!(
        java_string_literals(
            r#"a("x\"y", '"'); // "c"
            /* "d" */ b("e");"#
        ),
        [r#"x\"y"#, "e"]
    );
    let vocabulary = admin_vocabulary();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../android-template/src/main/java");
    let files = java::java_files(&dir);
    assert!(files.iter().any(|f| f.ends_with("dev/cetp/CetpAdmin.java")));
    let mut problems = Vec::new();
    let mut readers = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("dev/cetp/Wire.java")) {
        let source = std::fs::read_to_string(file).unwrap();
        // The classes that read or write JSON (the admin JSON among it); elsewhere "package"
        // may well be a URI scheme.
        if !source.contains("import org.json.") {
            continue;
        }
        readers.push(file.file_name().unwrap().to_string_lossy().into_owned());
        for literal in java_string_literals(&source) {
            if vocabulary.contains(literal.as_str()) {
                problems.push(format!(
                    "{}: \"{literal}\" is an admin JSON word; use its Wire.ADMIN_* constant",
                    file.display()
                ));
            }
        }
    }
    // The admin JSON is written by its client and read by its one parser; the screens and their
    // Activities see only the parsed state.
    for reader in ["CetpAdmin.java", "CetpAdminJson.java"] {
        assert!(
            readers.iter().any(|r| r == reader),
            "{reader} reads no JSON: {readers:?}"
        );
    }
    let screens: Vec<_> = readers
        .iter()
        .filter(|r| {
            r.ends_with("Screen.java")
                || r.ends_with("Activity.java")
                || *r == "CetpViews.java"
                || *r == "CetpFormat.java"
        })
        .collect();
    assert!(
        screens.is_empty(),
        "screens read the admin JSON themselves instead of CetpAdminJson's state: {screens:?}"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The fenced block of `lang` that follows `heading` in the template's README.
fn readme_block(heading: &str, lang: &str) -> String {
    let readme = template_file("README.md");
    let section = readme
        .split_once(heading)
        .unwrap_or_else(|| panic!("README.md has no {heading}"))
        .1;
    let body = section
        .split_once(&format!("```{lang}\n"))
        .unwrap_or_else(|| panic!("no ```{lang} block after {heading}"))
        .1;
    body.split_once("\n```")
        .expect("the block is closed")
        .0
        .to_owned()
}

/// The README shows the keep rules as they are: its block is `consumer-rules.pro`.
#[test]
fn the_readme_shows_the_keep_rules_as_they_are() {
    assert_eq!(
        readme_block("### The keep rules", "proguard"),
        template_file("consumer-rules.pro").trim_end()
    );
}

/// The README shows the Gradle tasks as they are: every line of its block is a line of
/// `build.gradle.kts` (a line added to the file leaves the block a true excerpt).
#[test]
fn the_readme_shows_the_gradle_tasks_as_they_are() {
    let gradle = template_file("build.gradle.kts");
    let lines: BTreeSet<&str> = gradle.lines().collect();
    let block = readme_block("### The Gradle tasks", "kotlin");
    for line in block.lines() {
        assert!(lines.contains(line), "not in build.gradle.kts: {line}");
    }
    for needle in [
        "outputs.upToDateWhen { false }",
        "providers.gradleProperty(\"cetp.abis\")",
        "max-page-size=16384",
    ] {
        assert!(block.contains(needle), "{needle}");
    }
}

#[test]
fn the_languages_check_asks_for_are_the_templates() {
    // `res/values-pt-rBR/strings.xml` is the language tag `pt-BR`.
    let res = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../android-template/src/main/res");
    let mut shipped: Vec<String> = std::fs::read_dir(&res)
        .unwrap()
        .filter_map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            let qualifier = name.strip_prefix("values-")?;
            entry
                .path()
                .join("strings.xml")
                .is_file()
                .then(|| qualifier.replace("-r", "-"))
        })
        .collect();
    shipped.sort();
    let mut checked: Vec<&str> = cetp_provider::localized::TEMPLATE_LANGUAGES.to_vec();
    checked.sort_unstable();
    assert_eq!(shipped, checked);
}
