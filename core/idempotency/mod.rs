//! Idempotency of creates (SPEC Idempotency), inside the transaction of the create.
//!
//! The record is inserted first, as a claim, in the same transaction that creates the
//! object and stores the reply: a crash can not leave one without the other. A second
//! request with the same key blocks on that claim (the unique index) until the first
//! commits, then replays its reply; if the first rolls back, the second proceeds as a
//! fresh request. Only successful creates are remembered: a request that failed
//! created nothing and may be retried with the same key.

pub(crate) mod store;

use crate::error::CoreError;
use sha2::{Digest, Sha256};
use sqlx::{Postgres, Transaction};
use std::time::Duration;
use uuid::Uuid;

/// Longest accepted Idempotency-Key.
pub(crate) const MAX_KEY_LEN: usize = 255;

/// What the caller should do after claiming a key.
pub(crate) enum Claim {
    /// The key is new (or expired): run the operation, then [`finish`].
    Fresh,
    /// The key was used for this same request: answer with this encoded reply.
    Replay(Vec<u8>),
}

/// Fingerprint of a request: the operation and the encoded message.
pub(crate) fn fingerprint(operation: &str, encoded_request: &[u8]) -> Vec<u8> {
    let mut hasher = Sha256::new();
    hasher.update(operation.as_bytes());
    hasher.update([0]);
    hasher.update(encoded_request);
    hasher.finalize().to_vec()
}

/// Claims `key` for this request within `tx`.
pub(crate) async fn claim(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    key: &str,
    operation: &str,
    request_hash: &[u8],
    ttl: Duration,
) -> Result<Claim, CoreError> {
    if key.len() > MAX_KEY_LEN || key.chars().any(char::is_control) {
        return Err(CoreError::validation(
            "Idempotency-Key must be at most 255 printable characters",
        ));
    }
    store::delete_expired(tx, account_id, key, ttl).await?;
    if store::insert_claim(tx, account_id, key, operation, request_hash).await? {
        return Ok(Claim::Fresh);
    }
    let stored = store::get(tx, account_id, key).await?;
    if stored.operation != operation || stored.request_hash != request_hash {
        return Err(CoreError::validation(
            "this Idempotency-Key was already used with a different request",
        ));
    }
    stored
        .reply
        .map(Claim::Replay)
        .ok_or_else(|| CoreError::Internal("idempotency record without a reply".into()))
}

/// Stores the reply of a fresh request, in the transaction that created the object.
pub(crate) async fn finish(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    key: &str,
    reply: &[u8],
) -> Result<(), CoreError> {
    store::set_reply(tx, account_id, key, reply).await
}

/// Deletes records older than `ttl`; returns how many.
pub(crate) async fn purge(pool: &sqlx::PgPool, ttl: Duration) -> Result<u64, CoreError> {
    store::purge(pool, ttl).await
}

/// Starts an idempotent create in `tx`: without a key, nothing to do (`None`); with a
/// key, either the stored reply to replay or `None` after claiming the key.
pub(crate) async fn start<R: prost::Message + Default>(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    key: Option<&str>,
    operation: &str,
    request: &impl prost::Message,
    ttl: Duration,
) -> Result<Option<R>, CoreError> {
    let Some(key) = key else {
        return Ok(None);
    };
    let hash = fingerprint(operation, &request.encode_to_vec());
    match claim(tx, account_id, key, operation, &hash, ttl).await? {
        Claim::Fresh => Ok(None),
        Claim::Replay(bytes) => R::decode(bytes.as_slice())
            .map(Some)
            .map_err(|e| CoreError::Internal(format!("stored idempotent reply: {e}"))),
    }
}

/// Ends an idempotent create: stores `reply` under the claimed key, if any.
pub(crate) async fn end(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    key: Option<&str>,
    reply: &impl prost::Message,
) -> Result<(), CoreError> {
    match key {
        Some(key) => finish(tx, account_id, key, &reply.encode_to_vec()).await,
        None => Ok(()),
    }
}
