//! SPEC Webhooks and Events with the book's decisions: subscriptions (shape, validation,
//! SSRF guard, scopes), and delivery to a real receiver on loopback: payloads and both
//! signatures, every event, alias and routing rules, retries and the operator's retry,
//! time-outs, a crash of the delivering process, two instances on one database, account
//! isolation, fairness between accounts, and secrets kept out of the logs.

use crate::fixtures::*;
use crate::harness::*;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// Flags of an instance that delivers to the loopback receiver quickly.
const DELIVERING: &[&str] = &[
    "--webhook-allow-private",
    "--webhook-poll-interval",
    "200ms",
    "--webhook-retry-schedule",
    "1s,1s,1s",
    "--webhook-timeout",
    "2s",
];

/// How long a delivery that should happen may take to arrive.
const ARRIVAL: Duration = Duration::from_secs(15);

fn hooks(form_id: &str) -> String {
    format!("/forms/{form_id}/webhooks")
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} missing in {value}"))
}

/// (delivery id, event, status, attempts) of a form's deliveries, oldest first.
async fn deliveries_of(app: &TestApp, form_id: &str) -> Vec<(Uuid, String, String, i32)> {
    sqlx::query_as(
        "SELECT id, event, status, attempts FROM deliveries WHERE form_id = $1
          ORDER BY created_at, id",
    )
    .bind(Uuid::parse_str(form_id).expect("uuid"))
    .fetch_all(&app.pool)
    .await
    .expect("reading deliveries")
}

/// Waits until the form has `n` deliveries, none pending; returns them.
async fn settled(
    app: &TestApp,
    form_id: &str,
    n: usize,
    timeout: Duration,
) -> Vec<(Uuid, String, String, i32)> {
    eventually(
        &format!("{n} settled deliveries of form {form_id}"),
        timeout,
        || async {
            let rows = deliveries_of(app, form_id).await;
            (rows.len() == n && rows.iter().all(|r| r.2 != "pending")).then_some(rows)
        },
    )
    .await
}

/// Checks both signatures of a delivery against the subscription's secret.
fn assert_signed(hit: &Hit, secret: &str) {
    assert_eq!(
        hit.header("x-webhook-signature"),
        spec_signature(secret, &hit.body),
        "X-Webhook-Signature over the raw body"
    );
    let id = hit.header("webhook-id");
    let ts = hit.header("webhook-timestamp");
    let seconds: i64 = ts.parse().expect("webhook-timestamp is Unix seconds");
    assert!(
        (seconds - unix_now()).abs() < 300,
        "webhook-timestamp {ts} is about now"
    );
    assert_eq!(
        hit.header("webhook-signature"),
        standard_signature(secret, id, ts, &hit.body),
        "Standard Webhooks signature"
    );
    // A wrong secret does not verify.
    assert_ne!(
        hit.header("x-webhook-signature"),
        spec_signature("whsec_wrong", &hit.body)
    );
}

/// Checks a delivery of `response`'s `form.submitted` event (sent as `event`, its name
/// or its alias): the body's members, name, time and data, and the event header.
fn assert_submitted(hit: &Hit, response: &Value, form_id: &str, event: &str) {
    let payload = hit.json();
    assert_eq!(keys_of(&payload), ["data", "event", "formId", "timestamp"]);
    assert_eq!(payload["event"], event);
    assert_eq!(hit.event(), event);
    assert_eq!(payload["formId"], form_id);
    assert_eq!(
        payload["data"],
        json!({
            "responseId": response["id"],
            "formId": form_id,
            "answers": response["answers"],
            "submittedVia": "api",
        })
    );
    assert_timestamp(&payload["timestamp"]);
    assert_eq!(payload["timestamp"], response["submitted_at"]);
    assert_eq!(
        hit.header("x-webhook-timestamp"),
        str_of(&payload, "timestamp")
    );
}

/// The secret, and its base64 part, appear nowhere in the logs (the instance is stopped
/// first, so that every line it wrote is read).
async fn assert_not_logged(app: &mut TestApp, secret: &str) {
    let logs = app.logs_to_end().await;
    assert!(!logs.is_empty(), "formsd logged something");
    let b64 = secret.strip_prefix("whsec_").expect("whsec_ prefix");
    assert!(!logs.contains(secret), "the webhook secret is in the logs");
    assert!(
        !logs.contains(b64),
        "the webhook secret (base64 part) is in the logs"
    );
}

// ---------------------------------------------------------------------------------------
// Subscriptions
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn subscriptions_are_created_listed_and_deleted() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app.create_form(&key, &json!({"title": "Hooks"})).await;
    let form_id = str_of(&form, "id");

    let body = json!({
        "name": "CRM",
        "url": "https://93.184.216.34/hook",
        "events": ["form.submitted", "form.published", "form.submitted"],
    });
    let reply = app.post(&hooks(form_id), &key, &body).await;
    let created = reply.ok(201)["webhook"].clone();
    assert_eq!(
        keys_of(&created),
        [
            "created_at",
            "events",
            "form_id",
            "id",
            "is_active",
            "max_retries",
            "name",
            "secret",
            "updated_at",
            "url"
        ]
    );
    assert_uuid(str_of(&created, "id"));
    assert_eq!(created["form_id"], form_id);
    assert_eq!(created["name"], "CRM");
    assert_eq!(created["url"], "https://93.184.216.34/hook");
    assert_eq!(
        created["events"],
        json!(["form.submitted", "form.published"])
    );
    assert_eq!(created["is_active"], true);
    assert_eq!(created["max_retries"], 3);
    assert_timestamp(&created["created_at"]);
    assert_timestamp(&created["updated_at"]);
    let secret = str_of(&created, "secret");
    assert!(
        secret.starts_with("whsec_") && secret.len() > 30,
        "{secret}"
    );

    let second = subscribe(
        &app,
        &key,
        form_id,
        "https://93.184.216.34/other",
        &["form.deleted"],
    )
    .await;
    assert_ne!(
        second["secret"], created["secret"],
        "secrets are per subscription"
    );

    // The list never shows secrets.
    let reply = app.get(&hooks(form_id), &key).await;
    let listed = reply.ok(200)["webhooks"].clone();
    let listed = listed.as_array().expect("webhooks array");
    assert_eq!(listed.len(), 2);
    for (item, made) in listed.iter().zip([&created, &second]) {
        assert!(item.get("secret").is_none(), "secret listed: {item}");
        let mut expected = made.clone();
        expected.as_object_mut().expect("object").remove("secret");
        assert_eq!(item, &expected);
    }
    assert!(!reply.text.contains(secret));

    // Delete: 204, then gone.
    let path = format!("{}/{}", hooks(form_id), str_of(&created, "id"));
    let reply = app.delete(&path, &key).await;
    assert_eq!(reply.status, 204, "{}", reply.text);
    assert_eq!(reply.text, "");
    let reply = app.get(&hooks(form_id), &key).await;
    let ids: Vec<&Value> = reply.ok(200)["webhooks"]
        .as_array()
        .expect("array")
        .iter()
        .map(|w| &w["id"])
        .collect();
    assert_eq!(ids, [&second["id"]]);
    app.delete(&path, &key).await.error(404, "NOT_FOUND");
    // A subscription is only found under its own form.
    let other = app.create_form(&key, &json!({"title": "Other"})).await;
    let path = format!("{}/{}", hooks(str_of(&other, "id")), str_of(&second, "id"));
    app.delete(&path, &key).await.error(404, "NOT_FOUND");
    let unknown = format!("{}/{}", hooks(&Uuid::new_v4().to_string()), Uuid::new_v4());
    app.delete(&unknown, &key).await.error(404, "NOT_FOUND");
    app.get(&hooks(&Uuid::new_v4().to_string()), &key)
        .await
        .error(404, "NOT_FOUND");
}

