//! Asks the notes provider one question the way an approved agent app would, on the host.
//!
//! ```text
//! cargo run -p cetp-sample-notes --example ask_notes                          # list_tools
//! cargo run -p cetp-sample-notes --example ask_notes -- get_note '{"id":7}'
//! cargo run -p cetp-sample-notes --example ask_notes -- --limited get_note '{"id":7}'
//! ```
//!
//! It creates the demo database and a grant store in a temporary directory, lets the agent's
//! first call be refused with `AUTH_REQUIRED`, approves it as the user would (with full or
//! limited access), and prints the reply.

use cetp_provider::testing::Agent;
use cetp_provider::{AccessLevel, ErrorCode};
use cetp_sample_notes::{demo, provider_over};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let access = if args.first().is_some_and(|a| a == "--limited") {
        args.remove(0);
        AccessLevel::Limited
    } else {
        AccessLevel::Full
    };
    let dir = tempfile::tempdir()?;
    let database = dir.path().join("notes.db");
    demo::create(&database)?;
    let provider = provider_over(database)
        .app(cetp_provider::App::new(
            "dev.cetp.samples.notes",
            dir.path(),
        ))
        .build()?;
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
