-- Webhook subscriptions, their deliveries (the transactional outbox) and attempts.

CREATE TABLE webhooks (
    id           uuid PRIMARY KEY,
    form_id      uuid NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
    account_id   uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name         text NOT NULL,
    url          text NOT NULL,
    events       text[] NOT NULL,
    is_active    boolean NOT NULL DEFAULT true,
    max_retries  integer NOT NULL DEFAULT 3,
    -- Needed in clear to sign deliveries; never returned after creation, never logged.
    secret       text NOT NULL,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL
);
CREATE INDEX webhooks_form ON webhooks (form_id, created_at);

-- One row per event and subscription, written in the transaction of the change.
-- The target and secret are copied so that a delivery survives its subscription
-- (form.deleted is delivered after the form and its subscriptions are gone).
CREATE TABLE deliveries (
    id               uuid PRIMARY KEY,
    webhook_id       uuid REFERENCES webhooks (id) ON DELETE SET NULL,
    account_id       uuid NOT NULL,
    form_id          uuid NOT NULL,
    event            text NOT NULL,
    url              text NOT NULL,
    secret           text NOT NULL,
    -- The exact JSON body sent (and signed) on every attempt.
    payload          bytea NOT NULL,
    status           text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts         integer NOT NULL DEFAULT 0,
    max_retries      integer NOT NULL,
    next_attempt_at  timestamptz NOT NULL,
    -- Lease of the worker attempting it; an expired lease (crash) makes it due again.
    locked_until     timestamptz,
    created_at       timestamptz NOT NULL
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, created_at DESC);

CREATE TABLE delivery_attempts (
    id             bigserial PRIMARY KEY,
    delivery_id    uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    attempted_at   timestamptz NOT NULL,
    status_code    integer,
    duration_ms    bigint NOT NULL,
    error          text,
    response_body  text NOT NULL DEFAULT ''
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, attempted_at);
