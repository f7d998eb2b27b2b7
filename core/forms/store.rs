//! SQL for forms. Every query is scoped to the calling account, so another account's
//! forms are simply not found.

use super::theme::Theme;
use super::{Field, Form, FormFilter, FormStatus, Languages};
use crate::db::decode::read_error;
use crate::error::CoreError;
use crate::paging::Page;
use chrono::{DateTime, Utc};
use rand::Rng;
use serde_json::{Map, Value};
use sqlx::types::Json;
use sqlx::{PgExecutor, PgPool, Postgres, Transaction};
use uuid::Uuid;

// Every query names the columns of `FormRow` with the same type annotations:
// `status AS "status: FormStatus"`, `fields AS "fields: Json<Vec<Field>>"`,
// `settings AS "settings: Json<Map<String, Value>>"`,
// `languages AS "languages: Json<Languages>"`, `theme AS "theme: Json<Theme>"`,
// `retention_days`.

struct FormRow {
    id: Uuid,
    account_id: Uuid,
    short_id: String,
    title: String,
    description: Option<String>,
    status: FormStatus,
    fields: Json<Vec<Field>>,
    settings: Json<Map<String, Value>>,
    languages: Json<Languages>,
    theme: Option<Json<Theme>>,
    retention_days: Option<i32>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    published_at: Option<DateTime<Utc>>,
}

impl From<FormRow> for Form {
    fn from(row: FormRow) -> Self {
        Form {
            id: row.id,
            account_id: row.account_id,
            short_id: row.short_id,
            title: row.title,
            description: row.description,
            status: row.status,
            fields: row.fields.0,
            settings: row.settings.0,
            languages: row.languages.0,
            theme: row.theme.map(|t| t.0),
            retention_days: row.retention_days,
            created_at: row.created_at,
            updated_at: row.updated_at,
            published_at: row.published_at,
        }
    }
}

/// A random short public id: 8 characters of [0-9A-Za-z] (about 47 bits).
fn short_id() -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut rng = rand::rng();
    (0..8)
        .map(|_| char::from(ALPHABET[rng.random_range(0..ALPHABET.len())]))
        .collect()
}

/// Inserts a new form; a short id collision (rare) is retried with a new one.
pub(crate) async fn insert(
    tx: &mut Transaction<'_, Postgres>,
    form: &mut Form,
) -> Result<(), CoreError> {
    for _ in 0..5 {
        form.short_id = short_id();
        let inserted = sqlx::query!(
            "INSERT INTO forms (id, account_id, short_id, title, description, status, fields,
                                settings, created_at, updated_at, published_at, languages,
                                theme, retention_days)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
             ON CONFLICT (short_id) DO NOTHING",
            form.id,
            form.account_id,
            form.short_id,
            form.title,
            form.description.as_deref(),
            form.status as FormStatus,
            Json(&form.fields) as _,
            Json(&form.settings) as _,
            form.created_at,
            form.updated_at,
            form.published_at,
            Json(&form.languages) as _,
            form.theme.as_ref().map(Json) as _,
            form.retention_days
        )
        .execute(&mut **tx)
        .await?
        .rows_affected();
        if inserted == 1 {
            return Ok(());
        }
    }
    Err(CoreError::Internal("could not allocate a short id".into()))
}

/// Escapes LIKE wildcards so a search is a plain substring match.
fn like_pattern(search: &str) -> String {
    let escaped = search
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{escaped}%")
}

