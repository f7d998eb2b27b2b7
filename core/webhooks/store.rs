//! SQL for subscriptions, the outbox of deliveries, and their attempts.

use super::DeliveryStatus;
use crate::db::decode::read_error;
use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::{PgExecutor, PgPool, Postgres, Transaction};
use std::time::Duration;
use uuid::Uuid;

/// A subscription row (the secret stays in the database).
#[derive(Debug, Clone, sqlx::FromRow)]
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

macro_rules! columns {
    () => {
        "id, form_id, name, url, events, is_active, max_retries, created_at, updated_at"
    };
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
    Ok(sqlx::query_as::<_, WebhookRow>(concat!(
        "INSERT INTO webhooks (id, form_id, account_id, name, url, events, is_active, max_retries,
                               secret, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, true, $7, $8, $9, $9) RETURNING ",
        columns!()
    ))
    .bind(Uuid::new_v4())
    .bind(form_id)
    .bind(account_id)
    .bind(name)
    .bind(url)
    .bind(events)
    .bind(super::MAX_RETRIES)
    .bind(secret)
    .bind(now)
    .fetch_one(&mut **tx)
    .await?)
}

pub async fn list(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
    form_id: Uuid,
) -> Result<Vec<WebhookRow>, CoreError> {
    Ok(sqlx::query_as::<_, WebhookRow>(concat!(
        "SELECT ",
        columns!(),
        " FROM webhooks WHERE form_id = $1 AND account_id = $2 ORDER BY created_at, id"
    ))
    .bind(form_id)
    .bind(account_id)
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
    sqlx::query(
        "DELETE FROM deliveries WHERE webhook_id = $1 AND status = 'pending' AND account_id = $2",
    )
    .bind(id)
    .bind(account_id)
    .execute(&mut **tx)
    .await?;
    let deleted =
        sqlx::query("DELETE FROM webhooks WHERE id = $1 AND form_id = $2 AND account_id = $3")
            .bind(id)
            .bind(form_id)
            .bind(account_id)
            .execute(&mut **tx)
            .await?
            .rows_affected();
    if deleted == 0 {
        return Err(CoreError::NotFound("webhook"));
    }
    Ok(())
}

/// Reads a subscription by id alone (operators).
pub async fn get_any(db: impl PgExecutor<'_>, id: Uuid) -> Result<WebhookRow, CoreError> {
    sqlx::query_as::<_, WebhookRow>(concat!(
        "SELECT ",
        columns!(),
        " FROM webhooks WHERE id = $1"
    ))
    .bind(id)
    .fetch_optional(db)
    .await?
    .ok_or(CoreError::NotFound("webhook"))
}

/// Writes an operator's change to a subscription.
pub async fn update(db: impl PgExecutor<'_>, row: &WebhookRow) -> Result<WebhookRow, CoreError> {
    sqlx::query_as::<_, WebhookRow>(concat!(
        "UPDATE webhooks SET name = $2, url = $3, events = $4, is_active = $5, updated_at = $6
          WHERE id = $1 RETURNING ",
        columns!()
    ))
    .bind(row.id)
    .bind(&row.name)
    .bind(&row.url)
    .bind(&row.events)
    .bind(row.is_active)
    .bind(row.updated_at)
    .fetch_optional(db)
    .await?
    .ok_or(CoreError::NotFound("webhook"))
}

/// An active subscription of a form, as the outbox needs it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Subscriber {
    pub id: Uuid,
    pub url: String,
    pub secret: String,
    pub events: Vec<String>,
    pub max_retries: i32,
}

/// Active subscriptions of a form of the account that list one of `names`.
pub async fn subscribers(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    form_id: Uuid,
    names: &[String],
) -> Result<Vec<Subscriber>, CoreError> {
    Ok(sqlx::query_as::<_, Subscriber>(
        "SELECT id, url, secret, events, max_retries FROM webhooks
          WHERE form_id = $1 AND account_id = $2 AND is_active AND events && $3",
    )
    .bind(form_id)
    .bind(account_id)
    .bind(names)
    .fetch_all(&mut **tx)
    .await?)
}

/// A delivery to write to the outbox.
pub struct NewDelivery<'a> {
    pub webhook_id: Uuid,
    pub account_id: Uuid,
    pub form_id: Uuid,
    pub event: &'a str,
    pub url: &'a str,
    pub secret: &'a str,
    pub payload: &'a [u8],
    pub max_retries: i32,
    /// Due from, and created at.
    pub at: DateTime<Utc>,
}

