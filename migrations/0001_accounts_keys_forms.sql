-- Accounts, API keys, per-key rate windows and daily usage, forms.

CREATE TABLE accounts (
    id              uuid PRIMARY KEY,
    name            text NOT NULL UNIQUE,
    plan            text NOT NULL CHECK (plan IN ('free', 'pro', 'enterprise')),
    -- Responses per calendar month across the account's forms; NULL: the plan default.
    response_limit  bigint CHECK (response_limit >= 0),
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    id          uuid PRIMARY KEY,
    account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    -- Non-secret part of the key used to find the row; shown as the key's prefix.
    lookup      text NOT NULL UNIQUE,
    -- SHA-256 of the whole key; the key itself is never stored.
    digest      bytea NOT NULL,
    scopes      text[] NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz,
    revoked_at  timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at DESC);

-- The current fixed 60-second window of each key: one row per key, reset in place when
-- a new window starts, so nothing needs purging.
CREATE TABLE rate_windows (
    key_id        uuid PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
    window_start  timestamptz NOT NULL,
    request_count integer NOT NULL
);

CREATE TABLE usage_daily (
    key_id        uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    day           date NOT NULL,
    request_count bigint NOT NULL DEFAULT 0,
    error_count   bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (key_id, day)
);

CREATE TABLE forms (
    id            uuid PRIMARY KEY,
    account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    short_id      text NOT NULL UNIQUE,
    title         text NOT NULL,
    description   text,
    status        text NOT NULL CHECK (status IN ('draft', 'published', 'archived')),
    fields        jsonb NOT NULL DEFAULT '[]',
    settings      jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    published_at  timestamptz
);
CREATE INDEX forms_account_created ON forms (account_id, created_at DESC, id DESC);
