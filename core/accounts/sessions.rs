//! API sign-in with the identity provider's session cookie: a JWT (HS256 with a shared
//! secret, or RS256/ES256 with the provider's public key) whose `sub` is linked to an
//! account (`formsd accounts link-identity`). Tried only when no API key is sent.
//!
//! Checked: the signature, `exp` (required), `nbf` when present, and `aud` and `iss`
//! when configured (`--session-audience`, `--session-issuer`: then required). An
//! unconfigured audience ignores `aud`, so tokens of providers that always set one
//! still sign in; configuring it is what stops a token minted for another
//! application of the same provider from signing in here.
//!
//! The identity is the pair (issuer, subject): the configured issuer, else the fixed
//! name `provider-cookie`, so that a subject of the cookie never signs in as the same
//! subject of the OpenID provider (or the reverse).

use crate::error::CoreError;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode};
use serde::Deserialize;

pub use crate::pb::identity::PROVIDER_COOKIE;

/// Checks session cookies.
#[derive(Clone)]
pub struct SessionVerifier {
    cookie: String,
    /// The issuer of the identities it signs in: `--session-issuer`, else
    /// [`PROVIDER_COOKIE`].
    issuer: String,
    key: DecodingKey,
    validation: Validation,
}

impl std::fmt::Debug for SessionVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("SessionVerifier")
            .field("cookie", &self.cookie)
            .field("algorithms", &self.validation.algorithms)
            .finish()
    }
}

#[derive(Deserialize)]
struct Claims {
    sub: String,
}

/// A failure to configure session sign-in.
#[derive(Debug, thiserror::Error)]
#[error("session key: {0}")]
pub struct SessionConfigError(String);

impl SessionVerifier {
    fn new(cookie: &str, key: DecodingKey, algorithm: Algorithm) -> Self {
        let mut validation = Validation::new(algorithm);
        // Expiry is required and checked, `nbf` honoured; no clock leeway beyond a minute.
        validation.set_required_spec_claims(&["exp", "sub"]);
        validation.validate_nbf = true;
        validation.leeway = 60;
        // jsonwebtoken refuses any token carrying `aud` unless an audience is set:
        // without one configured, `aud` is not checked (see `with_claims`).
        validation.validate_aud = false;
        Self {
            cookie: cookie.to_owned(),
            issuer: PROVIDER_COOKIE.to_owned(),
            key,
            validation,
        }
    }

    /// Requires and checks `aud` (one of the token's audiences must be `audience`) and
    /// `iss` (must equal `issuer`), each when given.
    pub fn with_claims(mut self, audience: Option<&str>, issuer: Option<&str>) -> Self {
        let mut required = vec!["exp", "sub"];
        if let Some(audience) = audience {
            self.validation.set_audience(&[audience]);
            self.validation.validate_aud = true;
            required.push("aud");
        }
        if let Some(issuer) = issuer {
            self.validation.set_issuer(&[issuer]);
            required.push("iss");
            self.issuer = issuer.to_owned();
        }
        self.validation.set_required_spec_claims(&required);
        self
    }

    /// HS256 with a secret shared with the identity provider.
    pub fn hs256(cookie: &str, secret: &[u8]) -> Self {
        Self::new(cookie, DecodingKey::from_secret(secret), Algorithm::HS256)
    }

    /// RS256 or ES256 with the provider's public key in PEM.
    pub fn public_key(
        cookie: &str,
        algorithm: &str,
        pem: &[u8],
    ) -> Result<Self, SessionConfigError> {
        let (key, algorithm) = match algorithm {
            "RS256" => (DecodingKey::from_rsa_pem(pem), Algorithm::RS256),
            "ES256" => (DecodingKey::from_ec_pem(pem), Algorithm::ES256),
            other => {
                return Err(SessionConfigError(format!(
                    "unsupported algorithm {other}; use RS256 or ES256"
                )));
            }
        };
        let key = key.map_err(|e| SessionConfigError(e.to_string()))?;
        Ok(Self::new(cookie, key, algorithm))
    }

