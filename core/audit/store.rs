//! SQL of the audit trail: appending to a chain under its locked head, reading an
//! account's entries (keyset by `seq`), walking a chain for `verify`, and cutting a
//! chain's oldest entries for retention.

use super::Target;
use super::hash::{self, Entry, GENESIS};
use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// An entry about to be appended.
pub(crate) struct NewEntry<'a> {
    pub account_id: Option<Uuid>,
    pub actor_kind: &'static str,
    pub actor_key_id: Option<Uuid>,
    pub actor_session_id: Option<Uuid>,
    pub actor_member_id: Option<Uuid>,
    pub client_ip: &'a str,
    pub user_agent: &'a str,
    pub action: &'static str,
    pub target: &'a Target,
    pub changed: &'a [&'static str],
    pub outcome: &'static str,
}

/// A stored entry, with its hash.
#[derive(Debug, Clone)]
pub(crate) struct Stored {
    pub entry: Entry,
    pub hash: Vec<u8>,
}

/// A stored entry's row, as the listing and the walk read it.
struct Row {
    chain: Uuid,
    seq: i64,
    at: DateTime<Utc>,
    account_id: Option<Uuid>,
    actor_kind: String,
    actor_key_id: Option<Uuid>,
    actor_session_id: Option<Uuid>,
    actor_member_id: Option<Uuid>,
    client_ip: String,
    user_agent: String,
    action: String,
    target_kind: String,
    target_id: String,
    form_id: Option<Uuid>,
    changed: Vec<String>,
    outcome: String,
    prev_hash: Vec<u8>,
    hash: Vec<u8>,
}

impl From<Row> for Stored {
    fn from(r: Row) -> Self {
        Self {
            entry: Entry {
                chain: r.chain,
                seq: r.seq,
                at: r.at,
                account_id: r.account_id,
                actor_kind: r.actor_kind,
                actor_key_id: r.actor_key_id,
                actor_session_id: r.actor_session_id,
                actor_member_id: r.actor_member_id,
                client_ip: r.client_ip,
                user_agent: r.user_agent,
                action: r.action,
                target_kind: r.target_kind,
                target_id: r.target_id,
                form_id: r.form_id,
                changed: r.changed,
                outcome: r.outcome,
                prev_hash: r.prev_hash,
            },
            hash: r.hash,
        }
    }
}

/// The head of a chain.
pub(crate) struct Head {
    pub chain: Uuid,
    pub seq: i64,
    pub hash: Vec<u8>,
    pub base_seq: i64,
    pub base_hash: Vec<u8>,
}

