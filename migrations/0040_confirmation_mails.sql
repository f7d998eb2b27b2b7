-- Confirmation mails to respondents (issue 32 §4, core/notifications/confirm.rs): the
-- notification outbox carries them beside the owner's mails. Like those, a row holds
-- no answers (the mail is rendered from its response when it is sent); the recipient's
-- address is kept only as its SHA-256 digest (of the address in lower case), which is
-- what the daily bound per address counts.
ALTER TABLE notifications
    ADD COLUMN kind text NOT NULL DEFAULT 'owner' CHECK (kind IN ('owner', 'confirmation')),
    ADD COLUMN recipient_digest bytea,
    -- The language the respondent's page was shown in (NULL: the form's default).
    ADD COLUMN language text;

-- The daily bounds: confirmation mails to one address (any form), and of one form.
CREATE INDEX notifications_confirmation_recipient
    ON notifications (recipient_digest, created_at) WHERE kind = 'confirmation';
CREATE INDEX notifications_confirmation_form
    ON notifications (form_id, created_at) WHERE kind = 'confirmation';
