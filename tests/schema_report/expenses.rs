//! `cargo xtask schema-report`: the compatibility report of `samples/expenses`.

mod report;

fn main() -> std::process::ExitCode {
    let app = report::app("dev.cetp.samples.expenses");
    report::run(
        "samples/expenses",
        cetp_sample_expenses::provider(&app).build(),
    )
}
