//! Dashboard sign-in with OpenID Connect: the authorization code flow with PKCE (S256),
//! `state` and `nonce`, against any provider (`--oidc-issuer`, `--oidc-client-id`,
//! `--oidc-client-secret`).
//!
//! The provider's discovery document (`<issuer>/.well-known/openid-configuration`) is
//! fetched on first use and kept for an hour; its `issuer` must be the configured one
//! exactly. Its key set (`jwks_uri`) is kept too, and fetched again when an ID token names
//! a key (`kid`) it does not hold (the provider rotated its keys), at most once every
//! ten seconds so that tokens naming made-up keys cannot make us hammer the provider.
//!
//! An attempt (`begin`) stores the digest of its `state`, its `nonce`, its PKCE verifier
//! and its redirect URI for ten minutes (`oidc_attempts`); `finish` takes it once (a
//! state works once, even for two callbacks at the same moment), exchanges the code at
//! the token endpoint with the verifier and the client's secret (HTTP Basic,
//! `client_secret_basic`, unless the provider only offers `client_secret_post`), and
//! checks the ID token: its signature by a key of the provider's set (RS256/384/512,
//! PS256/384/512, ES256/384; never HS* or `none`), `iss` (the issuer), `aud` (our
//! client id, and `azp` when there are several audiences), `exp` and `nbf` (a minute of
//! leeway), `iat` (present, and not in the future) and `nonce` (the attempt's). Its `sub`, with the
//! issuer, is the identity that `account_identities` links to an account.
//!
//! Why not the `openidconnect` crate: it is the well-kept Rust OIDC client, but v4 brings
//! `oauth2` 5, `serde_with` (with its proc-macro stack), `rsa`, `p256`, `p384`,
//! `ed25519-dalek`, `hmac` and more, none of which this build has, and its HTTP layer
//! wants a `reqwest` 0.12 client or an adapter of ours to 0.13: minutes more of compile on
//! a two-core machine, and a second copy of the crypto we already have through `ring`.
//! What it would do for us here is small and standard: two JSON fetches, one form post,
//! and a JWT check that `jsonwebtoken` 9 (already a dependency, for the provider cookie)
//! does with the provider's JWK set, on `ring`. The HTTP client is the core's `reqwest`
//! on `rustls` with the `ring` provider, as for webhooks.
//!
//! An `http://` issuer is accepted: the operator chose it (a provider on loopback, in a
//! test or on the same host). Anywhere else it should be `https://`: the discovery
//! document, the keys and the token exchange (with the client secret) travel over it.

use super::{digest, new_token, store};
use crate::error::CoreError;
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// How long an attempt may take, from the button to the callback.
pub(crate) const ATTEMPT_LIFETIME: Duration = Duration::from_secs(10 * 60);
/// How long a discovery document is kept.
const DISCOVERY_TTL: Duration = Duration::from_secs(60 * 60);
/// The shortest time between two fetches of the key set.
const JWKS_MIN_REFRESH: Duration = Duration::from_secs(10);
/// Time the provider has to answer one request.
const PROVIDER_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest document read from the provider.
const MAX_DOCUMENT: usize = 1024 * 1024;
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

/// The provider and this service's client at it, as configured.
#[derive(Clone)]
pub struct OidcSettings {
    /// The issuer URL, e.g. `https://accounts.example.com`.
    pub issuer: String,
    /// The client id registered with the provider.
    pub client_id: String,
    /// The client's secret.
    pub client_secret: String,
}

impl std::fmt::Debug for OidcSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secret.
        f.debug_struct("OidcSettings")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &"[redacted]")
            .finish()
    }
}

