//! The create path: how a submission (an API create or a hosted page's) is stored, in
//! the order its modules take it.
//!
//! 1. `owner`: whose the form is, checked before anything waits on the form.
//! 2. Here, the form's queue. A form's responses are ordered by its row lock, so one
//!    form stores one batch at a time; what arrives meanwhile waits, and the next
//!    batch takes all of it (up to `MAX_BATCH`). Each submission is judged on its own
//!    and gets its own answer; only a database error fails a batch.
//! 3. `snapshot`: the batch judged on the instance's view of the form (as its last
//!    batch left it) and, when the view settles all of it, stored by
//! 4. `statement`: one statement shared with other forms' batches, which writes only if
//!    the form has not moved since the view.
//! 5. `locked`: anything else, in a transaction under the form's row lock.
//!
//! `submission` holds what each step judges and answers; `drain` the task that empties
//! a queue (this one and the statement's).

mod drain;
mod events;
pub(crate) mod locked;
mod owner;
mod snapshot;
mod statement;
mod submission;

pub(crate) use submission::{Outcome, Source, Stored, Submission, language_tag};

use crate::config::CoreConfig;
use crate::db::lanes::Lanes;
use crate::error::CoreError;
use crate::outbox::bell::Bell;
use drain::Drain;
use locked::Attempt;
use owner::Owners;
use snapshot::Snapshots;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use submission::failed_together;
use tokio::sync::oneshot;
use uuid::Uuid;

/// Submissions a transaction takes at most.
const MAX_BATCH: usize = 128;

type Reply = oneshot::Sender<Outcome>;

/// The submissions waiting for a form (from the API and from its page alike), and
/// whether a task stores its batches (it takes them next).
#[derive(Default)]
struct Queue {
    waiting: Vec<(Submission, Reply)>,
    running: bool,
}

/// The per-form queues of this instance.
#[derive(Clone)]
pub(crate) struct Batcher {
    queues: Arc<Mutex<HashMap<Uuid, Queue>>>,
    /// Whose each form is: checked before a submission is queued.
    owners: Owners,
    /// The forms as this instance's last batch on each left them.
    snapshots: Snapshots,
    lanes: Lanes,
    config: Arc<CoreConfig>,
}

impl Batcher {
    pub(crate) fn new(lanes: Lanes, config: Arc<CoreConfig>, deliveries: Bell) -> Self {
        Self {
            queues: Arc::default(),
            // An owner is small (an id and a short id): an eighth of the view's memory
            // keeps as many as the snapshots' part keeps forms of several fields.
            owners: Owners::new(lanes.clone(), config.form_view_bytes / 8),
            snapshots: Snapshots::new(lanes.clone(), config.form_view_bytes / 8 * 7, deliveries),
            lanes,
            config,
        }
    }

    fn queues(&self) -> MutexGuard<'_, HashMap<Uuid, Queue>> {
        self.queues.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores `submission` to the form; resolves once it is committed (or refused).
    pub(crate) async fn submit(&self, form_id: Uuid, submission: Submission) -> Outcome {
        // Another account's submission never reaches the owner's queue.
        self.owners.check(form_id, &submission.from).await?;
        let (reply, answer) = oneshot::channel();
        let start = {
            let mut queues = self.queues();
            let queue = queues.entry(form_id).or_default();
            queue.waiting.push((submission, reply));
            // Submissions waiting in forms' queues, all forms together.
            metrics::gauge!("formsd_create_queue_waiting").increment(1.0);
            !std::mem::replace(&mut queue.running, true)
        };
        if start {
            drain::spawn(FormQueue {
                batcher: self.clone(),
                form_id,
            });
        }
        answer
            .await
            .unwrap_or_else(|_| Err(CoreError::Internal("the submission's batch stopped".into())))
    }

    /// Stores `batch` (in one statement if its form's snapshot settles it, else in one
    /// transaction when all goes well); every submission gets its answer.
    async fn store_batch(&self, form_id: Uuid, batch: Vec<(Submission, Reply)>) {
        let (lanes, config, snapshots) = (&self.lanes, &*self.config, &self.snapshots);
        let (mut submissions, mut replies): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
        if let Some(outcomes) = snapshots.try_store(config, form_id, &submissions).await {
            return answer(&submissions, replies, outcomes);
        }
        while !submissions.is_empty() {
            match locked::transaction(lanes, config, form_id, &submissions).await {
                Ok(Attempt::Stored(outcomes, locked)) => {
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
                Ok(Attempt::Poisoned(i, error)) => {
                    submissions.remove(i);
                    let _ = replies.remove(i).send(Err(error));
                }
                Err(error) => {
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

/// One form's queue, as its drain task sees it.
#[derive(Clone)]
struct FormQueue {
    batcher: Batcher,
    form_id: Uuid,
}

impl Drain for FormQueue {
    type Batch = Vec<(Submission, Reply)>;

    fn next(&self) -> Option<Self::Batch> {
        let mut queues = self.batcher.queues();
        let queue = queues.get_mut(&self.form_id)?;
        let batch = take_batch(&mut queue.waiting);
        if batch.is_empty() {
            // Stopped: the next submission starts a task.
            queues.remove(&self.form_id);
            return None;
        }
        Some(batch)
    }

    async fn run(&self, batch: Self::Batch) {
        self.batcher.store_batch(self.form_id, batch).await;
    }

    fn abandoned(&self) -> bool {
        let mut queues = self.batcher.queues();
        let waits = queues
            .get(&self.form_id)
            .is_some_and(|queue| !queue.waiting.is_empty());
        if !waits {
            queues.remove(&self.form_id);
        }
        waits
    }
}

/// The oldest waiting submissions, up to `MAX_BATCH`.
fn take_batch<T>(waiting: &mut Vec<T>) -> Vec<T> {
    let take = waiting.len().min(MAX_BATCH);
    metrics::gauge!("formsd_create_queue_waiting").decrement(take as f64);
    waiting.drain(..take).collect()
}

/// Sends each submission of a committed batch its outcome.
fn answer(submissions: &[Submission], replies: Vec<Reply>, outcomes: Vec<Outcome>) {
    for ((submission, reply), outcome) in submissions.iter().zip(replies).zip(outcomes) {
        if outcome.is_ok() {
            metrics::counter!("formsd_responses_created_total", "via" => submission.from.via())
                .increment(1);
        }
        let _ = reply.send(outcome);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_takes_the_oldest_up_to_its_size() {
        let mut waiting: Vec<usize> = (0..MAX_BATCH + 3).collect();
        let batch = take_batch(&mut waiting);
        assert_eq!(batch, (0..MAX_BATCH).collect::<Vec<_>>());
        assert_eq!(waiting, [MAX_BATCH, MAX_BATCH + 1, MAX_BATCH + 2]);
        assert_eq!(take_batch(&mut waiting).len(), 3);
        assert!(take_batch(&mut waiting).is_empty() && waiting.is_empty());
    }
}
