//! What the provider logs during a test, line by line ([`capture_logs`]).

use std::cell::RefCell;
use std::sync::OnceLock;

use log::{LevelFilter, Log, Metadata, Record};

use crate::Response;

thread_local! {
    /// The lines of the capture running on this thread, if one is.
    static LINES: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// The process's logger once [`capture_logs`] installed it: it keeps the records of each
/// thread that is capturing, and drops the rest.
struct PerThread;

impl Log for PerThread {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn log(&self, record: &Record<'_>) {
        // Formatted before the borrow: a `Display` that logs cannot borrow twice.
        let line = format!("{} {}: {}", record.level(), record.target(), record.args());
        let _ = LINES.try_with(|lines| {
            if let Some(lines) = lines.borrow_mut().as_mut() {
                lines.push(line);
            }
        });
    }

    fn flush(&self) {}
}

static LOGGER: PerThread = PerThread;
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

/// Puts the capture back as it was when `f` returns or unwinds.
struct Restore(Option<Vec<String>>);

impl Drop for Restore {
    fn drop(&mut self) {
        let outer = self.0.take();
        let _ = LINES.try_with(|lines| *lines.borrow_mut() = outer);
    }
}

/// Runs `f` and returns what it returned with every line logged on this thread meanwhile, at
/// every level (`"<LEVEL> <target>: <message>"`).
///
/// The first use installs the process's [`log`] logger (a process has one) and sets the level
/// to `Trace`; it keeps each capturing thread's lines apart, so tests capturing at once, in any
/// order, see only their own. Records logged on other threads are not seen. Use it in a test
/// binary that installs no other logger.
///
/// ```
/// use cetp_provider::testing::{Agent, capture_logs};
/// use cetp_provider::{Provider, auth::Auth};
///
/// let provider = Provider::builder("Empty").auth(Auth::open()).build().unwrap();
/// let (_, lines) = capture_logs(|| Agent::new(&provider).execute("nothing_here", "{}"));
/// assert!(lines.iter().any(|l| l.contains("TOOL_NOT_FOUND")), "{lines:?}");
/// ```
///
/// # Panics
/// When another logger was installed first.
pub fn capture_logs<R>(f: impl FnOnce() -> R) -> (R, Vec<String>) {
    let installed = INSTALLED.get_or_init(|| {
        log::set_logger(&LOGGER)
            .map(|()| log::set_max_level(LevelFilter::Trace))
            .map_err(|e| e.to_string())
    });
    if let Err(err) = installed {
        panic!("capture_logs needs to install the process's logger: {err}");
    }
    let outer = LINES.with(|lines| lines.borrow_mut().replace(Vec::new()));
    let restore = Restore(outer);
    let result = f();
    let lines = LINES
        .with(|lines| lines.borrow_mut().take())
        .unwrap_or_default();
    drop(restore);
    (result, lines)
}

/// Checks what [`capture_logs`] returned for a call that answered the error `response`: some
/// line names the error's code, and no line holds the error's message or any of `private` (the
/// values the call carried, the app's own texts). `what` names the case in a failure.
///
/// # Panics
/// When `response` is not an error, or a line breaks either rule.
pub fn assert_logged_privately(
    what: &str,
    response: &Response,
    lines: &[String],
    private: &[&str],
) {
    let code = response
        .error_code()
        .unwrap_or_else(|| panic!("{what}: not an error: {response}"))
        .to_string();
    assert!(
        lines.iter().any(|line| line.contains(&code)),
        "{what}: the outcome is logged by its code: {lines:?}"
    );
    let message = response.error_message().unwrap_or_default();
    for line in lines {
        assert!(
            message.is_empty() || !line.contains(message),
            "{what}: the error text in `{line}`"
        );
        for text in private.iter().filter(|text| !text.is_empty()) {
            assert!(!line.contains(text), "{what}: `{text}` in `{line}`");
        }
    }
}
