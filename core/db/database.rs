//! The database of a `formsd` process: the server named by a URL, or the embedded
//! cluster in the data directory (started here unless another `formsd` on the same
//! directory already runs it), migrated and pooled, with the read replicas it may use.

use super::embedded::{EmbeddedError, EmbeddedPostgres};
use super::replicas::Replicas;
use super::{connect, migrate, store};
use sqlx::PgPool;
use std::path::Path;
use std::time::Duration;

/// Failure to open the database.
#[derive(Debug, thiserror::Error)]
pub enum DatabaseError {
    #[error(transparent)]
    Embedded(#[from] EmbeddedError),
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
    #[error(transparent)]
    Primary(#[from] super::primary::PrimaryError),
    #[error("migrating the database: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// An open, migrated database; [`Database::close`] it on exit.
pub struct Database {
    pool: PgPool,
    replicas: Replicas,
    embedded: Option<EmbeddedPostgres>,
}

impl Database {
    /// Opens `url`, or without one the embedded cluster in `data_dir`, with a pool of
    /// `max_connections` whose requests wait at most `acquire_timeout` for one, and
    /// pools alike on the standbys at `replica_urls` (connected on first use). A server
    /// that takes writes is waited for as long as `start_timeout` allows.
    pub async fn open(
        url: Option<&str>,
        replica_urls: &[String],
        data_dir: &Path,
        max_connections: u32,
        acquire_timeout: Duration,
        start_timeout: Duration,
    ) -> Result<Self, DatabaseError> {
        let (url, embedded) = match url {
            Some(url) => (url.to_owned(), None),
            None => {
                let pg = EmbeddedPostgres::start(data_dir).await?;
                let admin = connect(&pg.url(), 1, acquire_timeout, start_timeout).await?;
                let created = store::ensure_database(&admin).await;
                admin.close().await;
                created?;
                (pg.url_for(store::DATABASE), Some(pg))
            }
        };
        let pool = connect(&url, max_connections, acquire_timeout, start_timeout).await?;
        migrate(&pool).await?;
        let replicas = Replicas::open(pool.clone(), replica_urls)?;
        Ok(Self {
            pool,
            replicas,
            embedded,
        })
    }

    /// The pool.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// The primary and the replicas, for the reads that may move.
    pub fn replicas(&self) -> &Replicas {
        &self.replicas
    }

    /// Closes the pool, and stops the embedded cluster if this process started it.
    pub async fn close(self) {
        self.pool.close().await;
        self.replicas.close().await;
        if let Some(pg) = self.embedded.filter(EmbeddedPostgres::started_here)
            && let Err(error) = pg.stop().await
        {
            tracing::error!(%error, "stopping embedded PostgreSQL");
        }
    }
}
