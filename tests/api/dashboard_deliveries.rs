//! A webhook's delivery log shows what was sent, and a delivery waiting for its next
//! attempt can be sent now: made due in the durable outbox (OwnerService
//! `SendOwnDeliveryNow`), sent by the dispatcher under its lease, never twice at once.
//! Against the real binary and a receiver on loopback.

use crate::dashboard_session::*;
use crate::fixtures::*;
use crate::harness::*;
use serde_json::{Value, json};
use std::time::Duration;

/// A failed attempt waits an hour for the next: a pending delivery stays pending.
const FLAGS: &[&str] = &[
    "--webhook-allow-private",
    "--webhook-poll-interval",
    "200ms",
    "--webhook-retry-schedule",
    "1h,1h",
    "--webhook-timeout",
    "2s",
];

const ARRIVAL: Duration = Duration::from_secs(20);

/// (status, attempts) of a delivery, and how many attempts are logged.
async fn delivery_row(app: &TestApp, id: uuid::Uuid) -> (String, i32, i64) {
    sqlx::query_as(
        "SELECT status, attempts, (SELECT count(*) FROM delivery_attempts WHERE delivery_id = d.id)
           FROM deliveries d WHERE id = $1",
    )
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .expect("reading a delivery")
}

#[tokio::test]
async fn a_pending_delivery_is_shown_with_its_body_and_sent_now_once() {
    let receiver = Receiver::start().await;
    receiver.set_status(500);
    let app = TestApp::spawn_with(FLAGS).await;
    let key = app.new_key(PRO, ALL).await;
    let form = published_form(&app, &key.key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let dash = signed_in(&app, &key.account).await;
    let hook = app
        .post(
            &format!("/forms/{form_id}/webhooks"),
            &key.key,
            &json!({"name": "CRM", "url": receiver.url("/hook"), "events": ["form.submitted"]}),
        )
        .await
        .ok(201)["webhook"]["id"]
        .as_str()
        .expect("webhook id")
        .to_owned();
    let answers = contact_answers(&field_ids(&form), 7);
    app.post(
        &format!("/forms/{form_id}/responses"),
        &key.key,
        &json!({"answers": answers}),
    )
    .await
    .ok(201);

    // One failed attempt; the next is an hour away: pending, with "Send now".
    let log = format!("/app/forms/{form_id}/webhooks/{hook}");
    let page = eventually("a failed first attempt", ARRIVAL, || async {
        let page = dash.get(&log).await;
        page.text
            .contains("<td class=\"status-code\">500</td>")
            .then_some(page.text)
    })
    .await;
    let (id,): (uuid::Uuid,) =
        sqlx::query_as("SELECT id FROM deliveries WHERE webhook_id = $1::uuid")
            .bind(&hook)
            .fetch_one(&app.pool)
            .await
            .expect("the delivery");
    assert_eq!(delivery_row(&app, id).await, ("pending".to_owned(), 1, 1));
    assert!(page.contains("badge pending"), "{page}");
    let send = format!("{log}/deliveries/{id}/send");
    assert!(
        page.contains(&format!(r#"action="{send}""#)),
        "a Send now button: {page}"
    );
    // What was sent: the body, laid out, with the answers.
    assert!(page.contains("What was sent"), "{page}");
    assert!(
        page.contains("&quot;submittedVia&quot;: &quot;api&quot;"),
        "{page}"
    );
    assert!(page.contains("Person 7"), "{page}");

    // Mended; sent now, twice at once: one more attempt, not two.
    receiver.set_status(200);
    let (first, second) = tokio::join!(dash.post(&send, &[]), dash.post(&send, &[]));
    assert!(
        [first.status, second.status].contains(&303),
        "{} {}",
        first.text,
        second.text
    );
    receiver.wait_for("/hook", 2, ARRIVAL).await;
    eventually("the delivery succeeded", ARRIVAL, || async {
        (delivery_row(&app, id).await.0 == "succeeded").then_some(())
    })
    .await;
    assert_eq!(delivery_row(&app, id).await, ("succeeded".to_owned(), 2, 2));
    // No longer waiting: refused in words, nothing sent.
    let late = dash.post(&send, &[]).await;
    assert_eq!(late.status, 200, "{}", late.text);
    assert!(late.text.contains("no longer waiting"), "{}", late.text);
    assert_eq!(receiver.hits_at("/hook").len(), 2);
    assert_eq!(delivery_row(&app, id).await, ("succeeded".to_owned(), 2, 2));
}