#[tokio::test]
async fn subscription_input_and_targets_are_validated() {
    // Without --webhook-allow-private: the production rules.
    let app = TestApp::spawn().await;
    let key = app.new_key(PRO, ALL).await;
    let form = app.create_form(&key.key, &json!({"title": "Hooks"})).await;
    let path = hooks(str_of(&form, "id"));
    let good_url = "https://93.184.216.34/hook";
    let refused = |body: Value| {
        let (app, path, key) = (&app, &path, &key.key);
        async move {
            let reply = app.post(path, key, &body).await;
            let error = reply.error(422, "VALIDATION_ERROR");
            error["message"].as_str().expect("message").to_owned()
        }
    };

    // Names: 1 to 100 characters.
    for name in [json!(""), json!("   "), json!("x".repeat(101)), json!(5)] {
        let message =
            refused(json!({"name": name, "url": good_url, "events": ["form.submitted"]})).await;
        assert!(message.contains("name"), "{message}");
    }
    let message = refused(json!({"url": good_url, "events": ["form.submitted"]})).await;
    assert!(message.contains("name"), "{message}");
    let longest = "x".repeat(100);
    let body = json!({"name": longest, "url": good_url, "events": ["form.submitted"]});
    assert_eq!(
        app.post(&path, &key.key, &body).await.ok(201)["webhook"]["name"],
        longest
    );

    // Events: one or more known names.
    for events in [
        json!([]),
        json!(null),
        json!("form.submitted"),
        json!([1]),
        json!(["form.created"]),
        json!(["form.submitted", "FORM.SUBMITTED"]),
    ] {
        let message = refused(json!({"name": "n", "url": good_url, "events": events})).await;
        assert!(message.contains("event"), "{events}: {message}");
    }
    let message = refused(json!({"name": "n", "url": good_url})).await;
    assert!(message.contains("event"), "{message}");
    let message = refused(json!({"name": "n", "url": good_url, "events": ["nope"]})).await;
    assert!(
        message.contains("nope"),
        "names the unknown event: {message}"
    );

    // Targets: public HTTPS only.
    for url in [
        "",
        "not a url",
        "http://93.184.216.34/hook",
        "ftp://93.184.216.34/hook",
        "https://user:pw@93.184.216.34/hook",
        "https://127.0.0.1/hook",
        "https://2130706433/hook",
        "https://0177.0.0.1/hook",
        "https://0x7f.1/hook",
        "https://[::1]/hook",
        "https://[::ffff:169.254.169.254]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://10.0.0.1/hook",
        "https://192.168.1.1/hook",
        "https://172.16.0.1/hook",
        "https://100.64.0.1/hook",
        "https://0.0.0.0/hook",
        "https://localhost/hook",
        "https://localhost:8443/hook",
        "https://127.1/hook",
        "https://0/hook",
        "https://[::127.0.0.1]/hook",
        "https://[64:ff9b::a9fe:a9fe]/hook",
        "https://[64:ff9b:1::808:808]/hook",
        "https://[2002:7f00:1::]/hook",
        "https://[fd00:ec2::254]/hook",
        "https://[fe80::1]/hook",
        "https://[::ffff:a9fe:a9fe]/hook",
        "https://198.18.0.1/hook",
        "https://192.0.2.1/hook",
        "https://224.0.0.1/hook",
        "https://255.255.255.255/hook",
    ] {
        let message = refused(json!({"name": "n", "url": url, "events": ["form.submitted"]})).await;
        assert!(message.contains("url"), "{url}: {message}");
    }
    let message = refused(json!({"name": "n", "events": ["form.submitted"]})).await;
    assert!(message.contains("url"), "{message}");
    let body = json!({"name": "n", "url": good_url, "events": ["form.submitted"]});
    let created = app.post(&path, &key.key, &body).await.ok(201)["webhook"].clone();
    assert_eq!(created["url"], good_url);
    let reply = app.get(&path, &key.key).await;
    assert_eq!(
        reply.ok(200)["webhooks"].as_array().expect("array").len(),
        2
    );

    // Scopes: read lists; creating and deleting need admin.
    let read = app.key_for(&key.account, PRO, READ).await;
    let write = app.key_for(&key.account, PRO, WRITE).await;
    assert_eq!(
        app.get(&path, &read.key).await.ok(200)["webhooks"]
            .as_array()
            .expect("array")
            .len(),
        2
    );
    for weaker in [&read, &write] {
        app.post(&path, &weaker.key, &body)
            .await
            .error(403, "INSUFFICIENT_SCOPE");
        let one = format!("{path}/{}", str_of(&created, "id"));
        app.delete(&one, &weaker.key)
            .await
            .error(403, "INSUFFICIENT_SCOPE");
    }
    let admin = app.key_for(&key.account, PRO, ADMIN).await;
    app.post(&path, &admin.key, &body).await.ok(201);
    let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM webhooks")
        .fetch_one(&app.pool)
        .await
        .expect("counting webhooks");
    assert_eq!(n, 3, "refused requests stored nothing");
}

// ---------------------------------------------------------------------------------------
// Delivery
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn form_submitted_is_delivered_signed() {
    let receiver = Receiver::start().await;
    let mut app = TestApp::spawn_with(DELIVERING).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id");
    let hook = subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/hook"),
        &["form.submitted"],
    )
    .await;
    let secret = str_of(&hook, "secret");

    let body = json!({"answers": contact_answers(&field_ids(&form), 1), "metadata": {"m": 1}});
    let reply = app
        .post(&format!("/forms/{form_id}/responses"), &key, &body)
        .await;
    let response = reply.ok(201)["response"].clone();

    let hits = receiver.wait_for("/hook", 1, ARRIVAL).await;
    let hit = &hits[0];
    assert_eq!(hit.method, Method::POST);
    assert!(
        hit.header("content-type").starts_with("application/json"),
        "{:?}",
        hit.headers
    );
    assert_submitted(hit, &response, form_id, "form.submitted");
    assert_eq!(hit.header("x-webhook-delivery"), hit.header("webhook-id"));
    assert_uuid(hit.header("webhook-id"));
    assert_signed(hit, secret);

    let rows = settled(&app, form_id, 1, ARRIVAL).await;
    assert_eq!(rows[0].0.to_string(), hit.delivery_id());
    assert_eq!((rows[0].2.as_str(), rows[0].3), ("succeeded", 1));
    assert_eq!(receiver.hits().len(), 1, "delivered once");
    assert_not_logged(&mut app, secret).await;
}

#[tokio::test]
async fn creates_on_a_form_with_a_webhook_share_the_statement_and_wake_the_worker() {
    // Polling once an hour: only the instance's bell (or a NOTIFY) brings the
    // deliveries in time.
    let receiver = Receiver::start().await;
    let app = TestApp::spawn_with(&[
        "--webhook-allow-private",
        "--webhook-poll-interval",
        "1h",
        "--metrics-addr",
        "127.0.0.1:0",
    ])
    .await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id");
    let hook = subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/hook"),
        &["response.received"],
    )
    .await;
    let secret = str_of(&hook, "secret");
    let (path, f) = (format!("/forms/{form_id}/responses"), field_ids(&form));
    let mut responses = Vec::new();
    for n in 1..=3 {
        let body = json!({"answers": contact_answers(&f, n)});
        responses.push(app.post(&path, &key, &body).await.ok(201)["response"].clone());
        if n == 1 {
            // Its delivery done, the worker sleeps until woken.
            settled(&app, form_id, 1, ARRIVAL).await;
        }
    }
    // The first create found no view of the form and took the locked transaction
    // (which keeps one); the next two were stored by the shared statement, with their
    // deliveries.
    let text = metrics_text(&app).await;
    let stored = r#"formsd_one_statement_creates_total{outcome="stored"}"#;
    assert_eq!(sample(&text, stored), Some(2.0), "{text}");

    let hits = receiver.wait_for("/hook", 3, ARRIVAL).await;
    for response in &responses {
        let hit = hits
            .iter()
            .find(|h| h.json()["data"]["responseId"] == response["id"])
            .unwrap_or_else(|| panic!("no delivery of {}", response["id"]));
        assert_submitted(hit, response, form_id, "response.received");
        assert_signed(hit, secret);
    }
    let rows = settled(&app, form_id, 3, ARRIVAL).await;
    assert!(
        rows.iter().all(|r| (r.2.as_str(), r.3) == ("succeeded", 1)),
        "{rows:?}"
    );
    assert_eq!(receiver.hits().len(), 3, "each delivered once");
}

