//! SQL for subscriptions, the deliveries their events make (written, listed, retried by
//! an operator, cleared of a deleted response's answers) and their attempts. Claiming,
//! recording and purging deliveries is the outbox's (`crate::outbox::store`).

use crate::db::decode::read_error;
use crate::error::CoreError;
use crate::outbox::{DeliveryStatus, MAX_RETRIES};
use chrono::{DateTime, Utc};
use sqlx::{PgExecutor, PgPool, Postgres, Transaction};
use uuid::Uuid;

/// A subscription row (the secret stays in the database).
#[derive(Debug, Clone)]
pub struct WebhookRow {
    pub id: Uuid,
    pub form_id: Uuid,
    pub name: String,
    pub url: String,
    pub events: Vec<String>,
    pub is_active: bool,
    pub max_retries: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The number of a form's subscriptions, counted under the form's row lock so that
/// concurrent creates cannot pass the cap together.
pub async fn count_for_form_locked(
    tx: &mut Transaction<'_, Postgres>,
    form_id: Uuid,
) -> Result<i64, CoreError> {
    sqlx::query_scalar!("SELECT id FROM forms WHERE id = $1 FOR UPDATE", form_id)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or(CoreError::NotFound("form"))?;
    Ok(sqlx::query_scalar!(
        r#"SELECT count(*) AS "count!" FROM webhooks WHERE form_id = $1"#,
        form_id
    )
    .fetch_one(&mut **tx)
    .await?)
}

/// Inserts a subscription of a form of the account.
#[allow(clippy::too_many_arguments)]
pub async fn insert(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    form_id: Uuid,
    name: &str,
    url: &str,
    events: &[String],
    secret: &str,
    now: DateTime<Utc>,
) -> Result<WebhookRow, CoreError> {
    Ok(sqlx::query_as!(
        WebhookRow,
        "INSERT INTO webhooks (id, form_id, account_id, name, url, events, is_active, max_retries,
                               secret, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, true, $7, $8, $9, $9)
         RETURNING id, form_id, name, url, events, is_active, max_retries, created_at, updated_at",
        Uuid::new_v4(),
        form_id,
        account_id,
        name,
        url,
        events,
        MAX_RETRIES,
        secret,
        now
    )
    .fetch_one(&mut **tx)
    .await?)
}

pub async fn list(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
    form_id: Uuid,
) -> Result<Vec<WebhookRow>, CoreError> {
    Ok(sqlx::query_as!(
        WebhookRow,
        "SELECT id, form_id, name, url, events, is_active, max_retries, created_at, updated_at
           FROM webhooks WHERE form_id = $1 AND account_id = $2 ORDER BY created_at, id",
        form_id,
        account_id
    )
    .fetch_all(db)
    .await?)
}

/// Deletes a subscription and its deliveries not yet made.
pub async fn delete(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    form_id: Uuid,
    id: Uuid,
) -> Result<(), CoreError> {
    sqlx::query!(
        "DELETE FROM deliveries WHERE webhook_id = $1 AND status = 'pending' AND account_id = $2",
        id,
        account_id
    )
    .execute(&mut **tx)
    .await?;
    let deleted = sqlx::query!(
        "DELETE FROM webhooks WHERE id = $1 AND form_id = $2 AND account_id = $3",
        id,
        form_id,
        account_id
    )
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if deleted == 0 {
        return Err(CoreError::NotFound("webhook"));
    }
    Ok(())
}

/// Reads a subscription of form `form_id` of the account (the dashboard): another
/// account's, or another form's, is NotFound.
pub async fn get(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
    form_id: Uuid,
    id: Uuid,
) -> Result<WebhookRow, CoreError> {
    sqlx::query_as!(
        WebhookRow,
        "SELECT id, form_id, name, url, events, is_active, max_retries, created_at, updated_at
           FROM webhooks WHERE id = $1 AND form_id = $2 AND account_id = $3",
        id,
        form_id,
        account_id
    )
    .fetch_optional(db)
    .await?
    .ok_or(CoreError::NotFound("webhook"))
}

