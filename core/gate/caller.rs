//! Who is calling: the API key presented in the metadata (timing-safe check against its
//! stored digest), else the session cookie's account; and what else the metadata says
//! about the call (request id, end client's address).

use crate::accounts::sessions::SessionVerifier;
use crate::accounts::{Scopes, keys, store};
use crate::dashboard::{self, SessionPolicy};
use crate::error::CoreError;
use crate::telemetry;
use sqlx::PgPool;
use std::net::{IpAddr, Ipv4Addr};
use tonic::Request;
use tonic::metadata::MetadataMap;
use uuid::Uuid;

use super::keys::KeyCache;
use super::permissions::Role;
use super::{CLIENT_IP, CLIENT_USER_AGENT, EDGE_SECRET, REQUEST_ID};

/// Who is calling, once authenticated.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    pub key_id: Uuid,
    pub account_id: Uuid,
    pub scopes: Scopes,
    /// The caller's per-minute limit.
    pub rate_limit: u32,
    /// The dashboard session the call came with, if it came with one.
    pub dashboard: Option<Dashboard>,
    /// The member calling (a dashboard session or a provider cookie); None for a key.
    pub member: Option<Member>,
}

/// A member calling, with their role as the database has it now.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Member {
    pub person_id: Uuid,
    pub role: Role,
}