#[tokio::test]
async fn a_subscriptions_deliveries_of_one_event_go_one_at_a_time_in_order() {
    // A slow receiver: while one delivery is answered the others of the webhook pile
    // up, and a claim takes several of them at once (up to the account's share). They
    // are sent one after the other, in the order of their events; the form's other
    // event (quiz.completed) and its other subscription are sequences of their own.
    let receiver = Receiver::start().await;
    receiver.set_delay(Duration::from_millis(150));
    let app = TestApp::spawn_with(DELIVERING).await;
    let key = app.key(PRO, ALL).await;
    let fields = json!([
        {"type": "short_text", "label": "Capital of France", "required": true,
         "correct_answer": "Paris"},
    ]);
    let quiz = published_form(&app, &key, fields, Value::Null).await;
    let quiz_id = str_of(&quiz, "id");
    let f = field_ids(&quiz);
    let events = ["form.submitted", "quiz.completed"];
    subscribe(&app, &key, quiz_id, &receiver.url("/one"), &events).await;
    subscribe(&app, &key, quiz_id, &receiver.url("/two"), &events).await;
    let path = format!("/forms/{quiz_id}/responses");
    let n = 10;
    let mut created = Vec::new();
    for i in 0..n {
        let body = json!({"answers": {f[0].clone(): format!("answer {i}")}});
        let response = app.post(&path, &key, &body).await.ok(201)["response"].clone();
        created.push(str_of(&response, "id").to_owned());
    }
    let hits = receiver
        .wait_for("/one", 2 * n, Duration::from_secs(60))
        .await;
    receiver
        .wait_for("/two", 2 * n, Duration::from_secs(60))
        .await;
    for path in ["/one", "/two"] {
        for event in events {
            let order: Vec<String> = receiver
                .hits_at(path)
                .iter()
                .filter(|h| h.event() == event)
                .map(|h| str_of(&h.json()["data"], "responseId").to_owned())
                .collect();
            assert_eq!(
                order, created,
                "{event} at {path}, in the order of the events"
            );
        }
    }
    // Four sequences (two webhooks, two events) at most at once: one request each.
    let most = receiver.most_in_flight();
    assert!(most <= 4, "{most} requests at once");
    assert!(
        most >= 2,
        "the sequences went one after another ({most} at once)"
    );
    assert_eq!(hits.len(), 2 * n, "each delivered once");
}

#[tokio::test]
async fn form_lifecycle_events_are_delivered() {
    let receiver = Receiver::start().await;
    let mut app = TestApp::spawn_with(DELIVERING).await;
    let key = app.key(PRO, ALL).await;
    let form = app
        .create_form(&key, &json!({"title": "Life", "fields": contact_fields()}))
        .await;
    let form_id = str_of(&form, "id").to_owned();
    let path = format!("/forms/{form_id}");
    let url = receiver.url("/life");
    let hook = subscribe(
        &app,
        &key,
        &form_id,
        &url,
        &["form.updated", "form.published", "form.deleted"],
    )
    .await;
    let secret = str_of(&hook, "secret").to_owned();

    // Settings change: form.updated, changed = [settings].
    app.put(
        &path,
        &key,
        &json!({"settings": {"confirmation_message": "Thanks"}}),
    )
    .await
    .ok(200);
    let hits = receiver.wait_for("/life", 1, ARRIVAL).await;
    let p = hits[0].json();
    assert_eq!(p["event"], "form.updated");
    assert_eq!(hits[0].event(), "form.updated");
    assert_eq!(p["formId"], form_id.as_str());
    assert_eq!(
        keys_of(&p["data"]),
        [
            "changed",
            "fields",
            "formId",
            "settings",
            "status",
            "title",
            "updatedAt"
        ]
    );
    assert_eq!(p["data"]["changed"], json!(["settings"]));
    assert_eq!(p["data"]["settings"]["confirmation_message"], "Thanks");
    assert_eq!(p["data"]["status"], "draft");
    assert_eq!(p["data"]["title"], "Life");
    assert_timestamp(&p["data"]["updatedAt"]);
    assert_signed(&hits[0], &secret);

    // A title-only change is no form.updated; a fields change is.
    app.put(&path, &key, &json!({"title": "Life 2"}))
        .await
        .ok(200);
    let fields = json!([{"type": "short_text", "label": "Only", "required": true}]);
    app.put(&path, &key, &json!({"fields": fields}))
        .await
        .ok(200);
    let hits = receiver.wait_for("/life", 2, ARRIVAL).await;
    let p = hits[1].json();
    assert_eq!(p["event"], "form.updated");
    assert_eq!(p["data"]["changed"], json!(["fields"]));
    assert_eq!(p["data"]["title"], "Life 2");
    assert_eq!(p["data"]["fields"].as_array().expect("fields").len(), 1);
    assert_eq!(p["data"]["fields"][0]["label"], "Only");

    // Both at once.
    app.put(
        &path,
        &key,
        &json!({"fields": fields, "settings": {"notifications_enabled": true}}),
    )
    .await
    .ok(200);
    let hits = receiver.wait_for("/life", 3, ARRIVAL).await;
    assert_eq!(
        hits[2].json()["data"]["changed"],
        json!(["fields", "settings"])
    );

    // Publishing: form.published only.
    let published = app
        .put(&path, &key, &json!({"status": "published"}))
        .await
        .ok(200)["form"]
        .clone();
    let hits = receiver.wait_for("/life", 4, ARRIVAL).await;
    let p = hits[3].json();
    assert_eq!(p["event"], "form.published");
    assert_eq!(
        p["data"],
        json!({
            "formId": form_id,
            "title": "Life 2",
            "shortId": published["short_id"],
            "publishedAt": published["published_at"],
        })
    );
    // A submission is not among the events subscribed to.
    let ids = field_ids(&published);
    app.post(
        &format!("{path}/responses"),
        &key,
        &json!({"answers": {ids[0].clone(): "x"}}),
    )
    .await
    .ok(201);

    // Deleting: form.deleted, delivered although the form and its subscription are gone.
    let reply = app.delete(&path, &key).await;
    assert_eq!(reply.status, 204);
    let hits = receiver.wait_for("/life", 5, ARRIVAL).await;
    let p = hits[4].json();
    assert_eq!(p["event"], "form.deleted");
    assert_eq!(hits[4].event(), "form.deleted");
    assert_eq!(keys_of(&p["data"]), ["deletedAt", "formId", "title"]);
    assert_eq!(p["data"]["formId"], form_id.as_str());
    assert_eq!(p["data"]["title"], "Life 2");
    assert_timestamp(&p["data"]["deletedAt"]);
    assert_signed(&hits[4], &secret);

    let rows = settled(&app, &form_id, 5, ARRIVAL).await;
    let events: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(
        events,
        [
            "form.updated",
            "form.updated",
            "form.updated",
            "form.published",
            "form.deleted"
        ]
    );
    assert!(rows.iter().all(|r| r.2 == "succeeded"), "{rows:?}");
    assert_eq!(receiver.hits().len(), 5);
    assert_not_logged(&mut app, &secret).await;
}

