//! The one HMAC-SHA256 of the service (webhook signatures, cursors, page tokens).

use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// HMAC-SHA256 of the concatenated `parts` under `key`.
pub fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC takes keys of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

/// Whether `tag` is the start of `hmac_sha256(key, [payload])`, compared in constant time.
pub fn tag_matches(key: &[u8], payload: &[u8], tag: &[u8]) -> bool {
    let expected = hmac_sha256(key, &[payload]);
    !tag.is_empty() && tag.len() <= expected.len() && bool::from(expected[..tag.len()].ct_eq(tag))
}