/// One page of an account's forms, newest first, and the size of the whole set.
pub(crate) async fn list(
    pool: &PgPool,
    account_id: Uuid,
    filter: &FormFilter,
    page: Page,
) -> Result<(Vec<Form>, i64), CoreError> {
    let status = filter.status;
    let pattern = filter.search.as_deref().map(like_pattern);
    // Account, optional status, optional title search: static SQL whose optional
    // filters are NULL parameters.
    let total = sqlx::query_scalar!(
        r#"SELECT count(*) AS "count!" FROM forms
            WHERE account_id = $1 AND ($2::text IS NULL OR status = $2)
              AND ($3::text IS NULL OR title ILIKE $3)"#,
        account_id,
        status as Option<FormStatus>,
        pattern
    )
    .fetch_one(pool)
    .await?;
    let rows = sqlx::query_as!(
        FormRow,
        r#"SELECT id, account_id, short_id, title, description, status AS "status: FormStatus",
                  fields AS "fields: Json<Vec<Field>>",
                  settings AS "settings: Json<Map<String, Value>>",
                  languages AS "languages: Json<Languages>",
                  theme AS "theme: Json<Theme>", retention_days,
                  created_at, updated_at, published_at
             FROM forms
            WHERE account_id = $1 AND ($2::text IS NULL OR status = $2)
              AND ($3::text IS NULL OR title ILIKE $3)
            ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5"#,
        account_id,
        status as Option<FormStatus>,
        pattern,
        page.limit(),
        page.offset()
    )
    .fetch_all(pool)
    .await
    .map_err(read_error)?;
    Ok((rows.into_iter().map(Form::from).collect(), total))
}

/// One form of an account.
pub(crate) async fn get(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
    id: Uuid,
) -> Result<Form, CoreError> {
    sqlx::query_as!(
        FormRow,
        r#"SELECT id, account_id, short_id, title, description, status AS "status: FormStatus",
                  fields AS "fields: Json<Vec<Field>>",
                  settings AS "settings: Json<Map<String, Value>>",
                  languages AS "languages: Json<Languages>",
                  theme AS "theme: Json<Theme>", retention_days,
                  created_at, updated_at, published_at
             FROM forms WHERE id = $1 AND account_id = $2"#,
        id,
        account_id
    )
    .fetch_optional(db)
    .await
    .map_err(read_error)?
    .map(Form::from)
    .ok_or(CoreError::NotFound("form"))
}

/// A published form by its public short id (any account), with its response count
/// (for the closing rules), in one read. Its theme is its own, else its account's
/// default: the form as its page shows it (never saved back).
pub(crate) async fn get_published_by_short_id(
    pool: &PgPool,
    short_id: &str,
) -> Result<Option<(Form, i64)>, CoreError> {
    let row = sqlx::query!(
        r#"SELECT id, account_id, short_id, title, description, status AS "status: FormStatus",
                  fields AS "fields: Json<Vec<Field>>",
                  settings AS "settings: Json<Map<String, Value>>",
                  languages AS "languages: Json<Languages>",
                  COALESCE(theme, (SELECT a.theme FROM accounts a WHERE a.id = forms.account_id))
                      AS "theme: Json<Theme>",
                  retention_days, created_at, updated_at, published_at, response_count
             FROM forms WHERE short_id = $1 AND status = 'published'"#,
        short_id
    )
    .fetch_optional(pool)
    .await
    .map_err(read_error)?;
    Ok(row.map(|r| {
        let form = Form::from(FormRow {
            id: r.id,
            account_id: r.account_id,
            short_id: r.short_id,
            title: r.title,
            description: r.description,
            status: r.status,
            fields: r.fields,
            settings: r.settings,
            languages: r.languages,
            theme: r.theme,
            retention_days: r.retention_days,
            created_at: r.created_at,
            updated_at: r.updated_at,
            published_at: r.published_at,
        });
        (form, r.response_count)
    }))
}

/// Locks one form of an account for an update within `tx`.
pub(crate) async fn get_for_update(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    id: Uuid,
) -> Result<Form, CoreError> {
    sqlx::query_as!(
        FormRow,
        r#"SELECT id, account_id, short_id, title, description, status AS "status: FormStatus",
                  fields AS "fields: Json<Vec<Field>>",
                  settings AS "settings: Json<Map<String, Value>>",
                  languages AS "languages: Json<Languages>",
                  theme AS "theme: Json<Theme>", retention_days,
                  created_at, updated_at, published_at
             FROM forms WHERE id = $1 AND account_id = $2 FOR UPDATE"#,
        id,
        account_id
    )
    .fetch_optional(&mut **tx)
    .await
    .map_err(read_error)?
    .map(Form::from)
    .ok_or(CoreError::NotFound("form"))
}

