//! SQL for subscriptions.

use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::{PgExecutor, Postgres, Transaction};
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
