//! `GET /forms/{form_id}/responses/export`: the core's ExportResponses stream as a
//! streamed HTTP body, a chunk at a time (never collected).

use crate::body::{PathParams, QueryParams};
use crate::call::Call;
use crate::error::forwarded_headers;
use crate::openapi::FormIdOfChild;
use crate::routes::responses::timestamp_param;
use crate::state::AppState;
use axum::body::Body;
use axum::extract::State;
use axum::response::Response;
use forms::pb;
use tokio_stream::StreamExt;
use utoipa::{IntoParams, ToSchema};

/// The query of the export, as documented; `export_request` parses it.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // documents the query string that `export_request` reads
pub struct ExportQuery {
    /// The file's format (default `ndjson`).
    #[param(inline)]
    format: Option<ExportFormatName>,
    /// Only responses submitted after this instant (exclusive, RFC 3339).
    #[param(format = DateTime)]
    since: Option<String>,
    /// Only responses submitted before this instant (exclusive, RFC 3339).
    #[param(format = DateTime)]
    until: Option<String>,
}

/// A format of the export.
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)] // documents the values of `format`
pub enum ExportFormatName {
    /// One JSON object per line, as a response of the listing.
    Ndjson,
    /// A header row, then one row per response (RFC 4180).
    Csv,
}

/// The query string as a request, with the reply's media type and file extension.
fn export_request(
    form_id: String,
    query: &QueryParams,
) -> Result<(pb::ExportResponsesRequest, &'static str, &'static str), String> {
    let (format, media_type, extension) = match query.get("format") {
        None | Some("") | Some("ndjson") => {
            (pb::ExportFormat::Ndjson, "application/x-ndjson", "ndjson")
        }
        Some("csv") => (pb::ExportFormat::Csv, "text/csv; charset=utf-8", "csv"),
        Some(other) => return Err(format!("format must be ndjson or csv, got {other:?}")),
    };
    let request = pb::ExportResponsesRequest {
        form_id,
        format: format.into(),
        since: timestamp_param(query, "since")?,
        until: timestamp_param(query, "until")?,
    };
    Ok((request, media_type, extension))
}

/// Export every response of a form
#[utoipa::path(get, path = "/forms/{form_id}/responses/export", operation_id = "exportResponses",
    tag = "responses",
    description = "Scope: read. Every response of the form once, oldest first, from one \
        snapshot, streamed (constant memory on the server). CSV: response id, submission \
        time, metadata columns, then one column per field headed by its label; cells that \
        spreadsheets would run as formulas start with `'`.",
    params(FormIdOfChild, ExportQuery),
    responses((status = 200, description = "The file, streamed as an attachment",
        content((String = "application/x-ndjson"), (String = "text/csv")))))]
pub async fn export(
    State(state): State<AppState>,
    call: Call,
    PathParams(form_id): PathParams<String>,
    query: QueryParams,
) -> Result<Response, Response> {
    let (request, media_type, extension) =
        call.valid(&state, export_request(form_id, &query)).await?;
    // The core accepted the id, so it is a UUID; only its characters go in the header.
    let name: String = request
        .form_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let reply = state
        .responses()
        .export_responses(call.request(request))
        .await
        .map_err(|status| call.error(&status))?;
    let headers = forwarded_headers(reply.metadata());
    // An error item aborts the body: the client sees a broken transfer, not a short file.
    let chunks = reply
        .into_inner()
        .map(|message| message.map(|m| bytes::Bytes::from(m.data)));
    let mut response = Response::new(Body::from_stream(chunks));
    response.headers_mut().extend(headers);
    let file_name = format!("responses-{name}.{extension}");
    super::attachment(&mut response, media_type, &file_name);
    Ok(response)
}
