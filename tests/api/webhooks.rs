//! webhooks
