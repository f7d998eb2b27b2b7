-- An identity is the pair (issuer, subject): a `sub` is unique only at the provider that
-- issued it, so two providers' subjects never meet. Before this, OpenID Connect subjects
-- and the provider cookie's shared one column, and a subject minted by one provider
-- signed in to the account linked for the same subject at the other.
--
-- The issuer is the OpenID provider's `--oidc-issuer`, or for the provider cookie its
-- `--session-issuer` (without one, the fixed name `provider-cookie`).
--
-- Rows linked before this migration (and links made without an issuer) have the empty
-- issuer: unclaimed. The first provider that signs that subject in claims the row (its
-- issuer is written in, in the same statement that finds it), and from then on it is
-- that provider's identity only: a second provider's same subject matches nothing. An
-- issuer's own row, when one is linked, always wins over an unclaimed one.
ALTER TABLE account_identities ADD COLUMN issuer text NOT NULL DEFAULT '';
ALTER TABLE account_identities DROP CONSTRAINT account_identities_pkey;
ALTER TABLE account_identities ADD PRIMARY KEY (issuer, subject);
-- The look-ups by subject alone (a link or unlink that names no issuer).
CREATE INDEX account_identities_subject ON account_identities (subject);

-- A session ends with the identity (issuer, subject) that opened it (migration 0019).
-- Sessions opened before this have the empty issuer: they end when their subject is
-- unlinked or moved under any issuer, as they did before.
ALTER TABLE dashboard_sessions ADD COLUMN issuer text NOT NULL DEFAULT '';
DROP INDEX dashboard_sessions_open_by_subject;
CREATE INDEX dashboard_sessions_open_by_identity ON dashboard_sessions (subject, issuer)
    WHERE subject IS NOT NULL AND ended_at IS NULL;
