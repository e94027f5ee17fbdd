//! CETP v2 session tokens, kept nowhere: a token carries its version, capabilities and expiry
//! in clear, a random nonce, and a MAC over those and the caller's UID under a key of this host
//! alone. Checking one reads no shared state and takes no lock; a new host (a restarted
//! process) has a new key, so every older token is refused and the agent negotiates again.

use sha2::{Digest, Sha256};

/// Bytes of the random nonce in every token (128 bits).
const NONCE_BYTES: usize = 16;
/// Bytes of the MAC (HMAC-SHA-256).
const MAC_BYTES: usize = 32;
/// version (1) + capabilities (1) + expiry in ms (8) + nonce + MAC.
const TOKEN_BYTES: usize = 1 + 1 + 8 + NONCE_BYTES + MAC_BYTES;
/// The token's length as text (hex), well under the spec's 256 bytes.
#[cfg(test)]
pub(crate) const TOKEN_CHARS: usize = TOKEN_BYTES * 2;
const BLOCK: usize = 64;

/// The bit of `large_results` in [`Session::capabilities`].
pub(crate) const LARGE_RESULTS: u8 = 1 << 2;

/// What a valid token was issued for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Session {
    pub(crate) version: u8,
    /// The negotiated optional capabilities, one bit each (`async_operations` 1, `cancellation`
    /// 2, [`LARGE_RESULTS`] 4).
    pub(crate) capabilities: u8,
    pub(crate) expires_at_ms: u64,
}

/// The key of one host, kept as the two HMAC states that absorbed it (the inner and outer
/// padded key), so checking a token hashes only the token, not the key again.
pub(crate) struct Sessions {
    inner: Sha256,
    outer: Sha256,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sessions { .. }")
    }
}

impl Sessions {
    /// A host's sessions, under a fresh random key.
    ///
    /// # Errors
    /// The OS gave no random bytes (the host then refuses to negotiate).
    pub(crate) fn new() -> Result<Self, getrandom::Error> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key)?;
        Ok(Sessions::with_key(&key))
    }

    /// The sessions of a host whose key is `key` (at most a block).
    fn with_key(key: &[u8]) -> Self {
        let mut inner_pad = [0x36u8; BLOCK];
        let mut outer_pad = [0x5cu8; BLOCK];
        for (i, k) in key.iter().enumerate() {
            inner_pad[i] ^= k;
            outer_pad[i] ^= k;
        }
        Sessions {
            inner: Sha256::new().chain_update(inner_pad),
            outer: Sha256::new().chain_update(outer_pad),
        }
    }

    /// A token for `uid` (`None`: a caller the platform did not name) and `session`.
    pub(crate) fn issue(
        &self,
        uid: Option<u32>,
        session: Session,
    ) -> Result<String, getrandom::Error> {
        let mut bytes = [0u8; TOKEN_BYTES];
        bytes[0] = session.version;
        bytes[1] = session.capabilities;
        bytes[2..10].copy_from_slice(&session.expires_at_ms.to_be_bytes());
        getrandom::fill(&mut bytes[10..10 + NONCE_BYTES])?;
        let mac = self.mac(uid, &bytes[..10 + NONCE_BYTES]);
        bytes[10 + NONCE_BYTES..].copy_from_slice(&mac);
        Ok(hex(&bytes))
    }

    /// The session `token` names, if this host issued it to `uid` and it has not expired at
    /// `now_ms`.
    pub(crate) fn check(&self, token: &str, uid: Option<u32>, now_ms: u64) -> Option<Session> {
        let bytes = unhex::<TOKEN_BYTES>(token)?;
        let mac = self.mac(uid, &bytes[..10 + NONCE_BYTES]);
        // Compared in full whatever differs first.
        let differs = mac
            .iter()
            .zip(&bytes[10 + NONCE_BYTES..])
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        if differs != 0 {
            return None;
        }
        let mut expiry = [0u8; 8];
        expiry.copy_from_slice(&bytes[2..10]);
        let session = Session {
            version: bytes[0],
            capabilities: bytes[1],
            expires_at_ms: u64::from_be_bytes(expiry),
        };
        (now_ms < session.expires_at_ms).then_some(session)
    }

    /// HMAC-SHA-256 (RFC 2104) of the UID and `body` under this host's key.
    fn mac(&self, uid: Option<u32>, body: &[u8]) -> [u8; MAC_BYTES] {
        let mut tagged = [0u8; 5];
        if let Some(uid) = uid {
            tagged[0] = 1;
            tagged[1..].copy_from_slice(&uid.to_be_bytes());
        }
        self.hmac(&[&tagged, body])
    }

    /// HMAC-SHA-256 of `parts`, one after the other, under this host's key.
    fn hmac(&self, parts: &[&[u8]]) -> [u8; MAC_BYTES] {
        let mut inner = self.inner.clone();
        for part in parts {
            inner.update(part);
        }
        let outer = self.outer.clone().chain_update(inner.finalize()).finalize();
        let mut mac = [0u8; MAC_BYTES];
        mac.copy_from_slice(&outer);
        mac
    }
}

