//! gRPC adapters of the trail: AuditService (an account reads its own entries, admin
//! scope) and AuditAdminService (the operator verifies every chain).

use super::store::{self, Filter, Stored};
use super::verify;
use crate::accounts::Scope;
use crate::error::CoreError;
use crate::gate::{Ctx, Gate};
use crate::pb::{
    self, audit_admin_service_server::AuditAdminService, audit_service_server::AuditService,
};
use crate::rpc::{AdminAuth, reply};
use sqlx::PgPool;
use tonic::{Request, Response, Status};
use uuid::Uuid;

/// Entries per page unless asked otherwise, and the most a page holds.
const DEFAULT_LIMIT: i32 = 50;
const MAX_LIMIT: i32 = 500;

/// The AuditService of the core.
#[derive(Clone)]
pub(crate) struct Audit {
    pub(crate) gate: Gate,
    pub(crate) pool: PgPool,
}

/// The AuditAdminService of the core.
#[derive(Clone)]
pub(crate) struct AuditAdmin {
    pub(crate) pool: PgPool,
    pub(crate) auth: AdminAuth,
}

fn optional_id(value: &str, what: &str) -> Result<Option<Uuid>, CoreError> {
    match value.trim() {
        "" => Ok(None),
        v => Uuid::parse_str(v)
            .map(Some)
            .map_err(|_| CoreError::validation(format!("{what} must be a UUID"))),
    }
}

/// The filters of a request, the cursor aside.
struct Filters<'a> {
    actor: &'a str,
    action: &'a str,
    form_id: &'a str,
    since: Option<&'a prost_types::Timestamp>,
    until: Option<&'a prost_types::Timestamp>,
}

impl<'a> From<&'a pb::ListAuditEntriesRequest> for Filters<'a> {
    fn from(r: &'a pb::ListAuditEntriesRequest) -> Self {
        Self {
            actor: &r.actor,
            action: &r.action,
            form_id: &r.form_id,
            since: r.since.as_ref(),
            until: r.until.as_ref(),
        }
    }
}

impl<'a> From<&'a pb::ExportAuditEntriesRequest> for Filters<'a> {
    fn from(r: &'a pb::ExportAuditEntriesRequest) -> Self {
        Self {
            actor: &r.actor,
            action: &r.action,
            form_id: &r.form_id,
            since: r.since.as_ref(),
            until: r.until.as_ref(),
        }
    }
}

fn filter_of(req: Filters<'_>, cursor: &str) -> Result<Filter, CoreError> {
    let before_seq = match cursor.trim() {
        "" => None,
        c => Some(
            c.parse::<i64>()
                .ok()
                .filter(|seq| *seq > 0)
                .ok_or_else(|| CoreError::validation("cursor is not one this service gave"))?,
        ),
    };
    let action = Some(req.action.trim().to_owned()).filter(|a| !a.is_empty());
    let time = |ts: Option<&prost_types::Timestamp>, what: &str| {
        ts.map(|ts| {
            pb::convert::datetime(ts)
                .ok_or_else(|| CoreError::validation(format!("{what} is not a valid time")))
        })
        .transpose()
    };
    Ok(Filter {
        actor: optional_id(req.actor, "actor")?,
        action,
        form_id: optional_id(req.form_id, "form_id")?,
        since: time(req.since, "since")?,
        until: time(req.until, "until")?,
        before_seq,
    })
}

fn id_string(id: Option<Uuid>) -> String {
    id.map(|id| id.to_string()).unwrap_or_default()
}

pub(crate) fn entry_to_pb(stored: Stored) -> pb::AuditEntry {
    let e = stored.entry;
    pb::AuditEntry {
        seq: e.seq,
        at: Some(pb::convert::timestamp(e.at)),
        actor_kind: e.actor_kind,
        actor_key_id: id_string(e.actor_key_id),
        actor_session_id: id_string(e.actor_session_id),
        actor_member_id: id_string(e.actor_member_id),
        client_ip: e.client_ip,
        user_agent: e.user_agent,
        action: e.action,
        target_kind: e.target_kind,
        target_id: e.target_id,
        form_id: id_string(e.form_id),
        changed: e.changed,
        outcome: e.outcome,
        hash: hex::encode(stored.hash),
        prev_hash: hex::encode(e.prev_hash),
    }
}

impl Audit {
    async fn list(
        &self,
        ctx: Ctx,
        req: pb::ListAuditEntriesRequest,
    ) -> Result<pb::ListAuditEntriesResponse, CoreError> {
        let limit = req.limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(CoreError::validation(format!(
                "limit must be between 1 and {MAX_LIMIT}"
            )));
        }
        let filter = filter_of(Filters::from(&req), &req.cursor)?;
        // One more than asked: whether there is a next page.
        let mut rows = store::list(
            &self.pool,
            ctx.caller.account_id,
            &filter,
            i64::from(limit) + 1,
        )
        .await?;
        let more = rows.len() > usize::try_from(limit).unwrap_or(usize::MAX);
        rows.truncate(usize::try_from(limit).unwrap_or(0));
        let next_cursor = match (more, rows.last()) {
            (true, Some(last)) => last.entry.seq.to_string(),
            _ => String::new(),
        };
        Ok(pb::ListAuditEntriesResponse {
            entries: rows.into_iter().map(entry_to_pb).collect(),
            next_cursor,
        })
    }
}

