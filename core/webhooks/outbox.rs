//! The transactional outbox: an event becomes one delivery row per active subscription
//! of the form that lists it, written in the transaction of the change that causes it.
//! Workers are woken by NOTIFY, which PostgreSQL sends only if that transaction commits.

use super::store;
use crate::error::CoreError;
use crate::pb::convert;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sqlx::{Postgres, Transaction};
use uuid::Uuid;

/// Channel the delivery workers LISTEN on.
pub const CHANNEL: &str = "forms_deliveries";

/// An event to deliver.
pub struct Event<'a> {
    /// Canonical name: form.submitted, form.updated, form.published, form.deleted, quiz.completed.
    pub name: &'static str,
    pub account_id: Uuid,
    pub form_id: Uuid,
    pub quiz_id: Option<&'a str>,
    /// The response whose answers `data` carries, if any: its deliveries are named by
    /// it, so that deleting the response can remove its answers from them.
    pub response_id: Option<Uuid>,
    pub data: Value,
    pub at: DateTime<Utc>,
}

/// The names a subscription may list to receive `event`: `response.received` is an
/// alias of `form.submitted`.
fn names_for(event: &str) -> Vec<String> {
    match event {
        "form.submitted" => vec!["form.submitted".into(), "response.received".into()],
        other => vec![other.into()],
    }
}

/// Writes the deliveries of `event`; returns how many.
pub async fn enqueue(
    tx: &mut Transaction<'_, Postgres>,
    event: Event<'_>,
) -> Result<usize, CoreError> {
    let names = names_for(event.name);
    let subscribers = store::subscribers(tx, event.account_id, event.form_id, &names).await?;
    for sub in &subscribers {
        // One delivery per subscription, named as the subscription lists it (the
        // canonical name when it lists both).
        let name = if sub.events.iter().any(|e| e == event.name) {
            event.name
        } else {
            "response.received"
        };
        let mut body = json!({
            "event": name,
            "timestamp": convert::iso8601(&convert::timestamp(event.at)),
            "formId": event.form_id,
        });
        if let Some(quiz_id) = event.quiz_id {
            body["quizId"] = json!(quiz_id);
        }
        body["data"] = event.data.clone();
        let payload = serde_json::to_vec(&body).map_err(|e| CoreError::Internal(e.to_string()))?;
        store::insert_delivery(
            tx,
            store::NewDelivery {
                webhook_id: sub.id,
                account_id: event.account_id,
                form_id: event.form_id,
                event: name,
                url: &sub.url,
                response_id: event.response_id,
                payload: &payload,
                max_retries: sub.max_retries,
                at: event.at,
            },
        )
        .await?;
    }
    if !subscribers.is_empty() {
        store::notify(&mut **tx).await?;
    }
    Ok(subscribers.len())
}
