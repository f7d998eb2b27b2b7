//! SQL of data rights: the forms that keep responses for a while, a batch of old
//! responses and partials, the responses of an account whose answers hold a value, and
//! the deletion of a set of responses with every copy of their answers.

use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor, PgPool, Postgres, Transaction};
use uuid::Uuid;

/// The advisory lock of the instance applying retention (an arbitrary key of ours).
const RETENTION_LOCK: i64 = 0x666f_726d_7372_6574;

/// Takes the retention lock for the session of `conn`, if no other session has it.
pub(crate) async fn take_retention_lock(conn: &mut PgConnection) -> Result<bool, CoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT pg_try_advisory_lock($1) AS "taken!""#,
        RETENTION_LOCK
    )
    .fetch_one(conn)
    .await?)
}

/// Gives the retention lock back.
pub(crate) async fn give_back_retention_lock(conn: &mut PgConnection) -> Result<(), CoreError> {
    sqlx::query_scalar!(
        r#"SELECT pg_advisory_unlock($1) AS "given!""#,
        RETENTION_LOCK
    )
    .fetch_one(conn)
    .await?;
    Ok(())
}

/// A form whose responses are kept `days` days.
pub(crate) struct Retained {
    pub id: Uuid,
    pub days: i32,
}

/// Whether any form sets a retention.
pub(crate) async fn any_retained(pool: &PgPool) -> Result<bool, CoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT FROM forms WHERE retention_days IS NOT NULL) AS "any!""#
    )
    .fetch_one(pool)
    .await?)
}

/// The forms that set a retention.
pub(crate) async fn retained_forms(pool: &PgPool) -> Result<Vec<Retained>, CoreError> {
    Ok(sqlx::query_as!(
        Retained,
        r#"SELECT id, retention_days AS "days!" FROM forms WHERE retention_days IS NOT NULL"#
    )
    .fetch_all(pool)
    .await?)
}

/// Locks up to `limit` responses of form `form_id` submitted before `before`, oldest
/// first, skipping rows another transaction holds (a delete in flight): their ids.
pub(crate) async fn old_responses(
    tx: &mut Transaction<'_, Postgres>,
    form_id: Uuid,
    before: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<Uuid>, CoreError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM responses WHERE form_id = $1 AND submitted_at < $2
          ORDER BY submitted_at, id LIMIT $3 FOR UPDATE SKIP LOCKED",
        form_id,
        before,
        limit
    )
    .fetch_all(&mut **tx)
    .await?)
}

/// Deletes up to `limit` partials of form `form_id` first saved before `before`: the
/// staged files they hold, which the caller removes after the commit.
pub(crate) async fn delete_old_partials(
    pool: &PgPool,
    form_id: Uuid,
    before: DateTime<Utc>,
    limit: i64,
) -> Result<(u64, Vec<Uuid>), CoreError> {
    let files = sqlx::query_scalar!(
        r#"DELETE FROM partial_responses WHERE id IN (
               SELECT id FROM partial_responses WHERE form_id = $1 AND saved_at < $2
                ORDER BY saved_at LIMIT $3)
           RETURNING file_ids AS "file_ids!""#,
        form_id,
        before,
        limit
    )
    .fetch_all(pool)
    .await?;
    let n = files.len() as u64;
    Ok((n, files.into_iter().flatten().collect()))
}

/// What deleting a set of responses left for after the commit: the object keys of
/// their files and the staged files of their partials.
#[derive(Debug, Default)]
pub(crate) struct Deleted {
    pub responses: u64,
    pub partials: u64,
    pub objects: Vec<String>,
    pub staged: Vec<Uuid>,
}

/// Deletes the responses `ids` of form `form_id` (any not there are skipped), with
/// their files (by cascade), their partials, the answers their webhook deliveries
/// carry (pending ones are still sent, with `answers` emptied and `answersRemoved`, as
/// when one response is deleted) and the replies the receivers gave, and keeps the
/// form's count and summary right. The form's row is locked last, for a moment: a
/// create of the form waits for this commit only.
pub(crate) async fn delete_responses(
    tx: &mut Transaction<'_, Postgres>,
    form_id: Uuid,
    ids: &[Uuid],
) -> Result<Deleted, CoreError> {
    let objects = sqlx::query_scalar!(
        r#"SELECT object_key AS "object_key!" FROM response_files
            WHERE response_id = ANY($1) AND object_key IS NOT NULL"#,
        ids
    )
    .fetch_all(&mut **tx)
    .await?;
    let responses = sqlx::query!(
        "DELETE FROM responses WHERE form_id = $1 AND id = ANY($2)",
        form_id,
        ids
    )
    .execute(&mut **tx)
    .await?
    .rows_affected();
    // A partial has the id of the response it became (kept a day after completion).
    let staged = sqlx::query_scalar!(
        r#"DELETE FROM partial_responses WHERE form_id = $1 AND id = ANY($2)
           RETURNING file_ids AS "file_ids!""#,
        form_id,
        ids
    )
    .fetch_all(&mut **tx)
    .await?;
    sqlx::query!(
        "UPDATE delivery_attempts SET response_body = ''
          WHERE response_body <> '' AND delivery_id IN (
             SELECT id FROM deliveries WHERE form_id = $1 AND response_id = ANY($2))",
        form_id,
        ids
    )
    .execute(&mut **tx)
    .await?;
    sqlx::query!(
        r#"UPDATE deliveries
              SET payload = convert_to(jsonb_set(jsonb_set(
                      convert_from(payload, 'UTF8')::jsonb,
                      '{data,answers}', '{}'::jsonb), '{data,answersRemoved}', 'true'::jsonb
                  )::text, 'UTF8')
            WHERE form_id = $1 AND response_id = ANY($2)"#,
        form_id,
        ids
    )
    .execute(&mut **tx)
    .await?;
    if responses > 0 {
        sqlx::query!(
            "UPDATE forms SET response_count = response_count - $2 WHERE id = $1",
            form_id,
            i64::try_from(responses).unwrap_or(i64::MAX)
        )
        .execute(&mut **tx)
        .await?;
        // A tally can not take responses out: it starts again.
        crate::responses::store::summary::reset(tx, form_id).await?;
    }
    Ok(Deleted {
        responses,
        partials: staged.len() as u64,
        objects,
        staged: staged.into_iter().flatten().collect(),
    })
}

