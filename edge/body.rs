//! Request bodies and query strings: the edge's own parsing, so that every refusal
//! (wrong media type, oversized, malformed JSON, bad query value) gets the SPEC
//! envelope and is still accounted by the core.

use crate::call::Call;
use crate::state::AppState;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use forms::pb;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// A JSON object body, sent as `application/json`.
pub struct JsonObject(pub Map<String, Value>);

fn is_json(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|ct| ct.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

impl FromRequest<AppState> for JsonObject {
    type Rejection = Response;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Response> {
        let (mut parts, body) = req.into_parts();
        let call = match Call::from_request_parts(&mut parts, state).await {
            Ok(call) => call,
            Err(never) => match never {},
        };
        let content_type = parts
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok());
        if !is_json(content_type) {
            return Err(call
                .reject(
                    state,
                    pb::ErrorReason::UnsupportedMediaType,
                    "the request body must be sent as application/json",
                )
                .await);
        }
        let bytes = match axum::body::to_bytes(body, state.max_body_bytes).await {
            Ok(bytes) => bytes,
            Err(_) => {
                let message = format!(
                    "the request body is larger than {} bytes",
                    state.max_body_bytes
                );
                return Err(call
                    .reject(state, pb::ErrorReason::PayloadTooLarge, message)
                    .await);
            }
        };
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(map)) => Ok(Self(map)),
            Ok(_) => Err(call
                .reject(
                    state,
                    pb::ErrorReason::ValidationError,
                    "the request body must be a JSON object",
                )
                .await),
            Err(e) => Err(call
                .reject(
                    state,
                    pb::ErrorReason::ValidationError,
                    format!("malformed JSON: {e}"),
                )
                .await),
        }
    }
}

/// Query parameters as sent; handlers parse the ones they know.
pub struct QueryParams(pub HashMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for QueryParams {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or("");
        // Later values win on repeated names, as with most web frameworks.
        let pairs = serde_urlencoded::from_str::<Vec<(String, String)>>(query).unwrap_or_default();
        Ok(Self(pairs.into_iter().collect()))
    }
}

impl QueryParams {
    /// An optional integer parameter; `Err` names the parameter when it is not one.
    pub fn int(&self, name: &str) -> Result<Option<i32>, String> {
        match self.0.get(name) {
            None => Ok(None),
            Some(raw) => raw
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| format!("{name} must be an integer, got {raw:?}")),
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

/// Path parameters; a path that cannot be decoded (e.g. invalid percent-encoding) names
/// no resource, so it is answered 404 in the SPEC envelope like any unknown id.
pub struct PathParams<T>(pub T);

impl<T> FromRequestParts<AppState> for PathParams<T>
where
    T: serde::de::DeserializeOwned + Send,
{
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &AppState,
    ) -> Result<Self, Response> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(Self(value)),
            Err(rejection) => {
                let call = match Call::from_request_parts(parts, state).await {
                    Ok(call) => call,
                    Err(never) => match never {},
                };
                let message = format!("no resource at this path ({})", rejection.body_text());
                Err(call.reject(state, pb::ErrorReason::NotFound, message).await)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_media_types() {
        assert!(is_json(Some("application/json")));
        assert!(is_json(Some("Application/JSON; charset=utf-8")));
        assert!(!is_json(Some("text/plain")));
        assert!(!is_json(Some("application/jsonp")));
        assert!(!is_json(None));
    }
}
