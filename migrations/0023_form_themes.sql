-- The owner's brand on a form's page (issue 32 §3): its theme (colours, font, corners,
-- appearance, and which logo it shows), checked by the core when saved
-- (core/forms/theme.rs); NULL: the service's own look.
ALTER TABLE forms ADD COLUMN theme jsonb;

-- A form's logo: one image per form, replaced by the next upload and deleted with the
-- form. Its bytes live where uploaded files do (core/files/store.rs): in the row, or in
-- the object store under `object_key`. `id` changes with every upload, so that the
-- page's link to it (and any cache) changes with it.
CREATE TABLE form_logos (
    form_id       uuid PRIMARY KEY REFERENCES forms (id) ON DELETE CASCADE,
    id            uuid NOT NULL,
    content_type  text NOT NULL,
    size          bigint NOT NULL,
    content       bytea,
    object_key    text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT form_logos_one_place CHECK ((content IS NULL) <> (object_key IS NULL))
);

-- The account's default theme: the look of its forms that have none of their own (its
-- colours, font, corners and appearance; a logo is always a form's own).
ALTER TABLE accounts ADD COLUMN theme jsonb;
