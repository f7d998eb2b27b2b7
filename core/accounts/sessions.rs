//! API sign-in with the identity provider's session cookie: a JWT (HS256 with a shared
//! secret, or RS256/ES256 with the provider's public key) whose `sub` is linked to an
//! account (`formsd accounts link-identity`). Tried only when no API key is sent.

use crate::error::CoreError;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode};
use serde::Deserialize;

/// Checks session cookies.
#[derive(Clone)]
pub struct SessionVerifier {
    cookie: String,
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
        // Expiry is required and checked; no clock leeway beyond a minute.
        validation.set_required_spec_claims(&["exp", "sub"]);
        validation.leeway = 60;
        Self {
            cookie: cookie.to_owned(),
            key,
            validation,
        }
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