/// Reads a subscription by id alone (operators).
pub async fn get_any(db: impl PgExecutor<'_>, id: Uuid) -> Result<WebhookRow, CoreError> {
    sqlx::query_as!(
        WebhookRow,
        "SELECT id, form_id, name, url, events, is_active, max_retries, created_at, updated_at FROM webhooks WHERE id = $1",
        id
    )
    .fetch_optional(db)
    .await?
    .ok_or(CoreError::NotFound("webhook"))
}

/// Writes an operator's change to a subscription.
pub async fn update(db: impl PgExecutor<'_>, row: &WebhookRow) -> Result<WebhookRow, CoreError> {
    sqlx::query_as!(
        WebhookRow,
        "UPDATE webhooks SET name = $2, url = $3, events = $4, is_active = $5, updated_at = $6
          WHERE id = $1
          RETURNING id, form_id, name, url, events, is_active, max_retries, created_at, updated_at",
        row.id,
        row.name,
        row.url,
        &row.events,
        row.is_active,
        row.updated_at
    )
    .fetch_optional(db)
    .await?
    .ok_or(CoreError::NotFound("webhook"))
}

/// An event's deliveries as they are written: the same for every subscription that
/// lists the event, except for the name it lists it by.
pub struct Outgoing {
    pub account_id: Uuid,
    pub form_id: Uuid,
    pub response_id: Option<Uuid>,
    /// Due from, and created at.
    pub at: DateTime<Utc>,
    /// The event's canonical name, and the exact body sent (and signed) under it.
    pub name: &'static str,
    pub body: Vec<u8>,
    /// The other name a subscription may list it by, and the body sent under that one.
    pub alias: Option<(&'static str, Vec<u8>)>,
}

/// Writes the deliveries of `event`, one per active subscription of its form that lists
/// its name or its alias, named and with the body as that subscription lists it (the
/// canonical name when it lists both), in one statement that reads nothing before it;
/// returns how many.
pub async fn insert_deliveries(
    tx: &mut Transaction<'_, Postgres>,
    event: &Outgoing,
) -> Result<u64, CoreError> {
    let (alias, alias_body) = match &event.alias {
        Some((name, body)) => (Some(*name), Some(body.as_slice())),
        None => (None, None),
    };
    Ok(sqlx::query!(
        "INSERT INTO deliveries (id, webhook_id, account_id, form_id, event, url, response_id,
                                 payload, max_retries, next_attempt_at, created_at)
         SELECT uuid_v7(), w.id, w.account_id, w.form_id,
                CASE WHEN $3::text = ANY(w.events) THEN $3::text ELSE $4::text END,
                w.url, $5,
                CASE WHEN $3::text = ANY(w.events) THEN $6::bytea ELSE $7::bytea END,
                w.max_retries, $8, $8
           FROM webhooks w
          WHERE w.form_id = $1 AND w.account_id = $2 AND w.is_active
            AND w.events && ARRAY[$3::text, $4::text]",
        event.form_id,
        event.account_id,
        event.name,
        alias,
        event.response_id,
        event.body.as_slice(),
        alias_body,
        event.at
    )
    .execute(&mut **tx)
    .await?
    .rows_affected())
}

/// Writes one delivery of `event` with `body` to subscription `id` of form `form_id` of
/// the account, whatever events it lists and whether or not it is active (a paused one
/// keeps it until it is active again): the owner's test event. Another account's
/// subscription gets none (NotFound).
pub async fn insert_delivery_to(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    form_id: Uuid,
    id: Uuid,
    event: &str,
    body: &[u8],
    at: DateTime<Utc>,
) -> Result<DeliveryRow, CoreError> {
    sqlx::query_as!(
        DeliveryRow,
        r#"INSERT INTO deliveries (id, webhook_id, account_id, form_id, event, url, payload,
                                   max_retries, next_attempt_at, created_at)
           SELECT uuid_v7(), w.id, w.account_id, w.form_id, $4, w.url, $5, w.max_retries,
                  $6, $6
             FROM webhooks w WHERE w.id = $1 AND w.form_id = $2 AND w.account_id = $3
           RETURNING id, webhook_id, event, status AS "status: DeliveryStatus", next_attempt_at,
                     created_at"#,
        id,
        form_id,
        account_id,
        event,
        body,
        at
    )
    .fetch_optional(&mut **tx)
    .await
    .map_err(read_error)?
    .ok_or(CoreError::NotFound("webhook"))
}

