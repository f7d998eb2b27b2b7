//! New responses and deliveries get time-ordered ids (UUID version 7): still UUIDs, as
//! SPEC's ids are, but each new row lands at the end of its primary key's B-tree
//! (core/responses/create/submission.rs, migration 0025).

use crate::fixtures::*;
use crate::harness::*;
use chrono::{DateTime, Utc};
use forms::accounts::{Plan, Scope};
use serde_json::json;
use uuid::Uuid;

/// The milliseconds since 1970 that a version 7 id carries.
fn millis_of(id: Uuid) -> i64 {
    assert_eq!(id.get_version_num(), 7, "{id} is not time-ordered");
    let (secs, nanos) = id.get_timestamp().expect("a timestamp").to_unix();
    i64::try_from(secs).expect("seconds") * 1000 + i64::from(nanos / 1_000_000)
}

#[tokio::test]
async fn responses_and_their_deliveries_get_time_ordered_ids() {
    let receiver = Receiver::start().await;
    let app = TestApp::spawn_with(&["--webhook-allow-private", "--webhook-concurrency", "0"]).await;
    let key = app.key(Plan::Pro, &[Scope::Admin]).await;
    let fields = json!([{"type": "short_text", "label": "Name"}]);
    let form = published_form(&app, &key, fields, json!(null)).await;
    let form_id = form["id"].as_str().expect("form id");
    let field = form["fields"][0]["id"].as_str().expect("field id");
    subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/hook"),
        &["form.submitted"],
    )
    .await;

    let mut last = 0;
    for name in ["Ada", "Grace", "Edsger", "Barbara"] {
        let created = app
            .post(
                &format!("/forms/{form_id}/responses"),
                &key,
                &json!({"answers": {field: name}}),
            )
            .await
            .ok(201)["response"]
            .clone();
        let id: Uuid = created["id"].as_str().expect("id").parse().expect("a UUID");
        let submitted: DateTime<Utc> = created["submitted_at"]
            .as_str()
            .expect("submitted_at")
            .parse()
            .expect("a time");
        let at = millis_of(id);
        assert_eq!(
            at,
            submitted.timestamp_millis(),
            "the id carries when it was submitted"
        );
        assert!(at >= last, "ids follow the order of creation");
        last = at;
    }

    let deliveries: Vec<(Uuid, DateTime<Utc>)> =
        sqlx::query_as("SELECT id, created_at FROM deliveries ORDER BY created_at")
            .fetch_all(&app.pool)
            .await
            .expect("deliveries");
    assert_eq!(deliveries.len(), 4);
    for (id, created) in deliveries {
        let skew = (millis_of(id) - created.timestamp_millis()).abs();
        assert!(
            skew < 5_000,
            "delivery {id} made {skew} ms away from its row"
        );
    }
}
