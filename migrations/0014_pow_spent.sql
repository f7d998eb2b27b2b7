-- Proof-of-work solutions of hosted pages already used (core/hosted/pow.rs): the
-- SHA-256 of each spent challenge, kept until the challenge expires. A solution is
-- good for one submission: inserting its digest a second time inserts nothing, and the
-- submission is refused. Expired rows are purged by the core's maintenance task (an
-- expired challenge is refused on its expiry anyway).
CREATE TABLE pow_spent (
    digest     bytea PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
CREATE INDEX pow_spent_expiry ON pow_spent (expires_at);
