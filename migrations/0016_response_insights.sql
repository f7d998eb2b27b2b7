-- Finding responses: full-text search across a response's answers, and conditions on
-- answers that an index can answer on a form with millions of responses.
--
-- The three extensions ship with PostgreSQL (contrib) and are trusted: a database owner
-- may create them.
--   pg_trgm   - trigram GIN indexes: `LIKE '%part%'` without reading every row.
--   unaccent  - folding accents, so that "Jose" finds "José".
--   btree_gin - `form_id` inside the same GIN index, so that a search reads one form's
--               entries and never another tenant's.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- Text as searches compare it: lower case, accents dropped. Declared IMMUTABLE so that
-- a generated column and an index may use it; unaccent itself is only STABLE because
-- its dictionary could be edited, and this names the dictionary shipped with it.
CREATE FUNCTION forms_fold(t text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    RETURN lower(unaccent('unaccent'::regdictionary, t));

-- The searchable text of an answers object: every string and number in it, at any
-- depth (a choice's option ids, an "other" text, a file's name), folded, each one
-- between newlines, so that a search for a whole answer is `LIKE '%\nanswer\n%'`.
CREATE FUNCTION forms_search_text(answers jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    RETURN forms_fold(E'\n' || coalesce(
        (SELECT string_agg(v #>> '{}', E'\n')
           FROM jsonb_path_query(answers, 'strict $.**') AS v
          WHERE jsonb_typeof(v) IN ('string', 'number')), '') || E'\n');

-- Kept by PostgreSQL on every insert (the create path writes nothing more). Adding it
-- rewrites the table once.
ALTER TABLE responses
    ADD COLUMN search text GENERATED ALWAYS AS (forms_search_text(answers)) STORED;
ALTER TABLE partial_responses
    ADD COLUMN search text GENERATED ALWAYS AS (forms_search_text(answers)) STORED;

-- One GIN index for finding responses of a form: trigrams of the search text (`q`,
-- text `equals`/`contains` on answers) and the answers' paths and values (`@>`:
-- choice, number, date and boolean `equals`/`any of`). A GIN index keeps new entries
-- in a pending list that is merged in bulk, which keeps the insert's cost low (see the
-- write cost in benches/insights.rs). Partial responses are few and have none.
CREATE INDEX responses_find ON responses
    USING gin (form_id, search gin_trgm_ops, answers jsonb_path_ops);

-- The view of completed and partial responses, with the search text.
CREATE OR REPLACE VIEW responses_with_partial AS
    SELECT id, form_id, answers, metadata, device_type, browser, os, started_at,
           submitted_at, completion_time_seconds, 'completed'::text AS status,
           NULL::integer AS page, search
      FROM responses
    UNION ALL
    SELECT id, form_id, answers, '{}'::jsonb, device_type, browser, os, started_at,
           saved_at, NULL::bigint, 'partial'::text, page, search
      FROM partial_responses
     WHERE completed_at IS NULL;

-- Each form's summary, tallied so far (`responses::tally`): what every completed
-- response up to `through_at` adds up to. A form's responses become visible in
-- `submitted_at` order, so later inserts never change that set; a delete or a change of
-- the form's fields drops the tally (both columns NULL) and the rollup starts again. A
-- summary reads the tally and adds the responses after `through_at`: exact, and its
-- cost is the responses since the last rollup, not all of them.
CREATE TABLE response_rollups (
    form_id uuid PRIMARY KEY REFERENCES forms (id) ON DELETE CASCADE,
    through_at timestamptz,
    tally jsonb,
    updated_at timestamptz NOT NULL DEFAULT now()
);
