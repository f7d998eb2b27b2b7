//! End-to-end tests of `formsd` (see helpers.rs for the harness).

mod helpers;

mod idempotency;
mod responses;
mod webhooks;
