//! SQL of the labels owners give their API keys (migration 0024): set on a key of the
//! account, read for the account's list.

use crate::error::CoreError;
use sqlx::PgPool;
use std::collections::HashMap;
use uuid::Uuid;

/// Sets the label of key `key_id` of `account_id` (`None` removes it).
pub(crate) async fn set_label(
    db: impl sqlx::PgExecutor<'_>,
    account_id: Uuid,
    key_id: Uuid,
    label: Option<&str>,
) -> Result<(), CoreError> {
    sqlx::query!(
        "UPDATE api_keys SET label = $3 WHERE id = $1 AND account_id = $2",
        key_id,
        account_id,
        label
    )
    .execute(db)
    .await?;
    Ok(())
}

/// The labels of the account's keys that have one, by key id.
pub(crate) async fn labels(
    pool: &PgPool,
    account_id: Uuid,
) -> Result<HashMap<Uuid, String>, CoreError> {
    let rows = sqlx::query!(
        r#"SELECT id, label AS "label!" FROM api_keys WHERE account_id = $1 AND label IS NOT NULL"#,
        account_id
    )
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(|r| (r.id, r.label)).collect())
}
