-- The claim walks each account's pending deliveries through deliveries_account_due
-- (0007); deliveries_due, on next_attempt_at alone, served the first-come claim before
-- it. Kept, it cost every delivery insert and settle an index entry, and it misled the
-- planner: with statistics taken while nothing was pending (the usual case), a claim
-- over a backlog of 29,000 scanned it in each account's lateral and in a nested loop
-- against the offers, 2.3 s a claim (EXPLAIN ANALYZE, benches/webhooks.rs sustained step).
DROP INDEX IF EXISTS deliveries_due;
