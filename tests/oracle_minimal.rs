//! `samples/minimal` against the oracle: each tool's argument schema, and its output schema (the
//! same validator checks results in debug builds), accepts exactly what the `jsonschema` crate
//! accepts. See `validator_oracle.rs`.

mod provider_oracle;

use cetp_provider::App;

#[test]
fn the_minimal_samples_tools_accept_exactly_what_the_oracle_accepts() {
    let files = tempfile::tempdir().unwrap();
    let provider =
        cetp_sample_minimal::provider(&App::new("dev.cetp.samples.minimal", files.path()))
            .build()
            .unwrap();
    provider_oracle::check_provider("samples/minimal", &provider, 500);
}
