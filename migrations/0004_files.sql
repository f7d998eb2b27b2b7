-- Files uploaded with browser submissions, stored with their response (and deleted
-- with it, or with its form).
CREATE TABLE response_files (
    id            uuid PRIMARY KEY,
    response_id   uuid NOT NULL REFERENCES responses (id) ON DELETE CASCADE,
    field_id      text NOT NULL,
    file_name     text NOT NULL,
    content_type  text NOT NULL,
    size          bigint NOT NULL,
    content       bytea NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX response_files_response ON response_files (response_id);
