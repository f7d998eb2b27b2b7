//! Files handed to the browser to save: the core's export stream, an uploaded file.

use crate::http::error::forwarded_headers;
use axum::body::Body;
use axum::http::HeaderValue;
use axum::response::Response;
use forms::pb;
use tokio_stream::StreamExt;

/// An export format's media type and file extension.
pub(crate) fn media_of(format: pb::ExportFormat) -> (&'static str, &'static str) {
    match format {
        pb::ExportFormat::Csv => ("text/csv; charset=utf-8", "csv"),
        pb::ExportFormat::Xlsx => (
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "xlsx",
        ),
        // The core's default (an unspecified format) is NDJSON.
        pb::ExportFormat::Ndjson | pb::ExportFormat::Unspecified => {
            ("application/x-ndjson", "ndjson")
        }
    }
}

/// The core's export stream as a streamed attachment, `responses-<form id>.<extension>`,
/// a chunk at a time (never collected). The REST export's and the dashboard's downloads.
pub(crate) fn export(
    reply: tonic::Response<tonic::Streaming<pb::ExportResponsesResponse>>,
    form_id: &str,
    format: pb::ExportFormat,
) -> Response {
    let (media_type, extension) = media_of(format);
    // The core accepted the id, so it is a UUID; only its characters go in the header.
    let name: String = form_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let headers = forwarded_headers(reply.metadata());
    // An error item aborts the body: the client sees a broken transfer, not a short file.
    let chunks = reply
        .into_inner()
        .map(|message| message.map(|m| bytes::Bytes::from(m.data)));
    let mut response = Response::new(Body::from_stream(chunks));
    response.headers_mut().extend(headers);
    let file_name = format!("responses-{name}.{extension}");
    attachment(&mut response, media_type, &file_name);
    response
}

/// Marks `response` as a file to save: its media type (when it is a valid header
/// value), `attachment` under `file_name` (quotes, backslashes and control characters
/// replaced, so that the name cannot break out of the header), and no sniffing.
pub(crate) fn attachment(response: &mut Response, content_type: &str, file_name: &str) {
    let name: String = file_name
        .chars()
        .map(|c| match c {
            '"' | '\\' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .collect();
    let h = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(content_type) {
        h.insert(axum::http::header::CONTENT_TYPE, value);
    }
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        h.insert(axum::http::header::CONTENT_DISPOSITION, value);
    }
    h.insert(
        axum::http::header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
}
