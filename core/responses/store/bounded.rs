//! SQL of bounded reads (`responses::bounded`): their read-only transaction under a
//! statement time limit, the backend running it, and its cancellation from another
//! connection.

use sqlx::{AssertSqlSafe, PgConnection, PgPool, Postgres, Transaction};

/// Begins a read-only transaction on `pool` (a snapshot for all its statements when
/// `snapshot`) whose statements stop after `millis` milliseconds (0: no limit).
pub(crate) async fn begin(
    pool: &PgPool,
    snapshot: bool,
    millis: u128,
) -> Result<Transaction<'static, Postgres>, sqlx::Error> {
    let begin = match snapshot {
        false => "BEGIN READ ONLY",
        true => "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
    };
    // Formatted from a number: nothing of the request's.
    let statement = format!("{begin}; SET LOCAL statement_timeout = {millis}");
    pool.begin_with(AssertSqlSafe(statement)).await
}

/// The backend process that runs `conn`'s statements.
pub(crate) async fn backend_pid(conn: &mut PgConnection) -> Result<i32, sqlx::Error> {
    sqlx::query_scalar!(r#"SELECT pg_backend_pid() AS "pid!""#)
        .fetch_one(conn)
        .await
}

/// Asks PostgreSQL to cancel the statement running on backend `pid`, from `conn`.
pub(crate) async fn cancel_backend(conn: &mut PgConnection, pid: i32) -> Result<(), sqlx::Error> {
    sqlx::query_scalar!(r#"SELECT pg_cancel_backend($1) AS "sent!""#, pid)
        .fetch_one(conn)
        .await?;
    Ok(())
}
