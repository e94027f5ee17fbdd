//! The app's first test of its tools: one test class in the app module's unit tests, in the
//! app's language (Kotlin where the module applies the Kotlin plugin, else Java), run by `cargo
//! cetp test` against the host bundle, naming the app's own `R` for its label.

use std::path::{Path, PathBuf};

use super::{Project, Step};
use crate::Result;
use crate::android_build::android;
use crate::android_build::layout::code_lines;
use crate::template::fill;

/// The class `init` writes.
const CLASS: &str = "AgentToolsTest";

/// The step for the test class: written when the app module has none by that name.
pub(super) fn step(project: &Project) -> Result<Step> {
    let module = &project.layout.module;
    let build = std::fs::read_to_string(project.layout.build_file()).unwrap_or_default();
    let kotlin = code_lines(&build).iter().any(|l| applies_kotlin(l));
    let namespace = &project.namespace;
    let package_dir: PathBuf = namespace.split('.').collect();
    let (source_set, file, text) = if kotlin {
        // Android Studio puts Kotlin tests under src/test/java; src/test/kotlin works as well.
        let set =
            if module.join("src/test/kotlin").is_dir() && !module.join("src/test/java").is_dir() {
                "src/test/kotlin"
            } else {
                "src/test/java"
            };
        (
            set,
            format!("{CLASS}.kt"),
            fill(
                include_str!("../../../templates/init/AgentToolsTest.kt.tmpl"),
                &[
                    ("namespace", namespace),
                    (
                        "label_expression",
                        &label_expression(module, &project.names.title),
                    ),
                ],
            ),
        )
    } else {
        (
            "src/test/java",
            "ProviderTest.java".to_owned(),
            fill(
                include_str!("../../../templates/new/ProviderTest.java.tmpl"),
                &[("package", namespace)],
            ),
        )
    };
    let dir = module.join(source_set).join(&package_dir);
    let path = dir.join(&file);
    let existing = [
        module.join("src/test/java").join(&package_dir).join(&file),
        module
            .join("src/test/kotlin")
            .join(&package_dir)
            .join(&file),
    ];
    if let Some(there) = existing.iter().find(|p| p.exists()) {
        return Ok(Step::Unchanged(
            there.clone(),
            "the app's test of its tools is there (left as it is)".to_owned(),
        ));
    }
    project.writer.create(
        path.clone(),
        &text,
        format!(
            "a test of the tools through the test kit, as an agent app calls them (run: cargo \
             cetp test){}",
            if kotlin { ", naming the app's R" } else { "" }
        ),
        format!(
            "(a test through the kit, as cargo cetp new writes one, into {})",
            path.display()
        ),
    )
}

/// Whether a build file line applies the Kotlin Android plugin.
fn applies_kotlin(line: &str) -> bool {
    let line = line.trim();
    line.contains("org.jetbrains.kotlin.android")
        || line.contains("kotlin(\"android\")")
        || line.contains("libs.plugins.kotlin.android")
        || line.contains("kotlin-android")
}

/// The app's label in Kotlin: its string resource through the app's `R` when the manifest
/// names one, else the label as a literal.
fn label_expression(module: &Path, title: &str) -> String {
    match android::application_attribute(module, "android:label")
        .as_deref()
        .and_then(|l| l.strip_prefix("@string/"))
    {
        Some(name) => format!("cetp.context().getString(R.string.{name})"),
        None => format!(
            "\"{}\"",
            title
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('$', "\\$")
        ),
    }
}
