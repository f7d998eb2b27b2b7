//! Delivery workers: claim due deliveries with a lease (`FOR UPDATE SKIP LOCKED`, so
//! several instances never claim the same one), POST them signed, record every
//! attempt, and schedule retries. They wake on NOTIFY from the outbox and poll as a
//! fallback. A crash leaves leases that expire, and the deliveries become due again:
//! delivery is at least once. Slots are shared fairly: one account holds at most
//! `concurrency_per_account` of them, so a tenant whose receivers are slow cannot
//! starve the others.

use super::outbox::CHANNEL;
use super::slots::Slots;
use super::store::{self, Due};
use super::target::{self, PublicResolver};
use super::{DeliveryStatus, signing};
use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

/// Longest response body kept with an attempt.
const MAX_RECORDED_BODY: usize = 1024;

/// Settings of the delivery workers.
#[derive(Debug, Clone)]
pub struct DeliveryConfig {
    /// Allow http:// and non-public targets (development and tests only).
    pub allow_private: bool,
    /// Time a receiver has to answer (SPEC: 10 s).
    pub timeout: Duration,
    /// Wait before each retry (SPEC: 30 s, 5 min, 30 min).
    pub retry_schedule: Vec<Duration>,
    /// Deliveries in flight at once per instance.
    pub concurrency: usize,
    /// Deliveries of one account in flight at once per instance (at least 1).
    pub concurrency_per_account: usize,
    /// Fallback polling interval when no notification arrives.
    pub poll_interval: Duration,
}

/// What one attempt came to.
struct Outcome {
    status_code: Option<i32>,
    error: Option<String>,
    body: String,
    duration: Duration,
}

impl Outcome {
    fn succeeded(&self) -> bool {
        self.error.is_none() && self.status_code.is_some_and(|c| (200..300).contains(&c))
    }
}

/// The worker pool of one instance.
#[derive(Clone)]
pub struct Deliverer {
    pool: PgPool,
    client: reqwest::Client,
    config: Arc<DeliveryConfig>,
}

impl Deliverer {
    pub fn new(pool: PgPool, config: DeliveryConfig) -> Result<Self, CoreError> {
        // reqwest is built without a default TLS provider: use ring (a no-op when the
        // process already installed one).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.timeout)
            .no_proxy()
            .user_agent(concat!("formsd-webhooks/", env!("CARGO_PKG_VERSION")));
        if !config.allow_private {
            builder = builder.dns_resolver(PublicResolver);
        }
        let client = builder
            .build()
            .map_err(|e| CoreError::Internal(format!("webhook HTTP client: {e}")))?;
        Ok(Self {
            pool,
            client,
            config: Arc::new(config),
        })
    }

    /// Lease of a claimed delivery: longer than any attempt can take.
    fn lease(&self) -> Duration {
        self.config.timeout + Duration::from_secs(30)
    }

