//! The people of an account (issue 33 §1): members with roles, invitations by address,
//! leaving, and switching between the accounts a person belongs to.
//!
//! The gate reads a member's role from the database on every call (`gate::caller`), so
//! what this module changes takes effect on every instance at once. An invitation is a
//! one-time link (its token stored as a SHA-256 digest) spent by one call within its
//! lifetime; accepting it never signs anyone in as a person who exists already (they
//! sign in first), so a copied link cannot open another person's accounts.

mod rules;
pub(crate) mod service;
mod store;

use std::time::Duration;

/// How long an invitation's link works.
pub(crate) const INVITATION_LIFETIME: Duration = Duration::from_secs(7 * 24 * 60 * 60);
