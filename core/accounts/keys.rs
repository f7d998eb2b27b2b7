//! API key material: generation, parsing and timing-safe verification.
//!
//! A key reads `fsk_<lookup>_<secret>`: `lookup` (16 hex digits) finds the row and is
//! not secret (it is the prefix shown in lists); `secret` is 32 random bytes. Only the
//! SHA-256 digest of the whole key is stored, and it is compared in constant time.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use rand::RngCore;
use sha2::{Digest, Sha256};

const PREFIX: &str = "fsk_";

/// A freshly generated key.
pub(crate) struct NewKey {
    /// The whole key, to show once.
    pub secret: String,
    /// The non-secret lookup part.
    pub lookup: String,
    /// SHA-256 of the whole key.
    pub digest: Vec<u8>,
}

/// Generates a key from the operating system's CSPRNG.
pub(crate) fn generate() -> NewKey {
    let mut rng = rand::rng();
    let mut lookup = [0u8; 8];
    let mut secret = [0u8; 32];
    rng.fill_bytes(&mut lookup);
    rng.fill_bytes(&mut secret);
    let lookup = hex::encode(lookup);
    let key = format!("{PREFIX}{lookup}_{}", URL_SAFE_NO_PAD.encode(secret));
    NewKey {
        digest: digest(&key),
        secret: key,
        lookup,
    }
}

/// SHA-256 of a presented key.
pub(crate) fn digest(key: &str) -> Vec<u8> {
    Sha256::digest(key.as_bytes()).to_vec()
}

/// The lookup part of a presented key, if it is shaped like one of ours.
pub(crate) fn lookup_of(key: &str) -> Option<&str> {
    let rest = key.strip_prefix(PREFIX)?;
    let (lookup, secret) = rest.split_once('_')?;
    let well_formed =
        lookup.len() == 16 && lookup.bytes().all(|b| b.is_ascii_hexdigit()) && !secret.is_empty();
    well_formed.then_some(lookup)
}

/// Constant-time comparison of a presented key with a stored digest.
pub(crate) fn matches(key: &str, stored_digest: &[u8]) -> bool {
    crate::crypto::same(&digest(key), stored_digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_verify_and_others_do_not() {
        let key = generate();
        assert_eq!(lookup_of(&key.secret), Some(key.lookup.as_str()));
        assert!(matches(&key.secret, &key.digest));
        let mut wrong = key.secret.clone();
        wrong.push('x');
        assert!(!matches(&wrong, &key.digest));
        assert_eq!(lookup_of("fsk_nothex_abc"), None);
        assert_eq!(lookup_of("Bearer x"), None);
    }

    #[test]
    fn keys_are_compared_in_constant_time() {
        use crate::crypto::seam::comparisons_in;
        let key = generate();
        assert_eq!(
            comparisons_in(|| matches(&key.secret, &key.digest)),
            (true, 1)
        );
        let mut wrong = key.secret.clone();
        wrong.pop();
        assert_eq!(comparisons_in(|| matches(&wrong, &key.digest)), (false, 1));
    }
}
