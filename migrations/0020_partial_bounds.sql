-- Bounds on partial responses (issue 30): who began a partial, to bound how many one
-- visitor leaves waiting on a form. The visitor is a keyed digest (HMAC with the
-- service's start-token key) of their address's throttle bucket (an IPv4 address or
-- an IPv6 /64), never the address itself; NULL for partials saved before this.
ALTER TABLE partial_responses ADD COLUMN visitor bytea;

-- A visitor's unfinished partials of a form, counted when they begin another.
CREATE INDEX partial_responses_visitor ON partial_responses (form_id, visitor)
    WHERE completed_at IS NULL;
