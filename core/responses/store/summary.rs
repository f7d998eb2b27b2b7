//! SQL of a form's summary (`responses::summary`): aggregates over the responses of a
//! window, one statement per kind of figure, so that PostgreSQL reads the rows and only
//! the figures cross the wire. The caller runs them in one read-only snapshot, so the
//! figures agree with each other. Every statement is scoped to one form, whose owner
//! the caller has checked.

use super::Window;
use crate::error::CoreError;
use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{Map, Value};
use sqlx::PgConnection;
use sqlx::types::Json;
use uuid::Uuid;

/// Responses of one UTC date (completed ones by submission, partial ones by first save).
pub struct DayRow {
    pub day: NaiveDate,
    pub completed: i64,
    pub partial: i64,
}

/// Responses of one UTC hour.
pub struct HourRow {
    pub hour: DateTime<Utc>,
    pub completed: i64,
    pub partial: i64,
}

/// Completion time of completed responses (`percentile_cont`: interpolated).
pub struct Timing {
    pub timed: i64,
    pub median: Option<f64>,
    pub p90: Option<f64>,
}

/// How many completed responses have `value` ("unknown" for null) in `dimension`
/// (`device_type`, `browser` or `os`).
pub struct ShareRow {
    pub dimension: String,
    pub value: String,
    pub count: i64,
}

/// What one field's answers add up to. Number figures are filled only for the fields
/// asked as numbers, earliest/latest only for those asked as dates.
pub struct FieldRow {
    pub field: String,
    pub answered: i64,
    pub ticked: i64,
    pub min_number: Option<f64>,
    pub max_number: Option<f64>,
    pub avg_number: Option<f64>,
    pub earliest: Option<String>,
    pub latest: Option<String>,
}

/// How many answers of a counted field give `value` (an option id or an integer as
/// text; `None`: an "other" text). An array answer counts each of its items.
pub struct ValueRow {
    pub field: String,
    pub value: Option<String>,
    pub count: i64,
}

/// One of the newest text answers of a field.
pub struct TextRow {
    pub field: String,
    pub id: Uuid,
    pub submitted_at: DateTime<Utc>,
    pub value: String,
}

/// Responses by day, both statuses.
pub async fn per_day(
    db: &mut PgConnection,
    form_id: Uuid,
    w: Window,
) -> Result<Vec<DayRow>, CoreError> {
    Ok(sqlx::query_as!(
        DayRow,
        r#"SELECT (submitted_at AT TIME ZONE 'UTC')::date AS "day!",
                  count(*) FILTER (WHERE status = 'completed') AS "completed!",
                  count(*) FILTER (WHERE status = 'partial') AS "partial!"
             FROM responses_with_partial
            WHERE form_id = $1 AND submitted_at > $2 AND submitted_at < $3
            GROUP BY 1 ORDER BY 1"#,
        form_id,
        w.since,
        w.until
    )
    .fetch_all(db)
    .await?)
}

/// Responses by hour, both statuses (asked only of short windows).
pub async fn per_hour(
    db: &mut PgConnection,
    form_id: Uuid,
    w: Window,
) -> Result<Vec<HourRow>, CoreError> {
    Ok(sqlx::query_as!(
        HourRow,
        r#"SELECT date_trunc('hour', submitted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
                      AS "hour!",
                  count(*) FILTER (WHERE status = 'completed') AS "completed!",
                  count(*) FILTER (WHERE status = 'partial') AS "partial!"
             FROM responses_with_partial
            WHERE form_id = $1 AND submitted_at > $2 AND submitted_at < $3
            GROUP BY 1 ORDER BY 1"#,
        form_id,
        w.since,
        w.until
    )
    .fetch_all(db)
    .await?)
}

/// Median and p90 of the completion time of completed responses.
pub async fn timing(db: &mut PgConnection, form_id: Uuid, w: Window) -> Result<Timing, CoreError> {
    Ok(sqlx::query_as!(
        Timing,
        r#"SELECT count(completion_time_seconds) AS "timed!",
                  percentile_cont(0.5) WITHIN GROUP (ORDER BY completion_time_seconds)
                      AS median,
                  percentile_cont(0.9) WITHIN GROUP (ORDER BY completion_time_seconds)
                      AS p90
             FROM responses
            WHERE form_id = $1 AND submitted_at > $2 AND submitted_at < $3"#,
        form_id,
        w.since,
        w.until
    )
    .fetch_one(db)
    .await?)
}

/// Device type, browser and OS counts of completed responses, in one pass.
pub async fn shares(
    db: &mut PgConnection,
    form_id: Uuid,
    w: Window,
) -> Result<Vec<ShareRow>, CoreError> {
    Ok(sqlx::query_as!(
        ShareRow,
        r#"SELECT d.dimension AS "dimension!", d.value AS "value!", count(*) AS "count!"
             FROM responses r
            CROSS JOIN LATERAL (VALUES ('device_type', coalesce(r.device_type, 'unknown')),
                                       ('browser', coalesce(r.browser, 'unknown')),
                                       ('os', coalesce(r.os, 'unknown'))) AS d (dimension, value)
            WHERE r.form_id = $1 AND r.submitted_at > $2 AND r.submitted_at < $3
            GROUP BY 1, 2"#,
        form_id,
        w.since,
        w.until
    )
    .fetch_all(db)
    .await?)
}

