//! What the hosted page says when the core refuses: the error pages of refusals that
//! are not about the answers, and the problems of answers, each in the page's language.

use super::page::message_page;
use super::words::Words;
use crate::http::call::Call;
use crate::http::error::reason_of;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, ErrorReason};
use std::collections::HashMap;
use tonic_types::StatusExt;

/// A page of two messages: its title and its text.
fn said(words: Words, status: StatusCode, title: &str, text: &str) -> Response {
    message_page(words, status, &words.get(title), &words.get(text))
}

/// The page of a form that is not there for visitors (unknown, draft or archived).
pub(super) fn not_found(words: Words) -> Response {
    said(
        words,
        StatusCode::NOT_FOUND,
        "not-found-title",
        "not-found-text",
    )
}

/// The page for an error of the core that is not about the answers.
pub(super) fn error_page(words: Words, call: &Call, status: &tonic::Status) -> Response {
    let reason = reason_of(status);
    match reason {
        // A draft or archived form's page does not exist for visitors, posted to or not.
        Some(ErrorReason::NotFound | ErrorReason::FormNotPublished) => not_found(words),
        Some(ErrorReason::FormClosed) => {
            said(words, StatusCode::GONE, "closed-title", "closed-text")
        }
        Some(ErrorReason::ResponseLimitReached) => {
            said(words, StatusCode::FORBIDDEN, "limit-title", "limit-text")
        }
        Some(ErrorReason::RateLimited) if refused_limit(status).as_deref() == Some("partials") => {
            said(
                words,
                StatusCode::TOO_MANY_REQUESTS,
                "partials-title",
                "partials-text",
            )
        }
        Some(ErrorReason::RateLimited) => said(
            words,
            StatusCode::TOO_MANY_REQUESTS,
            "rate-title",
            "rate-text",
        ),
        _ => {
            tracing::error!(
                request_id = call.request_id,
                reason = reason.map(ErrorReason::code),
                message = status.message(),
                "hosted page failed"
            );
            message_page(
                words,
                StatusCode::SERVICE_UNAVAILABLE,
                &words.get("failed-title"),
                &words.with("failed-text", &[("id", &call.request_id)]),
            )
        }
    }
}

/// The per-field messages of a VALIDATION_ERROR, by field id, in the page's language.
/// The core sends, per field, its English message (`field.<id>`: SPEC's words, which an
/// English page shows as they are), its stable reason (`reason.<id>`) and the reason's
/// arguments (`args.<id>`, urlencoded); another language says the reason in its own
/// words with the field's label as the page shows it, or the English when it has none.
pub(super) fn field_errors(
    status: &tonic::Status,
    words: Words,
    form: Option<&pb::Form>,
) -> HashMap<String, String> {
    let Some(info) = status.get_details_error_info() else {
        return HashMap::new();
    };
    let metadata = &info.metadata;
    metadata
        .iter()
        .filter_map(|(k, english)| {
            let id = k.strip_prefix("field.")?;
            let translated = (!words.is_english())
                .then(|| {
                    let message = format!("field-{}", metadata.get(&format!("reason.{id}"))?);
                    let label = &form?.fields.iter().find(|f| f.id == id)?.label;
                    words.has(&message).then(|| {
                        let given = metadata.get(&format!("args.{id}"));
                        let args: Vec<(String, String)> = given
                            .and_then(|a| serde_urlencoded::from_str(a).ok())
                            .unwrap_or_default();
                        let mut all: Vec<(&str, &str)> =
                            args.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                        all.push(("label", label));
                        words.with(&message, &all)
                    })
                })
                .flatten();
            Some((id.to_owned(), translated.unwrap_or_else(|| english.clone())))
        })
        .collect()
}

/// Why the core refused a submission's proof of work (`missing`, `invalid`, `expired`,
/// `spent`): its ErrorInfo metadata entry `proof_of_work`.
pub(super) fn pow_refusal(status: &tonic::Status) -> Option<String> {
    status
        .get_details_error_info()
        .and_then(|mut info| info.metadata.remove("proof_of_work"))
}

/// Which cap refused a rate-limited request, when the core says (`partials`): its
/// ErrorInfo metadata entry `limit`.
fn refused_limit(status: &tonic::Status) -> Option<String> {
    status
        .get_details_error_info()
        .and_then(|mut info| info.metadata.remove("limit"))
}