pub(super) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        text.push(DIGITS[usize::from(b >> 4)] as char);
        text.push(DIGITS[usize::from(b & 15)] as char);
    }
    text
}

fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    let digits = text.as_bytes();
    if digits.len() != N * 2 {
        return None;
    }
    let value = |d: u8| match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        _ => None,
    };
    let mut bytes = [0u8; N];
    for (i, pair) in digits.chunks_exact(2).enumerate() {
        bytes[i] = value(pair[0])? << 4 | value(pair[1])?;
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: Session = Session {
        version: 2,
        capabilities: 0,
        expires_at_ms: 10_000,
    };

    #[test]
    fn a_token_is_bound_to_its_uid_its_host_and_its_expiry() {
        let sessions = Sessions::new().unwrap();
        let token = sessions.issue(Some(10_001), SESSION).unwrap();
        assert_eq!(token.len(), TOKEN_CHARS);
        assert!(token.len() <= 256);
        assert_eq!(sessions.check(&token, Some(10_001), 9_999), Some(SESSION));
        assert_eq!(
            sessions.check(&token, Some(10_001), 10_000),
            None,
            "expired"
        );
        assert_eq!(sessions.check(&token, Some(10_002), 0), None, "another UID");
        assert_eq!(sessions.check(&token, None, 0), None, "no UID");
        let restarted = Sessions::new().unwrap();
        assert_eq!(
            restarted.check(&token, Some(10_001), 0),
            None,
            "another key"
        );
    }

    #[test]
    fn a_changed_field_or_a_malformed_token_is_refused() {
        let sessions = Sessions::new().unwrap();
        let token = sessions.issue(Some(1), SESSION).unwrap();
        // Flip one hex digit anywhere: the version, the capabilities, the expiry, the nonce.
        for at in [1, 3, 6, 30, 70] {
            let mut forged = token.clone().into_bytes();
            forged[at] = if forged[at] == b'0' { b'1' } else { b'0' };
            let forged = String::from_utf8(forged).unwrap();
            assert_eq!(sessions.check(&forged, Some(1), 0), None, "digit {at}");
        }
        for bad in [
            "",
            "zz",
            &token[1..],
            &format!("{token}0"),
            &token.to_uppercase(),
        ] {
            assert_eq!(sessions.check(bad, Some(1), 0), None, "{bad}");
        }
    }

    #[test]
    fn the_mac_is_hmac_sha256() {
        // RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?".
        let sessions = Sessions::with_key(b"Jefe");
        let mac = sessions.hmac(&[b"what do ya want ", b"for nothing?"]);
        assert_eq!(
            hex(&mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn two_tokens_for_the_same_session_differ() {
        let sessions = Sessions::new().unwrap();
        let a = sessions.issue(Some(1), SESSION).unwrap();
        let b = sessions.issue(Some(1), SESSION).unwrap();
        assert_ne!(a, b, "the nonce makes every token unpredictable");
    }
}
