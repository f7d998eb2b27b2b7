//! `/audit`: the account's audit trail (AuditService), keyset-paged, and its NDJSON
//! export. Scope: admin.

use crate::http::call::{Call, Success};
use crate::http::download;
use crate::http::error::forwarded_headers;
use crate::http::state::AppState;
use crate::rest::query::{self, Query};
use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb;
use serde::{Deserialize, Serialize};
use tokio_stream::StreamExt;
use utoipa::{IntoParams, ToSchema};

/// One entry of the trail: who (a key or dashboard session by id, never a secret),
/// what (the method, its target, the names of the changed properties), when, from
/// where, and how it ended.
#[derive(Serialize, ToSchema)]
pub(crate) struct AuditEntry {
    /// The entry's number in the account's chain.
    seq: i64,
    #[schema(format = DateTime)]
    at: Option<String>,
    /// `key`, `session`, `operator` or `visitor` (a sign-in attempt).
    actor_kind: String,
    /// The key's id when a key acted, else empty.
    actor_key_id: String,
    /// The dashboard session's id when a session acted, else empty.
    actor_session_id: String,
    /// The member's id when a member acted, else empty.
    actor_member_id: String,
    client_ip: String,
    user_agent: String,
    /// The gRPC method, e.g. `UpdateForm`.
    action: String,
    target_kind: String,
    target_id: String,
    /// The form concerned, else empty.
    form_id: String,
    /// Names of the changed properties (never their values).
    changed: Vec<String>,
    /// `ok` or `refused`.
    outcome: String,
    /// SHA-256 (hex) of the entry, chained to the one before.
    hash: String,
    prev_hash: String,
}

impl From<pb::AuditEntry> for AuditEntry {
    fn from(e: pb::AuditEntry) -> Self {
        Self {
            seq: e.seq,
            at: e.at.as_ref().and_then(pb::convert::iso8601),
            actor_kind: e.actor_kind,
            actor_key_id: e.actor_key_id,
            actor_session_id: e.actor_session_id,
            actor_member_id: e.actor_member_id,
            client_ip: e.client_ip,
            user_agent: e.user_agent,
            action: e.action,
            target_kind: e.target_kind,
            target_id: e.target_id,
            form_id: e.form_id,
            changed: e.changed,
            outcome: e.outcome,
            hash: e.hash,
            prev_hash: e.prev_hash,
        }
    }
}

/// A page of the trail.
#[derive(Serialize, ToSchema)]
pub(crate) struct AuditPage {
    /// Newest first.
    entries: Vec<AuditEntry>,
    /// Pass as `cursor` for the next (older) page; absent on the last page.
    next_cursor: Option<String>,
}

/// The filters of the trail (all optional).
#[derive(Deserialize, IntoParams, Default)]
#[into_params(parameter_in = Query)]
pub(crate) struct AuditQuery {
    /// A key, session or member id.
    #[serde(default)]
    actor: Option<String>,
    /// A method name, e.g. `UpdateForm`.
    #[serde(default)]
    action: Option<String>,
    /// A form id.
    #[serde(default)]
    form_id: Option<String>,
    /// Entries at or after this instant (RFC 3339).
    #[serde(default, deserialize_with = "query::timestamp")]
    #[param(value_type = Option<String>, format = DateTime)]
    since: Option<prost_types::Timestamp>,
    /// Entries before this instant (RFC 3339).
    #[serde(default, deserialize_with = "query::timestamp")]
    #[param(value_type = Option<String>, format = DateTime)]
    until: Option<prost_types::Timestamp>,
}

/// The page of the listing.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct AuditPageQuery {
    /// Entries per page.
    #[serde(default, deserialize_with = "query::integer")]
    #[param(minimum = 1, maximum = 500, default = 50)]
    limit: Option<i32>,
    /// The `next_cursor` of the previous page.
    #[serde(default)]
    cursor: Option<String>,
}

/// List the account's audit trail
#[utoipa::path(get, path = "/audit", operation_id = "listAuditEntries", tag = "audit",
    description = "Scope: admin. The account's audit trail, newest first, keyset-paged.",
    params(AuditQuery, AuditPageQuery),
    responses((status = 200, description = "A page of entries", body = Success<AuditPage>)))]
pub(crate) async fn list(
    State(state): State<AppState>,
    call: Call,
    Query(filter): Query<AuditQuery>,
    Query(page): Query<AuditPageQuery>,
) -> Response {
    let request = pb::ListAuditEntriesRequest {
        limit: page.limit,
        cursor: page.cursor.unwrap_or_default(),
        actor: filter.actor.unwrap_or_default(),
        action: filter.action.unwrap_or_default(),
        form_id: filter.form_id.unwrap_or_default(),
        since: filter.since,
        until: filter.until,
    };
    let result = state
        .audit()
        .list_audit_entries(call.request(request))
        .await;
    call.reply(result, StatusCode::OK, |r| AuditPage {
        entries: r.entries.into_iter().map(AuditEntry::from).collect(),
        next_cursor: Some(r.next_cursor).filter(|c| !c.is_empty()),
    })
}

/// Export the account's audit trail
#[utoipa::path(get, path = "/audit/export", operation_id = "exportAuditEntries", tag = "audit",
    description = "Scope: admin. Every entry matching the filters, newest first, as NDJSON \
        (one entry per line, the fields of the listing), streamed.",
    params(AuditQuery),
    responses((status = 200, description = "The entries, streamed as an attachment",
        content((String = "application/x-ndjson")))))]
pub(crate) async fn export(
    State(state): State<AppState>,
    call: Call,
    Query(filter): Query<AuditQuery>,
) -> Result<Response, Response> {
    let request = pb::ExportAuditEntriesRequest {
        actor: filter.actor.unwrap_or_default(),
        action: filter.action.unwrap_or_default(),
        form_id: filter.form_id.unwrap_or_default(),
        since: filter.since,
        until: filter.until,
    };
    let reply = state
        .audit()
        .export_audit_entries(call.request(request))
        .await
        .map_err(|status| call.error(&status))?;
    let headers = forwarded_headers(reply.metadata());
    // An error item aborts the body: the client sees a broken transfer, not a short file.
    let chunks = reply
        .into_inner()
        .map(|message| message.map(|m| bytes::Bytes::from(m.data)));
    let mut response = Response::new(Body::from_stream(chunks));
    response.headers_mut().extend(headers);
    download::attachment(&mut response, "application/x-ndjson", "audit.ndjson");
    Ok(response)
}
