//! Caller-controlled text in log lines. A consumer picks the method, the tool name, the
//! `request_id` and the arguments (which tools may echo in their errors); written raw, a
//! newline in one of them would start a forged log record. [`Escaped`] writes such text on one
//! line: control, format (bidi overrides and the like) and other unprintable characters
//! escaped as `\n`, `\u{202e}`, …, quotes and backslashes escaped, at most
//! [`MAX_LOGGED_CHARS`] characters, then `…`.

use std::fmt;

/// The most characters of one caller-controlled value a log line shows.
pub(crate) const MAX_LOGGED_CHARS: usize = 256;

/// `text` for a log line; see the module docs.
pub(crate) struct Escaped<'a>(pub(crate) &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut chars = self.0.chars();
        for c in chars.by_ref().take(MAX_LOGGED_CHARS) {
            fmt::Display::fmt(&c.escape_debug(), f)?;
        }
        if chars.next().is_some() {
            f.write_str("…")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_a_caller_sends_breaks_the_line() {
        let forged = "list_tools\nI/cetp: CETP `execute_tool` from uid 1000 -> success\r";
        let logged = Escaped(forged).to_string();
        assert!(!logged.contains('\n') && !logged.contains('\r'), "{logged}");
        assert!(logged.starts_with(r"list_tools\nI/cetp"), "{logged}");
        assert_eq!(
            Escaped("a\u{202e}b\u{0}c\u{7}").to_string(),
            r"a\u{202e}b\0c\u{7}"
        );
        assert_eq!(Escaped("note `x` \"y\"").to_string(), r#"note `x` \"y\""#);
        let long = Escaped(&"x".repeat(10_000)).to_string();
        assert_eq!(long.chars().count(), MAX_LOGGED_CHARS + 1);
        assert!(long.ends_with('…'));
    }
}
