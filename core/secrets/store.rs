//! SQL of service secrets.

use crate::error::CoreError;
use sqlx::PgPool;

/// Stores `value` under `name` unless a secret of that name exists; returns the stored
/// one (the first writer wins, so concurrent first starts agree).
pub(crate) async fn insert_or_get(
    pool: &PgPool,
    name: &str,
    value: &[u8],
) -> Result<Vec<u8>, CoreError> {
    sqlx::query!(
        "INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
        name,
        value
    )
    .execute(pool)
    .await?;
    Ok(
        sqlx::query_scalar!("SELECT value FROM service_secrets WHERE name = $1", name)
            .fetch_one(pool)
            .await?,
    )
}
