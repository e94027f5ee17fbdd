//! `cargo xtask schema-report`: the compatibility report of `samples/notes`.

mod report;

fn main() -> std::process::ExitCode {
    // The schemas do not depend on the database; it is never opened here.
    let database = std::env::temp_dir().join("cetp-schema-report-notes.db");
    report::run("samples/notes", cetp_sample_notes::provider(database))
}
