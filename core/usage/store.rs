//! SQL of usage: the daily request and error counts of each key, written in batches by
//! the tally (`tally::Tally`).

use crate::error::CoreError;
use chrono::NaiveDate;
use sqlx::PgPool;
use std::collections::HashMap;
use uuid::Uuid;

/// Requests and errors of one key on one day, as the tally counts them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub requests: i64,
    pub errors: i64,
}

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

/// Adds counts to the keys' day rows, in one statement, once per `flush` id: sent again
/// with an id already written, it adds nothing.
pub async fn add(
    pool: &PgPool,
    flush: Uuid,
    counts: &HashMap<(Uuid, NaiveDate), Counts>,
) -> Result<(), CoreError> {
    let mut keys = Vec::with_capacity(counts.len());
    let mut days = Vec::with_capacity(counts.len());
    let mut requests = Vec::with_capacity(counts.len());
    let mut errors = Vec::with_capacity(counts.len());
    for ((key, day), c) in counts {
        keys.push(*key);
        days.push(*day);
        requests.push(c.requests);
        errors.push(c.errors);
    }
    // Rows of keys deleted meanwhile are skipped (the join), not an error.
    sqlx::query!(
        "WITH first AS (
             INSERT INTO usage_flushes (id) VALUES ($5) ON CONFLICT DO NOTHING RETURNING id
         )
         INSERT INTO usage_daily (key_id, day, request_count, error_count)
         SELECT c.key_id, c.day, c.requests, c.errors
           FROM unnest($1::uuid[], $2::date[], $3::int8[], $4::int8[])
                AS c(key_id, day, requests, errors)
           JOIN api_keys k ON k.id = c.key_id
          WHERE EXISTS (SELECT 1 FROM first)
         ON CONFLICT (key_id, day) DO UPDATE
            SET request_count = usage_daily.request_count + EXCLUDED.request_count,
                error_count = usage_daily.error_count + EXCLUDED.error_count",
        &keys,
        &days,
        &requests,
        &errors,
        flush
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Whether the flush `id` was written.
pub async fn flushed(pool: &PgPool, id: Uuid) -> Result<bool, CoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM usage_flushes WHERE id = $1) AS "flushed!""#,
        id
    )
    .fetch_one(pool)
    .await?)
}

/// Forgets flush ids older than `age`; returns how many.
pub async fn purge_flushes(pool: &PgPool, age: std::time::Duration) -> Result<u64, CoreError> {
    let seconds = age.as_secs_f64();
    Ok(sqlx::query!(
        "DELETE FROM usage_flushes WHERE flushed_at < now() - make_interval(secs => $1)",
        seconds
    )
    .execute(pool)
    .await?
    .rows_affected())
}

/// The newest day with requests of each of `keys` that was ever used (UTC).
pub async fn last_used(pool: &PgPool, keys: &[Uuid]) -> Result<Vec<(Uuid, NaiveDate)>, CoreError> {
    Ok(sqlx::query!(
        r#"SELECT key_id, max(day) AS "day!" FROM usage_daily
            WHERE key_id = ANY($1) AND request_count > 0 GROUP BY key_id"#,
        keys
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| (r.key_id, r.day))
    .collect())
}
