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