/// A call made with a dashboard session.
#[derive(Debug, Clone)]
pub(crate) struct Dashboard {
    pub session_id: Uuid,
    /// Whether the call carried the session's CSRF token.
    pub csrf_ok: bool,
    /// The session's token (to answer GetSession with its CSRF token).
    pub token: String,
    pub account_name: String,
    pub method: String,
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

/// The key a call is counted under, and the dashboard session it came with.
pub(super) struct Identity {
    pub row: store::KeyWithPlan,
    pub dashboard: Option<Dashboard>,
    pub member: Option<Member>,
}

/// Who is calling: the API key's row, else (no key sent) the dashboard session's
/// account, else the provider cookie's; in both latter cases under the account's
/// session key. Unauthenticated / KeyInvalid when none works.
pub(super) async fn identify(
    pool: &PgPool,
    cache: &KeyCache,
    (sessions, policy): (Option<&SessionVerifier>, &SessionPolicy),
    md: &MetadataMap,
) -> Result<Identity, CoreError> {
    let Some(key) = presented_key(md) else {
        if let Some(token) = metadata_str(md, dashboard::SESSION_METADATA) {
            return identify_dashboard(pool, policy, md, token).await;
        }
        let (row, member) = identify_session(pool, sessions, md).await?;
        return Ok(Identity {
            row,
            dashboard: None,
            member: Some(member),
        });
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
    .map(|row| Identity {
        row,
        dashboard: None,
        member: None,
    })
    .ok_or(CoreError::KeyInvalid)
}

/// How often a session in use is marked used: at most once a minute (a page of several
/// calls writes at most once), and at least four times per idle timeout, so that a
/// session in use never reaches it.
fn touch_every(policy: &SessionPolicy) -> chrono::Duration {
    let quarter = policy.idle_timeout / 4;
    chrono::Duration::from_std(quarter.min(std::time::Duration::from_secs(60)))
        .unwrap_or(chrono::Duration::seconds(60))
}

async fn identify_dashboard(
    pool: &PgPool,
    policy: &SessionPolicy,
    md: &MetadataMap,
    token: &str,
) -> Result<Identity, CoreError> {
    let session =
        dashboard::store::find_session(pool, &dashboard::digest(token), policy.idle_timeout)
            .await?
            .ok_or(CoreError::KeyInvalid)?;
    // Revoking the account's session key ends its dashboard sessions too.
    if session.key_revoked_at.is_some() {
        return Err(CoreError::KeyInvalid);
    }
    if chrono::Utc::now() - session.last_seen_at >= touch_every(policy) {
        dashboard::store::touch(pool, session.session_id).await?;
    }
    let member = Member {
        person_id: session.person_id,
        role: session.role.parse()?,
    };
    let csrf_ok = metadata_str(md, dashboard::CSRF_METADATA)
        .is_some_and(|presented| dashboard::csrf_matches(token, presented));
    Ok(Identity {
        row: store::KeyWithPlan {
            id: session.key_id,
            account_id: session.account_id,
            digest: Vec::new(),
            scopes: vec!["read".into(), "write".into(), "admin".into()],
            expires_at: None,
            revoked_at: None,
            plan: session.plan,
        },
        dashboard: Some(Dashboard {
            session_id: session.session_id,
            csrf_ok,
            token: token.to_owned(),
            account_name: session.account_name,
            method: session.method,
            expires_at: session.expires_at,
        }),
        member: Some(member),
    })
}

async fn identify_session(
    pool: &PgPool,
    sessions: Option<&SessionVerifier>,
    md: &MetadataMap,
) -> Result<(store::KeyWithPlan, Member), CoreError> {
    let verifier = sessions.ok_or(CoreError::Unauthenticated)?;
    let token = verifier.token_in(md).ok_or(CoreError::Unauthenticated)?;
    let subject = verifier.subject(token)?;
    // The account's session key obeys revocation like any key: an operator who revokes
    // it (`formsd keys revoke`) ends every session sign-in of the account at once.
    let now = chrono::Utc::now();
    let row = store::session_key(pool, verifier.issuer(), &subject)
        .await?
        .filter(|row| row.revoked_at.is_none() && row.expires_at.is_none_or(|at| at > now))
        .ok_or(CoreError::KeyInvalid)?;
    // The cookie's person calls as the member they are now: none, no call.
    let (person_id, role) =
        store::member_of_identity(pool, verifier.issuer(), &subject, row.account_id)
            .await?
            .ok_or(CoreError::KeyInvalid)?;
    let role = role.parse()?;
    Ok((row, Member { person_id, role }))
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

/// The caller's request id if it sent a sane one, else a new UUID, so that every log
/// line of the call carries it: the call's span took a sent id from the same header
/// (`telemetry::grpc_span`); a new one is recorded in it. (Recording a field again
/// costs the JSON log format a parse and a rewrite of the span's fields.)
pub(crate) fn request_id(md: &MetadataMap) -> String {
    match metadata_str(md, REQUEST_ID).and_then(telemetry::sane_request_id) {
        Some(id) => id.to_owned(),
        None => {
            let id = telemetry::new_request_id();
            telemetry::record_request_id(&id);
            id
        }
    }
}

/// The end client's address: the `x-client-ip` metadata when the call comes from one
/// of our edges (in-process, or one that shows `edge_secret` in `x-edge-secret`), else
/// the peer address itself, so that a gRPC client cannot pick its own address, nor
/// can a proxy's address make it trusted (a proxy in front of the gRPC port passes its
/// clients' metadata through unchanged).
pub(crate) fn client_ip<T>(req: &Request<T>, edge_secret: Option<&str>) -> IpAddr {
    let peer = req.remote_addr().map(|addr| addr.ip());
    let trusted = from_edge(req, edge_secret);
    let claimed = || metadata_str(req.metadata(), CLIENT_IP).and_then(|ip| ip.parse().ok());
    trusted
        .then(claimed)
        .flatten()
        .or(peer)
        .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}

/// Whether a call comes from one of our edges: in-process, or showing the edge secret.
fn from_edge<T>(req: &Request<T>, edge_secret: Option<&str>) -> bool {
    let proven = || {
        edge_secret
            .zip(metadata_str(req.metadata(), EDGE_SECRET))
            .is_some_and(|(secret, shown)| crate::crypto::same(secret.as_bytes(), shown.as_bytes()))
    };
    req.remote_addr().is_none() || proven()
}

/// The end client's user agent, for the audit trail: the edge's
/// `x-client-user-agent` when the call comes from one of our edges (as `client_ip`),
/// else the gRPC client's own `user-agent`.
pub(crate) fn user_agent<T>(req: &Request<T>, edge_secret: Option<&str>) -> String {
    let md = req.metadata();
    let edge = from_edge(req, edge_secret)
        .then(|| metadata_str(md, CLIENT_USER_AGENT))
        .flatten();
    edge.or_else(|| metadata_str(md, "user-agent"))
        .unwrap_or_default()
        .to_owned()
}
