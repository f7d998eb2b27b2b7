//! SQL of members and invitations. Roles are stored by name (`memberships.role`); the
//! service parses them into `Role` at its edge.

use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor};
use std::time::Duration;
use uuid::Uuid;

/// A member of an account.
#[derive(Debug)]
pub(crate) struct MemberRow {
    pub person_id: Uuid,
    pub email: Option<String>,
    pub role: String,
    pub joined_at: DateTime<Utc>,
}

/// An invitation not yet accepted.
#[derive(Debug)]
pub(crate) struct InvitationRow {
    pub id: Uuid,
    pub email: String,
    pub role: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// An invitation just taken by its link.
#[derive(Debug)]
pub(crate) struct Taken {
    pub id: Uuid,
    pub account_id: Uuid,
    pub email: String,
    pub role: String,
}

/// An account a person belongs to.
#[derive(Debug)]
pub(crate) struct MembershipRow {
    pub account_id: Uuid,
    pub account_name: String,
    pub role: String,
    pub signed_in_at: DateTime<Utc>,
}

/// The account's members, owners first, then by when they joined.
pub(crate) async fn members(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
) -> Result<Vec<MemberRow>, CoreError> {
    let rows = sqlx::query_as!(
        MemberRow,
        r#"SELECT m.person_id, p.email, m.role, m.created_at AS joined_at
             FROM memberships m JOIN people p ON p.id = m.person_id
            WHERE m.account_id = $1
            ORDER BY array_position(ARRAY['owner','admin','editor','viewer'], m.role),
                     m.created_at, m.person_id"#,
        account_id
    )
    .fetch_all(db)
    .await?;
    Ok(rows)
}

/// Whether a member of the account signs in with `email` (in any letter case).
pub(crate) async fn is_member(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
    email: &str,
) -> Result<bool, CoreError> {
    let found = sqlx::query_scalar!(
        r#"SELECT EXISTS (
             SELECT FROM memberships m JOIN people p ON p.id = m.person_id
              WHERE m.account_id = $1 AND lower(p.email) = lower($2)) AS "found!""#,
        account_id,
        email
    )
    .fetch_one(db)
    .await?;
    Ok(found)
}

/// The account's invitations that can still be accepted, newest first.
pub(crate) async fn pending(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
) -> Result<Vec<InvitationRow>, CoreError> {
    let rows = sqlx::query_as!(
        InvitationRow,
        "SELECT id, email, role, created_at, expires_at FROM invitations
          WHERE account_id = $1 AND spent_at IS NULL AND expires_at > now()
          ORDER BY created_at DESC, id",
        account_id
    )
    .fetch_all(db)
    .await?;
    Ok(rows)
}

/// Stores an invitation (its link's digest), replacing the address's pending one.
pub(crate) async fn invite(
    tx: &mut PgConnection,
    (account_id, invited_by): (Uuid, Option<Uuid>),
    (email, role): (&str, &str),
    digest: &[u8],
    lifetime: Duration,
) -> Result<InvitationRow, CoreError> {
    sqlx::query!(
        "DELETE FROM invitations
          WHERE account_id = $1 AND lower(email) = lower($2) AND spent_at IS NULL",
        account_id,
        email
    )
    .execute(&mut *tx)
    .await?;
    let row = sqlx::query_as!(
        InvitationRow,
        "INSERT INTO invitations (id, account_id, email, role, digest, invited_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
         RETURNING id, email, role, created_at, expires_at",
        Uuid::now_v7(),
        account_id,
        email,
        role,
        digest,
        invited_by,
        lifetime.as_secs_f64()
    )
    .fetch_one(&mut *tx)
    .await?;
    Ok(row)
}

