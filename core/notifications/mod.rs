//! Owner notifications: when a form's `settings.notifications_enabled` is true, each new
//! response mails the account's owner (`formsd accounts update NAME --email ADDR`)
//! through the operator's SMTP relay.
//!
//! Design: mails are one of the two kinds of message the outbox carries
//! (`crate::outbox`), beside webhook deliveries; what differs is how one is sent, and
//! the tables (`notifications`, `notification_attempts`): a mail goes to one relay of the
//! operator and is rendered when it is sent, from the response itself, so its row holds
//! no answers at all (a deleted response leaves nothing behind, and its pending mail is
//! not sent). The rest is the outbox's, as for webhooks: written in the response's
//! transaction, claimed with leases and fairly between accounts, woken by NOTIFY,
//! retried on the one schedule (`--webhook-retry-schedule`, 3 retries), every attempt
//! recorded, listed by `formsd notifications list` (NotificationAdminService).
//!
//! Without `--smtp-url` nothing is enqueued: the setting is stored and does nothing.

pub(crate) mod confirm;
mod confirm_mail;
pub(crate) mod mail;
pub(crate) mod service;
pub mod smtp;
pub(crate) mod store;
pub mod words;
pub(crate) mod worker;

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
        crate::outbox::store::notify(&mut **tx, CHANNEL).await?;
    }
    Ok(())
}
