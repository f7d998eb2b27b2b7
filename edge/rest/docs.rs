//! The API's own description, without a key: the OpenAPI document and its interactive
//! reference (Swagger UI, whose files are compiled into the binary: it works offline).

use crate::http::error::ApiError;
use crate::http::params::PathParams;
use crate::rest::openapi;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};
use forms::pb::ErrorReason;
use std::sync::{Arc, LazyLock};
use utoipa_swagger_ui::Config;

/// The document as served: built and serialised once, on first use.
static DOCUMENT: LazyLock<Result<Vec<u8>, String>> =
    LazyLock::new(|| serde_json::to_vec(&openapi::document()).map_err(|e| e.to_string()));

/// `GET /api/v1/openapi.json`.
pub(crate) async fn openapi_json() -> Response {
    match &*DOCUMENT {
        Ok(bytes) => ([(CONTENT_TYPE, "application/json")], bytes.as_slice()).into_response(),
        Err(error) => {
            tracing::error!(%error, "serialising the OpenAPI document");
            bare(
                ErrorReason::Internal,
                "the API description failed".to_owned(),
            )
        }
    }
}

/// `GET /api/v1/docs`: the reference's page, whose assets are relative to `docs/`.
pub(crate) async fn to_index() -> Redirect {
    Redirect::to("docs/index.html")
}

/// The page loads the document from the same server, relative to itself, so it also
/// works behind a proxy that mounts the API under another prefix.
static CONFIG: LazyLock<Arc<Config<'static>>> =
    LazyLock::new(|| Arc::new(Config::new(["../openapi.json"]).try_it_out_enabled(true)));

/// `GET /api/v1/docs/{file}`: a file of Swagger UI.
pub(crate) async fn asset(PathParams(file): PathParams<String>) -> Response {
    match utoipa_swagger_ui::serve(&file, CONFIG.clone()) {
        Ok(Some(found)) => {
            let mut headers = HeaderMap::new();
            if let Ok(value) = HeaderValue::from_str(&found.content_type) {
                headers.insert(CONTENT_TYPE, value);
            }
            (headers, found.bytes).into_response()
        }
        Ok(None) => bare(ErrorReason::NotFound, format!("no file {file} in the docs")),
        Err(error) => {
            tracing::error!(%error, file, "serving the API reference");
            bare(ErrorReason::Internal, "the API reference failed".to_owned())
        }
    }
}

/// An error of these unauthenticated routes: nothing to account, so the core is not
/// asked.
fn bare(reason: ErrorReason, message: String) -> Response {
    ApiError {
        reason,
        message,
        retry_after: None,
        headers: HeaderMap::new(),
    }
    .into_response()
}
