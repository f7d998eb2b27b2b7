//! SQL for accounts and keys.

use super::{Plan, Scopes, keys};
use crate::db::decode::read_error;
use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::{PgExecutor, PgPool};
use uuid::Uuid;

mod identities;
mod labels;
pub use identities::{UNCLAIMED, link_identity, unlink_identity};
pub(crate) use identities::{account_of_identity, identities, member_of_identity};
pub(crate) use labels::{labels, set_label};

/// An account row.
#[derive(Debug, Clone)]
pub struct AccountRow {
    pub id: Uuid,
    pub name: String,
    pub plan: Plan,
    pub response_limit: Option<i64>,
    pub created_at: DateTime<Utc>,
    /// Where the owner's notifications go.
    pub email: Option<String>,
}

/// A key row, without anything secret but the digest.
#[derive(Debug, Clone)]
pub struct KeyRow {
    pub id: Uuid,
    pub account_id: Uuid,
    pub lookup: String,
    pub digest: Vec<u8>,
    pub scopes: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A key together with its account's plan, as authentication needs it.
#[derive(Debug, Clone)]
pub struct KeyWithPlan {
    pub id: Uuid,
    pub account_id: Uuid,
    pub digest: Vec<u8>,
    pub scopes: Vec<String>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub plan: Plan,
}

/// What `create_key` hands back once.
#[derive(Debug, Clone)]
pub struct CreatedKey {
    pub key: String,
    pub key_id: Uuid,
    pub account_id: Uuid,
}

pub async fn find_key_by_lookup(
    pool: &PgPool,
    lookup: &str,
) -> Result<Option<KeyWithPlan>, CoreError> {
    sqlx::query_as!(
        KeyWithPlan,
        r#"SELECT k.id, k.account_id, k.digest, k.scopes, k.expires_at, k.revoked_at,
                  a.plan AS "plan: Plan"
             FROM api_keys k JOIN accounts a ON a.id = k.account_id
            WHERE k.lookup = $1"#,
        lookup
    )
    .fetch_optional(pool)
    .await
    .map_err(read_error)
}

pub async fn find_account(db: impl PgExecutor<'_>, name: &str) -> Result<AccountRow, CoreError> {
    sqlx::query_as!(
        AccountRow,
        r#"SELECT id, name, plan AS "plan: Plan", response_limit, created_at, email
             FROM accounts WHERE name = $1"#,
        name
    )
    .fetch_optional(db)
    .await
    .map_err(read_error)?
    .ok_or(CoreError::NotFound("account"))
}

fn check_account_name(name: &str) -> Result<(), CoreError> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(CoreError::validation(
            "account name must be 1 to 100 characters of letters, digits, '-', '_' or '.'",
        ))
    }
}

/// Creates a key for `account`, creating the account (with `plan`, default pro) if it
/// does not exist. An existing account keeps its plan.
pub async fn create_key(
    db: impl sqlx::Acquire<'_, Database = sqlx::Postgres>,
    account: &str,
    plan: Option<Plan>,
    scopes: &Scopes,
    expires_at: Option<DateTime<Utc>>,
) -> Result<CreatedKey, CoreError> {
    // A key without scopes is a usage-only key: reading usage needs no scope (SPEC).
    check_account_name(account)?;
    // A transaction of its own, or a savepoint in the caller's (whose audit entry
    // commits with the key).
    let mut tx = db.begin().await?;
    sqlx::query!(
        "INSERT INTO accounts (id, name, plan) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
        Uuid::now_v7(),
        account,
        plan.unwrap_or(super::NEW_ACCOUNT_PLAN) as Plan
    )
    .execute(&mut *tx)
    .await?;
    let account_id = sqlx::query_scalar!("SELECT id FROM accounts WHERE name = $1", account)
        .fetch_one(&mut *tx)
        .await?;
    let new = keys::generate();
    let key_id = Uuid::now_v7();
    sqlx::query!(
        "INSERT INTO api_keys (id, account_id, lookup, digest, scopes, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
        key_id,
        account_id,
        new.lookup,
        new.digest,
        &scopes.names(),
        expires_at
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(CreatedKey {
        key: new.secret,
        key_id,
        account_id,
    })
}

/// Revokes a key (idempotent: revoking twice keeps the first time).
pub async fn revoke_key(db: impl PgExecutor<'_>, key_id: Uuid) -> Result<KeyRow, CoreError> {
    sqlx::query_as!(
        KeyRow,
        "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1
         RETURNING id, account_id, lookup, digest, scopes, created_at, expires_at, revoked_at",
        key_id
    )
    .fetch_optional(db)
    .await?
    .ok_or(CoreError::NotFound("key"))
}

pub async fn list_keys(pool: &PgPool, account: &str) -> Result<Vec<KeyRow>, CoreError> {
    let account = find_account(pool, account).await?;
    Ok(sqlx::query_as!(
        KeyRow,
        "SELECT id, account_id, lookup, digest, scopes, created_at, expires_at, revoked_at
           FROM api_keys WHERE account_id = $1 AND lookup NOT LIKE 'session-%'
          ORDER BY created_at DESC, id DESC",
        account.id
    )
    .fetch_all(pool)
    .await?)
}

/// A change to an account; `None` leaves a property as it is.
#[derive(Debug, Default, Clone)]
pub struct AccountChange {
    pub plan: Option<Plan>,
    /// `Some(None)` clears the limit back to the plan default.
    pub response_limit: Option<Option<i64>>,
    /// `Some(None)` removes the address.
    pub email: Option<Option<String>>,
}

impl AccountChange {
    /// The names of the properties the change sets, for the audit trail.
    pub fn names(&self) -> Vec<&'static str> {
        [
            ("plan", self.plan.is_some()),
            ("response_limit", self.response_limit.is_some()),
            ("email", self.email.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, set)| set.then_some(name))
        .collect()
    }
}

