//! Responses judged on the instance's view of their forms (`current`), stored together
//! across forms. A few statements run at a time; what arrives meanwhile waits, and the
//! next statement stores all of it: one round trip and one commit for many forms'
//! responses, where a statement each would cost the database a commit each.

use super::Response;
use super::store::{Current, IfCurrent, insert_all_if_current};
use crate::db::lanes::Lanes;
use crate::error::CoreError;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::oneshot;

/// Responses a statement takes at most (unless one form's alone are more).
const MAX_ROWS: usize = 256;

/// Statements running at once: one can be on the wire while the database runs
/// another.
const MAX_STATEMENTS: usize = 2;

/// The responses given back with how their form's ended; `None`: the statement failed
/// and wrote nothing (take the locked path).
type Written = Option<(Vec<Response>, Current)>;

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

    /// Stores `form`'s responses with the others waiting; gives them back with how
    /// they ended. `None`: nothing was written (the statement failed).
    pub async fn store(&self, form: IfCurrent) -> Written {
        let (reply, answer) = oneshot::channel();
        let start = {
            let mut queue = self.queue();
            queue.waiting.push_back((form, reply));
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
        let (forms, replies): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
        let written = async {
            let mut lane = self.lanes.take().await?;
            let written = insert_all_if_current(&mut *lane, &forms).await?;
            // One statement, committed: nothing is pending on the connection.
            lane.finish();
            metrics::counter!("formsd_one_statement_writes_total").increment(1);
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
        for (form, reply) in forms.into_iter().zip(replies) {
            let written = outcomes.next().flatten();
            let _ = reply.send(written.map(|current| (form.responses, current)));
        }
    }
}

/// The oldest waiting forms' responses, up to `MAX_ROWS` (or one form's), one entry per
/// form (a statement locks and advances each of its forms once; a form's later entry
/// waits for the next).
fn take_batch<T>(waiting: &mut VecDeque<(IfCurrent, T)>) -> Vec<(IfCurrent, T)> {
    let mut batch: Vec<(IfCurrent, T)> = Vec::new();
    let mut later = VecDeque::new();
    let mut rows = 0;
    while let Some(item) = waiting.pop_front() {
        let form_id = item.0.form_id;
        let size = item.0.responses.len();
        if !batch.is_empty() && rows + size > MAX_ROWS {
            waiting.push_front(item);
            break;
        }
        if batch.iter().any(|(form, _)| form.form_id == form_id) {
            later.push_back(item);
        } else {
            rows += size;
            batch.push(item);
        }
    }
    // Those put off keep their place ahead of the rest.
    later.append(waiting);
    *waiting = later;
    batch
}