/// Reading the trail takes the admin scope. Checked here rather than by the gate's
/// `need`: the gate asks a dashboard session for its CSRF token on every call above
/// read (a change), and the audit page is a read, reached by a plain GET.
fn admin_reader(ctx: &Ctx) -> Result<(), CoreError> {
    if ctx.caller.scopes.allows(Scope::Admin) {
        Ok(())
    } else {
        Err(CoreError::InsufficientScope(Scope::Admin.as_str()))
    }
}

/// Entries per page of an export, and pages buffered ahead of the reader.
const EXPORT_PAGE: i64 = 500;
const EXPORT_DEPTH: usize = 2;

/// The export's stream of NDJSON chunks.
pub(crate) type ExportStream = std::pin::Pin<
    Box<dyn tokio_stream::Stream<Item = Result<pb::ExportAuditEntriesResponse, Status>> + Send>,
>;

/// One entry as an NDJSON line: the fields of `AuditEntry`, by their proto names.
fn ndjson_line(e: &pb::AuditEntry, out: &mut Vec<u8>) {
    let at = e.at.as_ref().and_then(pb::convert::iso8601);
    let line = serde_json::json!({
        "seq": e.seq, "at": at, "actor_kind": e.actor_kind, "actor_key_id": e.actor_key_id,
        "actor_session_id": e.actor_session_id, "actor_member_id": e.actor_member_id,
        "client_ip": e.client_ip, "user_agent": e.user_agent, "action": e.action,
        "target_kind": e.target_kind, "target_id": e.target_id, "form_id": e.form_id,
        "changed": e.changed, "outcome": e.outcome, "hash": e.hash, "prev_hash": e.prev_hash,
    });
    out.extend_from_slice(line.to_string().as_bytes());
    out.push(b'\n');
}

impl Audit {
    /// Pages through the account's entries from a task of its own, a page per chunk;
    /// stops when the reader goes away.
    fn export(
        &self,
        ctx: Ctx,
        req: pb::ExportAuditEntriesRequest,
    ) -> Result<ExportStream, CoreError> {
        let mut filter = filter_of(Filters::from(&req), "")?;
        let (sender, receiver) = tokio::sync::mpsc::channel(EXPORT_DEPTH);
        let (pool, account_id, request_id) =
            (self.pool.clone(), ctx.caller.account_id, ctx.request_id);
        tokio::spawn(async move {
            loop {
                let page = match store::list(&pool, account_id, &filter, EXPORT_PAGE).await {
                    Ok(page) => page,
                    Err(error) => {
                        let _ = sender.send(Err(error.into_status(&request_id))).await;
                        return;
                    }
                };
                let full = page.len() == usize::try_from(EXPORT_PAGE).unwrap_or(0);
                filter.before_seq = page.last().map(|s| s.entry.seq);
                let mut data = Vec::new();
                for stored in page {
                    ndjson_line(&entry_to_pb(stored), &mut data);
                }
                if !data.is_empty() {
                    let chunk = pb::ExportAuditEntriesResponse { data };
                    if sender.send(Ok(chunk)).await.is_err() {
                        return;
                    }
                }
                if !full {
                    return;
                }
            }
        });
        Ok(Box::pin(tokio_stream::wrappers::ReceiverStream::new(
            receiver,
        )))
    }
}

#[tonic::async_trait]
impl AuditService for Audit {
    type ExportAuditEntriesStream = ExportStream;

    async fn export_audit_entries(
        &self,
        req: Request<pb::ExportAuditEntriesRequest>,
    ) -> Result<Response<ExportStream>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, m| async move {
                admin_reader(&ctx)?;
                self.export(ctx, m)
            })
            .await
    }

    async fn list_audit_entries(
        &self,
        req: Request<pb::ListAuditEntriesRequest>,
    ) -> Result<Response<pb::ListAuditEntriesResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, m| async move {
                admin_reader(&ctx)?;
                self.list(ctx, m).await
            })
            .await
    }
}

#[tonic::async_trait]
impl AuditAdminService for AuditAdmin {
    async fn verify_audit_trail(
        &self,
        req: Request<pb::VerifyAuditTrailRequest>,
    ) -> Result<Response<pb::VerifyAuditTrailResponse>, Status> {
        self.auth.check(&req)?;
        reply(verify::verify(&self.pool).await.map(|report| {
            let counted = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
            let mut reply = pb::VerifyAuditTrailResponse {
                chains: counted(report.chains),
                entries: counted(report.entries),
                ok: report.broken.is_none(),
                ..Default::default()
            };
            if let Some(broken) = report.broken {
                reply.broken_chain = broken.chain.to_string();
                reply.broken_seq = broken.seq;
                reply.reason = broken.reason;
            }
            reply
        }))
    }
}
