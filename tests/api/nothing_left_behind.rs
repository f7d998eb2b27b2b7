//! Nothing left behind by deliveries (the book's pages "Webhooks" and "Operations"): deleting a
//! response or a form removes the answers copied into its pending and past deliveries;
//! deliveries keep no secret and are signed at send time (a form's form.deleted too,
//! after its subscriptions are gone); settled deliveries and notifications are purged
//! with their attempts after --delivery-retention, pending ones are kept.

use crate::fixtures::*;
use crate::harness::*;
use crate::smtp_sink::SmtpSink;
use forms::accounts::Plan;
use serde_json::{Value, json};
use std::time::Duration;

const ARRIVAL: Duration = Duration::from_secs(20);

/// Delivering to loopback quickly; the last retry far away, so a failing delivery
/// stays pending for the test's length.
const FLAGS: &[&str] = &[
    "--webhook-allow-private",
    "--webhook-poll-interval",
    "200ms",
    "--webhook-retry-schedule",
    "1s,60s,60s",
];

/// (status, attempts, payload) of the deliveries of `form_id`, oldest first.
async fn deliveries(app: &TestApp, form_id: &str) -> Vec<(String, i32, Value)> {
    let rows: Vec<(String, i32, Vec<u8>)> = sqlx::query_as(
        "SELECT status, attempts, payload FROM deliveries WHERE form_id = $1::uuid
          ORDER BY created_at, id",
    )
    .bind(form_id)
    .fetch_all(&app.pool)
    .await
    .expect("reading deliveries");
    rows.into_iter()
        .map(|(s, a, p)| (s, a, serde_json::from_slice(&p).expect("JSON payload")))
        .collect()
}

async fn submit(app: &TestApp, key: &str, form: &Value, name: &str) -> String {
    let ids = field_ids(form);
    let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
    let body = json!({"answers": {ids[0].clone(): name, ids[1].clone(): "x@example.com"}});
    app.post(&path, key, &body).await.ok(201)["response"]["id"]
        .as_str()
        .expect("response id")
        .to_owned()
}

