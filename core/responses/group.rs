//! Submissions alone on their forms (`current`), stored together across forms. A few
//! statements run at a time; what arrives meanwhile waits, and the next statement
//! stores all of it: one round trip and one commit for many forms' responses, where a
//! statement each would cost the database a commit each.

use super::Response;
use super::store::{Current, IfCurrent, insert_all_if_current};
use crate::db::lanes::Lanes;
use crate::error::CoreError;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::oneshot;

/// Responses a statement takes at most.
const MAX_ROWS: usize = 64;

/// Statements running at once: one can be on the wire while the database runs
/// another.
const MAX_STATEMENTS: usize = 2;

/// The response given back with how it ended; `None`: its statement failed and wrote
/// nothing (take the locked path).
type Written = Option<(Response, Current)>;

#[derive(Default)]
struct Queue {
    waiting: VecDeque<(IfCurrent, oneshot::Sender<Written>)>,
    running: usize,
}

/// The responses of this instance waiting for a one-statement create.
#[derive(Clone)]
pub struct Group {
    queue: Arc<Mutex<Queue>>,
    lanes: Lanes,
}

impl Group {
    pub fn new(lanes: Lanes) -> Self {
        Self {
            queue: Arc::default(),
            lanes,
        }
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores `row` with the others waiting; gives its response back with how it
    /// ended. `None`: nothing was written (its statement failed).
    pub async fn store(&self, row: IfCurrent) -> Written {
        let (reply, answer) = oneshot::channel();
        let start = {
            let mut queue = self.queue();
            queue.waiting.push_back((row, reply));
            let start = queue.running < MAX_STATEMENTS;
            queue.running += usize::from(start);
            start
        };
        if start {
            // Its own task: a caller that goes away must not strand the others.
            let group = self.clone();
            tokio::spawn(async move { group.drain().await });
        }
        answer.await.ok().flatten()
    }

    /// Runs statements until nothing waits.
    async fn drain(&self) {
        loop {
            let batch = {
                let mut queue = self.queue();
                if queue.waiting.is_empty() {
                    queue.running -= 1;
                    return;
                }
                take_batch(&mut queue.waiting)
            };
            self.write(batch).await;
        }
    }

    async fn write(&self, batch: Vec<(IfCurrent, oneshot::Sender<Written>)>) {
        let (rows, replies): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
        let written = async {
            let mut lane = self.lanes.take().await?;
            let written = insert_all_if_current(&mut *lane, &rows).await?;
            // One statement, committed: nothing is pending on the connection.
            lane.finish();
            Ok::<_, CoreError>(written)
        }
        .await;
        let mut outcomes = match written {
            Ok(outcomes) => outcomes.into_iter().map(Some).collect(),
            Err(error) => {
                // Nothing of the statement was written: each response takes the locked
                // path, which meets the same error (and answers it) if it lasts.
                tracing::debug!(%error, "one-statement create failed; taking the locked path");
                Vec::new()
            }
        }
        .into_iter();
        for (row, reply) in rows.into_iter().zip(replies) {
            let _ = reply.send(
                outcomes
                    .next()
                    .flatten()
                    .map(|current| (row.response, current)),
            );
        }
    }
}

/// The oldest waiting responses, up to `MAX_ROWS`, one per form (a statement locks and
/// advances each of its forms once; a form's later response waits for the next).
fn take_batch<T>(waiting: &mut VecDeque<(IfCurrent, T)>) -> Vec<(IfCurrent, T)> {
    let mut batch: Vec<(IfCurrent, T)> = Vec::new();
    let mut later = VecDeque::new();
    while batch.len() < MAX_ROWS
        && let Some(item) = waiting.pop_front()
    {
        let form_id = item.0.response.form_id;
        if batch.iter().any(|(row, _)| row.response.form_id == form_id) {
            later.push_back(item);
        } else {
            batch.push(item);
        }
    }
    // Those put off keep their place ahead of the rest.
    later.append(waiting);
    *waiting = later;
    batch
}
