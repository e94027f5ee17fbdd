//! The `hostname` and `idn-hostname` formats: DNS names of letters, digits and hyphens (RFC
//! 1123), whose `xn--` labels must be Punycode (RFC 3492) of a valid internationalized label
//! (RFC 5890–5892: letters, marks and digits by Unicode general category, and the contextual
//! rules for joiners, middle dots and digit mixes); `idn-hostname` also takes those labels in
//! Unicode form.

use super::unicode::{is_letter_mark_or_digit, is_mark};

/// `hostname`: an ASCII DNS name.
pub(crate) fn is_hostname(text: &str) -> bool {
    if !is_ldh_name(text) {
        return false;
    }
    text.split('.')
        .all(|label| ascii_label_is_sound(label, false))
}

/// `idn-hostname`: labels in ASCII or Unicode form, separated by `.` or one of the ideographic
/// and fullwidth full stops; at most 63 characters per label and 253 for the name in ASCII
/// (Punycode) form.
pub(crate) fn is_idn_hostname(text: &str) -> bool {
    if text.is_empty() {
        return false;
    }
    let mut ascii_length = 0usize;
    for (i, label) in text
        .split(['.', '\u{3002}', '\u{FF0E}', '\u{FF61}'])
        .enumerate()
    {
        if i > 0 {
            ascii_length += 1;
        }
        let length = if label.is_ascii() {
            if !is_ldh_label(label) || !ascii_label_is_sound(label, true) {
                return false;
            }
            label.len()
        } else {
            let chars: Vec<char> = label.chars().collect();
            // Every character takes at least one place in the A-label: a longer label cannot
            // fit (and is not worth encoding).
            if chars.len() > 63 {
                return false;
            }
            let hyphen_rule = chars.first() != Some(&'-')
                && chars.last() != Some(&'-')
                && !(chars.get(2) == Some(&'-') && chars.get(3) == Some(&'-'));
            let ascii_is_ldh = chars
                .iter()
                .filter(|c| c.is_ascii())
                .all(|&c| c.is_ascii_alphanumeric() || c == '-');
            if !hyphen_rule || !ascii_is_ldh || !is_valid_unicode_label(&chars) {
                return false;
            }
            match punycode_encode(&chars) {
                Some(encoded) => "xn--".len() + encoded.len(),
                None => return false,
            }
        };
        if length > 63 {
            return false;
        }
        ascii_length += length;
    }
    ascii_length <= 253
}

/// 1 to 253 characters, no trailing dot, every label 1 to 63 letters, digits and hyphens, not
/// starting or ending with a hyphen.
fn is_ldh_name(text: &str) -> bool {
    !text.is_empty() && text.len() <= 253 && text.split('.').all(is_ldh_label)
}

fn is_ldh_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 63
        && bytes[0] != b'-'
        && bytes[bytes.len() - 1] != b'-'
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
}

/// Hyphens in the third and fourth place only in an `xn--` label (`XN--` too when
/// `any_case`), whose Punycode must decode to a valid label.
fn ascii_label_is_sound(label: &str, any_case: bool) -> bool {
    let bytes = label.as_bytes();
    if bytes.len() < 4 || &bytes[2..4] != b"--" {
        return true;
    }
    let prefix = &bytes[..2];
    let is_a_label = prefix == b"xn" || (any_case && prefix.eq_ignore_ascii_case(b"xn"));
    if !is_a_label {
        return false;
    }
    match punycode_decode(&label[4..]) {
        Some(decoded) => is_valid_unicode_label(&decoded),
        None => false,
    }
}

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 128;

