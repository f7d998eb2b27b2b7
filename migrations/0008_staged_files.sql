-- Files are written before the submission that carries them takes the form's lock:
-- "staged", without a response, until the response's transaction attaches them. A
-- staged file left unattached past `staged_until` (refused, rolled back, or cut off by
-- a crash) is swept with its object.
ALTER TABLE response_files ALTER COLUMN response_id DROP NOT NULL;
ALTER TABLE response_files ADD COLUMN staged_until timestamptz;
ALTER TABLE response_files ADD CONSTRAINT response_files_attached_or_staged
    CHECK (response_id IS NOT NULL OR staged_until IS NOT NULL);
CREATE INDEX response_files_staged ON response_files (staged_until) WHERE response_id IS NULL;
