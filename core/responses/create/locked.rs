//! The locked path: submissions stored in a transaction under the form's row lock, each
//! judged on the form as the lock found it and as those before it left it, then written
//! (quota, insert, counters, the webhooks' deliveries) by the statement the
//! one-statement create uses (`store::insert_all_if_current`, one submission's batch:
//! under the lock the form is current by construction), then its files and mails. The
//! form's queue sends here whatever the instance's view cannot settle; an idempotent
//! create runs the same `attempt` inside the transaction that holds its key.

use super::events;
use super::submission::{Submission, respond};
use crate::config::CoreConfig;
use crate::db::lanes::Lanes;
use crate::error::CoreError;
use crate::files::store::FileStore;
use crate::responses::Response;
use crate::responses::store::{self, Current, IfCurrent, Locked};
use crate::webhooks::outbox;
use sqlx::{Postgres, Transaction};
use uuid::Uuid;

/// How the submissions of one transaction fared.
pub(crate) enum Attempt {
    /// All were judged: each one's outcome, in order, and the form as they left it
    /// (its counters written in the transaction).
    Stored(Vec<Result<Response, CoreError>>, Box<Locked>),
    /// The statements of the submission at this index failed, which aborts the
    /// transaction: that one gets its error, the others are tried again without it.
    Poisoned(usize, CoreError),
}

/// Locks the form in `tx` and stores `submissions` in order; the caller commits when
/// they are `Stored`. `Err`: nothing can be stored, for any of them.
pub(crate) async fn attempt(
    tx: &mut Transaction<'_, Postgres>,
    config: &CoreConfig,
    form_id: Uuid,
    submissions: &[Submission],
) -> Result<Attempt, CoreError> {
    let mut locked = store::lock_target(tx, form_id).await?;
    crate::notifications::confirm::lock_recipients(tx, config, &locked.target, submissions).await?;
    let mut outcomes = Vec::with_capacity(submissions.len());
    for (i, submission) in submissions.iter().enumerate() {
        match submit(tx, config, &mut locked, submission).await {
            // A statement failed (the transaction is aborted), or one failed after the
            // response was written (its files, notification or events): either way
            // the transaction must not commit.
            Err(
                error @ (CoreError::Database(_)
                | CoreError::UnstorableText
                | CoreError::Internal(_)),
            ) => return Ok(Attempt::Poisoned(i, error)),
            outcome => outcomes.push(outcome),
        }
    }
    Ok(Attempt::Stored(outcomes, Box::new(locked)))
}

/// Stores one submission in `tx` (an idempotent create, whose transaction also holds
/// its key): its response, or why not.
pub(crate) async fn attempt_one(
    tx: &mut Transaction<'_, Postgres>,
    config: &CoreConfig,
    form_id: Uuid,
    submission: Submission,
) -> Result<Response, CoreError> {
    match attempt(tx, config, form_id, std::slice::from_ref(&submission)).await? {
        Attempt::Stored(outcomes, _) => outcomes
            .into_iter()
            .next()
            .unwrap_or_else(|| Err(CoreError::Internal("a submission without outcome".into()))),
        Attempt::Poisoned(_, error) => Err(error),
    }
}

/// Runs `attempt` in a transaction of its own on a lane, committed when `Stored`.
pub(super) async fn transaction(
    lanes: &Lanes,
    config: &CoreConfig,
    form_id: Uuid,
    submissions: &[Submission],
) -> Result<Attempt, CoreError> {
    let mut lane = lanes.take().await?;
    let mut tx = sqlx::Connection::begin(&mut *lane).await?;
    let attempt = attempt(&mut tx, config, form_id, submissions).await?;
    if let Attempt::Stored(..) = attempt {
        tx.commit().await?;
        // Committed: nothing is pending on the connection.
        lane.finish();
    }
    // Poisoned: dropping the transaction rolls it back, and the lane goes back to the
    // pool.
    Ok(attempt)
}

/// Stores `submission` on the locked form; returns the stored response. The form's
/// counters and version move in `locked` as the statement moved them in the database.
async fn submit(
    tx: &mut Transaction<'_, Postgres>,
    config: &CoreConfig,
    locked: &mut Locked,
    submission: &Submission,
) -> Result<Response, CoreError> {
    let (response, quota) = respond(config, locked, submission)?;
    let response = write(tx, locked, response, quota, submission.from.via()).await?;
    let target = &locked.target;
    FileStore::attach(tx, response.id, &submission.files.ids).await?;
    // The form's settings are at hand (and locked): a form without notifications costs
    // no query.
    if target.notifies() {
        crate::notifications::enqueue(tx, config, target.id, response.id, response.submitted_at)
            .await?;
    }
    if crate::notifications::confirm::confirms(target) {
        crate::notifications::confirm::enqueue(tx, config, target, &response, submission).await?;
    }
    Ok(response)
}

/// Writes `response` with its events (the form's webhooks': without one there are
/// none) as the one-statement create writes a batch, in `tx`, and moves the form's
/// counters and version in `locked`. Over quota: `ResponseLimitReached`, nothing written.
async fn write(
    tx: &mut Transaction<'_, Postgres>,
    locked: &mut Locked,
    response: Response,
    quota: store::Quota,
    via: &'static str,
) -> Result<Response, CoreError> {
    let target = &mut locked.target;
    let events = match locked.has_webhooks {
        true => events::of(target, &response, via)?,
        false => Vec::new(),
    };
    let mut batch = [IfCurrent {
        form_id: target.id,
        versions: locked.versions.clone(),
        count: target.response_count,
        newest: target.last_submitted_at,
        quota,
        responses: vec![response],
        has_webhooks: locked.has_webhooks,
        events,
    }];
    let written = store::insert_all_if_current(&mut **tx, &batch).await?;
    let response = batch[0].responses.pop();
    match (written.forms.into_iter().next(), response) {
        (Some(Current::Stored(version)), Some(response)) => {
            locked.versions.form = version;
            target.count(response.submitted_at);
            if written.deliveries > 0 {
                outbox::ring(tx).await?;
            }
            Ok(response)
        }
        (Some(Current::OverQuota), _) => Err(CoreError::ResponseLimitReached),
        // The row lock keeps the form as locked, and webhooks are added under it.
        _ => Err(CoreError::Internal(
            "the locked form moved under its lock".into(),
        )),
    }
}
