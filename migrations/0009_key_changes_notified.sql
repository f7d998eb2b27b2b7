-- Instances cache API keys (with their account's plan) to authenticate without a query;
-- every change that could make a cached key wrong is announced on the channel
-- `formsd_keys`, on commit, whoever makes it (formsd or an operator's SQL):
-- `key:<lookup>` for a key, `account:<id>` for an account (its plan or its deletion).
CREATE FUNCTION formsd_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('formsd_keys', 'key:' || OLD.lookup);
    RETURN NULL;
END $$;

CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION formsd_key_changed();

CREATE FUNCTION formsd_account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('formsd_keys', 'account:' || OLD.id);
    RETURN NULL;
END $$;

CREATE TRIGGER accounts_changed AFTER UPDATE OR DELETE ON accounts
    FOR EACH ROW EXECUTE FUNCTION formsd_account_changed();
