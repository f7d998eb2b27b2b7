//! The shared statement of the create path (`responses::create::statement`): a form's batch of responses,
//! stored only if the form is still as the caller judged them on it, several forms'
//! batches in one statement (one round trip, one commit).

use super::{Quota, Response, Versions};
use crate::error::CoreError;
use crate::webhooks::store::Outgoing;
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
    /// webhook its caller made no events for): nothing was written.
    Moved,
    /// The account's quota for the month has no room for its responses of the
    /// statement (all of them, of every form): nothing was written for the form.
    OverQuota,
}

/// A form's responses to store if the form is still as the caller judged them on: the
/// form's and its account's rows at `versions`, the form's counters at `count`
/// responses and `newest` submission time, and no active webhook unless the caller
/// knew of one (`has_webhooks`) and made the responses' `events`. The responses count
/// against one `quota`.
pub struct IfCurrent {
    pub form_id: Uuid,
    pub versions: Versions,
    pub count: i64,
    pub newest: Option<DateTime<Utc>>,
    pub quota: Quota,
    pub responses: Vec<Response>,
    /// Whether the caller's view of the form has an active webhook: then `events`
    /// holds the webhook events of `responses`, written for the form's active
    /// subscriptions that list them as the locked path writes them.
    pub has_webhooks: bool,
    pub events: Vec<Outgoing>,
}

/// What one statement did: how each form's responses ended, in order, and how many
/// deliveries it wrote for their events.
#[derive(Debug)]
pub struct Outcomes {
    pub forms: Vec<Current>,
    pub deliveries: i64,
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
/// restore.) The stored responses' events become deliveries in the same statement,
/// one per active subscription that lists the event (under its canonical name when a
/// subscription lists both), as `webhooks::store::insert_deliveries` writes them; a
/// form whose view knew of no webhook but has one now has moved.
pub async fn insert_all_if_current(
    db: impl PgExecutor<'_>,
    forms: &[IfCurrent],
) -> Result<Outcomes, CoreError> {
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
    let languages = column(forms, |r| r.language.as_deref());
    let hooked: Vec<bool> = forms.iter().map(|f| f.has_webhooks).collect();
    // A row per event.
    let events = || forms.iter().flat_map(|f| &f.events);
    let event_forms: Vec<Uuid> = events().map(|e| e.form_id).collect();
    let event_responses: Vec<Option<Uuid>> = events().map(|e| e.response_id).collect();
    let names: Vec<&str> = events().map(|e| e.name).collect();
    let aliases: Vec<Option<&str>> = events().map(|e| e.alias.as_ref().map(|a| a.0)).collect();
    let bodies: Vec<&[u8]> = events().map(|e| e.body.as_slice()).collect();
    let alias_bodies: Vec<Option<&[u8]>> = events()
        .map(|e| e.alias.as_ref().map(|a| a.1.as_slice()))
        .collect();
    let event_times: Vec<DateTime<Utc>> = events().map(|e| e.at).collect();
    let found = sqlx::query!(
        r#"WITH batch AS (
               SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::date[], $4::bigint[],
                                    $5::text[], $6::text[], $7::bigint[],
                                    $8::timestamptz[], $9::bigint[], $10::timestamptz[],
                                    $22::bool[])
                   AS b(form_id, account_id, month, quota_limit, form_version,
                        account_version, response_count, newest, added, last, hooked)
           ), target AS (
               SELECT b.* FROM forms f
                 JOIN batch b ON b.form_id = f.id
                 JOIN accounts a ON a.id = f.account_id
                WHERE f.account_id = b.account_id
                  AND f.xmin::text = b.form_version AND a.xmin::text = b.account_version
                  AND f.response_count = b.response_count
                  AND f.last_submitted_at IS NOT DISTINCT FROM b.newest
                  AND (b.hooked OR NOT EXISTS (SELECT 1 FROM webhooks w
                                                WHERE w.form_id = f.id AND w.is_active))
                ORDER BY f.id
                  FOR NO KEY UPDATE OF f
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
                                      search, language)
               SELECT r.* FROM unnest($11::uuid[], $12::uuid[], $13::jsonb[], $14::jsonb[],
                                      $15::text[], $16::text[], $17::text[],
                                      $18::timestamptz[], $19::timestamptz[], $20::bigint[],
                                      $21::text[], $30::text[])
                        AS r(id, form_id, answers, metadata, device_type, browser, os,
                             started_at, submitted_at, completion_time_seconds, search,
                             language)
                WHERE r.form_id IN (SELECT form_id FROM stored)
           ), advanced AS (
               UPDATE forms f SET response_count = s.response_count + s.added,
                                  last_submitted_at = s.last
                 FROM stored s WHERE f.id = s.form_id
               RETURNING f.id, f.xmin::text AS version
           ), queued AS (
               INSERT INTO deliveries (id, webhook_id, account_id, form_id, event, url,
                                       response_id, payload, max_retries, next_attempt_at,
                                       created_at)
               SELECT uuid_v7(), w.id, w.account_id, w.form_id,
                      CASE WHEN e.name = ANY(w.events) THEN e.name ELSE e.alias END,
                      w.url, e.response_id,
                      CASE WHEN e.name = ANY(w.events) THEN e.body ELSE e.alias_body END,
                      w.max_retries, e.at, e.at
                 FROM unnest($23::uuid[], $24::uuid[], $25::text[], $26::text[],
                             $27::bytea[], $28::bytea[], $29::timestamptz[])
                        AS e(form_id, response_id, name, alias, body, alias_body, at)
                 JOIN stored s ON s.form_id = e.form_id
                 JOIN webhooks w ON w.form_id = e.form_id AND w.account_id = s.account_id
                WHERE w.is_active AND w.events && ARRAY[e.name, e.alias]
               RETURNING 1
           )
           SELECT t.form_id AS "form_id!", a.version,
                  (SELECT count(*) FROM queued) AS "deliveries!"
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
        &search,
        &hooked,
        &event_forms,
        &event_responses as _,
        &names as _,
        &aliases as _,
        &bodies as _,
        &alias_bodies as _,
        &event_times,
        &languages as _
    )
    .fetch_all(db)
    .await?;
    let deliveries = found.first().map_or(0, |row| row.deliveries);
    let mut found: HashMap<Uuid, Option<String>> = found
        .into_iter()
        .map(|row| (row.form_id, row.version))
        .collect();
    let forms = forms
        .iter()
        .map(|f| match found.remove(&f.form_id) {
            None => Current::Moved,
            Some(None) => Current::OverQuota,
            Some(Some(version)) => Current::Stored(version),
        })
        .collect();
    Ok(Outcomes { forms, deliveries })
}