#[tokio::test]
async fn quiz_completed_carries_the_score() {
    let receiver = Receiver::start().await;
    let app = TestApp::spawn_with(DELIVERING).await;
    let key = app.key(PRO, ALL).await;
    let fields = json!([
        {"type": "short_text", "label": "Capital of France", "required": true,
         "correct_answer": "Paris", "points": 2},
        {"type": "number", "label": "2 + 2", "required": true, "correct_answer": 4},
        {"type": "short_text", "label": "Your name", "required": false},
    ]);
    let quiz = published_form(&app, &key, fields, Value::Null).await;
    let quiz_id = str_of(&quiz, "id");
    let f = field_ids(&quiz);
    subscribe(
        &app,
        &key,
        quiz_id,
        &receiver.url("/quiz"),
        &["quiz.completed", "form.submitted"],
    )
    .await;

    let path = format!("/forms/{quiz_id}/responses");
    let first = app
        .post(
            &path,
            &key,
            &json!({"answers": {f[0].clone(): "  paris ", f[1].clone(): "5"}}),
        )
        .await
        .ok(201)["response"]
        .clone();
    let hits = receiver.wait_for("/quiz", 2, ARRIVAL).await;
    let quiz_hits: Vec<&Hit> = hits
        .iter()
        .filter(|h| h.event() == "quiz.completed")
        .collect();
    assert_eq!(
        quiz_hits.len(),
        1,
        "one quiz.completed besides form.submitted"
    );
    assert_eq!(
        hits.iter()
            .filter(|h| h.event() == "form.submitted")
            .count(),
        1
    );
    let p = quiz_hits[0].json();
    assert_eq!(
        keys_of(&p),
        ["data", "event", "formId", "quizId", "timestamp"]
    );
    assert_eq!(p["event"], "quiz.completed");
    assert_eq!(p["quizId"], quiz_id);
    assert_eq!(p["formId"], quiz_id);
    assert_eq!(p["data"]["responseId"], first["id"]);
    assert_eq!(p["data"]["formId"], quiz_id);
    assert_eq!(p["data"]["score"], 2, "Paris right (2 points), 5 wrong");
    assert_eq!(p["data"]["maxScore"], 3);
    assert_eq!(p["data"]["submittedVia"], "api");
    assert_eq!(p["data"]["answers"], first["answers"]);
    // form.submitted of a quiz has no quizId.
    let submitted = hits
        .iter()
        .find(|h| h.event() == "form.submitted")
        .expect("submitted");
    assert!(submitted.json().get("quizId").is_none());

    app.post(
        &path,
        &key,
        &json!({"answers": {f[0].clone(): "PARIS", f[1].clone(): 4}}),
    )
    .await
    .ok(201);
    let hits = receiver.wait_for("/quiz", 4, ARRIVAL).await;
    let scores: Vec<(Value, Value)> = hits
        .iter()
        .filter(|h| h.event() == "quiz.completed")
        .map(|h| {
            let p = h.json();
            (p["data"]["score"].clone(), p["data"]["maxScore"].clone())
        })
        .collect();
    assert!(scores.contains(&(json!(3), json!(3))), "{scores:?}");

    // A form without correct answers is no quiz: no quiz.completed.
    let plain = published_form(&app, &key, contact_fields(), Value::Null).await;
    let plain_id = str_of(&plain, "id");
    subscribe(
        &app,
        &key,
        plain_id,
        &receiver.url("/plain"),
        &["quiz.completed"],
    )
    .await;
    let body = json!({"answers": contact_answers(&field_ids(&plain), 1)});
    app.post(&format!("/forms/{plain_id}/responses"), &key, &body)
        .await
        .ok(201);
    assert_eq!(deliveries_of(&app, plain_id).await.len(), 0);
    settled(&app, quiz_id, 4, ARRIVAL).await;
    assert!(receiver.hits_at("/plain").is_empty());
}

#[tokio::test]
async fn events_reach_only_the_subscriptions_that_list_them() {
    let receiver = Receiver::start().await;
    let app = TestApp::spawn_with(DELIVERING).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id");
    let fields = field_ids(&form);
    let both = subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/both"),
        &["form.submitted", "response.received"],
    )
    .await;
    let alias = subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/alias"),
        &["response.received"],
    )
    .await;
    let published_only = subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/published"),
        &["form.published"],
    )
    .await;
    let inactive = subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/inactive"),
        &["form.submitted"],
    )
    .await;
    let inactive_id = str_of(&inactive, "id");

    // Operators turn a subscription off with the command line.
    let out = formsd_cli(
        &app.db.url,
        &["webhooks", "update", inactive_id, "--active", "false"],
    )
    .await;
    let updated: Value = serde_json::from_str(out.trim()).expect("update prints JSON");
    assert_eq!(updated["is_active"], false, "{out}");
    let reply = app.get(&hooks(form_id), &key).await;
    let listed = reply.ok(200)["webhooks"].clone();
    let listed_inactive = listed
        .as_array()
        .expect("array")
        .iter()
        .find(|w| w["id"] == inactive["id"])
        .expect("still listed")
        .clone();
    assert_eq!(listed_inactive["is_active"], false);

    let path = format!("/forms/{form_id}/responses");
    let first = app
        .post(
            &path,
            &key,
            &json!({"answers": contact_answers(&fields, 1)}),
        )
        .await
        .ok(201)["response"]
        .clone();
    let both_hits = receiver.wait_for("/both", 1, ARRIVAL).await;
    let alias_hits = receiver.wait_for("/alias", 1, ARRIVAL).await;
    // Subscribed after the event: does not get it.
    let late = subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/late"),
        &["form.submitted"],
    )
    .await;
    let rows = settled(&app, form_id, 2, ARRIVAL).await;
    assert!(rows.iter().all(|r| r.2 == "succeeded"), "{rows:?}");

    assert_eq!(both_hits[0].event(), "form.submitted");
    assert_eq!(both_hits[0].json()["event"], "form.submitted");
    assert_eq!(alias_hits[0].event(), "response.received");
    let p = alias_hits[0].json();
    assert_eq!(p["event"], "response.received");
    assert_eq!(p["data"]["responseId"], first["id"]);
    assert_eq!(p["data"]["submittedVia"], "api");
    assert_signed(&both_hits[0], str_of(&both, "secret"));
    assert_signed(&alias_hits[0], str_of(&alias, "secret"));
    assert_ne!(both_hits[0].delivery_id(), alias_hits[0].delivery_id());

    // Exactly one delivery per subscription; none for the others.
    let per_webhook = |webhook: &Value| {
        let app = &app;
        let id = Uuid::parse_str(str_of(webhook, "id")).expect("uuid");
        async move {
            let (n,): (i64,) =
                sqlx::query_as("SELECT count(*) FROM deliveries WHERE webhook_id = $1")
                    .bind(id)
                    .fetch_one(&app.pool)
                    .await
                    .expect("counting deliveries");
            n
        }
    };
    assert_eq!(
        per_webhook(&both).await,
        1,
        "one delivery for form.submitted + alias"
    );
    assert_eq!(per_webhook(&alias).await, 1);
    for none in [&published_only, &inactive, &late] {
        assert_eq!(per_webhook(none).await, 0, "{}", none["url"]);
    }
    for path in ["/published", "/inactive", "/late"] {
        assert!(receiver.hits_at(path).is_empty(), "{path} got a delivery");
    }
    assert_eq!(receiver.hits_at("/both").len(), 1);
    assert_eq!(receiver.hits_at("/alias").len(), 1);

    // The late subscription gets later events; the inactive one only once reactivated.
    app.post(
        &path,
        &key,
        &json!({"answers": contact_answers(&fields, 2)}),
    )
    .await
    .ok(201);
    receiver.wait_for("/late", 1, ARRIVAL).await;
    formsd_cli(
        &app.db.url,
        &["webhooks", "update", inactive_id, "--active", "true"],
    )
    .await;
    app.post(
        &path,
        &key,
        &json!({"answers": contact_answers(&fields, 3)}),
    )
    .await
    .ok(201);
    let hits = receiver.wait_for("/inactive", 1, ARRIVAL).await;
    assert_eq!(hits.len(), 1, "only the event after reactivation");
    settled(&app, form_id, 2 + 3 + 4, ARRIVAL).await;
    assert!(receiver.hits_at("/published").is_empty());
    assert_eq!(receiver.hits_at("/both").len(), 3);
    assert_eq!(receiver.hits_at("/alias").len(), 3);
    assert_eq!(receiver.hits_at("/late").len(), 2);
}

/// (status_code, error, attempted_at) of a delivery's attempts, oldest first.
async fn attempts_of(
    app: &TestApp,
    delivery: Uuid,
) -> Vec<(Option<i32>, Option<String>, chrono::DateTime<chrono::Utc>)> {
    sqlx::query_as(
        "SELECT status_code, error, attempted_at FROM delivery_attempts WHERE delivery_id = $1
          ORDER BY attempted_at, id",
    )
    .bind(delivery)
    .fetch_all(&app.pool)
    .await
    .expect("reading attempts")
}

