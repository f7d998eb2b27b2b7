//! `/forms/{form_id}/responses[/{id}]`: JSON shapes of SPEC onto ResponsesService.

use crate::http::body::JsonBody;
use crate::http::call::{Call, Success};
use crate::http::params::{FileId, FormIdOfChild, IdempotencyKey, PathParams, ResponseId};
use crate::http::state::AppState;
use crate::http::timestamp;
use crate::rest::pagination::Page;
use crate::rest::query::{self, Query};
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
pub(crate) struct FormResponse {
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
    /// `completed`, or `partial` for a visitor's unfinished multi-page response (listed
    /// only when asked for with `status`; its `submitted_at` is when its first page was
    /// saved).
    #[schema(value_type = ResponseStatusName)]
    status: &'static str,
    /// The last page the respondent reached (1 for a form without pages).
    #[schema(minimum = 1)]
    last_page: i32,
    /// The language of the hosted page it was answered on (one of the form's
    /// languages, e.g. `de`). Left out when none was recorded (API-created responses,
    /// endpoint submissions, forms in one language, whose language is the form's
    /// `default_language`), so that such a response keeps SPEC's exact shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    language: Option<String>,
}

/// Whether a response is complete.
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)] // documents the strings of `status`
pub(crate) enum ResponseStatusName {
    Completed,
    Partial,
}

/// Which responses a list or an export holds.
#[derive(Deserialize, ToSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub(crate) enum StatusFilter {
    /// Submitted in full (the default).
    Completed,
    /// Unfinished multi-page responses only.
    Partial,
    /// Both.
    All,
}

impl From<StatusFilter> for pb::ResponseStatus {
    fn from(status: StatusFilter) -> Self {
        match status {
            StatusFilter::Completed => Self::Completed,
            StatusFilter::Partial => Self::Partial,
            StatusFilter::All => Self::All,
        }
    }
}

impl From<pb::FormResponse> for FormResponse {
    fn from(r: pb::FormResponse) -> Self {
        let status = match r.status() {
            pb::ResponseStatus::Partial => "partial",
            _ => "completed",
        };
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
            status,
            last_page: r.last_page.max(1),
            language: r.language,
        }
    }
}

/// Keyset pagination (cursor mode).
#[derive(Serialize, ToSchema)]
#[schema(as = CursorPagination)]
pub(crate) struct CursorPage {
    per_page: i32,
    /// Pass it back as `cursor` for the next page; null when there are no more rows.
    #[schema(required = true)]
    next_cursor: Option<String>,
}

/// The pagination of a response list: page mode, or cursor mode when `cursor` was sent.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[schema(as = ResponsePagination)]
pub(crate) enum Paging {
    Page(Page),
    Cursor(CursorPage),
}

/// `data` of a response list.
#[derive(Serialize, ToSchema)]
pub(crate) struct ResponseList {
    responses: Vec<FormResponse>,
    pagination: Option<Paging>,
}

/// `data` of a reply with one response.
#[derive(Serialize, ToSchema)]
pub(crate) struct OneResponse {
    response: Option<FormResponse>,
}

impl OneResponse {
    fn new(response: Option<pb::FormResponse>) -> Self {
        Self {
            response: response.map(FormResponse::from),
        }
    }
}

/// The query of `GET /forms/{form_id}/responses`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ListResponsesQuery {
    /// Page number (page mode; ignored in cursor mode).
    #[serde(default, deserialize_with = "query::integer")]
    #[param(minimum = 1, default = 1)]
    page: Option<i32>,
    /// Results per page (above 100 is read as 100).
    #[serde(default, deserialize_with = "query::integer")]
    #[param(minimum = 1, maximum = 100, default = 25)]
    per_page: Option<i32>,
    /// Order by submission time (default `desc`, newest first).
    #[serde(default, deserialize_with = "query::choice")]
    #[param(inline)]
    sort: Option<SortName>,
    /// Only responses submitted after this instant (exclusive, RFC 3339).
    #[serde(default, deserialize_with = "query::timestamp")]
    #[param(value_type = Option<String>, format = DateTime)]
    since: Option<prost_types::Timestamp>,
    /// Only responses submitted before this instant (exclusive, RFC 3339).
    #[serde(default, deserialize_with = "query::timestamp")]
    #[param(value_type = Option<String>, format = DateTime)]
    until: Option<prost_types::Timestamp>,
    /// Present (even empty): cursor mode. Pass back `next_cursor` for the next page;
    /// a malformed, tampered or foreign cursor is 422.
    cursor: Option<String>,
    /// Which responses (default `completed`): `partial` lists visitors' unfinished
    /// multi-page responses, `all` both, in one order.
    #[serde(default, deserialize_with = "query::choice")]
    #[param(inline)]
    status: Option<StatusFilter>,
}

/// A sort order by submission time.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SortName {
    Asc,
    Desc,
}

impl From<SortName> for pb::SortOrder {
    fn from(sort: SortName) -> Self {
        match sort {
            SortName::Asc => Self::Asc,
            SortName::Desc => Self::Desc,
        }
    }
}

fn list_request(
    form_id: String,
    query: ListResponsesQuery,
    filter: super::filter::FilterQuery,
) -> pb::ListResponsesRequest {
    let sort = query.sort.map_or(pb::SortOrder::Unspecified, Into::into);
    pb::ListResponsesRequest {
        form_id,
        page: query.page,
        per_page: query.per_page,
        sort: sort.into(),
        since: query.since,
        until: query.until,
        // Present, even empty, switches to cursor mode.
        cursor: query.cursor,
        status: query
            .status
            .map_or(pb::ResponseStatus::Unspecified, Into::into)
            .into(),
        filter: filter.into_pb(),
    }
}

