//! SQL of dashboard sessions, sign-in links and form activity.

use super::Method;
use crate::accounts::Plan;
use crate::error::CoreError;
use crate::forms::theme::Theme;
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::types::Json;
use sqlx::{PgExecutor, PgPool};
use std::time::Duration;
use uuid::Uuid;

/// A live session, with its account's session key (the identity its calls are
/// rate-limited and counted under, as the provider cookie's are).
#[derive(Debug, Clone)]
pub(crate) struct LiveSession {
    pub session_id: Uuid,
    pub account_id: Uuid,
    pub account_name: String,
    pub method: String,
    pub last_seen_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub key_id: Uuid,
    pub key_revoked_at: Option<DateTime<Utc>>,
    pub plan: Plan,
    /// The member signed in, and their role in the account now.
    pub person_id: Uuid,
    pub role: String,
    /// When the sign-in it descends from happened (`Signer::signed_in_at`).
    pub signed_in_at: DateTime<Utc>,
}

/// The identity a session was signed in by: a provider's subject, with the provider.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Identity<'a> {
    pub issuer: &'a str,
    pub subject: &'a str,
}

fn seconds(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Who a session is opened for: how they signed in, the identity provider's issuer and
/// subject (`None` for a one-time link), and the person, when the sign-in names one
/// (else the identity's person, or the account's first owner: migration 0045's trigger).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Signer<'a> {
    pub method: Method,
    pub identity: Option<Identity<'a>>,
    pub person: Option<Uuid>,
    /// When the sign-in this session descends from happened (switching accounts,
    /// accepting an invitation while signed in); `None`: now.
    pub signed_in_at: Option<DateTime<Utc>>,
}

impl<'a> Signer<'a> {
    /// A sign-in by an identity provider's subject: the identity's person.
    pub(crate) fn of(method: Method, identity: Identity<'a>) -> Self {
        Self {
            method,
            identity: Some(identity),
            person: None,
            signed_in_at: None,
        }
    }
}

/// Opens a session of `account_id` for `signer`, ending with its identity (if any);
/// the account's session key is made if it has none.
pub(crate) async fn create_session(
    tx: &mut sqlx::PgConnection,
    account_id: Uuid,
    digest: &[u8],
    signer: Signer<'_>,
    lifetime: Duration,
) -> Result<LiveSession, CoreError> {
    crate::accounts::store::ensure_session_key(&mut *tx, account_id).await?;
    let id = Uuid::now_v7();
    let (issuer, subject) = signer
        .identity
        .map_or(("", None), |i| (i.issuer, Some(i.subject)));
    sqlx::query!(
        "INSERT INTO dashboard_sessions
                (id, digest, account_id, method, issuer, subject, expires_at, person_id,
                 signed_in_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7), $8, $9)",
        id,
        digest,
        account_id,
        signer.method.as_str(),
        issuer,
        subject,
        seconds(lifetime),
        signer.person,
        signer.signed_in_at
    )
    .execute(&mut *tx)
    .await?;
    find_session(&mut *tx, digest, lifetime)
        .await?
        .ok_or_else(|| CoreError::Internal("a session just opened is not live".into()))
}

/// The live session of a token's digest: not ended, not past its lifetime, used
/// within `idle`.
pub(crate) async fn find_session(
    pool: impl PgExecutor<'_>,
    digest: &[u8],
    idle: Duration,
) -> Result<Option<LiveSession>, CoreError> {
    let row = sqlx::query_as!(
        LiveSession,
        r#"SELECT s.id AS session_id, s.account_id, a.name AS account_name, s.method,
                  s.last_seen_at, s.expires_at, k.id AS key_id,
                  k.revoked_at AS key_revoked_at, a.plan AS "plan: Plan",
                  m.person_id, m.role,
                  coalesce(s.signed_in_at, s.created_at) AS "signed_in_at!"
             FROM dashboard_sessions s
             JOIN accounts a ON a.id = s.account_id
             -- A member removed: their sessions end with the membership (read on
             -- every call, so on every instance at once).
             JOIN memberships m ON m.account_id = s.account_id AND m.person_id = s.person_id
             JOIN api_keys k ON k.lookup = 'session-' || s.account_id::text
            WHERE s.digest = $1 AND s.ended_at IS NULL AND s.expires_at > now()
              AND s.last_seen_at > now() - make_interval(secs => $2)"#,
        digest,
        seconds(idle)
    )
    .fetch_optional(pool)
    .await?;
    Ok(row)
}

