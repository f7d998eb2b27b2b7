//! Partial responses: a visitor's answers to a form with pages, saved page by page.
//!
//! The rule: a partial is found by its resume token (only the token's digest is kept)
//! and becomes, on completion, the response of the same id. Completing is exactly
//! once: the transaction that stores the response first locks the partial's row and
//! marks it completed, so a second completion (a double submit, or another instance
//! given the same resume) waits for the first and then finds it completed. Partials
//! live apart from `responses` until then: nothing that counts (quota, response
//! limit), notifies (webhooks, mail) or lists responses sees them unless asked.

use crate::accounts::Plan;
use crate::error::CoreError;
use crate::forms::Form;
use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{Map, Value};
use sqlx::types::Json;
use sqlx::{PgExecutor, PgPool, Postgres, Transaction};
use std::time::Duration;
use uuid::Uuid;

/// How long a completed partial's row stays, so that a late repeat of its last page
/// still finds the response it made.
const COMPLETED_KEPT: Duration = Duration::from_secs(24 * 3600);

/// A saved partial response.
#[derive(Debug, Clone)]
pub(crate) struct Partial {
    pub id: Uuid,
    pub form_id: Uuid,
    pub answers: Map<String, Value>,
    pub file_ids: Vec<Uuid>,
    /// The page to show next: the last page reached.
    pub page: i32,
    pub device_type: Option<String>,
    pub browser: Option<String>,
    pub os: Option<String>,
    pub started_at: DateTime<Utc>,
    pub completed: bool,
    /// Who saved it last (a keyed digest of their address, `hosted::bounds`).
    pub visitor: Option<Vec<u8>>,
    /// The language of the page last saved.
    pub language: Option<String>,
}

/// What a save names a partial by: the digest of its resume token, the digest it had
/// before when the save moves it to a new token (only a save under the old one may),
/// and the visitor saving it.
pub(crate) struct Keys<'a> {
    pub digest: &'a [u8],
    pub before: Option<&'a [u8]>,
    pub visitor: &'a [u8],
}

/// The partial of `form_id` that `digest` (of a resume token) names.
pub(crate) async fn find(
    db: impl PgExecutor<'_>,
    form_id: Uuid,
    digest: &[u8],
) -> Result<Option<Partial>, CoreError> {
    let row = sqlx::query!(
        r#"SELECT id, form_id, answers AS "answers: Json<Map<String, Value>>", file_ids,
                  page, device_type, browser, os, started_at, visitor, language,
                  completed_at IS NOT NULL AS "completed!"
             FROM partial_responses WHERE resume_digest = $1 AND form_id = $2"#,
        digest,
        form_id
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|r| Partial {
        id: r.id,
        form_id: r.form_id,
        answers: r.answers.0,
        file_ids: r.file_ids,
        page: r.page,
        device_type: r.device_type,
        browser: r.browser,
        os: r.os,
        started_at: r.started_at,
        completed: r.completed,
        visitor: r.visitor,
        language: r.language,
    }))
}

/// What the bounds on partials (`hosted::bounds`) weigh a saved page against.
#[derive(Debug)]
pub(crate) struct Room {
    pub plan: Plan,
    /// The account's own response quota, if it has one.
    pub response_limit: Option<i64>,
    /// Responses the account stored this month (its quota's count).
    pub used: i64,
    /// Unfinished partials of the form, of the account, of the visitor on the form.
    pub form_open: i64,
    pub account_open: i64,
    pub visitor_open: i64,
    /// Bytes of the files the account's unfinished partials hold (read only when the
    /// page brings files).
    pub held_bytes: i64,
    /// Bytes of the page's staged files.
    pub staged_bytes: i64,
}

