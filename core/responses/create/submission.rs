//! A submission, shared by API-created and browser-submitted responses: what a
//! respondent sent and who they are (`Submission`, `Source`), the response it makes on
//! the form as a view or a lock holds it (`respond`: open-form rules and answer
//! validation, which write nothing), and what each is answered (`Stored`, or an error,
//! `failed_together` when it failed with others).

use crate::config::CoreConfig;
use crate::error::{CoreError, FieldError};
use crate::files::{self, Staged};
use crate::forms::{FieldKind, now_millis};
use crate::responses::store::{Locked, Quota};
use crate::responses::{Response, quota_month};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::sync::Arc;
use uuid::Uuid;

/// Who submits: an API caller's account, or a visitor of a form's hosted page
/// (`proven`: the page's proof-of-work solution was verified and spent).
#[derive(Debug, Clone)]
pub(crate) enum Source {
    Api { account_id: Uuid },
    Page { short_id: String, proven: bool },
}

impl Source {
    /// `submittedVia` of the events, and the metrics' `via`.
    pub(crate) fn via(&self) -> &'static str {
        match self {
            Source::Api { .. } => "api",
            Source::Page { .. } => "form",
        }
    }

    /// Whether this source may submit to the form of `account_id` at `short_id`.
    pub(crate) fn may_submit_to(&self, account_id: Uuid, short_id: &str) -> Result<(), CoreError> {
        match self {
            // Another account's form is not found, as one that does not exist.
            Source::Api { account_id: caller } if *caller != account_id => {
                Err(CoreError::NotFound("form"))
            }
            // A page's token names another form than its address: a forgery.
            Source::Page {
                short_id: address, ..
            } if address != short_id => Err(CoreError::CsrfFailed),
            _ => Ok(()),
        }
    }

    /// Whether this source may submit to a form with `settings`: a page's submission
    /// to a form that turns `proof_of_work` on needs a solution (checked and spent by
    /// `hosted` before it was queued); an API caller has its key instead.
    pub(crate) fn has_proof_for(&self, settings: &Map<String, Value>) -> Result<(), CoreError> {
        match self {
            Source::Page { proven: false, .. } if crate::hosted::pow::required(settings) => Err(
                CoreError::ProofOfWork(crate::error::ProofOfWorkRefusal::Missing),
            ),
            _ => Ok(()),
        }
    }
}

/// What a respondent sent, and what is known of how.
#[derive(Clone)]
pub(crate) struct Submission {
    /// The response's id when it is decided beforehand (a partial response's own);
    /// `None`: a fresh one.
    pub id: Option<Uuid>,
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
    /// Whether answers to questions the other answers hide are dropped instead of
    /// refused: the owner's own HTML form (endpoint mode) shows every question.
    pub drop_unshown: bool,
    /// The language of the page it was answered on (`language_tag` checked it): the
    /// response records it, and the respondent's confirmation mail is written in it.
    pub language: Option<String>,
}

/// The response `submission` makes on the form as `locked` holds it, and the quota it
/// counts against: the open-form rules and answer validation. Writes nothing; the
/// form's counters are the caller's to move once the response is stored.
pub(super) fn respond(
    config: &CoreConfig,
    locked: &Locked,
    submission: &Submission,
) -> Result<(Response, Quota), CoreError> {
    let target = &locked.target;
    // Checked before the submission was queued (`owner`); checked again on the rows
    // it is stored under, so that nothing of another account's is ever written.
    submission
        .from
        .may_submit_to(target.account_id, &locked.short_id)?;
    submission.from.has_proof_for(&target.settings)?;
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
    let answers = if submission.drop_unshown {
        target.validate_dropping_unshown(submission.answers.clone(), &submission.files.answers)?
    } else {
        target.validate_answers(submission.answers.clone(), &submission.files.answers)?
    };
    let limit = locked.response_limit.or(config.response_limit(locked.plan));
    let submitted_at = target.next_submitted_at(now);
    let started_at = submission
        .started_at
        .map_or(submitted_at, |s| s.min(submitted_at));
    let response = Response {
        // Time-ordered (version 7, the time it says it was submitted): new responses
        // fill the last leaves of the primary key (migration 0025).
        id: submission
            .id
            .unwrap_or_else(|| time_ordered_id(submitted_at)),
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
        partial_page: None,
        language: submission.language.clone(),
    };
    let quota = Quota {
        account_id: target.account_id,
        month: quota_month(now),
        limit,
    };
    Ok((response, quota))
}

/// A stored response, with the settings of its form as the response's transaction
/// found them (a hosted page's confirmation comes from them).
#[derive(Debug)]
pub(crate) struct Stored {
    pub response: Response,
    pub settings: Arc<Map<String, Value>>,
}

/// What a submission is answered.
pub(crate) type Outcome = Result<Stored, CoreError>;

/// The outcomes of `n` submissions that failed together with `error`: the first gets
/// the error itself (mapped and logged as any), the others the same verdict without
/// its details.
pub(super) fn failed_together<T>(error: CoreError, n: usize) -> Vec<Result<T, CoreError>> {
    let reason = error.reason();
    let others = (1..n).map(|_| {
        Err(CoreError::Rejected {
            reason,
            message: "storing this response failed with others sent at the same time; retry".into(),
        })
    });
    let mut outcomes: Vec<_> = std::iter::once(Err(error)).chain(others).collect();
    outcomes.truncate(n);
    outcomes
}

/// The language a page says it was shown in, kept when it has the shape of a language
/// tag (`de`, `pt-BR`, at most 35 characters, the longest a form's languages take);
/// anything else (a tampered page, a client of its own) is not recorded.
pub(crate) fn language_tag(sent: Option<String>) -> Option<String> {
    sent.map(|tag| tag.trim().to_owned()).filter(|tag| {
        !tag.is_empty()
            && tag.len() <= 35
            && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !tag.starts_with('-')
    })
}

/// A version 7 UUID of the instant `at` (random below the millisecond).
fn time_ordered_id(at: DateTime<Utc>) -> Uuid {
    let secs = u64::try_from(at.timestamp()).unwrap_or(0);
    Uuid::new_v7(uuid::Timestamp::from_unix(
        uuid::NoContext,
        secs,
        at.timestamp_subsec_nanos(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pb::ErrorReason;

    #[test]
    fn only_a_language_tag_is_recorded() {
        let tag = |s: &str| language_tag(Some(s.into()));
        assert_eq!(tag(" de "), Some("de".into()));
        assert_eq!(tag("pt-BR"), Some("pt-BR".into()));
        for bad in ["", "-de", "de_DE", "<b>", &"a".repeat(36)] {
            assert_eq!(tag(bad), None, "{bad:?}");
        }
        assert_eq!(language_tag(None), None);
    }

    #[test]
    fn what_fails_together_gets_one_verdict() {
        let outcomes: Vec<Result<(), CoreError>> = failed_together(CoreError::FormClosed, 3);
        let reasons: Vec<ErrorReason> = outcomes
            .iter()
            .map(|outcome| outcome.as_ref().expect_err("failed").reason())
            .collect();
        assert_eq!(reasons, [CoreError::FormClosed.reason(); 3]);
        // The first carries the error itself (logged with its details), the others say
        // why they failed with it.
        assert!(matches!(outcomes[0], Err(CoreError::FormClosed)));
        assert!(
            outcomes[1..]
                .iter()
                .all(|o| matches!(o, Err(CoreError::Rejected { .. })))
        );
        assert_eq!(failed_together::<()>(CoreError::FormClosed, 1).len(), 1);
        assert!(failed_together::<()>(CoreError::FormClosed, 0).is_empty());
    }
}
