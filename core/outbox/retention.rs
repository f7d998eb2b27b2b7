//! Nothing kept longer than it is needed: settled deliveries and notifications, with
//! their attempts, are purged after the retention period (`--delivery-retention`), and
//! a subscription retired with its form once no pending delivery needs its secret.
//! Pending messages are kept whatever their age: they are still owed.

use super::store;
use crate::error::CoreError;
use sqlx::PgPool;
use std::future::Future;
use std::time::Duration;

/// Rows deleted per statement by the purge: bounded transactions and lock times.
const PURGE_BATCH: i64 = 5000;

/// What one purge removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Purged {
    pub deliveries: u64,
    pub notifications: u64,
    pub retired_webhooks: u64,
}

/// Purges what is settled and older than `retention`, in batches.
pub(crate) async fn purge(pool: &PgPool, retention: Duration) -> Result<Purged, CoreError> {
    Ok(Purged {
        deliveries: in_batches(|n| store::purge_settled_deliveries(pool, retention, n)).await?,
        notifications: in_batches(|n| store::purge_settled_notifications(pool, retention, n))
            .await?,
        retired_webhooks: store::purge_retired_webhooks(pool).await?,
    })
}

/// Runs `batch` until one deletes less than a whole batch; returns the rows deleted.
async fn in_batches<F, Fut>(mut batch: F) -> Result<u64, CoreError>
where
    F: FnMut(i64) -> Fut,
    Fut: Future<Output = Result<u64, CoreError>>,
{
    let mut deleted = 0;
    loop {
        let n = batch(PURGE_BATCH).await?;
        deleted += n;
        if n < PURGE_BATCH.unsigned_abs() {
            return Ok(deleted);
        }
    }
}
