-- Identity-provider subjects linked to accounts, for API sign-in with a session cookie.
CREATE TABLE account_identities (
    subject     text PRIMARY KEY,
    account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now()
);
