//! The one-statement create (`responses::current`): submissions alone on their forms,
//! each stored only if its form is still as the caller judged it, several forms' in
//! one statement (one round trip, one commit).

use super::{Quota, Response, Versions};
use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::PgExecutor;
use sqlx::types::Json;
use std::collections::HashMap;
use uuid::Uuid;

/// How a response given to `insert_all_if_current` ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Current {
    /// Stored; the form row's new version.
    Stored(String),
    /// The form or its account is not at the versions given (or the form has an active
    /// webhook): nothing was written.
    Moved,
    /// The account's quota for the month has no room for its responses of the
    /// statement: nothing was written for them.
    OverQuota,
}

/// A response to store if its form is as the caller judged it: both the form's and
/// the account's rows at `versions`, the form's counters at `count` responses and
/// `newest` submission time, no active webhook.
pub struct IfCurrent {
    pub response: Response,
    pub quota: Quota,
    pub versions: Versions,
    pub count: i64,
    pub newest: Option<DateTime<Utc>>,
}

/// One column of `rows`, as an array to bind.
fn column<'r, T>(rows: &'r [IfCurrent], value: impl Fn(&'r IfCurrent) -> T) -> Vec<T> {
    rows.iter().map(value).collect()
}

/// Stores each of `rows` (at most one per form) whose form is current, in one
/// statement (its own transaction), and returns how each ended, in order. Locks the
/// current forms' rows (in id order, as any other such statement does, so that two
/// never wait on each other), counts each account's responses against its quota (all
/// of an account's responses of the statement, or none), inserts the responses and
/// advances their forms' counters. A form's row lock orders the response among its
/// form's other submissions as `lock_target` does. (The counters are compared too: a
/// transaction id, and so an `xmin`, can come round again after wraparound or a
/// restore.)
pub async fn insert_all_if_current(
    db: impl PgExecutor<'_>,
    rows: &[IfCurrent],
) -> Result<Vec<Current>, CoreError> {
    let ids: Vec<Uuid> = column(rows, |r| r.response.id);
    let form_ids: Vec<Uuid> = column(rows, |r| r.response.form_id);
    let answers = column(rows, |r| Json(&r.response.answers));
    let metadata = column(rows, |r| Json(&r.response.metadata));
    let devices = column(rows, |r| r.response.device_type.as_deref());
    let browsers = column(rows, |r| r.response.browser.as_deref());
    let systems = column(rows, |r| r.response.os.as_deref());
    let started: Vec<DateTime<Utc>> = column(rows, |r| r.response.started_at);
    let submitted: Vec<DateTime<Utc>> = column(rows, |r| r.response.submitted_at);
    let completion: Vec<Option<i64>> = column(rows, |r| r.response.completion_time_seconds);
    let accounts: Vec<Uuid> = column(rows, |r| r.quota.account_id);
    let months: Vec<chrono::NaiveDate> = column(rows, |r| r.quota.month);
    let limits: Vec<i64> = column(rows, |r| r.quota.limit.unwrap_or(i64::MAX));
    let form_versions = column(rows, |r| r.versions.form.as_str());
    let account_versions = column(rows, |r| r.versions.account.as_str());
    let counts: Vec<i64> = column(rows, |r| r.count);
    let newest: Vec<Option<DateTime<Utc>>> = column(rows, |r| r.newest);
    let found = sqlx::query!(
        r#"WITH input AS (
               SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::jsonb[], $4::jsonb[],
                                    $5::text[], $6::text[], $7::text[], $8::timestamptz[],
                                    $9::timestamptz[], $10::bigint[], $11::uuid[], $12::date[],
                                    $13::bigint[], $14::text[], $15::text[], $16::bigint[],
                                    $17::timestamptz[])
                   AS i(id, form_id, answers, metadata, device_type, browser, os,
                        started_at, submitted_at, completion_time_seconds, account_id,
                        month, quota_limit, form_version, account_version, response_count,
                        newest)
           ), target AS (
               SELECT f.id FROM forms f
                 JOIN input i ON i.form_id = f.id
                 JOIN accounts a ON a.id = f.account_id
                WHERE f.account_id = i.account_id
                  AND f.xmin::text = i.form_version AND a.xmin::text = i.account_version
                  AND f.response_count = i.response_count
                  AND f.last_submitted_at IS NOT DISTINCT FROM i.newest
                  AND NOT EXISTS (SELECT 1 FROM webhooks w
                                   WHERE w.form_id = f.id AND w.is_active)
                ORDER BY f.id
                  FOR UPDATE OF f
           ), wanted AS (
               SELECT i.account_id, i.month, min(i.quota_limit) AS quota_limit,
                      count(*) AS responses
                 FROM input i JOIN target t ON t.id = i.form_id
                GROUP BY i.account_id, i.month
           ), quota AS (
               INSERT INTO response_quota_usage (account_id, month, response_count)
               SELECT account_id, month, responses FROM wanted
                WHERE responses <= quota_limit
                ORDER BY account_id
               ON CONFLICT (account_id, month) DO UPDATE
                  SET response_count = response_quota_usage.response_count
                                       + EXCLUDED.response_count
                WHERE response_quota_usage.response_count + EXCLUDED.response_count
                      <= (SELECT w.quota_limit FROM wanted w
                           WHERE w.account_id = EXCLUDED.account_id
                             AND w.month = EXCLUDED.month)
               RETURNING account_id
           ), inserted AS (
               INSERT INTO responses (id, form_id, answers, metadata, device_type, browser,
                                      os, started_at, submitted_at, completion_time_seconds)
               SELECT i.id, i.form_id, i.answers, i.metadata, i.device_type, i.browser,
                      i.os, i.started_at, i.submitted_at, i.completion_time_seconds
                 FROM input i
                 JOIN target t ON t.id = i.form_id
                 JOIN quota q ON q.account_id = i.account_id
               RETURNING form_id, submitted_at
           ), advanced AS (
               UPDATE forms f SET response_count = f.response_count + 1,
                                  last_submitted_at = inserted.submitted_at
                 FROM inserted WHERE f.id = inserted.form_id
               RETURNING f.id, f.xmin::text AS version
           )
           SELECT t.id AS "form_id!", a.version
             FROM target t LEFT JOIN advanced a ON a.id = t.id"#,
        &ids,
        &form_ids,
        &answers as _,
        &metadata as _,
        &devices as _,
        &browsers as _,
        &systems as _,
        &started,
        &submitted,
        &completion as _,
        &accounts,
        &months,
        &limits,
        &form_versions as _,
        &account_versions as _,
        &counts,
        &newest as _
    )
    .fetch_all(db)
    .await?;
    let mut found: HashMap<Uuid, Option<String>> = found
        .into_iter()
        .map(|row| (row.form_id, row.version))
        .collect();
    Ok(rows
        .iter()
        .map(|r| match found.remove(&r.response.form_id) {
            None => Current::Moved,
            Some(None) => Current::OverQuota,
            Some(Some(version)) => Current::Stored(version),
        })
        .collect())
}
