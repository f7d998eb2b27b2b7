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

mod id_token;

use super::{digest, new_token, store};
use crate::error::CoreError;
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::jwk::JwkSet;
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
