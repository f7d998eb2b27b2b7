-- Usage flushes by id (core/usage/tally.rs). A flush whose commit is not known (its
-- connection failed on the way) is sent again with the same id; the id's row makes the
-- second one add nothing, so a count is never added twice. Ids are kept a week.
CREATE TABLE usage_flushes (
    id         uuid PRIMARY KEY,
    flushed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_flushes_age ON usage_flushes (flushed_at);
