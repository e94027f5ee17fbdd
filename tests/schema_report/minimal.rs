//! `cargo xtask schema-report`: the compatibility report of `samples/minimal`.

mod report;

fn main() -> std::process::ExitCode {
    let app = report::app("dev.cetp.samples.minimal");
    report::run(
        "samples/minimal",
        cetp_sample_minimal::provider(&app).build(),
    )
}
