//! Where files live: PostgreSQL, in the transaction of their response.

use super::CheckedFile;
use crate::error::CoreError;
use sqlx::{PgPool, Postgres, Transaction};
use uuid::Uuid;

/// Stores the files of a response being inserted in `tx`.
pub async fn insert(
    tx: &mut Transaction<'_, Postgres>,
    response_id: Uuid,
    files: &[CheckedFile],
) -> Result<(), CoreError> {
    for f in files {
        sqlx::query(
            "INSERT INTO response_files (id, response_id, field_id, file_name, content_type, size, content)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(f.id)
        .bind(response_id)
        .bind(&f.field_id)
        .bind(&f.file_name)
        .bind(&f.content_type)
        .bind(i64::try_from(f.content.len()).unwrap_or(i64::MAX))
        .bind(&f.content)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

/// A stored file of a response of a form of the account: name, type and bytes.
pub async fn get(
    pool: &PgPool,
    account_id: Uuid,
    form_id: Uuid,
    response_id: Uuid,
    file_id: Uuid,
) -> Result<(String, String, Vec<u8>), CoreError> {
    sqlx::query_as(
        "SELECT f.file_name, f.content_type, f.content
           FROM response_files f
           JOIN responses r ON r.id = f.response_id
           JOIN forms fo ON fo.id = r.form_id
          WHERE f.id = $1 AND r.id = $2 AND r.form_id = $3 AND fo.account_id = $4",
    )
    .bind(file_id)
    .bind(response_id)
    .bind(form_id)
    .bind(account_id)
    .fetch_optional(pool)
    .await?
    .ok_or(CoreError::NotFound("file"))
}
