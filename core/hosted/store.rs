//! SQL of the hosted pages: the spent proof-of-work solutions (`pow`).

use super::pow::Proof;
use crate::error::CoreError;
use crate::error::ProofOfWorkRefusal as Refusal;
use sqlx::PgPool;

/// Spends a verified solution: `Spent` if it was spent before (by any instance).
pub(crate) async fn spend(pool: &PgPool, proof: &Proof) -> Result<(), CoreError> {
    let inserted = sqlx::query!(
        "INSERT INTO pow_spent (digest, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        &proof.digest[..],
        proof.expires_at
    )
    .execute(pool)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Err(CoreError::ProofOfWork(Refusal::Spent));
    }
    Ok(())
}

/// Forgets spent challenges that have expired (they are refused on their expiry).
pub(crate) async fn purge(pool: &PgPool) -> Result<u64, CoreError> {
    Ok(
        sqlx::query!("DELETE FROM pow_spent WHERE expires_at < now()")
            .execute(pool)
            .await?
            .rows_affected(),
    )
}

/// The answers of response `response_id` to form `form_id` (to fill the recalls of
/// its confirmation and score it), if it is stored.
pub(crate) async fn answers(
    pool: &PgPool,
    form_id: uuid::Uuid,
    response_id: uuid::Uuid,
) -> Result<Option<serde_json::Map<String, serde_json::Value>>, CoreError> {
    let row = sqlx::query_scalar!(
        "SELECT answers FROM responses WHERE id = $1 AND form_id = $2",
        response_id,
        form_id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.and_then(|answers| match answers {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }))
}
