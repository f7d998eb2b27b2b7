//! The worker of one kind of message in one instance: claims due messages in batches
//! with a lease, sends each, and records the attempts in batches (`Recorder`), settling
//! each on the retry schedule. Messages of one sequence (a webhook's deliveries of one
//! event) are sent one at a time, in the order claimed, by one task that takes them
//! from its sequence's queue (`Runs`); a message of none gets a task of its own. It
//! wakes on NOTIFY from the kind's enqueue, on this instance's bell, on a sent
//! message, and on a poll tick as a fallback, and claims at the pace `pace` sets.
//! Slots are shared fairly: one account holds at most its share
//! (`Limits::per_account`), so a tenant whose receivers are slow cannot starve the
//! others, and free slots go first to the accounts holding the fewest.

use super::bell::Bell;
use super::{Attempt, Carrier, Claim, DeliveryStatus, Message, pace, schedule};
use crate::error::CoreError;
use crate::slots::{Slot, Slots};
use chrono::Utc;
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc, watch};
use tokio::task::JoinSet;
use uuid::Uuid;

/// Attempts recorded by one statement at most.
const RECORD_BATCH: usize = 512;

/// A claimed message, with the instance's permit and its account's slot, both held
/// until it is sent (its record may follow later: its lease keeps it from being claimed
/// again meanwhile).
struct Job<M> {
    message: M,
    _permit: OwnedSemaphorePermit,
    _slot: Slot,
}

type Sequence = (Uuid, String);

/// The sequences being sent, each with its messages still to send, in order. A
/// sequence is in the map exactly while one task sends it.
struct Runs<M> {
    queues: Mutex<HashMap<Sequence, VecDeque<Job<M>>>>,
}

impl<M> Runs<M> {
    fn queues(&self) -> MutexGuard<'_, HashMap<Sequence, VecDeque<Job<M>>>> {
        self.queues.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `job` behind its sequence; true when no task sends the sequence (the
    /// caller starts one).
    fn push(&self, sequence: Sequence, job: Job<M>) -> bool {
        let mut queues = self.queues();
        let start = !queues.contains_key(&sequence);
        queues.entry(sequence).or_default().push_back(job);
        start
    }

    /// The sequence's next message; `None` when none is left, and the sequence's task
    /// is then stopped (under the lock that `push` takes).
    fn next(&self, sequence: &Sequence) -> Option<Job<M>> {
        let mut queues = self.queues();
        let job = queues.get_mut(sequence).and_then(VecDeque::pop_front);
        if job.is_none() {
            queues.remove(sequence);
        }
        job
    }
}

/// A sequence's task; dropped before its queue was empty (a panic), it drops what
/// waits (their leases expire and they are claimed again, in order) so that the
/// sequence is never left marked running.
struct Running<'a, M> {
    runs: &'a Runs<M>,
    sequence: &'a Sequence,
    done: bool,
}

impl<M> Drop for Running<'_, M> {
    fn drop(&mut self) {
        if !self.done {
            self.runs.queues().remove(self.sequence);
        }
    }
}

/// The workers of kind `C` in one instance.
pub(crate) struct Worker<C: Carrier> {
    pool: PgPool,
    carrier: C,
    limits: super::Limits,
    /// Waits before each retry.
    schedule: Arc<[Duration]>,
    /// Rung by this instance's enqueues that send no NOTIFY of their own.
    bell: Bell,
    runs: Arc<Runs<C::Message>>,
    /// Told of each sent message: its permit is free for the next claim.
    sent: Arc<Notify>,
}

impl<C: Carrier> Clone for Worker<C> {
    fn clone(&self) -> Self {
        Self {
            pool: self.pool.clone(),
            carrier: self.carrier.clone(),
            limits: self.limits.clone(),
            schedule: self.schedule.clone(),
            bell: self.bell.clone(),
            runs: self.runs.clone(),
            sent: self.sent.clone(),
        }
    }
}

type Done<C> = Attempt<<C as Carrier>::Message, <C as Carrier>::Receipt>;

impl<C: Carrier> Worker<C> {
    pub(crate) fn new(
        pool: PgPool,
        carrier: C,
        limits: super::Limits,
        schedule: &[Duration],
        bell: Bell,
    ) -> Self {
        Self {
            pool,
            carrier,
            limits,
            schedule: schedule.into(),
            bell,
            runs: Arc::new(Runs {
                queues: Mutex::default(),
            }),
            sent: Arc::default(),
        }
    }

