//! The database: connecting, migrating, and the embedded default cluster.

pub mod database;
pub(crate) mod decode;
pub mod embedded;
pub mod lanes;
mod nodelay;
pub(crate) mod reachable;
pub mod replicas;
pub(crate) mod shared;
mod store;

pub use database::{Database, DatabaseError};
pub use replicas::Replicas;
pub use store::ping;

use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use std::str::FromStr;
use std::time::Duration;

/// The migrations of `migrations/`, embedded in the binary.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Longest wait for a pooled connection before a request is answered unavailable, by
/// default (`--db-acquire-timeout`).
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// A pooled connection idle this long is checked with a round trip before it is handed
/// out; one used more recently is known to be alive.
const TRUST_IDLE: Duration = Duration::from_secs(10);

/// Opens a pool on `url` whose requests wait at most `acquire_timeout` for a connection.
pub async fn connect(
    url: &str,
    max_connections: u32,
    acquire_timeout: Duration,
) -> Result<PgPool, sqlx::Error> {
    pool_options(url, max_connections, acquire_timeout)?
        .connect(url)
        .await
}

/// The settings of every pool of the service (the primary's, the replicas'): see
/// [`connect`].
fn pool_options(
    url: &str,
    max_connections: u32,
    acquire_timeout: Duration,
) -> Result<PgPoolOptions, sqlx::Error> {
    let port = PgConnectOptions::from_str(url)?.get_port();
    Ok(PgPoolOptions::new()
        .max_connections(max_connections)
        // When PostgreSQL is unreachable, requests fail with 503 rather than queueing
        // for long: a few seconds cover a busy pool, not an outage (and once readiness
        // sees the outage, requests are refused at once: `gate::Gate::call`).
        .acquire_timeout(acquire_timeout)
        // sqlx pings every connection it hands out by default: a round trip per
        // query, doubling a one-statement request's work. Only a connection left idle
        // for a while is checked; a dead one found in use fails its request with 503
        // (an I/O error) and is dropped, and its successors are fresh.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= TRUST_IDLE {
                    sqlx::Connection::ping(conn).await?;
                }
                Ok(true)
            })
        })
        // Each new connection's socket without Nagle's delay (`nodelay`: sqlx 0.9.0
        // leaves it on).
        .after_connect(move |_, _| {
            Box::pin(async move {
                nodelay::set_on_peers_at(port);
                Ok(())
            })
        })
        // Connections are renewed now and then (a failover, a server's memory).
        .max_lifetime(Duration::from_secs(30 * 60)))
}

/// Brings the schema up to date (forward only; concurrent instances serialize on
/// sqlx's advisory lock).
pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    MIGRATOR.run(pool).await
}
