//! The edge's one error type and its mapping onto HTTP: the SPEC envelope, the status
//! from one table keyed by the core's error reason, and the headers every reply carries.

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use forms::pb::ErrorReason;
use serde_json::json;
use tonic_types::StatusExt;

/// HTTP status of each error reason: the one table. The core's reason decides, never the
/// gRPC code. No wildcard arm: a reason added to the proto does not compile until it has
/// its status here.
pub(crate) fn status_of(reason: ErrorReason) -> StatusCode {
    match reason {
        ErrorReason::Unauthenticated | ErrorReason::KeyInvalid => StatusCode::UNAUTHORIZED,
        ErrorReason::InsufficientScope
        | ErrorReason::PlanRequired
        | ErrorReason::ResponseLimitReached => StatusCode::FORBIDDEN,
        // Not reached through the REST API (admin calls and hosted pages are not JSON
        // routes), but they are refusals of the caller, so say so.
        ErrorReason::AdminDenied | ErrorReason::CsrfFailed => StatusCode::FORBIDDEN,
        // A hosted form's endpoint, posted to from a site the form does not list.
        ErrorReason::OriginNotAllowed => StatusCode::FORBIDDEN,
        ErrorReason::NotFound => StatusCode::NOT_FOUND,
        ErrorReason::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        ErrorReason::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorReason::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
        ErrorReason::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ErrorReason::ValidationError | ErrorReason::FormNotPublished | ErrorReason::FormClosed => {
            StatusCode::UNPROCESSABLE_ENTITY
        }
        ErrorReason::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorReason::ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorReason::Internal | ErrorReason::Unspecified => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The reason of an error status of the core, read from its `ErrorInfo`: the one place
/// the edge turns the reason string back into the enum. `None` when the status has no
/// `ErrorInfo` (the core was not reached) or a reason this edge does not know.
pub(crate) fn reason_of(status: &tonic::Status) -> Option<ErrorReason> {
    status
        .get_details_error_info()
        .and_then(|info| ErrorReason::from_code(&info.reason))
}

/// gRPC metadata that becomes HTTP headers of the same name.
pub(crate) const FORWARDED_METADATA: &[&str] = &[
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "retry-after",
    "idempotent-replayed",
];

/// An error reply of the REST API.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub reason: ErrorReason,
    pub message: String,
    pub retry_after: Option<u64>,
    /// Headers to send along (rate-limit figures from the core).
    pub headers: HeaderMap,
}

impl ApiError {
    /// Maps a `Status` from the core by its `ErrorInfo` reason.
    pub(crate) fn from_status(status: &tonic::Status, request_id: &str) -> Self {
        let headers = forwarded_headers(status.metadata());
        let info = status.get_details_error_info();
        let (reason, message) = match info {
            Some(info) => match ErrorReason::from_code(&info.reason) {
                Some(reason) => (reason, status.message().to_owned()),
                // A reason this edge does not know (a newer core?): a failure to report.
                None => {
                    tracing::error!(
                        request_id,
                        reason = info.reason,
                        message = status.message(),
                        "unknown error reason"
                    );
                    (
                        ErrorReason::Internal,
                        format!("internal error; quote request id {request_id} when reporting it"),
                    )
                }
            },
            // No ErrorInfo: the core was not reached (transport) or is not ours.
            None if matches!(
                status.code(),
                tonic::Code::Unavailable | tonic::Code::DeadlineExceeded
            ) =>
            {
                tracing::error!(
                    request_id,
                    code = ?status.code(),
                    message = status.message(),
                    "core unavailable"
                );
                (
                    ErrorReason::ServiceUnavailable,
                    format!("the service is temporarily unavailable; request id {request_id}"),
                )
            }
            None => {
                tracing::error!(
                    request_id,
                    code = ?status.code(),
                    message = status.message(),
                    "unexpected core status"
                );
                (
                    ErrorReason::Internal,
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
        let mut error = json!({"code": self.reason.code(), "message": self.message});
        if self.reason == ErrorReason::RateLimited
            && let Some(secs) = self.retry_after
        {
            error["retryAfter"] = json!(secs);
        }
        let body = json!({"success": false, "error": error});
        let mut response = (status_of(self.reason), axum::Json(body)).into_response();
        response.headers_mut().extend(self.headers);
        if let Some(secs) = self.retry_after
            && self.reason == ErrorReason::RateLimited
        {
            response
                .headers_mut()
                .insert("retry-after", HeaderValue::from(secs));
        }
        response
    }
}

/// The headers to copy from core metadata.
pub(crate) fn forwarded_headers(md: &tonic::metadata::MetadataMap) -> HeaderMap {
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
        // SPEC "Errors", row by row, then the reasons SPEC does not list (refusals of
        // admin calls and hosted pages, the edge's own refusals, failures).
        let table = [
            (401, "UNAUTHENTICATED"),
            (401, "KEY_INVALID"),
            (403, "INSUFFICIENT_SCOPE"),
            (403, "PLAN_REQUIRED"),
            (403, "RESPONSE_LIMIT_REACHED"),
            (404, "NOT_FOUND"),
            (415, "UNSUPPORTED_MEDIA_TYPE"),
            (422, "VALIDATION_ERROR"),
            (422, "FORM_NOT_PUBLISHED"),
            (422, "FORM_CLOSED"),
            (429, "RATE_LIMITED"),
            // Not in SPEC's table.
            (403, "ADMIN_DENIED"),
            (403, "CSRF_FAILED"),
            (403, "ORIGIN_NOT_ALLOWED"),
            (405, "METHOD_NOT_ALLOWED"),
            (408, "REQUEST_TIMEOUT"),
            (413, "PAYLOAD_TOO_LARGE"),
            (500, "INTERNAL"),
            (503, "SERVICE_UNAVAILABLE"),
        ];
        for (status, code) in table {
            let reason = ErrorReason::from_code(code);
            assert!(reason.is_some(), "{code} is a reason");
            let got = reason.map(|reason| status_of(reason).as_u16());
            assert_eq!(got, Some(status), "{code}");
        }
        // Every reason the proto has (but UNSPECIFIED, never sent) is in the table.
        let mut n = 1;
        while let Ok(reason) = ErrorReason::try_from(n) {
            let code = reason.code();
            assert!(
                table.iter().any(|(_, listed)| *listed == code),
                "{code} has no row here"
            );
            n += 1;
        }
        assert_eq!(n as usize - 1, table.len(), "one row per reason");
    }

    fn status_with_reason(reason: &str) -> tonic::Status {
        let details = tonic_types::ErrorDetails::with_error_info(
            reason,
            "forms.v1",
            std::collections::HashMap::new(),
        );
        tonic::Status::with_error_details(tonic::Code::NotFound, "no such form", details)
    }

    #[test]
    fn the_reason_string_is_read_once_and_unknown_ones_are_internal() {
        let known = ApiError::from_status(&status_with_reason("NOT_FOUND"), "rid");
        assert_eq!(known.reason, ErrorReason::NotFound);
        assert_eq!(known.message, "no such form");
        for unknown in ["SOMETHING_NEW", "UNSPECIFIED", "ERROR_REASON_NOT_FOUND", ""] {
            let error = ApiError::from_status(&status_with_reason(unknown), "rid");
            assert_eq!(error.reason, ErrorReason::Internal, "{unknown:?}");
            assert!(!error.message.contains("no such form"));
            assert_eq!(
                error.into_response().status(),
                StatusCode::INTERNAL_SERVER_ERROR
            );
        }
        let bare = ApiError::from_status(&tonic::Status::unavailable("down"), "rid");
        assert_eq!(bare.reason, ErrorReason::ServiceUnavailable);
    }
}
