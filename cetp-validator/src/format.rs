//! The `format`s JSON Schema 2020-12 defines, every one checked (the schema normalizer keeps
//! exactly these).

use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use email_address::EmailAddress;

use super::hostname::{is_hostname, is_idn_hostname};
use super::uri::{self, Grammar};

/// A `format` the validator checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    DateTime,
    Date,
    Time,
    Duration,
    Email,
    IdnEmail,
    Hostname,
    IdnHostname,
    Ipv4,
    Ipv6,
    Uri,
    UriReference,
    Iri,
    IriReference,
    Uuid,
    UriTemplate,
    JsonPointer,
    RelativeJsonPointer,
    Regex,
}

impl Format {
    /// Every format, by its name in schemas.
    pub(crate) const ALL: &'static [(&'static str, Format)] = &[
        ("date-time", Format::DateTime),
        ("date", Format::Date),
        ("time", Format::Time),
        ("duration", Format::Duration),
        ("email", Format::Email),
        ("idn-email", Format::IdnEmail),
        ("hostname", Format::Hostname),
        ("idn-hostname", Format::IdnHostname),
        ("ipv4", Format::Ipv4),
        ("ipv6", Format::Ipv6),
        ("uri", Format::Uri),
        ("uri-reference", Format::UriReference),
        ("iri", Format::Iri),
        ("iri-reference", Format::IriReference),
        ("uuid", Format::Uuid),
        ("uri-template", Format::UriTemplate),
        ("json-pointer", Format::JsonPointer),
        ("relative-json-pointer", Format::RelativeJsonPointer),
        ("regex", Format::Regex),
    ];

    pub(crate) fn named(name: &str) -> Option<Format> {
        Format::ALL
            .iter()
            .find(|(known, _)| *known == name)
            .map(|&(_, format)| format)
    }

    pub(crate) fn name(self) -> &'static str {
        Format::ALL
            .iter()
            .find(|(_, format)| *format == self)
            .map_or("", |&(name, _)| name)
    }

    /// Whether `text` is in this format.
    pub(crate) fn check(self, text: &str) -> bool {
        let grammar = |absolute, international| Grammar {
            absolute,
            international,
        };
        match self {
            Format::DateTime => is_date_time(text),
            Format::Date => is_date(text),
            Format::Time => is_time(text),
            Format::Duration => is_duration(text),
            Format::Email => is_email(text, false),
            Format::IdnEmail => is_email(text, true),
            Format::Hostname => is_hostname(text),
            Format::IdnHostname => is_idn_hostname(text),
            Format::Ipv4 => Ipv4Addr::from_str(text).is_ok(),
            Format::Ipv6 => Ipv6Addr::from_str(text).is_ok(),
            Format::Uri => uri::is_valid(text, grammar(true, false)),
            Format::UriReference => uri::is_valid(text, grammar(false, false)),
            Format::Iri => uri::is_valid(text, grammar(true, true)),
            Format::IriReference => uri::is_valid(text, grammar(false, true)),
            Format::Uuid => is_uuid(text),
            Format::UriTemplate => is_uri_template(text),
            Format::JsonPointer => is_json_pointer(text),
            Format::RelativeJsonPointer => is_relative_json_pointer(text),
            Format::Regex => super::ecma::is_valid(text),
        }
    }
}

/// Two ASCII digits as a number.
fn two_digits(bytes: &[u8]) -> Option<u32> {
    match bytes {
        [a @ b'0'..=b'9', b @ b'0'..=b'9'] => Some(u32::from(a - b'0') * 10 + u32::from(b - b'0')),
        _ => None,
    }
}

/// RFC 3339 `full-date`: `YYYY-MM-DD`, a day that exists.
fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(high), Some(low), Some(month), Some(day)) = (
        two_digits(&b[0..2]),
        two_digits(&b[2..4]),
        two_digits(&b[5..7]),
        two_digits(&b[8..10]),
    ) else {
        return false;
    };
    let year = high * 100 + low;
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// RFC 3339 `full-time`: `HH:MM:SS[.frac]` and `Z` or `±HH:MM`. A leap second (`:60`) only
/// at 23:59 UTC.
fn is_time(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) = (
        two_digits(&b[0..2]),
        two_digits(&b[3..5]),
        two_digits(&b[6..8]),
    ) else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut at = 8;
    if b[at] == b'.' {
        let digits = b[at + 1..]
            .iter()
            .take_while(|d| d.is_ascii_digit())
            .count();
        if digits == 0 {
            return false;
        }
        at += 1 + digits;
    }
    let utc = hour * 60 + minute;
    let utc = match &b[at..] {
        [b'Z' | b'z'] => utc,
        [sign @ (b'+' | b'-'), offset @ ..] => {
            let (Some(oh), Some(om)) = (
                two_digits(offset.get(0..2).unwrap_or(&[])),
                two_digits(offset.get(3..5).unwrap_or(&[])),
            ) else {
                return false;
            };
            if offset.len() != 5 || offset[2] != b':' || oh > 23 || om > 59 {
                return false;
            }
            let shift = oh * 60 + om;
            if *sign == b'+' {
                (utc + 24 * 60 - shift) % (24 * 60)
            } else {
                (utc + shift) % (24 * 60)
            }
        }
        _ => return false,
    };
    second != 60 || utc == 23 * 60 + 59
}

