//! Owner notifications: when a form's `settings.notifications_enabled` is true, each new
//! response mails the account's owner (`formsd accounts update NAME --email ADDR`)
//! through the operator's SMTP relay.
//!
//! Design: a transactional outbox of its own (`notifications`, `notification_attempts`)
//! beside the webhook deliveries rather than a `kind` column on them, because the two
//! differ where it matters: a webhook delivery carries the exact signed bytes, goes to
//! a tenant's receiver and is shared fairly between tenants; a mail goes to one relay
//! of the operator and is rendered when it is sent, from the response itself. So the
//! outbox row holds no answers at all (a deleted response leaves nothing behind, and
//! its pending mail is not sent), and the fair webhook claim stays as it is. What they
//! share is the behaviour: written in the response's transaction, claimed with leases
//! (`FOR UPDATE SKIP LOCKED`), woken by NOTIFY, retried on the webhook schedule
//! (`--webhook-retry-schedule`, 3 retries), every attempt recorded, listed by
//! `formsd notifications list` (NotificationAdminService).
//!
//! Without `--smtp-url` nothing is enqueued: the setting is stored and does nothing.

pub mod mail;
pub mod service;
pub mod smtp;
pub mod store;
pub mod worker;

use crate::config::CoreConfig;
use crate::error::CoreError;
use chrono::{DateTime, Utc};
use sqlx::{Postgres, Transaction};
use uuid::Uuid;

/// Channel the notification workers LISTEN on.
pub const CHANNEL: &str = "forms_notifications";

/// Enqueues the notification of a new response, in the response's transaction, when
/// mail is configured, the form has notifications on and its owner an address.
pub async fn enqueue(
    tx: &mut Transaction<'_, Postgres>,
    config: &CoreConfig,
    form_id: Uuid,
    response_id: Uuid,
    at: DateTime<Utc>,
) -> Result<(), CoreError> {
    if config.smtp.is_none() {
        return Ok(());
    }
    if store::enqueue(tx, form_id, response_id, at).await? {
        store::notify(&mut **tx).await?;
    }
    Ok(())
}