pub async fn insert_delivery(
    tx: &mut Transaction<'_, Postgres>,
    d: NewDelivery<'_>,
) -> Result<(), CoreError> {
    sqlx::query(
        "INSERT INTO deliveries (id, webhook_id, account_id, form_id, event, url, secret, payload,
                                 max_retries, next_attempt_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
    )
    .bind(Uuid::new_v4())
    .bind(d.webhook_id)
    .bind(d.account_id)
    .bind(d.form_id)
    .bind(d.event)
    .bind(d.url)
    .bind(d.secret)
    .bind(d.payload)
    .bind(d.max_retries)
    .bind(d.at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Wakes the delivery workers (sent when the transaction of `db` commits).
pub async fn notify(db: impl PgExecutor<'_>) -> Result<(), CoreError> {
    sqlx::query("SELECT pg_notify($1, '')")
        .bind(super::outbox::CHANNEL)
        .execute(db)
        .await?;
    Ok(())
}

/// A claimed delivery, with its subscription's current URL and secret.
#[derive(sqlx::FromRow)]
pub struct Due {
    pub id: Uuid,
    pub event: String,
    pub url: String,
    pub secret: String,
    pub payload: Vec<u8>,
    pub attempts: i32,
    pub max_retries: i32,
    pub created_at: DateTime<Utc>,
}

/// Claims up to `limit` due deliveries for `lease` (several instances never claim the
/// same one). A delivery of a paused (inactive) subscription waits until it is active
/// again; one whose subscription still exists goes to its current URL, signed with its
/// current secret (an operator may have fixed the URL before a retry).
pub async fn claim_due(pool: &PgPool, limit: i64, lease: Duration) -> Result<Vec<Due>, CoreError> {
    Ok(sqlx::query_as::<_, Due>(
        "WITH due AS (
             SELECT d.id FROM deliveries d
              WHERE d.status = 'pending' AND d.next_attempt_at <= now()
                AND (d.locked_until IS NULL OR d.locked_until < now())
                AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND NOT w.is_active)
              ORDER BY d.next_attempt_at
              LIMIT $1
              FOR UPDATE OF d SKIP LOCKED
         ), claimed AS (
             UPDATE deliveries d SET locked_until = now() + make_interval(secs => $2)
               FROM due WHERE d.id = due.id
             RETURNING d.id, d.webhook_id, d.event, d.url, d.secret, d.payload, d.attempts,
                       d.max_retries, d.created_at
         )
         SELECT c.id, c.event, COALESCE(w.url, c.url) AS url,
                COALESCE(w.secret, c.secret) AS secret, c.payload, c.attempts,
                c.max_retries, c.created_at
           FROM claimed c LEFT JOIN webhooks w ON w.id = c.webhook_id",
    )
    .bind(limit)
    .bind(lease.as_secs_f64())
    .fetch_all(pool)
    .await?)
}

/// One attempt at a delivery.
pub struct Attempt<'a> {
    pub attempted_at: DateTime<Utc>,
    pub status_code: Option<i32>,
    pub duration_ms: i64,
    pub error: Option<&'a str>,
    pub response_body: &'a str,
}

/// Records an attempt and moves its delivery on: to `status`, with `attempts` made,
/// released, due again after `retry_in` if there is one.
pub async fn record_attempt(
    pool: &PgPool,
    delivery_id: Uuid,
    attempt: Attempt<'_>,
    status: DeliveryStatus,
    attempts: i32,
    retry_in: Option<Duration>,
) -> Result<(), CoreError> {
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_body)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(delivery_id)
    .bind(attempt.attempted_at)
    .bind(attempt.status_code)
    .bind(attempt.duration_ms)
    .bind(attempt.error)
    .bind(attempt.response_body)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE deliveries SET status = $2, attempts = $3, locked_until = NULL,
                next_attempt_at = CASE WHEN $4::float8 IS NULL THEN next_attempt_at
                                       ELSE now() + make_interval(secs => $4) END
          WHERE id = $1",
    )
    .bind(delivery_id)
    .bind(status)
    .bind(attempts)
    .bind(retry_in.map(|d| d.as_secs_f64()))
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// A delivery as operators list it.
#[derive(sqlx::FromRow)]
pub struct DeliveryRow {
    pub id: Uuid,
    pub webhook_id: Option<Uuid>,
    pub event: String,
    pub status: DeliveryStatus,
    pub next_attempt_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
}

/// An attempt as operators list it.
#[derive(sqlx::FromRow)]
pub struct AttemptRow {
    pub delivery_id: Uuid,
    pub attempted_at: DateTime<Utc>,
    pub status_code: Option<i32>,
    pub duration_ms: i64,
    pub error: Option<String>,
    pub response_body: String,
}

/// One page of a subscription's deliveries, newest first.
pub async fn list_deliveries(
    pool: &PgPool,
    webhook_id: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<DeliveryRow>, CoreError> {
    sqlx::query_as::<_, DeliveryRow>(
        "SELECT id, webhook_id, event, status, next_attempt_at, created_at FROM deliveries
          WHERE webhook_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3",
    )
    .bind(webhook_id)
    .bind(limit)
    .bind(offset)
    .fetch_all(pool)
    .await
    .map_err(read_error)
}

/// The attempts of the deliveries `ids`, oldest first.
pub async fn list_attempts(pool: &PgPool, ids: &[Uuid]) -> Result<Vec<AttemptRow>, CoreError> {
    Ok(sqlx::query_as::<_, AttemptRow>(
        "SELECT delivery_id, attempted_at, status_code, duration_ms, error, response_body
           FROM delivery_attempts WHERE delivery_id = ANY($1) ORDER BY attempted_at, id",
    )
    .bind(ids)
    .fetch_all(pool)
    .await?)
}

/// Makes a failed delivery due again now, with a fresh retry budget; `None` when there
/// is no failed delivery `id`.
pub async fn retry_failed(pool: &PgPool, id: Uuid) -> Result<Option<DeliveryRow>, CoreError> {
    sqlx::query_as::<_, DeliveryRow>(
        "UPDATE deliveries SET status = 'pending', next_attempt_at = now(), locked_until = NULL,
                attempts = 0
          WHERE id = $1 AND status = 'failed'
          RETURNING id, webhook_id, event, status, next_attempt_at, created_at",
    )
    .bind(id)
    .fetch_optional(pool)
    .await
    .map_err(read_error)
}

/// The status of delivery `id`, if it exists.
pub async fn delivery_status(pool: &PgPool, id: Uuid) -> Result<Option<DeliveryStatus>, CoreError> {
    let row: Option<(DeliveryStatus,)> =
        sqlx::query_as("SELECT status FROM deliveries WHERE id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await
            .map_err(read_error)?;
    Ok(row.map(|(status,)| status))
}
