//! `cargo xtask schema-report`: the compatibility report of `samples/expenses`.

mod report;

fn main() -> std::process::ExitCode {
    let ledger = cetp_sample_expenses::ledger::Ledger::demo();
    report::run(
        "samples/expenses",
        cetp_sample_expenses::provider(ledger).build(),
    )
}
