//! Secrets shared by every instance on one database, created on first use.

pub(crate) mod store;

use crate::error::CoreError;
use rand::RngCore;
use sqlx::PgPool;

/// The secret named `name`, created (32 random bytes) if it does not exist yet.
/// Concurrent first starts agree on one value.
pub(crate) async fn get_or_create(pool: &PgPool, name: &str) -> Result<Vec<u8>, CoreError> {
    let mut fresh = vec![0u8; 32];
    rand::rng().fill_bytes(&mut fresh);
    store::insert_or_get(pool, name, &fresh).await
}
