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
    /// statement (all of them, of every form): nothing was written for the form.
    OverQuota,
}

/// A form's responses to store if the form is still as the caller judged them on: the
/// form's and its account's rows at `versions`, the form's counters at `count`
/// responses and `newest` submission time, no active webhook. The responses count
/// against one `quota`.
pub struct IfCurrent {
    pub form_id: Uuid,
    pub versions: Versions,
    pub count: i64,
    pub newest: Option<DateTime<Utc>>,
    pub quota: Quota,
    pub responses: Vec<Response>,
}

/// One column of the rows of `forms` (a row per response), as an array to bind.
fn column<'r, T>(
    forms: &'r [IfCurrent],
    value: impl Fn(&'r IfCurrent, &'r Response) -> T,
) -> Vec<T> {
    forms
        .iter()
        .flat_map(|form| form.responses.iter().map(move |r| (form, r)))
        .map(|(form, r)| value(form, r))
        .collect()
}

/// Stores the responses of each of `forms` (at most one entry per form) whose form is
/// current, in one statement (its own transaction), and returns how each form's
/// ended, in order: all of a form's responses are stored, or none. Locks the current
/// forms' rows (in id order, then the quota rows in account and month order, as any
/// other such statement does, so that two can wait for each other but never
/// deadlock), counts each account's responses against its quota (all of an account's
/// responses of the statement in a month, or none), inserts the responses
/// and advances their forms' counters. A form's row lock orders its responses among
/// its other submissions as `lock_target` does. (The counters are compared too: a
/// transaction id, and so an `xmin`, can come round again after wraparound or a
/// restore.)
pub async fn insert_all_if_current(
    db: impl PgExecutor<'_>,
    forms: &[IfCurrent],
) -> Result<Vec<Current>, CoreError> {
    let ids = column(forms, |_, r| r.id);
    let form_ids = column(forms, |f, _| f.form_id);
    let answers = column(forms, |_, r| Json(&r.answers));
    let metadata = column(forms, |_, r| Json(&r.metadata));
    let devices = column(forms, |_, r| r.device_type.as_deref());
    let browsers = column(forms, |_, r| r.browser.as_deref());
    let systems = column(forms, |_, r| r.os.as_deref());
    let started = column(forms, |_, r| r.started_at);
    let submitted = column(forms, |_, r| r.submitted_at);
    let completion = column(forms, |_, r| r.completion_time_seconds);
    let accounts = column(forms, |f, _| f.quota.account_id);
    let months = column(forms, |f, _| f.quota.month);
    let limits = column(forms, |f, _| f.quota.limit.unwrap_or(i64::MAX));
    let form_versions = column(forms, |f, _| f.versions.form.as_str());
    let account_versions = column(forms, |f, _| f.versions.account.as_str());
    let counts = column(forms, |f, _| f.count);
    let newest = column(forms, |f, _| f.newest);
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
                 JOIN (SELECT DISTINCT form_id, account_id, form_version, account_version,
                                       response_count, newest FROM input) i
                   ON i.form_id = f.id
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
                ORDER BY account_id, month
               ON CONFLICT (account_id, month) DO UPDATE
                  SET response_count = response_quota_usage.response_count
                                       + EXCLUDED.response_count
                WHERE response_quota_usage.response_count + EXCLUDED.response_count
                      <= (SELECT w.quota_limit FROM wanted w
                           WHERE w.account_id = EXCLUDED.account_id
                             AND w.month = EXCLUDED.month)
               RETURNING account_id, month
           ), inserted AS (
               INSERT INTO responses (id, form_id, answers, metadata, device_type, browser,
                                      os, started_at, submitted_at, completion_time_seconds)
               SELECT i.id, i.form_id, i.answers, i.metadata, i.device_type, i.browser,
                      i.os, i.started_at, i.submitted_at, i.completion_time_seconds
                 FROM input i
                 JOIN target t ON t.id = i.form_id
                 JOIN quota q ON q.account_id = i.account_id AND q.month = i.month
               RETURNING form_id, submitted_at
           ), advanced AS (
               UPDATE forms f SET response_count = f.response_count + n.responses,
                                  last_submitted_at = n.newest
                 FROM (SELECT form_id, count(*) AS responses, max(submitted_at) AS newest
                         FROM inserted GROUP BY form_id) n
                WHERE f.id = n.form_id
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
    Ok(forms
        .iter()
        .map(|f| match found.remove(&f.form_id) {
            None => Current::Moved,
            Some(None) => Current::OverQuota,
            Some(Some(version)) => Current::Stored(version),
        })
        .collect())
}
