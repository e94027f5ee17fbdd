//! `samples/expenses` against the oracle: each tool's argument schema, and its output schema (the
//! same validator checks results in debug builds), accepts exactly what the `jsonschema` crate
//! accepts. See `validator_oracle.rs`.

mod provider_oracle;

#[test]
fn the_expenses_samples_tools_accept_exactly_what_the_oracle_accepts() {
    let provider = cetp_sample_expenses::provider(cetp_sample_expenses::ledger::Ledger::demo())
        .build()
        .unwrap();
    provider_oracle::check_provider("samples/expenses", &provider, 500);
}
