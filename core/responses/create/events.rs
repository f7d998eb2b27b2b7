//! The webhook events a stored response makes: `form.submitted` (also sent as
//! `response.received`) and, when the form scores answers, `quiz.completed`. Made
//! here once, as the exact bodies they are sent (and signed) with; both ways a response
//! is stored bind them beside its rows in the same statement
//! (`responses::store::statement`).

use crate::error::CoreError;
use crate::forms::quiz_score;
use crate::responses::{Response, TargetForm};
use crate::webhooks::outbox::{Event, outgoing};
use crate::webhooks::store::Outgoing;
use serde_json::json;

/// The events of `response`, stored on `form` from `via` (`submittedVia`), as written.
pub(super) fn of(
    form: &TargetForm,
    response: &Response,
    via: &'static str,
) -> Result<Vec<Outgoing>, CoreError> {
    let event = |name, quiz_id, data| Event {
        name,
        account_id: form.account_id,
        form_id: form.id,
        quiz_id,
        response_id: Some(response.id),
        data,
        at: response.submitted_at,
    };
    let data = json!({
        "responseId": response.id,
        "formId": form.id,
        "answers": response.answers,
        "submittedVia": via,
    });
    let mut events = vec![outgoing(&event("form.submitted", None, data))?];
    if let Some((score, max_score)) = quiz_score(&form.fields, &response.answers) {
        let quiz_id = form.id.to_string();
        let data = json!({
            "responseId": response.id,
            "formId": form.id,
            "score": score,
            "maxScore": max_score,
            "answers": response.answers,
            "submittedVia": via,
        });
        events.push(outgoing(&event("quiz.completed", Some(&quiz_id), data))?);
    }
    Ok(events)
}
