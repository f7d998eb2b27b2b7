//! SQL for responses. Reads are scoped to a form of the calling account; writes run
//! under the form's row lock (see `TargetForm::next_submitted_at`).

use super::cursor::{Position, Sort};
use super::export::ExportRow;
use super::{Response, TargetForm};

pub(crate) mod bounded;
pub(crate) mod partial;
mod selection;
mod statement;
pub mod summary;
use crate::accounts::Plan;
use crate::db::decode::read_error;
use crate::error::CoreError;
use crate::forms::{Field, FormStatus};
use chrono::{DateTime, NaiveDate, Utc};
pub use selection::Selection;
use selection::Statement;
use serde_json::{Map, Value};
use sqlx::types::Json;
use sqlx::{PgConnection, PgExecutor, PgPool, Postgres, Transaction};
pub use statement::{Current, IfCurrent, Outcomes, insert_all_if_current};
use std::sync::Arc;
use uuid::Uuid;

/// A row of `responses`, or of `responses_with_partial` (where `page` is a partial's).
#[derive(sqlx::FromRow)]
struct ResponseRow {
    id: Uuid,
    form_id: Uuid,
    answers: Json<Map<String, Value>>,
    metadata: Json<Map<String, Value>>,
    device_type: Option<String>,
    browser: Option<String>,
    os: Option<String>,
    started_at: DateTime<Utc>,
    submitted_at: DateTime<Utc>,
    completion_time_seconds: Option<i64>,
    page: Option<i32>,
    language: Option<String>,
}

impl From<ResponseRow> for Response {
    fn from(r: ResponseRow) -> Self {
        Response {
            id: r.id,
            form_id: r.form_id,
            answers: r.answers.0,
            metadata: r.metadata.0,
            device_type: r.device_type,
            browser: r.browser,
            os: r.os,
            started_at: r.started_at,
            submitted_at: r.submitted_at,
            completion_time_seconds: r.completion_time_seconds,
            partial_page: r.page,
            language: r.language,
        }
    }
}

/// Which responses a list or an export holds: completed ones (as before partial
/// responses existed), or also partial ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statuses {
    Completed,
    Partial,
    All,
}

impl Statuses {
    /// The `status` values of `responses_with_partial` selected.
    pub(crate) fn names(self) -> Vec<String> {
        match self {
            Self::Completed => vec!["completed".into()],
            Self::Partial => vec!["partial".into()],
            Self::All => vec!["completed".into(), "partial".into()],
        }
    }
}

/// A time window `(since, until)`, both exclusive; open ends are far past / far future
/// so that every listing query has one shape (and one index plan).
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub since: DateTime<Utc>,
    pub until: DateTime<Utc>,
}

impl Window {
    pub fn new(since: Option<DateTime<Utc>>, until: Option<DateTime<Utc>>) -> Self {
        Self {
            since: since.unwrap_or_else(far_past),
            until: until.unwrap_or_else(far_future),
        }
    }

    pub fn is_open(&self) -> bool {
        self.since == far_past() && self.until == far_future()
    }
}

fn far_past() -> DateTime<Utc> {
    DateTime::from_timestamp(-62_135_596_800, 0).unwrap_or(DateTime::<Utc>::MIN_UTC) // 0001-01-01
}

fn far_future() -> DateTime<Utc> {
    DateTime::from_timestamp(253_402_300_799, 0).unwrap_or(DateTime::<Utc>::MAX_UTC) // 9999-12-31
}

/// The position before the first row of a listing in `sort` order.
pub fn start_position(sort: Sort) -> Position {
    match sort {
        Sort::Asc => Position {
            submitted_at: far_past(),
            id: Uuid::nil(),
        },
        Sort::Desc => Position {
            submitted_at: far_future(),
            id: Uuid::max(),
        },
    }
}

struct TargetRow {
    id: Uuid,
    account_id: Uuid,
    short_id: String,
    status: FormStatus,
    fields: Json<Vec<Field>>,
    settings: Json<Map<String, Value>>,
    response_count: i64,
    last_submitted_at: Option<DateTime<Utc>>,
    plan: Plan,
    response_limit: Option<i64>,
    has_webhooks: bool,
    form_version: String,
    account_version: String,
}

/// The row versions (`xmin`) of a form and of its account as read. A later statement
/// that finds both unchanged knows that nothing decided from the read has moved: no
/// edit, status change, response or plan change came in between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versions {
    pub form: String,
    pub account: String,
}

