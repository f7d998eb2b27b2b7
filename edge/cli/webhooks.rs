//! `formsd webhooks …`: edit a subscription, list its deliveries, retry one; through
//! the WebhookAdminService.

use super::{Admin, lower_name, refused};
use crate::app::Error;
use crate::http::timestamp_json;
use clap::Subcommand;
use forms::pb;
use serde_json::{Value, json};

#[derive(Subcommand)]
pub(crate) enum WebhooksCommand {
    /// Edit a subscription.
    Update {
        /// Webhook id.
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        url: Option<String>,
        /// Comma-separated event names.
        #[arg(long, value_delimiter = ',')]
        events: Option<Vec<String>>,
        /// Turn deliveries on or off.
        #[arg(long)]
        active: Option<bool>,
        /// Accept http:// and private targets (development only).
        #[arg(long)]
        allow_private: bool,
    },
    /// List a subscription's deliveries and their attempts, newest first.
    Deliveries {
        /// Webhook id.
        id: String,
        #[arg(long)]
        page: Option<i32>,
    },
    /// Schedule a failed delivery again, now.
    Retry {
        /// Delivery id.
        id: String,
    },
}

impl WebhooksCommand {
    /// Whether the command may target http:// and private addresses.
    pub(crate) fn allow_private(&self) -> bool {
        matches!(
            self,
            Self::Update {
                allow_private: true,
                ..
            }
        )
    }
}

fn delivery_json(d: &pb::Delivery) -> Value {
    let status = pb::DeliveryStatus::try_from(d.status)
        .map(|s| lower_name(s.as_str_name(), "DELIVERY_STATUS_"))
        .ok();
    json!({
        "id": d.id,
        "event": d.event,
        "status": status,
        "created_at": timestamp_json(d.created_at.as_ref()),
        "next_attempt_at": timestamp_json(d.next_attempt_at.as_ref()),
        "attempts": d.attempts.iter().map(|a| json!({
            "attempted_at": timestamp_json(a.attempted_at.as_ref()),
            "status_code": a.status_code,
            "duration_ms": a.duration_ms,
            "error": a.error,
        })).collect::<Vec<_>>(),
    })
}

pub(crate) async fn run(admin: Admin, command: WebhooksCommand) -> Result<(), Error> {
    let mut client = admin.webhooks();
    match command {
        WebhooksCommand::Update {
            id,
            name,
            url,
            events,
            active,
            allow_private: _,
        } => {
            let mut webhook = pb::Webhook::default();
            let mut paths = Vec::new();
            if let Some(name) = name {
                webhook.name = name;
                paths.push("name".to_owned());
            }
            if let Some(url) = url {
                webhook.url = url;
                paths.push("url".to_owned());
            }
            if let Some(events) = events {
                webhook.events = events;
                paths.push("events".to_owned());
            }
            if let Some(active) = active {
                webhook.is_active = active;
                paths.push("is_active".to_owned());
            }
            let request = admin.request(pb::UpdateWebhookRequest {
                id,
                webhook: Some(webhook),
                update_mask: Some(prost_types::FieldMask { paths }),
            })?;
            let reply = client.update_webhook(request).await.map_err(refused)?;
            if let Some(w) = reply.into_inner().webhook {
                println!(
                    "{}",
                    json!({"id": w.id, "name": w.name, "url": w.url, "events": w.events, "is_active": w.is_active})
                );
            }
        }
        WebhooksCommand::Deliveries { id, page } => {
            let request = admin.request(pb::ListDeliveriesRequest {
                webhook_id: id,
                page,
                per_page: Some(100),
            })?;
            let reply = client.list_deliveries(request).await.map_err(refused)?;
            for d in &reply.into_inner().deliveries {
                println!("{}", delivery_json(d));
            }
        }
        WebhooksCommand::Retry { id } => {
            let request = admin.request(pb::RetryDeliveryRequest { id })?;
            let reply = client.retry_delivery(request).await.map_err(refused)?;
            if let Some(d) = reply.into_inner().delivery {
                println!("{}", delivery_json(&d));
            }
        }
    }
    Ok(())
}
