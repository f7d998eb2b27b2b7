//! SQL of the notification outbox and its attempts.

use crate::db::decode::read_error;
use crate::error::CoreError;
use crate::forms::Field;
use crate::outbox::DeliveryStatus;
use crate::responses::{Response, TargetForm};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use sqlx::types::Json;
use sqlx::{PgPool, Postgres, Transaction};
use uuid::Uuid;

/// Takes the transaction-long advisory locks `keys` (the digests of the addresses a
/// batch mails), in the order given.
pub(crate) async fn lock_addresses(
    tx: &mut Transaction<'_, Postgres>,
    keys: &[i64],
) -> Result<(), CoreError> {
    sqlx::query!(
        "SELECT count(pg_advisory_xact_lock(k)) FROM unnest($1::int8[]) AS k",
        keys
    )
    .fetch_one(&mut **tx)
    .await?;
    Ok(())
}

/// Writes the confirmation mail of `response` to the address whose digest is given,
/// unless `(per_address, per_form)` mails went out in the last 24 hours; returns
/// whether it did.
pub(crate) async fn enqueue_confirmation(
    tx: &mut Transaction<'_, Postgres>,
    target: &TargetForm,
    response: &Response,
    (digest, language): (&[u8], Option<&str>),
    (per_address, per_form): (i64, i64),
) -> Result<bool, CoreError> {
    let inserted = sqlx::query!(
        "INSERT INTO notifications (id, account_id, form_id, response_id, kind,
                                    recipient_digest, language, next_attempt_at, created_at)
         SELECT $1, $2, $3, $4, 'confirmation', $5, $6, $7, $7
          WHERE (SELECT count(*) FROM notifications
                  WHERE kind = 'confirmation' AND recipient_digest = $5
                    AND created_at > $7::timestamptz - interval '1 day') < $8
            AND (SELECT count(*) FROM notifications
                  WHERE kind = 'confirmation' AND form_id = $3
                    AND created_at > $7::timestamptz - interval '1 day') < $9",
        Uuid::now_v7(),
        target.account_id,
        target.id,
        response.id,
        digest,
        language,
        response.submitted_at,
        per_address,
        per_form
    )
    .execute(&mut **tx)
    .await?
    .rows_affected();
    Ok(inserted > 0)
}

/// Writes the notification of a new response when its form has notifications on and
/// its owner has an address; returns whether it did.
pub(crate) async fn enqueue(
    tx: &mut Transaction<'_, Postgres>,
    form_id: Uuid,
    response_id: Uuid,
    at: DateTime<Utc>,
) -> Result<bool, CoreError> {
    let inserted = sqlx::query!(
        "INSERT INTO notifications (id, account_id, form_id, response_id, next_attempt_at,
                                    created_at)
         SELECT $1, f.account_id, f.id, $3, $4, $4
           FROM forms f JOIN accounts a ON a.id = f.account_id
          WHERE f.id = $2 AND f.settings->'notifications_enabled' = 'true'::jsonb
            AND a.email IS NOT NULL",
        Uuid::now_v7(),
        form_id,
        response_id,
        at
    )
    .execute(&mut **tx)
    .await?
    .rows_affected();
    Ok(inserted > 0)
}

/// How many forms have notifications on (for the warning when SMTP is not configured).
pub(crate) async fn forms_with_notifications(pool: &PgPool) -> Result<i64, CoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT count(*) AS "count!" FROM forms
            WHERE settings->'notifications_enabled' = 'true'::jsonb"#
    )
    .fetch_one(pool)
    .await?)
}

/// What a notification's mail is made of, read when it is sent.
pub(crate) struct Content {
    /// The owner's current address.
    pub email: Option<String>,
    pub response_id: Option<Uuid>,
    pub title: Option<String>,
    pub fields: Option<Json<Vec<Field>>>,
    pub answers: Option<Json<Map<String, Value>>>,
    pub submitted_at: Option<DateTime<Utc>>,
    /// `owner` (the owner's mail) or `confirmation` (the respondent's).
    pub kind: String,
    /// The respondent's language (confirmation mails).
    pub language: Option<String>,
    pub settings: Option<Json<Map<String, Value>>>,
    pub languages: Option<Json<crate::forms::Languages>>,
}

pub(crate) async fn content(pool: &PgPool, id: Uuid) -> Result<Option<Content>, CoreError> {
    sqlx::query_as!(
        Content,
        r#"SELECT a.email, r.id AS "response_id?", f.title AS "title?",
                  f.fields AS "fields?: Json<Vec<Field>>",
                  r.answers AS "answers?: Json<Map<String, Value>>",
                  r.submitted_at AS "submitted_at?", n.kind, n.language,
                  f.settings AS "settings?: Json<Map<String, Value>>",
                  f.languages AS "languages?: Json<crate::forms::Languages>"
             FROM notifications n
             JOIN accounts a ON a.id = n.account_id
             LEFT JOIN responses r ON r.id = n.response_id
             LEFT JOIN forms f ON f.id = r.form_id
            WHERE n.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await
    .map_err(read_error)
}

/// A notification as operators list it.
pub(crate) struct NotificationRow {
    pub id: Uuid,
    pub account_id: Uuid,
    pub form_id: Uuid,
    pub response_id: Option<Uuid>,
    pub status: DeliveryStatus,
    pub next_attempt_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
}

/// An attempt as operators list it.
pub(crate) struct AttemptRow {
    pub notification_id: Uuid,
    pub attempted_at: DateTime<Utc>,
    pub duration_ms: i64,
    pub recipient: Option<String>,
    pub error: Option<String>,
    pub reply: String,
}

/// The most recent notifications, of one account or of all, newest first.
pub(crate) async fn list_recent(
    pool: &PgPool,
    account_id: Option<Uuid>,
    limit: i64,
) -> Result<Vec<NotificationRow>, CoreError> {
    sqlx::query_as!(
        NotificationRow,
        r#"SELECT id, account_id, form_id, response_id, status AS "status: DeliveryStatus",
                  next_attempt_at, created_at
             FROM notifications
            WHERE ($1::uuid IS NULL OR account_id = $1)
            ORDER BY created_at DESC, id DESC LIMIT $2"#,
        account_id,
        limit
    )
    .fetch_all(pool)
    .await
    .map_err(read_error)
}

/// The attempts of the notifications `ids`, oldest first.
pub(crate) async fn list_attempts(
    pool: &PgPool,
    ids: &[Uuid],
) -> Result<Vec<AttemptRow>, CoreError> {
    Ok(sqlx::query_as!(
        AttemptRow,
        "SELECT notification_id, attempted_at, duration_ms, recipient, error, reply
           FROM notification_attempts WHERE notification_id = ANY($1)
          ORDER BY attempted_at, id",
        ids
    )
    .fetch_all(pool)
    .await?)
}
