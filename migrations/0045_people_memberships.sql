-- Members and roles (issue 33 §1): a person, with their own identities, belongs to
-- accounts as a member with a role. Every call of a dashboard session or a provider
-- cookie reads the member's role from here (no cache), so that removing a member or
-- lowering a role takes effect on every instance at once.

-- A person: whoever signs in. Their identities are the OpenID Connect or provider
-- cookie subjects (account_identities.person_id) and a mail address for link sign-in.
CREATE TABLE people (
    id          uuid PRIMARY KEY,
    email       text,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX people_email ON people (lower(email)) WHERE email IS NOT NULL;

-- A person's place in an account. Roles are ordered: owner > admin > editor > viewer.
CREATE TABLE memberships (
    account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    person_id   uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    role        text NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, person_id)
);
CREATE INDEX memberships_person ON memberships (person_id);

-- An identity is a person's; the account it names stays the one it signs in to first.
ALTER TABLE account_identities ADD COLUMN person_id uuid REFERENCES people (id) ON DELETE CASCADE;
-- The person a session signed in; the member whose role each of its calls is read as.
ALTER TABLE dashboard_sessions ADD COLUMN person_id uuid REFERENCES people (id) ON DELETE CASCADE;

-- Existing accounts: one person each, their owner, holding the account's identities,
-- its address and its sessions.
CREATE TEMPORARY TABLE account_owner ON COMMIT DROP AS
    SELECT id AS account_id, gen_random_uuid() AS person_id, email FROM accounts;
INSERT INTO people (id, email)
    SELECT person_id, NULL FROM account_owner;
-- An address used by two accounts stays with the first one's person: it is unique.
UPDATE people p SET email = o.email
  FROM (SELECT DISTINCT ON (lower(email)) person_id, email FROM account_owner
         WHERE email IS NOT NULL ORDER BY lower(email), account_id) o
 WHERE p.id = o.person_id;
INSERT INTO memberships (account_id, person_id, role)
    SELECT account_id, person_id, 'owner' FROM account_owner;
UPDATE account_identities i SET person_id = o.person_id
  FROM account_owner o WHERE o.account_id = i.account_id;
UPDATE dashboard_sessions s SET person_id = o.person_id
  FROM account_owner o WHERE o.account_id = s.account_id;

-- The writers that predate people keep the invariants: a new account gets its owner,
-- an identity linked without a person is the account's first owner's, and a session
-- opened without one is its identity's person's, else (a one-time link, mailed to the
-- account's address) the account's first owner's.
CREATE FUNCTION account_gets_owner() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE person uuid := gen_random_uuid();
BEGIN
    INSERT INTO people (id) VALUES (person);
    INSERT INTO memberships (account_id, person_id, role) VALUES (NEW.id, person, 'owner');
    RETURN NULL;
END $$;
CREATE TRIGGER accounts_get_owner AFTER INSERT ON accounts
    FOR EACH ROW EXECUTE FUNCTION account_gets_owner();

CREATE FUNCTION first_owner(account uuid) RETURNS uuid
LANGUAGE sql STABLE AS $$
    SELECT person_id FROM memberships
     WHERE account_id = account AND role = 'owner'
     ORDER BY created_at, person_id LIMIT 1
$$;

CREATE FUNCTION identity_gets_person() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- An identity moved to another account leaves its person behind unless that
    -- person is a member there too: it signs in as the new account's owner.
    IF NEW.person_id IS NULL
       OR (TG_OP = 'UPDATE' AND NEW.account_id IS DISTINCT FROM OLD.account_id
           AND NOT EXISTS (SELECT 1 FROM memberships m
                            WHERE m.account_id = NEW.account_id
                              AND m.person_id = NEW.person_id)) THEN
        NEW.person_id := first_owner(NEW.account_id);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER account_identities_get_person BEFORE INSERT OR UPDATE OF account_id
    ON account_identities FOR EACH ROW EXECUTE FUNCTION identity_gets_person();

CREATE FUNCTION session_gets_person() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.person_id IS NULL AND NEW.subject IS NOT NULL THEN
        SELECT person_id INTO NEW.person_id FROM account_identities
         WHERE subject = NEW.subject AND issuer IN (NEW.issuer, '')
         ORDER BY issuer DESC LIMIT 1;
    END IF;
    IF NEW.person_id IS NULL THEN
        NEW.person_id := first_owner(NEW.account_id);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER dashboard_sessions_get_person BEFORE INSERT ON dashboard_sessions
    FOR EACH ROW EXECUTE FUNCTION session_gets_person();

-- Invitations: an owner or admin invites an address with a role; the invitee's
-- one-time link (the token, stored as its SHA-256 digest) is spent by one POST within
-- its lifetime (7 days).
CREATE TABLE invitations (
    id          uuid PRIMARY KEY,
    account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    email       text NOT NULL,
    role        text NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
    digest      bytea NOT NULL UNIQUE,
    invited_by  uuid REFERENCES people (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    spent_at    timestamptz,
    spent_by    uuid REFERENCES people (id) ON DELETE SET NULL
);
CREATE INDEX invitations_account ON invitations (account_id, created_at);
