//! The shared statement across forms: batches judged on the instance's view of their
//! forms (`snapshot`), stored together. A few statements run at a time; what arrives
//! meanwhile waits, and the next statement stores all of it: one round trip and one
//! commit for many forms' responses, where a statement each would cost the database a
//! commit each.

use super::drain::{self, Drain};
use super::submission::failed_together;
use crate::db::lanes::Lanes;
use crate::error::CoreError;
use crate::outbox::bell::Bell;
use crate::responses::Response;
use crate::responses::store::{Current, IfCurrent, insert_all_if_current};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::oneshot;

/// Responses a statement takes at most (unless one form's alone are more).
const MAX_ROWS: usize = 256;

/// Statements running at once: one can be on the wire while the database runs
/// another.
const MAX_STATEMENTS: usize = 2;

/// How a form's batch given to the statement ended.
#[derive(Debug)]
pub(super) enum Written {
    /// The statement ran: the responses given back, with how the form's ended.
    Ran(Vec<Response>, Current),
    /// Nothing was written (the statement was refused, or never sent): take the
    /// locked path, where what failed is met again and answered alone.
    Nothing,
    /// The connection failed on the way: whether the statement committed is not known,
    /// so nothing is written again; each submission gets the error.
    Unknown(CoreError),
}

type Reply = oneshot::Sender<Written>;

#[derive(Default)]
struct Queue {
    waiting: VecDeque<(IfCurrent, Reply)>,
    running: usize,
}

/// The batches of this instance waiting for the shared statement.
#[derive(Clone)]
pub(super) struct Statements {
    queue: Arc<Mutex<Queue>>,
    lanes: Lanes,
    /// Rung when a statement wrote deliveries.
    deliveries: Bell,
}

impl Statements {
    pub(super) fn new(lanes: Lanes, deliveries: Bell) -> Self {
        Self {
            queue: Arc::default(),
            lanes,
            deliveries,
        }
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Queue {
    /// Shows how many forms' batches wait for a statement (a backlog that grows says
    /// the database is the bound).
    fn report(&self) {
        metrics::gauge!("formsd_one_statement_waiting").set(self.waiting.len() as f64);
    }
}

impl Statements {
    /// Stores `form`'s responses with the others waiting; gives them back with how
    /// they ended.
    pub(super) async fn store(&self, form: IfCurrent) -> Written {
        let (reply, answer) = oneshot::channel();
        let start = {
            let mut queue = self.queue();
            queue.waiting.push_back((form, reply));
            queue.report();
            let start = queue.running < MAX_STATEMENTS;
            queue.running += usize::from(start);
            start
        };
        if start {
            drain::spawn(self.clone());
        }
        // The statement's task stopped before it answered (a panic): take the locked
        // path, as when nothing was sent.
        answer.await.unwrap_or(Written::Nothing)
    }

    async fn write(&self, batch: Vec<(IfCurrent, Reply)>) {
        let (forms, replies): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
        // No connection: nothing was sent. The locked path meets the same (and answers it).
        let Ok(mut lane) = self.lanes.take().await else {
            return;
        };
        let mut outcomes: Vec<Result<Current, CoreError>> =
            match insert_all_if_current(&mut *lane, &forms).await {
                Ok(written) => {
                    // One statement, committed: nothing is pending on the connection.
                    lane.finish();
                    metrics::counter!("formsd_one_statement_writes_total").increment(1);
                    if written.deliveries > 0 {
                        self.deliveries.ring();
                    }
                    written.forms.into_iter().map(Ok).collect()
                }
                // The server refused the statement, which wrote nothing: each form takes the
                // locked path.
                Err(CoreError::UnstorableText | CoreError::Database(sqlx::Error::Database(_))) => {
                    Vec::new()
                }
                // The connection failed on the way: each request gets the error.
                Err(error) => failed_together(error, forms.len()),
            };
        outcomes.truncate(forms.len());
        let mut outcomes = outcomes.into_iter();
        for (form, reply) in forms.into_iter().zip(replies) {
            let written = match outcomes.next() {
                Some(Ok(current)) => Written::Ran(form.responses, current),
                Some(Err(error)) => Written::Unknown(error),
                None => Written::Nothing,
            };
            let _ = reply.send(written);
        }
    }
}

impl Drain for Statements {
    type Batch = Vec<(IfCurrent, Reply)>;

    fn next(&self) -> Option<Self::Batch> {
        let mut queue = self.queue();
        if queue.waiting.is_empty() {
            queue.running -= 1;
            return None;
        }
        let batch = take_batch(&mut queue.waiting);
        queue.report();
        Some(batch)
    }

    async fn run(&self, batch: Self::Batch) {
        self.write(batch).await;
    }

    fn abandoned(&self) -> bool {
        let mut queue = self.queue();
        let waits = !queue.waiting.is_empty();
        queue.running -= usize::from(!waits);
        waits
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::responses::store::{Quota, Versions};
    use chrono::Utc;
    use uuid::Uuid;

    /// A form's batch of `n` responses (their content does not matter here).
    fn form(form_id: Uuid, n: usize) -> IfCurrent {
        let response = || Response {
            id: Uuid::new_v4(),
            form_id,
            answers: Default::default(),
            metadata: Default::default(),
            device_type: None,
            browser: None,
            os: None,
            started_at: Utc::now(),
            submitted_at: Utc::now(),
            completion_time_seconds: None,
            partial_page: None,
            language: None,
        };
        IfCurrent {
            form_id,
            versions: Versions {
                form: "1".into(),
                account: "1".into(),
            },
            count: 0,
            newest: None,
            quota: Quota {
                account_id: Uuid::new_v4(),
                month: Utc::now().date_naive(),
                limit: None,
            },
            responses: (0..n).map(|_| response()).collect(),
            has_webhooks: false,
            events: Vec::new(),
        }
    }

    fn ids(batch: &[(IfCurrent, usize)]) -> Vec<usize> {
        batch.iter().map(|(_, tag)| *tag).collect()
    }

    #[test]
    fn a_statement_takes_each_form_once_up_to_its_rows() {
        let (a, b, c) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        // Tagged in arrival order: a form's second batch waits for the next statement
        // and keeps its place ahead of the others that did not fit.
        let mut waiting: VecDeque<(IfCurrent, usize)> = [
            (form(a, 10), 0),
            (form(a, 10), 1),
            (form(b, 100), 2),
            (form(c, MAX_ROWS - 110), 3),
            (form(b, 1), 4),
        ]
        .into_iter()
        .collect();
        let first = take_batch(&mut waiting);
        assert_eq!(ids(&first), [0, 2, 3]);
        let rows: usize = first.iter().map(|(f, _)| f.responses.len()).sum();
        assert_eq!(rows, MAX_ROWS);
        assert_eq!(waiting.iter().map(|(_, t)| *t).collect::<Vec<_>>(), [1, 4]);
        assert_eq!(ids(&take_batch(&mut waiting)), [1, 4]);
        assert!(waiting.is_empty());
    }

    #[test]
    fn a_form_larger_than_a_statement_takes_one_alone() {
        let mut waiting: VecDeque<(IfCurrent, usize)> = [
            (form(Uuid::new_v4(), 1), 0),
            (form(Uuid::new_v4(), MAX_ROWS + 1), 1),
            (form(Uuid::new_v4(), 1), 2),
        ]
        .into_iter()
        .collect();
        assert_eq!(ids(&take_batch(&mut waiting)), [0]);
        assert_eq!(ids(&take_batch(&mut waiting)), [1]);
        assert_eq!(ids(&take_batch(&mut waiting)), [2]);
    }
}