#[tokio::test]
async fn deleting_responses_and_forms_removes_their_answers_from_deliveries() {
    let receiver = Receiver::start().await;
    let app = TestApp::spawn_with(FLAGS).await;
    let key = app.key(Plan::Pro, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let events = ["form.submitted", "form.deleted"];
    let hook = subscribe(&app, &key, &form_id, &receiver.url("/a"), &events).await;
    let secret = hook["secret"].as_str().expect("secret").to_owned();

    // A past delivery, and a pending one (the receiver fails; the retry is far away).
    let delivered = submit(&app, &key, &form, "Delivered Dora").await;
    receiver.wait_for("/a", 1, ARRIVAL).await;
    receiver.set_status(500);
    let pending = submit(&app, &key, &form, "Pending Pete").await;
    eventually("the failed first attempt", ARRIVAL, || async {
        let rows = deliveries(&app, &form_id).await;
        (rows.len() == 2 && rows[1].1 >= 1).then_some(())
    })
    .await;
    let kept = submit(&app, &key, &form, "Kept Kim").await;

    for id in [&delivered, &pending] {
        let path = format!("/forms/{form_id}/responses/{id}");
        assert_eq!(app.delete(&path, &key).await.status, 204);
    }
    let rows = deliveries(&app, &form_id).await;
    assert_eq!(rows[1].0, "pending", "{rows:?}");
    for (status, _, payload) in &rows[..2] {
        assert_eq!(payload["data"]["answers"], json!({}), "{status}: {payload}");
        assert_eq!(payload["data"]["answersRemoved"], true);
        let text = payload.to_string();
        assert!(!text.contains("Dora") && !text.contains("Pete"), "{text}");
    }
    assert!(rows.iter().any(
        |r| r.2["data"]["responseId"] == kept.as_str() && r.2.to_string().contains("Kept Kim")
    ));
    // Deliveries hold no secret of their own.
    let (columns,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM information_schema.columns
          WHERE table_name = 'deliveries' AND column_name = 'secret'",
    )
    .fetch_one(&app.pool)
    .await
    .expect("columns");
    assert_eq!(columns, 0);

    // Deleting the form: the remaining answers go too; form.deleted is still delivered,
    // signed at send time with the (now retired) subscription's secret.
    receiver.set_status(200);
    let before = receiver.hits_at("/a").len();
    assert_eq!(
        app.delete(&format!("/forms/{form_id}"), &key).await.status,
        204
    );
    let rows = deliveries(&app, &form_id).await;
    for (_, _, payload) in &rows {
        assert!(!payload.to_string().contains("Kim"), "{payload}");
    }
    let hits = eventually("form.deleted", ARRIVAL, || async {
        let hits = receiver.hits_at("/a");
        hits[before..]
            .iter()
            .find(|h| h.event() == "form.deleted")
            .cloned()
    })
    .await;
    assert_eq!(
        hits.header("x-webhook-signature"),
        spec_signature(&secret, &hits.body)
    );
}

#[tokio::test]
async fn a_delivery_whose_answers_were_removed_is_still_signed_over_what_is_sent() {
    // SPEC Delivery: the signature covers the raw body. A pending delivery rewritten by
    // a response's deletion is sent with the rewritten body, signed over it.
    let receiver = Receiver::start().await;
    let flags = [
        "--webhook-allow-private",
        "--webhook-poll-interval",
        "200ms",
        "--webhook-retry-schedule",
        "2s,2s,2s",
    ];
    let app = TestApp::spawn_with(&flags).await;
    let key = app.key(Plan::Pro, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let url = receiver.url("/b");
    let hook = subscribe(&app, &key, &form_id, &url, &["form.submitted"]).await;
    let secret = hook["secret"].as_str().expect("secret").to_owned();
    receiver.set_status(500);
    let pending = submit(&app, &key, &form, "Pending Pete").await;
    receiver.wait_for("/b", 1, ARRIVAL).await;
    let path = format!("/forms/{form_id}/responses/{pending}");
    assert_eq!(app.delete(&path, &key).await.status, 204);
    receiver.set_status(200);
    let hit = eventually("the retried delivery", ARRIVAL, || async {
        receiver.hits_at("/b").into_iter().nth(1)
    })
    .await;
    assert_eq!(
        hit.header("x-webhook-signature"),
        spec_signature(&secret, &hit.body)
    );
    let sent: Value = serde_json::from_slice(&hit.body).expect("JSON body");
    assert_eq!(sent["event"], "form.submitted");
    assert_eq!(sent["formId"], form_id.as_str());
    assert!(sent["timestamp"].is_string());
    assert_eq!(sent["data"]["responseId"], pending.as_str());
    assert_eq!(sent["data"]["submittedVia"], "api");
    assert_eq!(sent["data"]["answers"], json!({}));
    assert!(!String::from_utf8_lossy(&hit.body).contains("Pete"));
}

#[tokio::test]
async fn settled_deliveries_and_notifications_are_purged_after_the_retention_period() {
    let receiver = Receiver::start().await;
    let sink = SmtpSink::start().await;
    let mut flags: Vec<String> = FLAGS.iter().map(|s| s.to_string()).collect();
    flags.extend([
        "--smtp-url".into(),
        sink.url(),
        "--smtp-from".into(),
        "forms@example.com".into(),
    ]);
    let flag_refs: Vec<&str> = flags.iter().map(String::as_str).collect();
    let app = TestApp::spawn_with(&flag_refs).await;
    let key = app.new_key(Plan::Pro, ALL).await;
    formsd_cli(
        &app.db.url,
        &[
            "accounts",
            "update",
            &key.account,
            "--email",
            "owner@example.com",
        ],
    )
    .await;
    let settings = json!({"notifications_enabled": true});
    let form = published_form(&app, &key.key, contact_fields(), settings).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let url = receiver.url("/p");
    subscribe(&app, &key.key, &form_id, &url, &["form.submitted"]).await;
    submit(&app, &key.key, &form, "Old Olga").await;
    receiver.wait_for("/p", 1, ARRIVAL).await;
    eventually("the mail", ARRIVAL, || async {
        (!sink.mails().is_empty()).then_some(())
    })
    .await;
    receiver.set_status(500);
    submit(&app, &key.key, &form, "Owed Otto").await;
    let count = |sql: &'static str| {
        let pool = app.pool.clone();
        let form_id = form_id.clone();
        async move {
            let (n,): (i64,) = sqlx::query_as(sql)
                .bind(&form_id)
                .fetch_one(&pool)
                .await
                .expect(sql);
            n
        }
    };
    const SETTLED: &str =
        "SELECT count(*) FROM deliveries WHERE form_id = $1::uuid AND status = 'succeeded'";
    const PENDING: &str =
        "SELECT count(*) FROM deliveries WHERE form_id = $1::uuid AND status = 'pending'";
    const ATTEMPTS: &str = "SELECT count(*) FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.form_id = $1::uuid AND d.status = 'succeeded'";
    const MAILS: &str =
        "SELECT count(*) FROM notifications WHERE form_id = $1::uuid AND status = 'succeeded'";
    const MAIL_ATTEMPTS: &str = "SELECT count(*) FROM notification_attempts a JOIN notifications n ON n.id = a.notification_id WHERE n.form_id = $1::uuid";
    eventually(
        "the failed attempt and the second mail",
        ARRIVAL,
        || async { (count(PENDING).await == 1 && count(MAILS).await == 2).then_some(()) },
    )
    .await;
    assert_eq!((count(SETTLED).await, count(ATTEMPTS).await), (1, 1));

    // Another instance keeps settled rows one second: once they are older, its purge
    // (at start, then every minute) removes them and their attempts, not the owed one.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let purging = TestApp::spawn_on(app.db.clone(), &["--delivery-retention", "1s"]).await;
    eventually("the purge", ARRIVAL, || async {
        (count(SETTLED).await == 0 && count(MAILS).await == 0).then_some(())
    })
    .await;
    assert_eq!(count(ATTEMPTS).await, 0);
    assert_eq!(count(MAIL_ATTEMPTS).await, 0);
    assert_eq!(count(PENDING).await, 1, "a pending delivery is still owed");
    assert!(purging.logs().wait_for("purged settled deliveries").await);
}
