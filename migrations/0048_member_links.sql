-- Members (issue 33 §1): a sign-in link names the person it signs in, so that a
-- member invited by address signs in as themselves, not as the account's first
-- owner. A link without a person (made by the operator for an account) keeps
-- signing in as the account's first owner (the session trigger of 0045).
ALTER TABLE sign_in_links ADD COLUMN person_id uuid REFERENCES people (id) ON DELETE CASCADE;

-- When the sign-in a session descends from happened: a session opened by switching
-- accounts or accepting an invitation keeps its predecessor's (NULL: its own
-- created_at). A session switches only to the accounts its person was a member of by
-- then, so that a membership made later in that person's name (an invitation to their
-- address, accepted by whoever held its link) is reached only by signing in again.
ALTER TABLE dashboard_sessions ADD COLUMN signed_in_at timestamptz;
