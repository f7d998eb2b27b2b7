//! The database: connecting, migrating, and the embedded default cluster.

pub mod database;
pub(crate) mod decode;
pub mod embedded;
pub mod lanes;
mod nodelay;
pub mod primary;
pub(crate) mod reachable;
pub mod replicas;
pub(crate) mod shared;
mod store;

pub use database::{Database, DatabaseError};
pub use replicas::Replicas;
pub use store::ping;

use primary::Primary;
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;
use std::sync::Arc;
use std::time::Duration;

/// The migrations of `migrations/`, embedded in the binary.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Longest wait for a pooled connection before a request is answered unavailable, by
/// default (`--db-acquire-timeout`).
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// A pooled connection idle this long is checked with a round trip before it is handed
/// out; one used more recently is known to be alive.
const TRUST_IDLE: Duration = Duration::from_secs(10);

/// Opens a pool on `url` whose requests wait at most `acquire_timeout` for a connection,
/// once a server that takes writes is found, which it waits for as long as
/// `start_timeout` allows (asking again with back-off). The URL may name several hosts
/// (`h1:5432,h2:5433`): the pool connects to the one that takes writes, and follows it
/// through a failover (`primary`).
pub async fn connect(
    url: &str,
    max_connections: u32,
    acquire_timeout: Duration,
    start_timeout: Duration,
) -> Result<PgPool, DatabaseError> {
    let primary = Arc::new(Primary::parse(url)?);
    primary.find_first(start_timeout).await?;
    let switched = primary.clone();
    let pool = pool_options(primary.ports(), max_connections, acquire_timeout)
        .before_acquire(move |conn, meta| {
            // A connection to the server the pool left in a failover is closed.
            let former = switched.opened_before_switch(meta.age);
            Box::pin(async move {
                if former {
                    return Ok(false);
                }
                if meta.idle_for >= TRUST_IDLE {
                    sqlx::Connection::ping(conn).await?;
                }
                Ok(true)
            })
        })
        .connect_with(primary.options())
        .await?;
    if primary.has_alternatives() {
        primary.spawn_follow(pool.clone());
    }
    Ok(pool)
}

/// The settings of every pool of the service (the primary's, the replicas'), on servers
/// at `ports`; each adds its own check of a connection before it is handed out.
fn pool_options(ports: Vec<u16>, max_connections: u32, acquire_timeout: Duration) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(max_connections)
        // When PostgreSQL is unreachable, requests fail with 503 rather than queueing
        // for long: a few seconds cover a busy pool, not an outage (and once readiness
        // sees the outage, requests are refused at once: `gate::Gate::call`).
        .acquire_timeout(acquire_timeout)
        // sqlx pings every connection it hands out by default: a round trip per
        // query, doubling a one-statement request's work. Only a connection left idle
        // for a while is checked (`before_acquire` of each pool); a dead one found in
        // use fails its request with 503 (an I/O error) and is dropped, and its
        // successors are fresh.
        .test_before_acquire(false)
        // Each new connection's socket without Nagle's delay (`nodelay`: sqlx 0.9.0
        // leaves it on).
        .after_connect(move |_, _| {
            nodelay::set_on_peers_at(&ports);
            Box::pin(async { Ok(()) })
        })
        // Connections are renewed now and then (a server's memory).
        .max_lifetime(Duration::from_secs(30 * 60))
}

/// Brings the schema up to date (forward only; concurrent instances serialize on
/// sqlx's advisory lock).
pub async fn migrate(pool: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    MIGRATOR.run(pool).await
}
