//! The check of an ID token, claim by claim: its signature by a key of the provider's
//! set (fetched again once when it names a key the set lacks), the algorithms accepted,
//! `iss`, `aud` and `azp`, `exp`, `nbf` and `iat` with a minute of leeway, and the
//! attempt's `nonce`.

use super::{Discovery, Provider};
use crate::error::CoreError;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

/// Signature algorithms accepted on ID tokens.
const ALGORITHMS: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
];

#[derive(Deserialize)]
pub(super) struct IdClaims {
    pub(super) sub: String,
    /// When it was issued (required by OpenID Connect Core, 3.1.3.7).
    iat: i64,
    nonce: Option<String>,
    #[serde(default)]
    aud: Audience,
    azp: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(untagged)]
enum Audience {
    // Tried in order: a list first (an ignored value would take anything).
    Many(Vec<String>),
    One(serde::de::IgnoredAny),
    #[default]
    None,
}

impl Provider {
    /// The checked claims of an ID token.
    pub(super) async fn verify(
        &self,
        doc: &Discovery,
        token: &str,
        nonce: &str,
    ) -> Result<IdClaims, CoreError> {
        let refused = |why: &str| {
            tracing::info!("OpenID sign-in refused: {why}");
            CoreError::KeyInvalid
        };
        let header =
            jsonwebtoken::decode_header(token).map_err(|_| refused("the ID token is not a JWT"))?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(refused("the ID token's algorithm is not accepted"));
        }
        let mut keys = self.keys(&doc.jwks_uri, false).await?;
        let pick = |keys: &JwkSet| match &header.kid {
            Some(kid) => keys.find(kid).cloned(),
            None if keys.keys.len() == 1 => keys.keys.first().cloned(),
            None => None,
        };
        let jwk = match pick(&keys) {
            Some(jwk) => jwk,
            None => {
                keys = self.keys(&doc.jwks_uri, true).await?;
                pick(&keys)
                    .ok_or_else(|| refused("the ID token's key is not in the provider's set"))?
            }
        };
        let key =
            DecodingKey::from_jwk(&jwk).map_err(|_| refused("the provider's key is not usable"))?;
        let mut validation = Validation::new(header.alg);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.set_issuer(&[&self.settings.issuer]);
        validation.set_audience(&[&self.settings.client_id]);
        validation.leeway = 60;
        validation.validate_nbf = true;
        let claims = jsonwebtoken::decode::<IdClaims>(token, &key, &validation)
            .map_err(|e| refused(&format!("the ID token fails a check ({e})")))?
            .claims;
        // A token said to be issued later than now (beyond the clocks' leeway) was not
        // issued by a provider whose clock agrees with ours: refused like an early nbf.
        if claims.iat
            > chrono::Utc::now().timestamp() + i64::try_from(validation.leeway).unwrap_or(60)
        {
            return Err(refused("the ID token is issued in the future"));
        }
        if let Audience::Many(audiences) = &claims.aud
            && audiences.len() > 1
            && claims.azp.as_deref() != Some(self.settings.client_id.as_str())
        {
            return Err(refused(
                "the ID token has several audiences and another azp",
            ));
        }
        if claims.nonce.as_deref() != Some(nonce) {
            return Err(refused("the ID token's nonce is not the attempt's"));
        }
        Ok(claims)
    }
}

#[cfg(test)]
mod tests {
    use super::super::OidcSettings;
    use super::*;
    use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
    use std::sync::Arc;
    use std::time::Instant;

    /// A P-256 key made for this test only, and its public half as a JWK.
    const TEST_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgqXG1bqsvHrWVzLqv
/ua7kdjzKCY3sg+1bOc9On4hPSqhRANCAASsVYjQzHh/89Z33yvqax3dhL8kZVrI
4Ac00d/McXayBm+kC/dVg5HgVoKhXAG7B3cFTprHT2ApwsZtIW/v3nk/
-----END PRIVATE KEY-----
";

    fn provider() -> Provider {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let provider = Provider::new(OidcSettings {
            issuer: "https://id.example.com".into(),
            client_id: "forms".into(),
            client_secret: "secret".into(),
        })
        .unwrap();
        let keys: JwkSet = serde_json::from_value(serde_json::json!({"keys": [{
            "kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig", "alg": "ES256",
            "x": "rFWI0Mx4f_PWd98r6msd3YS_JGVayOAHNNHfzHF2sgY",
            "y": "b6QL91WDkeBWgqFcAbsHdwVOmsdPYCnCxm0hb-_eeT8"
        }]}))
        .unwrap();
        // Fresh keys in hand: an unknown kid is refused without a fetch (the URI below
        // goes nowhere).
        provider.cache.try_lock().unwrap().keys = Some((Instant::now(), Arc::new(keys)));
        provider
    }

