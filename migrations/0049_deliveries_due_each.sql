-- The index of pending deliveries (0007) keeps one entry for each delivery, never one
-- entry for several. By default PostgreSQL merges the entries of equal keys into one
-- (deduplication), and equal keys are common here: a backlog made by one statement,
-- or the retries of one recorded batch, share their `next_attempt_at`. A merged entry
-- can be marked dead only once every delivery in it is settled, so until then each
-- claim read the settled ones again, each from the table: about 180 for each account
-- and each claim over a backlog of 100,000 such deliveries in 64 accounts, 22,000
-- pages and 15-35 ms a claim (EXPLAIN ANALYZE during benches/webhooks.rs, step 4), and
-- 119 entries a delivery in tests/api/backlog_claims.rs. With an entry each, a claim
-- marks the settled ones dead as it passes them and the next skips them: 5 a delivery.
ALTER INDEX deliveries_account_due SET (deduplicate_items = off);
-- The entries merged before this stay merged until rewritten.
REINDEX INDEX deliveries_account_due;
