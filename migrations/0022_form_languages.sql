-- A form's languages (core/forms/languages.rs): the language of its own texts and its
-- texts in further languages, as one JSON object `{"default": "en", "translations":
-- {"de": {...}}}`. The empty object of the forms before this is read as English only.
ALTER TABLE forms ADD COLUMN languages jsonb NOT NULL DEFAULT '{}';

