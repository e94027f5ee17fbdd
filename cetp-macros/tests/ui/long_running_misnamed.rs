use cetp_provider::tool;

/// Searches every note.
#[tool(execution = "sync_or_async")]
fn search_everything(query: String) -> String {
    query
}

/// Builds the yearly report.
#[tool(long_running = true)]
fn yearly_report() -> String {
    String::new()
}

fn main() {}