pub async fn update_account(
    db: impl PgExecutor<'_>,
    name: &str,
    change: &AccountChange,
) -> Result<AccountRow, CoreError> {
    if let Some(Some(limit)) = change.response_limit
        && limit < 0
    {
        return Err(CoreError::validation("response_limit must be 0 or more"));
    }
    if let Some(Some(email)) = &change.email {
        super::check_email(email)?;
    }
    sqlx::query_as!(
        AccountRow,
        r#"UPDATE accounts SET
              plan = COALESCE($2, plan),
              response_limit = CASE WHEN $3 THEN $4 ELSE response_limit END,
              email = CASE WHEN $5 THEN $6 ELSE email END
            WHERE name = $1
            RETURNING id, name, plan AS "plan: Plan", response_limit, created_at, email"#,
        name,
        change.plan as Option<Plan>,
        change.response_limit.is_some(),
        change.response_limit.flatten(),
        change.email.is_some(),
        change.email.clone().flatten()
    )
    .fetch_optional(db)
    .await
    .map_err(read_error)?
    .ok_or(CoreError::NotFound("account"))
}

/// The account's session key: the identity under which requests signed in with a
/// session cookie are rate-limited and counted in usage. It has every scope, can never
/// be presented (its digest matches no key), and is left out of key lists.
pub async fn session_key(
    pool: &PgPool,
    issuer: &str,
    subject: &str,
) -> Result<Option<KeyWithPlan>, CoreError> {
    let Some(account_id) = account_of_identity(pool, issuer, subject).await? else {
        return Ok(None);
    };
    let lookup = ensure_session_key(pool, account_id).await?;
    find_key_by_lookup(pool, &lookup).await
}

/// Makes the account's session key if it has none; its lookup. Dashboard sessions and
/// provider-cookie sign-ins share it.
pub(crate) async fn ensure_session_key(
    pool: impl PgExecutor<'_>,
    account_id: Uuid,
) -> Result<String, CoreError> {
    let lookup = format!("session-{account_id}");
    sqlx::query!(
        r"INSERT INTO api_keys (id, account_id, lookup, digest, scopes)
          VALUES ($1, $2, $3, '\x'::bytea, ARRAY['read', 'write', 'admin'])
          ON CONFLICT (lookup) DO NOTHING",
        Uuid::now_v7(),
        account_id,
        lookup
    )
    .execute(pool)
    .await?;
    Ok(lookup)
}

// ---- The owner's own account and keys (OwnerService, the dashboard) ----

/// The account of an id.
pub(crate) async fn account_by_id(pool: &PgPool, id: Uuid) -> Result<AccountRow, CoreError> {
    sqlx::query_as!(
        AccountRow,
        r#"SELECT id, name, plan AS "plan: Plan", response_limit, created_at, email
             FROM accounts WHERE id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await
    .map_err(read_error)?
    .ok_or(CoreError::NotFound("account"))
}

/// Responses the account received in the quota month starting on `month` (its first day).
pub(crate) async fn responses_in_month(
    pool: &PgPool,
    account_id: Uuid,
    month: chrono::NaiveDate,
) -> Result<i64, CoreError> {
    Ok(sqlx::query_scalar!(
        "SELECT response_count FROM response_quota_usage WHERE account_id = $1 AND month = $2",
        account_id,
        month
    )
    .fetch_optional(pool)
    .await?
    .unwrap_or(0))
}

/// The lookup of an account's session key (see `ensure_session_key`).
pub(crate) fn session_lookup(account_id: Uuid) -> String {
    format!("session-{account_id}")
}

/// An account's keys, newest first: its API keys and its current session key (the
/// retired session keys left behind by `link_identity` are not listed).
pub(crate) async fn own_keys(pool: &PgPool, account_id: Uuid) -> Result<Vec<KeyRow>, CoreError> {
    Ok(sqlx::query_as!(
        KeyRow,
        "SELECT id, account_id, lookup, digest, scopes, created_at, expires_at, revoked_at
           FROM api_keys
          WHERE account_id = $1 AND (lookup NOT LIKE 'session-%' OR lookup = $2)
          ORDER BY created_at DESC, id DESC",
        account_id,
        session_lookup(account_id)
    )
    .fetch_all(pool)
    .await?)
}

/// One key of an account (its session key included); NotFound for another's.
pub(crate) async fn own_key(
    pool: &PgPool,
    account_id: Uuid,
    key_id: Uuid,
) -> Result<KeyRow, CoreError> {
    sqlx::query_as!(
        KeyRow,
        "SELECT id, account_id, lookup, digest, scopes, created_at, expires_at, revoked_at
           FROM api_keys
          WHERE id = $1 AND account_id = $2 AND (lookup NOT LIKE 'session-%' OR lookup = $3)",
        key_id,
        account_id,
        session_lookup(account_id)
    )
    .fetch_optional(pool)
    .await?
    .ok_or(CoreError::NotFound("key"))
}

/// Revokes an API key of an account (idempotent, like `revoke_key`); NotFound for
/// another account's key and for session keys. The update's trigger tells every
/// instance to forget the key (migration 0009).
pub(crate) async fn revoke_own_key(
    db: impl PgExecutor<'_>,
    account_id: Uuid,
    key_id: Uuid,
) -> Result<KeyRow, CoreError> {
    sqlx::query_as!(
        KeyRow,
        "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
          WHERE id = $1 AND account_id = $2 AND lookup NOT LIKE 'session-%'
         RETURNING id, account_id, lookup, digest, scopes, created_at, expires_at, revoked_at",
        key_id,
        account_id
    )
    .fetch_optional(db)
    .await?
    .ok_or(CoreError::NotFound("key"))
}
