//! Whether the app keeps its data in Room, so that `init` can say where its tools read it
//! (`docs/sqlite.md`, "My data is in Room").

use std::path::Path;

use crate::android_build::layout::Layout;

/// The line `init` prints when the app module's build file or the root project's version catalog
/// names Room (`androidx.room`), or `None`.
pub(super) fn hint(layout: &Layout) -> Option<String> {
    let catalog = layout.root.join("gradle").join("libs.versions.toml");
    let names_room = |file: &Path| {
        std::fs::read(file).is_ok_and(|bytes| {
            String::from_utf8_lossy(&bytes)
                .lines()
                .any(|line| !line.trim_start().starts_with("//") && line.contains("androidx.room"))
        })
    };
    [layout.build_file(), catalog]
        .iter()
        .find(|file| names_room(file))
        .map(|file| {
            format!(
                "note: {} uses Room: read its database from the tools with cetp_provider::AppDatabase \
                 (through Android's SQLite, read-only), never with a bundled SQLite; see \
                 docs/sqlite.md, \"My data is in Room\"",
                file.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(build: &str, catalog: Option<&str>) -> (tempfile::TempDir, Layout) {
        let root = tempfile::tempdir().unwrap();
        let module = root.path().join("app");
        std::fs::create_dir_all(&module).unwrap();
        std::fs::write(module.join("build.gradle.kts"), build).unwrap();
        if let Some(catalog) = catalog {
            std::fs::create_dir_all(root.path().join("gradle")).unwrap();
            std::fs::write(root.path().join("gradle/libs.versions.toml"), catalog).unwrap();
        }
        let layout = Layout {
            module,
            root: root.path().to_owned(),
        };
        (root, layout)
    }

    #[test]
    fn room_in_the_build_file_or_the_catalog_points_at_the_docs() {
        let (_d, direct) = layout(
            "dependencies {\n    implementation(\"androidx.room:room-runtime:2.7.2\")\n}\n",
            None,
        );
        let line = hint(&direct).unwrap();
        assert!(line.contains("build.gradle.kts uses Room"), "{line}");
        assert!(
            line.contains("AppDatabase") && line.contains("docs/sqlite.md"),
            "{line}"
        );
        let (_d, catalog) = layout(
            "dependencies { implementation(libs.room.runtime) }\n",
            Some(
                "[libraries]\nroom-runtime = { module = \"androidx.room:room-runtime\", version = \"2.7.2\" }\n",
            ),
        );
        assert!(
            hint(&catalog)
                .unwrap()
                .contains("libs.versions.toml uses Room")
        );
    }

    #[test]
    fn no_room_no_line() {
        let (_d, plain) = layout(
            "// androidx.room was removed\ndependencies { implementation(\"androidx.core:core-ktx:1.13.1\") }\n",
            Some("[libraries]\n"),
        );
        assert_eq!(hint(&plain), None);
    }
}
