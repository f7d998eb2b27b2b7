//! `POST /erasures`: erasure of a respondent onto ResponsesService.EraseRespondent.
//! Not in SPEC (which this only adds to): the book's "Data rights" page describes it.

use crate::http::body::JsonBody;
use crate::http::call::{Call, Success};
use crate::http::state::AppState;
use crate::http::timestamp;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The body of `POST /erasures`.
#[derive(Deserialize, ToSchema)]
#[schema(as = CreateErasure)]
pub(crate) struct CreateErasureBody {
    /// The value to find in answers: an email address (matched whatever its case) or
    /// any other text (matched exactly), 1 to 1000 characters, trimmed.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 1000)]
    value: Option<String>,
    /// Only list the matches; delete nothing. Default false.
    #[serde(default)]
    dry_run: Option<bool>,
}

/// A response found by an erasure.
#[derive(Serialize, ToSchema)]
pub(crate) struct ErasedResponse {
    #[schema(format = Uuid)]
    id: String,
    #[schema(format = Uuid)]
    form_id: String,
    form_title: String,
    /// When it was submitted (a partial response: when its first page was saved).
    #[schema(value_type = String, format = DateTime)]
    submitted_at: Option<String>,
    /// `completed` or `partial`.
    status: &'static str,
}

/// `data` of an erasure.
#[derive(Serialize, ToSchema)]
pub(crate) struct Erasure {
    /// The responses found, oldest first (at most 1000).
    responses: Vec<ErasedResponse>,
    /// Whether they were deleted: false for a dry run.
    erased: bool,
    /// More were found than listed: call again for the rest.
    truncated: bool,
    /// What the erasure cannot reach.
    not_retroactive: &'static str,
}

/// What no erasure reaches, said in every reply.
const NOT_RETROACTIVE: &str = "Webhooks already delivered and exports already downloaded \
    keep what they carried; receivers and downloads are outside this service.";

/// Erase a respondent
#[utoipa::path(post, path = "/erasures", operation_id = "createErasure", tag = "responses",
    description = "Scope: admin. Finds every response (and partial response) of the \
        account whose answers hold `value` and, unless `dry_run`, deletes them with their \
        files, partial responses and the copies of their answers in webhook deliveries and \
        idempotency records. Not retroactive for webhooks already delivered or exports \
        already downloaded.",
    request_body = CreateErasureBody,
    responses((status = 200, description = "What was found (and erased)",
        body = Success<Erasure>)))]
pub(crate) async fn create(
    State(state): State<AppState>,
    call: Call,
    JsonBody(body): JsonBody<CreateErasureBody>,
) -> Response {
    let request = call.request(pb::EraseRespondentRequest {
        value: body.value.unwrap_or_default(),
        dry_run: body.dry_run.unwrap_or(false),
    });
    let result = state.responses().erase_respondent(request).await;
    call.reply(result, StatusCode::OK, |r| Erasure {
        responses: r
            .matches
            .into_iter()
            .map(|m| ErasedResponse {
                status: match pb::ResponseStatus::try_from(m.status) {
                    Ok(pb::ResponseStatus::Partial) => "partial",
                    _ => "completed",
                },
                id: m.id,
                form_id: m.form_id,
                form_title: m.form_title,
                submitted_at: timestamp(m.submitted_at.as_ref()),
            })
            .collect(),
        erased: r.erased,
        truncated: r.truncated,
        not_retroactive: NOT_RETROACTIVE,
    })
}
