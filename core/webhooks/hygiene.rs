//! Nothing left behind by deliveries. Their payloads carry a response's answers: when
//! the response (or its form) is deleted, the answers are removed from its pending and
//! past deliveries in the same transaction (a pending one is still delivered, with
//! `answers` empty and `answersRemoved: true`, so receivers see the event they were
//! promised without data that no longer exists). Settled deliveries, notifications and
//! their attempts are purged after the retention period (`--delivery-retention`).
//! Deliveries keep no secret: they are signed at send time with their subscription's
//! secret; a subscription deleted with its form is retired (kept with its secret)
//! only while deliveries to it are pending.

use crate::error::CoreError;
use sqlx::{PgPool, Postgres, Transaction};
use std::time::Duration;
use uuid::Uuid;

/// Rows deleted per statement by the purge: bounded transactions and lock times.
const PURGE_BATCH: i64 = 5000;

/// Removes the answers of response `id` from the payloads of its deliveries.
pub async fn remove_response_answers(
    tx: &mut Transaction<'_, Postgres>,
    id: Uuid,
) -> Result<u64, CoreError> {
    Ok(sqlx::query!(
        r#"UPDATE deliveries
              SET payload = convert_to(jsonb_set(jsonb_set(
                      convert_from(payload, 'UTF8')::jsonb,
                      '{data,answers}', '{}'::jsonb), '{data,answersRemoved}', 'true'::jsonb
                  )::text, 'UTF8')
            WHERE response_id = $1"#,
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
/// deliveries (form.deleted at least), before the form's delete removes them.
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

/// What one purge removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Purged {
    pub deliveries: u64,
    pub notifications: u64,
    pub retired_webhooks: u64,
}

/// Deletes settled (succeeded or failed) deliveries and notifications created more
/// than `retention` ago, with their attempts, and retired subscriptions with nothing
/// pending. Pending ones are kept whatever their age: they are still owed.
pub async fn purge(pool: &PgPool, retention: Duration) -> Result<Purged, CoreError> {
    let secs = retention.as_secs_f64();
    let mut purged = Purged::default();
    loop {
        let n = sqlx::query!(
            "DELETE FROM deliveries WHERE id IN (
                 SELECT id FROM deliveries
                  WHERE status <> 'pending' AND created_at < now() - make_interval(secs => $1)
                  LIMIT $2)",
            secs,
            PURGE_BATCH
        )
        .execute(pool)
        .await?
        .rows_affected();
        purged.deliveries += n;
        if n < PURGE_BATCH as u64 {
            break;
        }
    }
    loop {
        let n = sqlx::query!(
            "DELETE FROM notifications WHERE id IN (
                 SELECT id FROM notifications
                  WHERE status <> 'pending' AND created_at < now() - make_interval(secs => $1)
                  LIMIT $2)",
            secs,
            PURGE_BATCH
        )
        .execute(pool)
        .await?
        .rows_affected();
        purged.notifications += n;
        if n < PURGE_BATCH as u64 {
            break;
        }
    }
    purged.retired_webhooks = sqlx::query!(
        "DELETE FROM retired_webhooks r
          WHERE NOT EXISTS (SELECT 1 FROM deliveries d
                             WHERE d.webhook_id = r.id AND d.status = 'pending')"
    )
    .execute(pool)
    .await?
    .rows_affected();
    Ok(purged)
}