fn adapt(delta: u32, points: u32, first: bool) -> u32 {
    let mut delta = if first { delta / DAMP } else { delta / 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + ((BASE - T_MIN + 1) * delta) / (delta + SKEW)
}

fn threshold(k: u32, bias: u32) -> u32 {
    if k <= bias {
        T_MIN
    } else if k >= bias + T_MAX {
        T_MAX
    } else {
        k - bias
    }
}

/// RFC 3492 decoding of the part after `xn--`; `None` if it is not Punycode. Basic code points
/// come before the last hyphen, unless that hyphen is the first character.
fn punycode_decode(input: &str) -> Option<Vec<char>> {
    let (basic, encoded) = match input.rfind('-') {
        Some(at) if at > 0 => (&input[..at], &input[at + 1..]),
        _ => ("", input),
    };
    let mut output: Vec<char> = basic.chars().collect();
    let (mut n, mut i, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    let mut digits = encoded.bytes();
    while digits.len() > 0 {
        let before = i;
        let mut weight = 1u32;
        let mut k = BASE;
        loop {
            let digit = match digits.next()? {
                b @ b'a'..=b'z' => u32::from(b - b'a'),
                b @ b'A'..=b'Z' => u32::from(b - b'A'),
                b @ b'0'..=b'9' => u32::from(b - b'0') + 26,
                _ => return None,
            };
            i = i.checked_add(digit.checked_mul(weight)?)?;
            let t = threshold(k, bias);
            if digit < t {
                break;
            }
            weight = weight.checked_mul(BASE - t)?;
            k += BASE;
        }
        let points = u32::try_from(output.len()).ok()? + 1;
        bias = adapt(i - before, points, before == 0);
        n = n.checked_add(i / points)?;
        i %= points;
        output.insert(i as usize, char::from_u32(n)?);
        i += 1;
    }
    Some(output)
}

/// RFC 3492 encoding (only its length is used); `None` on overflow.
fn punycode_encode(input: &[char]) -> Option<String> {
    let digit = |d: u32| -> char {
        if d < 26 {
            char::from(b'a' + d as u8)
        } else {
            char::from(b'0' + (d - 26) as u8)
        }
    };
    let mut out: String = input.iter().filter(|c| c.is_ascii()).collect();
    let basic = out.len();
    let mut handled = basic;
    if basic > 0 {
        out.push('-');
    }
    let (mut n, mut delta, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    while handled < input.len() {
        let next = input.iter().map(|&c| c as u32).filter(|&c| c >= n).min()?;
        let handled_u32 = u32::try_from(handled).ok()?;
        delta = delta.checked_add((next - n).checked_mul(handled_u32 + 1)?)?;
        n = next;
        for &c in input {
            let c = c as u32;
            if c < n {
                delta = delta.checked_add(1)?;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = threshold(k, bias);
                    if q < t {
                        break;
                    }
                    out.push(digit(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                out.push(digit(q));
                let handled_now = u32::try_from(handled).ok()?;
                bias = adapt(delta, handled_now + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta = delta.checked_add(1)?;
        n = n.checked_add(1)?;
    }
    Some(out)
}

/// Code points whose combining class is Virama: a zero width joiner must follow one.
const VIRAMAS: &[u32] = &[
    0x094D, 0x09CD, 0x0A4D, 0x0ACD, 0x0B4D, 0x0BCD, 0x0C4D, 0x0CCD, 0x0D4D, 0x0DCA, 0x0E3A, 0x0F84,
    0x1039, 0x1714, 0x1734, 0x17D2, 0x1A60, 0x1B44, 0x1BAA, 0x1BF2, 0x1BF3, 0x2D7F, 0xA806, 0xA8C4,
    0xA953, 0xABED, 0x10A3F, 0x11046, 0x1107F, 0x110B9, 0x11133, 0x111C0, 0x11235, 0x112EA,
    0x1134D, 0x11442, 0x114C2, 0x115BF, 0x1163F, 0x116B6, 0x1172B, 0x11839, 0x119E0, 0x11A34,
    0x11A47, 0x11A99, 0x11C3F, 0x11D44, 0x11D45, 0x11D97,
];

/// A label in Unicode form: no leading combining mark, the contextual rules of RFC 5892
/// appendix A, and otherwise only ASCII, letters, marks and digits.
fn is_valid_unicode_label(label: &[char]) -> bool {
    if label.first().is_some_and(|&c| is_mark(c)) {
        return false;
    }
    let mut katakana_middle_dot = false;
    let mut kana_or_han = false;
    let mut arabic_indic = false;
    let mut extended_arabic_indic = false;
    for (i, &c) in label.iter().enumerate() {
        let previous = i.checked_sub(1).map(|p| label[p]);
        let next = label.get(i + 1).copied();
        let allowed = match c {
            '\u{200D}' => previous.is_some_and(|p| VIRAMAS.contains(&(p as u32))),
            '\u{00B7}' => previous == Some('l') && next == Some('l'),
            '\u{0375}' => next.is_some_and(|n| ('\u{0370}'..='\u{03FF}').contains(&n)),
            '\u{05F3}' | '\u{05F4}' => {
                previous.is_some_and(|p| ('\u{0590}'..='\u{05FF}').contains(&p))
            }
            '\u{30FB}' => {
                katakana_middle_dot = true;
                true
            }
            '\u{3040}'..='\u{309F}' | '\u{30A0}'..='\u{30FF}' | '\u{4E00}'..='\u{9FFF}' => {
                kana_or_han = true;
                true
            }
            '\u{0660}'..='\u{0669}' => {
                arabic_indic = true;
                true
            }
            '\u{06F0}'..='\u{06F9}' => {
                extended_arabic_indic = true;
                true
            }
            '\u{0640}'
            | '\u{07FA}'
            | '\u{302E}'
            | '\u{302F}'
            | '\u{3031}'..='\u{3035}'
            | '\u{303B}' => false,
            '\u{200C}' | '\u{06FD}' | '\u{06FE}' | '\u{0F0B}' | '\u{3007}' => true,
            c => c.is_ascii() || is_letter_mark_or_digit(c),
        };
        if !allowed {
            return false;
        }
    }
    let lone_middle_dot = katakana_middle_dot && !kana_or_han;
    let mixed_digits = arabic_indic && extended_arabic_indic;
    !lone_middle_dot && !mixed_digits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostnames_are_ldh_labels_with_sound_a_labels() {
        for valid in [
            "example.com",
            "a",
            "xn--bcher-kva.example",
            "a-b.c-d",
            &"a".repeat(63),
        ] {
            assert!(is_hostname(valid), "{valid}");
        }
        for invalid in [
            "",
            "example.com.",
            "-a.com",
            "a-.com",
            "a..b",
            "ab--c.com",
            "xn--a.com",
            "under_score.com",
            "bücher.example",
            &"a".repeat(64),
            &["a"; 128].join("."),
        ] {
            assert!(!is_hostname(invalid), "{invalid}");
        }
    }

    #[test]
    fn idn_hostnames_take_unicode_labels() {
        assert!(is_idn_hostname("bücher.example"));
        assert!(is_idn_hostname("例え.テスト"));
        assert!(is_idn_hostname("例え。テスト"));
        assert!(is_idn_hostname("xn--bcher-kva.example"));
        assert!(!is_idn_hostname("bü_cher.example"));
        assert!(!is_idn_hostname("-bücher.example"));
        assert!(
            !is_idn_hostname("\u{0301}a.example"),
            "a leading combining mark"
        );
        assert!(
            !is_idn_hostname("a\u{00B7}b.example"),
            "a middle dot between l and l only"
        );
        assert!(is_idn_hostname("l\u{00B7}l.example"));
        assert!(!is_idn_hostname(&"ü".repeat(60)), "too long once encoded");
        assert!(!is_idn_hostname("☃.example"), "a symbol, not a letter");
    }

    #[test]
    fn punycode_round_trips() {
        let label: Vec<char> = "bücher".chars().collect();
        assert_eq!(punycode_encode(&label).as_deref(), Some("bcher-kva"));
        assert_eq!(punycode_decode("bcher-kva"), Some(label));
        assert_eq!(punycode_decode("-abc"), None);
    }
}
