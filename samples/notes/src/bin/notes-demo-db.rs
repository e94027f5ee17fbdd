//! Writes the demo notes database to a path, for host runs and inspection with `sqlite3`:
//!
//! ```text
//! cargo run -p cetp-sample-notes --bin notes-demo-db -- /tmp/notes.db
//! ```
//!
//! On a device the provider creates the same database in the app's files dir when it starts.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: notes-demo-db <path/to/notes.db>   (an existing file is replaced)");
        return ExitCode::FAILURE;
    };
    match cetp_sample_notes::demo::create(&path) {
        Ok(()) => {
            println!(
                "wrote {} notes to {}",
                cetp_sample_notes::demo::NOTE_COUNT,
                path.display()
            );
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("cannot write {}: {err}", path.display());
            ExitCode::FAILURE
        }
    }
}