/// The body of `POST /forms/{form_id}/responses`. A null property counts as absent;
/// that `answers` is required is the core's rule.
#[derive(Deserialize, ToSchema)]
#[schema(as = CreateResponse)]
pub(crate) struct CreateResponseBody {
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
    params(FormIdOfChild, ListResponsesQuery, super::filter::FilterQuery),
    responses((status = 200, description = "A page of responses", body = Success<ResponseList>)))]
pub(crate) async fn list(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormIdOfChild(form_id)): PathParams<FormIdOfChild>,
    Query(query): Query<ListResponsesQuery>,
    Query(filter): Query<super::filter::FilterQuery>,
) -> Response {
    let request = call.request(list_request(form_id, query, filter));
    let result = state.responses().list_responses(request).await;
    call.reply(result, StatusCode::OK, |r| {
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
    })
}

/// Get a response
#[utoipa::path(get, path = "/forms/{form_id}/responses/{id}", operation_id = "getResponse",
    tag = "responses", description = "Scope: read.",
    params(FormIdOfChild, ResponseId),
    responses((status = 200, description = "The response", body = Success<OneResponse>)))]
pub(crate) async fn get(
    State(state): State<AppState>,
    call: Call,
    PathParams((FormIdOfChild(form_id), ResponseId(id))): PathParams<(FormIdOfChild, ResponseId)>,
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
pub(crate) async fn create(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormIdOfChild(form_id)): PathParams<FormIdOfChild>,
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
pub(crate) async fn delete(
    State(state): State<AppState>,
    call: Call,
    PathParams((FormIdOfChild(form_id), ResponseId(id))): PathParams<(FormIdOfChild, ResponseId)>,
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
pub(crate) async fn file(
    State(state): State<AppState>,
    call: Call,
    PathParams((FormIdOfChild(form_id), ResponseId(response_id), FileId(file_id))): PathParams<(
        FormIdOfChild,
        ResponseId,
        FileId,
    )>,
) -> Response {
    let request = call.request(pb::GetResponseFileRequest {
        form_id,
        response_id,
        file_id,
    });
    match state.responses().get_response_file(request).await {
        Ok(reply) => {
            let headers = crate::http::error::forwarded_headers(reply.metadata());
            let file = reply.into_inner();
            let mut response = file.content.into_response();
            response.headers_mut().extend(headers);
            crate::http::download::attachment(&mut response, &file.content_type, &file.file_name);
            response
        }
        Err(status) => call.error(&status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::query::parse;

    fn list(query: &str) -> Result<pb::ListResponsesRequest, String> {
        parse::<ListResponsesQuery>(query)
            .map(|q| list_request("f".to_owned(), q, Default::default()))
    }

    #[test]
    fn an_empty_query_is_the_first_page_newest_first() {
        let request = list("").expect("empty");
        assert_eq!(
            request,
            pb::ListResponsesRequest {
                form_id: "f".to_owned(),
                ..Default::default()
            }
        );
        assert_eq!(request.sort(), pb::SortOrder::Unspecified);
    }

    #[test]
    fn every_parameter_reaches_the_request() {
        let request = list(
            "page=%202&per_page=500&sort=asc&since=2026-01-01T00:00:10Z\
             &until=2026-01-01T00:00:20Z&cursor=abc&status=all",
        )
        .expect("valid");
        let at = |seconds| Some(prost_types::Timestamp { seconds, nanos: 0 });
        assert_eq!(
            request,
            pb::ListResponsesRequest {
                form_id: "f".to_owned(),
                page: Some(2),
                // Clamping is the core's rule.
                per_page: Some(500),
                sort: pb::SortOrder::Asc.into(),
                since: at(1_767_225_610),
                until: at(1_767_225_620),
                cursor: Some("abc".to_owned()),
                status: pb::ResponseStatus::All.into(),
                filter: None,
            }
        );
        assert_eq!(list("sort=desc").map(|r| r.sort()), Ok(pb::SortOrder::Desc));
    }

    #[test]
    fn empty_values_are_absent_but_an_empty_cursor_is_cursor_mode() {
        let request = list("sort=&since=&until=&cursor=").expect("valid");
        assert_eq!(request.sort(), pb::SortOrder::Unspecified);
        assert_eq!((request.since, request.until), (None, None));
        assert_eq!(request.cursor.as_deref(), Some(""));
        assert_eq!(list("cursor").map(|r| r.cursor), Ok(Some(String::new())));
        assert_eq!(
            list("page=").map(|_| ()),
            Err(r#"page must be an integer, got """#.to_owned())
        );
    }

    #[test]
    fn a_bad_value_is_refused_naming_its_parameter() {
        query::assert_refused::<ListResponsesQuery>(&[
            ("page=abc", r#"page must be an integer, got "abc""#),
            ("per_page=ten", r#"per_page must be an integer, got "ten""#),
            ("sort=up", r#"sort must be asc or desc, got "up""#),
            ("sort=ASC", r#"sort must be asc or desc, got "ASC""#),
            (
                "since=yesterday",
                r#"since must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z, got "yesterday""#,
            ),
            (
                "until=2026-01-01",
                r#"until must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z, got "2026-01-01""#,
            ),
        ]);
    }
}