/// RFC 3339 `date-time`: a date, `T` (either case) and a time.
fn is_date_time(text: &str) -> bool {
    match text.find(['T', 't']) {
        Some(at) => is_date(&text[..at]) && is_time(&text[at + 1..]),
        None => false,
    }
}

/// ISO 8601 duration as RFC 3339 appendix A writes it: `P`, then years, months, days in that
/// order without gaps (`P1Y2M`, `P3D`) or weeks alone (`P2W`), then optionally `T` with hours,
/// minutes, seconds in order without gaps.
fn is_duration(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('P') else {
        return false;
    };
    let (date, time) = match rest.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (rest, None),
    };
    let Some(date_units) = units(date) else {
        return false;
    };
    let date_ok = match date_units.as_str() {
        "" | "Y" | "YM" | "YMD" | "M" | "MD" | "D" => true,
        "W" => time.is_none(),
        _ => false,
    };
    let time_ok = match time {
        None => !date_units.is_empty(),
        Some(time) => matches!(
            units(time).as_deref(),
            Some("H" | "HM" | "HMS" | "M" | "MS" | "S")
        ),
    };
    date_ok && time_ok
}

/// The unit letters of `1*DIGIT unit` items, or `None` if the text is not such items.
fn units(text: &str) -> Option<String> {
    let mut units = String::new();
    let mut digits = 0;
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits += 1;
        } else if digits > 0 && c.is_ascii_uppercase() {
            units.push(c);
            digits = 0;
        } else {
            return None;
        }
    }
    (digits == 0).then_some(units)
}

/// RFC 5321 mailbox (`local@domain`), as the `email_address` crate parses it; the domain is a
/// hostname (`idn-hostname` for `idn-email`) or an address literal (`[192.0.2.1]`,
/// `[IPv6:2001:db8::1]`). `email` keeps the local part ASCII, `idn-email` (RFC 6531) does not.
fn is_email(text: &str, international: bool) -> bool {
    // The crate refuses an empty quoted local part (`""@example.com`), which RFC 5321 allows.
    if let Some(domain) = text.strip_prefix("\"\"@") {
        return is_email(&format!("\"a\"@{domain}"), international);
    }
    if let Ok(address) = EmailAddress::from_str(text) {
        if !international && !address.local_part().is_ascii() {
            return false;
        }
        return is_email_domain(address.domain(), international);
    }
    // The crate also refuses non-ASCII inside a quoted local part, which RFC 6531 allows:
    // check the shape with those characters replaced, then the real domain.
    if !international || text.is_ascii() {
        return false;
    }
    let masked: String = text
        .chars()
        .map(|c| if c.is_ascii() { c } else { 'a' })
        .collect();
    if EmailAddress::from_str(&masked).is_err() {
        return false;
    }
    match text.rsplit_once('@') {
        Some((_, domain)) => is_email_domain(domain, international),
        None => false,
    }
}

fn is_email_domain(domain: &str, international: bool) -> bool {
    if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        return match literal.get(..5) {
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => {
                Ipv6Addr::from_str(&literal[5..]).is_ok()
            }
            _ => Ipv4Addr::from_str(literal).is_ok(),
        };
    }
    if international {
        is_idn_hostname(domain)
    } else {
        is_hostname(domain)
    }
}

/// `8-4-4-4-12` hexadecimal digits (RFC 9562), any version, either case.
fn is_uuid(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// RFC 6570 URI Template: literals and `{…}` expressions of variables with an optional
/// operator, prefix (`:1` to `:9999`) or explode (`*`) modifier.
fn is_uri_template(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => match expression(b, i + 1) {
                Some(end) => i = end,
                None => return false,
            },
            b'%' => {
                if !pct_encoded(b, i) {
                    return false;
                }
                i += 3;
            }
            0x00..=0x20 | b'"' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'|' | b'}' | 0x7F => {
                return false;
            }
            _ => i += 1,
        }
    }
    true
}

fn pct_encoded(b: &[u8], at: usize) -> bool {
    b.get(at + 1).is_some_and(u8::is_ascii_hexdigit)
        && b.get(at + 2).is_some_and(u8::is_ascii_hexdigit)
}

