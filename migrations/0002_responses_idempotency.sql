-- Responses, the per-form counters that keep page totals and keyset order exact,
-- monthly response quotas, idempotency records and service secrets.

-- Maintained in the transaction of every response insert and delete, so page-mode
-- totals never need a COUNT(*) over a form's responses.
ALTER TABLE forms ADD COLUMN response_count bigint NOT NULL DEFAULT 0;
-- The newest submitted_at of the form; the next response gets a strictly later one.
ALTER TABLE forms ADD COLUMN last_submitted_at timestamptz;

CREATE TABLE responses (
    id                       uuid PRIMARY KEY,
    form_id                  uuid NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
    answers                  jsonb NOT NULL,
    metadata                 jsonb NOT NULL DEFAULT '{}',
    device_type              text,
    browser                  text,
    os                       text,
    started_at               timestamptz NOT NULL,
    submitted_at             timestamptz NOT NULL,
    completion_time_seconds  bigint
);
-- Keyset pagination in both directions, and since/until ranges.
CREATE INDEX responses_form_submitted ON responses (form_id, submitted_at, id);

-- Responses accepted per account and calendar month (UTC), for the response quota.
-- Deleting a response does not give its unit back.
CREATE TABLE response_quota_usage (
    account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    month           date NOT NULL,
    response_count  bigint NOT NULL,
    PRIMARY KEY (account_id, month)
);

-- Idempotency records of successful creates, per account; kept 24 hours.
CREATE TABLE idempotency_keys (
    account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    key           text NOT NULL,
    operation     text NOT NULL,
    request_hash  bytea NOT NULL,
    -- The encoded protobuf reply, replayed as is.
    reply         bytea,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Random secrets shared by all instances (e.g. the key that signs cursors).
CREATE TABLE service_secrets (
    name   text PRIMARY KEY,
    value  bytea NOT NULL
);
