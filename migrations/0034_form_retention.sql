-- Retention per form (issue 33 §3): how many days its responses are kept; NULL keeps
-- them until deleted. The purge (core/rights/retention.rs) walks the forms that set
-- one, through the partial index, and deletes their old responses in batches.
ALTER TABLE forms ADD COLUMN retention_days integer
    CHECK (retention_days BETWEEN 1 AND 36500);
CREATE INDEX forms_retained ON forms (id) WHERE retention_days IS NOT NULL;
-- A form's partials by age, for the retention purge (the open-partials index covers
-- unfinished ones only).
CREATE INDEX partial_responses_form_saved ON partial_responses (form_id, saved_at);