    /// Runs until `stop` turns true; then finishes the attempts in flight.
    pub async fn run(self, mut stop: watch::Receiver<bool>) {
        let permits = Arc::new(Semaphore::new(self.config.concurrency));
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
                match self.claim(free, &slots).await {
                    Ok(claimed) => claimed,
                    Err(error) => {
                        tracing::warn!(%error, "claiming webhook deliveries");
                        Vec::new()
                    }
                }
            } else {
                Vec::new()
            };
            let full_batch = free > 0 && claimed.len() == free;
            for due in claimed {
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    break;
                };
                // Taken before the next claim reads the counts: the claim never offers
                // an account more than its free share.
                let slot = slots.take(due.account_id);
                let worker = self.clone();
                in_flight.spawn(async move {
                    worker.attempt(due).await;
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
            let poll = tokio::time::sleep(self.config.poll_interval);
            let poll_interval = self.config.poll_interval;
            tokio::select! {
                _ = stop.changed() => {}
                _ = poll => {}
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
        // Graceful stop: attempts in flight finish (each is bounded by the timeout) and
        // record their outcome; nothing new is claimed.
        while in_flight.join_next().await.is_some() {}
    }

    async fn listen(&self) -> Option<PgListener> {
        let mut listener = match PgListener::connect_with(&self.pool).await {
            Ok(l) => l,
            Err(error) => {
                tracing::warn!(%error, "LISTEN unavailable; polling for deliveries");
                return None;
            }
        };
        match listener.listen(CHANNEL).await {
            Ok(()) => Some(listener),
            Err(error) => {
                tracing::warn!(%error, "LISTEN unavailable; polling for deliveries");
                None
            }
        }
    }

    async fn claim(&self, limit: usize, slots: &Slots) -> Result<Vec<Due>, CoreError> {
        let (busy_accounts, busy_counts) = slots.busy();
        let claim = store::Claim {
            limit: i64::try_from(limit).unwrap_or(i64::MAX),
            // A cap of 0 would never deliver anything: one slot at least.
            per_account: i64::try_from(self.config.concurrency_per_account.max(1))
                .unwrap_or(i64::MAX),
            busy_accounts: &busy_accounts,
            busy_counts: &busy_counts,
            lease: self.lease(),
        };
        store::claim_due(&self.pool, claim).await
    }

    async fn attempt(&self, due: Due) {
        let attempted_at = Utc::now();
        let outcome = self.send(&due).await;
        if let Err(error) = self.record(&due, attempted_at, &outcome).await {
            // The lease expires and the delivery is attempted again: at least once.
            tracing::error!(delivery_id = %due.id, %error, "recording a webhook attempt");
        }
    }

    async fn send(&self, due: &Due) -> Outcome {
        let started = Instant::now();
        let failed = |error: String| Outcome {
            status_code: None,
            error: Some(error),
            body: String::new(),
            duration: started.elapsed(),
        };
        let url = match reqwest::Url::parse(&due.url) {
            Ok(url) => url,
            Err(e) => return failed(format!("invalid url: {e}")),
        };
        if let Err(refused) = target::check_literal_host(&url, self.config.allow_private) {
            return failed(refused);
        }
        let Some(secret) = due.secret.as_deref() else {
            return failed("the subscription was deleted: nothing to sign with".to_owned());
        };
        let id = due.id.to_string();
        let event_time = crate::pb::convert::rfc3339(due.created_at);
        let now = Utc::now().timestamp();
        let request = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .header("x-webhook-event", &due.event)
            .header("x-webhook-timestamp", &event_time)
            .header(
                "x-webhook-signature",
                signing::spec_signature(secret, &due.payload),
            )
            .header("x-webhook-delivery", &id)
            .header("webhook-id", &id)
            .header("webhook-timestamp", now.to_string())
            .header(
                "webhook-signature",
                signing::standard_signature(secret, &id, now, &due.payload),
            )
            .body(due.payload.clone());
        match request.send().await {
            Err(e) => failed(describe(&e)),
            Ok(response) => {
                let status = response.status();
                let body = recorded_start(response).await;
                Outcome {
                    status_code: Some(i32::from(status.as_u16())),
                    error: (!status.is_success()).then(|| format!("receiver answered {status}")),
                    body,
                    duration: started.elapsed(),
                }
            }
        }
    }

    async fn record(
        &self,
        due: &Due,
        attempted_at: DateTime<Utc>,
        outcome: &Outcome,
    ) -> Result<(), CoreError> {
        let attempts = due.attempts + 1;
        // The n-th failure schedules retry n (SPEC: 30 s after the initial failure, ...).
        let retry_index = usize::try_from(attempts - 1).unwrap_or(usize::MAX);
        let retry_in = (attempts <= due.max_retries)
            .then(|| self.config.retry_schedule.get(retry_index).copied())
            .flatten();
        let (status, next) = if outcome.succeeded() {
            (DeliveryStatus::Succeeded, None)
        } else if let Some(wait) = retry_in {
            (DeliveryStatus::Pending, Some(wait))
        } else {
            (DeliveryStatus::Failed, None)
        };
        let attempt = store::Attempt {
            attempted_at,
            status_code: outcome.status_code,
            duration_ms: i64::try_from(outcome.duration.as_millis()).unwrap_or(i64::MAX),
            error: outcome.error.as_deref(),
            response_body: &outcome.body,
        };
        store::record_attempt(&self.pool, due.id, attempt, status, attempts, next).await?;
        metrics::counter!("formsd_webhook_attempts_total", "outcome" => status.as_str())
            .increment(1);
        metrics::histogram!("formsd_webhook_attempt_duration_seconds")
            .record(outcome.duration.as_secs_f64());
        match status {
            DeliveryStatus::Succeeded => {
                tracing::debug!(delivery_id = %due.id, event = due.event, "webhook delivered")
            }
            DeliveryStatus::Failed => {
                tracing::warn!(delivery_id = %due.id, event = due.event, attempts, "webhook delivery failed for good")
            }
            DeliveryStatus::Pending => {
                tracing::info!(delivery_id = %due.id, event = due.event, attempts, error = outcome.error.as_deref(), "webhook attempt failed; will retry")
            }
        }
        Ok(())
    }
}

/// A transport error without the URL (which may carry a path token) or other noise.
/// The start of a receiver's answer, as much as is recorded: read chunk by chunk and
/// no further, so a receiver answering gigabytes costs no more than one that does not.
async fn recorded_start(mut response: reqwest::Response) -> String {
    let mut kept = Vec::with_capacity(MAX_RECORDED_BODY);
    while kept.len() < MAX_RECORDED_BODY {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = MAX_RECORDED_BODY - kept.len();
                kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            // The end, or the receiver stopped answering: what came is what is kept.
            Ok(None) | Err(_) => break,
        }
    }
    // Cut at a character boundary: the recorded text stays valid UTF-8.
    let mut text = String::from_utf8_lossy(&kept).into_owned();
    while text.len() > MAX_RECORDED_BODY {
        text.pop();
    }
    text
}

fn describe(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else if e.is_redirect() {
        "redirect refused"
    } else {
        "request failed"
    };
    let mut cause = String::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        cause = s.to_string();
        source = s.source();
    }
    if cause.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind}: {cause}")
    }
}
