//! idempotency
