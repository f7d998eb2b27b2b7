//! SQL of usage: the daily request and error counts of each key. Requests are counted
//! by the gate's admission statement (`gate::store::count_request`).

use crate::error::CoreError;
use chrono::NaiveDate;
use sqlx::PgPool;
use uuid::Uuid;

/// One day of a key's usage.
pub struct Day {
    pub day: NaiveDate,
    pub request_count: i64,
    pub error_count: i64,
}

/// Every day of the window ending today (UTC), newest first, zeros where there was no
/// traffic, so that charts need no gap filling.
pub async fn daily(pool: &PgPool, key_id: Uuid, days: i32) -> Result<Vec<Day>, CoreError> {
    Ok(sqlx::query_as!(
        Day,
        r#"SELECT d.day AS "day!", COALESCE(u.request_count, 0) AS "request_count!",
                  COALESCE(u.error_count, 0) AS "error_count!"
             FROM (SELECT (now() AT TIME ZONE 'UTC')::date - g AS day
                     FROM generate_series(0, $2 - 1) AS g) AS d
             LEFT JOIN usage_daily u ON u.key_id = $1 AND u.day = d.day
            ORDER BY d.day DESC"#,
        key_id,
        days
    )
    .fetch_all(pool)
    .await?)
}

/// Counts an error against the usage row the request was charged to.
pub async fn count_error(pool: &PgPool, key_id: Uuid, day: NaiveDate) -> Result<(), CoreError> {
    sqlx::query!(
        "UPDATE usage_daily SET error_count = error_count + 1 WHERE key_id = $1 AND day = $2",
        key_id,
        day
    )
    .execute(pool)
    .await?;
    Ok(())
}