/// Writes back a form changed in memory.
pub(crate) async fn save(tx: &mut Transaction<'_, Postgres>, form: &Form) -> Result<(), CoreError> {
    sqlx::query!(
        "UPDATE forms SET title = $2, description = $3, status = $4, fields = $5, settings = $6,
                          updated_at = $7, published_at = $8, languages = $9, theme = $10,
                          retention_days = $11
          WHERE id = $1",
        form.id,
        form.title,
        form.description.as_deref(),
        form.status as FormStatus,
        Json(&form.fields) as _,
        Json(&form.settings) as _,
        form.updated_at,
        form.published_at,
        Json(&form.languages) as _,
        form.theme.as_ref().map(Json) as _,
        form.retention_days
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Deletes a form of an account (its responses go with it by cascade).
pub(crate) async fn delete(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    id: Uuid,
) -> Result<Form, CoreError> {
    sqlx::query_as!(
        FormRow,
        r#"DELETE FROM forms WHERE id = $1 AND account_id = $2
           RETURNING id, account_id, short_id, title, description, status AS "status: FormStatus",
                  fields AS "fields: Json<Vec<Field>>",
                  settings AS "settings: Json<Map<String, Value>>",
                  languages AS "languages: Json<Languages>",
                  theme AS "theme: Json<Theme>", retention_days,
                  created_at, updated_at, published_at"#,
        id,
        account_id
    )
    .fetch_optional(&mut **tx)
    .await
    .map_err(read_error)?
    .map(Form::from)
    .ok_or(CoreError::NotFound("form"))
}

/// A form's logo as stored: its bytes in the row, or the key of its object.
pub(crate) struct LogoRow<'a> {
    pub id: Uuid,
    pub content_type: &'a str,
    pub size: i64,
    pub content: Option<Vec<u8>>,
    pub object_key: Option<String>,
}

/// Stores a form's logo row (the form's row is locked by the caller).
pub(crate) async fn insert_logo(
    tx: &mut Transaction<'_, Postgres>,
    form_id: Uuid,
    logo: LogoRow<'_>,
) -> Result<(), CoreError> {
    let LogoRow {
        id,
        content_type,
        size,
        content,
        object_key,
    } = logo;
    sqlx::query!(
        "INSERT INTO form_logos (form_id, id, content_type, size, content, object_key)
         VALUES ($1, $2, $3, $4, $5, $6)",
        form_id,
        id,
        content_type,
        size,
        content,
        object_key
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Removes a form's logo row; its object key, if any.
pub(crate) async fn delete_logo(
    tx: &mut Transaction<'_, Postgres>,
    form_id: Uuid,
) -> Result<Option<String>, CoreError> {
    let key = sqlx::query_scalar!(
        "DELETE FROM form_logos WHERE form_id = $1 RETURNING object_key",
        form_id
    )
    .fetch_optional(&mut **tx)
    .await?;
    Ok(key.flatten())
}

/// A form's logo row: id, type, bytes (or object key); None without one.
pub(crate) async fn logo(pool: &PgPool, form_id: Uuid) -> Result<Option<LogoRowRead>, CoreError> {
    Ok(sqlx::query_as!(
        LogoRowRead,
        "SELECT id, content_type, content, object_key FROM form_logos WHERE form_id = $1",
        form_id
    )
    .fetch_optional(pool)
    .await?)
}

/// A logo row as read.
pub(crate) struct LogoRowRead {
    pub id: Uuid,
    pub content_type: String,
    pub content: Option<Vec<u8>>,
    pub object_key: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_wildcards_are_literal() {
        assert_eq!(like_pattern("50%_off\\"), "%50\\%\\_off\\\\%");
        assert_eq!(short_id().len(), 8);
    }
}
