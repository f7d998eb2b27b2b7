//! SQL for subscriptions, the outbox of deliveries, and their attempts.

use super::DeliveryStatus;
use crate::db::decode::read_error;
use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::{PgExecutor, PgPool, Postgres, Transaction};
use std::time::Duration;
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
        super::MAX_RETRIES,
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

/// An active subscription of a form, as the outbox needs it.
#[derive(Debug, Clone)]
pub struct Subscriber {
    pub id: Uuid,
    pub url: String,
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
    Ok(sqlx::query_as!(
        Subscriber,
        "SELECT id, url, events, max_retries FROM webhooks
          WHERE form_id = $1 AND account_id = $2 AND is_active AND events && $3",
        form_id,
        account_id,
        names
    )
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
    /// The response whose answers the payload carries, if any.
    pub response_id: Option<Uuid>,
    pub payload: &'a [u8],
    pub max_retries: i32,
    /// Due from, and created at.
    pub at: DateTime<Utc>,
}

pub async fn insert_delivery(
    tx: &mut Transaction<'_, Postgres>,
    d: NewDelivery<'_>,
) -> Result<(), CoreError> {
    sqlx::query!(
        "INSERT INTO deliveries (id, webhook_id, account_id, form_id, event, url, response_id,
                                 payload, max_retries, next_attempt_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
        Uuid::new_v4(),
        d.webhook_id,
        d.account_id,
        d.form_id,
        d.event,
        d.url,
        d.response_id,
        d.payload,
        d.max_retries,
        d.at
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Wakes the delivery workers (sent when the transaction of `db` commits).
pub async fn notify(db: impl PgExecutor<'_>) -> Result<(), CoreError> {
    sqlx::query!("SELECT pg_notify($1, '')", super::outbox::CHANNEL)
        .execute(db)
        .await?;
    Ok(())
}

/// A claimed delivery, with its subscription's current URL and secret (`None` when the
/// subscription is gone and nothing was kept of it: it cannot be signed).
pub struct Due {
    pub id: Uuid,
    /// Whose delivery it is: the slot it takes counts against this account's share.
    pub account_id: Uuid,
    pub event: String,
    pub url: String,
    pub secret: Option<String>,
    pub payload: Vec<u8>,
    pub attempts: i32,
    pub max_retries: i32,
    pub created_at: DateTime<Utc>,
}

/// What one claim may take: `limit` deliveries in all, and per account no more than
/// `per_account` minus what it already has in flight (`busy`: accounts and counts).
pub struct Claim<'a> {
    pub limit: i64,
    pub per_account: i64,
    pub busy_accounts: &'a [Uuid],
    pub busy_counts: &'a [i64],
    pub lease: Duration,
}

/// Claims due deliveries fairly across accounts, each for `lease` (several instances
/// never claim the same one). Every account with pending deliveries is visited (a skip
/// scan over `deliveries_account_due`) and offers its oldest due deliveries, up to its
/// free share; the offers are taken in the order of the slot each would occupy in its
/// account (1 + what that account has in flight, oldest first among equals), so free
/// slots go first to the accounts holding the fewest. The window function cannot take
/// row locks, so the chosen rows are then locked with `FOR UPDATE SKIP LOCKED`, which
/// re-checks status and lease on the newest row version: a delivery another instance
/// claimed meanwhile is dropped, exactly as before.
///
/// A delivery of a paused (inactive) subscription waits until it is active again; one
/// whose subscription still exists goes to its current URL, signed with its current
/// secret (an operator may have fixed the URL, or rotated the secret, before a retry);
/// one whose subscription went with its form uses the retired subscription's.
pub async fn claim_due(pool: &PgPool, claim: Claim<'_>) -> Result<Vec<Due>, CoreError> {
    Ok(sqlx::query_as!(
        Due,
        r#"WITH RECURSIVE accounts AS (
             (SELECT d.account_id FROM deliveries d WHERE d.status = 'pending'
               ORDER BY d.account_id LIMIT 1)
             UNION ALL
             SELECT (SELECT d.account_id FROM deliveries d
                      WHERE d.status = 'pending' AND d.account_id > a.account_id
                      ORDER BY d.account_id LIMIT 1)
               FROM accounts a WHERE a.account_id IS NOT NULL
         ), busy AS (
             SELECT b.account_id, b.n FROM unnest($3::uuid[], $4::int8[]) AS b(account_id, n)
         ), offers AS (
             SELECT o.id, o.slot, o.next_attempt_at
               FROM accounts a
               LEFT JOIN busy b ON b.account_id = a.account_id
               CROSS JOIN LATERAL (
                   SELECT d.id, d.next_attempt_at,
                          coalesce(b.n, 0) + row_number() OVER (ORDER BY d.next_attempt_at) AS slot
                     FROM deliveries d
                    WHERE d.account_id = a.account_id AND d.status = 'pending'
                      AND d.next_attempt_at <= now()
                      AND (d.locked_until IS NULL OR d.locked_until < now())
                      AND NOT EXISTS (SELECT 1 FROM webhooks w
                                       WHERE w.id = d.webhook_id AND NOT w.is_active)
                    ORDER BY d.next_attempt_at
                    LIMIT greatest($2::int8 - coalesce(b.n, 0), 0)
               ) o
              WHERE a.account_id IS NOT NULL
              ORDER BY o.slot, o.next_attempt_at
              LIMIT $1::int8
         ), due AS (
             SELECT d.id FROM deliveries d
              WHERE d.id IN (SELECT id FROM offers)
                AND d.status = 'pending' AND d.next_attempt_at <= now()
                AND (d.locked_until IS NULL OR d.locked_until < now())
              FOR UPDATE OF d SKIP LOCKED
         ), claimed AS (
             UPDATE deliveries d SET locked_until = now() + make_interval(secs => $5)
               FROM due WHERE d.id = due.id
             RETURNING d.id, d.account_id, d.webhook_id, d.event, d.url, d.payload,
                       d.attempts, d.max_retries, d.created_at
         )
         SELECT c.id AS "id!", c.account_id AS "account_id!", c.event AS "event!",
                COALESCE(w.url, r.url, c.url) AS "url!",
                COALESCE(w.secret, r.secret) AS "secret?",
                c.payload AS "payload!", c.attempts AS "attempts!",
                c.max_retries AS "max_retries!", c.created_at AS "created_at!"
           FROM claimed c LEFT JOIN webhooks w ON w.id = c.webhook_id
           LEFT JOIN retired_webhooks r ON r.id = c.webhook_id"#,
        claim.limit,
        claim.per_account,
        claim.busy_accounts,
        claim.busy_counts,
        claim.lease.as_secs_f64()
    )
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
    sqlx::query!(
        "INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code, duration_ms, error,
                                        response_body)
         VALUES ($1, $2, $3, $4, $5, $6)",
        delivery_id,
        attempt.attempted_at,
        attempt.status_code,
        attempt.duration_ms,
        attempt.error,
        attempt.response_body
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "UPDATE deliveries SET status = $2, attempts = $3, locked_until = NULL,
                next_attempt_at = CASE WHEN $4::float8 IS NULL THEN next_attempt_at
                                       ELSE now() + make_interval(secs => $4) END
          WHERE id = $1",
        delivery_id,
        status as DeliveryStatus,
        attempts,
        retry_in.map(|d| d.as_secs_f64())
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
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

/// One page of a subscription's deliveries, newest first.
pub async fn list_deliveries(
    pool: &PgPool,
    webhook_id: Uuid,
    limit: i64,
    offset: i64,
) -> Result<Vec<DeliveryRow>, CoreError> {
    sqlx::query_as!(
        DeliveryRow,
        r#"SELECT id, webhook_id, event, status AS "status: DeliveryStatus", next_attempt_at,
                  created_at
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
/// is no failed delivery `id`.
pub async fn retry_failed(pool: &PgPool, id: Uuid) -> Result<Option<DeliveryRow>, CoreError> {
    sqlx::query_as!(
        DeliveryRow,
        r#"UPDATE deliveries SET status = 'pending', next_attempt_at = now(), locked_until = NULL,
                  attempts = 0
            WHERE id = $1 AND status = 'failed'
            RETURNING id, webhook_id, event, status AS "status: DeliveryStatus", next_attempt_at,
                      created_at"#,
        id
    )
    .fetch_optional(pool)
    .await
    .map_err(read_error)
}

/// The status of delivery `id`, if it exists.
pub async fn delivery_status(pool: &PgPool, id: Uuid) -> Result<Option<DeliveryStatus>, CoreError> {
    sqlx::query_scalar!(
        r#"SELECT status AS "status: DeliveryStatus" FROM deliveries WHERE id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await
    .map_err(read_error)
}

/// The delivery backlog for the metrics: deliveries waiting to be sent (first attempts
/// and retries, also of paused subscriptions) and the age in seconds of the oldest (0
/// when none waits). Read through the partial index of pending deliveries.
pub async fn backlog(pool: &PgPool) -> Result<(i64, f64), CoreError> {
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
