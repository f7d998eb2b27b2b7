//! SQL of the gate: counting a request in its key's window and daily usage.

use crate::error::CoreError;
use chrono::NaiveDate;
use sqlx::PgPool;
use uuid::Uuid;

/// A request counted: the window's count so far, the window's start (Unix seconds) and
/// the usage day it was charged to.
pub struct Counted {
    pub count: u32,
    pub window_start: i64,
    pub day: NaiveDate,
}

/// Counts one request in the key's current window and daily usage, in one statement
/// on the database clock so that all instances agree on windows and days (the usage
/// row is the usage module's table, written here so that admission costs one round
/// trip).
pub async fn count_request(
    pool: &PgPool,
    key_id: Uuid,
    window_secs: u32,
) -> Result<Counted, CoreError> {
    let row = sqlx::query!(
        r#"WITH now_w AS (
             SELECT to_timestamp(floor(extract(epoch FROM clock_timestamp()) / $2::float8) * $2::float8) AS ws,
                    (clock_timestamp() AT TIME ZONE 'UTC')::date AS day
         ), w AS (
             INSERT INTO rate_windows (key_id, window_start, request_count)
             SELECT $1, ws, 1 FROM now_w
             ON CONFLICT (key_id) DO UPDATE SET
                 request_count = CASE WHEN rate_windows.window_start >= EXCLUDED.window_start
                                      THEN rate_windows.request_count + 1 ELSE 1 END,
                 window_start = GREATEST(rate_windows.window_start, EXCLUDED.window_start)
             RETURNING request_count, window_start
         ), u AS (
             INSERT INTO usage_daily (key_id, day, request_count)
             SELECT $1, day, 1 FROM now_w
             ON CONFLICT (key_id, day) DO UPDATE SET request_count = usage_daily.request_count + 1
         )
         SELECT w.request_count AS "count!",
                extract(epoch FROM w.window_start)::bigint AS "window_start!",
                (SELECT day FROM now_w) AS "day!"
           FROM w"#,
        key_id,
        f64::from(window_secs)
    )
    .fetch_one(pool)
    .await?;
    Ok(Counted {
        count: u32::try_from(row.count).unwrap_or(u32::MAX),
        window_start: row.window_start,
        day: row.day,
    })
}
