//! Lossy decoding of the modified UTF-8 that `GetStringUTFChars` returns.
//!
//! Java strings are UTF-16 and may hold unpaired surrogates, which no Rust `String` can. JNI hands
//! them out as modified UTF-8: every UTF-16 unit (surrogates included) as a 1-, 2- or 3-byte
//! sequence, and U+0000 as `C0 80`. Decoding unit by unit and then pairing surrogates keeps every
//! valid character (astral-plane ones arrive as a surrogate pair) and turns only the unpaired
//! surrogates and malformed bytes into U+FFFD.

use std::borrow::Cow;

/// Decodes modified UTF-8, replacing what cannot be represented with U+FFFD.
///
/// Text without NUL, surrogates or astral-plane characters is valid standard UTF-8 with the same
/// meaning, so it is borrowed as is.
pub(crate) fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut units: Vec<u16> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b0 = bytes[i];
        let cont = |k: usize| bytes.get(i + k).copied().filter(|b| b & 0xC0 == 0x80);
        match b0 {
            0x00..=0x7F => {
                units.push(u16::from(b0));
                i += 1;
            }
            0xC0..=0xDF => match cont(1) {
                Some(b1) => {
                    units.push(u16::from(b0 & 0x1F) << 6 | u16::from(b1 & 0x3F));
                    i += 2;
                }
                None => {
                    units.push(REPLACEMENT);
                    i += 1;
                }
            },
            0xE0..=0xEF => match (cont(1), cont(2)) {
                (Some(b1), Some(b2)) => {
                    units.push(
                        u16::from(b0 & 0x0F) << 12
                            | u16::from(b1 & 0x3F) << 6
                            | u16::from(b2 & 0x3F),
                    );
                    i += 3;
                }
                _ => {
                    units.push(REPLACEMENT);
                    i += 1;
                }
            },
            // Standard 4-byte UTF-8 never appears in modified UTF-8, but some VMs have emitted it;
            // accept it rather than lose the character.
            0xF0..=0xF4 => match (cont(1), cont(2), cont(3)) {
                (Some(b1), Some(b2), Some(b3)) => {
                    let code = u32::from(b0 & 0x07) << 18
                        | u32::from(b1 & 0x3F) << 12
                        | u32::from(b2 & 0x3F) << 6
                        | u32::from(b3 & 0x3F);
                    match char::from_u32(code) {
                        Some(c) => units.extend_from_slice(c.encode_utf16(&mut [0; 2])),
                        None => units.push(REPLACEMENT),
                    }
                    i += 4;
                }
                _ => {
                    units.push(REPLACEMENT);
                    i += 1;
                }
            },
            _ => {
                units.push(REPLACEMENT);
                i += 1;
            }
        }
    }
    Cow::Owned(String::from_utf16_lossy(&units))
}

const REPLACEMENT: u16 = 0xFFFD;

#[cfg(test)]
mod tests {
    use super::*;

    /// Encodes UTF-16 units the way `GetStringUTFChars` does.
    fn mutf8(units: &[u16]) -> Vec<u8> {
        let mut out = Vec::new();
        for &u in units {
            match u {
                0x0001..=0x007F => out.push(u as u8),
                0x0000 | 0x0080..=0x07FF => {
                    out.push(0xC0 | (u >> 6) as u8);
                    out.push(0x80 | (u & 0x3F) as u8);
                }
                _ => {
                    out.push(0xE0 | (u >> 12) as u8);
                    out.push(0x80 | ((u >> 6) & 0x3F) as u8);
                    out.push(0x80 | (u & 0x3F) as u8);
                }
            }
        }
        out
    }

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn plain_text_is_borrowed() {
        let bytes = mutf8(&units("héllo wörld ✓"));
        assert!(matches!(
            decode_lossy(&bytes),
            Cow::Borrowed("héllo wörld ✓")
        ));
    }

    #[test]
    fn astral_plane_characters_survive_as_surrogate_pairs() {
        let text = "notes 🎉 𝄞 done";
        let bytes = mutf8(&units(text));
        assert_ne!(
            bytes,
            text.as_bytes(),
            "modified UTF-8 differs from UTF-8 here"
        );
        assert_eq!(decode_lossy(&bytes), text);
    }

    #[test]
    fn nul_is_decoded_from_its_two_byte_form() {
        assert_eq!(decode_lossy(&mutf8(&units("a\0b"))), "a\0b");
    }

    #[test]
    fn unpaired_surrogates_become_replacement_characters_and_nothing_else_is_lost() {
        let mut input = units("x🎉");
        input.push(0xD800); // lone high surrogate
        input.extend(units("y"));
        input.push(0xDC00); // lone low surrogate
        input.extend(units("𝄞"));
        assert_eq!(decode_lossy(&mutf8(&input)), "x🎉\u{FFFD}y\u{FFFD}𝄞");
    }

    #[test]
    fn malformed_bytes_are_replaced_without_panicking() {
        assert_eq!(decode_lossy(&[b'a', 0xFF, b'b']), "a\u{FFFD}b");
        assert_eq!(decode_lossy(&[b'a', 0xE2, 0x82]), "a\u{FFFD}\u{FFFD}");
        assert_eq!(decode_lossy(&[0xC3]), "\u{FFFD}");
        assert_eq!(
            decode_lossy(&[0xF0, 0x9F, 0x8E, 0x89, 0xED, 0xA0, 0x80]),
            "🎉\u{FFFD}"
        );
    }

    #[test]
    fn every_single_unit_round_trips_or_is_replaced() {
        for u in 0..=u16::MAX {
            let bytes = mutf8(&[u]);
            let decoded = decode_lossy(&bytes);
            let expected = String::from_utf16_lossy(&[u]);
            assert_eq!(decoded, expected, "unit {u:#06x}");
        }
    }
}
