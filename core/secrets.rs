//! Secrets shared by every instance on one database, created on first use.

use crate::error::CoreError;
use rand::RngCore;
use sqlx::PgPool;

/// The secret named `name`, created (32 random bytes) if it does not exist yet.
/// Concurrent first starts agree on one value.
pub async fn get_or_create(pool: &PgPool, name: &str) -> Result<Vec<u8>, CoreError> {
    let mut fresh = vec![0u8; 32];
    rand::rng().fill_bytes(&mut fresh);
    sqlx::query(
        "INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
    )
    .bind(name)
    .bind(&fresh)
    .execute(pool)
    .await?;
    let (value,): (Vec<u8>,) = sqlx::query_as("SELECT value FROM service_secrets WHERE name = $1")
        .bind(name)
        .fetch_one(pool)
        .await?;
    Ok(value)
}