/// Per answered field of completed responses: how many answer it (null is no answer),
/// how many tick it (`true`), and, for the `numbers` and `dates` fields, their
/// min/max/average and earliest/latest (dates are `YYYY-MM-DD`: their byte order is
/// their time order).
pub async fn fields(
    db: &mut PgConnection,
    form_id: Uuid,
    w: Window,
    numbers: &[String],
    dates: &[String],
) -> Result<Vec<FieldRow>, CoreError> {
    Ok(sqlx::query_as!(
        FieldRow,
        r#"SELECT e.key AS "field!", count(*) AS "answered!",
                  count(*) FILTER (WHERE e.value = 'true'::jsonb) AS "ticked!",
                  (min(e.value::numeric) FILTER (WHERE e.key = ANY($4)
                       AND jsonb_typeof(e.value) = 'number'))::float8 AS min_number,
                  (max(e.value::numeric) FILTER (WHERE e.key = ANY($4)
                       AND jsonb_typeof(e.value) = 'number'))::float8 AS max_number,
                  (avg(e.value::numeric) FILTER (WHERE e.key = ANY($4)
                       AND jsonb_typeof(e.value) = 'number'))::float8 AS avg_number,
                  min(e.value #>> '{}' COLLATE "C") FILTER (WHERE e.key = ANY($5)
                       AND jsonb_typeof(e.value) = 'string') AS earliest,
                  max(e.value #>> '{}' COLLATE "C") FILTER (WHERE e.key = ANY($5)
                       AND jsonb_typeof(e.value) = 'string') AS latest
             FROM responses r CROSS JOIN LATERAL jsonb_each(r.answers) e
            WHERE r.form_id = $1 AND r.submitted_at > $2 AND r.submitted_at < $3
              AND e.value <> 'null'::jsonb
            GROUP BY e.key"#,
        form_id,
        w.since,
        w.until,
        numbers,
        dates
    )
    .fetch_all(db)
    .await?)
}

/// Counts per value of the `counted` fields (choices, ratings, scales) of completed
/// responses; an object (`{"other": text}`) counts as `None`.
pub async fn values(
    db: &mut PgConnection,
    form_id: Uuid,
    w: Window,
    counted: &[String],
) -> Result<Vec<ValueRow>, CoreError> {
    Ok(sqlx::query_as!(
        ValueRow,
        r#"SELECT f.key AS "field!",
                  CASE WHEN jsonb_typeof(x.v) = 'object' THEN NULL ELSE x.v #>> '{}' END
                      AS value,
                  count(*) AS "count!"
             FROM responses r
            CROSS JOIN unnest($4::text[]) AS f (key)
            CROSS JOIN LATERAL jsonb_array_elements(
                      CASE WHEN jsonb_typeof(r.answers -> f.key) = 'array'
                           THEN r.answers -> f.key
                           ELSE jsonb_build_array(r.answers -> f.key) END) AS x (v)
            WHERE r.form_id = $1 AND r.submitted_at > $2 AND r.submitted_at < $3
              AND r.answers ? f.key AND x.v <> 'null'::jsonb
            GROUP BY 1, 2"#,
        form_id,
        w.since,
        w.until,
        counted
    )
    .fetch_all(db)
    .await?)
}

/// The newest `per_field` text answers of each of the `texts` fields of completed
/// responses, newest first (by submission time, then id, the order of the list).
pub async fn newest_texts(
    db: &mut PgConnection,
    form_id: Uuid,
    w: Window,
    texts: &[String],
    per_field: i64,
) -> Result<Vec<TextRow>, CoreError> {
    Ok(sqlx::query_as!(
        TextRow,
        r#"SELECT t.key AS "field!", t.id AS "id!", t.submitted_at AS "submitted_at!",
                  t.value AS "value!"
             FROM (SELECT f.key, r.id, r.submitted_at, r.answers ->> f.key AS value,
                          row_number() OVER (PARTITION BY f.key
                                             ORDER BY r.submitted_at DESC, r.id DESC) AS n
                     FROM responses r CROSS JOIN unnest($4::text[]) AS f (key)
                    WHERE r.form_id = $1 AND r.submitted_at > $2 AND r.submitted_at < $3
                      AND jsonb_typeof(r.answers -> f.key) = 'string') t
            WHERE t.n <= $5
            ORDER BY t.key, t.n"#,
        form_id,
        w.since,
        w.until,
        texts,
        per_field
    )
    .fetch_all(db)
    .await?)
}

/// Unfinished partial responses of the window, per page they are at.
pub async fn partial_pages(
    db: &mut PgConnection,
    form_id: Uuid,
    w: Window,
) -> Result<Vec<(i32, i64)>, CoreError> {
    let rows = sqlx::query!(
        r#"SELECT page, count(*) AS "count!"
             FROM partial_responses
            WHERE form_id = $1 AND completed_at IS NULL AND saved_at > $2 AND saved_at < $3
            GROUP BY page"#,
        form_id,
        w.since,
        w.until
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|r| (r.page, r.count)).collect())
}

/// The answers of every completed response of the window, streamed (never all in
/// memory), for what SQL can not compute: the pages each one was shown.
pub fn completed_answers<'c>(
    db: &'c mut PgConnection,
    form_id: Uuid,
    w: Window,
) -> impl tokio_stream::Stream<Item = Result<Map<String, Value>, CoreError>> + Send + 'c {
    use tokio_stream::StreamExt;
    sqlx::query_scalar!(
        r#"SELECT answers AS "answers: Json<Map<String, Value>>"
             FROM responses
            WHERE form_id = $1 AND submitted_at > $2 AND submitted_at < $3"#,
        form_id,
        w.since,
        w.until
    )
    .fetch(db)
    .map(|row| row.map(|answers| answers.0).map_err(CoreError::from))
}
