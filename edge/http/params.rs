//! Path parameters: the extractor that reads them, and the API's parameters, one type
//! each, which both reads its segment (a handler takes `PathParams<FormId>`, or a tuple
//! of them for a nested path) and documents it (`params(FormId)` in the handler's
//! `#[utoipa::path]`); and the `Idempotency-Key` header of the creates, which only the
//! core reads.

use crate::http::call::Call;
use crate::http::state::AppState;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use axum::response::Response;
use forms::pb;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use utoipa::IntoParams;

/// Path parameters; a path that cannot be decoded (e.g. invalid percent-encoding) names
/// no resource, so it is answered 404 in the SPEC envelope like any unknown id.
pub(crate) struct PathParams<T>(pub T);

impl<T: DeserializeOwned + Send> FromRequestParts<AppState> for PathParams<T> {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(value)) => Ok(Self(value)),
            Err(rejection) => {
                let message = format!("no resource at this path ({})", rejection.body_text());
                Err(Call::from_parts(parts)
                    .reject(state, pb::ErrorReason::NotFound, message)
                    .await)
            }
        }
    }
}

/// `{id}` of `/forms/{id}`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Path, names("id"))]
pub(crate) struct FormId(
    /// The form's id (an id that is not a UUID is simply not found).
    #[param(format = Uuid)]
    pub String,
);

/// `{form_id}` of the routes under a form.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Path, names("form_id"))]
pub(crate) struct FormIdOfChild(
    /// The form's id.
    #[param(format = Uuid)]
    pub String,
);

/// `{id}` of `/forms/{form_id}/responses/{id}`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Path, names("id"))]
pub(crate) struct ResponseId(
    /// The response's id.
    #[param(format = Uuid)]
    pub String,
);

/// `{id}` of `/forms/{form_id}/webhooks/{id}`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Path, names("id"))]
pub(crate) struct WebhookId(
    /// The webhook's id.
    #[param(format = Uuid)]
    pub String,
);

/// `{file_id}` of a response's file.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Path, names("file_id"))]
pub(crate) struct FileId(
    /// The file's id, from the `file_id` of its answer.
    #[param(format = Uuid)]
    pub String,
);

/// The `Idempotency-Key` request header of the creates.
#[derive(IntoParams)]
#[into_params(parameter_in = Header, names("Idempotency-Key"))]
#[allow(dead_code)] // documents a request header, which the core reads from the metadata
pub(crate) struct IdempotencyKey(
    /// A unique value per intended create (a UUID is suggested), at most 255 characters,
    /// shared by the account's keys and remembered 24 hours. A retry with the same key
    /// replays the first reply (`Idempotent-Replayed: true`); the same key with another
    /// body or on the other endpoint is 422 VALIDATION_ERROR. An empty value counts as
    /// no key.
    #[param(max_length = 255)]
    Option<String>,
);