#[tokio::test]
async fn failing_deliveries_are_retried_marked_failed_and_retried_by_the_operator() {
    let receiver = Receiver::start().await;
    receiver.set_status(500);
    let mut app = TestApp::spawn_with(DELIVERING).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id");
    let hook = subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/fail"),
        &["form.submitted"],
    )
    .await;
    let (hook_id, secret) = (str_of(&hook, "id"), str_of(&hook, "secret"));
    let body = json!({"answers": contact_answers(&field_ids(&form), 1)});
    app.post(&format!("/forms/{form_id}/responses"), &key, &body)
        .await
        .ok(201);

    // The first attempt and 3 retries, then failed.
    let rows = settled(&app, form_id, 1, Duration::from_secs(30)).await;
    let (delivery, _, status, attempts) = rows[0].clone();
    assert_eq!((status.as_str(), attempts), ("failed", 4));
    let hits = receiver.hits_at("/fail");
    assert_eq!(hits.len(), 4, "exactly 4 attempts");
    for hit in &hits {
        assert_eq!(
            hit.delivery_id(),
            delivery.to_string(),
            "the same delivery id"
        );
        assert_eq!(hit.body, hits[0].body, "the same body on every attempt");
        assert_signed(hit, secret);
    }
    let recorded = attempts_of(&app, delivery).await;
    assert_eq!(recorded.len(), 4);
    for (code, error, _) in &recorded {
        assert_eq!(*code, Some(500));
        assert!(
            error.as_deref().is_some_and(|e| e.contains("500")),
            "{error:?}"
        );
    }
    for pair in recorded.windows(2) {
        let gap = pair[1].2 - pair[0].2;
        assert!(
            gap >= chrono::Duration::milliseconds(900),
            "retries follow the 1 s schedule: {gap}"
        );
    }

    // What the operator sees.
    let listed = cli_deliveries(&app.db.url, hook_id).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["id"], delivery.to_string());
    assert_eq!(listed[0]["event"], "form.submitted");
    assert_eq!(listed[0]["status"], "failed");
    assert_eq!(listed[0]["next_attempt_at"], Value::Null);
    let cli_attempts = listed[0]["attempts"].as_array().expect("attempts");
    assert_eq!(cli_attempts.len(), 4);
    assert!(cli_attempts.iter().all(|a| a["status_code"] == 500));
    // Attempts keep the start of the receiver's answer.
    let (bodies,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM delivery_attempts
          WHERE delivery_id = $1 AND response_body = 'receiver says hi' AND duration_ms >= 0",
    )
    .bind(delivery)
    .fetch_one(&app.pool)
    .await
    .expect("reading attempts");
    assert_eq!(bodies, 4);

    // The operator retries it once the receiver is fixed.
    receiver.set_status(200);
    let out = formsd_cli(&app.db.url, &["webhooks", "retry", &delivery.to_string()]).await;
    let retried: Value = serde_json::from_str(out.trim()).expect("retry prints JSON");
    assert_eq!(retried["id"], delivery.to_string());
    assert_eq!(retried["status"], "pending");
    receiver.wait_for("/fail", 5, ARRIVAL).await;
    let rows = settled(&app, form_id, 1, ARRIVAL).await;
    assert_eq!(rows[0].2, "succeeded");
    let recorded = attempts_of(&app, delivery).await;
    assert_eq!(recorded.len(), 5);
    assert_eq!(recorded[4].0, Some(200));
    let hits = receiver.hits_at("/fail");
    assert_eq!(hits.len(), 5);
    assert_eq!(hits[4].delivery_id(), delivery.to_string());
    assert_signed(&hits[4], secret);
    let listed = cli_deliveries(&app.db.url, hook_id).await;
    assert_eq!(listed[0]["status"], "succeeded");

    // Only failed deliveries can be retried.
    let output = formsd_command()
        .args(["--database-url", &app.db.url, "webhooks", "retry"])
        .arg(delivery.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .await
        .expect("running formsd");
    assert!(
        !output.success(),
        "retrying a succeeded delivery is refused"
    );
    assert_eq!(attempts_of(&app, delivery).await.len(), 5);
    assert_not_logged(&mut app, secret).await;
}

/// The waits of a retry schedule whose steps all differ, so that their order shows (given
/// to formsd as `--webhook-retry-schedule 1s,2s,4s`).
const SCHEDULE: [Duration; 3] = [
    Duration::from_secs(1),
    Duration::from_secs(2),
    Duration::from_secs(4),
];

#[tokio::test]
async fn retries_follow_the_schedule_in_its_order() {
    let receiver = Receiver::start().await;
    receiver.set_status(500);
    let app = TestApp::spawn_with(&[
        "--webhook-allow-private",
        "--webhook-poll-interval",
        "200ms",
        "--webhook-retry-schedule",
        "1s,2s,4s",
    ])
    .await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id");
    subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/fail"),
        &["form.submitted"],
    )
    .await;
    let body = json!({"answers": contact_answers(&field_ids(&form), 1)});
    app.post(&format!("/forms/{form_id}/responses"), &key, &body)
        .await
        .ok(201);

    // The next attempt each failure recorded, by the number of attempts made, as seen
    // while the delivery waits (each wait is long enough to be seen more than once).
    let next_after = std::cell::RefCell::new(HashMap::new());
    let (app, next_seen) = (&app, &next_after);
    let delivery = eventually(
        "the delivery to fail for good",
        Duration::from_secs(60),
        || async move {
            let rows: Vec<(Uuid, String, i32, chrono::DateTime<chrono::Utc>)> = sqlx::query_as(
                "SELECT id, status, attempts, next_attempt_at FROM deliveries WHERE form_id = $1",
            )
            .bind(Uuid::parse_str(form_id).expect("uuid"))
            .fetch_all(&app.pool)
            .await
            .expect("reading deliveries");
            let (id, status, attempts, next) = rows.into_iter().next()?;
            if status == "pending" && attempts > 0 {
                next_seen.borrow_mut().insert(attempts, next);
            }
            (status == "failed").then_some(id)
        },
    )
    .await;
    let next_after: HashMap<i32, chrono::DateTime<chrono::Utc>> = next_after.into_inner();
    let recorded = attempts_of(app, delivery).await;
    assert_eq!(recorded.len(), 4, "the first attempt and 3 retries");
    // Each failure schedules the next wait of the list, in its order: the n-th retry
    // comes at least the n-th wait after the attempt before it (no upper bound: how soon
    // it comes after is a speed).
    for (n, wait) in SCHEDULE.iter().enumerate() {
        let wait = chrono::Duration::from_std(*wait).expect("wait");
        let (before, after) = (recorded[n].2, recorded[n + 1].2);
        assert!(
            after - before >= wait,
            "retry {} came {} after the attempt before it, not {wait}",
            n + 1,
            after - before
        );
        let attempts = i32::try_from(n + 1).expect("small");
        if let Some(next) = next_after.get(&attempts) {
            assert!(
                *next - before >= wait && *next <= after,
                "attempt {attempts} at {before} scheduled the next at {next}, not {wait} later"
            );
        }
    }
    assert!(
        !next_after.is_empty(),
        "the delivery was seen waiting for a retry"
    );
}

#[tokio::test]
async fn a_receiver_that_times_out_counts_as_a_failure() {
    let receiver = Receiver::start().await;
    receiver.set_delay(Duration::from_secs(3));
    let app = TestApp::spawn_with(&[
        "--webhook-allow-private",
        "--webhook-poll-interval",
        "200ms",
        "--webhook-retry-schedule",
        "1s,1s,1s",
        "--webhook-timeout",
        "1s",
    ])
    .await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id");
    subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/slow"),
        &["form.submitted"],
    )
    .await;
    let body = json!({"answers": contact_answers(&field_ids(&form), 1)});
    app.post(&format!("/forms/{form_id}/responses"), &key, &body)
        .await
        .ok(201);

    let delivery = eventually("the first attempt", ARRIVAL, || async {
        let rows = deliveries_of(&app, form_id).await;
        let (id, _, _, attempts) = rows.first()?.clone();
        (attempts >= 1).then_some(id)
    })
    .await;
    receiver.set_delay(Duration::ZERO);
    let first = attempts_of(&app, delivery).await[0].clone();
    assert_eq!(
        first.0, None,
        "no status code from a receiver that timed out"
    );
    assert!(
        first.1.as_deref().is_some_and(|e| e.contains("timed out")),
        "{:?}",
        first.1
    );
    // The retry reaches the (now fast) receiver.
    let rows = settled(&app, form_id, 1, ARRIVAL).await;
    assert_eq!(rows[0].2, "succeeded");
    let recorded = attempts_of(&app, delivery).await;
    assert!(recorded.len() >= 2, "{recorded:?}");
    assert_eq!(recorded.last().expect("attempt").0, Some(200));
}