/// Marks a session used now (its idle timeout starts again).
pub(crate) async fn touch(pool: &PgPool, session_id: Uuid) -> Result<(), CoreError> {
    sqlx::query!(
        "UPDATE dashboard_sessions SET last_seen_at = now() WHERE id = $1",
        session_id
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Ends a session.
pub(crate) async fn end_session(
    pool: impl PgExecutor<'_>,
    session_id: Uuid,
) -> Result<(), CoreError> {
    sqlx::query!(
        "UPDATE dashboard_sessions SET ended_at = now() WHERE id = $1 AND ended_at IS NULL",
        session_id
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Gives back a link that was taken but opened no session (the account's allowance of
/// sessions was used up): the owner may use it again once the minute has passed.
pub(crate) async fn give_back_link(pool: &PgPool, digest: &[u8]) -> Result<(), CoreError> {
    sqlx::query!(
        "UPDATE sign_in_links SET used_at = NULL WHERE digest = $1",
        digest
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Stores a one-time sign-in link of an account, for `person` (`None`: the account's
/// first owner).
pub(crate) async fn create_link(
    pool: impl PgExecutor<'_>,
    (account_id, person): (Uuid, Option<Uuid>),
    digest: &[u8],
    lifetime: Duration,
) -> Result<DateTime<Utc>, CoreError> {
    let expires = sqlx::query_scalar!(
        "INSERT INTO sign_in_links (digest, account_id, expires_at, person_id)
         VALUES ($1, $2, now() + make_interval(secs => $3), $4) RETURNING expires_at",
        digest,
        account_id,
        seconds(lifetime),
        person
    )
    .fetch_one(pool)
    .await?;
    Ok(expires)
}

/// Uses a sign-in link: its account and person, if the link is unused and unexpired.
/// A link is used once, even by two requests at the same moment (the update takes it).
pub(crate) async fn redeem_link(
    pool: &PgPool,
    digest: &[u8],
) -> Result<Option<(Uuid, Option<Uuid>)>, CoreError> {
    let row = sqlx::query!(
        "UPDATE sign_in_links SET used_at = now()
          WHERE digest = $1 AND used_at IS NULL AND expires_at > now()
          RETURNING account_id, person_id",
        digest
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| (r.account_id, r.person_id)))
}

/// Stores an OpenID Connect attempt (by the digest of its state) for `lifetime`.
pub(crate) async fn create_oidc_attempt(
    pool: &PgPool,
    state_digest: &[u8],
    nonce: &str,
    verifier: &str,
    redirect_uri: &str,
    lifetime: Duration,
) -> Result<(), CoreError> {
    sqlx::query!(
        "INSERT INTO oidc_attempts (state_digest, nonce, verifier, redirect_uri, expires_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))",
        state_digest,
        nonce,
        verifier,
        redirect_uri,
        seconds(lifetime)
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// An OpenID Connect attempt, as its callback needs it.
#[derive(Debug)]
pub(crate) struct OidcAttempt {
    pub nonce: String,
    pub verifier: String,
    pub redirect_uri: String,
}

/// Takes the unexpired attempt of a state's digest: once, even for two callbacks at the
/// same moment (the delete takes it).
pub(crate) async fn take_oidc_attempt(
    pool: &PgPool,
    state_digest: &[u8],
) -> Result<Option<OidcAttempt>, CoreError> {
    let row = sqlx::query!(
        "DELETE FROM oidc_attempts WHERE state_digest = $1
          RETURNING nonce, verifier, redirect_uri, expires_at > now() AS \"live!\"",
        state_digest
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.filter(|r| r.live).map(|r| OidcAttempt {
        nonce: r.nonce,
        verifier: r.verifier,
        redirect_uri: r.redirect_uri,
    }))
}

/// Where a link mailed to `email` signs in (addresses compared case-insensitively): the
/// person with that address, in the account they joined first; else the account whose
/// notification address it is, as its first owner.
pub(crate) async fn link_target_of_email(
    pool: &PgPool,
    email: &str,
) -> Result<Option<(Uuid, Option<Uuid>)>, CoreError> {
    let person = sqlx::query!(
        "SELECT m.account_id, m.person_id FROM people p
           JOIN memberships m ON m.person_id = p.id
          WHERE lower(p.email) = lower($1)
          ORDER BY m.created_at, m.account_id LIMIT 1",
        email
    )
    .fetch_optional(pool)
    .await?;
    if let Some(row) = person {
        return Ok(Some((row.account_id, Some(row.person_id))));
    }
    let id = sqlx::query_scalar!(
        "SELECT id FROM accounts WHERE lower(email) = lower($1) ORDER BY created_at LIMIT 1",
        email
    )
    .fetch_optional(pool)
    .await?;
    Ok(id.map(|id| (id, None)))
}

/// Removes links, sessions and invitations that can no longer be used (a day after
/// they ended).
pub(crate) async fn purge(pool: &PgPool) -> Result<u64, CoreError> {
    let links =
        sqlx::query!("DELETE FROM sign_in_links WHERE expires_at < now() - interval '1 day'")
            .execute(pool)
            .await?
            .rows_affected();
    let sessions = sqlx::query!(
        "DELETE FROM dashboard_sessions
          WHERE coalesce(ended_at, expires_at) < now() - interval '1 day'"
    )
    .execute(pool)
    .await?
    .rows_affected();
    let attempts = sqlx::query!("DELETE FROM oidc_attempts WHERE expires_at < now()")
        .execute(pool)
        .await?
        .rows_affected();
    // Invitations accepted, withdrawn (deleted at once) or expired: the trail keeps
    // their story, the table only what can still be accepted, and a day's grace.
    let invitations = sqlx::query!(
        "DELETE FROM invitations
          WHERE coalesce(spent_at, expires_at) < now() - interval '1 day'"
    )
    .execute(pool)
    .await?
    .rows_affected();
    Ok(links + sessions + attempts + invitations)
}

/// A form's counters.
#[derive(Debug)]
pub(crate) struct Activity {
    pub form_id: Uuid,
    pub response_count: i64,
    pub last_response_at: Option<DateTime<Utc>>,
    /// (day, count) of the days that had responses, within the window.
    pub days: Vec<(NaiveDate, i64)>,
}

/// The counters of an account's forms among `form_ids`, days from `since` on: one
/// index range per form on the per-day counters, never a count of responses.
pub(crate) async fn activity(
    pool: &PgPool,
    account_id: Uuid,
    form_ids: &[Uuid],
    since: NaiveDate,
) -> Result<Vec<Activity>, CoreError> {
    let forms = sqlx::query!(
        "SELECT id, response_count, last_submitted_at FROM forms
          WHERE account_id = $1 AND id = ANY($2)",
        account_id,
        form_ids
    )
    .fetch_all(pool)
    .await?;
    let days = sqlx::query!(
        r#"SELECT d.form_id, d.day, d.count FROM form_daily_responses d
             JOIN forms f ON f.id = d.form_id
            WHERE f.account_id = $1 AND d.form_id = ANY($2) AND d.day >= $3"#,
        account_id,
        form_ids,
        since
    )
    .fetch_all(pool)
    .await?;
    Ok(forms
        .into_iter()
        .map(|f| Activity {
            form_id: f.id,
            response_count: f.response_count,
            last_response_at: f.last_submitted_at.filter(|_| f.response_count > 0),
            days: days
                .iter()
                .filter(|d| d.form_id == f.id)
                .map(|d| (d.day, d.count))
                .collect(),
        })
        .collect())
}

/// The account's default theme, if it has one.
pub(super) async fn default_theme(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
) -> Result<Option<Theme>, CoreError> {
    let theme = sqlx::query_scalar!(
        r#"SELECT theme AS "theme: Json<Theme>" FROM accounts WHERE id = $1"#,
        account_id
    )
    .fetch_optional(db)
    .await?
    .flatten();
    Ok(theme.map(|t| t.0))
}

/// Sets (or, with `None`, clears) the account's default theme.
pub(super) async fn set_default_theme(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
    theme: Option<&Theme>,
) -> Result<(), CoreError> {
    sqlx::query!(
        "UPDATE accounts SET theme = $2 WHERE id = $1",
        account_id,
        theme.map(Json) as _
    )
    .execute(db)
    .await?;
    Ok(())
}
