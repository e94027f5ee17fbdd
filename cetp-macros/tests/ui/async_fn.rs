use cetp_provider::tool;

/// Fetches a page.
#[tool]
async fn fetch(url: String) -> String {
    url
}

fn main() {}
