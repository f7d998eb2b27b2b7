-- The language a response was answered in: the language of the hosted page the
-- respondent saw (one of the form's languages), kept with the response and with a
-- partial as it is saved. NULL for responses created over the API and for forms in one
-- language, whose language is the form's default (see the book's Languages section).
ALTER TABLE responses ADD COLUMN language text;
ALTER TABLE partial_responses ADD COLUMN language text;

-- The view of completed and partial responses, with the language last.
CREATE OR REPLACE VIEW responses_with_partial AS
    SELECT id, form_id, answers, metadata, device_type, browser, os, started_at,
           submitted_at, completion_time_seconds, 'completed'::text AS status,
           NULL::integer AS page, search, language
      FROM responses
    UNION ALL
    SELECT id, form_id, answers, '{}'::jsonb, device_type, browser, os, started_at,
           saved_at, NULL::bigint, 'partial'::text, page, search, language
      FROM partial_responses
     WHERE completed_at IS NULL;

-- The stored tallies count no languages: each form's summary is added up again from its
-- responses at its next read (`responses::rollup`), languages included.
UPDATE response_rollups SET through_at = NULL, tally = NULL, counted = 0;
