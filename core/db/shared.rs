//! One read shared by the requests that wait for the same row together.
//!
//! Many clients reading one form at once would each run the same SELECT. Here a read
//! of a key runs alone; requests for the key that arrive while it runs wait, and the
//! next read, sent once the first ends, answers all of them. A request is answered only
//! by a read sent after it arrived, so it sees every write committed before it came:
//! sharing never makes an answer older than a read of its own would be. With no other
//! request for the key in flight, a read runs at once, as it would without this.
//!
//! A read that fails answers only its own request; the others that waited on it read
//! on their own. A leader that goes away half way (its client left) hands its turn on,
//! so nobody waits for a read that will never end.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::oneshot;

/// What a waiting request is told.
enum Turn<V> {
    /// The value read for it (and the others of its turn).
    Value(V),
    /// Its turn to read for the requests that wait now.
    Lead,
}

/// The requests waiting for the next read of a key.
type Turns<V> = VecDeque<oneshot::Sender<Turn<V>>>;

/// The requests waiting for the next read of each key being read (a key is present
/// while a read of it runs).
pub(crate) struct Shared<K, V> {
    waiting: Arc<Mutex<HashMap<K, Turns<V>>>>,
}

impl<K, V> Clone for Shared<K, V> {
    fn clone(&self) -> Self {
        Self {
            waiting: self.waiting.clone(),
        }
    }
}

impl<K, V> Default for Shared<K, V> {
    fn default() -> Self {
        Self {
            waiting: Arc::default(),
        }
    }
}

impl<K: Hash + Eq + Clone, V: Clone> Shared<K, V> {
    fn waiting(&self) -> MutexGuard<'_, HashMap<K, Turns<V>>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The value of `key` as `read` finds it, read by this request or by the one that
    /// leads its turn.
    pub(crate) async fn read<F, Fut, E>(&self, key: K, read: F) -> Result<V, E>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<V, E>>,
    {
        let turn = {
            let mut waiting = self.waiting();
            match waiting.entry(key.clone()) {
                Entry::Occupied(mut entry) => {
                    let (tell, told) = oneshot::channel();
                    entry.get_mut().push_back(tell);
                    Some(told)
                }
                Entry::Vacant(entry) => {
                    entry.insert(VecDeque::new());
                    None
                }
            }
        };
        if let Some(told) = turn {
            let mut waiting = Waiting {
                shared: self,
                key: key.clone(),
                told,
                #[cfg(test)]
                on_release: None,
            };
            match (&mut waiting.told).await {
                Ok(Turn::Value(value)) => return Ok(value),
                Ok(Turn::Lead) => {}
                // The read of its turn failed or its leader went away: read alone.
                Err(_) => return read().await,
            }
        }
        // This request leads: the requests waiting now arrived before its read is sent,
        // and share it.
        let turn = self.waiting().get_mut(&key).map(std::mem::take);
        let lead = Lead { shared: self, key };
        let value = read().await?;
        for tell in turn.into_iter().flatten() {
            let _ = tell.send(Turn::Value(value.clone()));
        }
        drop(lead);
        Ok(value)
    }

    /// Passes the turn of `key` to the oldest request waiting for it, or ends the key's
    /// reads when none waits.
    fn hand_on(&self, key: &K) {
        let mut waiting = self.waiting();
        let Some(queue) = waiting.get_mut(key) else {
            return;
        };
        // A request that went away cannot lead; the next one can.
        while let Some(tell) = queue.pop_front() {
            if tell.send(Turn::Lead).is_ok() {
                return;
            }
        }
        waiting.remove(key);
    }
}

/// A read being led; dropped (its read ended, or its request went away), it hands the
/// key's turn on. The requests of its turn not yet told get a closed channel, and read
/// on their own.
struct Lead<'a, K: Hash + Eq + Clone, V: Clone> {
    shared: &'a Shared<K, V>,
    key: K,
}

impl<K: Hash + Eq + Clone, V: Clone> Drop for Lead<'_, K, V> {
    fn drop(&mut self) {
        self.shared.hand_on(&self.key);
    }
}

/// A request waiting for its turn. Dropped with the turn to lead in its channel (its
/// request went away just as it was told), it hands the turn on. The channel is closed
/// before it is looked at: a turn handed on after that finds it closed and goes to the
/// next request, so no turn is sent into a channel that nobody will read.
struct Waiting<'a, K: Hash + Eq + Clone, V: Clone> {
    shared: &'a Shared<K, V>,
    key: K,
    told: oneshot::Receiver<Turn<V>>,
    /// Runs in `drop` after the turn was looked at and before the channel goes: the
    /// moment at which a leader handing the turn on races the drop.
    #[cfg(test)]
    on_release: Option<Box<dyn FnOnce() + Send + 'a>>,
}

