//! The bare SQL of step 2: the worker's claim and record statements, as `pgbench`
//! runs them.

/// The claim statement of `core/outbox/store.rs` (`claim_deliveries`) with a worker's
/// values: 256 free slots, 8 per account, nothing in flight, a 60 s lease; it hands the
/// claimed ids to the record statement.
pub const CLAIM: &str = r#"WITH RECURSIVE accounts AS (
    (SELECT d.account_id FROM deliveries d WHERE d.status = 'pending' ORDER BY d.account_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.account_id FROM deliveries d WHERE d.status = 'pending' AND d.account_id > a.account_id ORDER BY d.account_id LIMIT 1)
      FROM accounts a WHERE a.account_id IS NOT NULL
), offers AS MATERIALIZED (
    SELECT o.id, o.slot, o.next_attempt_at FROM accounts a
     CROSS JOIN LATERAL (
        SELECT c.id, c.next_attempt_at, row_number() OVER (ORDER BY c.turn, c.next_attempt_at) AS slot
          FROM (SELECT d.id, d.next_attempt_at,
                       row_number() OVER (PARTITION BY d.webhook_id, d.event ORDER BY d.next_attempt_at, d.created_at, d.id) AS turn
                  FROM (SELECT d.id, d.next_attempt_at, d.created_at, d.webhook_id, d.event FROM deliveries d
                         WHERE d.account_id = a.account_id AND d.status = 'pending' AND d.next_attempt_at <= now()
                           AND (d.locked_until IS NULL OR d.locked_until < now())
                           AND (d.webhook_id = ANY(ARRAY(SELECT w.id FROM webhooks w WHERE w.account_id = a.account_id AND NOT w.is_active))) IS NOT TRUE
                         ORDER BY d.next_attempt_at LIMIT 16) d) c
         ORDER BY c.turn, c.next_attempt_at LIMIT 8) o
     WHERE a.account_id IS NOT NULL ORDER BY o.slot, o.next_attempt_at LIMIT 256
), due AS (
    SELECT d.id FROM offers o JOIN deliveries d ON d.id = o.id WHERE d.status <> ALL ('{succeeded,failed}')
       AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until < now())
       FOR UPDATE OF d SKIP LOCKED
), claimed AS (
    UPDATE deliveries d SET locked_until = now() + make_interval(secs => 60) FROM due WHERE d.id = due.id
    RETURNING d.id, d.webhook_id, d.event, d.url, d.payload, d.attempts, d.max_retries, d.created_at, d.next_attempt_at
), sent AS (
    SELECT c.id, COALESCE(w.url, r.url, c.url) AS url, COALESCE(w.secret, r.secret) AS secret, c.payload
      FROM claimed c LEFT JOIN webhooks w ON w.id = c.webhook_id LEFT JOIN retired_webhooks r ON r.id = c.webhook_id
     CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
)
SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') AS ids, count(*) AS n, sum(length(payload)) AS bytes FROM sent
\gset
"#;

/// The record statement of `core/outbox/store.rs` (`record_delivery_attempts`) for the
/// claimed ids, each a success answered "ok" in 1 ms.
pub const RECORD: &str = "WITH a AS (
    SELECT * FROM unnest(string_to_array(:ids, ',')::uuid[]) AS a(id)
), recorded AS (
    INSERT INTO delivery_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_body)
    SELECT id, now(), 200, 1, NULL, 'ok' FROM a
)
UPDATE deliveries d SET status = 'succeeded', attempts = d.attempts + 1, locked_until = NULL,
       next_attempt_at = d.next_attempt_at
  FROM a CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
 WHERE d.id = a.id;
";