    /// Runs until `stop` turns true; then finishes the attempts in flight and records
    /// them.
    pub(crate) async fn run(self, mut stop: watch::Receiver<bool>) {
        let permits = Arc::new(Semaphore::new(self.limits.concurrency));
        let slots = Slots::default();
        let mut in_flight = JoinSet::new();
        let mut listener = self.listen().await;
        let (record, attempts) = mpsc::unbounded_channel();
        let recorder = tokio::spawn(self.clone().record(attempts));
        let mut last_claim: Option<Instant> = None;
        let mut more_due = false;
        let mut filled = false;
        loop {
            if *stop.borrow() {
                break;
            }
            while in_flight.try_join_next().is_some() {}
            let free = permits.available_permits();
            let mut wait = self.limits.poll_interval;
            let state = pace::State {
                free,
                concurrency: self.limits.concurrency,
                since: last_claim.map_or(pace::GAP, |at| at.elapsed()),
                more_due,
                filled,
            };
            let claimed = match pace::next(state) {
                pace::Next::Now => {
                    last_claim = Some(Instant::now());
                    let claimed = self.claim(free, &slots).await.unwrap_or_else(|error| {
                        tracing::warn!(%error, "claiming {}s", C::KIND.name);
                        Vec::new()
                    });
                    more_due = claimed.len() == free;
                    filled = self.fills_a_share(&claimed, &slots);
                    claimed
                }
                pace::Next::After(gap) => {
                    wait = wait.min(gap);
                    Vec::new()
                }
                pace::Next::Full => Vec::new(),
            };
            for message in claimed {
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    break;
                };
                // Taken before the next claim reads the counts: the claim never offers
                // an account more than its free share.
                let job = Job {
                    _slot: slots.take(message.account_id()),
                    _permit: permit,
                    message,
                };
                let sequence = job
                    .message
                    .sequence()
                    .map(|(id, name)| (id, name.to_owned()));
                let worker = self.clone();
                let record = record.clone();
                match sequence {
                    None => {
                        in_flight.spawn(async move { worker.send(job, &record).await });
                    }
                    Some(sequence) => {
                        if self.runs.push(sequence.clone(), job) {
                            in_flight.spawn(async move { worker.sequence(sequence, record).await });
                        }
                    }
                }
            }
            // Wait for a notification, the bell, a sent message (a free permit, and a
            // free share for its account: a claim that stopped short because accounts
            // were at their cap is tried again then), the claim's pace, the poll tick or
            // stop. After a claim that took all it asked for, every permit is taken: the
            // next sent message wakes it, and the pace claims again (`more_due`).
            let poll_interval = self.limits.poll_interval;
            tokio::select! {
                _ = stop.changed() => {}
                _ = tokio::time::sleep(wait) => {}
                _ = self.bell.rung() => {}
                _ = self.sent.notified() => {}
                Some(_) = in_flight.join_next(), if !in_flight.is_empty() => {}
                _ = async {
                    match listener.as_mut() {
                        Some(l) => {
                            // On a lost connection sqlx reconnects on the next call;
                            // pause so a database outage is not a busy loop.
                            if l.recv().await.is_err() {
                                tokio::time::sleep(poll_interval).await;
                            }
                        }
                        None => std::future::pending::<()>().await,
                    }
                } => {}
            }
        }
        // Graceful stop: attempts in flight finish (each is bounded by its kind's
        // timeouts) and their outcomes are recorded; nothing new is claimed.
        while in_flight.join_next().await.is_some() {}
        drop(record);
        let _ = recorder.await;
    }

    async fn listen(&self) -> Option<PgListener> {
        let listener = async {
            let mut listener = PgListener::connect_with(&self.pool).await?;
            listener.listen(C::KIND.channel).await?;
            Ok::<_, sqlx::Error>(listener)
        };
        match listener.await {
            Ok(listener) => Some(listener),
            Err(error) => {
                tracing::warn!(%error, "LISTEN unavailable; polling for {}s", C::KIND.name);
                None
            }
        }
    }

    /// Whether `claimed` gives an account all of its share, with the slots it holds
    /// already (read before the claimed messages take theirs).
    fn fills_a_share(&self, claimed: &[C::Message], slots: &Slots) -> bool {
        let share = self.limits.per_account.max(1);
        let (accounts, counts) = slots.busy();
        let mut held: HashMap<Uuid, usize> = accounts
            .into_iter()
            .zip(
                counts
                    .into_iter()
                    .map(|n| usize::try_from(n).unwrap_or(share)),
            )
            .collect();
        claimed.iter().any(|message| {
            let n = held.entry(message.account_id()).or_default();
            *n += 1;
            *n >= share
        })
    }

    async fn claim(&self, limit: usize, slots: &Slots) -> Result<Vec<C::Message>, CoreError> {
        let (busy_accounts, busy_counts) = slots.busy();
        let claim = Claim {
            limit: i64::try_from(limit).unwrap_or(i64::MAX),
            // A cap of 0 would never send anything: one slot at least.
            per_account: i64::try_from(self.limits.per_account.max(1)).unwrap_or(i64::MAX),
            busy_accounts: &busy_accounts,
            busy_counts: &busy_counts,
            lease: self.limits.lease,
        };
        self.carrier.claim(&self.pool, claim).await
    }

    /// Sends the messages of `sequence` one at a time, in order, until none is left.
    async fn sequence(&self, sequence: Sequence, record: mpsc::UnboundedSender<Done<C>>) {
        let mut running = Running {
            runs: &self.runs,
            sequence: &sequence,
            done: false,
        };
        while let Some(job) = self.runs.next(&sequence) {
            self.send(job, &record).await;
        }
        running.done = true;
    }

    /// Sends one message, frees its permit and slot, and hands the attempt to the
    /// recorder.
    async fn send(&self, job: Job<C::Message>, record: &mpsc::UnboundedSender<Done<C>>) {
        let Job {
            message,
            _permit,
            _slot,
        } = job;
        let attempted_at = Utc::now();
        let started = Instant::now();
        let sent = self.carrier.send(&self.pool, &message).await;
        drop((_permit, _slot));
        self.sent.notify_one();
        let Some(sent) = sent else {
            return;
        };
        let settled = schedule::settle(
            &self.schedule,
            message.attempts().saturating_add(1),
            message.max_retries(),
            sent.result.is_ok(),
            sent.permanent,
        );
        let attempt = Attempt {
            message,
            attempted_at,
            duration: started.elapsed(),
            sent,
            settled,
        };
        // The recorder is gone only once every sender is (it outlives the attempts).
        let _ = record.send(attempt);
    }

    /// Records finished attempts, as many at once as are waiting (up to
    /// `RECORD_BATCH`), a statement every `pace::GAP` at most, until every sender is
    /// gone.
    async fn record(self, mut finished: mpsc::UnboundedReceiver<Done<C>>) {
        let mut batch = Vec::with_capacity(RECORD_BATCH);
        while finished.recv_many(&mut batch, RECORD_BATCH).await > 0 {
            // Paced as claims are: a record statement costs much the same for a few
            // attempts as for many, so the next waits `GAP` and takes what finished
            // meanwhile (a message waits no longer to be sent; only its record does).
            let next = tokio::time::Instant::now() + pace::GAP;
            let kind = &C::KIND;
            if let Err(error) = self.carrier.record(&self.pool, &batch).await {
                // The leases expire and the messages are attempted again: at least once.
                tracing::error!(n = batch.len(), %error, "recording {} attempts", kind.name);
                batch.clear();
            }
            for attempt in batch.drain(..) {
                let settled = attempt.settled;
                metrics::counter!(kind.attempts_metric, "outcome" => settled.status.as_str())
                    .increment(1);
                if let Some(histogram) = kind.duration_metric {
                    metrics::histogram!(histogram).record(attempt.duration.as_secs_f64());
                }
                let (id, attempts, error) = (
                    attempt.message.id(),
                    settled.attempts,
                    attempt.sent.result.err(),
                );
                match settled.status {
                    DeliveryStatus::Succeeded => tracing::debug!(%id, "{} sent", kind.name),
                    DeliveryStatus::Failed => {
                        tracing::warn!(%id, attempts, error, "{} failed for good", kind.name)
                    }
                    DeliveryStatus::Pending => {
                        tracing::info!(%id, attempts, error, "{} attempt failed; will retry", kind.name)
                    }
                }
            }
            tokio::time::sleep_until(next).await;
        }
    }
}
