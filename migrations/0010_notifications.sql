-- Owner notifications: the address an account's owner is mailed at, and an outbox of
-- mails with their attempts, beside the webhook deliveries (see core/notifications).

ALTER TABLE accounts ADD COLUMN email text;

-- One row per response of a form with notifications on, written in the response's
-- transaction. The mail is rendered when it is sent, from the response itself: no
-- answers are copied here, so deleting the response leaves nothing of it behind
-- (response_id becomes NULL and the mail is not sent).
CREATE TABLE notifications (
    id               uuid PRIMARY KEY,
    account_id       uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    form_id          uuid NOT NULL,
    response_id      uuid REFERENCES responses (id) ON DELETE SET NULL,
    status           text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL,
    -- Lease of the worker sending it; an expired lease (crash) makes it due again.
    locked_until     timestamptz,
    created_at       timestamptz NOT NULL
);
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'pending';
CREATE INDEX notifications_created ON notifications (created_at DESC, id DESC);
CREATE INDEX notifications_response ON notifications (response_id);

CREATE TABLE notification_attempts (
    id               bigserial PRIMARY KEY,
    notification_id  uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    attempted_at     timestamptz NOT NULL,
    duration_ms      bigint NOT NULL,
    -- The owner's address at the time of the attempt (NULL when there was none).
    recipient        text,
    -- The SMTP server's answer or the failure; never the message itself.
    error            text,
    reply            text NOT NULL DEFAULT ''
);
CREATE INDEX notification_attempts_notification
    ON notification_attempts (notification_id, attempted_at);
