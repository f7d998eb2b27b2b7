//! Submissions to one form, stored together. A form's responses are ordered by its
//! row lock, held until commit, so one form takes one transaction at a time; what
//! arrives while a transaction runs waits, and the next transaction stores all of it
//! under one lock and one commit. Each submission is judged on its own (open form,
//! answers, quota, in arrival order) and gets its own answer; only a database error
//! fails the whole batch. When the instance's view of the form settles the whole batch
//! (`current`), it is stored in one statement instead, with other forms' batches.

use super::Response;
use super::current::Snapshots;
use super::owners::Owners;
use super::store::{self, Locked};
use super::submit::{Submission, submit};
use crate::config::CoreConfig;
use crate::db::lanes::Lanes;
use crate::error::CoreError;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::oneshot;
use uuid::Uuid;

/// Submissions a transaction takes at most.
const MAX_BATCH: usize = 128;

/// A stored response, with the settings of its form as the response's transaction
/// found them (a hosted page's confirmation comes from them).
#[derive(Debug)]
pub struct Stored {
    pub response: Response,
    pub settings: Arc<Map<String, Value>>,
}

type Outcome = Result<Stored, CoreError>;
type Reply = oneshot::Sender<Outcome>;

/// The submissions waiting for a form (from the API and from its page alike), and
/// whether a transaction for it runs (its task takes them next).
#[derive(Default)]
struct Queue {
    waiting: Vec<(Submission, Reply)>,
    running: bool,
}

/// The per-form queues of this instance.
#[derive(Clone)]
pub struct Batcher {
    queues: Arc<Mutex<HashMap<Uuid, Queue>>>,
    /// The forms as this instance's last transaction on each left them.
    snapshots: Snapshots,
    /// Whose each form is: checked before a submission is queued.
    owners: Owners,
    lanes: Lanes,
    config: Arc<CoreConfig>,
}

impl Batcher {
    pub fn new(lanes: Lanes, config: Arc<CoreConfig>) -> Self {
        Self {
            queues: Arc::default(),
            snapshots: Snapshots::new(lanes.clone()),
            owners: Owners::new(lanes.clone()),
            lanes,
            config,
        }
    }

    /// Stores `submission` to the form; resolves once it is committed (or refused).
    pub async fn submit(&self, form_id: Uuid, submission: Submission) -> Outcome {
        // Another account's submission never reaches the owner's queue.
        self.owners.check(form_id, &submission.from).await?;
        let (reply, answer) = oneshot::channel();
        let start = {
            let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
            let queue = queues.entry(form_id).or_default();
            queue.waiting.push((submission, reply));
            !std::mem::replace(&mut queue.running, true)
        };
        if start {
            // Its own task: a caller that goes away must not strand the others.
            let batcher = self.clone();
            tokio::spawn(async move { batcher.drain(form_id).await });
        }
        answer
            .await
            .unwrap_or_else(|_| Err(CoreError::Internal("the submission's batch stopped".into())))
    }

    /// Stores batches of the form's queue until it is empty.
    async fn drain(&self, form_id: Uuid) {
        loop {
            let batch = {
                let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
                let Some(queue) = queues.get_mut(&form_id) else {
                    return;
                };
                if queue.waiting.is_empty() {
                    queues.remove(&form_id);
                    return;
                }
                let take = queue.waiting.len().min(MAX_BATCH);
                queue.waiting.drain(..take).collect::<Vec<_>>()
            };
            self.store_batch(form_id, batch).await;
        }
    }
}

/// How one transaction for a batch ended.
enum Attempt {
    /// Committed: each submission's outcome, in order, and the form as it was left.
    Stored(Vec<Result<Response, CoreError>>, Box<Locked>),
    /// The statements of the submission at this index failed, which aborts the
    /// transaction: that one gets its error, the others are tried again without it.
    Poisoned(usize, CoreError),
    /// Nothing was stored, for all of them.
    Failed(CoreError),
}

/// Tries to store `submissions` in one transaction.
async fn attempt(
    lanes: &Lanes,
    config: &CoreConfig,
    form_id: Uuid,
    submissions: &[Submission],
) -> Attempt {
    let result = async {
        let mut lane = lanes.take().await?;
        let mut tx = sqlx::Connection::begin(&mut *lane).await?;
        let mut locked = store::lock_target(&mut tx, form_id).await?;
        let mut outcomes = Vec::with_capacity(submissions.len());
        for (i, submission) in submissions.iter().enumerate() {
            match submit(&mut tx, config, &mut locked, submission).await {
                // A statement failed (the transaction is aborted), or one failed after the
                // response was written (its files, notification or events): either way
                // the transaction must not commit. Dropping it rolls back.
                Err(
                    error @ (CoreError::Database(_)
                    | CoreError::UnstorableText
                    | CoreError::Internal(_)),
                ) => {
                    return Ok(Attempt::Poisoned(i, error));
                }
                outcome => outcomes.push(outcome),
            }
        }
        locked.versions.form = store::advance_form(&mut tx, &locked.target).await?;
        tx.commit().await?;
        // Committed: nothing is pending on the connection.
        lane.finish();
        Ok::<_, CoreError>(Attempt::Stored(outcomes, Box::new(locked)))
    }
    .await;
    result.unwrap_or_else(Attempt::Failed)
}

impl Batcher {
    /// Stores `batch` (in one statement if its form's snapshot settles it, else in one
    /// transaction when all goes well); every submission gets its answer.
    async fn store_batch(&self, form_id: Uuid, batch: Vec<(Submission, Reply)>) {
        let (lanes, config, snapshots) = (&self.lanes, &*self.config, &self.snapshots);
        let (mut submissions, mut replies): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
        if let Some(outcomes) = snapshots.try_store(config, form_id, &submissions).await {
            return answer(&submissions, replies, outcomes);
        }
        while !submissions.is_empty() {
            match attempt(lanes, config, form_id, &submissions).await {
                Attempt::Stored(outcomes, locked) => {
                    let settings = locked.target.settings.clone();
                    snapshots.keep(form_id, *locked);
                    let outcomes = outcomes.into_iter().map(|outcome| {
                        outcome.map(|response| Stored {
                            response,
                            settings: settings.clone(),
                        })
                    });
                    return answer(&submissions, replies, outcomes.collect());
                }
                Attempt::Poisoned(i, error) => {
                    submissions.remove(i);
                    let _ = replies.remove(i).send(Err(error));
                }
                Attempt::Failed(error) => {
                    // Nothing was stored.
                    let outcomes = failed_together(error, replies.len());
                    for (reply, outcome) in replies.into_iter().zip(outcomes) {
                        let _ = reply.send(outcome);
                    }
                    return;
                }
            }
        }
    }
}

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

/// Sends each submission of a committed transaction its outcome.
fn answer(submissions: &[Submission], replies: Vec<Reply>, outcomes: Vec<Outcome>) {
    for ((submission, reply), outcome) in submissions.iter().zip(replies).zip(outcomes) {
        if outcome.is_ok() {
            metrics::counter!("formsd_responses_created_total", "via" => submission.from.via())
                .increment(1);
        }
        let _ = reply.send(outcome);
    }
}