/// What we use of the discovery document.
#[derive(Debug, Deserialize)]
struct Discovery {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
    jwks_uri: String,
    #[serde(default)]
    token_endpoint_auth_methods_supported: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct TokenReply {
    id_token: Option<String>,
}

#[derive(Deserialize)]
struct IdClaims {
    sub: String,
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

#[derive(Default)]
struct Cache {
    discovery: Option<(Instant, Arc<Discovery>)>,
    keys: Option<(Instant, Arc<JwkSet>)>,
}

/// The configured provider, with what we keep of it.
pub(crate) struct Provider {
    settings: OidcSettings,
    http: reqwest::Client,
    cache: Mutex<Cache>,
}

/// A started attempt: where to send the browser, and its state.
pub(crate) struct Begun {
    pub authorization_url: String,
    pub state: String,
}

/// A provider that did not answer as it should: the sign-in cannot go on now.
fn provider_failed(what: &str, e: impl std::fmt::Display) -> CoreError {
    tracing::warn!(error = %e, "OpenID provider: {what}");
    CoreError::Unavailable
}

/// The PKCE challenge of a verifier (S256).
fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

impl Provider {
    pub(crate) fn new(settings: OidcSettings) -> Result<Self, CoreError> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(PROVIDER_TIMEOUT)
            .user_agent(concat!("formsd/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| CoreError::Internal(format!("OpenID client: {e}")))?;
        Ok(Self {
            settings,
            http,
            cache: Mutex::new(Cache::default()),
        })
    }

    /// The issuer, as configured: the ID token's `iss` is checked against it, and with
    /// a subject it is the identity (subjects are unique only per issuer).
    pub(crate) fn issuer(&self) -> &str {
        &self.settings.issuer
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, CoreError> {
        let reply = self
            .http
            .get(url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| provider_failed("fetching a document", e))?;
        let status = reply.status();
        let body = read_body(reply).await?;
        if !status.is_success() {
            return Err(provider_failed("fetching a document", status));
        }
        serde_json::from_slice(&body).map_err(|e| provider_failed("reading a document", e))
    }

    /// The discovery document, from the cache while it is fresh.
    async fn discovery(&self) -> Result<Arc<Discovery>, CoreError> {
        if let Some((at, doc)) = &self.cache.lock().await.discovery
            && at.elapsed() < DISCOVERY_TTL
        {
            return Ok(doc.clone());
        }
        let url = format!(
            "{}/.well-known/openid-configuration",
            self.settings.issuer.trim_end_matches('/')
        );
        let doc: Discovery = self.get_json(&url).await?;
        if doc.issuer != self.settings.issuer {
            return Err(provider_failed(
                "discovery",
                format!(
                    "the document's issuer {:?} is not --oidc-issuer",
                    doc.issuer
                ),
            ));
        }
        let doc = Arc::new(doc);
        self.cache.lock().await.discovery = Some((Instant::now(), doc.clone()));
        Ok(doc)
    }

    /// The provider's keys; fetched again when `refresh` and the set in hand is old
    /// enough (a key it lacks was named).
    async fn keys(&self, jwks_uri: &str, refresh: bool) -> Result<Arc<JwkSet>, CoreError> {
        if let Some((at, keys)) = &self.cache.lock().await.keys
            && (!refresh || at.elapsed() < JWKS_MIN_REFRESH)
        {
            return Ok(keys.clone());
        }
        let keys: Arc<JwkSet> = Arc::new(self.get_json(jwks_uri).await?);
        self.cache.lock().await.keys = Some((Instant::now(), keys.clone()));
        Ok(keys)
    }

    /// Starts an attempt: stores it, and builds the authorization URL.
    pub(crate) async fn begin(
        &self,
        pool: &PgPool,
        redirect_uri: &str,
    ) -> Result<Begun, CoreError> {
        let redirect = url::Url::parse(redirect_uri)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.fragment().is_none())
            .ok_or_else(|| CoreError::validation("redirect_uri must be an http(s) URL"))?;
        let doc = self.discovery().await?;
        let (state, nonce, verifier) = (new_token(), new_token(), new_token());
        store::create_oidc_attempt(
            pool,
            &digest(&state),
            &nonce,
            &verifier,
            redirect.as_str(),
            ATTEMPT_LIFETIME,
        )
        .await?;
        let mut url = url::Url::parse(&doc.authorization_endpoint)
            .map_err(|e| provider_failed("authorization_endpoint", e))?;
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("client_id", &self.settings.client_id)
            .append_pair("redirect_uri", redirect.as_str())
            .append_pair("scope", "openid")
            .append_pair("state", &state)
            .append_pair("nonce", &nonce)
            .append_pair("code_challenge", &challenge(&verifier))
            .append_pair("code_challenge_method", "S256");
        Ok(Begun {
            authorization_url: url.into(),
            state,
        })
    }

    /// Finishes an attempt: the subject the provider vouches for. KeyInvalid for an
    /// unknown, used or expired state, a refused code, or an ID token that fails a check.
    pub(crate) async fn finish(
        &self,
        pool: &PgPool,
        state: &str,
        code: &str,
    ) -> Result<String, CoreError> {
        let attempt = store::take_oidc_attempt(pool, &digest(state))
            .await?
            .ok_or(CoreError::KeyInvalid)?;
        if code.is_empty() {
            return Err(CoreError::KeyInvalid);
        }
        let doc = self.discovery().await?;
        let id_token = self
            .exchange(&doc, code, &attempt.verifier, &attempt.redirect_uri)
            .await?;
        let claims = self.verify(&doc, &id_token, &attempt.nonce).await?;
        Ok(claims.sub)
    }

    /// The ID token the code is exchanged for.
    async fn exchange(
        &self,
        doc: &Discovery,
        code: &str,
        verifier: &str,
        redirect_uri: &str,
    ) -> Result<String, CoreError> {
        let basic = doc
            .token_endpoint_auth_methods_supported
            .as_ref()
            .is_none_or(|methods| {
                methods.iter().any(|m| m == "client_secret_basic")
                    || !methods.iter().any(|m| m == "client_secret_post")
            });
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier),
        ];
        if !basic {
            form.push(("client_id", &self.settings.client_id));
            form.push(("client_secret", &self.settings.client_secret));
        }
        let body = serde_urlencoded::to_string(&form)
            .map_err(|e| CoreError::Internal(format!("token request: {e}")))?;
        let mut request = self
            .http
            .post(&doc.token_endpoint)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .body(body);
        if basic {
            // RFC 6749 §2.3.1: each part form-urlencoded, then Basic.
            let encode =
                |s: &str| serde_urlencoded::to_string([("", s)]).map(|p| p[1..].to_owned());
            let (id, secret) = encode(&self.settings.client_id)
                .and_then(|id| Ok((id, encode(&self.settings.client_secret)?)))
                .map_err(|e| CoreError::Internal(format!("token request: {e}")))?;
            let credentials =
                base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
            request = request.header("authorization", format!("Basic {credentials}"));
        }
        let reply = request
            .send()
            .await
            .map_err(|e| provider_failed("token endpoint", e))?;
        let status = reply.status();
        let body = read_body(reply).await?;
        if status.is_client_error() {
            // A code that is wrong, used, or not ours: the provider refuses it.
            tracing::info!(
                status = status.as_u16(),
                "OpenID sign-in refused: the token endpoint refused the code"
            );
            return Err(CoreError::KeyInvalid);
        }
        if !status.is_success() {
            return Err(provider_failed("token endpoint", status));
        }
        let reply: TokenReply =
            serde_json::from_slice(&body).map_err(|e| provider_failed("token reply", e))?;
        reply
            .id_token
            .ok_or_else(|| provider_failed("token reply", "no id_token"))
    }

    /// The checked claims of an ID token.
    async fn verify(
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

/// A reply's body, at most [`MAX_DOCUMENT`] bytes.
async fn read_body(mut reply: reqwest::Response) -> Result<Vec<u8>, CoreError> {
    let mut body = Vec::new();
    while let Some(chunk) = reply
        .chunk()
        .await
        .map_err(|e| provider_failed("reading a reply", e))?
    {
        if body.len() + chunk.len() > MAX_DOCUMENT {
            return Err(provider_failed("reading a reply", "larger than 1 MiB"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_is_rfc_7636s() {
        // RFC 7636, appendix B.
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

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

    #[test]
    fn the_secret_is_never_shown() {
        let settings = OidcSettings {
            issuer: "https://id.example.com".into(),
            client_id: "forms".into(),
            client_secret: "hunter2-hunter2".into(),
        };
        let shown = format!("{settings:?}");
        assert!(
            !shown.contains("hunter2") && shown.contains("forms"),
            "{shown}"
        );
    }
}
