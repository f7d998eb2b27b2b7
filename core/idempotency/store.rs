//! SQL of idempotency records.

use crate::error::CoreError;
use sqlx::{PgPool, Postgres, Transaction};
use std::time::Duration;
use uuid::Uuid;

/// A stored record: what it was for and the reply, once the create committed.
pub(crate) struct Record {
    pub operation: String,
    pub request_hash: Vec<u8>,
    pub reply: Option<Vec<u8>>,
}

/// Deletes the account's record of `key` if it is older than `ttl`: an expired record
/// no longer counts.
pub(crate) async fn delete_expired(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    key: &str,
    ttl: Duration,
) -> Result<(), CoreError> {
    sqlx::query!(
        "DELETE FROM idempotency_keys
          WHERE account_id = $1 AND key = $2 AND created_at < now() - make_interval(secs => $3)",
        account_id,
        key,
        ttl.as_secs_f64()
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Inserts the claim of `key`; false when the account already has a record of it
/// (after waiting for the transaction that holds it, if any).
pub(crate) async fn insert_claim(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    key: &str,
    operation: &str,
    request_hash: &[u8],
) -> Result<bool, CoreError> {
    let claimed = sqlx::query!(
        "INSERT INTO idempotency_keys (account_id, key, operation, request_hash)
         VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, key) DO NOTHING",
        account_id,
        key,
        operation,
        request_hash
    )
    .execute(&mut **tx)
    .await?
    .rows_affected();
    Ok(claimed == 1)
}

/// The account's record of `key`.
pub(crate) async fn get(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    key: &str,
) -> Result<Record, CoreError> {
    Ok(sqlx::query_as!(
        Record,
        "SELECT operation, request_hash, reply FROM idempotency_keys
          WHERE account_id = $1 AND key = $2",
        account_id,
        key
    )
    .fetch_one(&mut **tx)
    .await?)
}

/// Stores the reply of the claimed `key`.
pub(crate) async fn set_reply(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    key: &str,
    reply: &[u8],
) -> Result<(), CoreError> {
    sqlx::query!(
        "UPDATE idempotency_keys SET reply = $3 WHERE account_id = $1 AND key = $2",
        account_id,
        key,
        reply
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Deletes records older than `ttl`; returns how many.
pub(crate) async fn purge(pool: &PgPool, ttl: Duration) -> Result<u64, CoreError> {
    Ok(sqlx::query!(
        "DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1)",
        ttl.as_secs_f64()
    )
    .execute(pool)
    .await?
    .rows_affected())
}
