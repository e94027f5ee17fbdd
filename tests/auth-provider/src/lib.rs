//! The provider behind the Android end-to-end tests of what the notes sample cannot show
//! deterministically: **grant expiry**, **per-scope approvals** and **rate limits**.
//!
//! It is an ordinary user-approval provider (the default policy) with two test-only choices:
//!
//! - **A clock the test sets.** Grant expiry and rate limits read the time through
//!   [`cetp_provider::auth::Clock`]. This provider's clock reads the file
//!   [`CLOCK_FILE`] in the app's files directory: a decimal number of milliseconds since the Unix
//!   epoch, or [`START_MS`] while the file is absent. A test moves time forward by writing the
//!   file, so an approval "for 1 hour" lapses without anyone waiting. Production providers keep
//!   the default [`SystemClock`](cetp_provider::auth::SystemClock); nothing in the SDK reads
//!   this file.
//! - **A tight rate limit** on `ping`: [`PING_BURST`] calls, then one more per hour.
//!
//! | tool | scope | answer |
//! |---|---|---|
//! | `count_entries` | `diary.read` | the number of diary entries |
//! | `entry_access` | `diary.read` | the access level the call got: `"full"` or `"limited"` |
//! | `photo_access` | `diary.photos` | the same, for the diary's photos |
//! | `ping` | none | `"pong"`; rate limited |
//!
//! Two scopes, so that a test can approve one with one access level and expiry, the other
//! later with another, and read back through `entry_access` and `photo_access` what each
//! tool sees.
#![deny(missing_docs)]

use std::path::PathBuf;
use std::time::Duration;

use cetp_provider::auth::{Auth, Clock, RateLimit};
use cetp_provider::host::apex::Apex;
use cetp_provider::{App, CallContext, Localized, Provider, ProviderBuilder, tool, tools};

/// The file the test clock reads, in the app's files directory.
pub const CLOCK_FILE: &str = "cetp-test-clock-ms";

/// The time while [`CLOCK_FILE`] is absent: 2026-01-01T00:00:00Z.
pub const START_MS: u64 = 1_767_225_600_000;

/// How many `ping` calls a caller may make at once (then one per hour).
pub const PING_BURST: u32 = 3;

/// A clock that shows what the test wrote into a file (see the crate docs).
#[derive(Debug, Clone)]
pub struct FileClock {
    path: PathBuf,
}

impl FileClock {
    /// A clock reading `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileClock { path: path.into() }
    }
}

impl Clock for FileClock {
    fn now_ms(&self) -> u64 {
        std::fs::read_to_string(&self.path)
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(START_MS)
    }
}

/// Counts the entries in the user's diary.
#[tool(scopes = ["diary.read"])]
pub fn count_entries() -> u32 {
    42
}

/// How much of the diary's entries this call may see: "full" or "limited".
#[tool(scopes = ["diary.read"])]
pub fn entry_access(ctx: &CallContext) -> &'static str {
    level(ctx)
}

/// How much of the diary's photos this call may see: "full" or "limited".
#[tool(scopes = ["diary.photos"])]
pub fn photo_access(ctx: &CallContext) -> &'static str {
    level(ctx)
}

fn level(ctx: &CallContext) -> &'static str {
    if ctx.access().is_limited() {
        "limited"
    } else {
        "full"
    }
}

/// Answers "pong"; at most three calls at once, then one per hour.
#[tool]
pub fn ping() -> &'static str {
    "pong"
}

/// The provider, with its clock reading `<files dir>/cetp-test-clock`.
pub fn provider(app: &App) -> ProviderBuilder {
    let clock_file = app.files_dir().join(CLOCK_FILE);
    Provider::builder("Diary")
        .description("A diary, for authorization tests")
        // The screens show the scopes in the user's language.
        .scope(
            "diary.read",
            Localized::new("your diary entries")
                .with("ar", "مدخلات مذكراتك")
                .with("de", "deine Tagebucheinträge")
                .with("es", "las entradas de tu diario")
                .with("fr", "les entrées de votre journal")
                .with("hi", "आपकी डायरी की प्रविष्टियाँ")
                .with("ja", "日記のエントリ")
                .with("pt-BR", "as entradas do seu diário")
                .with("zh-CN", "日记条目"),
        )
        .scope(
            "diary.photos",
            Localized::new("your diary photos")
                .with("ar", "صور مذكراتك")
                .with("de", "deine Tagebuchfotos")
                .with("es", "las fotos de tu diario")
                .with("fr", "les photos de votre journal")
                .with("hi", "आपकी डायरी की फ़ोटो")
                .with("ja", "日記の写真")
                .with("pt-BR", "as fotos do seu diário")
                .with("zh-CN", "日记照片"),
        )
        .tools(tools![count_entries, entry_access, photo_access, ping])
        // Apex hosts older than version 2 must refuse this plugin.
        .host(Apex::new().min_host_version(2))
        .auth(
            Auth::user_approval()
                .clock(FileClock::new(clock_file))
                .tool_rate_limit(
                    "ping",
                    RateLimit::new(PING_BURST, Duration::from_secs(3600)),
                ),
        )
}

