//! Start tokens of hosted pages: a signed record of which form was served and when,
//! bound to a nonce that the edge also sets in a same-site cookie. A submission must
//! bring both: this is the page's CSRF protection (a forged cross-site post has neither
//! the token of a page we served nor the visitor's cookie), and it dates the start of
//! the response for `completion_time_seconds`.

use crate::crypto::{hmac_sha256, tag_matches};
use crate::error::CoreError;
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};
use uuid::Uuid;

const PAYLOAD_LEN: usize = 16 + 8 + 16;
const MAC_LEN: usize = 16;
/// How long a served page may take to be submitted.
pub(crate) const MAX_AGE_HOURS: i64 = 24;

/// Issues and checks start tokens.
#[derive(Clone)]
pub(crate) struct Tokens {
    key: Vec<u8>,
}

fn nonce_digest(nonce: &str) -> [u8; 16] {
    let digest = Sha256::digest(nonce.as_bytes());
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest[..16]);
    out
}

impl Tokens {
    pub(crate) fn new(key: Vec<u8>) -> Self {
        Self { key }
    }

    pub(crate) fn issue(&self, form_id: Uuid, started_at: DateTime<Utc>, nonce: &str) -> String {
        let mut bytes = Vec::with_capacity(PAYLOAD_LEN + MAC_LEN);
        bytes.extend_from_slice(form_id.as_bytes());
        bytes.extend_from_slice(&started_at.timestamp_millis().to_be_bytes());
        bytes.extend_from_slice(&nonce_digest(nonce));
        let tag = hmac_sha256(&self.key, &[&bytes]);
        bytes.extend_from_slice(&tag[..MAC_LEN]);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The form and start time of a valid token presented with its nonce.
    pub(crate) fn check(
        &self,
        token: &str,
        nonce: &str,
        now: DateTime<Utc>,
    ) -> Result<(Uuid, DateTime<Utc>), CoreError> {
        let bytes = URL_SAFE_NO_PAD
            .decode(token.trim())
            .map_err(|_| CoreError::CsrfFailed)?;
        if bytes.len() != PAYLOAD_LEN + MAC_LEN || nonce.is_empty() {
            return Err(CoreError::CsrfFailed);
        }
        let (payload, tag) = bytes.split_at(PAYLOAD_LEN);
        if !tag_matches(&self.key, payload, tag) {
            return Err(CoreError::CsrfFailed);
        }
        let form_id = Uuid::from_slice(&payload[..16]).map_err(|_| CoreError::CsrfFailed)?;
        let millis = i64::from_be_bytes(
            payload[16..24]
                .try_into()
                .map_err(|_| CoreError::CsrfFailed)?,
        );
        let started_at = DateTime::from_timestamp_millis(millis).ok_or(CoreError::CsrfFailed)?;
        let fresh = started_at <= now + Duration::minutes(5)
            && now - started_at <= Duration::hours(MAX_AGE_HOURS);
        // Constant-time enough: both sides are digests of a random nonce.
        if payload[24..] != nonce_digest(nonce) || !fresh {
            return Err(CoreError::CsrfFailed);
        }
        Ok((form_id, started_at))
    }

    /// The token by which a refused page keeps `file_id` for its next post: it names
    /// the file, and only the visitor whose nonce the page carries may attach it to
    /// `form_id`'s response (a token seen elsewhere is worth nothing without the
    /// visitor's cookie).
    pub(crate) fn keep_file(&self, file_id: Uuid, form_id: Uuid, nonce: &str) -> String {
        let mut bytes = Vec::with_capacity(16 + MAC_LEN);
        bytes.extend_from_slice(file_id.as_bytes());
        let tag = self.file_tag(file_id, form_id, nonce);
        bytes.extend_from_slice(&tag[..MAC_LEN]);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The file a [`Tokens::keep_file`] token names, if it was made for this form and
    /// visitor.
    pub(crate) fn kept_file(&self, token: &str, form_id: Uuid, nonce: &str) -> Option<Uuid> {
        let bytes = URL_SAFE_NO_PAD.decode(token.trim()).ok()?;
        if bytes.len() != 16 + MAC_LEN || nonce.is_empty() {
            return None;
        }
        let (id, tag) = bytes.split_at(16);
        let file_id = Uuid::from_slice(id).ok()?;
        let expected = self.file_tag(file_id, form_id, nonce);
        crate::crypto::same(&expected[..MAC_LEN], tag).then_some(file_id)
    }

    fn file_tag(&self, file_id: Uuid, form_id: Uuid, nonce: &str) -> [u8; 32] {
        hmac_sha256(
            &self.key,
            &[
                b"kept-file",
                file_id.as_bytes(),
                form_id.as_bytes(),
                &nonce_digest(nonce),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_file_is_the_visitors_on_its_form_only() {
        let tokens = Tokens::new(b"k".to_vec());
        let (file, form) = (Uuid::new_v4(), Uuid::new_v4());
        let token = tokens.keep_file(file, form, "nonce");
        assert_eq!(tokens.kept_file(&token, form, "nonce"), Some(file));
        assert_eq!(tokens.kept_file(&token, form, "other"), None);
        assert_eq!(tokens.kept_file(&token, Uuid::new_v4(), "nonce"), None);
        assert_eq!(
            Tokens::new(b"j".to_vec()).kept_file(&token, form, "nonce"),
            None
        );
        assert_eq!(tokens.kept_file("not a token", form, "nonce"), None);
    }

    #[test]
    fn tokens_bind_form_time_and_nonce() {
        let tokens = Tokens::new(b"k".to_vec());
        let form = Uuid::new_v4();
        let at = DateTime::from_timestamp_millis(1_790_000_000_123).expect("instant");
        let token = tokens.issue(form, at, "nonce");
        assert_eq!(
            tokens.check(&token, "nonce", at).expect("valid"),
            (form, at)
        );
        assert!(
            tokens.check(&token, "other", at).is_err(),
            "cookie must match"
        );
        assert!(
            tokens
                .check(&token, "nonce", at + Duration::hours(25))
                .is_err(),
            "expired"
        );
        assert!(
            Tokens::new(b"x".to_vec())
                .check(&token, "nonce", at)
                .is_err(),
            "forged"
        );
        assert!(tokens.check("junk", "nonce", at).is_err());
    }
}
