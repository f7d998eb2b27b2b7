//! The worker of one kind of message in one instance: claims due messages with a lease,
//! sends each in its own task, records the attempt and settles it on the retry
//! schedule. It wakes on NOTIFY from the kind's enqueue, on a finished attempt, and on a
//! poll tick as a fallback. Slots are shared fairly: one account holds at most its
//! share (`Limits::per_account`), so a tenant whose receivers are slow cannot starve the
//! others, and free slots go first to the accounts holding the fewest.

use super::bell::Bell;
use super::{Attempt, Carrier, Claim, DeliveryStatus, Message, schedule};
use crate::error::CoreError;
use crate::slots::Slots;
use chrono::Utc;
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

/// The workers of kind `C` in one instance.
#[derive(Clone)]
pub(crate) struct Worker<C> {
    pool: PgPool,
    carrier: C,
    limits: super::Limits,
    /// Waits before each retry.
    schedule: Arc<[Duration]>,
    /// Rung by this instance's enqueues that send no NOTIFY of their own.
    bell: Bell,
}

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
        }
    }

    /// Runs until `stop` turns true; then finishes the attempts in flight.
    pub(crate) async fn run(self, mut stop: watch::Receiver<bool>) {
        let permits = Arc::new(Semaphore::new(self.limits.concurrency));
        let slots = Slots::default();
        let mut in_flight = JoinSet::new();
        let mut listener = self.listen().await;
        loop {
            if *stop.borrow() {
                break;
            }
            while in_flight.try_join_next().is_some() {}
            let free = permits.available_permits();
            let claimed = if free > 0 {
                self.claim(free, &slots).await.unwrap_or_else(|error| {
                    tracing::warn!(%error, "claiming {}s", C::KIND.name);
                    Vec::new()
                })
            } else {
                Vec::new()
            };
            let full_batch = free > 0 && claimed.len() == free;
            for message in claimed {
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    break;
                };
                // Taken before the next claim reads the counts: the claim never offers
                // an account more than its free share.
                let slot = slots.take(message.account_id());
                let worker = self.clone();
                in_flight.spawn(async move {
                    worker.attempt(message).await;
                    drop(slot);
                    drop(permit);
                });
            }
            if full_batch {
                continue;
            }
            // Wait for a notification, a finished attempt (a free permit, and a free
            // share for its account: a claim that stopped short because accounts were
            // at their cap is tried again then), the poll tick or stop.
            let poll_interval = self.limits.poll_interval;
            tokio::select! {
                _ = stop.changed() => {}
                _ = tokio::time::sleep(poll_interval) => {}
                _ = self.bell.rung() => {}
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
        // timeouts) and record their outcome; nothing new is claimed.
        while in_flight.join_next().await.is_some() {}
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

    async fn attempt(&self, message: C::Message) {
        let attempted_at = Utc::now();
        let started = Instant::now();
        let Some(sent) = self.carrier.send(&self.pool, &message).await else {
            return;
        };
        let settled = schedule::settle(
            &self.schedule,
            message.attempts().saturating_add(1),
            message.max_retries(),
            sent.result.is_ok(),
            sent.permanent,
        );
        let duration = started.elapsed();
        let attempt = Attempt {
            attempted_at,
            duration,
            sent: &sent,
            settled,
        };
        if let Err(error) = self.carrier.record(&self.pool, &message, attempt).await {
            // The lease expires and the message is attempted again: at least once.
            tracing::error!(id = %message.id(), %error, "recording a {} attempt", C::KIND.name);
            return;
        }
        let kind = &C::KIND;
        metrics::counter!(kind.attempts_metric, "outcome" => settled.status.as_str()).increment(1);
        if let Some(histogram) = kind.duration_metric {
            metrics::histogram!(histogram).record(duration.as_secs_f64());
        }
        let (id, attempts, error) = (message.id(), settled.attempts, sent.result.err());
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
}
