//! Webhook signatures.
//!
//! SPEC: `X-Webhook-Signature: sha256=<lowercase hex HMAC-SHA256 of the raw body>`, keyed
//! with the secret string as given to the subscriber. Beside it, the Standard Webhooks
//! headers: `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`,
//! keyed with the base64-decoded part of the secret after `whsec_`; signing the id and
//! time lets receivers refuse replays.

use crate::crypto::hmac_sha256;
use base64::{Engine, engine::general_purpose::STANDARD};
use rand::RngCore;

const SECRET_PREFIX: &str = "whsec_";

/// A new signing secret: `whsec_` and 32 random bytes in base64.
pub(crate) fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("{SECRET_PREFIX}{}", STANDARD.encode(bytes))
}

/// The SPEC `X-Webhook-Signature` value for `body`.
pub(crate) fn spec_signature(secret: &str, body: &[u8]) -> String {
    format!(
        "sha256={}",
        hex::encode(hmac_sha256(secret.as_bytes(), &[body]))
    )
}

/// The Standard Webhooks `webhook-signature` value.
pub(crate) fn standard_signature(
    secret: &str,
    msg_id: &str,
    timestamp: i64,
    body: &[u8],
) -> String {
    let key = secret
        .strip_prefix(SECRET_PREFIX)
        .and_then(|b64| STANDARD.decode(b64).ok())
        .unwrap_or_else(|| secret.as_bytes().to_vec());
    let ts = timestamp.to_string();
    let sig = hmac_sha256(&key, &[msg_id.as_bytes(), b".", ts.as_bytes(), b".", body]);
    format!("v1,{}", STANDARD.encode(sig))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_signature_is_hmac_sha256_hex() {
        // RFC 4231 test case 2.
        let sig = spec_signature("Jefe", b"what do ya want for nothing?");
        assert_eq!(
            sig,
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let secret = new_secret();
        assert!(secret.starts_with("whsec_") && secret.len() > 40);
        assert!(standard_signature(&secret, "msg", 1, b"{}").starts_with("v1,"));
    }
}