    fn discovery() -> Discovery {
        Discovery {
            issuer: "https://id.example.com".into(),
            authorization_endpoint: "https://id.example.com/auth".into(),
            token_endpoint: "https://id.example.com/token".into(),
            jwks_uri: "http://127.0.0.1:9/jwks".into(),
            token_endpoint_auth_methods_supported: None,
        }
    }

    fn token(kid: &str, claims: serde_json::Value) -> String {
        let mut header = jsonwebtoken::Header::new(Algorithm::ES256);
        header.kid = Some(kid.into());
        let key = jsonwebtoken::EncodingKey::from_ec_pem(TEST_KEY.as_bytes()).unwrap();
        jsonwebtoken::encode(&header, &claims, &key).unwrap()
    }

    fn claims(change: impl FnOnce(&mut serde_json::Value)) -> serde_json::Value {
        let now = chrono::Utc::now().timestamp();
        let mut claims = serde_json::json!({
            "iss": "https://id.example.com", "aud": "forms", "sub": "alice",
            "exp": now + 300, "iat": now, "nonce": "n-1"
        });
        change(&mut claims);
        claims
    }

    type Change = Box<dyn FnOnce(&mut serde_json::Value)>;

    #[tokio::test]
    async fn id_tokens_are_checked_claim_by_claim() {
        let (provider, doc) = (provider(), discovery());
        let refused = |c: Result<IdClaims, CoreError>| matches!(c, Err(CoreError::KeyInvalid));
        let good = token("k1", claims(|_| {}));
        let subject = provider.verify(&doc, &good, "n-1").await.unwrap().sub;
        assert_eq!(subject, "alice");
        assert!(
            refused(provider.verify(&doc, &good, "n-2").await),
            "another attempt's nonce"
        );
        let cases: Vec<(&str, Change)> = vec![
            (
                "issuer",
                Box::new(|c| c["iss"] = "https://evil.example.com".into()),
            ),
            ("audience", Box::new(|c| c["aud"] = "another-client".into())),
            (
                "expired",
                Box::new(|c| c["exp"] = (chrono::Utc::now().timestamp() - 3600).into()),
            ),
            (
                "no nonce",
                Box::new(|c| drop(c.as_object_mut().unwrap().remove("nonce"))),
            ),
            (
                "no exp",
                Box::new(|c| drop(c.as_object_mut().unwrap().remove("exp"))),
            ),
            (
                "not yet valid",
                Box::new(|c| c["nbf"] = (chrono::Utc::now().timestamp() + 3600).into()),
            ),
            (
                "issued in the future",
                Box::new(|c| c["iat"] = (chrono::Utc::now().timestamp() + 3600).into()),
            ),
            (
                "no iat",
                Box::new(|c| drop(c.as_object_mut().unwrap().remove("iat"))),
            ),
            (
                "azp",
                Box::new(|c| {
                    c["aud"] = serde_json::json!(["forms", "other"]);
                    c["azp"] = "other".into();
                }),
            ),
        ];
        for (what, change) in cases {
            let bad = token("k1", claims(change));
            assert!(refused(provider.verify(&doc, &bad, "n-1").await), "{what}");
        }
        let several = token(
            "k1",
            claims(|c| {
                c["aud"] = serde_json::json!(["forms", "other"]);
                c["azp"] = "forms".into();
            }),
        );
        assert!(
            provider.verify(&doc, &several, "n-1").await.is_ok(),
            "azp is ours"
        );
        // A key the set lacks, a forged body, HS256 and `none`.
        let unknown = token("k2", claims(|_| {}));
        assert!(
            refused(provider.verify(&doc, &unknown, "n-1").await),
            "unknown kid"
        );
        let mut parts = good.split('.');
        let (head, _, signature) = (parts.next().unwrap(), parts.next(), parts.next().unwrap());
        let other_body = URL_SAFE_NO_PAD.encode(claims(|c| c["sub"] = "bob".into()).to_string());
        let forged = format!("{head}.{other_body}.{signature}");
        assert!(
            refused(provider.verify(&doc, &forged, "n-1").await),
            "forged"
        );
        let hs = jsonwebtoken::encode(
            &jsonwebtoken::Header::new(Algorithm::HS256),
            &claims(|_| {}),
            &jsonwebtoken::EncodingKey::from_secret(b"secret"),
        )
        .unwrap();
        assert!(refused(provider.verify(&doc, &hs, "n-1").await), "HS256");
        let none = format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"none","kid":"k1"}"#),
            URL_SAFE_NO_PAD.encode(claims(|_| {}).to_string())
        );
        assert!(refused(provider.verify(&doc, &none, "n-1").await), "none");
    }
}