/// Removes the answers of response `id` of form `form_id` from the payloads of its
/// deliveries, pending and past (a pending one is still delivered, with `answers` empty
/// and `answersRemoved: true`, so receivers see the event they were promised without
/// data that no longer exists).
pub async fn remove_response_answers(
    tx: &mut Transaction<'_, Postgres>,
    form_id: Uuid,
    id: Uuid,
) -> Result<u64, CoreError> {
    Ok(sqlx::query!(
        r#"UPDATE deliveries
              SET payload = convert_to(jsonb_set(jsonb_set(
                      convert_from(payload, 'UTF8')::jsonb,
                      '{data,answers}', '{}'::jsonb), '{data,answersRemoved}', 'true'::jsonb
                  )::text, 'UTF8')
            WHERE form_id = $1 AND response_id = $2"#,
        form_id,
        id
    )
    .execute(&mut **tx)
    .await?
    .rows_affected())
}

/// Removes the answers of every response of form `id` from their deliveries.
pub async fn remove_form_answers(
    tx: &mut Transaction<'_, Postgres>,
    id: Uuid,
) -> Result<u64, CoreError> {
    Ok(sqlx::query!(
        r#"UPDATE deliveries
              SET payload = convert_to(jsonb_set(jsonb_set(
                      convert_from(payload, 'UTF8')::jsonb,
                      '{data,answers}', '{}'::jsonb), '{data,answersRemoved}', 'true'::jsonb
                  )::text, 'UTF8')
            WHERE form_id = $1 AND response_id IS NOT NULL"#,
        id
    )
    .execute(&mut **tx)
    .await?
    .rows_affected())
}

