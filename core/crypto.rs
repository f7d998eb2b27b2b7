//! The one HMAC-SHA256 of the service (webhook signatures, cursors, page tokens), the
//! one comparison of secrets (`same`), and the one kind of secret token the service
//! hands out and keeps only as a digest (`new_token`, `digest`).

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// HMAC-SHA256 of the concatenated `parts` under `key`.
pub(crate) fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC takes keys of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

/// Whether `tag` is the start of `hmac_sha256(key, [payload])`, compared in constant time.
pub(crate) fn tag_matches(key: &[u8], payload: &[u8], tag: &[u8]) -> bool {
    let expected = hmac_sha256(key, &[payload]);
    !tag.is_empty() && tag.len() <= expected.len() && same(&expected[..tag.len()], tag)
}

/// Whether `a` and `b` are equal, in a time that depends on their lengths only: every
/// comparison of a secret (key digests, tags, the operator token) goes through here,
/// never through `==`, which stops at the first byte that differs.
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    #[cfg(test)]
    seam::COMPARED.with(|n| n.set(n.get() + 1));
    bool::from(a.ct_eq(b))
}

/// A fresh secret token (sessions, sign-in links, OIDC states, resume tokens): 32
/// bytes of the operating system's CSPRNG, URL-safe.
pub(crate) fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// What is stored of a token.
pub(crate) fn digest(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// Counts the comparisons made through `same` on this thread, so that a test can tell
/// a check that compares in constant time from one that uses `==`.
#[cfg(test)]
pub(crate) mod seam {
    thread_local! {
        pub(crate) static COMPARED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// How many comparisons `check` made through `same`.
    pub(crate) fn comparisons_in<T>(check: impl FnOnce() -> T) -> (T, usize) {
        let before = COMPARED.with(std::cell::Cell::get);
        let result = check();
        (result, COMPARED.with(std::cell::Cell::get) - before)
    }
}

#[cfg(test)]
mod tests {
    use super::{hmac_sha256, seam::comparisons_in, tag_matches};

    #[test]
    fn tags_are_compared_in_constant_time() {
        let tag = hmac_sha256(b"key", &[b"payload"]);
        assert_eq!(
            comparisons_in(|| tag_matches(b"key", b"payload", &tag[..16])),
            (true, 1)
        );
        let mut wrong = tag;
        wrong[0] ^= 1;
        assert_eq!(
            comparisons_in(|| tag_matches(b"key", b"payload", &wrong)),
            (false, 1)
        );
    }
}
