//! SQL of the outbox's mechanics over its two tables, `deliveries` (webhooks) and
//! `notifications` (mail), with their attempts: waking the workers, claiming due
//! messages fairly, recording attempts, and purging what is settled.

use super::{Claim, DeliveryStatus, Settled};
use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::{PgExecutor, PgPool};
use std::time::Duration;
use uuid::Uuid;

/// Wakes the workers listening on `channel` (sent when the transaction of `db` commits).
pub(crate) async fn notify(db: impl PgExecutor<'_>, channel: &str) -> Result<(), CoreError> {
    sqlx::query!("SELECT pg_notify($1, '')", channel)
        .execute(db)
        .await?;
    Ok(())
}

/// A claimed webhook delivery, with its subscription's current URL and secret (`None`
/// when the subscription is gone and nothing was kept of it: it cannot be signed).
pub(crate) struct DueDelivery {
    pub id: Uuid,
    pub account_id: Uuid,
    /// Its subscription (also when retired): its deliveries of one event are sent one
    /// at a time, in order.
    pub webhook_id: Option<Uuid>,
    pub event: String,
    pub url: String,
    pub secret: Option<String>,
    pub payload: Vec<u8>,
    pub attempts: i32,
    pub max_retries: i32,
    pub created_at: DateTime<Utc>,
}