/// A form locked for a response insert, with its account's plan and own response limit
/// (also kept after its transaction as the instance's view of the form:
/// `responses::create::snapshot`).
#[derive(Clone)]
pub struct Locked {
    pub target: TargetForm,
    /// The form's public short id (its hosted page's address).
    pub short_id: String,
    pub plan: Plan,
    pub response_limit: Option<i64>,
    /// Whether the form has an active webhook: without one, a submission writes no
    /// event. Stable while the lock is held (webhooks are added under it).
    pub has_webhooks: bool,
    /// The versions of the form and account rows as locked.
    pub versions: Versions,
}

/// Locks the form for a response insert (its row lock orders the form's submissions).
/// `FOR NO KEY UPDATE` conflicts with itself, with every change of the form and with
/// the `FOR UPDATE` a webhook is added under, but not with the key-share lock of a
/// foreign key check: a row that only references the form (the rollup's) does not
/// wait for a create.
/// Whose form it is, and whether a page's address names it, is each submission's to
/// check (`create::submission::respond`): one lock serves the API's and the page's submissions.
pub async fn lock_target(
    tx: &mut Transaction<'_, Postgres>,
    form_id: Uuid,
) -> Result<Locked, CoreError> {
    let row = sqlx::query_as!(
        TargetRow,
        r#"SELECT f.id, f.account_id, f.short_id, f.status AS "status: FormStatus",
                  f.fields AS "fields: Json<Vec<Field>>",
                  f.settings AS "settings: Json<Map<String, Value>>", f.response_count,
                  f.last_submitted_at, a.plan AS "plan: Plan", a.response_limit,
                  EXISTS (SELECT 1 FROM webhooks w WHERE w.form_id = f.id AND w.is_active)
                      AS "has_webhooks!",
                  f.xmin::text AS "form_version!", a.xmin::text AS "account_version!"
             FROM forms f JOIN accounts a ON a.id = f.account_id
            WHERE f.id = $1
            FOR NO KEY UPDATE OF f"#,
        form_id
    )
    .fetch_optional(&mut **tx)
    .await
    .map_err(read_error)?
    .ok_or(CoreError::NotFound("form"))?;
    Ok(Locked {
        target: TargetForm {
            id: row.id,
            account_id: row.account_id,
            status: row.status,
            fields: row.fields.0,
            settings: Arc::new(row.settings.0),
            response_count: row.response_count,
            last_submitted_at: row.last_submitted_at,
        },
        short_id: row.short_id,
        plan: row.plan,
        response_limit: row.response_limit,
        has_webhooks: row.has_webhooks,
        versions: Versions {
            form: row.form_version,
            account: row.account_version,
        },
    })
}

/// The quota a response counts against: its account's responses in a month, up to a
/// limit (none: unlimited).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    pub account_id: Uuid,
    pub month: NaiveDate,
    pub limit: Option<i64>,
}

/// The response count of a form of the account (`NotFound` when it is not theirs), and
/// its fields when it has pages (a completed response's last page is read from them)
/// or when `with_fields` asks for them (a filter reads them).
pub async fn form_response_count(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
    form_id: Uuid,
    with_fields: bool,
) -> Result<(i64, Option<Vec<Field>>), CoreError> {
    let row = sqlx::query!(
        r#"SELECT response_count,
                  CASE WHEN $3 OR fields @> '[{"type": "page_break"}]' THEN fields END
                      AS "fields: Json<Vec<Field>>"
             FROM forms WHERE id = $1 AND account_id = $2"#,
        form_id,
        account_id,
        with_fields
    )
    .fetch_optional(db)
    .await?
    .ok_or(CoreError::NotFound("form"))?;
    Ok((row.response_count, row.fields.map(|f| f.0)))
}

/// Exact number of the selected responses (a count over the keyset index, or over the
/// filter's matches).
pub async fn count(db: &mut PgConnection, sel: &Selection<'_>) -> Result<i64, CoreError> {
    let mut s = Statement::new("SELECT count(*)");
    sel.push_from(&mut s);
    Ok(s.query_scalar::<i64>()?.fetch_one(db).await?)
}

/// Up to `limit` selected responses after `from` in `sort` order, skipping `offset`
/// rows: completed and partial ones in one keyset order.
pub async fn list(
    db: &mut PgConnection,
    sel: &Selection<'_>,
    sort: Sort,
    from: Position,
    limit: i64,
    offset: i64,
) -> Result<Vec<Response>, CoreError> {
    let mut s = Statement::new(
        "SELECT r.id, r.form_id, r.answers, r.metadata, r.device_type, r.browser, r.os, \
         r.started_at, r.submitted_at, r.completion_time_seconds, r.language, ",
    );
    s.push(sel.page_column());
    sel.push_from(&mut s);
    // The keyset comparison and order differ by direction.
    let (after, order) = match sort {
        Sort::Asc => (" > (", " ORDER BY r.submitted_at ASC, r.id ASC"),
        Sort::Desc => (" < (", " ORDER BY r.submitted_at DESC, r.id DESC"),
    };
    s.push(" AND (r.submitted_at, r.id)")
        .push(after)
        .bind(from.submitted_at)
        .push(", ")
        .bind(from.id)
        .push(")")
        .push(order);
    s.push(" LIMIT ").bind(limit).push(" OFFSET ").bind(offset);
    let rows: Vec<ResponseRow> = s.query_as()?.fetch_all(db).await?;
    Ok(rows.into_iter().map(Response::from).collect())
}

