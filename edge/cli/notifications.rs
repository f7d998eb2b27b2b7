//! `formsd notifications list`: the recent owner notifications and their attempts,
//! through the NotificationAdminService.

use super::{Admin, lower_name, refused};
use crate::app::Error;
use crate::http::timestamp_json;
use clap::Subcommand;
use forms::pb;
use serde_json::json;

#[derive(Subcommand)]
pub(crate) enum NotificationsCommand {
    /// List the most recent notifications with their attempts, newest first (one JSON
    /// object per line).
    List {
        /// Only this account's.
        #[arg(long)]
        account: Option<String>,
        /// How many (at most 100).
        #[arg(long, default_value_t = 25)]
        limit: i32,
    },
}

pub(crate) async fn run(admin: Admin, command: NotificationsCommand) -> Result<(), Error> {
    let mut client = admin.notifications();
    let NotificationsCommand::List { account, limit } = command;
    let request = admin.request(pb::ListNotificationsRequest {
        account: account.unwrap_or_default(),
        limit: Some(limit),
    })?;
    let reply = client.list_notifications(request).await.map_err(refused)?;
    for n in &reply.into_inner().notifications {
        let status = pb::DeliveryStatus::try_from(n.status)
            .map(|s| lower_name(s.as_str_name(), "DELIVERY_STATUS_"))
            .ok();
        let attempts: Vec<_> = n
            .attempts
            .iter()
            .map(|a| {
                json!({
                    "attempted_at": timestamp_json(a.attempted_at.as_ref()),
                    "duration_ms": a.duration_ms,
                    "recipient": a.recipient,
                    "error": a.error,
                    "reply": a.reply,
                })
            })
            .collect();
        println!(
            "{}",
            json!({
                "id": n.id,
                "account_id": n.account_id,
                "form_id": n.form_id,
                "response_id": n.response_id,
                "status": status,
                "created_at": timestamp_json(n.created_at.as_ref()),
                "next_attempt_at": timestamp_json(n.next_attempt_at.as_ref()),
                "attempts": attempts,
            })
        );
    }
    Ok(())
}
