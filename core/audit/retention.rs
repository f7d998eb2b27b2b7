//! The trail is kept `--audit-retention` (a year by default): the purge loop cuts each
//! chain's entries older than that, oldest first, in bounded batches, and moves the
//! chain's base (`audit_heads.base_seq`, `base_hash`) to the last entry cut, so that
//! `formsd audit verify` checks what is left from there.

use super::store;
use crate::error::CoreError;
use sqlx::PgPool;
use std::time::Duration;

/// Entries cut per transaction: a chain's writers wait for one batch at most.
const PURGE_BATCH: i64 = 1000;

/// Purges entries older than `retention`; returns how many.
pub(crate) async fn purge(pool: &PgPool, retention: Duration) -> Result<u64, CoreError> {
    let age = chrono::Duration::from_std(retention)
        .map_err(|_| CoreError::Internal("audit retention out of range".into()))?;
    let cutoff = chrono::Utc::now() - age;
    let mut purged = 0;
    for chain in store::chains_older_than(pool, cutoff).await? {
        loop {
            let n = store::cut(pool, chain, cutoff, PURGE_BATCH).await?;
            purged += n;
            if n < PURGE_BATCH.unsigned_abs() {
                break;
            }
        }
    }
    Ok(purged)
}