/// Withdraws a pending invitation of the account; whether there was one.
pub(crate) async fn revoke(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
    id: Uuid,
) -> Result<bool, CoreError> {
    let done = sqlx::query!(
        "DELETE FROM invitations WHERE account_id = $1 AND id = $2 AND spent_at IS NULL",
        account_id,
        id
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Takes an invitation by its link's digest: once, even for two requests at the same
/// moment (the update takes it), and only while it is unexpired.
pub(crate) async fn take(tx: &mut PgConnection, digest: &[u8]) -> Result<Option<Taken>, CoreError> {
    let row = sqlx::query_as!(
        Taken,
        "UPDATE invitations SET spent_at = now()
          WHERE digest = $1 AND spent_at IS NULL AND expires_at > now()
          RETURNING id, account_id, email, role",
        digest
    )
    .fetch_optional(&mut *tx)
    .await?;
    Ok(row)
}

/// What a live invitation invites to, by its link's digest, without spending it:
/// the account's name, the role, the address and when it expires.
pub(crate) async fn peek(
    db: impl PgExecutor<'_>,
    digest: &[u8],
) -> Result<Option<(String, String, String, DateTime<Utc>)>, CoreError> {
    let row = sqlx::query!(
        "SELECT a.name, i.role, i.email, i.expires_at FROM invitations i
           JOIN accounts a ON a.id = i.account_id
          WHERE i.digest = $1 AND i.spent_at IS NULL AND i.expires_at > now()",
        digest
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|r| (r.name, r.role, r.email, r.expires_at)))
}

/// Records who spent an invitation.
pub(crate) async fn spent_by(
    tx: &mut PgConnection,
    id: Uuid,
    person: Uuid,
) -> Result<(), CoreError> {
    sqlx::query!(
        "UPDATE invitations SET spent_by = $2 WHERE id = $1",
        id,
        person
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// The person with this address, if any.
pub(crate) async fn person_of_email(
    tx: &mut PgConnection,
    email: &str,
) -> Result<Option<Uuid>, CoreError> {
    let id = sqlx::query_scalar!(
        "SELECT id FROM people WHERE lower(email) = lower($1)",
        email
    )
    .fetch_optional(&mut *tx)
    .await?;
    Ok(id)
}

/// The person of an identity provider's subject, if it is linked (an identity linked
/// before issuers were recorded has the issuer '').
pub(crate) async fn person_of_identity(
    tx: &mut PgConnection,
    (issuer, subject): (&str, &str),
) -> Result<Option<Uuid>, CoreError> {
    let person = sqlx::query_scalar!(
        "SELECT person_id FROM account_identities
          WHERE subject = $2 AND issuer IN ($1, '')
          ORDER BY issuer DESC LIMIT 1",
        issuer,
        subject
    )
    .fetch_optional(&mut *tx)
    .await?;
    Ok(person.flatten())
}

/// Links an identity provider's subject to `person`, signing in to `account_id`: the
/// identity of an invitee who accepted with the provider's cookie, which the API then
/// takes as that member.
pub(crate) async fn link_identity(
    tx: &mut PgConnection,
    (issuer, subject): (&str, &str),
    account_id: Uuid,
    person: Uuid,
) -> Result<(), CoreError> {
    sqlx::query!(
        "INSERT INTO account_identities (issuer, subject, account_id, person_id)
         VALUES ($1, $2, $3, $4) ON CONFLICT (issuer, subject) DO NOTHING",
        issuer,
        subject,
        account_id,
        person
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// A new person with this address.
pub(crate) async fn new_person(tx: &mut PgConnection, email: &str) -> Result<Uuid, CoreError> {
    let id = sqlx::query_scalar!(
        "INSERT INTO people (id, email) VALUES ($1, $2) RETURNING id",
        Uuid::now_v7(),
        email
    )
    .fetch_one(&mut *tx)
    .await?;
    Ok(id)
}

/// Makes `person` a member with `role` unless they are one; their role now.
pub(crate) async fn join(
    tx: &mut PgConnection,
    account_id: Uuid,
    person: Uuid,
    role: &str,
) -> Result<String, CoreError> {
    sqlx::query!(
        "INSERT INTO memberships (account_id, person_id, role) VALUES ($1, $2, $3)
         ON CONFLICT (account_id, person_id) DO NOTHING",
        account_id,
        person,
        role
    )
    .execute(&mut *tx)
    .await?;
    let role = sqlx::query_scalar!(
        "SELECT role FROM memberships WHERE account_id = $1 AND person_id = $2",
        account_id,
        person
    )
    .fetch_one(&mut *tx)
    .await?;
    Ok(role)
}

/// Locks the account's owners, so that two owners leaving at once cannot both pass
/// the last-owner rule; how many there are.
pub(crate) async fn lock_owners(
    tx: &mut PgConnection,
    account_id: Uuid,
) -> Result<usize, CoreError> {
    let owners = sqlx::query_scalar!(
        "SELECT person_id FROM memberships WHERE account_id = $1 AND role = 'owner'
          ORDER BY person_id FOR UPDATE",
        account_id
    )
    .fetch_all(&mut *tx)
    .await?;
    Ok(owners.len())
}

/// A member's role, locked for the change to come.
pub(crate) async fn role_of(
    tx: &mut PgConnection,
    account_id: Uuid,
    person: Uuid,
) -> Result<Option<String>, CoreError> {
    let role = sqlx::query_scalar!(
        "SELECT role FROM memberships WHERE account_id = $1 AND person_id = $2 FOR UPDATE",
        account_id,
        person
    )
    .fetch_optional(&mut *tx)
    .await?;
    Ok(role)
}

/// Sets a member's role.
pub(crate) async fn set_role(
    tx: &mut PgConnection,
    account_id: Uuid,
    person: Uuid,
    role: &str,
) -> Result<(), CoreError> {
    sqlx::query!(
        "UPDATE memberships SET role = $3 WHERE account_id = $1 AND person_id = $2",
        account_id,
        person,
        role
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Removes a member and ends their sessions of the account (their calls already stop
/// with the membership: the gate joins it on every call; ending the sessions keeps
/// them from coming back should the person be invited again).
pub(crate) async fn remove(
    tx: &mut PgConnection,
    account_id: Uuid,
    person: Uuid,
) -> Result<(), CoreError> {
    sqlx::query!(
        "DELETE FROM memberships WHERE account_id = $1 AND person_id = $2",
        account_id,
        person
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "UPDATE dashboard_sessions SET ended_at = now()
          WHERE account_id = $1 AND person_id = $2 AND ended_at IS NULL",
        account_id,
        person
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// The accounts a session's person may switch to: the session's own, and those they
/// were members of when its sign-in happened (migration 0048), so that a membership
/// made later in their name is reached only by signing in again. With the sign-in's
/// time, for the session switched to.
pub(crate) async fn accounts_of_session(
    db: impl PgExecutor<'_>,
    session_id: Uuid,
) -> Result<Vec<MembershipRow>, CoreError> {
    let rows = sqlx::query_as!(
        MembershipRow,
        r#"SELECT m.account_id, a.name AS account_name, m.role,
                  coalesce(s.signed_in_at, s.created_at) AS "signed_in_at!"
             FROM dashboard_sessions s
             JOIN memberships m ON m.person_id = s.person_id
                               AND (m.created_at <= coalesce(s.signed_in_at, s.created_at)
                                    OR m.account_id = s.account_id)
             JOIN accounts a ON a.id = m.account_id
            WHERE s.id = $1
            ORDER BY lower(a.name), m.account_id"#,
        session_id
    )
    .fetch_all(db)
    .await?;
    Ok(rows)
}
