//! `samples/notes` against the oracle: each tool's argument schema, and its output schema (the
//! same validator checks results in debug builds), accepts exactly what the `jsonschema` crate
//! accepts. See `validator_oracle.rs`.

mod provider_oracle;

#[test]
fn the_notes_samples_tools_accept_exactly_what_the_oracle_accepts() {
    let files = tempfile::tempdir().unwrap();
    let provider = cetp_sample_notes::provider_over(files.path().join("notes.db"))
        .build()
        .unwrap();
    provider_oracle::check_provider("samples/notes", &provider, 500);
}
