//! Storing a submission, the one path shared by API-created and browser-submitted
//! responses: open-form rules and answer validation (`respond`, which writes nothing),
//! then quota, insert and the events in the caller's transaction under the form's row
//! lock (`submit`), or all in one statement (`current`).

use super::store::{self, Locked, Quota};
use super::{Response, TargetForm, quota_month};
use crate::config::CoreConfig;
use crate::error::{CoreError, FieldError};
use crate::files::store::FileStore;
use crate::files::{self, Staged};
use crate::forms::{FieldKind, now_millis, quiz_score};
use crate::webhooks::outbox;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use sqlx::{Postgres, Transaction};
use uuid::Uuid;

/// Who submits: an API caller's account, or a visitor of a form's hosted page.
#[derive(Debug, Clone)]
pub enum Source {
    Api { account_id: Uuid },
    Page { short_id: String },
}

impl Source {
    /// `submittedVia` of the events, and the metrics' `via`.
    pub fn via(&self) -> &'static str {
        match self {
            Source::Api { .. } => "api",
            Source::Page { .. } => "form",
        }
    }

    /// Whether this source may submit to the form of `account_id` at `short_id`.
    pub fn may_submit_to(&self, account_id: Uuid, short_id: &str) -> Result<(), CoreError> {
        match self {
            // Another account's form is not found, as one that does not exist.
            Source::Api { account_id: caller } if *caller != account_id => {
                Err(CoreError::NotFound("form"))
            }
            // A page's token names another form than its address: a forgery.
            Source::Page { short_id: address } if address != short_id => Err(CoreError::CsrfFailed),
            _ => Ok(()),
        }
    }
}

/// What a respondent sent, and what is known of how.
#[derive(Clone)]
pub struct Submission {
    pub answers: Map<String, Value>,
    pub metadata: Map<String, Value>,
    pub device_type: Option<String>,
    pub browser: Option<String>,
    pub os: Option<String>,
    /// When the respondent started (the page was served); `None` for API calls.
    pub started_at: Option<DateTime<Utc>>,
    pub from: Source,
    /// Files uploaded for file_upload fields (browser submissions only), checked and
    /// staged before the form was locked.
    pub files: Staged,
}

/// The response `submission` makes on the form as `locked` holds it, and the quota it
/// counts against: the open-form rules and answer validation. Writes nothing; the
/// form's counters are the caller's to move once the response is stored.
pub fn respond(
    config: &CoreConfig,
    locked: &Locked,
    submission: &Submission,
) -> Result<(Response, Quota), CoreError> {
    let target = &locked.target;
    // Checked before the submission was queued (`owners`); checked again on the rows
    // it is stored under, so that nothing of another account's is ever written.
    submission
        .from
        .may_submit_to(target.account_id, &locked.short_id)?;
    let now = now_millis();
    target.check_open(now)?;
    // The files were checked against the form as it was read before the lock; its
    // fields may have changed since.
    let gone: Vec<FieldError> = submission
        .files
        .answers
        .keys()
        .filter(|id| {
            !target
                .fields
                .iter()
                .any(|f| f.id.to_string() == **id && f.kind == FieldKind::FileUpload)
        })
        .map(|id| files::not_a_file_field(id))
        .collect();
    if !gone.is_empty() {
        return Err(CoreError::FieldErrors(gone));
    }
    let answers = target.validate_answers(submission.answers.clone(), &submission.files.answers)?;
    let limit = locked.response_limit.or(config.response_limit(locked.plan));
    let submitted_at = target.next_submitted_at(now);
    let started_at = submission
        .started_at
        .map_or(submitted_at, |s| s.min(submitted_at));
    let response = Response {
        id: Uuid::new_v4(),
        form_id: target.id,
        answers,
        metadata: submission.metadata.clone(),
        device_type: submission.device_type.clone(),
        browser: submission.browser.clone(),
        os: submission.os.clone(),
        started_at,
        submitted_at,
        completion_time_seconds: submission
            .started_at
            .map(|_| (submitted_at - started_at).num_seconds()),
    };
    let quota = Quota {
        account_id: target.account_id,
        month: quota_month(now),
        limit,
    };
    Ok((response, quota))
}

/// Whether storing `submission` on `locked` writes the response, its quota and the
/// form's counters and nothing else (no file, notification or event), all of which
/// `store::insert_all_if_current` does in one statement.
pub fn writes_only_the_response(locked: &Locked, submission: &Submission) -> bool {
    submission.files.ids.is_empty() && !locked.has_webhooks && !notifies(&locked.target)
}

/// Whether the form's owner is mailed about each response.
fn notifies(target: &TargetForm) -> bool {
    target.settings.get("notifications_enabled") == Some(&Value::Bool(true))
}

/// Stores `submission` on the locked form; returns the stored response. The form's
/// counters move in `locked` only: write them with `store::advance_form` once the
/// transaction's submissions are stored (one write for a batch).
pub async fn submit(
    tx: &mut Transaction<'_, Postgres>,
    config: &CoreConfig,
    locked: &mut Locked,
    submission: &Submission,
) -> Result<Response, CoreError> {
    let (response, quota) = respond(config, locked, submission)?;
    store::insert_counted(tx, &response, quota).await?;
    let (target, has_webhooks) = (&mut locked.target, locked.has_webhooks);
    let submitted_at = response.submitted_at;
    target.count(submitted_at);
    FileStore::attach(tx, response.id, &submission.files.ids).await?;
    // The form's settings are at hand (and locked): a form without notifications costs
    // no query.
    if notifies(target) {
        crate::notifications::enqueue(tx, config, target.id, response.id, submitted_at).await?;
    }
    // The events go to the form's webhooks: without one there is nothing to write.
    if has_webhooks {
        let event = |name, quiz_id, data| outbox::Event {
            name,
            account_id: target.account_id,
            form_id: target.id,
            quiz_id,
            response_id: Some(response.id),
            data,
            at: submitted_at,
        };
        let data = json!({
            "responseId": response.id,
            "formId": target.id,
            "answers": response.answers,
            "submittedVia": submission.from.via(),
        });
        outbox::enqueue(tx, event("form.submitted", None, data)).await?;
        if let Some((score, max_score)) = quiz_score(&target.fields, &response.answers) {
            let quiz_id = target.id.to_string();
            let data = json!({
                "responseId": response.id,
                "formId": target.id,
                "score": score,
                "maxScore": max_score,
                "answers": response.answers,
                "submittedVia": submission.from.via(),
            });
            outbox::enqueue(tx, event("quiz.completed", Some(&quiz_id), data)).await?;
        }
    }
    Ok(response)
}
