//! `cargo xtask schema-report`: the compatibility report of `samples/minimal`.

mod report;

fn main() -> std::process::ExitCode {
    report::run("samples/minimal", cetp_sample_minimal::build_provider())
}