/// Claims due deliveries fairly across accounts, each for `lease` (several instances
/// never claim the same one). Every account with pending deliveries is visited (a skip
/// scan over `deliveries_account_due`) and offers, from its oldest due deliveries (twice
/// its free share: each row read costs every claim, whatever it takes), up to its free
/// share: first the head of each of its sequences (a subscription's deliveries of one
/// event, sent one at a time: the heads of several sequences are worth more than the
/// next of one, which would only wait behind its head), then the next of each, oldest
/// first. The offers are taken in the order of the slot each would occupy in its
/// account (1 + what that account has in flight, oldest first among equals), so free
/// slots go first to the accounts holding the fewest. The window function cannot take
/// row locks, so the chosen rows are then locked with `FOR UPDATE SKIP LOCKED`, which
/// re-checks status and lease on the newest row version: a delivery another instance
/// claimed meanwhile is dropped, exactly as before.
///
/// The claim commits without waiting for its WAL to be flushed (`synchronous_commit`
/// set off for its own transaction, by the `async_commit` join): a claim lost in a
/// crash of the database makes its deliveries due again while this instance may be
/// sending them, so one may be sent twice, as after a lease that expired mid-attempt
/// (delivery is at least once; a receiver tells a repeat by its `webhook-id`).
///
/// A delivery of a paused (inactive) subscription waits until it is active again; one
/// whose subscription still exists goes to its current URL, signed with its current
/// secret (an operator may have fixed the URL, or rotated the secret, before a retry);
/// one whose subscription went with its form uses the retired subscription's.
///
/// The claimed deliveries come oldest first (due time, then creation): the worker sends
/// a subscription's deliveries of one event one at a time in this order.
pub(crate) async fn claim_deliveries(
    pool: &PgPool,
    claim: Claim<'_>,
) -> Result<Vec<DueDelivery>, CoreError> {
    Ok(sqlx::query_as!(
        DueDelivery,
        r#"WITH RECURSIVE accounts AS (
             (SELECT d.account_id FROM deliveries d WHERE d.status = 'pending'
               ORDER BY d.account_id LIMIT 1)
             UNION ALL
             SELECT (SELECT d.account_id FROM deliveries d
                      WHERE d.status = 'pending' AND d.account_id > a.account_id
                      ORDER BY d.account_id LIMIT 1)
               FROM accounts a WHERE a.account_id IS NOT NULL
         ), busy AS (
             SELECT b.account_id, b.n FROM unnest($3::uuid[], $4::int8[]) AS b(account_id, n)
         ), offers AS MATERIALIZED (
             SELECT o.id, o.slot, o.next_attempt_at
               FROM accounts a
               LEFT JOIN busy b ON b.account_id = a.account_id
               CROSS JOIN LATERAL (
                   SELECT c.id, c.next_attempt_at,
                          coalesce(b.n, 0)
                            + row_number() OVER (ORDER BY c.turn, c.next_attempt_at) AS slot
                     FROM (
                         SELECT d.id, d.next_attempt_at,
                                row_number() OVER (PARTITION BY d.webhook_id, d.event
                                                   ORDER BY d.next_attempt_at, d.created_at,
                                                            d.id) AS turn
                           FROM (
                               SELECT d.id, d.next_attempt_at, d.created_at, d.webhook_id,
                                      d.event
                                 FROM deliveries d
                                WHERE d.account_id = a.account_id AND d.status = 'pending'
                                  AND d.next_attempt_at <= now()
                                  AND (d.locked_until IS NULL OR d.locked_until < now())
                                  AND (d.webhook_id = ANY(ARRAY(
                                          SELECT w.id FROM webhooks w
                                           WHERE w.account_id = a.account_id
                                             AND NOT w.is_active))) IS NOT TRUE
                                ORDER BY d.next_attempt_at
                                LIMIT 2 * greatest($2::int8 - coalesce(b.n, 0), 0)
                           ) d
                     ) c
                    ORDER BY c.turn, c.next_attempt_at
                    LIMIT greatest($2::int8 - coalesce(b.n, 0), 0)
               ) o
              WHERE a.account_id IS NOT NULL
              ORDER BY o.slot, o.next_attempt_at
              LIMIT $1::int8
         ), due AS (
             -- From the offers to their rows by primary key, and by no other way: the
             -- status is tested as "neither settled state" (the same rows: 0003's check
             -- allows three), which the partial index of pending deliveries does not
             -- serve. Tested as `= 'pending'`, statistics taken while few deliveries
             -- were pending made that index look nearly empty, and the planner read it
             -- whole (the entire backlog: 100,000 rows for 48 offers, 150-200 ms a
             -- claim) to hash-join the offers; held by tests/api/backlog_claims.rs.
             SELECT d.id FROM offers o JOIN deliveries d ON d.id = o.id
              WHERE d.status <> ALL ('{succeeded,failed}') AND d.next_attempt_at <= now()
                AND (d.locked_until IS NULL OR d.locked_until < now())
              FOR UPDATE OF d SKIP LOCKED
         ), claimed AS (
             UPDATE deliveries d SET locked_until = now() + make_interval(secs => $5)
               FROM due WHERE d.id = due.id
             RETURNING d.id, d.account_id, d.webhook_id, d.event, d.url, d.payload,
                       d.attempts, d.max_retries, d.created_at, d.next_attempt_at
         )
         SELECT c.id AS "id!", c.account_id AS "account_id!", c.webhook_id,
                c.event AS "event!",
                COALESCE(w.url, r.url, c.url) AS "url!",
                COALESCE(w.secret, r.secret) AS "secret?",
                c.payload AS "payload!", c.attempts AS "attempts!",
                c.max_retries AS "max_retries!", c.created_at AS "created_at!"
           FROM claimed c LEFT JOIN webhooks w ON w.id = c.webhook_id
           LEFT JOIN retired_webhooks r ON r.id = c.webhook_id
           CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
          ORDER BY c.next_attempt_at, c.created_at, c.id"#,
        claim.limit,
        claim.per_account,
        claim.busy_accounts,
        claim.busy_counts,
        claim.lease.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}

/// A claimed notification (its mail is read when it is sent).
pub(crate) struct DueNotification {
    pub id: Uuid,
    pub account_id: Uuid,
    pub attempts: i32,
}

/// Claims due notifications for `lease`, fairly across accounts as deliveries are: each
/// account offers its oldest due notifications up to its free share, taken in the order
/// of the slot each would occupy. Mail is rarer than webhook events, so the offers come
/// from a window over the due notifications (`notifications_due`) rather than a skip
/// scan over accounts.
pub(crate) async fn claim_notifications(
    pool: &PgPool,
    claim: Claim<'_>,
) -> Result<Vec<DueNotification>, CoreError> {
    Ok(sqlx::query_as!(
        DueNotification,
        r#"WITH busy AS (
             SELECT b.account_id, b.n FROM unnest($3::uuid[], $4::int8[]) AS b(account_id, n)
         ), offers AS (
             SELECT n.id, n.next_attempt_at,
                    coalesce(b.n, 0)
                      + row_number() OVER (PARTITION BY n.account_id ORDER BY n.next_attempt_at)
                      AS slot
               FROM notifications n LEFT JOIN busy b ON b.account_id = n.account_id
              WHERE n.status = 'pending' AND n.next_attempt_at <= now()
                AND (n.locked_until IS NULL OR n.locked_until < now())
         ), due AS (
             SELECT n.id FROM notifications n
              WHERE n.id IN (SELECT o.id FROM offers o WHERE o.slot <= $2::int8
                              ORDER BY o.slot, o.next_attempt_at LIMIT $1::int8)
                AND n.status = 'pending' AND n.next_attempt_at <= now()
                AND (n.locked_until IS NULL OR n.locked_until < now())
              FOR UPDATE OF n SKIP LOCKED
         )
         UPDATE notifications n SET locked_until = now() + make_interval(secs => $5)
           FROM due WHERE n.id = due.id
         RETURNING n.id, n.account_id, n.attempts"#,
        claim.limit,
        claim.per_account,
        claim.busy_accounts,
        claim.busy_counts,
        claim.lease.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}

/// One attempt at a delivery, as recorded, with where it leaves the delivery.
pub(crate) struct DeliveryAttempt<'a> {
    pub id: Uuid,
    pub attempted_at: DateTime<Utc>,
    pub status_code: Option<i32>,
    pub duration_ms: i64,
    pub error: Option<&'a str>,
    pub response_body: &'a str,
    pub settled: Settled,
}

/// Records attempts at distinct deliveries and moves each on as its `settled` says
/// (released, due again after its wait if it is pending), in one statement: the
/// attempts' rows and the deliveries' updates commit together, with one round trip and
/// one commit for the batch. The commit does not wait for its WAL to be flushed: a
/// record lost in a crash of the database leaves its deliveries leased, and they are
/// sent again once the lease expires, as after a crash of this instance (at least
/// once; a receiver tells a repeat by its `webhook-id`).
pub(crate) async fn record_delivery_attempts(
    pool: &PgPool,
    attempts: &[DeliveryAttempt<'_>],
) -> Result<(), CoreError> {
    // In id order: two statements updating the same deliveries would lock them alike.
    let mut attempts: Vec<&DeliveryAttempt<'_>> = attempts.iter().collect();
    attempts.sort_by_key(|a| a.id);
    let ids: Vec<Uuid> = attempts.iter().map(|a| a.id).collect();
    let at: Vec<DateTime<Utc>> = attempts.iter().map(|a| a.attempted_at).collect();
    let codes: Vec<Option<i32>> = attempts.iter().map(|a| a.status_code).collect();
    let durations: Vec<i64> = attempts.iter().map(|a| a.duration_ms).collect();
    let errors: Vec<Option<&str>> = attempts.iter().map(|a| a.error).collect();
    let bodies: Vec<&str> = attempts.iter().map(|a| a.response_body).collect();
    let statuses: Vec<&str> = attempts.iter().map(|a| a.settled.status.as_str()).collect();
    let counts: Vec<i32> = attempts.iter().map(|a| a.settled.attempts).collect();
    let waits: Vec<Option<f64>> = attempts
        .iter()
        .map(|a| a.settled.retry_in.map(|d| d.as_secs_f64()))
        .collect();
    sqlx::query!(
        "WITH a AS (
             SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::int4[], $4::int8[],
                                  $5::text[], $6::text[], $7::text[], $8::int4[], $9::float8[])
                 AS a(id, attempted_at, status_code, duration_ms, error, response_body,
                      status, attempts, retry_in)
         ), recorded AS (
             INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code,
                                            duration_ms, error, response_body)
             SELECT id, attempted_at, status_code, duration_ms, error, response_body FROM a
         )
         UPDATE deliveries d SET status = a.status, attempts = a.attempts, locked_until = NULL,
                next_attempt_at = CASE WHEN a.retry_in IS NULL THEN d.next_attempt_at
                                       ELSE now() + make_interval(secs => a.retry_in) END
           FROM a CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
          WHERE d.id = a.id",
        &ids,
        &at,
        &codes as _,
        &durations,
        &errors as _,
        &bodies as _,
        &statuses as _,
        &counts,
        &waits as _
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// One attempt at sending a notification, as recorded.
pub(crate) struct NotificationAttempt<'a> {
    pub attempted_at: DateTime<Utc>,
    pub duration_ms: i64,
    pub recipient: Option<&'a str>,
    pub error: Option<&'a str>,
    pub reply: &'a str,
}