#[tokio::test]
async fn deliveries_survive_a_crash_of_the_delivering_process() {
    let flags = [
        "--webhook-allow-private",
        "--webhook-poll-interval",
        "200ms",
        "--webhook-retry-schedule",
        "1s,1s,1s",
        "--webhook-timeout",
        "1s",
        "--webhook-concurrency",
        "3",
    ];
    let receiver = Receiver::start().await;
    receiver.set_delay(Duration::from_millis(400));
    let db = TestDb::create().await;
    let mut first = TestApp::spawn_on(db.clone(), &flags).await;
    let key = first.key(PRO, ALL).await;
    let form = published_form(&first, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id").to_owned();
    subscribe(
        &first,
        &key,
        &form_id,
        &receiver.url("/crash"),
        &["form.submitted"],
    )
    .await;
    let path = format!("/forms/{form_id}/responses");
    let mut responses = HashSet::new();
    for n in 0..15 {
        let body = json!({"answers": contact_answers(&field_ids(&form), n)});
        let reply = first.post(&path, &key, &body).await;
        responses.insert(str_of(&reply.ok(201)["response"], "id").to_owned());
    }

    // kill -9 while deliveries are in flight (the receiver is still answering them).
    eventually("deliveries in flight", ARRIVAL, || async {
        (receiver.in_flight() > 0).then_some(())
    })
    .await;
    let pid = first.server.child.id().expect("formsd pid");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(pid).expect("pid")),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("SIGKILL");
    let _ = first.server.child.wait().await;
    let reached: HashSet<String> = receiver
        .hits_at("/crash")
        .iter()
        .map(Hit::delivery_id)
        .collect();
    receiver.set_delay(Duration::ZERO);
    let leased: Vec<(Uuid,)> = sqlx::query_as(
        "SELECT id FROM deliveries WHERE form_id = $1 AND status = 'pending'
            AND locked_until > now()",
    )
    .bind(Uuid::parse_str(&form_id).expect("uuid"))
    .fetch_all(&first.pool)
    .await
    .expect("leased deliveries");
    // Leased: the one being sent at the crash, and those claimed behind it (one
    // webhook's deliveries of one event go one at a time).
    let in_flight: Vec<&Uuid> = leased
        .iter()
        .map(|(id,)| id)
        .filter(|id| reached.contains(&id.to_string()))
        .collect();
    assert!(
        !in_flight.is_empty(),
        "some deliveries were in flight at the crash"
    );

    // A new instance on the same database delivers everything, the leased ones once their
    // lease (timeout × per-account share + 30 s) has expired.
    let second = TestApp::spawn_on(db.clone(), &flags).await;
    let rows = settled(&second, &form_id, 15, Duration::from_secs(60)).await;
    assert!(rows.iter().all(|r| r.2 == "succeeded"), "{rows:?}");
    let hits = receiver.hits_at("/crash");
    let received: HashSet<String> = hits.iter().map(Hit::delivery_id).collect();
    for row in &rows {
        assert!(
            received.contains(&row.0.to_string()),
            "{} never received",
            row.0
        );
    }
    let submitted: HashSet<String> = hits
        .iter()
        .map(|h| {
            h.json()["data"]["responseId"]
                .as_str()
                .expect("id")
                .to_owned()
        })
        .collect();
    assert_eq!(submitted, responses, "every event received at least once");
    for id in in_flight {
        let times = hits
            .iter()
            .filter(|h| h.delivery_id() == id.to_string())
            .count();
        assert!(
            times >= 2,
            "{id}: in flight at the crash, then delivered again"
        );
    }
}

#[tokio::test]
async fn two_instances_deliver_each_delivery_exactly_once() {
    let receiver = Receiver::start().await;
    let db = TestDb::create().await;
    let a = Arc::new(TestApp::spawn_on(db.clone(), DELIVERING).await);
    let b = Arc::new(TestApp::spawn_on(db.clone(), DELIVERING).await);
    let key = a.key(PRO, ALL).await;
    let form = published_form(&a, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id").to_owned();
    subscribe(
        &a,
        &key,
        &form_id,
        &receiver.url("/twice"),
        &["form.submitted"],
    )
    .await;
    let fields = field_ids(&form);

    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..8 {
        let app = if worker % 2 == 0 {
            a.clone()
        } else {
            b.clone()
        };
        let (key, fields, path) = (
            key.clone(),
            fields.clone(),
            format!("/forms/{form_id}/responses"),
        );
        tasks.spawn(async move {
            let mut ids = Vec::new();
            for n in 0..25 {
                let body = json!({"answers": contact_answers(&fields, worker * 100 + n)});
                let reply = app.post(&path, &key, &body).await;
                ids.push(str_of(&reply.ok(201)["response"], "id").to_owned());
            }
            ids
        });
    }
    let mut responses = HashSet::new();
    while let Some(ids) = tasks.join_next().await {
        responses.extend(ids.expect("task"));
    }
    assert_eq!(responses.len(), 200);

    let rows = settled(&a, &form_id, 200, Duration::from_secs(60)).await;
    assert!(
        rows.iter().all(|r| r.2 == "succeeded" && r.3 == 1),
        "one attempt each"
    );
    // Both instances stopped: a graceful stop finishes the attempts in flight and records
    // them, so every attempt either will ever make has been made (and received) by now.
    let pool = a.pool.clone();
    for app in [a, b] {
        let Ok(mut app) = Arc::try_unwrap(app) else {
            panic!("a task still holds an instance");
        };
        assert!(app.server.terminate().await.success());
    }
    let hits = receiver.hits_at("/twice");
    let mut per_delivery: HashMap<String, usize> = HashMap::new();
    for hit in &hits {
        *per_delivery.entry(hit.delivery_id()).or_default() += 1;
    }
    let duplicated: Vec<_> = per_delivery.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        duplicated.is_empty(),
        "delivered more than once: {duplicated:?}"
    );
    assert_eq!(hits.len(), 200);
    let submitted: HashSet<String> = hits
        .iter()
        .map(|h| {
            h.json()["data"]["responseId"]
                .as_str()
                .expect("id")
                .to_owned()
        })
        .collect();
    assert_eq!(submitted, responses);
    let (attempts,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM delivery_attempts t JOIN deliveries d ON d.id = t.delivery_id
          WHERE d.form_id = $1",
    )
    .bind(Uuid::parse_str(&form_id).expect("uuid"))
    .fetch_one(&pool)
    .await
    .expect("counting attempts");
    assert_eq!(attempts, 200);
}

#[tokio::test]
async fn another_accounts_events_never_reach_this_receiver() {
    let receiver = Receiver::start().await;
    let mut app = TestApp::spawn_with(DELIVERING).await;
    let mine = app.key(PRO, ALL).await;
    let theirs = app.key(PRO, ALL).await;
    let every = [
        "form.submitted",
        "form.updated",
        "form.published",
        "form.deleted",
    ];
    let my_form = published_form(&app, &mine, contact_fields(), Value::Null).await;
    let my_id = str_of(&my_form, "id");
    let hook = subscribe(&app, &mine, my_id, &receiver.url("/mine"), &every).await;
    let their_form = published_form(&app, &theirs, contact_fields(), Value::Null).await;
    let their_id = str_of(&their_form, "id");
    subscribe(&app, &theirs, their_id, &receiver.url("/theirs"), &every).await;

    // The other account cannot see, add to or remove this form's subscriptions.
    app.get(&hooks(my_id), &theirs)
        .await
        .error(404, "NOT_FOUND");
    let body = json!({"name": "x", "url": receiver.url("/sneaky"), "events": every});
    app.post(&hooks(my_id), &theirs, &body)
        .await
        .error(404, "NOT_FOUND");
    let one = format!("{}/{}", hooks(my_id), str_of(&hook, "id"));
    app.delete(&one, &theirs).await.error(404, "NOT_FOUND");
    let one = format!("{}/{}", hooks(their_id), str_of(&hook, "id"));
    app.delete(&one, &theirs).await.error(404, "NOT_FOUND");

    // Their activity: submissions, an update, a deletion.
    let their_path = format!("/forms/{their_id}/responses");
    for n in 0..3 {
        let body = json!({"answers": contact_answers(&field_ids(&their_form), n)});
        app.post(&their_path, &theirs, &body).await.ok(201);
    }
    app.put(
        &format!("/forms/{their_id}"),
        &theirs,
        &json!({"settings": {"confirmation_message": "theirs"}}),
    )
    .await
    .ok(200);
    let body = json!({"answers": contact_answers(&field_ids(&my_form), 1)});
    app.post(&format!("/forms/{my_id}/responses"), &theirs, &body)
        .await
        .error(404, "NOT_FOUND");
    let reply = app.delete(&format!("/forms/{their_id}"), &theirs).await;
    assert_eq!(reply.status, 204);
    // Mine: one submission.
    let mine_response = app
        .post(&format!("/forms/{my_id}/responses"), &mine, &body)
        .await
        .ok(201)["response"]
        .clone();

    settled(&app, their_id, 5, ARRIVAL).await;
    settled(&app, my_id, 1, ARRIVAL).await;
    let theirs_hits = receiver.wait_for("/theirs", 5, ARRIVAL).await;
    assert!(theirs_hits.iter().all(|h| h.json()["formId"] == their_id));
    let mine_hits = receiver.hits_at("/mine");
    assert_eq!(mine_hits.len(), 1, "only this account's event");
    let p = mine_hits[0].json();
    assert_eq!(p["formId"], my_id);
    assert_eq!(p["data"]["responseId"], mine_response["id"]);
    assert!(receiver.hits_at("/sneaky").is_empty());
    assert_eq!(receiver.hits().len(), 6);
    let secret = str_of(&hook, "secret").to_owned();
    assert_not_logged(&mut app, &secret).await;
}

