-- Partial responses: a visitor's answers to a multi-page form, saved page by page until
-- the last page completes them. They live apart from `responses`, so that nothing that
-- counts, lists, exports or notifies responses sees them unless asked (status filter):
-- no quota, no response limit, no webhook until completion.
CREATE TABLE partial_responses (
    -- Also the id of the response the partial becomes: a completed one is found again.
    id uuid PRIMARY KEY,
    form_id uuid NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
    -- SHA-256 of the resume token (a credential: only its digest is kept).
    resume_digest bytea NOT NULL UNIQUE,
    answers jsonb NOT NULL DEFAULT '{}'::jsonb,
    -- Staged files answering file fields of pages saved so far.
    file_ids uuid[] NOT NULL DEFAULT '{}',
    -- The page to show next (the last page reached).
    page integer NOT NULL,
    device_type text,
    browser text,
    os text,
    -- When the first page was served (completion time counts from it), and when the
    -- partial was first saved (its place in lists: it does not move).
    started_at timestamptz NOT NULL,
    saved_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    -- Set once, by the transaction that stores the response.
    completed_at timestamptz
);

-- Lists of a form's unfinished partials, in the order of responses lists.
CREATE INDEX partial_responses_open ON partial_responses (form_id, saved_at, id)
    WHERE completed_at IS NULL;
-- The retention purge.
CREATE INDEX partial_responses_updated ON partial_responses (updated_at);

-- Completed and partial responses in one shape, for the lists and exports that ask for
-- partial ones (status=partial|all). A partial's place is when its first page was
-- saved (it does not move as pages are saved), its completion time is unknown, and
-- its page is the page it is at. Each branch keeps its own index: the planner merges
-- them in keyset order.
CREATE VIEW responses_with_partial AS
    SELECT id, form_id, answers, metadata, device_type, browser, os, started_at,
           submitted_at, completion_time_seconds, 'completed'::text AS status,
           NULL::integer AS page
      FROM responses
    UNION ALL
    SELECT id, form_id, answers, '{}'::jsonb, device_type, browser, os, started_at,
           saved_at, NULL::bigint, 'partial'::text, page
      FROM partial_responses
     WHERE completed_at IS NULL;
