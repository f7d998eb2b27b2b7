//! SQL of linked identities: an identity is the pair (issuer, subject), since a `sub` is
//! unique only at the provider that issued it (migration 0021).
//!
//! An identity linked without a provider (or before providers were told apart) has the
//! empty issuer, and is unclaimed: the first provider that signs its subject in claims
//! it, in the statement that finds it, and it is that provider's alone from then on.

use super::{AccountRow, find_account};
use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// The issuer of an unclaimed identity.
pub const UNCLAIMED: &str = "";

fn check_subject(subject: &str) -> Result<(), CoreError> {
    if subject.trim().is_empty() || subject.len() > 255 {
        return Err(CoreError::validation("subject must be 1 to 255 characters"));
    }
    Ok(())
}

/// Links an identity to an account, moving it if it was linked elsewhere; the sessions
/// it opened on the account it leaves end.
///
/// `issuer` absent: the subject's one identity moves here whatever its issuer (refused
/// when it has several: the caller must say which), or, when it has none, an unclaimed
/// one is linked. Present (even empty): exactly that identity.
pub async fn link_identity(
    db: impl sqlx::Acquire<'_, Database = sqlx::Postgres>,
    account: &str,
    issuer: Option<&str>,
    subject: &str,
) -> Result<AccountRow, CoreError> {
    check_subject(subject)?;
    if issuer.is_some_and(|i| i.len() > 2048) {
        return Err(CoreError::validation(
            "issuer must be at most 2048 characters",
        ));
    }
    // A transaction of its own, or a savepoint in the caller's.
    let mut tx = db.begin().await?;
    let account = find_account(&mut *tx, account).await?;
    let issuer = match issuer {
        Some(issuer) => issuer.to_owned(),
        None => only_issuer_of(&mut tx, subject).await?,
    };
    sqlx::query!(
        "INSERT INTO account_identities (issuer, subject, account_id) VALUES ($1, $2, $3)
         ON CONFLICT (issuer, subject) DO UPDATE SET account_id = EXCLUDED.account_id",
        issuer,
        subject,
        account.id
    )
    .execute(&mut *tx)
    .await?;
    // Sessions the identity opened on the account it was linked to before end now.
    end_sessions(&mut tx, &[issuer], subject, account.id, true).await?;
    // Linking is the operator's way back after revoking the account's session key: the
    // revoked key is kept (its usage history with it) under a retired lookup, and the
    // next sign-in gets a fresh one.
    sqlx::query!(
        "UPDATE api_keys SET lookup = 'session-retired-' || id
          WHERE lookup = 'session-' || $1::uuid AND revoked_at IS NOT NULL",
        account.id
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(account)
}

/// The issuer of the subject's one identity (unclaimed when it has none), for a link
/// that names no provider; refused when the subject has identities at several.
async fn only_issuer_of(tx: &mut PgConnection, subject: &str) -> Result<String, CoreError> {
    let issuers = sqlx::query_scalar!(
        "SELECT issuer FROM account_identities WHERE subject = $1 ORDER BY issuer FOR UPDATE",
        subject
    )
    .fetch_all(tx)
    .await?;
    match issuers.as_slice() {
        [] => Ok(UNCLAIMED.to_owned()),
        [one] => Ok(one.clone()),
        _ => Err(CoreError::validation(
            "this subject is linked at several identity providers: name the provider (issuer) to link",
        )),
    }
}

/// Unlinks identities of `subject` from an account: they sign in no more there, and the
/// dashboard sessions they opened there end with them, on every instance.
///
/// `issuer` present and not empty: that identity, and the subject's unclaimed one on the
/// account (the provider would otherwise claim it at its next sign-in). Empty: the
/// unclaimed one only. Absent: every identity of the subject on the account.
pub async fn unlink_identity(
    db: impl sqlx::Acquire<'_, Database = sqlx::Postgres>,
    account: &str,
    issuer: Option<&str>,
    subject: &str,
) -> Result<AccountRow, CoreError> {
    // A transaction of its own, or a savepoint in the caller's.
    let mut tx = db.begin().await?;
    let account = find_account(&mut *tx, account).await?;
    let removed = sqlx::query_scalar!(
        "DELETE FROM account_identities
          WHERE subject = $1 AND account_id = $2
            AND ($3::text IS NULL OR issuer = $3 OR issuer = '')
          RETURNING issuer",
        subject,
        account.id,
        issuer
    )
    .fetch_all(&mut *tx)
    .await?;
    if removed.is_empty() {
        return Err(CoreError::NotFound("identity"));
    }
    end_sessions(&mut tx, &removed, subject, account.id, false).await?;
    tx.commit().await?;
    Ok(account)
}

/// Ends the open sessions that the identities (`issuers`, `subject`) signed in to
/// `account_id` (unlinked), or to any account but `account_id` (linked there instead).
/// Sessions opened before identities had issuers (the empty one) end with any of the
/// subject's: which provider opened them is not known.
async fn end_sessions(
    tx: &mut PgConnection,
    issuers: &[String],
    subject: &str,
    account_id: Uuid,
    keep_this_account: bool,
) -> Result<u64, CoreError> {
    let ended = sqlx::query!(
        "UPDATE dashboard_sessions SET ended_at = now()
          WHERE subject = $1 AND (issuer = ANY($2) OR issuer = '') AND ended_at IS NULL
            AND ((account_id = $3) <> $4)",
        subject,
        issuers,
        account_id,
        keep_this_account
    )
    .execute(tx)
    .await?
    .rows_affected();
    Ok(ended)
}

/// The account the identity (`issuer`, `subject`) signs in to: its own link, else the
/// subject's unclaimed one, which this sign-in claims for `issuer` for good.
pub(crate) async fn account_of_identity(
    pool: &PgPool,
    issuer: &str,
    subject: &str,
) -> Result<Option<Uuid>, CoreError> {
    let found = sqlx::query_scalar!(
        "SELECT account_id FROM account_identities WHERE issuer = $1 AND subject = $2",
        issuer,
        subject
    )
    .fetch_optional(pool)
    .await?;
    if found.is_some() || issuer == UNCLAIMED {
        return Ok(found);
    }
    // Two providers signing the same unclaimed subject in at once: the row lock makes the
    // second update find it claimed, and match nothing.
    let claimed = sqlx::query_scalar!(
        "UPDATE account_identities SET issuer = $1
          WHERE issuer = '' AND subject = $2 RETURNING account_id",
        issuer,
        subject
    )
    .fetch_optional(pool)
    .await;
    match claimed {
        Ok(claimed) => {
            if claimed.is_some() {
                tracing::info!("an unclaimed identity was claimed by its first provider");
            }
            Ok(claimed)
        }
        // The operator linked this provider's own identity between the two statements:
        // that link is the one.
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(sqlx::query_scalar!(
            "SELECT account_id FROM account_identities WHERE issuer = $1 AND subject = $2",
            issuer,
            subject
        )
        .fetch_optional(pool)
        .await?),
        Err(e) => Err(e.into()),
    }
}

/// An identity linked to an account.
#[derive(Debug, Clone)]
pub(crate) struct IdentityRow {
    pub issuer: String,
    pub subject: String,
    pub created_at: DateTime<Utc>,
}

/// The identities linked to an account, oldest link first.
pub(crate) async fn identities(
    pool: &PgPool,
    account_id: Uuid,
) -> Result<Vec<IdentityRow>, CoreError> {
    Ok(sqlx::query_as!(
        IdentityRow,
        "SELECT issuer, subject, created_at FROM account_identities WHERE account_id = $1
          ORDER BY created_at, subject, issuer",
        account_id
    )
    .fetch_all(pool)
    .await?)
}

/// The member an identity signs in as in an account, and their role there now (None:
/// the identity's person is no member of it, or has none).
pub(crate) async fn member_of_identity(
    pool: &PgPool,
    issuer: &str,
    subject: &str,
    account_id: Uuid,
) -> Result<Option<(Uuid, String)>, CoreError> {
    let found = sqlx::query!(
        "SELECT m.person_id, m.role FROM account_identities i
           JOIN memberships m ON m.person_id = i.person_id AND m.account_id = $3
          WHERE i.subject = $2 AND i.issuer IN ($1, '')
          ORDER BY i.issuer DESC LIMIT 1",
        issuer,
        subject,
        account_id
    )
    .fetch_optional(pool)
    .await?;
    Ok(found.map(|row| (row.person_id, row.role)))
}