impl<K: Hash + Eq + Clone, V: Clone> Drop for Waiting<'_, K, V> {
    fn drop(&mut self) {
        self.told.close();
        if let Ok(Turn::Lead) = self.told.try_recv() {
            self.shared.hand_on(&self.key);
        }
        #[cfg(test)]
        if let Some(race) = self.on_release.take() {
            race();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Shared, Turn, Waiting};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;
    use tokio::sync::Semaphore;

    /// Reads that count themselves and wait for a permit: the n-th read answers n.
    #[derive(Clone)]
    struct Reads {
        sent: Arc<AtomicU32>,
        permits: Arc<Semaphore>,
    }

    impl Reads {
        fn new() -> Self {
            Self {
                sent: Arc::default(),
                permits: Arc::new(Semaphore::new(0)),
            }
        }

        async fn read(&self) -> Result<u32, &'static str> {
            let n = self.sent.fetch_add(1, Ordering::SeqCst) + 1;
            self.permits.acquire().await.map_err(|_| "closed")?.forget();
            Ok(n)
        }

        fn sent(&self) -> u32 {
            self.sent.load(Ordering::SeqCst)
        }
    }

    /// A request for key 1 on its own task.
    fn spawn_read(
        shared: &Shared<u8, u32>,
        reads: &Reads,
    ) -> tokio::task::JoinHandle<Result<u32, &'static str>> {
        let (shared, reads) = (shared.clone(), reads.clone());
        tokio::spawn(async move { shared.read(1, || reads.read()).await })
    }

    /// Waits (up to a generous deadline) until `holds` is true of the tasks spawned so
    /// far: tests assert on what they waited for, never on a pause.
    async fn until(holds: impl Fn() -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !holds() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "condition never held"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// How many requests wait for the next read of key 1.
    fn queued(shared: &Shared<u8, u32>) -> Option<usize> {
        shared.waiting().get(&1).map(|queue| queue.len())
    }

    #[tokio::test]
    async fn requests_arriving_during_a_read_share_the_next_one() {
        let shared = Shared::<u8, u32>::default();
        let reads = Reads::new();
        let first = spawn_read(&shared, &reads);
        until(|| reads.sent() == 1).await;
        let later: Vec<_> = (0..5).map(|_| spawn_read(&shared, &reads)).collect();
        until(|| queued(&shared) == Some(5)).await;
        // Only the first read is sent while it runs; the later requests wait for it.
        assert_eq!(reads.sent(), 1);
        reads.permits.add_permits(1);
        assert_eq!(first.await.ok(), Some(Ok(1)));
        // One more read answers all five, and none of them got the read sent before it.
        until(|| reads.sent() == 2).await;
        assert_eq!(queued(&shared), Some(0), "all five share the second read");
        reads.permits.add_permits(1);
        for request in later {
            assert_eq!(request.await.ok(), Some(Ok(2)));
        }
        // Nothing in flight: the next request reads at once, and other keys never wait.
        reads.permits.add_permits(2);
        assert_eq!(shared.read(1, || reads.read()).await, Ok(3));
        assert_eq!(shared.read(2, || reads.read()).await, Ok(4));
        assert!(shared.waiting().is_empty());
    }

    #[tokio::test]
    async fn a_leader_that_goes_away_hands_its_turn_on() {
        let shared = Shared::<u8, u32>::default();
        let reads = Reads::new();
        let first = spawn_read(&shared, &reads);
        until(|| reads.sent() == 1).await;
        let second = spawn_read(&shared, &reads);
        until(|| queued(&shared) == Some(1)).await;
        // The first request's client goes away in the middle of its read: the waiting
        // request leads the next read.
        first.abort();
        until(|| reads.sent() == 2).await;
        reads.permits.add_permits(1);
        let second = tokio::time::timeout(Duration::from_secs(5), second).await;
        assert_eq!(second.ok().and_then(Result::ok), Some(Ok(2)));
        assert!(shared.waiting().is_empty());
    }

    #[tokio::test]
    async fn a_failed_read_answers_only_its_own_request() {
        let shared = Shared::<u8, u32>::default();
        let reads = Reads::new();
        let failing = tokio::spawn({
            let shared = shared.clone();
            let permits = reads.permits.clone();
            async move {
                shared
                    .read(1, || async {
                        let _ = permits.acquire().await.map(|p| p.forget());
                        Err::<u32, _>("refused")
                    })
                    .await
            }
        });
        until(|| queued(&shared) == Some(0)).await;
        let waiting = spawn_read(&shared, &reads);
        until(|| queued(&shared) == Some(1)).await;
        reads.permits.add_permits(2);
        assert_eq!(failing.await.ok(), Some(Err("refused")));
        assert_eq!(waiting.await.ok(), Some(Ok(1)), "read on its own");
        assert!(shared.waiting().is_empty());
    }

    /// A request that leaves just as the leader hands it the turn passes the turn on:
    /// the key is never left with waiters and no leader (every later read of it would
    /// wait for ever).
    #[tokio::test]
    async fn a_waiter_dropped_while_handed_the_turn_passes_it_on() {
        let shared = Shared::<u8, u32>::default();
        // A leader reads key 1; `leaving` and then `next` wait for it.
        shared.waiting().insert(1, Default::default());
        let (tell_leaving, told_leaving) = tokio::sync::oneshot::channel::<Turn<u32>>();
        let (tell_next, mut told_next) = tokio::sync::oneshot::channel::<Turn<u32>>();
        if let Some(queue) = shared.waiting().get_mut(&1) {
            queue.push_back(tell_leaving);
            queue.push_back(tell_next);
        }
        // `leaving` goes away; the leader ends its read at that very moment and hands
        // the turn on, after the drop looked at its channel.
        let leaving = Waiting {
            shared: &shared,
            key: 1,
            told: told_leaving,
            on_release: Some(Box::new(|| shared.hand_on(&1))),
        };
        drop(leaving);
        assert!(
            matches!(told_next.try_recv(), Ok(Turn::Lead)),
            "the turn reached the next request"
        );
        // `next` leads now and ends: nothing is left behind.
        shared.hand_on(&1);
        assert!(shared.waiting().is_empty());
    }
}
