//! The shared statement of the create path (`responses::create::statement`): a form's batch of responses,
//! stored only if the form is still as the caller judged them on it, several forms'
//! batches in one statement (one round trip, one commit).

use super::{Quota, Response, Versions};
use crate::error::CoreError;
use chrono::{DateTime, NaiveDate, Utc};
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

/// One column of the responses of `forms`, as an array to bind.
fn column<'r, T>(forms: &'r [IfCurrent], value: impl Fn(&'r Response) -> T) -> Vec<T> {
    forms.iter().flat_map(|f| &f.responses).map(value).collect()
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
    // A row per form: what it is checked against and what it adds.
    let form_ids: Vec<Uuid> = forms.iter().map(|f| f.form_id).collect();
    let accounts: Vec<Uuid> = forms.iter().map(|f| f.quota.account_id).collect();
    let months: Vec<NaiveDate> = forms.iter().map(|f| f.quota.month).collect();
    let limits: Vec<i64> = forms
        .iter()
        .map(|f| f.quota.limit.unwrap_or(i64::MAX))
        .collect();
    let form_versions: Vec<&str> = forms.iter().map(|f| f.versions.form.as_str()).collect();
    let account_versions: Vec<&str> = forms.iter().map(|f| f.versions.account.as_str()).collect();
    let counts: Vec<i64> = forms.iter().map(|f| f.count).collect();
    let newest: Vec<Option<DateTime<Utc>>> = forms.iter().map(|f| f.newest).collect();
    let added: Vec<i64> = forms.iter().map(|f| f.responses.len() as i64).collect();
    // Submission times increase within a form's responses: its last is its newest.
    let last: Vec<Option<DateTime<Utc>>> = forms
        .iter()
        .map(|f| f.responses.last().map(|r| r.submitted_at))
        .collect();
    // A row per response.
    let ids = column(forms, |r| r.id);
    let response_forms = column(forms, |r| r.form_id);
    let answers = column(forms, |r| Json(&r.answers));
    let metadata = column(forms, |r| Json(&r.metadata));
    let devices = column(forms, |r| r.device_type.as_deref());
    let browsers = column(forms, |r| r.browser.as_deref());
    let systems = column(forms, |r| r.os.as_deref());
    let started = column(forms, |r| r.started_at);
    let submitted = column(forms, |r| r.submitted_at);
    let completion = column(forms, |r| r.completion_time_seconds);
    let search = column(forms, |r| crate::responses::search::text_of(&r.answers));
    let found = sqlx::query!(
        r#"WITH batch AS (
               SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::date[], $4::bigint[],
                                    $5::text[], $6::text[], $7::bigint[],
                                    $8::timestamptz[], $9::bigint[], $10::timestamptz[])
                   AS b(form_id, account_id, month, quota_limit, form_version,
                        account_version, response_count, newest, added, last)
           ), target AS (
               SELECT b.* FROM forms f
                 JOIN batch b ON b.form_id = f.id
                 JOIN accounts a ON a.id = f.account_id
                WHERE f.account_id = b.account_id
                  AND f.xmin::text = b.form_version AND a.xmin::text = b.account_version
                  AND f.response_count = b.response_count
                  AND f.last_submitted_at IS NOT DISTINCT FROM b.newest
                  AND NOT EXISTS (SELECT 1 FROM webhooks w
                                   WHERE w.form_id = f.id AND w.is_active)
                ORDER BY f.id
                  FOR UPDATE OF f
           ), wanted AS (
               SELECT account_id, month, min(quota_limit) AS quota_limit,
                      sum(added)::bigint AS added
                 FROM target GROUP BY account_id, month
           ), quota AS (
               INSERT INTO response_quota_usage (account_id, month, response_count)
               SELECT account_id, month, added FROM wanted
                WHERE added <= quota_limit
                ORDER BY account_id, month
               ON CONFLICT (account_id, month) DO UPDATE
                  SET response_count = response_quota_usage.response_count
                                       + EXCLUDED.response_count
                WHERE response_quota_usage.response_count + EXCLUDED.response_count
                      <= (SELECT w.quota_limit FROM wanted w
                           WHERE w.account_id = EXCLUDED.account_id
                             AND w.month = EXCLUDED.month)
               RETURNING account_id, month
           ), stored AS (
               SELECT t.* FROM target t
                 JOIN quota q ON q.account_id = t.account_id AND q.month = t.month
           ), inserted AS (
               INSERT INTO responses (id, form_id, answers, metadata, device_type, browser,
                                      os, started_at, submitted_at, completion_time_seconds,
                                      search)
               SELECT r.* FROM unnest($11::uuid[], $12::uuid[], $13::jsonb[], $14::jsonb[],
                                      $15::text[], $16::text[], $17::text[],
                                      $18::timestamptz[], $19::timestamptz[], $20::bigint[],
                                      $21::text[])
                        AS r(id, form_id, answers, metadata, device_type, browser, os,
                             started_at, submitted_at, completion_time_seconds, search)
                WHERE r.form_id IN (SELECT form_id FROM stored)
           ), advanced AS (
               UPDATE forms f SET response_count = s.response_count + s.added,
                                  last_submitted_at = s.last
                 FROM stored s WHERE f.id = s.form_id
               RETURNING f.id, f.xmin::text AS version
           )
           SELECT t.form_id AS "form_id!", a.version
             FROM target t LEFT JOIN advanced a ON a.id = t.form_id"#,
        &form_ids,
        &accounts,
        &months,
        &limits,
        &form_versions as _,
        &account_versions as _,
        &counts,
        &newest as _,
        &added,
        &last as _,
        &ids,
        &response_forms,
        &answers as _,
        &metadata as _,
        &devices as _,
        &browsers as _,
        &systems as _,
        &started,
        &submitted,
        &completion as _,
        &search
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
