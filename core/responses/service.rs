//! gRPC adapter of responses: ResponsesService.

use super::bounded::{Bounded, Isolation};
use super::create::{self, Source, Submission};
use super::cursor::{CursorCodec, Sort};
use super::export::{self, Encoder, Format};
use super::filter;
use super::store::{self, Selection, Statuses, Window};
use super::summary;
use super::{Response, api_metadata};
use crate::accounts::Scope;
use crate::audit::{self, Outcome::Done};
use crate::config::CoreConfig;
use crate::error::CoreError;
use crate::files::Staged;
use crate::files::store::FileStore;
use crate::gate::{Ctx, Gate};
use crate::idempotency;
use crate::pb::{self, convert, responses_service_server::ResponsesService};
use crate::rpc::parse_id;
use sqlx::PgPool;
use std::pin::Pin;
use std::sync::Arc;
use tokio_stream::{Stream, StreamExt, wrappers::ReceiverStream};
use tonic::{Request, Response as GrpcResponse, Status};
use tracing::Instrument;

/// The messages of an export, as the gRPC reply streams them.
pub(crate) type ExportStream =
    Pin<Box<dyn Stream<Item = Result<pb::ExportResponsesResponse, Status>> + Send + 'static>>;

/// The export snapshot: every read of an export sees the database as of its first
/// statement, and it writes nothing.
const SNAPSHOT: &str = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";

/// The ResponsesService of the core.
#[derive(Clone)]
pub(crate) struct Responses {
    pub(crate) gate: Gate,
    pub(crate) batcher: create::Batcher,
    pub(crate) pool: PgPool,
    pub(crate) replicas: crate::db::Replicas,
    pub(crate) config: Arc<CoreConfig>,
    pub(crate) cursors: CursorCodec,
    pub(crate) file_store: FileStore,
}

pub(crate) fn response_to_pb(r: Response) -> pb::FormResponse {
    pb::FormResponse {
        id: r.id.to_string(),
        form_id: r.form_id.to_string(),
        answers: Some(convert::object_to_struct(&r.answers)),
        metadata: Some(convert::object_to_struct(&r.metadata)),
        device_type: r.device_type,
        browser: r.browser,
        os: r.os,
        started_at: Some(convert::timestamp(r.started_at)),
        submitted_at: Some(convert::timestamp(r.submitted_at)),
        completion_time_seconds: r.completion_time_seconds,
        status: match r.partial_page {
            Some(_) => pb::ResponseStatus::Partial,
            None => pb::ResponseStatus::Completed,
        }
        .into(),
        last_page: r.partial_page.unwrap_or(1),
        language: r.language,
    }
}

/// `response_to_pb` of a response of a form with `fields` (known when it has pages): a
/// completed response's last page is the last page its answers showed.
pub(super) fn response_in_form(
    r: Response,
    fields: Option<&[crate::forms::Field]>,
) -> pb::FormResponse {
    let last = match (r.partial_page, fields) {
        (None, Some(fields)) => {
            i32::try_from(crate::forms::logic::last_page(fields, &r.answers)).unwrap_or(i32::MAX)
        }
        _ => 0,
    };
    let mut out = response_to_pb(r);
    if last > 0 {
        out.last_page = last;
    }
    out
}

pub(super) fn statuses_from_pb(value: i32) -> Result<Statuses, CoreError> {
    match pb::ResponseStatus::try_from(value) {
        Ok(pb::ResponseStatus::Unspecified | pb::ResponseStatus::Completed) => {
            Ok(Statuses::Completed)
        }
        Ok(pb::ResponseStatus::Partial) => Ok(Statuses::Partial),
        Ok(pb::ResponseStatus::All) => Ok(Statuses::All),
        Err(_) => Err(CoreError::validation(
            "status must be one of completed, partial, all",
        )),
    }
}

pub(super) fn sort_from_pb(value: i32) -> Result<Sort, CoreError> {
    match pb::SortOrder::try_from(value) {
        Ok(pb::SortOrder::Asc) => Ok(Sort::Asc),
        Ok(pb::SortOrder::Desc | pb::SortOrder::Unspecified) => Ok(Sort::Desc),
        Err(_) => Err(CoreError::validation("sort must be asc or desc")),
    }
}

