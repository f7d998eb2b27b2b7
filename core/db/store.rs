//! SQL of the database bootstrap: the service's own database on the embedded cluster.

use super::replicas::Lineage;
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

/// The primary's WAL insert position (bytes from 0/0) and its lineage (system
/// identifier, and timeline: that of its WAL files), read by `replicas` for every read
/// that may move.
pub(super) async fn wal_position<'e>(
    db: impl sqlx::PgExecutor<'e>,
) -> Result<(i64, Lineage), sqlx::Error> {
    let row = sqlx::query!(
        r#"SELECT (now.lsn - '0/0'::pg_lsn)::bigint AS "position!",
                  ('x' || substr(pg_walfile_name(now.lsn), 1, 8))::bit(32)::int AS "timeline!",
                  (SELECT system_identifier FROM pg_control_system()) AS "system!"
             FROM (SELECT pg_current_wal_insert_lsn() AS lsn) AS now"#
    )
    .fetch_one(db)
    .await?;
    let lineage = Lineage {
        system: row.system,
        timeline: row.timeline,
    };
    Ok((row.position, lineage))
}

/// What a standby says of itself: how far it has replayed, and whom it follows.
#[derive(Clone, Debug)]
pub(super) struct Replay {
    /// `None` when the server is not a standby.
    pub(super) replayed: Option<i64>,
    pub(super) system: i64,
    /// The timeline it receives from its upstream, while its WAL receiver streams.
    pub(super) timeline: Option<i32>,
    /// Whether its WAL receiver runs but its state is hidden from this role (it lacks
    /// `pg_read_all_stats`).
    pub(super) hidden: bool,
}

/// How far a standby has replayed and what it follows (`replicas`).
pub(super) async fn replay_position<'e>(
    db: impl sqlx::PgExecutor<'e>,
) -> Result<Replay, sqlx::Error> {
    let row = sqlx::query!(
        r#"SELECT pg_is_in_recovery() AS "standby!",
                  (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint AS replayed,
                  (SELECT system_identifier FROM pg_control_system()) AS "system!",
                  (SELECT received_tli FROM pg_stat_wal_receiver
                    WHERE status = 'streaming') AS timeline,
                  EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status IS NULL) AS "hidden!""#
    )
    .fetch_one(db)
    .await?;
    Ok(Replay {
        replayed: row.replayed.filter(|_| row.standby),
        system: row.system,
        timeline: row.timeline,
        hidden: row.hidden,
    })
}
