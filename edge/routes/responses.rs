//! `/forms/{form_id}/responses[/{id}]`: JSON shapes of SPEC onto ResponsesService.

use crate::body::{JsonBody, PathParams, QueryParams};
use crate::call::Call;
use crate::routes::{page_json, timestamp_json};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use forms::pb::{self, convert, list_responses_response::Pagination};
use serde::Deserialize;
use serde_json::{Map, Value, json};

fn response_json(r: pb::FormResponse) -> Value {
    json!({
        "id": r.id,
        "form_id": r.form_id,
        "answers": r.answers.as_ref().map(convert::struct_to_object).unwrap_or_default(),
        "metadata": r.metadata.as_ref().map(convert::struct_to_object).unwrap_or_default(),
        "device_type": r.device_type,
        "browser": r.browser,
        "os": r.os,
        "started_at": timestamp_json(r.started_at.as_ref()),
        "submitted_at": timestamp_json(r.submitted_at.as_ref()),
        "completion_time_seconds": r.completion_time_seconds,
    })
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
#[derive(Deserialize)]
pub struct CreateResponseBody {
    answers: Option<Map<String, Value>>,
    metadata: Option<Map<String, Value>>,
}

fn create_request(form_id: String, body: CreateResponseBody) -> pb::CreateResponseRequest {
    pb::CreateResponseRequest {
        form_id,
        answers: body.answers.as_ref().map(convert::object_to_struct),
        metadata: body.metadata.as_ref().map(convert::object_to_struct),
    }
}

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
        let pagination = match r.pagination {
            Some(Pagination::Page(p)) => page_json(p),
            Some(Pagination::Cursor(c)) => {
                json!({"per_page": c.per_page, "next_cursor": c.next_cursor})
            }
            None => Value::Null,
        };
        json!({
            "responses": r.responses.into_iter().map(response_json).collect::<Vec<_>>(),
            "pagination": pagination,
        })
    }))
}

pub async fn get(
    State(state): State<AppState>,
    call: Call,
    PathParams((form_id, id)): PathParams<(String, String)>,
) -> Response {
    let request = call.request(pb::GetResponseRequest { form_id, id });
    let result = state.responses().get_response(request).await;
    call.reply(
        result,
        StatusCode::OK,
        |r| json!({"response": r.response.map(response_json)}),
    )
}

pub async fn create(
    State(state): State<AppState>,
    call: Call,
    PathParams(form_id): PathParams<String>,
    JsonBody(body): JsonBody<CreateResponseBody>,
) -> Response {
    let request = call.request(create_request(form_id, body));
    let result = state.responses().create_response(request).await;
    call.reply(
        result,
        StatusCode::CREATED,
        |r| json!({"response": r.response.map(response_json)}),
    )
}

pub async fn delete(
    State(state): State<AppState>,
    call: Call,
    PathParams((form_id, id)): PathParams<(String, String)>,
) -> Response {
    let request = call.request(pb::DeleteResponseRequest { form_id, id });
    let result = state.responses().delete_response(request).await;
    call.reply(result, StatusCode::NO_CONTENT, |_| Value::Null)
}

/// Downloads a file uploaded with a response, with its detected media type.
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
            // Quotes and control characters cannot break out of the header value.
            let name: String = file
                .file_name
                .chars()
                .map(|c| {
                    if c == '"' || c == '\\' || c.is_control() {
                        '_'
                    } else {
                        c
                    }
                })
                .collect();
            let disposition = format!("attachment; filename=\"{name}\"");
            let mut response = file.content.into_response();
            let h = response.headers_mut();
            h.extend(headers);
            if let Ok(value) = axum::http::HeaderValue::from_str(&file.content_type) {
                h.insert(axum::http::header::CONTENT_TYPE, value);
            }
            if let Ok(value) = axum::http::HeaderValue::from_str(&disposition) {
                h.insert(axum::http::header::CONTENT_DISPOSITION, value);
            }
            h.insert(
                axum::http::header::X_CONTENT_TYPE_OPTIONS,
                axum::http::HeaderValue::from_static("nosniff"),
            );
            response
        }
        Err(status) => call.error(&status),
    }
}