fn format_from_pb(value: i32) -> Result<Format, CoreError> {
    match pb::ExportFormat::try_from(value) {
        Ok(pb::ExportFormat::Ndjson | pb::ExportFormat::Unspecified) => Ok(Format::Ndjson),
        Ok(pb::ExportFormat::Csv) => Ok(Format::Csv),
        Ok(pb::ExportFormat::Xlsx) => Ok(Format::Xlsx),
        Err(_) => Err(CoreError::validation("format must be ndjson, csv or xlsx")),
    }
}

pub(super) fn instant(
    ts: Option<&prost_types::Timestamp>,
    name: &str,
) -> Result<Option<chrono::DateTime<chrono::Utc>>, CoreError> {
    ts.map(|ts| {
        convert::datetime(ts)
            .ok_or_else(|| CoreError::Validation(format!("{name} is not a valid timestamp")))
    })
    .transpose()
}

impl Responses {
    async fn get(
        &self,
        ctx: Ctx,
        req: pb::GetResponseRequest,
    ) -> Result<pb::GetResponseResponse, CoreError> {
        let form_id = parse_id(&req.form_id, "form")?;
        let id = parse_id(&req.id, "response")?;
        // A response id names a completed response or a partial one.
        let account = ctx.caller.account_id;
        let (response, paged) = self
            .replicas
            .read(|pool| async move { store::get_with_partial(&pool, account, form_id, id).await })
            .await?;
        Ok(pb::GetResponseResponse {
            response: Some(response_in_form(response, paged.as_deref())),
        })
    }

    async fn create(
        &self,
        ctx: Ctx,
        req: pb::CreateResponseRequest,
    ) -> Result<(pb::CreateResponseResponse, bool), CoreError> {
        let account_id = ctx.caller.account_id;
        let Some(key) = ctx.idempotency_key.as_deref() else {
            // Without a key nothing else shares the transaction: the submission may be
            // stored with others to the same form (one lock, one commit).
            let (form_id, submission) = api_submission(&req, account_id)?;
            let stored = self.batcher.submit(form_id, submission).await?;
            let response = stored.response;
            let reply = pb::CreateResponseResponse {
                response: Some(response_to_pb(response)),
            };
            return Ok((reply, false));
        };
        let mut tx = self.pool.begin().await?;
        let ttl = self.config.idempotency_ttl;
        if let Some(replay) =
            idempotency::start(&mut tx, account_id, Some(key), "CreateResponse", &req, ttl).await?
        {
            return Ok((replay, true));
        }
        let (form_id, submission) = api_submission(&req, account_id)?;
        let response =
            create::locked::attempt_one(&mut tx, &self.config, form_id, submission).await?;
        let reply = pb::CreateResponseResponse {
            response: Some(response_to_pb(response)),
        };
        idempotency::end(&mut tx, account_id, Some(key), &reply).await?;
        tx.commit().await?;
        // Counted once committed (a replay above is not a new response).
        metrics::counter!("formsd_responses_created_total", "via" => "api").increment(1);
        Ok((reply, false))
    }

    async fn delete(
        &self,
        ctx: Ctx,
        req: pb::DeleteResponseRequest,
    ) -> Result<pb::DeleteResponseResponse, CoreError> {
        let form_id = parse_id(&req.form_id, "response")?;
        let id = parse_id(&req.id, "response")?;
        let mut tx = self.pool.begin().await?;
        let objects = FileStore::keys_of(&mut tx, form_id, Some(id)).await?;
        store::delete(&mut tx, ctx.caller.account_id, form_id, id).await?;
        crate::webhooks::store::remove_response_answers(&mut tx, form_id, id).await?;
        let target = audit::Target::response(form_id, id);
        audit::record(&mut tx, &ctx.actor, "DeleteResponse", &target, &[], Done).await?;
        tx.commit().await?;
        self.file_store.remove(objects).await;
        Ok(pb::DeleteResponseResponse {})
    }
}

