//! The transactional outbox of webhook events: an event becomes one delivery per active
//! subscription of the form that lists it, written in the transaction of the change
//! that causes it. The workers (`crate::outbox`) are woken by NOTIFY, which PostgreSQL
//! sends only if that transaction commits.
//!
//! An event is written in two steps, so that its write can become part of a larger
//! statement: [`outgoing`] makes, without the database, the body it is sent with
//! under each name a subscription may list, and `store::insert_deliveries` writes the
//! deliveries for the form's active subscriptions in one `INSERT … SELECT` that reads
//! nothing before it. A response's events are written by the create path's statement
//! (`responses::store::insert_all_if_current`, on both of its paths) as one more
//! data-modifying CTE beside its rows: the locked path then NOTIFYs in its transaction
//! (`ring`); the one-statement create, its own transaction, rings the instance's bell
//! (`outbox::bell`).

use super::store::{self, Outgoing};
use crate::error::CoreError;
use crate::pb::convert;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sqlx::{Postgres, Transaction};
use uuid::Uuid;

/// Channel the delivery workers LISTEN on.
pub(crate) const CHANNEL: &str = "forms_deliveries";

/// An event to deliver.
pub(crate) struct Event<'a> {
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

/// The name a subscription may list to receive `event` besides its own:
/// `response.received` is an alias of `form.submitted`.
fn alias_of(event: &str) -> Option<&'static str> {
    (event == "form.submitted").then_some("response.received")
}

/// The deliveries `event` makes, as they are written.
pub(crate) fn outgoing(event: &Event<'_>) -> Result<Outgoing, CoreError> {
    let alias = match alias_of(event.name) {
        Some(alias) => Some((alias, body(event, alias)?)),
        None => None,
    };
    Ok(Outgoing {
        account_id: event.account_id,
        form_id: event.form_id,
        response_id: event.response_id,
        at: event.at,
        name: event.name,
        body: body(event, event.name)?,
        alias,
    })
}

/// The JSON body of `event` sent under `name`.
fn body(event: &Event<'_>, name: &str) -> Result<Vec<u8>, CoreError> {
    let mut body = json!({
        "event": name,
        "timestamp": convert::iso8601(&convert::timestamp(event.at)),
        "formId": event.form_id,
    });
    if let Some(quiz_id) = event.quiz_id {
        body["quizId"] = json!(quiz_id);
    }
    body["data"] = event.data.clone();
    serde_json::to_vec(&body).map_err(|e| CoreError::Internal(e.to_string()))
}

/// Writes the deliveries of `event`, one per active subscription of its form that
/// lists it (under the canonical name when a subscription lists both); returns how many.
pub(crate) async fn enqueue(
    tx: &mut Transaction<'_, Postgres>,
    event: Event<'_>,
) -> Result<usize, CoreError> {
    enqueue_outgoing(tx, &outgoing(&event)?).await
}

/// Writes the deliveries of an event made beforehand (`outgoing`), as `enqueue` does.
async fn enqueue_outgoing(
    tx: &mut Transaction<'_, Postgres>,
    event: &Outgoing,
) -> Result<usize, CoreError> {
    let written = store::insert_deliveries(tx, event).await?;
    if written > 0 {
        ring(tx).await?;
    }
    Ok(usize::try_from(written).unwrap_or(usize::MAX))
}

/// Tells every instance's delivery workers, once `tx` commits, that deliveries wait.
pub(crate) async fn ring(tx: &mut Transaction<'_, Postgres>) -> Result<(), CoreError> {
    crate::outbox::store::notify(&mut **tx, CHANNEL).await
}

/// The event an owner sends to one subscription from the dashboard, to see it arrive.
/// It is not one of `EVENTS`: no subscription lists it, and no change makes one.
pub(crate) const TEST_EVENT: &str = "webhook.test";

/// The body of a test event: SPEC's event shape, its data naming the webhook.
fn test_body(
    account_id: Uuid,
    form_id: Uuid,
    webhook_id: Uuid,
    at: DateTime<Utc>,
) -> Result<Vec<u8>, CoreError> {
    let event = Event {
        name: TEST_EVENT,
        account_id,
        form_id,
        quiz_id: None,
        response_id: None,
        data: json!({"webhookId": webhook_id, "test": true}),
        at,
    };
    body(&event, TEST_EVENT)
}

/// Writes one `webhook.test` delivery to subscription `webhook_id` (of form `form_id` of
/// the account) only, through the outbox like every event: the same body shape, signed
/// and logged when sent, retried on the schedule.
pub(crate) async fn enqueue_test(
    tx: &mut Transaction<'_, Postgres>,
    account_id: Uuid,
    form_id: Uuid,
    webhook_id: Uuid,
    at: DateTime<Utc>,
) -> Result<store::DeliveryRow, CoreError> {
    let body = test_body(account_id, form_id, webhook_id, at)?;
    let row = store::insert_delivery_to(tx, account_id, form_id, webhook_id, TEST_EVENT, &body, at)
        .await?;
    ring(tx).await?;
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event<'a>(name: &'static str, quiz_id: Option<&'a str>) -> Event<'a> {
        Event {
            name,
            account_id: Uuid::new_v4(),
            form_id: Uuid::new_v4(),
            quiz_id,
            response_id: Some(Uuid::new_v4()),
            data: json!({"answers": {"a": 1}}),
            at: Utc::now(),
        }
    }

    fn parsed(body: &[u8]) -> Value {
        serde_json::from_slice(body).expect("JSON body")
    }

    #[test]
    fn a_submission_goes_out_under_its_name_and_its_alias_alike_but_for_the_name() {
        let out = outgoing(&event("form.submitted", None)).expect("outgoing");
        let (alias, alias_body) = out.alias.expect("an alias");
        assert_eq!((out.name, alias), ("form.submitted", "response.received"));
        let (mut canonical, aliased) = (parsed(&out.body), parsed(&alias_body));
        assert_eq!(canonical["event"], "form.submitted");
        assert_eq!(aliased["event"], "response.received");
        canonical["event"] = json!("response.received");
        assert_eq!(canonical, aliased);
        // The body's members in SPEC's order, the data as given.
        let keys: Vec<&String> = aliased.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["event", "timestamp", "formId", "data"]);
        assert_eq!(aliased["data"], json!({"answers": {"a": 1}}));
    }

    #[test]
    fn a_test_event_has_the_event_shape_and_cannot_be_subscribed_to() {
        let (form_id, webhook_id) = (Uuid::new_v4(), Uuid::new_v4());
        let body =
            parsed(&test_body(Uuid::new_v4(), form_id, webhook_id, Utc::now()).expect("body"));
        let keys: Vec<&String> = body.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["event", "timestamp", "formId", "data"]);
        assert_eq!(body["event"], TEST_EVENT);
        assert_eq!(body["formId"], json!(form_id));
        assert_eq!(body["data"], json!({"webhookId": webhook_id, "test": true}));
        assert!(!crate::webhooks::EVENTS.contains(&TEST_EVENT));
        assert!(crate::webhooks::check_events(&[TEST_EVENT.to_owned()]).is_err());
    }

    #[test]
    fn other_events_have_no_alias_and_a_quiz_names_itself() {
        let out = outgoing(&event("quiz.completed", Some("q1"))).expect("outgoing");
        assert!(out.alias.is_none());
        let body = parsed(&out.body);
        let keys: Vec<&String> = body.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["event", "timestamp", "formId", "quizId", "data"]);
        assert_eq!(body["quizId"], "q1");
    }
}
