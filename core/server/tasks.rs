//! The instance's background tasks, started by the process beside the routes: webhook
//! delivery, owner notifications, readiness, the file sweep, usage accounting and the
//! housekeeping round.

use super::{Core, NotificationsError};
use crate::db;
use crate::error::CoreError;
use crate::notifications::smtp::Mailer;
use crate::notifications::worker::Notifier;
use crate::outbox::Carrier;
use crate::outbox::bell::Bell;
use crate::outbox::worker::Worker;
use crate::webhooks::delivery::Deliverer;
use std::time::Duration;

impl Core {
    /// The webhook delivery workers of this instance; they stop when `stop` turns true,
    /// after finishing the attempts in flight.
    pub fn spawn_delivery(
        &self,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> Result<tokio::task::JoinHandle<()>, CoreError> {
        if self.config.delivery.allow_private {
            tracing::warn!(
                "WEBHOOK SAFETY OFF: deliveries may target http:// and private, loopback and link-local addresses (--webhook-allow-private); never use this in production"
            );
        }
        let config = &self.config.delivery;
        let worker = Worker::new(
            self.pool.clone(),
            Deliverer::new(config)?,
            Deliverer::limits(config),
            &config.retry_schedule,
            self.deliveries.clone(),
        );
        Ok(tokio::spawn(worker.run(stop)))
    }

    /// The notification workers of this instance, when SMTP is configured; they stop
    /// when `stop` turns true, after finishing the mails in flight. Without SMTP, warns
    /// if forms have notifications on (they are stored and not sent).
    pub async fn spawn_notifications(
        &self,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> Result<Option<tokio::task::JoinHandle<()>>, NotificationsError> {
        let Some(settings) = &self.config.smtp else {
            let forms = crate::notifications::store::forms_with_notifications(&self.pool).await?;
            if forms > 0 {
                tracing::warn!(
                    forms,
                    "forms have notifications_enabled but no --smtp-url is configured: no notification is sent"
                );
            }
            return Ok(None);
        };
        let mailer = Mailer::new(settings)?;
        tracing::info!(smtp = ?settings, "owner notifications on");
        let delivery = &self.config.delivery;
        let worker = Worker::new(
            self.pool.clone(),
            Notifier::new(mailer),
            Notifier::limits(delivery.poll_interval),
            &delivery.retry_schedule,
            // Mail is enqueued in transactions that NOTIFY: nothing rings this bell.
            Bell::new(self.pool.clone(), Notifier::KIND.channel),
        );
        Ok(Some(tokio::spawn(worker.run(stop))))
    }

    /// Follows the database for readiness: the overall health status ("") is SERVING
    /// while the database answers, within the pool's acquire deadline, that it takes
    /// writes, NOT_SERVING otherwise (at once when it refuses connections), so load
    /// balancers and `GET /readyz` stop sending work quickly; the gate refuses API calls
    /// at once meanwhile. Checked every second, every 250 ms while the database is away
    /// so that its return is seen quickly, and at once when a request lost its
    /// connection.
    pub fn spawn_readiness(&self) -> tokio::task::JoinHandle<()> {
        let pool = self.pool.clone();
        let reporter = self.health.clone();
        let reachable = self.gate.reachable().clone();
        tokio::spawn(async move {
            loop {
                reachable.next_probe().await;
                // A server that answers but takes no writes (a standby, during a
                // failover) cannot serve either.
                let probe = db::reachable::probe_pool(&pool).await;
                let serving = probe == db::reachable::Probe::Writable;
                if reachable.set(probe) {
                    let status = if serving {
                        tracing::info!("database reachable and taking writes again: ready");
                        tonic_health::ServingStatus::Serving
                    } else {
                        tracing::warn!("database unreachable or taking no writes: not ready");
                        tonic_health::ServingStatus::NotServing
                    };
                    reporter.set_service_status("", status).await;
                }
            }
        })
    }

    /// Sweeps files staged for submissions that were never stored, as often as their
    /// grace period (at least once a minute).
    pub fn spawn_file_sweep(&self) -> tokio::task::JoinHandle<()> {
        let pool = self.pool.clone();
        let files = self.file_store.clone();
        let every = self
            .config
            .staged_file_grace
            .clamp(Duration::from_millis(100), Duration::from_secs(60));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tick.tick().await;
                // A sweep takes a batch: go on while batches remove something.
                loop {
                    match files.sweep(&pool).await {
                        Ok(0) => break,
                        Ok(n) => {
                            tracing::info!(removed = n, "swept staged files no response claimed");
                        }
                        Err(error) => {
                            tracing::warn!(%error, "sweeping staged files");
                            break;
                        }
                    }
                }
            }
        })
    }

    /// The gate's background work: following key changes for the key cache, and writing
    /// usage counts every second. Stop them with [`Core::finish_accounting`].
    pub fn spawn_accounting(&self) -> Vec<tokio::task::JoinHandle<()>> {
        vec![
            self.gate.keys().spawn_listener(self.pool.clone()),
            self.gate.tally().spawn_flusher(self.pool.clone()),
        ]
    }

    /// Writes the usage counts still pending; called once requests have stopped, before
    /// the pool closes, so that a clean stop loses no count.
    pub async fn finish_accounting(&self) {
        if let Err(error) = self.gate.tally().flush(&self.pool).await {
            tracing::error!(%error, "usage counts of the last second could not be written");
        }
    }

    /// Housekeeping that runs for the life of the process.
    pub fn spawn_maintenance(&self) -> tokio::task::JoinHandle<()> {
        let guard = self.gate.guard();
        let leases = self.gate.leases().clone();
        let hosted = self.hosted.clone();
        let sign_in = self.sign_in.clone();
        let pool = self.pool.clone();
        let config = self.config.clone();
        let files = self.file_store.clone();
        let rollups = self.pool.clone();
        tokio::spawn(async move {
            // Summaries add up the responses since the last rollup: keep that short.
            let mut tick = tokio::time::interval(crate::responses::rollup::EVERY);
            loop {
                tick.tick().await;
                match crate::responses::rollup::round(&rollups).await {
                    Ok(0) => {}
                    Ok(n) => tracing::debug!(counted = n, "responses tallied for summaries"),
                    Err(error) => tracing::warn!(%error, "tallying responses for summaries"),
                }
            }
        });
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                guard.retain_recent();
                leases.retain_current();
                hosted.retain_recent();
                sign_in.retain_recent();
                crate::housekeeping::purge_round(&pool, &config, &files).await;
            }
        })
    }
}
