//! The database: connecting, migrating, and the embedded default cluster.

pub mod database;
pub mod decode;
pub mod embedded;
mod store;

pub use database::{Database, DatabaseError};
pub use store::ping;

use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;
use std::time::Duration;

/// The migrations of `migrations/`, embedded in the binary.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Longest wait for a pooled connection before a request is answered unavailable.
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// Opens a pool on `url`.
pub async fn connect(url: &str, max_connections: u32) -> Result<PgPool, sqlx::Error> {
    PgPoolOptions::new()
        .max_connections(max_connections)
        // When PostgreSQL is unreachable, requests fail fast with 503 rather than
        // queueing for long: a few seconds cover a busy pool, not an outage.
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect(url)
        .await
}

/// Brings the schema up to date (forward only; concurrent instances serialize on
/// sqlx's advisory lock).
pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    MIGRATOR.run(pool).await
}