    /// The session token in a `Cookie` header, if the session cookie is there.
    pub fn token<'a>(&self, cookie_header: &'a str) -> Option<&'a str> {
        cookie_header
            .split(';')
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == self.cookie)
            .map(|(_, value)| value.trim())
            .filter(|value| !value.is_empty())
    }

    /// The session token among a call's `cookie` metadata, if it is there.
    pub(crate) fn token_in<'a>(&self, md: &'a tonic::metadata::MetadataMap) -> Option<&'a str> {
        md.get_all("cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(|header| self.token(header))
    }

    /// The issuer of the identities it signs in, which with a token's subject make the
    /// identity (`account_identities`): the configured `iss`, else [`PROVIDER_COOKIE`]
    /// (an unchecked `iss` says nothing: whoever holds the key may write any).
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The subject of a valid token; an expired, tampered or foreign token is KEY_INVALID.
    pub fn subject(&self, token: &str) -> Result<String, CoreError> {
        decode::<Claims>(token, &self.key, &self.validation)
            .map(|data| data.claims.sub)
            .map_err(|_| CoreError::KeyInvalid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header, encode};
    use serde_json::json;

    fn token(secret: &[u8], exp: i64) -> String {
        let claims = json!({"sub": "user-1", "exp": exp});
        encode(
            &Header::default(),
            &claims,
            &EncodingKey::from_secret(secret),
        )
        .expect("token")
    }

    fn signed(claims: serde_json::Value) -> String {
        encode(
            &Header::default(),
            &claims,
            &EncodingKey::from_secret(b"secret"),
        )
        .expect("token")
    }

    #[test]
    fn audience_issuer_and_not_before() {
        let exp = chrono::Utc::now().timestamp() + 600;
        let now = exp - 600;
        let plain = SessionVerifier::hs256("session", b"secret");
        // A provider's token carries `aud`: accepted while no audience is configured.
        assert!(
            plain
                .subject(&signed(json!({"sub": "u", "exp": exp, "aud": "x"})))
                .is_ok()
        );
        assert!(
            plain
                .subject(&signed(json!({"sub": "u", "exp": exp, "nbf": now + 600})))
                .is_err()
        );
        assert!(
            plain
                .subject(&signed(json!({"sub": "u", "exp": exp, "nbf": now - 10})))
                .is_ok()
        );
        let strict = SessionVerifier::hs256("session", b"secret")
            .with_claims(Some("forms"), Some("https://idp.example.com"));
        let iss = "https://idp.example.com";
        assert!(
            strict
                .subject(&signed(
                    json!({"sub": "u", "exp": exp, "aud": "forms", "iss": iss})
                ))
                .is_ok()
        );
        assert!(
            strict
                .subject(&signed(
                    json!({"sub": "u", "exp": exp, "aud": ["other", "forms"], "iss": iss})
                ))
                .is_ok()
        );
        assert!(
            strict
                .subject(&signed(
                    json!({"sub": "u", "exp": exp, "aud": "other", "iss": iss})
                ))
                .is_err()
        );
        assert!(
            strict
                .subject(&signed(json!({"sub": "u", "exp": exp, "iss": iss})))
                .is_err()
        );
        assert!(
            strict
                .subject(&signed(json!({"sub": "u", "exp": exp, "aud": "forms"})))
                .is_err()
        );
        assert!(
            strict
                .subject(&signed(
                    json!({"sub": "u", "exp": exp, "aud": "forms", "iss": "https://evil"})
                ))
                .is_err()
        );
    }

    #[test]
    fn valid_expired_and_forged_sessions() {
        let v = SessionVerifier::hs256("session", b"secret");
        let later = chrono::Utc::now().timestamp() + 600;
        assert_eq!(
            v.subject(&token(b"secret", later)).expect("valid"),
            "user-1"
        );
        assert!(
            v.subject(&token(b"secret", later - 4000)).is_err(),
            "expired"
        );
        assert!(v.subject(&token(b"other", later)).is_err(), "wrong key");
        assert_eq!(v.token("a=1; session=abc; b=2"), Some("abc"));
        assert_eq!(v.token("sessionx=abc"), None);
        assert!(format!("{v:?}").contains("session") && !format!("{v:?}").contains("secret"));
    }
}