#[tokio::test]
async fn only_a_2xx_answer_acknowledges() {
    let receiver = Receiver::start().await;
    receiver.set_status(302);
    let app = TestApp::spawn_with(DELIVERING).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id");
    subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/ack"),
        &["form.submitted"],
    )
    .await;
    let body = json!({"answers": contact_answers(&field_ids(&form), 1)});
    app.post(&format!("/forms/{form_id}/responses"), &key, &body)
        .await
        .ok(201);

    let delivery = eventually("the first attempt", ARRIVAL, || async {
        let rows = deliveries_of(&app, form_id).await;
        let row = rows.first()?.clone();
        (row.3 >= 1).then_some(row)
    })
    .await;
    receiver.set_status(204);
    assert_eq!(
        delivery.2, "pending",
        "a redirect is not an acknowledgement"
    );
    assert_eq!(attempts_of(&app, delivery.0).await[0].0, Some(302));
    let rows = settled(&app, form_id, 1, ARRIVAL).await;
    assert_eq!(rows[0].2, "succeeded", "204 acknowledges");
    assert_eq!(
        attempts_of(&app, delivery.0)
            .await
            .last()
            .expect("attempt")
            .0,
        Some(204)
    );
    // The redirect was not followed anywhere else.
    assert!(receiver.hits().iter().all(|h| h.path == "/ack"));
}

/// An http:// URL on loopback where nothing listens (connections are refused).
fn dead_url(path: &str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binding");
    let port = listener.local_addr().expect("address").port();
    drop(listener);
    format!("http://127.0.0.1:{port}{path}")
}

#[tokio::test]
async fn deleting_a_subscription_stops_its_pending_retries() {
    let receiver = Receiver::start().await;
    receiver.set_status(500);
    let app = TestApp::spawn_with(DELIVERING).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id");
    let hook = subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/gone"),
        &["form.submitted"],
    )
    .await;
    let body = json!({"answers": contact_answers(&field_ids(&form), 1)});
    app.post(&format!("/forms/{form_id}/responses"), &key, &body)
        .await
        .ok(201);
    receiver.wait_for("/gone", 1, ARRIVAL).await;
    let path = format!("{}/{}", hooks(form_id), str_of(&hook, "id"));
    assert_eq!(app.delete(&path, &key).await.status, 204);
    let after_delete = receiver.hits_at("/gone").len();
    receiver.set_status(200);
    // Only a pending delivery is claimed, and the delete took the subscription's.
    let (pending,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM deliveries WHERE webhook_id = $1::uuid AND status = 'pending'",
    )
    .bind(str_of(&hook, "id"))
    .fetch_one(&app.pool)
    .await
    .expect("pending deliveries");
    assert_eq!(pending, 0);
    assert_eq!(
        receiver.hits_at("/gone").len(),
        after_delete,
        "a deleted subscription gets no more attempts"
    );
}

#[tokio::test]
async fn deactivating_a_subscription_stops_its_pending_retries() {
    let receiver = Receiver::start().await;
    receiver.set_status(500);
    let app = TestApp::spawn_with(DELIVERING).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id");
    let hook = subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/off"),
        &["form.submitted"],
    )
    .await;
    let body = json!({"answers": contact_answers(&field_ids(&form), 1)});
    app.post(&format!("/forms/{form_id}/responses"), &key, &body)
        .await
        .ok(201);
    receiver.wait_for("/off", 1, ARRIVAL).await;
    formsd_cli(
        &app.db.url,
        &[
            "webhooks",
            "update",
            str_of(&hook, "id"),
            "--active",
            "false",
        ],
    )
    .await;
    let after_deactivation = receiver.hits_at("/off").len();
    receiver.set_status(200);
    let [(delivery, ..)] = deliveries_of(&app, form_id).await[..] else {
        panic!("one delivery");
    };
    // Its retry falls due (read from its row)...
    eventually("the retry is due", ARRIVAL, || async {
        let (due,): (bool,) =
            sqlx::query_as("SELECT next_attempt_at <= now() FROM deliveries WHERE id = $1")
                .bind(delivery)
                .fetch_one(&app.pool)
                .await
                .expect("reading the delivery");
        due.then_some(())
    })
    .await;
    // ...then an active subscription's delivery falls due after it: the claim that sends
    // that one had the paused one due too, and passed it by.
    subscribe(
        &app,
        &key,
        form_id,
        &receiver.url("/on"),
        &["form.submitted"],
    )
    .await;
    let body = json!({"answers": contact_answers(&field_ids(&form), 2)});
    app.post(&format!("/forms/{form_id}/responses"), &key, &body)
        .await
        .ok(201);
    receiver.wait_for("/on", 1, ARRIVAL).await;
    assert_eq!(
        receiver.hits_at("/off").len(),
        after_deactivation,
        "an inactive subscription receives nothing, retries included"
    );
    let rows = deliveries_of(&app, form_id).await;
    let paused = rows.iter().find(|r| r.0 == delivery).expect("still there");
    // Each attempt is one hit: none was made and lost on its way either.
    assert_eq!(
        (paused.2.as_str(), paused.3 as usize),
        ("pending", after_deactivation)
    );
}

#[tokio::test]
async fn operator_retry_after_fixing_the_url_goes_to_the_new_url() {
    let receiver = Receiver::start().await;
    let app = TestApp::spawn_with(DELIVERING).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id");
    let hook = subscribe(&app, &key, form_id, &dead_url("/old"), &["form.submitted"]).await;
    let hook_id = str_of(&hook, "id");
    let body = json!({"answers": contact_answers(&field_ids(&form), 1)});
    app.post(&format!("/forms/{form_id}/responses"), &key, &body)
        .await
        .ok(201);
    let rows = settled(&app, form_id, 1, Duration::from_secs(30)).await;
    assert_eq!((rows[0].2.as_str(), rows[0].3), ("failed", 4));
    let errors = attempts_of(&app, rows[0].0).await;
    assert!(
        errors.iter().all(|a| a.0.is_none()),
        "connections refused: {errors:?}"
    );

    // The operator points the subscription at a working receiver and retries.
    let new_url = receiver.url("/new");
    let out = formsd_cli(
        &app.db.url,
        &[
            "webhooks",
            "update",
            hook_id,
            "--url",
            &new_url,
            "--allow-private",
        ],
    )
    .await;
    assert!(out.contains(&new_url), "{out}");
    formsd_cli(&app.db.url, &["webhooks", "retry", &rows[0].0.to_string()]).await;
    let rows = settled(&app, form_id, 1, Duration::from_secs(30)).await;
    assert_eq!(
        rows[0].2, "succeeded",
        "the retried delivery reached the new URL"
    );
    assert_eq!(receiver.hits_at("/new").len(), 1);
}

#[tokio::test]
async fn sigterm_does_not_wait_past_the_shutdown_timeout_and_leaves_the_attempt_to_retry() {
    // A receiver slower than the shutdown timeout (and than the test's patience).
    let receiver = Receiver::start().await;
    receiver.set_delay(Duration::from_secs(120));
    let mut app = TestApp::spawn_with(&[
        "--webhook-allow-private",
        "--webhook-poll-interval",
        "200ms",
        "--webhook-timeout",
        "150s",
        "--shutdown-timeout",
        "1s",
    ])
    .await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id").to_owned();
    subscribe(
        &app,
        &key,
        &form_id,
        &receiver.url("/slow"),
        &["form.submitted"],
    )
    .await;
    let body = json!({"answers": contact_answers(&field_ids(&form), 1)});
    app.post(&format!("/forms/{form_id}/responses"), &key, &body)
        .await
        .ok(201);
    eventually("the attempt in flight", ARRIVAL, || async {
        (receiver.in_flight() > 0).then_some(())
    })
    .await;

    // terminate() gives up after 30 s: far less than the receiver's 120 s.
    let status = app.server.terminate().await;
    assert!(status.success(), "exit {status:?}\n{}", app.logs().text());
    assert!(
        app.logs().text().contains("did not finish in time"),
        "{}",
        app.logs().text()
    );
    // The unfinished attempt was not recorded as an outcome: the delivery is still due.
    let statuses: Vec<(String,)> =
        sqlx::query_as("SELECT status FROM deliveries WHERE form_id = $1")
            .bind(Uuid::parse_str(&form_id).expect("uuid"))
            .fetch_all(&app.pool)
            .await
            .expect("deliveries");
    assert_eq!(statuses, [("pending".to_owned(),)]);
}