cetp_provider::export_provider!(provider);

#[cfg(test)]
mod tests {
    use super::*;
    use cetp_provider::ErrorCode;
    use cetp_provider::testing::{Agent, check_conformance};
    use serde_json::{Value, json};

    /// Approves the first pending request with every scope it lists, as the consent dialog
    /// does: through the provider's admin JSON, with `access` (`"full"` or `"limited"`) and,
    /// if given, an expiry after `duration_secs`.
    fn approve_first_pending(provider: &Provider, access: &str, duration_secs: Option<u64>) {
        let state: Value =
            serde_json::from_str(&provider.handle_admin_json(r#"{"op":"state"}"#)).unwrap();
        let request = &state["state"]["pending"][0];
        let scopes: Vec<&Value> = request["scopes"]
            .as_array()
            .expect("a pending request lists its scopes")
            .iter()
            .map(|scope| &scope["name"])
            .collect();
        let mut approve = json!({
            "op": "approve",
            "id": request["id"],
            "scopes": scopes,
            "access": access,
        });
        if let Some(secs) = duration_secs {
            approve["duration_secs"] = secs.into();
        }
        let reply: Value =
            serde_json::from_str(&provider.handle_admin_json(&approve.to_string())).unwrap();
        assert_eq!(reply["ok"], true, "{reply}");
    }

    #[test]
    fn an_approved_agent_gets_a_provider_conformant_to_cetp_v1_and_v2() {
        let dir = tempfile::tempdir().unwrap();
        let app = App::new("dev.cetp.authfixture", dir.path());
        let provider = provider(&app).app(app).build().unwrap();
        // The v1 check approves its own agent, with every scope.
        check_conformance(&provider).unwrap();
        Agent::new(&provider).check_v2_conformance().unwrap();
    }

    #[test]
    fn the_clock_follows_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let clock = FileClock::new(dir.path().join(CLOCK_FILE));
        assert_eq!(clock.now_ms(), START_MS);
        std::fs::write(dir.path().join(CLOCK_FILE), "1800000000000\n").unwrap();
        assert_eq!(clock.now_ms(), 1_800_000_000_000);
    }

    #[test]
    fn approval_expires_and_ping_is_rate_limited() {
        let dir = tempfile::tempdir().unwrap();
        let clock_file = dir.path().join(CLOCK_FILE);
        let app = App::new("dev.cetp.authfixture", dir.path());
        let provider = provider(&app).app(app).build().unwrap();
        let agent = Agent::new(&provider);
        assert_eq!(
            agent.execute("count_entries", "{}").error_code(),
            Some(ErrorCode::AuthRequired)
        );
        approve_first_pending(&provider, "full", Some(3600));
        assert_eq!(
            agent.execute("count_entries", "{}").data_json().unwrap(),
            42
        );
        for _ in 0..PING_BURST {
            assert_eq!(agent.execute("ping", "{}").data_json().unwrap(), "pong");
        }
        assert_eq!(
            agent.execute("ping", "{}").error_code(),
            Some(ErrorCode::RateLimited)
        );
        std::fs::write(&clock_file, (START_MS + 3_600_000).to_string()).unwrap();
        assert_eq!(
            agent.execute("count_entries", "{}").error_code(),
            Some(ErrorCode::AuthRequired)
        );
    }

    #[test]
    fn each_scope_keeps_the_access_and_expiry_it_was_approved_with() {
        let dir = tempfile::tempdir().unwrap();
        let clock_file = dir.path().join(CLOCK_FILE);
        let app = App::new("dev.cetp.authfixture", dir.path());
        let provider = provider(&app).app(app).build().unwrap();
        let agent = Agent::new(&provider);
        assert_eq!(
            agent.execute("entry_access", "{}").error_code(),
            Some(ErrorCode::AuthRequired)
        );
        approve_first_pending(&provider, "limited", Some(3600));
        assert_eq!(
            agent.execute("photo_access", "{}").error_code(),
            Some(ErrorCode::AuthRequired)
        );
        approve_first_pending(&provider, "full", None);
        assert_eq!(
            agent.execute("entry_access", "{}").data_json().unwrap(),
            "limited"
        );
        assert_eq!(
            agent.execute("photo_access", "{}").data_json().unwrap(),
            "full"
        );
        std::fs::write(&clock_file, (START_MS + 3_600_000).to_string()).unwrap();
        assert_eq!(
            agent.execute("entry_access", "{}").error_code(),
            Some(ErrorCode::AuthRequired)
        );
        assert_eq!(
            agent.execute("photo_access", "{}").data_json().unwrap(),
            "full"
        );
    }
}
