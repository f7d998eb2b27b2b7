//! SQL of the database bootstrap: the service's own database on the embedded cluster.

use sqlx::PgPool;

/// Name of the service's database on the embedded cluster.
pub(super) const DATABASE: &str = "forms";

/// A trivial query: whether the database (a pool, or one connection) answers.
pub async fn ping<'e>(db: impl sqlx::PgExecutor<'e>) -> Result<(), sqlx::Error> {
    sqlx::query_scalar!(r#"SELECT 1 AS "one!""#)
        .fetch_one(db)
        .await
        .map(|_| ())
}

/// Whether the server takes writes: not a standby (in recovery every transaction is
/// read-only) nor read-only by configuration (`default_transaction_read_only`), as
/// libpq's `target_session_attrs=read-write` checks.
pub(crate) async fn accepts_writes<'e>(db: impl sqlx::PgExecutor<'e>) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar!(r#"SELECT current_setting('transaction_read_only') = 'off' AS "writable!""#)
        .fetch_one(db)
        .await
}

/// Creates the service's database on the server of `admin` unless it exists.
pub(super) async fn ensure_database(admin: &PgPool) -> Result<(), sqlx::Error> {
    let exists = sqlx::query_scalar!(
        r#"SELECT 1 AS "one!" FROM pg_database WHERE datname = $1"#,
        DATABASE
    )
    .fetch_optional(admin)
    .await?;
    if exists.is_none() {
        // CREATE DATABASE takes no bind parameters: the name is spelled out.
        sqlx::query!("CREATE DATABASE forms").execute(admin).await?;
    }
    Ok(())
}

/// The primary's WAL insert position (bytes from 0/0), read by `replicas`.
pub(super) async fn wal_position<'e>(db: impl sqlx::PgExecutor<'e>) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar!(
        r#"SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint AS "position!""#
    )
    .fetch_one(db)
    .await
}

/// How far a standby has replayed; `None` when the server is not a standby.
pub(super) async fn replay_position<'e>(
    db: impl sqlx::PgExecutor<'e>,
) -> Result<Option<i64>, sqlx::Error> {
    let row = sqlx::query!(
        r#"SELECT pg_is_in_recovery() AS "standby!",
                  (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint AS replayed"#
    )
    .fetch_one(db)
    .await?;
    Ok(row.replayed.filter(|_| row.standby))
}
