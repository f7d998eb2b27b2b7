//! The edge's one error type and its mapping onto HTTP: the SPEC envelope, the status
//! from one table keyed by the core's error reason, and the headers every reply carries.

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tonic_types::StatusExt;

/// HTTP status of each error reason. The core's reason decides, never the gRPC code.
const STATUS_BY_REASON: &[(&str, StatusCode)] = &[
    ("UNAUTHENTICATED", StatusCode::UNAUTHORIZED),
    ("KEY_INVALID", StatusCode::UNAUTHORIZED),
    ("INSUFFICIENT_SCOPE", StatusCode::FORBIDDEN),
    ("PLAN_REQUIRED", StatusCode::FORBIDDEN),
    ("RESPONSE_LIMIT_REACHED", StatusCode::FORBIDDEN),
    ("NOT_FOUND", StatusCode::NOT_FOUND),
    ("METHOD_NOT_ALLOWED", StatusCode::METHOD_NOT_ALLOWED),
    ("CONFLICT", StatusCode::CONFLICT),
    ("PAYLOAD_TOO_LARGE", StatusCode::PAYLOAD_TOO_LARGE),
    ("UNSUPPORTED_MEDIA_TYPE", StatusCode::UNSUPPORTED_MEDIA_TYPE),
    ("VALIDATION_ERROR", StatusCode::UNPROCESSABLE_ENTITY),
    ("FORM_NOT_PUBLISHED", StatusCode::UNPROCESSABLE_ENTITY),
    ("FORM_CLOSED", StatusCode::UNPROCESSABLE_ENTITY),
    ("RATE_LIMITED", StatusCode::TOO_MANY_REQUESTS),
    ("SERVICE_UNAVAILABLE", StatusCode::SERVICE_UNAVAILABLE),
    ("INTERNAL", StatusCode::INTERNAL_SERVER_ERROR),
];

/// gRPC metadata that becomes HTTP headers of the same name.
pub const FORWARDED_METADATA: &[&str] = &[
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "retry-after",
    "idempotent-replayed",
];

fn status_of(reason: &str) -> StatusCode {
    STATUS_BY_REASON
        .iter()
        .find(|(r, _)| *r == reason)
        .map_or(StatusCode::INTERNAL_SERVER_ERROR, |(_, s)| *s)
}

/// An error reply of the REST API.
#[derive(Debug)]
pub struct ApiError {
    pub reason: String,
    pub message: String,
    pub retry_after: Option<u64>,
    /// Headers to send along (rate-limit figures from the core).
    pub headers: HeaderMap,
}

impl ApiError {
    /// Maps a `Status` from the core by its `ErrorInfo` reason.
    pub fn from_status(status: &tonic::Status, request_id: &str) -> Self {
        let headers = forwarded_headers(status.metadata());
        let reason = status.get_details_error_info().map(|info| info.reason);
        let (reason, message) = match reason {
            Some(reason) => (reason, status.message().to_owned()),
            // No ErrorInfo: the core was not reached (transport) or is not ours.
            None if matches!(
                status.code(),
                tonic::Code::Unavailable | tonic::Code::DeadlineExceeded
            ) =>
            {
                tracing::error!(request_id, code = ?status.code(), message = status.message(), "core unavailable");
                (
                    "SERVICE_UNAVAILABLE".to_owned(),
                    format!("the service is temporarily unavailable; request id {request_id}"),
                )
            }
            None => {
                tracing::error!(request_id, code = ?status.code(), message = status.message(), "unexpected core status");
                (
                    "INTERNAL".to_owned(),
                    format!("internal error; quote request id {request_id} when reporting it"),
                )
            }
        };
        let retry_after = headers
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .or_else(|| {
                status
                    .get_details_retry_info()
                    .and_then(|r| r.retry_delay)
                    .map(|d| d.as_secs())
            });
        Self {
            reason,
            message,
            retry_after,
            headers,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut error = json!({"code": self.reason, "message": self.message});
        if self.reason == "RATE_LIMITED"
            && let Some(secs) = self.retry_after
        {
            error["retryAfter"] = json!(secs);
        }
        let body = json!({"success": false, "error": error});
        let mut response = (status_of(&self.reason), axum::Json(body)).into_response();
        response.headers_mut().extend(self.headers);
        if let Some(secs) = self.retry_after
            && self.reason == "RATE_LIMITED"
        {
            response
                .headers_mut()
                .insert("retry-after", HeaderValue::from(secs));
        }
        response
    }
}

/// The headers to copy from core metadata.
pub fn forwarded_headers(md: &tonic::metadata::MetadataMap) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for name in FORWARDED_METADATA {
        if let Some(value) = md.get(*name)
            && let Ok(value) = HeaderValue::from_bytes(value.as_bytes())
        {
            headers.insert(*name, value);
        }
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_has_its_status() {
        assert_eq!(status_of("KEY_INVALID"), StatusCode::UNAUTHORIZED);
        assert_eq!(status_of("FORM_CLOSED"), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            status_of("SOMETHING_NEW"),
            StatusCode::INTERNAL_SERVER_ERROR
        );
    }
}
