-- Files may live in an object store (FORMS_FILE_STORE_URL) instead of the row.
ALTER TABLE response_files ALTER COLUMN content DROP NOT NULL;
ALTER TABLE response_files ADD COLUMN object_key text;
ALTER TABLE response_files ADD CONSTRAINT response_files_one_place
    CHECK ((content IS NULL) <> (object_key IS NULL));
