//! SQL of a form's summary (`responses::summary`) and of its rollup: the rows a tally
//! reads, the figures SQL counts (partial responses, hours, newest texts), and the
//! stored tally of each form (`response_rollups`).
//!
//! A form's responses become visible in `submitted_at` order: each one is stored under
//! the form's row lock with a later time than the last (`next_submitted_at`), in the
//! transaction that moves `forms.last_submitted_at`. So the responses any snapshot sees
//! are those up to some time, and "every response up to `through_at`" names a set
//! that later inserts never change; a delete or a change of the form's fields drops
//! the stored tally instead (`reset`), and the rollup starts again.

use super::Selection;
use super::selection::Statement;
use crate::error::CoreError;
use crate::forms::Field;
use crate::responses::tally::{Tally, TallyRow};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use sqlx::{PgConnection, PgExecutor, Postgres, Transaction};
use uuid::Uuid;

/// Selected responses of one UTC hour (asked only of short windows).
#[derive(sqlx::FromRow)]
pub struct HourRow {
    pub hour: DateTime<Utc>,
    pub completed: i64,
    pub partial: i64,
}

/// One of the newest text answers of a field.
#[derive(sqlx::FromRow)]
pub struct TextRow {
    pub field: String,
    pub id: Uuid,
    pub submitted_at: DateTime<Utc>,
    pub value: String,
}

/// Selected responses by hour, both statuses.
pub async fn per_hour(
    db: &mut PgConnection,
    sel: &Selection<'_>,
) -> Result<Vec<HourRow>, CoreError> {
    let mut s = Statement::new(
        "SELECT date_trunc('hour', r.submitted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, \
         count(*) FILTER (WHERE r.status = 'completed') AS completed, \
         count(*) FILTER (WHERE r.status = 'partial') AS partial",
    );
    sel.push_from(&mut s);
    s.push(" GROUP BY 1 ORDER BY 1");
    Ok(s.query_as()?.fetch_all(db).await?)
}

/// Selected partial responses per UTC date of their first save, and per page they are
/// at: `(date, page, count)`.
pub async fn partial_days_pages(
    db: &mut PgConnection,
    sel: &Selection<'_>,
) -> Result<Vec<(String, i32, i64)>, CoreError> {
    let mut s = Statement::new(
        "SELECT to_char(r.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), r.page, count(*)",
    );
    sel.push_from(&mut s);
    s.push(" GROUP BY 1, 2");
    Ok(s.query_as()?.fetch_all(db).await?)
}

/// The newest `per_field` string answers of each of the `texts` fields among the
/// selected responses, newest first: per field, a walk of the keyset index from the
/// newest response that stops at the `per_field`th answer.
pub async fn newest_texts(
    db: &mut PgConnection,
    sel: &Selection<'_>,
    texts: &[String],
    per_field: i64,
) -> Result<Vec<TextRow>, CoreError> {
    let mut s = Statement::new("SELECT f.key AS field, t.id, t.submitted_at, t.value FROM unnest(");
    s.bind(texts.to_vec()).push(
        "::text[]) AS f (key) CROSS JOIN LATERAL (SELECT r.id, r.submitted_at, \
         r.answers ->> f.key AS value",
    );
    sel.push_from(&mut s);
    s.push(" AND jsonb_typeof(r.answers -> f.key) = 'string'")
        .push(" ORDER BY r.submitted_at DESC, r.id DESC LIMIT ")
        .bind(per_field)
        .push(") t");
    Ok(s.query_as()?.fetch_all(db).await?)
}

/// The selected completed responses as a tally reads them, streamed (never all in
/// memory), oldest first; the first `limit` of them if given.
pub fn completed_rows<'c>(
    db: &'c mut PgConnection,
    sel: &Selection<'_>,
    limit: Option<i64>,
) -> Result<impl tokio_stream::Stream<Item = Result<TallyRow, CoreError>> + Send + 'c, CoreError> {
    use tokio_stream::StreamExt;
    let mut s = Statement::new(
        "SELECT r.answers, r.device_type, r.browser, r.os, r.submitted_at, \
         r.completion_time_seconds, r.language",
    );
    sel.push_from(&mut s);
    s.push(" ORDER BY r.submitted_at ASC, r.id ASC");
    if let Some(limit) = limit {
        s.push(" LIMIT ").bind(limit);
    }
    Ok(s.query_as::<TallyRow>()?
        .fetch(db)
        .map(|row| row.map_err(CoreError::from)))
}