/// Records an attempt at notification `id` and moves the notification on as `settled`
/// says (released, due again after its wait if it is pending).
pub(crate) async fn record_notification_attempt(
    pool: &PgPool,
    id: Uuid,
    attempt: NotificationAttempt<'_>,
    settled: &Settled,
) -> Result<(), CoreError> {
    let mut tx = pool.begin().await?;
    sqlx::query!(
        "INSERT INTO notification_attempts (notification_id, attempted_at, duration_ms, recipient,
                                            error, reply)
         VALUES ($1, $2, $3, $4, $5, $6)",
        id,
        attempt.attempted_at,
        attempt.duration_ms,
        attempt.recipient,
        attempt.error,
        attempt.reply
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "UPDATE notifications SET status = $2, attempts = $3, locked_until = NULL,
                next_attempt_at = CASE WHEN $4::float8 IS NULL THEN next_attempt_at
                                       ELSE now() + make_interval(secs => $4) END
          WHERE id = $1",
        id,
        settled.status as DeliveryStatus,
        settled.attempts,
        settled.retry_in.map(|d| d.as_secs_f64())
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Deletes up to `limit` settled (succeeded or failed) deliveries created more than
/// `retention` ago, with their attempts; returns how many.
pub(crate) async fn purge_settled_deliveries(
    pool: &PgPool,
    retention: Duration,
    limit: i64,
) -> Result<u64, CoreError> {
    Ok(sqlx::query!(
        "DELETE FROM deliveries WHERE id IN (
             SELECT id FROM deliveries
              WHERE status <> 'pending' AND created_at < now() - make_interval(secs => $1)
              LIMIT $2)",
        retention.as_secs_f64(),
        limit
    )
    .execute(pool)
    .await?
    .rows_affected())
}

/// Deletes up to `limit` settled notifications created more than `retention` ago, with
/// their attempts; returns how many.
pub(crate) async fn purge_settled_notifications(
    pool: &PgPool,
    retention: Duration,
    limit: i64,
) -> Result<u64, CoreError> {
    Ok(sqlx::query!(
        "DELETE FROM notifications WHERE id IN (
             SELECT id FROM notifications
              WHERE status <> 'pending' AND created_at < now() - make_interval(secs => $1)
              LIMIT $2)",
        retention.as_secs_f64(),
        limit
    )
    .execute(pool)
    .await?
    .rows_affected())
}

/// Deletes the retired subscriptions no pending delivery needs any more.
pub(crate) async fn purge_retired_webhooks(pool: &PgPool) -> Result<u64, CoreError> {
    Ok(sqlx::query!(
        "DELETE FROM retired_webhooks r
          WHERE NOT EXISTS (SELECT 1 FROM deliveries d
                             WHERE d.webhook_id = r.id AND d.status = 'pending')"
    )
    .execute(pool)
    .await?
    .rows_affected())
}
