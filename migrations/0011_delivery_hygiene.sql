-- Nothing left behind by deliveries: they name the response whose answers they carry
-- (so deleting it, or its form, can remove them), keep no copy of the webhook secret
-- (they are signed at send time with the subscription's current secret), and are
-- purged after the retention period (core/webhooks/hygiene.rs).

ALTER TABLE deliveries ADD COLUMN response_id uuid;
UPDATE deliveries
   SET response_id = (convert_from(payload, 'UTF8')::jsonb #>> '{data,responseId}')::uuid
 WHERE event IN ('form.submitted', 'response.received', 'quiz.completed');
CREATE INDEX deliveries_response ON deliveries (response_id) WHERE response_id IS NOT NULL;
CREATE INDEX deliveries_form ON deliveries (form_id);
CREATE INDEX deliveries_settled ON deliveries (created_at) WHERE status <> 'pending';
CREATE INDEX notifications_settled ON notifications (created_at) WHERE status <> 'pending';

-- A subscription deleted with its form while deliveries to it are still pending (its
-- form.deleted event at least): its target and secret, kept only until those are
-- settled, then purged. The one place a secret outlives its subscription.
CREATE TABLE retired_webhooks (
    id          uuid PRIMARY KEY,
    url         text NOT NULL,
    secret      text NOT NULL,
    retired_at  timestamptz NOT NULL
);

-- Pending deliveries whose subscription is already gone keep their copy one last time,
-- as a retired subscription of their own.
INSERT INTO retired_webhooks (id, url, secret, retired_at)
SELECT id, url, secret, now() FROM deliveries WHERE webhook_id IS NULL AND status = 'pending';
UPDATE deliveries SET webhook_id = id WHERE webhook_id IS NULL AND status = 'pending';

-- A delivery keeps the id of its subscription after the subscription is deleted (its
-- history stays listed under it); nothing to cascade.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_webhook_id_fkey;
ALTER TABLE deliveries DROP COLUMN secret;
