-- The identity-provider subject that opened a dashboard session (OpenID Connect or the
-- provider's cookie; NULL for a one-time link). Unlinking the subject from its account,
-- or linking it to another, ends the sessions it opened there, on every instance (each
-- request reads the session's row).
ALTER TABLE dashboard_sessions ADD COLUMN subject text;
CREATE INDEX dashboard_sessions_open_by_subject ON dashboard_sessions (subject)
    WHERE subject IS NOT NULL AND ended_at IS NULL;