/// The room of `form`'s account, and of `visitor` on `form`, for a page with the
/// `staged` files, in the quota month `month`.
pub(crate) async fn room(
    db: impl PgExecutor<'_>,
    form: &Form,
    visitor: &[u8],
    month: NaiveDate,
    staged: &[Uuid],
) -> Result<Room, CoreError> {
    let row = sqlx::query!(
        r#"SELECT a.plan AS "plan: Plan", a.response_limit,
                  coalesce((SELECT u.response_count FROM response_quota_usage u
                             WHERE u.account_id = a.id AND u.month = $4), 0) AS "used!",
                  (SELECT count(*) FROM partial_responses p
                    WHERE p.form_id = $1 AND p.completed_at IS NULL) AS "form_open!",
                  (SELECT count(*) FROM partial_responses p JOIN forms f ON f.id = p.form_id
                    WHERE f.account_id = a.id AND p.completed_at IS NULL) AS "account_open!",
                  (SELECT count(*) FROM partial_responses p
                    WHERE p.form_id = $1 AND p.visitor = $3
                      AND p.completed_at IS NULL) AS "visitor_open!",
                  CASE WHEN cardinality($5::uuid[]) = 0 THEN 0::bigint ELSE
                       (SELECT coalesce(sum(rf.size), 0)::bigint
                          FROM partial_responses p JOIN forms f ON f.id = p.form_id
                          JOIN response_files rf ON rf.id = ANY (p.file_ids)
                         WHERE f.account_id = a.id AND p.completed_at IS NULL
                           AND rf.response_id IS NULL) END AS "held_bytes!",
                  (SELECT coalesce(sum(size), 0)::bigint FROM response_files
                    WHERE id = ANY ($5)) AS "staged_bytes!"
             FROM accounts a WHERE a.id = $2"#,
        form.id,
        form.account_id,
        visitor,
        month,
        staged
    )
    .fetch_optional(db)
    .await?
    .ok_or(CoreError::NotFound("form"))?;
    Ok(Room {
        plan: row.plan,
        response_limit: row.response_limit,
        used: row.used,
        form_open: row.form_open,
        account_open: row.account_open,
        visitor_open: row.visitor_open,
        held_bytes: row.held_bytes,
        staged_bytes: row.staged_bytes,
    })
}

/// Saves `partial` under `digest`: its first save inserts it (with the `visitor` who
/// began it), later ones replace its answers, files and page (never once it is
/// completed). Its staged files are kept until `files_until` (as long as the partial
/// itself may wait), so that a visitor who comes back late still finds the file an
/// early page uploaded. Returns whether it was saved.
pub(crate) async fn save(
    db: impl PgExecutor<'_>,
    partial: &Partial,
    keys: Keys<'_>,
    now: DateTime<Utc>,
    files_until: DateTime<Utc>,
) -> Result<bool, CoreError> {
    let saved = sqlx::query!(
        r#"WITH kept AS (
               UPDATE response_files SET staged_until = $12
                WHERE id = ANY($5) AND response_id IS NULL
           )
           INSERT INTO partial_responses (id, form_id, resume_digest, answers, file_ids, page,
                                         device_type, browser, os, started_at, saved_at,
                                         updated_at, visitor, language)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $13, $15)
           ON CONFLICT (id) DO UPDATE
              SET answers = EXCLUDED.answers, file_ids = EXCLUDED.file_ids,
                  page = EXCLUDED.page, updated_at = EXCLUDED.updated_at,
                  resume_digest = EXCLUDED.resume_digest, visitor = EXCLUDED.visitor,
                  language = EXCLUDED.language
            WHERE partial_responses.completed_at IS NULL
              AND partial_responses.resume_digest = coalesce($14, EXCLUDED.resume_digest)"#,
        partial.id,
        partial.form_id,
        keys.digest,
        Json(&partial.answers) as _,
        &partial.file_ids,
        partial.page,
        partial.device_type,
        partial.browser,
        partial.os,
        partial.started_at,
        now,
        files_until,
        keys.visitor,
        keys.before,
        partial.language
    )
    .execute(db)
    .await?;
    Ok(saved.rows_affected() == 1)
}

/// Locks the partial `id` in `tx` for its completion; whether it is completed already.
/// `None`: it is gone (purged, or its form deleted).
pub(crate) async fn lock(
    tx: &mut Transaction<'_, Postgres>,
    id: Uuid,
) -> Result<Option<bool>, CoreError> {
    let row = sqlx::query_scalar!(
        r#"SELECT completed_at IS NOT NULL AS "completed!"
             FROM partial_responses WHERE id = $1 FOR UPDATE"#,
        id
    )
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row)
}

/// Marks the partial `id` completed (in the transaction that stored its response).
pub(crate) async fn complete(
    tx: &mut Transaction<'_, Postgres>,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<(), CoreError> {
    sqlx::query!(
        "UPDATE partial_responses SET completed_at = $2, updated_at = $2 WHERE id = $1",
        id,
        now
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Deletes unfinished partials untouched for `retention`, and completed ones after a
/// day; returns how many. Their staged files are swept with the others.
pub(crate) async fn purge(pool: &PgPool, retention: Duration) -> Result<u64, CoreError> {
    let unfinished = chrono::Duration::from_std(retention).unwrap_or(chrono::Duration::MAX);
    let completed = chrono::Duration::from_std(COMPLETED_KEPT).unwrap_or(chrono::Duration::MAX);
    let now = Utc::now();
    let before = |age: chrono::Duration| {
        now.checked_sub_signed(age)
            .unwrap_or(DateTime::<Utc>::MIN_UTC)
    };
    let done = sqlx::query!(
        "DELETE FROM partial_responses
          WHERE (completed_at IS NULL AND updated_at < $1) OR completed_at < $2",
        before(unfinished),
        before(completed)
    )
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}