/// Keeps the target and secret of form `id`'s subscriptions that still have pending
/// deliveries (form.deleted at least), before the form's delete removes them:
/// deliveries keep no secret (they are signed at send time), so a subscription deleted
/// with its form is retired, kept only until its deliveries are settled
/// (`outbox::retention`).
pub async fn retire_form_webhooks(
    tx: &mut Transaction<'_, Postgres>,
    id: Uuid,
) -> Result<(), CoreError> {
    sqlx::query!(
        "INSERT INTO retired_webhooks (id, url, secret, retired_at)
         SELECT w.id, w.url, w.secret, now() FROM webhooks w
          WHERE w.form_id = $1
            AND EXISTS (SELECT 1 FROM deliveries d
                         WHERE d.webhook_id = w.id AND d.status = 'pending')
         ON CONFLICT (id) DO NOTHING",
        id
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// A delivery as operators list it.
pub struct DeliveryRow {
    pub id: Uuid,
    pub webhook_id: Option<Uuid>,
    pub event: String,
    pub status: DeliveryStatus,
    pub next_attempt_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
}

/// An attempt as operators list it.
pub struct AttemptRow {
    pub delivery_id: Uuid,
    pub attempted_at: DateTime<Utc>,
    pub status_code: Option<i32>,
    pub duration_ms: i64,
    pub error: Option<String>,
    pub response_body: String,
}

/// A delivery as lists show it: its row and the body it sends.
pub struct ListedDelivery {
    pub id: Uuid,
    pub webhook_id: Option<Uuid>,
    pub event: String,
    pub status: DeliveryStatus,
    pub next_attempt_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub payload: Vec<u8>,
}

/// One page of a subscription's deliveries, newest first, with their bodies.
pub async fn list_deliveries(
    pool: &PgPool,
    webhook_id: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<ListedDelivery>, CoreError> {
    sqlx::query_as!(
        ListedDelivery,
        r#"SELECT id, webhook_id, event, status AS "status: DeliveryStatus", next_attempt_at,
                  created_at, payload
             FROM deliveries
            WHERE webhook_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"#,
        webhook_id,
        limit,
        offset
    )
    .fetch_all(pool)
    .await
    .map_err(read_error)
}

/// The attempts of the deliveries `ids`, oldest first.
pub async fn list_attempts(pool: &PgPool, ids: &[Uuid]) -> Result<Vec<AttemptRow>, CoreError> {
    Ok(sqlx::query_as!(
        AttemptRow,
        "SELECT delivery_id, attempted_at, status_code, duration_ms, error, response_body
           FROM delivery_attempts WHERE delivery_id = ANY($1) ORDER BY attempted_at, id",
        ids
    )
    .fetch_all(pool)
    .await?)
}

/// Makes a failed delivery due again now, with a fresh retry budget; `None` when there
/// is no failed delivery `id` (of subscription `webhook_id`, when given: the dashboard
/// names the owner's subscription, operators none).
pub async fn retry_failed(
    db: impl PgExecutor<'_>,
    id: Uuid,
    webhook_id: Option<Uuid>,
) -> Result<Option<DeliveryRow>, CoreError> {
    sqlx::query_as!(
        DeliveryRow,
        r#"UPDATE deliveries SET status = 'pending', next_attempt_at = now(), locked_until = NULL,
                  attempts = 0
            WHERE id = $1 AND status = 'failed' AND ($2::uuid IS NULL OR webhook_id = $2)
            RETURNING id, webhook_id, event, status AS "status: DeliveryStatus", next_attempt_at,
                      created_at"#,
        id,
        webhook_id
    )
    .fetch_optional(db)
    .await
    .map_err(read_error)
}

/// Makes pending delivery `id` of subscription `webhook_id` due now, unless a worker
/// holds its lease (it is being attempted): the dispatcher then claims it as any due
/// delivery, under a lease, so it is never attempted twice at once. `None` when there is
/// no such pending, unleased delivery.
pub async fn due_now(
    db: impl PgExecutor<'_>,
    id: Uuid,
    webhook_id: Uuid,
) -> Result<Option<DeliveryRow>, CoreError> {
    sqlx::query_as!(
        DeliveryRow,
        r#"UPDATE deliveries SET next_attempt_at = now()
            WHERE id = $1 AND webhook_id = $2 AND status = 'pending'
              AND (locked_until IS NULL OR locked_until < now())
            RETURNING id, webhook_id, event, status AS "status: DeliveryStatus", next_attempt_at,
                      created_at"#,
        id,
        webhook_id
    )
    .fetch_optional(db)
    .await
    .map_err(read_error)
}

/// The account of subscription `id` (for the audit trail of an operator's edit).
pub async fn account_of_webhook(
    db: impl PgExecutor<'_>,
    id: Uuid,
) -> Result<Option<Uuid>, CoreError> {
    Ok(
        sqlx::query_scalar!("SELECT account_id FROM webhooks WHERE id = $1", id)
            .fetch_optional(db)
            .await?,
    )
}

/// The account of delivery `id` (for the audit trail of an operator's retry).
pub async fn account_of_delivery(
    db: impl PgExecutor<'_>,
    id: Uuid,
) -> Result<Option<Uuid>, CoreError> {
    Ok(
        sqlx::query_scalar!("SELECT account_id FROM deliveries WHERE id = $1", id)
            .fetch_optional(db)
            .await?,
    )
}

/// The status of delivery `id` (of subscription `webhook_id`, when given), if it exists.
pub async fn delivery_status(
    pool: &PgPool,
    id: Uuid,
    webhook_id: Option<Uuid>,
) -> Result<Option<DeliveryStatus>, CoreError> {
    sqlx::query_scalar!(
        r#"SELECT status AS "status: DeliveryStatus" FROM deliveries
            WHERE id = $1 AND ($2::uuid IS NULL OR webhook_id = $2)"#,
        id,
        webhook_id
    )
    .fetch_optional(pool)
    .await
    .map_err(read_error)
}

/// The delivery backlog for the metrics: deliveries waiting to be sent (first attempts
/// and retries, also of paused subscriptions) and the age in seconds of the oldest (0
/// when none waits). Read through the partial index of pending deliveries.
pub(crate) async fn backlog(pool: &PgPool) -> Result<(i64, f64), CoreError> {
    let row = sqlx::query!(
        r#"SELECT count(*) AS "pending!",
                  COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8
                      AS "oldest_age_secs!"
             FROM deliveries WHERE status = 'pending'"#
    )
    .fetch_one(pool)
    .await?;
    Ok((row.pending, row.oldest_age_secs))
}