/// An expression from just after `{`; the position after its `}`.
fn expression(b: &[u8], mut i: usize) -> Option<usize> {
    if matches!(
        b.get(i)?,
        b'+' | b'#' | b'.' | b'/' | b';' | b'?' | b'&' | b'=' | b',' | b'!' | b'@' | b'|'
    ) {
        i += 1;
    }
    loop {
        i = varname(b, i)?;
        match b.get(i)? {
            b':' => {
                i += 1;
                let digits = b[i..].iter().take_while(|d| d.is_ascii_digit()).count();
                if digits == 0 || digits > 4 || b[i] == b'0' {
                    return None;
                }
                i += digits;
            }
            b'*' => i += 1,
            _ => {}
        }
        match b.get(i)? {
            b',' => i += 1,
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// `varchar *( ["."] varchar )`, varchars being letters, digits, `_` and percent-encodings.
fn varname(b: &[u8], mut i: usize) -> Option<usize> {
    let mut after_dot = true;
    loop {
        match b.get(i) {
            Some(c) if c.is_ascii_alphanumeric() || *c == b'_' => i += 1,
            Some(b'%') if pct_encoded(b, i) => i += 3,
            Some(b'.') if !after_dot => {
                after_dot = true;
                i += 1;
                continue;
            }
            _ if after_dot => return None,
            _ => return Some(i),
        }
        after_dot = false;
    }
}

/// RFC 6901 JSON Pointer: empty, or `/`-separated tokens where `~` is `~0` or `~1`.
fn is_json_pointer(text: &str) -> bool {
    text.is_empty() || text.strip_prefix('/').is_some_and(tokens_are_escaped)
}

fn tokens_are_escaped(text: &str) -> bool {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return false;
        }
    }
    true
}

/// Relative JSON Pointer: a non-negative integer without leading zeros, then nothing, `#`, or
/// a JSON Pointer.
fn is_relative_json_pointer(text: &str) -> bool {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || (digits > 1 && text.starts_with('0')) {
        return false;
    }
    let rest = &text[digits..];
    rest.is_empty() || rest == "#" || rest.strip_prefix('/').is_some_and(tokens_are_escaped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(format: &str, text: &str) -> bool {
        Format::named(format).unwrap().check(text)
    }

    #[test]
    fn dates_and_times_follow_rfc_3339() {
        assert!(check("date", "2024-02-29"));
        assert!(!check("date", "2023-02-29"));
        assert!(!check("date", "2023-13-01"));
        assert!(!check("date", "2023-1-01"));
        assert!(check("time", "23:59:60Z"));
        assert!(check("time", "15:59:60-08:00"));
        assert!(!check("time", "12:00:60Z"));
        assert!(check("time", "08:30:00.123+02:00"));
        assert!(!check("time", "08:30:00"));
        assert!(!check("time", "08:30:00.Z"));
        assert!(check("date-time", "2024-01-31T08:30:00z"));
        assert!(!check("date-time", "2024-01-31 08:30:00Z"));
        for valid in ["P1Y", "P1Y2M3D", "PT1H30M", "P2W", "P1DT1S", "PT0S"] {
            assert!(check("duration", valid), "{valid}");
        }
        for invalid in [
            "P", "PT", "P1D2M", "P1YD", "PT1H1S", "P1WT1H", "P1W1D", "1D", "P1.5D",
        ] {
            assert!(!check("duration", invalid), "{invalid}");
        }
    }

    #[test]
    fn addresses_and_identifiers() {
        assert!(check("email", "ada@example.com"));
        assert!(check("email", "\"\"@example.com"));
        assert!(check("email", "ada@[192.0.2.1]"));
        assert!(check("email", "ada@[IPv6:2001:db8::1]"));
        assert!(!check("email", "ada@@example.com"));
        assert!(!check("email", "ada@exa_mple.com"));
        assert!(!check("email", "bücher@example.com"));
        assert!(check("idn-email", "bücher@bücher.example"));
        assert!(check("ipv4", "192.0.2.1") && !check("ipv4", "192.0.2.256"));
        assert!(check("ipv6", "2001:db8::1") && !check("ipv6", "2001:db8:::1"));
        assert!(check("uuid", "123e4567-E89B-12d3-a456-426614174000"));
        assert!(!check("uuid", "123e4567e89b12d3a456426614174000"));
    }

    #[test]
    fn templates_pointers_and_patterns() {
        assert!(check(
            "uri-template",
            "http://example.com/{id}{?q,page:3}{/path*}"
        ));
        assert!(!check("uri-template", "http://example.com/{id"));
        assert!(!check("uri-template", "{a..b}"));
        assert!(!check("uri-template", "{a:0}"));
        assert!(check("json-pointer", "") && check("json-pointer", "/a~1b/~0c/0"));
        assert!(!check("json-pointer", "a") && !check("json-pointer", "/~2"));
        assert!(check("relative-json-pointer", "0#") && check("relative-json-pointer", "1/a"));
        assert!(!check("relative-json-pointer", "01") && !check("relative-json-pointer", "-1"));
        assert!(check("regex", "^[a-z]+$") && !check("regex", "(unclosed"));
    }
}
