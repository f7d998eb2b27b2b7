//! Reads whose cost the caller chooses (a filter, a search, a summary): they run in a
//! read-only transaction whose statements stop at the statement time limit
//! (`--db-statement-timeout`), and that is cancelled on the server when the read is
//! dropped unfinished (its client went away, or the edge gave up).
//!
//! Why the cancellation: dropping a statement's future leaves it running in PostgreSQL,
//! and sqlx, given the connection back, waits for it to end before it reuses it; a
//! client that leaves a 30 s search would keep a connection and a core busy for 30 s.
//! A dropped read asks PostgreSQL to cancel its backend's statement
//! (`pg_cancel_backend`) while it still holds the connection, so the cancel can only
//! hit this read's statement (or nothing, when it had ended), never another request's.
//!
//! The read also holds its place under the cap on expensive reads of its account and
//! the instance (`gate::concurrency`) until its connection is back.

use super::store::bounded as store;
use crate::error::CoreError;
use crate::gate::concurrency::Permit;
use sqlx::{PgConnection, PgPool, Postgres, Transaction};
use std::time::Duration;

/// SQLSTATE `query_canceled`: a statement stopped by the time limit or a cancel.
const QUERY_CANCELED: &str = "57014";

/// An expensive read in progress.
pub(crate) struct Bounded {
    /// `None` once finished or handed to the cancelling task.
    tx: Option<Transaction<'static, Postgres>>,
    pool: PgPool,
    /// The backend running the read's statements.
    pid: i32,
    limit: Option<Duration>,
    permit: Option<Permit>,
}

/// How a bounded read's transaction sees the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isolation {
    /// Each statement sees what was committed when it started.
    Committed,
    /// Every statement sees the data as of the first: figures that agree.
    Snapshot,
}

impl Bounded {
    /// Begins a read on `pool` holding `permit`, whose statements stop after `limit`
    /// (`None`: no limit).
    pub(crate) async fn begin(
        pool: &PgPool,
        isolation: Isolation,
        limit: Option<Duration>,
        permit: Permit,
    ) -> Result<Self, CoreError> {
        // 0 is no limit; a limit is whole milliseconds, at least 1.
        let millis = limit.map_or(0, |d| d.as_millis().clamp(1, i32::MAX as u128));
        let mut tx = store::begin(pool, isolation == Isolation::Snapshot, millis).await?;
        let pid = store::backend_pid(&mut tx).await?;
        Ok(Self {
            tx: Some(tx),
            pool: pool.clone(),
            pid,
            limit,
            permit: Some(permit),
        })
    }

    /// The connection the read's statements run on.
    pub(crate) fn conn(&mut self) -> Result<&mut PgConnection, CoreError> {
        match self.tx.as_mut() {
            Some(tx) => Ok(&mut **tx),
            None => Err(CoreError::Internal("a finished read was used again".into())),
        }
    }

    /// Ends the read (it wrote nothing: its transaction is rolled back).
    pub(crate) async fn finish(mut self) {
        if let Some(tx) = self.tx.take() {
            // A failed rollback closes the connection; the read's answer stands.
            let _ = tx.rollback().await;
        }
        self.permit.take();
    }

    /// `error` as the caller should see it: a statement stopped by the time limit is
    /// the clear refusal of a read that took too long, not a failure of the service.
    pub(crate) fn explain(&self, error: CoreError) -> CoreError {
        match &error {
            CoreError::Database(sqlx::Error::Database(e))
                if e.code().as_deref() == Some(QUERY_CANCELED) =>
            {
                CoreError::ReadStopped(self.limit)
            }
            _ => error,
        }
    }
}

impl Drop for Bounded {
    fn drop(&mut self) {
        let Some(tx) = self.tx.take() else {
            return;
        };
        let (pool, pid, permit) = (self.pool.clone(), self.pid, self.permit.take());
        // Not awaited by anyone: the read's caller is gone. Without a runtime (the
        // process is stopping) there is nothing to cancel for.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            // On a connection of its own, not the pool's: the pool may be what is short.
            let cancelled = async {
                let mut conn = sqlx::ConnectOptions::connect(&*pool.connect_options()).await?;
                store::cancel_backend(&mut conn, pid).await?;
                sqlx::Connection::close(conn).await
            };
            if let Err(error) = cancelled.await {
                tracing::warn!(%error, pid, "an abandoned read could not be cancelled");
            }
            // Only now is the connection given back (its statement ended) and the
            // read's place under the cap free.
            drop(tx);
            drop(permit);
        });
    }
}
