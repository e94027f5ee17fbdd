//! `cargo xtask schema-report`: the compatibility report of `samples/notes`.

mod report;

fn main() -> std::process::ExitCode {
    // The schemas do not depend on the database, which is never opened here (`provider_over`
    // skips the demo data `provider` writes).
    let database = std::env::temp_dir().join("cetp-schema-report-notes.db");
    report::run(
        "samples/notes",
        cetp_sample_notes::provider_over(database).build(),
    )
}
