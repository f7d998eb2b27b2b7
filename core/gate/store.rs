//! SQL of the gate: leasing a block of a key's rate-limit window.

use crate::error::CoreError;
use sqlx::PgPool;
use uuid::Uuid;

/// A lease taken: the window's asks so far (this one's included), the window's start
/// and the database's clock, both in Unix seconds.
pub(crate) struct Taken {
    pub asked: u32,
    pub window_start: i64,
    pub now: f64,
}

/// Asks for `block` requests of the key's current window, in one statement on the
/// database clock so that all instances agree on windows. The row counts what was
/// asked; the caller works out what was granted (`lease::Leases::admit`), so that
/// concurrent leases need no lock beyond the row update itself.
pub(crate) async fn lease(
    pool: &PgPool,
    key_id: Uuid,
    window_secs: u32,
    block: u32,
) -> Result<Taken, CoreError> {
    let block = i32::try_from(block).unwrap_or(i32::MAX);
    let row = sqlx::query!(
        r#"WITH now_w AS (
             SELECT clock_timestamp() AS now,
                    to_timestamp(floor(extract(epoch FROM clock_timestamp()) / $2::float8) * $2::float8) AS ws
         ), w AS (
             INSERT INTO rate_windows (key_id, window_start, request_count)
             SELECT $1, ws, $3 FROM now_w
             ON CONFLICT (key_id) DO UPDATE SET
                 request_count = CASE WHEN rate_windows.window_start >= EXCLUDED.window_start
                                      THEN LEAST(rate_windows.request_count::bigint + $3, 2000000000)::int
                                      ELSE $3 END,
                 window_start = GREATEST(rate_windows.window_start, EXCLUDED.window_start)
             RETURNING request_count, window_start
         )
         SELECT w.request_count AS "asked!",
                extract(epoch FROM w.window_start)::bigint AS "window_start!",
                extract(epoch FROM (SELECT now FROM now_w))::float8 AS "now!"
           FROM w"#,
        key_id,
        f64::from(window_secs),
        block
    )
    .fetch_one(pool)
    .await?;
    Ok(Taken {
        asked: u32::try_from(row.asked).unwrap_or(0),
        window_start: row.window_start,
        now: row.now,
    })
}
