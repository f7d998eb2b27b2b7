-- Fair delivery claims deliveries per account: it walks the accounts with pending
-- deliveries (a skip scan of this index) and takes each one's oldest due deliveries
-- (the same index, in order), instead of the oldest due deliveries of whoever has most.
CREATE INDEX deliveries_account_due ON deliveries (account_id, next_attempt_at)
    WHERE status = 'pending';