#[tokio::test]
async fn a_receiver_answering_without_end_costs_only_the_recorded_start() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // A receiver that answers 200 with a body that never ends.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = sent.clone();
    let (hung_up, mut closed) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let counter = counter.clone();
            let hung_up = hung_up.clone();
            tokio::spawn(async move {
                let mut head = [0u8; 65536];
                let _ = stream.read(&mut head).await;
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n")
                    .await;
                let chunk = vec![b'x'; 64 * 1024];
                while stream.write_all(&chunk).await.is_ok() {
                    counter.fetch_add(chunk.len(), Ordering::Relaxed);
                }
                let _ = hung_up.send(true);
            });
        }
    });
    let app = TestApp::spawn_with(&[
        "--webhook-allow-private",
        "--webhook-poll-interval",
        "200ms",
    ])
    .await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = str_of(&form, "id").to_owned();
    let url = format!("http://{addr}/endless");
    subscribe(&app, &key, &form_id, &url, &["form.submitted"]).await;
    let body = json!({"answers": contact_answers(&field_ids(&form), 1)});
    app.post(&format!("/forms/{form_id}/responses"), &key, &body)
        .await
        .ok(201);
    // Recorded as delivered, with the first 1 KiB of the answer.
    let recorded: (String, Option<i32>, String) =
        eventually("the attempt recorded", ARRIVAL, || async {
            sqlx::query_as(
                "SELECT d.status, a.status_code, a.response_body
               FROM deliveries d JOIN delivery_attempts a ON a.delivery_id = d.id
              WHERE d.form_id = $1",
            )
            .bind(Uuid::parse_str(&form_id).expect("uuid"))
            .fetch_optional(&app.pool)
            .await
            .expect("attempts")
        })
        .await;
    assert_eq!(recorded.0, "succeeded");
    assert_eq!(recorded.1, Some(200));
    assert_eq!(recorded.2, "x".repeat(1024));
    // The worker hung up (the receiver's writes fail): what the receiver could push is
    // what the socket buffers took, far from "everything until the time-out".
    tokio::time::timeout(ARRIVAL, closed.wait_for(|c| *c))
        .await
        .expect("the worker hangs up")
        .expect("the receiver");
    let pushed = sent.load(Ordering::Relaxed);
    assert!(pushed < 32 * 1024 * 1024, "{pushed} bytes pushed");
}

#[tokio::test]
async fn a_form_has_at_most_twenty_webhooks() {
    let app = TestApp::spawn_with(&["--webhook-allow-private"]).await;
    let key = app.key(PRO, ALL).await;
    let form = app.create_form(&key, &json!({"title": "Fan-out"})).await;
    let form_id = str_of(&form, "id").to_owned();
    let path = hooks(&form_id);
    let body = |n: usize| json!({"name": format!("h{n}"), "url": format!("http://127.0.0.1:9/h{n}"), "events": ["form.submitted"]});
    for n in 0..20 {
        app.post(&path, &key, &body(n)).await.ok(201);
    }
    let error = app
        .post(&path, &key, &body(20))
        .await
        .error(422, "VALIDATION_ERROR")
        .clone();
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("at most 20")),
        "{error}"
    );
    // Room again once one is deleted.
    let listed = app.get(&path, &key).await.ok(200)["webhooks"].clone();
    let first = str_of(&listed[0], "id").to_owned();
    assert_eq!(
        app.delete(&format!("{path}/{first}"), &key).await.status,
        204
    );
    app.post(&path, &key, &body(21)).await.ok(201);
}

/// Flags of the fairness test: 4 slots per process, at most 2 of them for one account,
/// and a time-out well above the slow receiver's delay (its deliveries succeed).
const FAIR: &[&str] = &[
    "--webhook-allow-private",
    "--webhook-poll-interval",
    "200ms",
    "--webhook-timeout",
    "10s",
    "--webhook-concurrency",
    "4",
    "--webhook-concurrency-per-account",
    "2",
];

#[tokio::test]
async fn a_slow_tenant_cannot_starve_the_others_deliveries() {
    // The slow tenant: 30 deliveries (10 events to 3 subscriptions, each sending its
    // own one at a time) to a receiver taking 3 s each. First come first served, they
    // would hold 3 of the 4 slots for 10 * 3 s = 30 s.
    let slow = Arc::new(Receiver::start().await);
    slow.set_delay(Duration::from_secs(3));
    let fast = Receiver::start().await;
    let app = TestApp::spawn_with(FAIR).await;
    let slow_key = app.key(PRO, ALL).await;
    let fast_key = app.key(PRO, ALL).await;
    let slow_form = published_form(&app, &slow_key, contact_fields(), Value::Null).await;
    let slow_id = str_of(&slow_form, "id").to_owned();
    for _ in 0..3 {
        subscribe(
            &app,
            &slow_key,
            &slow_id,
            &slow.url("/slow"),
            &["form.submitted"],
        )
        .await;
    }
    let fast_form = published_form(&app, &fast_key, contact_fields(), Value::Null).await;
    let fast_id = str_of(&fast_form, "id").to_owned();
    subscribe(
        &app,
        &fast_key,
        &fast_id,
        &fast.url("/fast"),
        &["form.submitted"],
    )
    .await;

    // The slow tenant's in-flight count at its receiver, sampled all along.
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    let sampler = {
        let slow = slow.clone();
        tokio::spawn(async move {
            let mut most = 0;
            while !*stopped.borrow() {
                most = most.max(slow.in_flight());
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(10)) => {}
                    _ = stopped.changed() => {}
                }
            }
            most
        })
    };

    let slow_path = format!("/forms/{slow_id}/responses");
    for n in 0..10 {
        let body = json!({"answers": contact_answers(&field_ids(&slow_form), n)});
        app.post(&slow_path, &slow_key, &body).await.ok(201);
    }
    eventually(
        "the slow tenant's deliveries in flight",
        ARRIVAL,
        || async { (slow.in_flight() > 0).then_some(()) },
    )
    .await;

    // The fast tenant's events, one after the other, while the slow backlog is worked.
    let fast_path = format!("/forms/{fast_id}/responses");
    let mut delays = Vec::new();
    for n in 0..3 {
        let body = json!({"answers": contact_answers(&field_ids(&fast_form), n)});
        let sent = std::time::Instant::now();
        app.post(&fast_path, &fast_key, &body).await.ok(201);
        // Generous: long enough to measure first-come-first-served, which takes ≈ 30 s.
        fast.wait_for("/fast", n + 1, Duration::from_secs(60)).await;
        delays.push(sent.elapsed());
    }
    eprintln!("fast tenant: delivery delays {delays:?} while the slow tenant's backlog is worked");
    let (pending,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM deliveries WHERE form_id = $1 AND status = 'pending'")
            .bind(Uuid::parse_str(&slow_id).expect("uuid"))
            .fetch_one(&app.pool)
            .await
            .expect("counting the slow backlog");
    eprintln!("slow tenant: {pending} of 30 deliveries still pending");
    // Every fast delivery arrived while most of the slow backlog was still waiting: first
    // come first served would have sent the slow tenant's 30 first. How long the fast
    // tenant waits is a speed, measured by `cargo bench --bench webhooks`, not asserted.
    assert!(
        pending >= 10,
        "the fast tenant's deliveries waited for the slow backlog ({pending} of 30 left)"
    );

    // A little longer, to see the slow tenant keep at its cap as slots free up.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let _ = stop.send(true);
    let most = sampler.await.expect("sampler");
    eprintln!("slow tenant: at most {most} deliveries in flight at its receiver");
    assert!(
        most <= 2,
        "the slow tenant had {most} in flight, over its cap of 2"
    );
    assert_eq!(most, 2, "the slow tenant uses its whole share");
}
