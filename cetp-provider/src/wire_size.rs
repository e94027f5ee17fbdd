//! Sizes as they cross Binder. A reply Bundle is parcelled with every key and every string
//! value as UTF-16, so an ASCII result of `n` bytes is `2n` bytes on the wire; the limits of
//! [`Limits`](crate::Limits) count these wire bytes, and error texts are capped so that no
//! error can be large.

use std::borrow::Cow;

use crate::error::ToolError;
use crate::wire::Response;

/// The most UTF-16 code units an `error_message` carries; longer ones are cut and end in `…`.
pub(crate) const MAX_ERROR_MESSAGE_UNITS: usize = 2_048;
/// The most UTF-16 code units a `resolution_hint` carries; longer ones are cut and end in `…`.
pub(crate) const MAX_RESOLUTION_HINT_UNITS: usize = 512;

/// The wire bytes of one string: two per UTF-16 code unit.
pub(crate) fn utf16_bytes(text: &str) -> usize {
    text.encode_utf16().count() * 2
}

/// The wire bytes of a reply's strings: every key and every value, as UTF-16.
pub(crate) fn reply_bytes<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> usize {
    pairs
        .into_iter()
        .map(|(key, value)| utf16_bytes(key) + utf16_bytes(value))
        .sum()
}

/// `text` cut to at most `max_units` UTF-16 code units, the last of them `…`, on a character
/// boundary; unchanged when it fits.
pub(crate) fn cap(text: &str, max_units: usize) -> Cow<'_, str> {
    if text.len() <= max_units || text.encode_utf16().count() <= max_units {
        return Cow::Borrowed(text);
    }
    let budget = max_units.saturating_sub(1); // room for the ellipsis (one unit)
    let mut units = 0;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        if units + c.len_utf16() > budget {
            break;
        }
        units += c.len_utf16();
        end = at + c.len_utf8();
    }
    Cow::Owned(format!("{}…", &text[..end]))
}

/// `response` made to fit: a success whose reply exceeds `max_reply_bytes` wire bytes becomes
/// an `INTERNAL_ERROR` saying so; an error's message and hint are capped.
pub(crate) fn fit(response: Response, what: &str, max_reply_bytes: usize) -> Response {
    match response {
        Response::Success(data) => {
            let envelope = reply_bytes(Response::Success(String::new()).to_pairs());
            // A UTF-16 string has no more code units than its UTF-8 form has bytes: a reply
            // whose UTF-8 length fits twice over needs no counting.
            if envelope + 2 * data.len() <= max_reply_bytes {
                return Response::Success(data);
            }
            let size = envelope + utf16_bytes(&data);
            if size <= max_reply_bytes {
                return Response::Success(data);
            }
            fit(
                ToolError::internal(format_args!(
                    "the result of `{what}` is {} KiB on the wire, over the {} KiB a provider returns in one call; narrow the request (fewer items, a shorter range or a more specific query) and try again",
                    size.div_ceil(1024),
                    max_reply_bytes / 1024
                ))
                .into(),
                what,
                max_reply_bytes,
            )
        }
        Response::Error(err) => {
            let message = cap(err.message(), MAX_ERROR_MESSAGE_UNITS);
            let hint = err
                .resolution_hint()
                .map(|hint| cap(hint, MAX_RESOLUTION_HINT_UNITS));
            let fits = matches!(message, Cow::Borrowed(_))
                && hint.as_ref().is_none_or(|h| matches!(h, Cow::Borrowed(_)));
            if fits {
                return Response::Error(err);
            }
            let (message, hint) = (message.into_owned(), hint.map(Cow::into_owned));
            Response::Error(err.with_texts(message, hint))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_count_two_bytes_per_utf16_unit() {
        assert_eq!(utf16_bytes("abc"), 6);
        assert_eq!(utf16_bytes("é"), 2, "one unit, two UTF-8 bytes");
        assert_eq!(
            utf16_bytes("抹茶"),
            4,
            "three UTF-8 bytes each, one unit each"
        );
        assert_eq!(utf16_bytes("🌱"), 4, "a surrogate pair");
        assert_eq!(
            reply_bytes([("status", "success"), ("data", "1")]),
            12 + 14 + 8 + 2
        );
    }

    #[test]
    fn capping_cuts_on_a_character_and_marks_the_cut() {
        assert_eq!(cap("short", 10), "short");
        assert_eq!(cap("abcdefghij", 10), "abcdefghij");
        assert_eq!(cap("abcdefghijk", 10), "abcdefghi…");
        // A surrogate pair is never split.
        assert_eq!(cap("aaaaaaaa🌱🌱", 10), "aaaaaaaa…");
        assert_eq!(cap("ééééééééééé", 10).encode_utf16().count(), 10);
        for text in ["x".repeat(5000), "🌱".repeat(3000), "抹".repeat(4000)] {
            let capped = cap(&text, MAX_ERROR_MESSAGE_UNITS);
            assert!(capped.encode_utf16().count() <= MAX_ERROR_MESSAGE_UNITS);
            assert!(capped.ends_with('…'));
        }
    }
}
