//! End-to-end tests of `formsd` (see helpers.rs for the harness).

#[allow(dead_code)] // a shared harness: not every suite uses every helper
mod helpers;
mod support;

mod idempotency;
mod responses;
mod webhooks;