/// A form's stored tally, and the time of the newest response it counts.
pub struct Rollup {
    pub through_at: DateTime<Utc>,
    pub tally: Tally,
}

/// The stored tally of a form, if any.
pub async fn stored(db: impl PgExecutor<'_>, form_id: Uuid) -> Result<Option<Rollup>, CoreError> {
    let row = sqlx::query!(
        r#"SELECT through_at AS "through_at!", tally AS "tally!: Json<Tally>"
             FROM response_rollups
            WHERE form_id = $1 AND through_at IS NOT NULL AND tally IS NOT NULL"#,
        form_id
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|r| Rollup {
        through_at: r.through_at,
        tally: r.tally.0,
    }))
}

/// Forms with responses newer than their stored tally, up to `limit`, those with the
/// most responses not yet counted first.
pub async fn behind(db: impl PgExecutor<'_>, limit: i64) -> Result<Vec<Uuid>, CoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT f.id
             FROM forms f LEFT JOIN response_rollups u ON u.form_id = f.id
            WHERE f.last_submitted_at IS NOT NULL
              AND (u.through_at IS NULL OR f.last_submitted_at > u.through_at)
            ORDER BY f.response_count - coalesce(u.counted, 0) DESC
            LIMIT $1"#,
        limit
    )
    .fetch_all(db)
    .await?)
}

/// A form's rollup row, locked, with the form's fields.
pub struct Locked {
    pub through_at: Option<DateTime<Utc>>,
    pub tally: Option<Tally>,
    pub fields: Vec<Field>,
}

/// Locks a form's rollup row for continuing it (made if missing); `None` when the form
/// is gone or another instance is continuing it. A `reset` waits for the lock, so it
/// never interleaves with a rollup.
pub async fn lock(
    tx: &mut Transaction<'_, Postgres>,
    form_id: Uuid,
) -> Result<Option<Locked>, CoreError> {
    sqlx::query!(
        "INSERT INTO response_rollups (form_id)
         SELECT id FROM forms WHERE id = $1
         ON CONFLICT (form_id) DO NOTHING",
        form_id
    )
    .execute(&mut **tx)
    .await?;
    let row = sqlx::query!(
        r#"SELECT u.through_at, u.tally AS "tally: Json<Tally>",
                  f.fields AS "fields: Json<Vec<Field>>"
             FROM response_rollups u JOIN forms f ON f.id = u.form_id
            WHERE u.form_id = $1 FOR UPDATE OF u SKIP LOCKED"#,
        form_id
    )
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.map(|r| Locked {
        through_at: r.through_at,
        tally: r.tally.map(|t| t.0),
        fields: r.fields.0,
    }))
}

/// Stores a form's tally, counting every response up to `through_at`.
pub async fn save(
    tx: &mut Transaction<'_, Postgres>,
    form_id: Uuid,
    through_at: DateTime<Utc>,
    tally: &Tally,
) -> Result<(), CoreError> {
    sqlx::query!(
        "UPDATE response_rollups SET through_at = $2, tally = $3, counted = $4, updated_at = now()
          WHERE form_id = $1",
        form_id,
        through_at,
        Json(tally) as _,
        tally.completed
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Drops a form's stored tally (in the transaction that deletes a response or changes
/// the form's fields): the upsert takes the row's lock, so a rollup running meanwhile
/// finishes first and is then dropped, and one starting later reads after this commit.
pub async fn reset(tx: &mut Transaction<'_, Postgres>, form_id: Uuid) -> Result<(), CoreError> {
    sqlx::query!(
        "INSERT INTO response_rollups (form_id) VALUES ($1)
         ON CONFLICT (form_id) DO UPDATE
            SET through_at = NULL, tally = NULL, counted = 0, updated_at = now()",
        form_id
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}
