-- A label the owner gives an API key in the dashboard, to tell their keys apart (issue
-- 31): optional, shown beside the key's prefix. Not a credential and not unique.
ALTER TABLE api_keys ADD COLUMN label text
    CHECK (label IS NULL OR char_length(label) BETWEEN 1 AND 100);
