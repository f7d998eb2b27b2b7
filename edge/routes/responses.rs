//! `/forms/{form_id}/responses[/{id}]`: JSON shapes of SPEC onto ResponsesService.

use crate::body::{JsonBody, PathParams, QueryParams};
use crate::call::{Call, Success};
use crate::openapi::{FileId, FormIdOfChild, IdempotencyKey, ResponseId};
use crate::routes::{Page, timestamp};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use forms::pb::{self, convert, list_responses_response::Pagination};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};

/// A response (a submission) as the API shows it.
#[derive(Serialize, ToSchema)]
#[schema(as = Response)]
pub struct FormResponse {
    #[schema(format = Uuid)]
    id: String,
    #[schema(format = Uuid)]
    form_id: String,
    /// Answers keyed by field id.
    #[schema(value_type = HashMap<String, Value>)]
    answers: Map<String, Value>,
    /// Created through the API: the client's metadata with `source: "api"`; through
    /// the hosted page: empty.
    #[schema(value_type = HashMap<String, Value>)]
    metadata: Map<String, Value>,
    /// desktop, mobile, tablet, bot or appliance; null for API-created responses.
    #[schema(required = true)]
    device_type: Option<String>,
    #[schema(required = true)]
    browser: Option<String>,
    #[schema(required = true)]
    os: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    started_at: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    submitted_at: Option<String>,
    #[schema(required = true)]
    completion_time_seconds: Option<i64>,
}

impl From<pb::FormResponse> for FormResponse {
    fn from(r: pb::FormResponse) -> Self {
        Self {
            id: r.id,
            form_id: r.form_id,
            answers: r
                .answers
                .as_ref()
                .map(convert::struct_to_object)
                .unwrap_or_default(),
            metadata: r
                .metadata
                .as_ref()
                .map(convert::struct_to_object)
                .unwrap_or_default(),
            device_type: r.device_type,
            browser: r.browser,
            os: r.os,
            started_at: timestamp(r.started_at.as_ref()),
            submitted_at: timestamp(r.submitted_at.as_ref()),
            completion_time_seconds: r.completion_time_seconds,
        }
    }
}

/// Keyset pagination (cursor mode).
#[derive(Serialize, ToSchema)]
#[schema(as = CursorPagination)]
pub struct CursorPage {
    per_page: i32,
    /// Pass it back as `cursor` for the next page; null when there are no more rows.
    #[schema(required = true)]
    next_cursor: Option<String>,
}

/// The pagination of a response list: page mode, or cursor mode when `cursor` was sent.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[schema(as = ResponsePagination)]
pub enum Paging {
    Page(Page),
    Cursor(CursorPage),
}

/// `data` of a response list.
#[derive(Serialize, ToSchema)]
pub struct ResponseList {
    responses: Vec<FormResponse>,
    pagination: Option<Paging>,
}

/// `data` of a reply with one response.
#[derive(Serialize, ToSchema)]
pub struct OneResponse {
    response: Option<FormResponse>,
}

impl OneResponse {
    fn new(response: Option<pb::FormResponse>) -> Self {
        Self {
            response: response.map(FormResponse::from),
        }
    }
}

/// The query of `GET /forms/{form_id}/responses`, as documented; `list_request` parses it.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // documents the query string that `list_request` reads
pub struct ListResponsesQuery {
    /// Page number (page mode; ignored in cursor mode).
    #[param(minimum = 1, default = 1)]
    page: Option<i32>,
    /// Results per page (above 100 is read as 100).
    #[param(minimum = 1, maximum = 100, default = 25)]
    per_page: Option<i32>,
    /// Order by submission time (default `desc`, newest first).
    #[param(inline)]
    sort: Option<SortName>,
    /// Only responses submitted after this instant (exclusive, RFC 3339).
    #[param(format = DateTime)]
    since: Option<String>,
    /// Only responses submitted before this instant (exclusive, RFC 3339).
    #[param(format = DateTime)]
    until: Option<String>,
    /// Present (even empty): cursor mode. Pass back `next_cursor` for the next page;
    /// a malformed, tampered or foreign cursor is 422.
    cursor: Option<String>,
}

/// A sort order by submission time.
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)] // documents the values `list_request` accepts
pub enum SortName {
    Asc,
    Desc,
}

pub fn timestamp_param(
    query: &QueryParams,
    name: &str,
) -> Result<Option<prost_types::Timestamp>, String> {
    match query.get(name) {
        None | Some("") => Ok(None),
        Some(raw) => chrono::DateTime::parse_from_rfc3339(raw.trim())
            .map(|at| Some(convert::timestamp(at.to_utc())))
            .map_err(|_| {
                format!(
                    "{name} must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z, got {raw:?}"
                )
            }),
    }
}

fn list_request(form_id: String, query: &QueryParams) -> Result<pb::ListResponsesRequest, String> {
    let sort = match query.get("sort") {
        None | Some("") => pb::SortOrder::Unspecified,
        Some("asc") => pb::SortOrder::Asc,
        Some("desc") => pb::SortOrder::Desc,
        Some(other) => return Err(format!("sort must be asc or desc, got {other:?}")),
    };
    Ok(pb::ListResponsesRequest {
        form_id,
        page: query.int("page")?,
        per_page: query.int("per_page")?,
        sort: sort.into(),
        since: timestamp_param(query, "since")?,
        until: timestamp_param(query, "until")?,
        // Present, even empty, switches to cursor mode.
        cursor: query.get("cursor").map(str::to_owned),
    })
}

