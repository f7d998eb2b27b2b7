//! The purges the housekeeping job runs at an instance's start and then every minute
//! (`Core::spawn_maintenance`): ended sessions, spent challenges, expired idempotency
//! keys and usage flush ids, settled deliveries, partial responses and audit entries
//! past their retention, and the responses of forms past theirs. Each logs what it
//! removed; a failure is logged and the round goes on.

use crate::config::CoreConfig;
use crate::files::store::FileStore;
use sqlx::PgPool;

/// One round of every purge.
pub(crate) async fn purge_round(pool: &PgPool, config: &CoreConfig, files: &FileStore) {
    match crate::dashboard::store::purge(pool).await {
        Ok(0) => {}
        Ok(n) => tracing::debug!(
            purged = n,
            "ended dashboard sessions, links and invitations"
        ),
        Err(error) => tracing::warn!(%error, "purging dashboard sessions"),
    }
    match crate::hosted::store::purge(pool).await {
        Ok(0) => {}
        Ok(n) => tracing::debug!(purged = n, "expired proof-of-work challenges"),
        Err(error) => tracing::warn!(%error, "purging spent proof-of-work challenges"),
    }
    match crate::idempotency::purge(pool, config.idempotency_ttl).await {
        Ok(0) => {}
        Ok(n) => tracing::debug!(purged = n, "expired idempotency keys"),
        Err(error) => tracing::warn!(%error, "purging idempotency keys"),
    }
    match crate::usage::store::purge_flushes(pool, crate::usage::tally::FLUSH_IDS_KEPT).await {
        Ok(0) => {}
        Ok(n) => tracing::debug!(purged = n, "usage flush ids"),
        Err(error) => tracing::warn!(%error, "purging usage flush ids"),
    }
    match crate::outbox::retention::purge(pool, config.delivery_retention).await {
        Ok(purged) if purged == Default::default() => {}
        Ok(purged) => tracing::info!(?purged, "purged settled deliveries"),
        Err(error) => tracing::warn!(%error, "purging settled deliveries"),
    }
    match crate::responses::store::partial::purge(pool, config.partial_retention).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(purged = n, "partial responses past retention"),
        Err(error) => tracing::warn!(%error, "purging partial responses"),
    }
    match crate::audit::retention::purge(pool, config.audit_retention).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(purged = n, "audit entries past retention"),
        Err(error) => tracing::warn!(%error, "purging audit entries"),
    }
    // Last, so that its line (always logged) ends the round.
    match crate::rights::retention::purge(pool, files).await {
        Ok(None) => tracing::debug!("form retention left to the instance applying it"),
        Ok(Some(purged)) if purged.responses + purged.partials > 0 => tracing::info!(
            forms = purged.forms,
            responses = purged.responses,
            partials = purged.partials,
            "form retention applied"
        ),
        Ok(Some(purged)) => tracing::debug!(
            forms = purged.forms,
            responses = purged.responses,
            partials = purged.partials,
            "form retention applied"
        ),
        Err(error) => tracing::warn!(%error, "applying form retention"),
    }
}