impl Responses {
    /// Checks the request and the form in the snapshot, then streams the file from a
    /// task of its own, which holds the snapshot's connection until the last row is
    /// sent, the reader goes away or stalls. Exports over the caps open at once are
    /// refused as rate limited.
    async fn export(
        &self,
        ctx: Ctx,
        req: pb::ExportResponsesRequest,
    ) -> Result<ExportStream, CoreError> {
        let form_id = parse_id(&req.form_id, "form")?;
        let format = format_from_pb(req.format)?;
        let window = Window::new(
            instant(req.since.as_ref(), "since")?,
            instant(req.until.as_ref(), "until")?,
        );
        // Taken before the connection and held by the task to its end: an account's
        // exports never hold more than their share of the pool.
        let permit = self.gate.exports().try_take(ctx.caller.account_id)?;
        let mut tx = self.replicas.begin_read(SNAPSHOT).await?;
        // Read in the export's snapshot, like its rows.
        let fields = crate::forms::store::get(&mut *tx, ctx.caller.account_id, form_id)
            .await?
            .fields;
        let statuses = statuses_from_pb(req.status)?;
        let filter = filter::parse(req.filter.as_ref(), &fields)?;
        let encoder = if statuses == Statuses::Completed {
            Encoder::new(format, &fields)?
        } else {
            Encoder::with_statuses(format, &fields)?
        };
        // An export changes nothing: its entry is written on its own, on the primary,
        // once the form is found and the request is valid.
        let target = audit::Target::form(form_id);
        audit::record_alone(
            &self.pool,
            &ctx.actor,
            "ExportResponses",
            &target,
            &[],
            Done,
        )
        .await?;
        let (sender, receiver) = tokio::sync::mpsc::channel(export::CHANNEL_DEPTH + 1);
        let stall = self.config.exports.stall_timeout;
        tokio::spawn(
            async move {
                let sel = Selection {
                    form_id,
                    window,
                    statuses,
                    filter: &filter,
                };
                match store::export_rows(&mut tx, &sel) {
                    Ok(rows) => export::pump(rows, encoder, sender, stall).await,
                    Err(e) => {
                        export::pump(tokio_stream::once(Err(e)), encoder, sender, stall).await
                    }
                }
                // Read only: dropping the transaction rolls it back and frees the
                // connection; then the export's place is free.
                drop(tx);
                drop(permit);
            }
            // The task's log lines (a failure) carry the request's id.
            .instrument(tracing::Span::current()),
        );
        let request_id = ctx.request_id;
        Ok(Box::pin(ReceiverStream::new(receiver).map(move |item| {
            item.map(|data| pb::ExportResponsesResponse { data })
                .map_err(|error| error.into_status(&request_id))
        })))
    }

    /// The figures of a form's responses in the window, read in one snapshot so that
    /// they agree with each other (exact at read time).
    async fn summary(
        &self,
        ctx: Ctx,
        req: pb::GetFormSummaryRequest,
    ) -> Result<pb::GetFormSummaryResponse, CoreError> {
        let form_id = parse_id(&req.form_id, "form")?;
        let since = instant(req.since.as_ref(), "since")?;
        let until = instant(req.until.as_ref(), "until")?;
        // A summary reads every response of its window: it runs bounded, and takes a
        // place under the cap on such reads.
        let limit = self.config.reads.statement_timeout;
        let account = ctx.caller.account_id;
        // The place under the cap is taken for each try (a try that failed gave its
        // place back).
        let (mut read, _) = self
            .replicas
            .read_first(|pool| async move {
                let permit = self.gate.reads().try_take(account)?;
                Bounded::begin(&pool, Isolation::Snapshot, limit, permit).await
            })
            .await?;
        let summary = async {
            let db = read.conn()?;
            // Another account's form is NOT_FOUND, as for the list.
            let fields = crate::forms::store::get(&mut *db, ctx.caller.account_id, form_id)
                .await?
                .fields;
            let filter = filter::parse(req.filter.as_ref(), &fields)?;
            summary::summarize(
                db,
                form_id,
                &fields,
                &filter,
                Window::new(since, until),
                summary::hourly(since, until),
            )
            .await
        }
        .await
        .map_err(|e| read.explain(e));
        read.finish().await;
        Ok(pb::GetFormSummaryResponse {
            summary: Some(summary?),
        })
    }