/// The body of `POST /forms/{form_id}/responses`. A null property counts as absent;
/// that `answers` is required is the core's rule.
#[derive(Deserialize, ToSchema)]
#[schema(as = CreateResponse)]
pub struct CreateResponseBody {
    /// Answers keyed by field id: strings, numbers (for `number` fields), or null for
    /// unanswered; a `file_upload` answer is the http(s) URL of the file.
    #[schema(value_type = HashMap<String, Value>, required = true)]
    answers: Option<Map<String, Value>>,
    /// Free-form (16 KiB at most); `source` is always set to `api`.
    #[schema(value_type = Option<HashMap<String, Value>>)]
    metadata: Option<Map<String, Value>>,
}

fn create_request(form_id: String, body: CreateResponseBody) -> pb::CreateResponseRequest {
    pb::CreateResponseRequest {
        form_id,
        answers: body.answers.as_ref().map(convert::object_to_struct),
        metadata: body.metadata.as_ref().map(convert::object_to_struct),
    }
}

/// List responses
#[utoipa::path(get, path = "/forms/{form_id}/responses", operation_id = "listResponses",
    tag = "responses",
    description = "Scope: read. Page mode by default; cursor mode (keyset: no skips, no \
        duplicates while rows arrive) when `cursor` is present, even empty.",
    params(FormIdOfChild, ListResponsesQuery),
    responses((status = 200, description = "A page of responses", body = Success<ResponseList>)))]
pub async fn list(
    State(state): State<AppState>,
    call: Call,
    PathParams(form_id): PathParams<String>,
    query: QueryParams,
) -> Result<Response, Response> {
    let request = call.valid(&state, list_request(form_id, &query)).await?;
    let result = state
        .responses()
        .list_responses(call.request(request))
        .await;
    Ok(call.reply(result, StatusCode::OK, |r| {
        let pagination = r.pagination.map(|p| match p {
            Pagination::Page(p) => Paging::Page(Page::from(p)),
            Pagination::Cursor(c) => Paging::Cursor(CursorPage {
                per_page: c.per_page,
                next_cursor: c.next_cursor,
            }),
        });
        ResponseList {
            responses: r.responses.into_iter().map(FormResponse::from).collect(),
            pagination,
        }
    }))
}

/// Get a response
#[utoipa::path(get, path = "/forms/{form_id}/responses/{id}", operation_id = "getResponse",
    tag = "responses", description = "Scope: read.",
    params(FormIdOfChild, ResponseId),
    responses((status = 200, description = "The response", body = Success<OneResponse>)))]
pub async fn get(
    State(state): State<AppState>,
    call: Call,
    PathParams((form_id, id)): PathParams<(String, String)>,
) -> Response {
    let request = call.request(pb::GetResponseRequest { form_id, id });
    let result = state.responses().get_response(request).await;
    call.reply(result, StatusCode::OK, |r| OneResponse::new(r.response))
}

/// Create a response
#[utoipa::path(post, path = "/forms/{form_id}/responses", operation_id = "createResponse",
    tag = "responses",
    description = "Scope: write. The form must be published and open. Fires form.submitted \
        (submittedVia api). Idempotent with an Idempotency-Key.",
    params(FormIdOfChild, IdempotencyKey),
    request_body = CreateResponseBody,
    responses((status = 201, description = "The response created (or, with \
        Idempotent-Replayed: true, the reply to the first request with this key)",
        body = Success<OneResponse>)))]
pub async fn create(
    State(state): State<AppState>,
    call: Call,
    PathParams(form_id): PathParams<String>,
    JsonBody(body): JsonBody<CreateResponseBody>,
) -> Response {
    let request = call.request(create_request(form_id, body));
    let result = state.responses().create_response(request).await;
    call.reply(result, StatusCode::CREATED, |r| {
        OneResponse::new(r.response)
    })
}

/// Delete a response
#[utoipa::path(delete, path = "/forms/{form_id}/responses/{id}", operation_id = "deleteResponse",
    tag = "responses", description = "Scope: admin. Removes the response (and its files), for good.",
    params(FormIdOfChild, ResponseId),
    responses((status = 204, description = "Deleted")))]
pub async fn delete(
    State(state): State<AppState>,
    call: Call,
    PathParams((form_id, id)): PathParams<(String, String)>,
) -> Response {
    let request = call.request(pb::DeleteResponseRequest { form_id, id });
    let result = state.responses().delete_response(request).await;
    call.reply(result, StatusCode::NO_CONTENT, |_| ())
}

/// Download a response's file
#[utoipa::path(get, path = "/forms/{form_id}/responses/{id}/files/{file_id}",
    operation_id = "getResponseFile", tag = "responses",
    description = "Scope: read. A file uploaded through the hosted page, as an attachment \
        with its detected media type.",
    params(FormIdOfChild, ResponseId, FileId),
    responses((status = 200, description = "The file's bytes",
        content_type = "application/octet-stream", body = Vec<u8>)))]
pub async fn file(
    State(state): State<AppState>,
    call: Call,
    PathParams((form_id, response_id, file_id)): PathParams<(String, String, String)>,
) -> Response {
    let request = call.request(pb::GetResponseFileRequest {
        form_id,
        response_id,
        file_id,
    });
    match state.responses().get_response_file(request).await {
        Ok(reply) => {
            let headers = crate::error::forwarded_headers(reply.metadata());
            let file = reply.into_inner();
            let mut response = file.content.into_response();
            response.headers_mut().extend(headers);
            super::attachment(&mut response, &file.content_type, &file.file_name);
            response
        }
        Err(status) => call.error(&status),
    }
}