/// One response of a form of the account, completed or partial: a response id names
/// one or the other.
pub async fn get_with_partial(
    pool: &PgPool,
    account_id: Uuid,
    form_id: Uuid,
    id: Uuid,
) -> Result<(Response, Option<Vec<Field>>), CoreError> {
    // The form's fields come with the row, when it has pages (a completed response's
    // last page is read from them): one round trip.
    let row = sqlx::query!(
        r#"SELECT r.id AS "id!", r.form_id AS "form_id!",
                  r.answers AS "answers!: Json<Map<String, Value>>",
                  r.metadata AS "metadata!: Json<Map<String, Value>>", r.device_type,
                  r.browser, r.os, r.started_at AS "started_at!",
                  r.submitted_at AS "submitted_at!", r.completion_time_seconds, r.page,
                  r.language,
                  CASE WHEN f.fields @> '[{"type": "page_break"}]' THEN f.fields END
                      AS "fields: Json<Vec<Field>>"
             FROM responses_with_partial r JOIN forms f ON f.id = r.form_id
            WHERE r.id = $1 AND r.form_id = $2 AND f.account_id = $3"#,
        id,
        form_id,
        account_id
    )
    .fetch_optional(pool)
    .await?
    .ok_or(CoreError::NotFound("response"))?;
    let response = Response::from(ResponseRow {
        id: row.id,
        form_id: row.form_id,
        answers: row.answers,
        metadata: row.metadata,
        device_type: row.device_type,
        browser: row.browser,
        os: row.os,
        started_at: row.started_at,
        submitted_at: row.submitted_at,
        completion_time_seconds: row.completion_time_seconds,
        page: row.page,
        language: row.language,
    });
    Ok((response, row.fields.map(|f| f.0)))
}

/// Deletes one response of a form of the account and keeps the form's count right.
pub async fn delete(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    form_id: Uuid,
    id: Uuid,
) -> Result<(), CoreError> {
    let form = sqlx::query_scalar!(
        "SELECT id FROM forms WHERE id = $1 AND account_id = $2 FOR UPDATE",
        form_id,
        account_id
    )
    .fetch_optional(&mut **tx)
    .await?;
    if form.is_none() {
        return Err(CoreError::NotFound("response"));
    }
    let deleted = sqlx::query!(
        "DELETE FROM responses WHERE id = $1 AND form_id = $2",
        id,
        form_id
    )
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if deleted == 0 {
        return Err(CoreError::NotFound("response"));
    }
    sqlx::query!(
        "UPDATE forms SET response_count = response_count - 1 WHERE id = $1",
        form_id
    )
    .execute(&mut **tx)
    .await?;
    // A tally can not take one response out (a minimum, a maximum): it starts again.
    summary::reset(tx, form_id).await?;
    Ok(())
}

/// Every selected response, oldest first in keyset order, as one query streamed row by
/// row (the rows are never all in memory).
pub fn export_rows<'t>(
    tx: &'t mut Transaction<'static, Postgres>,
    sel: &Selection<'_>,
) -> Result<impl tokio_stream::Stream<Item = Result<ExportRow, CoreError>> + Send + 't, CoreError> {
    use tokio_stream::StreamExt;
    let mut s = Statement::new(
        "SELECT r.id, r.form_id, r.answers::text AS answers, r.metadata::text AS metadata, \
         r.device_type, r.browser, r.os, r.started_at, r.submitted_at, \
         r.completion_time_seconds, r.language, ",
    );
    s.push(sel.page_column());
    sel.push_from(&mut s);
    s.push(" ORDER BY r.submitted_at ASC, r.id ASC");
    let query = s.query_as::<ExportRow>()?;
    Ok(query
        .fetch(&mut **tx)
        .map(|row| row.map_err(CoreError::from)))
}

/// Whose a form is: its account and its hosted page's address (neither ever changes).
pub struct Owner {
    pub account_id: Uuid,
    pub short_id: String,
}

/// The owner of a form; `None` when there is no such form.
pub async fn form_owner(
    db: impl PgExecutor<'_>,
    form_id: Uuid,
) -> Result<Option<Owner>, CoreError> {
    Ok(sqlx::query_as!(
        Owner,
        "SELECT account_id, short_id FROM forms WHERE id = $1",
        form_id
    )
    .fetch_optional(db)
    .await?)
}