    async fn file(
        &self,
        ctx: Ctx,
        req: pb::GetResponseFileRequest,
    ) -> Result<pb::GetResponseFileResponse, CoreError> {
        let form_id = parse_id(&req.form_id, "file")?;
        let response_id = parse_id(&req.response_id, "file")?;
        let file_id = parse_id(&req.file_id, "file")?;
        let account_id = ctx.caller.account_id;
        let (file_name, content_type, content) = self
            .replicas
            .read(|pool| async move {
                let files = &self.file_store;
                files
                    .get(&pool, account_id, form_id, response_id, file_id)
                    .await
            })
            .await?;
        Ok(pb::GetResponseFileResponse {
            file_name,
            content_type,
            content,
        })
    }
}

#[tonic::async_trait]
impl ResponsesService for Responses {
    type ExportResponsesStream = ExportStream;

    async fn export_responses(
        &self,
        req: Request<pb::ExportResponsesRequest>,
    ) -> Result<GrpcResponse<ExportStream>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, m| self.export(ctx, m))
            .await
    }
    async fn get_response_file(
        &self,
        req: Request<pb::GetResponseFileRequest>,
    ) -> Result<GrpcResponse<pb::GetResponseFileResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, m| self.file(ctx, m))
            .await
    }
    async fn get_form_summary(
        &self,
        req: Request<pb::GetFormSummaryRequest>,
    ) -> Result<GrpcResponse<pb::GetFormSummaryResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, m| self.summary(ctx, m))
            .await
    }
    async fn list_responses(
        &self,
        req: Request<pb::ListResponsesRequest>,
    ) -> Result<GrpcResponse<pb::ListResponsesResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, m| self.list(ctx, m))
            .await
    }
    async fn get_response(
        &self,
        req: Request<pb::GetResponseRequest>,
    ) -> Result<GrpcResponse<pb::GetResponseResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Read), |ctx, m| self.get(ctx, m))
            .await
    }
    async fn create_response(
        &self,
        req: Request<pb::CreateResponseRequest>,
    ) -> Result<GrpcResponse<pb::CreateResponseResponse>, Status> {
        self.gate
            .call_replayable(req, Some(Scope::Write), |ctx, m| self.create(ctx, m))
            .await
    }
    async fn delete_response(
        &self,
        req: Request<pb::DeleteResponseRequest>,
    ) -> Result<GrpcResponse<pb::DeleteResponseResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, m| self.delete(ctx, m))
            .await
    }
    async fn erase_respondent(
        &self,
        req: Request<pb::EraseRespondentRequest>,
    ) -> Result<GrpcResponse<pb::EraseRespondentResponse>, Status> {
        self.gate
            .call(req, Some(Scope::Admin), |ctx, m| async move {
                let done = crate::rights::erasure::erase(
                    &self.pool,
                    &self.file_store,
                    &ctx.actor,
                    &m.value,
                    m.dry_run,
                )
                .await?;
                Ok(crate::rights::erasure_to_pb(done))
            })
            .await
    }
}

/// The form and the submission of an API create.
fn api_submission(
    req: &pb::CreateResponseRequest,
    account_id: uuid::Uuid,
) -> Result<(uuid::Uuid, Submission), CoreError> {
    let form_id = parse_id(&req.form_id, "form")?;
    let answers = req
        .answers
        .as_ref()
        .map(convert::struct_to_object)
        .ok_or_else(|| CoreError::validation("answers is required: an object keyed by field id"))?;
    let metadata = api_metadata(
        req.metadata
            .as_ref()
            .map(convert::struct_to_object)
            .unwrap_or_default(),
    )?;
    let submission = Submission {
        id: None,
        answers,
        metadata,
        device_type: None,
        browser: None,
        os: None,
        started_at: None,
        from: Source::Api { account_id },
        files: Staged::default(),
        drop_unshown: false,
        language: None,
    };
    Ok((form_id, submission))
}
