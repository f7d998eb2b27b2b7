//! Notification workers: claim due notifications with a lease, render each from its
//! response, send it through the relay, record the attempt, and schedule retries on the
//! webhooks' schedule. Woken by NOTIFY, polling as a fallback; a crash leaves leases
//! that expire, so a mail is sent at least once (and once in normal operation).

use super::mail;
use super::smtp::Mailer;
use super::store::{self, Due};
use crate::error::CoreError;
use crate::webhooks::{DeliveryStatus, MAX_RETRIES};
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

/// Mails in flight at once per instance. All go to one relay, the operator's: there
/// are no slow tenant receivers to share slots fairly between, and a relay is better
/// served by a few connections than by many.
const CONCURRENCY: usize = 4;

/// Longest an attempt may hold its lease: the relay's command timeout, a few commands.
const LEASE: Duration = Duration::from_secs(150);

/// The notification workers of one instance.
#[derive(Clone)]
pub struct Notifier {
    pool: PgPool,
    mailer: Mailer,
    retry_schedule: Arc<Vec<Duration>>,
    poll_interval: Duration,
}

/// What one attempt came to.
struct Outcome {
    recipient: Option<String>,
    result: Result<String, String>,
    /// A mail that can never be sent (its response is gone): no retry.
    permanent: bool,
}

impl Notifier {
    pub fn new(
        pool: PgPool,
        mailer: Mailer,
        retry_schedule: Vec<Duration>,
        poll_interval: Duration,
    ) -> Self {
        Self {
            pool,
            mailer,
            retry_schedule: Arc::new(retry_schedule),
            poll_interval,
        }
    }

    /// Runs until `stop` turns true; then finishes the attempts in flight.
    pub async fn run(self, mut stop: watch::Receiver<bool>) {
        let permits = Arc::new(Semaphore::new(CONCURRENCY));
        let mut in_flight = JoinSet::new();
        let mut listener = listen(&self.pool).await;
        loop {
            if *stop.borrow() {
                break;
            }
            while in_flight.try_join_next().is_some() {}
            let free = permits.available_permits();
            let claimed = if free > 0 {
                let limit = i64::try_from(free).unwrap_or(i64::MAX);
                store::claim_due(&self.pool, limit, LEASE)
                    .await
                    .unwrap_or_else(|error| {
                        tracing::warn!(%error, "claiming notifications");
                        Vec::new()
                    })
            } else {
                Vec::new()
            };
            let full_batch = free > 0 && claimed.len() == free;
            for due in claimed {
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    break;
                };
                let worker = self.clone();
                in_flight.spawn(async move {
                    worker.attempt(due).await;
                    drop(permit);
                });
            }
            if full_batch {
                continue;
            }
            let poll_interval = self.poll_interval;
            tokio::select! {
                _ = stop.changed() => {}
                _ = tokio::time::sleep(poll_interval) => {}
                Some(_) = in_flight.join_next(), if !in_flight.is_empty() => {}
                _ = async {
                    match listener.as_mut() {
                        Some(l) => {
                            // sqlx reconnects on the next call; pause so that a database
                            // outage is not a busy loop.
                            if l.recv().await.is_err() {
                                tokio::time::sleep(poll_interval).await;
                            }
                        }
                        None => std::future::pending::<()>().await,
                    }
                } => {}
            }
        }
        // Graceful stop: attempts in flight finish and are recorded; nothing new starts.
        while in_flight.join_next().await.is_some() {}
    }

    async fn attempt(&self, due: Due) {
        let attempted_at = Utc::now();
        let started = Instant::now();
        let outcome = match store::content(&self.pool, due.id).await {
            Ok(Some(content)) => self.send(content).await,
            Ok(None) => return,
            Err(error) => Outcome {
                recipient: None,
                result: Err(format!("reading the response: {error}")),
                permanent: false,
            },
        };
        if let Err(error) = self
            .record(&due, attempted_at, started.elapsed(), &outcome)
            .await
        {
            // The lease expires and the mail is tried again: at least once.
            tracing::error!(notification_id = %due.id, %error, "recording a notification attempt");
        }
    }

    async fn send(&self, content: store::Content) -> Outcome {
        let store::Content {
            email,
            response_id,
            title,
            fields,
            answers,
            submitted_at,
        } = content;
        let (Some(response_id), Some(title), Some(fields), Some(answers), Some(submitted_at)) =
            (response_id, title, fields, answers, submitted_at)
        else {
            // Deleted with its response or form: nothing of it may be sent any more.
            return Outcome {
                recipient: email,
                result: Err("the response was deleted before the mail was sent".into()),
                permanent: true,
            };
        };
        let Some(email) = email else {
            return Outcome {
                recipient: None,
                result: Err("the account has no email address".into()),
                permanent: false,
            };
        };
        let rendered = mail::render(&title, &fields.0, &answers.0, submitted_at, response_id);
        let result = self
            .mailer
            .send(&email, &rendered.subject, rendered.text, rendered.html)
            .await
            .map_err(|e| e.0);
        Outcome {
            recipient: Some(email),
            result,
            permanent: false,
        }
    }

    async fn record(
        &self,
        due: &Due,
        attempted_at: DateTime<Utc>,
        took: Duration,
        outcome: &Outcome,
    ) -> Result<(), CoreError> {
        let attempts = due.attempts + 1;
        // The n-th failure schedules retry n, as for webhooks.
        let retry_index = usize::try_from(attempts - 1).unwrap_or(usize::MAX);
        let retry_in = (attempts <= MAX_RETRIES && !outcome.permanent)
            .then(|| self.retry_schedule.get(retry_index).copied())
            .flatten();
        let (status, next) = match (&outcome.result, retry_in) {
            (Ok(_), _) => (DeliveryStatus::Succeeded, None),
            (Err(_), Some(wait)) => (DeliveryStatus::Pending, Some(wait)),
            (Err(_), None) => (DeliveryStatus::Failed, None),
        };
        let (error, reply) = match &outcome.result {
            Ok(reply) => (None, reply.as_str()),
            Err(error) => (Some(error.as_str()), ""),
        };
        let attempt = store::Attempt {
            attempted_at,
            duration_ms: i64::try_from(took.as_millis()).unwrap_or(i64::MAX),
            recipient: outcome.recipient.as_deref(),
            error,
            reply,
        };
        store::record_attempt(&self.pool, due.id, attempt, status, attempts, next).await?;
        metrics::counter!("formsd_notification_attempts_total", "outcome" => status.as_str())
            .increment(1);
        match status {
            DeliveryStatus::Succeeded => {
                tracing::debug!(notification_id = %due.id, "notification sent")
            }
            DeliveryStatus::Failed => {
                tracing::warn!(notification_id = %due.id, attempts, error, "notification failed for good")
            }
            DeliveryStatus::Pending => {
                tracing::info!(notification_id = %due.id, attempts, error, "notification attempt failed; will retry")
            }
        }
        Ok(())
    }
}

async fn listen(pool: &PgPool) -> Option<PgListener> {
    let mut listener = match PgListener::connect_with(pool).await {
        Ok(l) => l,
        Err(error) => {
            tracing::warn!(%error, "LISTEN unavailable; polling for notifications");
            return None;
        }
    };
    match listener.listen(super::CHANNEL).await {
        Ok(()) => Some(listener),
        Err(error) => {
            tracing::warn!(%error, "LISTEN unavailable; polling for notifications");
            None
        }
    }
}
