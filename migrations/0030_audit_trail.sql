-- The audit trail (issue 33 §2): every change, who made it, from where, and how it
-- ended, written in the change's own transaction. Entries form hash chains, one per
-- account (and one for the instance: operator actions and failed sign-ins that name no
-- account, under the nil UUID), so that no tenant waits for another's audit writes:
-- a change locks only its own chain's head row.

-- The head of each chain: the last entry's number and hash, and where the kept part
-- begins. The retention purge deletes a chain's oldest entries and moves its base
-- there (`base_seq`, and `base_hash`, the hash the first kept entry must name as its
-- predecessor), so that what is left still verifies.
CREATE TABLE audit_heads (
    chain      uuid PRIMARY KEY,
    seq        bigint NOT NULL,
    hash       bytea NOT NULL,
    base_seq   bigint NOT NULL DEFAULT 0,
    base_hash  bytea NOT NULL
);

-- No foreign keys: the trail outlives what it names (a deleted form, a revoked key,
-- even a deleted account).
CREATE TABLE audit_entries (
    chain             uuid NOT NULL,
    seq               bigint NOT NULL,
    at                timestamptz NOT NULL,
    account_id        uuid,
    -- 'key', 'session' (a dashboard session), 'operator' (admin token, `formsd ...`),
    -- 'visitor' (a sign-in attempt, before anyone is known).
    actor_kind        text NOT NULL,
    actor_key_id      uuid,
    actor_session_id  uuid,
    -- A member of the account (issue 33 §1), when the change was a member's.
    actor_member_id   uuid,
    client_ip         text NOT NULL,
    user_agent        text NOT NULL,
    -- The gRPC method, e.g. 'UpdateForm'.
    action            text NOT NULL,
    target_kind       text NOT NULL,
    target_id         text NOT NULL,
    form_id           uuid,
    -- Names of the changed properties, never their values.
    changed           text[] NOT NULL,
    -- 'ok', 'refused' or 'failed'.
    outcome           text NOT NULL,
    prev_hash         bytea NOT NULL,
    hash              bytea NOT NULL,
    PRIMARY KEY (chain, seq)
);

-- The filters of the reading page and API (keyset by seq within the chain).
CREATE INDEX audit_entries_form ON audit_entries (chain, form_id, seq) WHERE form_id IS NOT NULL;
CREATE INDEX audit_entries_action ON audit_entries (chain, action, seq);
-- The retention purge finds old entries by time.
CREATE INDEX audit_entries_at ON audit_entries (at);

-- Append-only: an entry is never updated by the service. (A superuser may still drop
-- the trigger; `formsd audit verify` is what catches such an edit.)
CREATE FUNCTION audit_entries_frozen() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit entries are append-only';
END
$$;
CREATE TRIGGER audit_entries_no_update BEFORE UPDATE ON audit_entries
    FOR EACH ROW EXECUTE FUNCTION audit_entries_frozen();
