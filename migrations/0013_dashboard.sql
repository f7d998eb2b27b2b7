-- The owners' dashboard: its sessions, one-time sign-in links, OpenID Connect attempts
-- in flight, and the per-day response counters its pages draw.

-- A signed-in browser. The token is only ever stored as its SHA-256 digest. A session
-- ends at `ended_at` (sign-out), at `expires_at` (absolute lifetime), or once
-- `last_seen_at` is older than the idle timeout; every instance reads this table, so
-- sign-out reaches them all at once.
CREATE TABLE dashboard_sessions (
    id            uuid PRIMARY KEY,
    digest        bytea NOT NULL UNIQUE,
    account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    method        text NOT NULL CHECK (method IN ('link', 'oidc', 'cookie')),
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_seen_at  timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL,
    ended_at      timestamptz
);
CREATE INDEX dashboard_sessions_account ON dashboard_sessions (account_id);

-- One-time sign-in links (`formsd accounts sign-in-link`, or mailed): the token's
-- digest, used once, within 15 minutes.
CREATE TABLE sign_in_links (
    digest      bytea PRIMARY KEY,
    account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz
);

-- OpenID Connect sign-ins between the redirect to the provider and its callback: the
-- state's digest, the nonce and the PKCE verifier, taken once.
CREATE TABLE oidc_attempts (
    state_digest  bytea PRIMARY KEY,
    nonce         text NOT NULL,
    verifier      text NOT NULL,
    redirect_uri  text NOT NULL,
    expires_at    timestamptz NOT NULL
);

-- Responses per form and UTC day, kept by the triggers below in the statement that
-- inserts or deletes responses (one upsert per statement and day, whichever path
-- wrote them), so that a form's daily activity never needs a COUNT over responses.
CREATE TABLE form_daily_responses (
    form_id  uuid NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
    day      date NOT NULL,
    count    bigint NOT NULL,
    PRIMARY KEY (form_id, day)
);

CREATE FUNCTION form_daily_responses_added() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO form_daily_responses (form_id, day, count)
    SELECT form_id, (submitted_at AT TIME ZONE 'UTC')::date, count(*)
      FROM added GROUP BY 1, 2
    ON CONFLICT (form_id, day)
    DO UPDATE SET count = form_daily_responses.count + EXCLUDED.count;
    RETURN NULL;
END $$;

CREATE FUNCTION form_daily_responses_removed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE form_daily_responses d SET count = d.count - r.n
      FROM (SELECT form_id, (submitted_at AT TIME ZONE 'UTC')::date AS day, count(*) AS n
              FROM removed GROUP BY 1, 2) r
     WHERE d.form_id = r.form_id AND d.day = r.day;
    RETURN NULL;
END $$;

CREATE TRIGGER responses_daily_added AFTER INSERT ON responses
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION form_daily_responses_added();
CREATE TRIGGER responses_daily_removed AFTER DELETE ON responses
    REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION form_daily_responses_removed();

-- Responses already stored count from the start.
INSERT INTO form_daily_responses (form_id, day, count)
SELECT form_id, (submitted_at AT TIME ZONE 'UTC')::date, count(*)
  FROM responses GROUP BY 1, 2;
