//! Asks the expenses provider one question the way an approved agent app would, on the host.
//!
//! ```text
//! cargo run -p cetp-sample-expenses --example ask_expenses                       # list_tools
//! cargo run -p cetp-sample-expenses --example ask_expenses -- spending_by_category \
//!     '{"range":{"from":"2025-03-01","to":"2025-03-31"}}'
//! cargo run -p cetp-sample-expenses --example ask_expenses -- --limited top_merchants \
//!     '{"range":{"from":"2025-01-01","to":"2025-12-31"}}'
//! ```
//!
//! It keeps the grant store in a temporary directory, lets the agent's first call be refused
//! with `AUTH_REQUIRED`, approves it as the user would (full or limited), and prints the reply.

use cetp_provider::testing::Agent;
use cetp_provider::{AccessLevel, ErrorCode};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let access = if args.first().is_some_and(|a| a == "--limited") {
        args.remove(0);
        AccessLevel::Limited
    } else {
        AccessLevel::Full
    };
    let dir = tempfile::tempdir()?;
    let app = cetp_provider::App::new("dev.cetp.samples.expenses", dir.path());
    let ledger = cetp_sample_expenses::ledger::Ledger::demo();
    let provider = cetp_sample_expenses::provider(ledger).app(app).build()?;
    let agent = Agent::new(&provider);

    let Some(tool) = args.first() else {
        println!("{}", agent.list_tools());
        return Ok(());
    };
    let arguments = args.get(1).map_or("{}", String::as_str);
    let refused = agent.execute(tool, arguments);
    if refused.error_code() == Some(ErrorCode::AuthRequired) {
        println!("before approval: {refused}");
        agent.approve_pending(access)?;
    }
    println!("{}", agent.execute(tool, arguments));
    Ok(())
}
