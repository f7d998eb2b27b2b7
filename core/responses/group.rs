//! Responses judged on the instance's view of their forms (`current`), stored together
//! across forms. A few statements run at a time; what arrives meanwhile waits, and the
//! next statement stores all of it: one round trip and one commit for many forms'
//! responses, where a statement each would cost the database a commit each.

use super::Response;
use super::batch::failed_together;
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

/// The responses given back with how their form's ended, or the error that leaves it
/// open whether they were stored (the connection failed); `None`: nothing was written
/// (take the locked path).
type Written = Option<Result<(Vec<Response>, Current), CoreError>>;

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
        let mut running = Running {
            group: self,
            stopped: false,
        };
        loop {
            let batch = {
                let mut queue = self.queue();
                if queue.waiting.is_empty() {
                    // Under the lock that a new entry takes to see it: none is left behind.
                    queue.running -= 1;
                    running.stopped = true;
                    return;
                }
                take_batch(&mut queue.waiting)
            };
            self.write(batch).await;
        }
    }

    async fn write(&self, batch: Vec<(IfCurrent, oneshot::Sender<Written>)>) {
        let (forms, replies): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
        // No connection: nothing was sent. The locked path meets the same (and answers it).
        let Ok(mut lane) = self.lanes.take().await else {
            return;
        };
        let mut outcomes: Vec<Option<Result<Current, CoreError>>> =
            match insert_all_if_current(&mut *lane, &forms).await {
                Ok(outcomes) => {
                    // One statement, committed: nothing is pending on the connection.
                    lane.finish();
                    metrics::counter!("formsd_one_statement_writes_total").increment(1);
                    outcomes
                        .into_iter()
                        .map(|current| Some(Ok(current)))
                        .collect()
                }
                // The server refused the statement, which wrote nothing: each form takes the
                // locked path, where what failed is met again and answered alone.
                Err(CoreError::UnstorableText | CoreError::Database(sqlx::Error::Database(_))) => {
                    Vec::new()
                }
                // The connection failed on the way: whether the statement committed is not
                // known, so none of it is written again. Each request gets the error.
                Err(error) => failed_together::<()>(error, forms.len())
                    .into_iter()
                    .map(|failed| failed.err().map(Err))
                    .collect(),
            };
        outcomes.resize_with(forms.len(), || None);
        for ((form, reply), written) in forms.into_iter().zip(replies).zip(outcomes) {
            let written = written.map(|outcome| outcome.map(|current| (form.responses, current)));
            let _ = reply.send(written);
        }
    }
}

/// A running drain task. Dropped before it stopped (a panic), it gives its place back,
/// and starts another task for what still waits: nothing is stranded.
struct Running<'a> {
    group: &'a Group,
    stopped: bool,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if self.stopped {
            return;
        }
        let restart = {
            let mut queue = self.group.queue();
            let restart = !queue.waiting.is_empty();
            queue.running -= usize::from(!restart);
            restart
        };
        if restart {
            let group = self.group.clone();
            tokio::spawn(async move { group.drain().await });
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
