//! `cargo xtask schema-report`: the compatibility report of `samples/expenses`.

mod report;

fn main() -> std::process::ExitCode {
    report::run("samples/expenses", cetp_sample_expenses::build_provider())
}
