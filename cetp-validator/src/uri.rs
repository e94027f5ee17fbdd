//! The `uri`, `uri-reference`, `iri` and `iri-reference` formats: the grammars of RFC 3986
//! (URIs) and RFC 3987 (IRIs, which also take non-ASCII characters), checked in one pass.

use std::net::Ipv6Addr;

/// Which grammar to check.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Grammar {
    /// A scheme is required (`uri`, `iri`), not only allowed (`*-reference`).
    pub(crate) absolute: bool,
    /// Non-ASCII characters are allowed where RFC 3987 allows them.
    pub(crate) international: bool,
}

/// Whether `text` matches `grammar`.
pub(crate) fn is_valid(text: &str, grammar: Grammar) -> bool {
    let rest = match scheme_end(text) {
        Some(end) => &text[end + 1..],
        None if grammar.absolute => return false,
        None => {
            // Without a scheme, a colon in the first segment would read as one (RFC 3986
            // `path-noscheme`).
            let first = text.split(['/', '?', '#']).next().unwrap_or("");
            if first.contains(':') {
                return false;
            }
            text
        }
    };
    let (rest, fragment) = match rest.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (rest, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let path = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            if !authority(&after[..end], grammar) {
                return false;
            }
            &after[end..]
        }
        None => rest,
    };
    all_chars(path, grammar, Part::Path)
        && query.is_none_or(|q| all_chars(q, grammar, Part::Query))
        && fragment.is_none_or(|f| all_chars(f, grammar, Part::Fragment))
}

/// The position of the `:` ending a leading scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" /
/// "." )`), if the text starts with one.
fn scheme_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    let end = bytes
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))?;
    (bytes[end] == b':').then_some(end)
}

/// `[ userinfo "@" ] host [ ":" port ]`.
fn authority(text: &str, grammar: Grammar) -> bool {
    let (userinfo, host_port) = match text.split_once('@') {
        Some((userinfo, rest)) => (Some(userinfo), rest),
        None => (None, text),
    };
    if userinfo.is_some_and(|u| !all_chars(u, grammar, Part::Userinfo)) {
        return false;
    }
    let (host_ok, port) = if let Some(literal) = host_port.strip_prefix('[') {
        let Some((inside, after)) = literal.split_once(']') else {
            return false;
        };
        let port = match after {
            "" => None,
            after => match after.strip_prefix(':') {
                Some(port) => Some(port),
                None => return false,
            },
        };
        (ip_literal(inside), port)
    } else {
        let (host, port) = match host_port.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_port, None),
        };
        (all_chars(host, grammar, Part::Host), port)
    };
    host_ok && port.is_none_or(|p| p.bytes().all(|b| b.is_ascii_digit()))
}

/// `IPv6address / IPvFuture` inside `[…]`.
fn ip_literal(text: &str) -> bool {
    if let Some(future) = text.strip_prefix(['v', 'V']) {
        let Some((version, rest)) = future.split_once('.') else {
            return false;
        };
        return !version.is_empty()
            && version.bytes().all(|b| b.is_ascii_hexdigit())
            && !rest.is_empty()
            && rest
                .bytes()
                .all(|b| is_unreserved(b) || is_sub_delim(b) || b == b':');
    }
    text.parse::<Ipv6Addr>().is_ok()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Userinfo,
    Host,
    Path,
    Query,
    Fragment,
}

/// Whether every character of `text` may appear in `part` (percent-encodings included).
fn all_chars(text: &str, grammar: Grammar, part: Part) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            if !(bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
            continue;
        }
        if b.is_ascii() {
            let allowed = is_unreserved(b)
                || is_sub_delim(b)
                || match part {
                    Part::Userinfo => b == b':',
                    Part::Host => false,
                    Part::Path => matches!(b, b':' | b'@' | b'/'),
                    Part::Query | Part::Fragment => matches!(b, b':' | b'@' | b'/' | b'?'),
                };
            if !allowed {
                return false;
            }
            i += 1;
            continue;
        }
        if !grammar.international {
            return false;
        }
        let c = text[i..].chars().next().expect("a character starts here");
        if !(is_ucschar(c) || (part == Part::Query && is_iprivate(c))) {
            return false;
        }
        i += c.len_utf8();
    }
    true
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn is_sub_delim(b: u8) -> bool {
    matches!(
        b,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

/// RFC 3987 `ucschar`.
fn is_ucschar(c: char) -> bool {
    let c = c as u32;
    matches!(c, 0xA0..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFEF)
        || (0x10000..=0xEFFFD).contains(&c)
            && (c & 0xFFFF) <= 0xFFFD
            && !(0xE0000..0xE1000).contains(&c)
}

/// RFC 3987 `iprivate` (query only).
fn is_iprivate(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

#[cfg(test)]
mod tests {
    use super::*;

    const URI: Grammar = Grammar {
        absolute: true,
        international: false,
    };
    const URI_REFERENCE: Grammar = Grammar {
        absolute: false,
        international: false,
    };
    const IRI: Grammar = Grammar {
        absolute: true,
        international: true,
    };

    #[test]
    fn uris_follow_rfc_3986() {
        for valid in [
            "http://example.com",
            "https://user:pw@host:8080/a/b?q=1&r#frag",
            "mailto:someone@example.com",
            "urn:isbn:0451450523",
            "http://[::1]:80/",
            "http://[v7.fe80::a]/",
            "file:///etc/hosts",
            "a:",
            "http://example.com/%20",
            "http://:80",
        ] {
            assert!(is_valid(valid, URI), "{valid}");
        }
        for invalid in [
            "",
            "//example.com",
            "/relative",
            "http://exa mple.com",
            "http://example.com/%2",
            "http://[::1",
            "http://[::g]/",
            "http://host:8x",
            "http://a@b@c",
            "1http://x",
            "http://ex\\ample",
            "http://exämple.com",
        ] {
            assert!(!is_valid(invalid, URI), "{invalid}");
        }
        assert!(is_valid("/relative/path?x#y", URI_REFERENCE));
        assert!(is_valid("", URI_REFERENCE));
        assert!(
            is_valid("a:b:c", URI_REFERENCE),
            "a scheme, then a colon in the path"
        );
        assert!(
            !is_valid("1a:b", URI_REFERENCE),
            "a colon in the first segment"
        );
    }

    #[test]
    fn iris_also_take_unicode_characters() {
        assert!(is_valid("http://exämple.com/päth?q=ü#ß", IRI));
        assert!(is_valid("http://example.com/?\u{E000}", IRI));
        assert!(!is_valid("http://example.com/#\u{E000}", IRI));
        assert!(!is_valid("http://example.com/\u{FFFE}", IRI));
    }
}
