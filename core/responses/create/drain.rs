//! The task that empties a queue, for both queues of the create path (a form's
//! submissions, and the one-statement creates across forms). Whoever queues an entry
//! and finds no task running starts one (its own task: a caller that goes away must
//! not strand the others). The task takes batches until nothing waits, and marks
//! itself stopped under the lock that a new entry takes to see it, so no entry is left
//! behind. A task that ends early (a panic in a batch, or the runtime dropping it)
//! gives its place back and starts another for what still waits: a queue is never left
//! marked running with nothing to run it.

use std::future::Future;

/// A queue that a drain task empties.
pub(super) trait Drain: Clone + Send + Sync + 'static {
    type Batch: Send;

    /// The next batch; `None` when nothing waits, having marked this task stopped
    /// (under the queue's lock).
    fn next(&self) -> Option<Self::Batch>;

    /// Stores `batch` and answers each of its entries.
    fn run(&self, batch: Self::Batch) -> impl Future<Output = ()> + Send;

    /// This task ended before `next` stopped it: whether another is to take its place
    /// (something waits); if not, the task is marked stopped (under the queue's lock).
    fn abandoned(&self) -> bool;
}

/// Starts a task that runs `queue`'s batches until nothing waits.
pub(super) fn spawn<D: Drain>(queue: D) {
    tokio::spawn(drain(queue));
}

async fn drain<D: Drain>(queue: D) {
    let mut running = Running {
        queue: queue.clone(),
        stopped: false,
    };
    while let Some(batch) = queue.next() {
        queue.run(batch).await;
    }
    running.stopped = true;
}

/// A running drain task; dropped before it stopped, it hands its queue on.
struct Running<D: Drain> {
    queue: D,
    stopped: bool,
}

impl<D: Drain> Drop for Running<D> {
    fn drop(&mut self) {
        if !self.stopped && self.queue.abandoned() {
            spawn(self.queue.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;
    use tokio::sync::oneshot;

    /// Numbers waiting, each with its reply, and whether a task runs.
    type State = (Vec<(u32, oneshot::Sender<u32>)>, bool);

    /// A form's queue in miniature: numbers waiting, each answered with itself; the
    /// number `poison` panics while it is stored.
    #[derive(Clone)]
    struct Numbers {
        state: Arc<Mutex<State>>,
        poison: u32,
    }

    impl Numbers {
        async fn submit(&self, n: u32) -> Option<u32> {
            let (reply, answer) = oneshot::channel();
            let start = {
                let mut state = self.state.lock().expect("state");
                state.0.push((n, reply));
                !std::mem::replace(&mut state.1, true)
            };
            if start {
                spawn(self.clone());
            }
            answer.await.ok()
        }
    }

    impl Drain for Numbers {
        type Batch = Vec<(u32, oneshot::Sender<u32>)>;

        fn next(&self) -> Option<Self::Batch> {
            let mut state = self.state.lock().expect("state");
            if state.0.is_empty() {
                state.1 = false;
                return None;
            }
            // One at a time, so that the poisoned one is a batch of its own.
            Some(vec![state.0.remove(0)])
        }

        async fn run(&self, batch: Self::Batch) {
            tokio::task::yield_now().await;
            for (n, reply) in batch {
                assert!(n != self.poison, "a bug while storing {n}");
                let _ = reply.send(n);
            }
        }

        fn abandoned(&self) -> bool {
            let mut state = self.state.lock().expect("state");
            state.1 = !state.0.is_empty();
            state.1
        }
    }

    #[tokio::test]
    async fn a_panic_in_a_batch_does_not_wedge_the_queue() {
        let numbers = Numbers {
            state: Arc::default(),
            poison: 1,
        };
        let waiting: Vec<_> = (0..4)
            .map(|n| {
                let numbers = numbers.clone();
                tokio::spawn(async move { numbers.submit(n).await })
            })
            .collect();
        let mut answers = Vec::new();
        for submission in waiting {
            let answer = tokio::time::timeout(Duration::from_secs(30), submission)
                .await
                .expect("a submission waits for ever")
                .expect("submission task");
            answers.push(answer);
        }
        // The one that panicked gets no answer (its caller sees its batch stop); the
        // others are stored.
        answers.sort();
        assert_eq!(answers, [None, Some(0), Some(2), Some(3)]);
        // The queue is not left marked running: the next submission starts a task.
        let next = tokio::time::timeout(Duration::from_secs(30), numbers.submit(5)).await;
        assert_eq!(next.expect("the queue is wedged"), Some(5));
        let stopped = async {
            while numbers.state.lock().expect("state").1 {
                tokio::task::yield_now().await;
            }
        };
        tokio::time::timeout(Duration::from_secs(30), stopped)
            .await
            .expect("the task stops once nothing waits");
    }
}
