//! One REST request's conversation with the core: the gRPC request with the caller's
//! credentials as metadata, and the HTTP reply built from the core's answer.

use crate::http::error::{ApiError, forwarded_headers};
use crate::http::server::ClientIp;
use crate::http::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::{HeaderMap, StatusCode, request::Parts};
use axum::response::{IntoResponse, Response};
use forms::pb;
use serde::Serialize;
use std::convert::Infallible;
use tonic::metadata::{MetadataMap, MetadataValue};

/// HTTP headers passed to the core as metadata of the same name.
const PASSED_HEADERS: &[&str] = &["x-api-key", "authorization", "cookie", "idempotency-key"];

/// The success envelope of SPEC, `{success: true, data}`; the documented shape of every
/// 2xx body (see `openapi`).
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct Success<D> {
    /// Always true.
    success: bool,
    data: D,
}

impl<D> Success<D> {
    pub(crate) fn new(data: D) -> Self {
        Self {
            success: true,
            data,
        }
    }
}

/// The request id the edge assigned, stored in request extensions by the middleware.
#[derive(Debug, Clone)]
pub(crate) struct RequestId(pub String);

/// What a handler needs to call the core on behalf of the HTTP client.
pub(crate) struct Call {
    pub request_id: String,
    metadata: MetadataMap,
}

impl<S: Send + Sync> FromRequestParts<S> for Call {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Infallible> {
        Ok(Self::from_parts(parts))
    }
}

fn metadata(headers: &HeaderMap, request_id: &str, client_ip: Option<&str>) -> MetadataMap {
    let mut md = MetadataMap::new();
    for name in PASSED_HEADERS {
        if let Some(value) = headers.get(*name)
            && let Ok(value) = MetadataValue::try_from(value.as_bytes())
        {
            md.insert(*name, value);
        }
    }
    if let Ok(value) = MetadataValue::try_from(request_id) {
        md.insert("x-request-id", value);
    }
    if let Some(ip) = client_ip
        && let Ok(value) = MetadataValue::try_from(ip)
    {
        md.insert("x-client-ip", value);
    }
    pass_user_agent(headers, &mut md);
    md
}

/// The client's user agent, for the core's audit trail (believed from an edge only).
pub(crate) fn pass_user_agent(headers: &HeaderMap, md: &mut MetadataMap) {
    if let Some(agent) = headers.get(axum::http::header::USER_AGENT)
        && let Ok(value) = MetadataValue::try_from(agent.as_bytes())
    {
        md.insert("x-client-user-agent", value);
    }
}

impl Call {
    /// The call of a request, for extractors that refuse it (and so cannot take `Call`
    /// as an argument).
    pub(crate) fn from_parts(parts: &Parts) -> Self {
        let request_id = parts
            .extensions
            .get::<RequestId>()
            .map_or_else(|| uuid::Uuid::new_v4().to_string(), |id| id.0.clone());
        let client_ip = parts
            .extensions
            .get::<ClientIp>()
            .map(|ClientIp(ip)| ip.to_string());
        Self {
            metadata: metadata(&parts.headers, &request_id, client_ip.as_deref()),
            request_id,
        }
    }

    /// A gRPC request carrying `message` and the caller's metadata.
    pub(crate) fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        *request.metadata_mut() = self.metadata.clone();
        request
    }

    /// The HTTP reply for the core's answer: `{success: true, data}` with status `ok`
    /// (204 has no body), or the error envelope.
    pub(crate) fn reply<T, D: Serialize>(
        &self,
        result: Result<tonic::Response<T>, tonic::Status>,
        ok: StatusCode,
        data: impl FnOnce(T) -> D,
    ) -> Response {
        match result {
            Ok(response) => {
                let headers = forwarded_headers(response.metadata());
                let body = data(response.into_inner());
                let mut reply = if ok == StatusCode::NO_CONTENT {
                    ok.into_response()
                } else {
                    (ok, axum::Json(Success::new(body))).into_response()
                };
                reply.headers_mut().extend(headers);
                reply
            }
            Err(status) => self.error(&status),
        }
    }

    /// The HTTP reply for an error status of the core.
    pub(crate) fn error(&self, status: &tonic::Status) -> Response {
        ApiError::from_status(status, &self.request_id).into_response()
    }

    /// Refuses a request the edge could not turn into a message. The core still
    /// authenticates, rate-limits and counts it, and answers with the error to show.
    pub(crate) async fn reject(
        &self,
        state: &AppState,
        reason: pb::ErrorReason,
        message: impl Into<String>,
    ) -> Response {
        let request = self.request(pb::RejectRequestRequest {
            error_reason: reason.into(),
            message: message.into(),
            // The deprecated string twin, for a core of an older release that reads only it.
            #[allow(deprecated)]
            reason: reason.code().to_owned(),
        });
        match state.gateway().reject_request(request).await {
            Err(status) => self.error(&status),
            // The core always answers with an error; an Ok would be a core bug.
            Ok(_) => self.error(&tonic::Status::internal(
                "gateway accepted a rejected request",
            )),
        }
    }
}