/// A response (or partial) whose answers hold the value looked for.
#[derive(Debug, Clone)]
pub(crate) struct Match {
    pub id: Uuid,
    pub form_id: Uuid,
    pub form_title: String,
    pub submitted_at: DateTime<Utc>,
    pub partial: bool,
}

/// The value as erasure compares it (see `erasure::Needle`).
pub(crate) struct Needle<'a> {
    /// `LIKE` pattern of the folded value, for the search text's trigram index.
    pub pattern: &'a str,
    /// The value, trimmed.
    pub value: &'a str,
    /// Compare whatever the case (an email address).
    pub any_case: bool,
}

/// Up to `limit` responses and partials of the account whose answers hold the value,
/// oldest first. A partial completed into a response that is still there is that
/// response, listed once.
pub(crate) async fn find(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
    needle: &Needle<'_>,
    limit: i64,
) -> Result<Vec<Match>, CoreError> {
    // The trigram index narrows the rows; the answers' strings decide, one by one.
    let rows = sqlx::query!(
        r#"WITH own AS (SELECT id, title FROM forms WHERE account_id = $1)
           SELECT r.id AS "id!", r.form_id AS "form_id!", own.title AS "title!",
                  r.submitted_at AS "submitted_at!", false AS "partial!"
             FROM responses r JOIN own ON own.id = r.form_id
            WHERE r.form_id IN (SELECT id FROM own) AND r.search LIKE $2
              AND EXISTS (SELECT 1 FROM jsonb_path_query(r.answers, 'strict $.**') v
                           WHERE jsonb_typeof(v) = 'string'
                             AND CASE WHEN $4 THEN lower(btrim(v #>> '{}')) = lower($3)
                                      ELSE btrim(v #>> '{}') = $3 END)
           UNION ALL
           SELECT p.id, p.form_id, own.title, p.saved_at, true
             FROM partial_responses p JOIN own ON own.id = p.form_id
            WHERE p.search LIKE $2
              AND (p.completed_at IS NULL
                   OR NOT EXISTS (SELECT 1 FROM responses x WHERE x.id = p.id))
              AND EXISTS (SELECT 1 FROM jsonb_path_query(p.answers, 'strict $.**') v
                           WHERE jsonb_typeof(v) = 'string'
                             AND CASE WHEN $4 THEN lower(btrim(v #>> '{}')) = lower($3)
                                      ELSE btrim(v #>> '{}') = $3 END)
            ORDER BY 4, 1 LIMIT $5"#,
        account_id,
        needle.pattern,
        needle.value,
        needle.any_case,
        limit
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| Match {
            id: r.id,
            form_id: r.form_id,
            form_title: r.title,
            submitted_at: r.submitted_at,
            partial: r.partial,
        })
        .collect())
}

/// Locks the account's forms `ids` in id order (the order every erasure takes them).
pub(crate) async fn lock_forms(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<(), CoreError> {
    sqlx::query_scalar!(
        "SELECT id FROM forms WHERE account_id = $1 AND id = ANY($2) ORDER BY id FOR UPDATE",
        account_id,
        ids
    )
    .fetch_all(&mut **tx)
    .await?;
    Ok(())
}

/// Deletes the account's idempotency records whose stored reply names one of the
/// responses `ids` (a create's reply holds the response, answers and all).
pub(crate) async fn delete_idempotency_replies(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    ids: &[Uuid],
) -> Result<u64, CoreError> {
    Ok(sqlx::query!(
        "DELETE FROM idempotency_keys k
          WHERE k.account_id = $1 AND k.reply IS NOT NULL
            AND EXISTS (SELECT 1 FROM unnest($2::uuid[]) n
                         WHERE position(convert_to(n::text, 'UTF8') IN k.reply) > 0)",
        account_id,
        ids
    )
    .execute(&mut **tx)
    .await?
    .rows_affected())
}

/// Bounds how long `tx` waits for a lock: a purge's batch gives up (and is taken again
/// by the next round) rather than queue creates behind it.
pub(crate) async fn bound_lock_wait(tx: &mut Transaction<'_, Postgres>) -> Result<(), CoreError> {
    sqlx::query_scalar!("SELECT set_config('lock_timeout', '2s', true)")
        .fetch_one(&mut **tx)
        .await?;
    Ok(())
}