/// Appends `new` to its chain: locks the head (made on the chain's first entry), then
/// writes the entry and moves the head, all in the caller's transaction.
pub(crate) async fn append(tx: &mut PgConnection, new: &NewEntry<'_>) -> Result<(), CoreError> {
    let chain = new.account_id.unwrap_or(Uuid::nil());
    let head = lock_head(tx, chain).await?;
    let entry = Entry {
        chain,
        seq: head.0 + 1,
        // Taken under the lock: entries of a chain are in time order.
        at: hash::stored_time(Utc::now()),
        account_id: new.account_id,
        actor_kind: new.actor_kind.to_owned(),
        actor_key_id: new.actor_key_id,
        actor_session_id: new.actor_session_id,
        actor_member_id: new.actor_member_id,
        client_ip: new.client_ip.to_owned(),
        user_agent: new.user_agent.to_owned(),
        action: new.action.to_owned(),
        target_kind: new.target.kind.to_owned(),
        target_id: new.target.id.clone(),
        form_id: new.target.form_id,
        changed: new.changed.iter().map(|s| (*s).to_owned()).collect(),
        outcome: new.outcome.to_owned(),
        prev_hash: head.1,
    };
    let hash = hash::of(&entry);
    sqlx::query!(
        "INSERT INTO audit_entries (chain, seq, at, account_id, actor_kind, actor_key_id,
             actor_session_id, actor_member_id, client_ip, user_agent, action, target_kind,
             target_id, form_id, changed, outcome, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
        entry.chain,
        entry.seq,
        entry.at,
        entry.account_id,
        entry.actor_kind,
        entry.actor_key_id,
        entry.actor_session_id,
        entry.actor_member_id,
        entry.client_ip,
        entry.user_agent,
        entry.action,
        entry.target_kind,
        entry.target_id,
        entry.form_id,
        &entry.changed,
        entry.outcome,
        entry.prev_hash,
        hash,
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "UPDATE audit_heads SET seq = $2, hash = $3 WHERE chain = $1",
        chain,
        entry.seq,
        hash
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// The chain's head (seq, hash), locked; made when the chain is new.
async fn lock_head(tx: &mut PgConnection, chain: Uuid) -> Result<(i64, Vec<u8>), CoreError> {
    let select = || {
        sqlx::query!(
            "SELECT seq, hash FROM audit_heads WHERE chain = $1 FOR UPDATE",
            chain
        )
    };
    if let Some(row) = select().fetch_optional(&mut *tx).await? {
        return Ok((row.seq, row.hash));
    }
    // Two first entries at once: one inserts, the other waits on its row, then locks it.
    sqlx::query!(
        "INSERT INTO audit_heads (chain, seq, hash, base_hash) VALUES ($1, 0, $2, $2)
         ON CONFLICT (chain) DO NOTHING",
        chain,
        &GENESIS[..]
    )
    .execute(&mut *tx)
    .await?;
    let row = select().fetch_one(&mut *tx).await?;
    Ok((row.seq, row.hash))
}

/// What the reader filters on.
#[derive(Debug, Default, Clone)]
pub(crate) struct Filter {
    /// A key, session or member id.
    pub actor: Option<Uuid>,
    pub action: Option<String>,
    pub form_id: Option<Uuid>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    /// Entries before this one (keyset): newest first.
    pub before_seq: Option<i64>,
}

/// An account's entries matching `filter`, newest first, at most `limit`.
pub(crate) async fn list(
    pool: &PgPool,
    account_id: Uuid,
    filter: &Filter,
    limit: i64,
) -> Result<Vec<Stored>, CoreError> {
    let rows = sqlx::query_as!(
        Row,
        r#"SELECT chain, seq, at, account_id, actor_kind, actor_key_id, actor_session_id,
                  actor_member_id, client_ip, user_agent, action, target_kind, target_id,
                  form_id, changed, outcome, prev_hash, hash
           FROM audit_entries
           WHERE chain = $1
             AND ($2::bigint IS NULL OR seq < $2)
             AND ($3::uuid IS NULL OR actor_key_id = $3 OR actor_session_id = $3
                  OR actor_member_id = $3)
             AND ($4::text IS NULL OR action = $4)
             AND ($5::uuid IS NULL OR form_id = $5)
             AND ($6::timestamptz IS NULL OR at >= $6)
             AND ($7::timestamptz IS NULL OR at < $7)
           ORDER BY seq DESC
           LIMIT $8"#,
        account_id,
        filter.before_seq,
        filter.actor,
        filter.action,
        filter.form_id,
        filter.since,
        filter.until,
        limit,
    )
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(Stored::from).collect())
}

/// Every chain's head, and the chains that have entries but no head (a deleted head).
pub(crate) async fn heads(pool: &PgPool) -> Result<(Vec<Head>, Vec<Uuid>), CoreError> {
    let heads = sqlx::query_as!(
        Head,
        "SELECT chain, seq, hash, base_seq, base_hash FROM audit_heads ORDER BY chain"
    )
    .fetch_all(pool)
    .await?;
    let headless = sqlx::query_scalar!(
        r#"SELECT DISTINCT e.chain AS "chain!" FROM audit_entries e
           WHERE NOT EXISTS (SELECT 1 FROM audit_heads h WHERE h.chain = e.chain)"#
    )
    .fetch_all(pool)
    .await?;
    Ok((heads, headless))
}

/// Hands `chain`'s entries to `visit` in order, streamed (a chain may be long), until
/// `visit` answers Some: that answer.
pub(crate) async fn walk<T>(
    pool: &PgPool,
    chain: Uuid,
    mut visit: impl FnMut(Stored) -> Option<T>,
) -> Result<Option<T>, CoreError> {
    use tokio_stream::StreamExt;
    let mut rows = sqlx::query_as!(
        Row,
        "SELECT chain, seq, at, account_id, actor_kind, actor_key_id, actor_session_id,
                actor_member_id, client_ip, user_agent, action, target_kind, target_id,
                form_id, changed, outcome, prev_hash, hash
         FROM audit_entries WHERE chain = $1 ORDER BY seq",
        chain
    )
    .fetch(pool);
    while let Some(r) = rows.next().await {
        let stored = Stored::from(r?);
        if let Some(found) = visit(stored) {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// Chains holding entries older than `cutoff`.
pub(crate) async fn chains_older_than(
    pool: &PgPool,
    cutoff: DateTime<Utc>,
) -> Result<Vec<Uuid>, CoreError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT DISTINCT chain AS "chain!" FROM audit_entries WHERE at < $1"#,
        cutoff
    )
    .fetch_all(pool)
    .await?)
}

/// Cuts at most `batch` of `chain`'s oldest entries older than `cutoff`, moving the
/// head's base to the last one cut, in one transaction holding the head (the chain's
/// writers wait for one batch at most). Returns how many were cut.
pub(crate) async fn cut(
    pool: &PgPool,
    chain: Uuid,
    cutoff: DateTime<Utc>,
    batch: i64,
) -> Result<u64, CoreError> {
    let mut tx = pool.begin().await?;
    let head = sqlx::query!(
        "SELECT base_seq FROM audit_heads WHERE chain = $1 FOR UPDATE",
        chain
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(head) = head else {
        return Ok(0);
    };
    // The oldest entries, up to the first one young enough to keep: a prefix of the
    // chain (entries are in time order), so the rest still links to the new base.
    let oldest = sqlx::query!(
        "SELECT seq, at, hash FROM audit_entries
         WHERE chain = $1 AND seq > $2 ORDER BY seq LIMIT $3",
        chain,
        head.base_seq,
        batch
    )
    .fetch_all(&mut *tx)
    .await?;
    let Some(last) = oldest.iter().take_while(|row| row.at < cutoff).last() else {
        return Ok(0);
    };
    let deleted = sqlx::query!(
        "DELETE FROM audit_entries WHERE chain = $1 AND seq > $2 AND seq <= $3",
        chain,
        head.base_seq,
        last.seq
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    sqlx::query!(
        "UPDATE audit_heads SET base_seq = $2, base_hash = $3 WHERE chain = $1",
        chain,
        last.seq,
        last.hash
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(deleted)
}
