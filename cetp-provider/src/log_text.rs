//! Caller-controlled text in log lines and messages. An agent picks the method, the tool
//! name, the `request_id`, its package names and the arguments (which tools may echo in their
//! errors); written raw, a newline in one of them would start a forged log record.
//!
//! [`Escaped`] writes any `Display` value on one line: control, format (bidi overrides and the
//! like) and other unprintable characters escaped as `\n`, `\u{202e}`, …, quotes and
//! backslashes escaped, at most [`MAX_LOGGED_CHARS`] characters, then `…`. It formats while it
//! writes, so a log macro whose level is off builds nothing. [`printable`] is the shorter form
//! for text echoed back to the caller in an error message.

use std::fmt::{self, Write};

/// The most characters of one caller-controlled value a log line shows.
pub(crate) const MAX_LOGGED_CHARS: usize = 256;

/// The most characters of caller-supplied text echoed in an error message.
const MAX_ECHOED_CHARS: usize = 80;

/// `value` for a log line; see the module docs.
pub(crate) struct Escaped<T>(pub(crate) T);

impl<T: fmt::Display> fmt::Display for Escaped<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Limited {
            inner: f,
            left: MAX_LOGGED_CHARS,
            cut: false,
        };
        // A full buffer stops the formatting with an error we made ourselves: not a failure.
        let result = write!(out, "{}", self.0);
        let cut = out.cut;
        match result {
            Ok(()) if !cut => Ok(()),
            _ if cut => f.write_str("…"),
            other => other,
        }
    }
}

/// Escapes what it is given into `inner`, up to `left` characters.
struct Limited<'a, 'b> {
    inner: &'a mut fmt::Formatter<'b>,
    left: usize,
    cut: bool,
}

impl Write for Limited<'_, '_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        for c in text.chars() {
            if self.left == 0 {
                self.cut = true;
                return Err(fmt::Error);
            }
            self.left -= 1;
            fmt::Display::fmt(&c.escape_debug(), self.inner)?;
        }
        Ok(())
    }
}

/// Caller-supplied text echoed in a message: at most 80 characters, control characters escaped.
pub fn printable(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(MAX_ECHOED_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if text.chars().nth(MAX_ECHOED_CHARS).is_some() {
        out.push('…');
    }
    out
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
        assert_eq!(
            Escaped("x".repeat(MAX_LOGGED_CHARS))
                .to_string()
                .chars()
                .count(),
            MAX_LOGGED_CHARS
        );
    }

    #[test]
    fn any_display_value_is_escaped_while_it_is_written() {
        struct Two;
        impl fmt::Display for Two {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("uid 1 (com.a\n")?;
                f.write_str("com.b)")
            }
        }
        assert_eq!(Escaped(Two).to_string(), r"uid 1 (com.a\ncom.b)");
    }

    #[test]
    fn echoed_text_is_short_and_on_one_line() {
        assert_eq!(printable("a\nb"), r"a\nb");
        let long = printable(&"y".repeat(200));
        assert_eq!(long.chars().count(), MAX_ECHOED_CHARS + 1);
        assert!(long.ends_with('…'));
    }
}
