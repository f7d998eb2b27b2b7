//! Who is calling: the API key presented in the metadata (timing-safe check against its
//! stored digest), else the session cookie's account; and what else the metadata says
//! about the call (request id, end client's address).

use crate::accounts::sessions::SessionVerifier;
use crate::accounts::{Scopes, keys, store};
use crate::error::CoreError;
use crate::telemetry;
use sqlx::PgPool;
use std::net::{IpAddr, Ipv4Addr};
use tonic::Request;
use tonic::metadata::MetadataMap;
use uuid::Uuid;

use super::keys::KeyCache;
use super::{CLIENT_IP, REQUEST_ID};

/// Who is calling, once authenticated.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    pub key_id: Uuid,
    pub account_id: Uuid,
    pub scopes: Scopes,
    /// The caller's per-minute limit.
    pub rate_limit: u32,
}

/// Who is calling: the API key's row, else (no key sent) the session cookie's account
/// and its session key. Unauthenticated / KeyInvalid when neither works.
pub(super) async fn identify(
    pool: &PgPool,
    cache: &KeyCache,
    sessions: Option<&SessionVerifier>,
    md: &MetadataMap,
) -> Result<store::KeyWithPlan, CoreError> {
    let Some(key) = presented_key(md) else {
        return identify_session(pool, sessions, md).await;
    };
    let row = match keys::lookup_of(key) {
        Some(lookup) => cache.find(pool, lookup).await?,
        None => None,
    };
    let now = chrono::Utc::now();
    row.filter(|row| {
        keys::matches(key, &row.digest)
            && row.revoked_at.is_none()
            && row.expires_at.is_none_or(|at| at > now)
    })
    .ok_or(CoreError::KeyInvalid)
}

async fn identify_session(
    pool: &PgPool,
    sessions: Option<&SessionVerifier>,
    md: &MetadataMap,
) -> Result<store::KeyWithPlan, CoreError> {
    let verifier = sessions.ok_or(CoreError::Unauthenticated)?;
    let token = md
        .get_all("cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|header| verifier.token(header))
        .ok_or(CoreError::Unauthenticated)?;
    let subject = verifier.subject(token)?;
    // The account's session key obeys revocation like any key: an operator who revokes
    // it (`formsd keys revoke`) ends every session sign-in of the account at once.
    let now = chrono::Utc::now();
    store::session_key(pool, &subject)
        .await?
        .filter(|row| row.revoked_at.is_none() && row.expires_at.is_none_or(|at| at > now))
        .ok_or(CoreError::KeyInvalid)
}

pub(super) fn metadata_str<'a>(md: &'a MetadataMap, name: &str) -> Option<&'a str> {
    md.get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The API key of a call: `x-api-key`, else `authorization: Bearer <key>`. Without
/// one, the session cookie is tried (`identify_session`).
fn presented_key(md: &MetadataMap) -> Option<&str> {
    if let Some(key) = metadata_str(md, "x-api-key") {
        return Some(key);
    }
    let auth = metadata_str(md, "authorization")?;
    let (scheme, token) = auth.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The caller's request id if it sent a sane one, else a new UUID; recorded in the
/// call's span, so that every log line of the call carries it.
pub(crate) fn request_id(md: &MetadataMap) -> String {
    let id = metadata_str(md, REQUEST_ID)
        .and_then(telemetry::sane_request_id)
        .map_or_else(|| Uuid::new_v4().to_string(), str::to_owned);
    telemetry::record_request_id(&id);
    id
}

/// The end client's address: the `x-client-ip` metadata when the call comes from a
/// trusted edge (in-process, or a peer listed in `trusted_proxies`), else the peer
/// address itself, so a direct gRPC client cannot pick its own address.
pub(crate) fn client_ip<T>(req: &Request<T>, trusted_proxies: &[IpAddr]) -> IpAddr {
    let peer = req.remote_addr().map(|addr| addr.ip());
    let trusted = peer.is_none_or(|ip| trusted_proxies.contains(&ip));
    let claimed = || metadata_str(req.metadata(), CLIENT_IP).and_then(|ip| ip.parse().ok());
    trusted
        .then(claimed)
        .flatten()
        .or(peer)
        .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}
