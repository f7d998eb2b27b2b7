//! Reads that outlive their replica: a read sent to a replica that loses its
//! connection there (the standby stopped or restarted under it, before a probe could
//! see it go) runs again on the primary, which holds every write the replica had, so
//! that a standby's going is never the reader's error.

use super::Replicas;
use crate::error::CoreError;
use sqlx::{PgPool, Postgres, Transaction};
use std::future::Future;

impl Replicas {
    /// Runs `read` where the replicas' rule sends it (the module's doc); again on the primary when it
    /// lost its connection on a replica. `read` must be one that may run twice (a
    /// read, from its start).
    pub(crate) async fn read<T, F, Fut>(&self, read: F) -> Result<T, CoreError>
    where
        F: Fn(PgPool) -> Fut,
        Fut: Future<Output = Result<T, CoreError>>,
    {
        Ok(self.read_first(read).await?.0)
    }

    /// [`Replicas::read`] for the first step of a read of several: its answer, and the
    /// pool that gave it, for the steps after.
    pub(crate) async fn read_first<T, F, Fut>(&self, read: F) -> Result<(T, PgPool), CoreError>
    where
        F: Fn(PgPool) -> Fut,
        Fut: Future<Output = Result<T, CoreError>>,
    {
        let (pool, on_replica) = self.choose().await;
        match read(pool.clone()).await {
            Err(error) if on_replica && error.is_connection_lost() => {
                tracing::info!(%error, "a replica lost a read's connection; the primary serves it");
                metrics::counter!("formsd_db_reads_total", "target" => "primary").increment(1);
                let primary = self.primary().clone();
                Ok((read(primary.clone()).await?, primary))
            }
            done => Ok((done?, pool)),
        }
    }

    /// A transaction for a read that may move, begun with `begin` (its isolation),
    /// where [`Replicas::read`] would run it.
    pub(crate) async fn begin_read(
        &self,
        begin: &'static str,
    ) -> Result<Transaction<'static, Postgres>, CoreError> {
        // A round trip proves the connection: a BEGIN on one the server has dropped may
        // not fail until the first read after it.
        self.read(|pool| async move {
            let mut tx = pool.begin_with(begin).await?;
            sqlx::Connection::ping(&mut *tx).await?;
            Ok(tx)
        })
        .await
    }
}
