//! Webhooks in the dashboard (`/app/forms/{id}/webhooks`), end to end against the real
//! binary and a receiver on loopback: the secret shown once, the delivery log of a
//! failing receiver, the manual retry, the test event (to one webhook only, signed),
//! editing, CSRF, and isolation of the pages and of the OwnerService methods behind
//! them.

use crate::dashboard_session::*;
use crate::fixtures::*;
use crate::harness::*;
use forms::pb::{self, owner_service_client::OwnerServiceClient};
use serde_json::{Value, json};
use std::time::Duration;
use tonic::Code;

/// Delivering to the loopback receiver quickly, with the operator token for sign-in.
const FLAGS: &[&str] = &[
    "--webhook-allow-private",
    "--webhook-poll-interval",
    "200ms",
    "--webhook-retry-schedule",
    "1s,1s,1s",
    "--webhook-timeout",
    "2s",
    "--admin-token",
    ADMIN_TOKEN,
];

const ARRIVAL: Duration = Duration::from_secs(20);

fn hooks_page(form_id: &str) -> String {
    format!("/app/forms/{form_id}/webhooks")
}

fn hook_page(form_id: &str, hook_id: &str) -> String {
    format!("/app/forms/{form_id}/webhooks/{hook_id}")
}

/// The value of the input `id` of a page.
fn input_value(html: &str, id: &str) -> Option<String> {
    let tag_at = html.find(&format!("id=\"{id}\""))?;
    let tag_start = html[..tag_at].rfind('<')?;
    let tag = &html[tag_start..tag_start + html[tag_start..].find('>')?];
    let at = tag.find("value=\"")? + "value=\"".len();
    Some(tag[at..].split('"').next()?.to_owned())
}

/// The account's webhooks of a form, as the REST API lists them.
async fn rest_hooks(app: &TestApp, key: &str, form_id: &str) -> Vec<Value> {
    app.get(&format!("/forms/{form_id}/webhooks"), key)
        .await
        .ok(200)["webhooks"]
        .as_array()
        .expect("webhooks")
        .clone()
}

/// (status, attempts) of a delivery.
async fn delivery_row(app: &TestApp, id: &str) -> (String, i32) {
    sqlx::query_as("SELECT status, attempts FROM deliveries WHERE id = $1")
        .bind(uuid::Uuid::parse_str(id).expect("uuid"))
        .fetch_one(&app.pool)
        .await
        .expect("reading a delivery")
}

/// The ids of a webhook's deliveries, newest first.
async fn delivery_ids(app: &TestApp, hook_id: &str) -> Vec<String> {
    let rows: Vec<(uuid::Uuid,)> = sqlx::query_as(
        "SELECT id FROM deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, id DESC",
    )
    .bind(uuid::Uuid::parse_str(hook_id).expect("uuid"))
    .fetch_all(&app.pool)
    .await
    .expect("reading deliveries");
    rows.into_iter().map(|(id,)| id.to_string()).collect()
}

/// Waits until the log page shows `needle`; returns the page.
async fn log_shows(dash: &Dashboard, path: &str, needle: &str) -> String {
    eventually(&format!("{path} showing {needle}"), ARRIVAL, || async {
        let page = dash.get(path).await;
        assert_eq!(page.status, 200, "{}", page.text);
        page.text.contains(needle).then_some(page.text)
    })
    .await
}

fn assert_signed(hit: &Hit, secret: &str) {
    assert_eq!(
        hit.header("x-webhook-signature"),
        spec_signature(secret, &hit.body)
    );
    assert_eq!(
        hit.header("webhook-signature"),
        standard_signature(
            secret,
            hit.header("webhook-id"),
            hit.header("webhook-timestamp"),
            &hit.body
        )
    );
}

#[tokio::test]
async fn an_owner_creates_watches_retries_tests_and_edits_a_webhook() {
    let receiver = Receiver::start().await;
    receiver.set_status(500);
    let app = TestApp::spawn_with(FLAGS).await;
    let key = app.new_key(PRO, ALL).await;
    let form = published_form(&app, &key.key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let dash = signed_in(&app, &key.account).await;

    let empty = dash.get(&hooks_page(&form_id)).await;
    assert_eq!(empty.status, 200, "{}", empty.text);
    assert!(empty.text.contains("no webhook yet"), "{}", empty.text);

    // Created from the page: the secret is in the reply to the post, once.
    let created = dash
        .post(
            &hooks_page(&form_id),
            &[
                ("name", "CRM"),
                ("url", &receiver.url("/hook")),
                ("events", "form.submitted"),
            ],
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.text);
    assert!(
        created.text.contains("will not be shown again"),
        "{}",
        created.text
    );
    assert!(created.text.contains("data-copy=\"webhook-secret\""));
    let secret = input_value(&created.text, "webhook-secret").expect("the secret on the page");
    assert!(secret.starts_with("whsec_"), "{secret}");
    let listed = rest_hooks(&app, &key.key, &form_id).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["name"], "CRM");
    assert_eq!(listed[0]["events"], json!(["form.submitted"]));
    let hook_id = listed[0]["id"].as_str().expect("id").to_owned();
    let log_path = hook_page(&form_id, &hook_id);
    for later in [
        dash.get(&hooks_page(&form_id)).await,
        dash.get(&log_path).await,
    ] {
        assert_eq!(later.status, 200);
        assert!(later.text.contains("CRM"));
        assert!(
            !later.text.contains(&secret),
            "the secret is shown once only"
        );
        assert!(!later.text.contains("whsec_"));
    }

    // A failing receiver: the log shows the failed attempts, each a 500.
    app.post(
        &format!("/forms/{form_id}/responses"),
        &key.key,
        &json!({"answers": contact_answers(&field_ids(&form), 1)}),
    )
    .await
    .ok(201);
    let page = log_shows(&dash, &log_path, "badge failed").await;
    assert_eq!(
        page.matches("<td class=\"status-code\">500</td>").count(),
        4,
        "{page}"
    );
    assert!(page.contains("<pre>receiver says hi</pre>"), "{page}");
    assert!(page.contains("receiver answered 500"), "{page}");
    let delivery = delivery_ids(&app, &hook_id).await.remove(0);
    assert!(
        page.contains(&format!("/deliveries/{delivery}/retry")),
        "a Retry button"
    );
    assert_eq!(
        delivery_row(&app, &delivery).await,
        ("failed".to_owned(), 4)
    );
    let retry_path = format!("{log_path}/deliveries/{delivery}/retry");

    // Mended; a retry without the CSRF token (or with another) changes nothing.
    receiver.set_status(200);
    for fields in [vec![], vec![("_csrf", "forged")]] {
        let refused = dash.post_raw(&retry_path, &fields).await;
        assert_eq!(refused.status, 403, "{}", refused.text);
    }
    // A retry moves the row in its request, and only a pending row is ever sent: the
    // row still failed means nothing was retried (and the real retry below, which
    // takes failed rows only, succeeds).
    assert_eq!(
        delivery_row(&app, &delivery).await,
        ("failed".to_owned(), 4)
    );
    assert_eq!(receiver.hits_at("/hook").len(), 4);

    // Retry: delivered, and the log shows it.
    let retried = dash.post(&retry_path, &[]).await;
    assert_eq!(retried.status, 303, "{}", retried.text);
    assert_eq!(
        Some(retried.header("location")),
        Some(format!("{log_path}?done=retried").as_str())
    );
    let hits = receiver.wait_for("/hook", 5, ARRIVAL).await;
    assert_eq!(hits[4].delivery_id(), delivery);
    assert_signed(&hits[4], &secret);
    let page = log_shows(&dash, &log_path, "badge succeeded").await;
    assert!(
        page.contains("<td class=\"status-code\">200</td>"),
        "{page}"
    );
    // Only a failed delivery is retried.
    let again = dash.post(&retry_path, &[]).await;
    assert_eq!(again.status, 422, "{}", again.text);
    assert!(
        again.text.to_lowercase().contains("only failed deliveries"),
        "{}",
        again.text
    );

    // The test event reaches this webhook only, signed, whatever events it lists.
    let other = subscribe(
        &app,
        &key.key,
        &form_id,
        &receiver.url("/other"),
        &[
            "form.submitted",
            "response.received",
            "form.updated",
            "form.published",
            "form.deleted",
            "quiz.completed",
        ],
    )
    .await;
    let tested = dash.post(&format!("{log_path}/test"), &[]).await;
    assert_eq!(tested.status, 303, "{}", tested.text);
    assert_eq!(
        Some(tested.header("location")),
        Some(format!("{log_path}?done=test").as_str())
    );
    let hits = receiver.wait_for("/hook", 6, ARRIVAL).await;
    let test = &hits[5];
    assert_eq!(test.event(), "webhook.test");
    assert_eq!(test.json()["event"], "webhook.test");
    assert_eq!(test.json()["formId"], form_id.as_str());
    assert_eq!(test.json()["data"]["webhookId"], hook_id.as_str());
    assert_signed(test, &secret);
    let done = dash.get(&format!("{log_path}?done=test")).await;
    assert!(
        done.text.contains("A test event was queued"),
        "{}",
        done.text
    );
    log_shows(&dash, &log_path, "<code>webhook.test</code>").await;
    // The test event's deliveries are written by its request: none for the other
    // webhook, so none can be sent to it.
    let other_id = other["id"].as_str().expect("id");
    assert!(delivery_ids(&app, other_id).await.is_empty());
    assert_eq!(delivery_ids(&app, &hook_id).await.len(), 2);
    assert!(
        receiver.hits_at("/other").is_empty(),
        "the other webhook got nothing"
    );

    // Edit: name, URL, events and active (unchecked: paused).
    let saved = dash
        .post(
            &log_path,
            &[
                ("name", "Renamed"),
                ("url", &receiver.url("/moved")),
                ("events", "form.published"),
                ("events", "quiz.completed"),
            ],
        )
        .await;
    assert_eq!(saved.status, 303, "{}", saved.text);
    assert_eq!(
        Some(saved.header("location")),
        Some(format!("{log_path}?done=saved").as_str())
    );
    let listed = rest_hooks(&app, &key.key, &form_id).await;
    let hook = listed
        .iter()
        .find(|h| h["id"] == hook_id.as_str())
        .expect("still there");
    assert_eq!(hook["name"], "Renamed");
    assert_eq!(hook["url"], receiver.url("/moved"));
    assert_eq!(hook["events"], json!(["form.published", "quiz.completed"]));
    assert_eq!(hook["is_active"], false);
    let resumed = dash
        .post(
            &log_path,
            &[
                ("name", "Renamed"),
                ("url", &receiver.url("/moved")),
                ("events", "form.published"),
                ("is_active", "on"),
            ],
        )
        .await;
    assert_eq!(resumed.status, 303, "{}", resumed.text);
    let listed = rest_hooks(&app, &key.key, &form_id).await;
    let hook = listed
        .iter()
        .find(|h| h["id"] == hook_id.as_str())
        .expect("still there");
    assert_eq!(
        (hook["is_active"].clone(), hook["events"].clone()),
        (json!(true), json!(["form.published"]))
    );

    // Bad input: a page that says what to fix, and nothing changed.
    for (fields, what) in [
        (
            vec![
                ("name", "X"),
                ("url", "ftp://example.com/"),
                ("events", "form.published"),
            ],
            "url",
        ),
        (
            vec![
                ("name", "X"),
                ("url", "https://93.184.216.34/h"),
                ("events", "form.created"),
            ],
            "events",
        ),
        (
            vec![
                ("name", ""),
                ("url", "https://93.184.216.34/h"),
                ("events", "form.published"),
            ],
            "name",
        ),
        (
            vec![("name", "X"), ("url", "https://93.184.216.34/h")],
            "events",
        ),
    ] {
        let refused = dash.post(&log_path, &fields).await;
        assert_eq!(refused.status, 422, "{what}: {}", refused.text);
        assert!(refused.text.contains("class=\"error\""), "{what}");
    }
    let created = dash
        .post(
            &hooks_page(&form_id),
            &[
                ("name", "Bad"),
                ("url", "not a url"),
                ("events", "form.submitted"),
            ],
        )
        .await;
    assert_eq!(created.status, 422, "{}", created.text);
    assert!(!created.text.contains("whsec_"));
    let listed = rest_hooks(&app, &key.key, &form_id).await;
    assert_eq!(listed.len(), 2);
    assert!(
        listed
            .iter()
            .any(|h| h["name"] == "Renamed" && h["events"] == json!(["form.published"]))
    );

    // Delete.
    let deleted = dash.post(&format!("{log_path}/delete"), &[]).await;
    assert_eq!(deleted.status, 303, "{}", deleted.text);
    let listed = rest_hooks(&app, &key.key, &form_id).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(dash.get(&log_path).await.status, 404);
}

#[tokio::test]
async fn another_accounts_session_gets_404_and_changes_nothing() {
    let receiver = Receiver::start().await;
    receiver.set_status(500);
    let app = TestApp::spawn_with(FLAGS).await;
    let key = app.new_key(PRO, ALL).await;
    let form = published_form(&app, &key.key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let hook = subscribe(
        &app,
        &key.key,
        &form_id,
        &receiver.url("/hook"),
        &["form.submitted"],
    )
    .await;
    let hook_id = hook["id"].as_str().expect("id").to_owned();
    let owner = signed_in(&app, &key.account).await;
    let log_path = hook_page(&form_id, &hook_id);
    assert_eq!(
        owner.post(&format!("{log_path}/test"), &[]).await.status,
        303
    );
    log_shows(&owner, &log_path, "badge failed").await;
    let delivery = delivery_ids(&app, &hook_id).await.remove(0);

    let intruder_key = app.new_key(PRO, ALL).await;
    let intruder_form = app
        .create_form(&intruder_key.key, &json!({"title": "Theirs"}))
        .await;
    let intruder_form_id = intruder_form["id"].as_str().expect("id").to_owned();
    let intruder = signed_in(&app, &intruder_key.account).await;
    let edit = [
        ("name", "Taken"),
        ("url", "https://93.184.216.34/x"),
        ("events", "form.published"),
        ("is_active", "on"),
    ];
    let hits = receiver.hits().len();
    // The owner's form and webhook, and the owner's webhook under the intruder's form.
    for (form, what) in [
        (form_id.as_str(), "owner's form"),
        (intruder_form_id.as_str(), "own form"),
    ] {
        let path = hook_page(form, &hook_id);
        if form == form_id {
            assert_eq!(
                intruder.get(&hooks_page(form)).await.status,
                404,
                "list, {what}"
            );
            let created = intruder
                .post(
                    &hooks_page(form),
                    &[
                        ("name", "Mine"),
                        ("url", &receiver.url("/x")),
                        ("events", "form.submitted"),
                    ],
                )
                .await;
            assert_eq!(created.status, 404, "create, {what}");
        }
        assert_eq!(intruder.get(&path).await.status, 404, "log, {what}");
        assert_eq!(
            intruder.post(&path, &edit).await.status,
            404,
            "edit, {what}"
        );
        assert_eq!(
            intruder.post(&format!("{path}/test"), &[]).await.status,
            404,
            "test, {what}"
        );
        let retry = format!("{path}/deliveries/{delivery}/retry");
        assert_eq!(
            intruder.post(&retry, &[]).await.status,
            404,
            "retry, {what}"
        );
        assert_eq!(
            intruder.post(&format!("{path}/delete"), &[]).await.status,
            404,
            "delete, {what}"
        );
    }
    // Nothing changed.
    let listed = rest_hooks(&app, &key.key, &form_id).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["name"], hook["name"]);
    assert_eq!(listed[0]["is_active"], true);
    assert_eq!(
        delivery_ids(&app, &hook_id).await,
        std::slice::from_ref(&delivery)
    );
    assert_eq!(
        delivery_row(&app, &delivery).await,
        ("failed".to_owned(), 4)
    );
    // Nothing is pending, so nothing can be sent.
    let (pending,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM deliveries WHERE status = 'pending'")
            .fetch_one(&app.pool)
            .await
            .expect("pending deliveries");
    assert_eq!(pending, 0);
    assert_eq!(receiver.hits().len(), hits);

    // The same at the gRPC level: NOT_FOUND for each of the four methods.
    let mut core = OwnerServiceClient::new(channel(&app).await);
    for form in [form_id.as_str(), intruder_form_id.as_str()] {
        let codes = [
            core.update_own_webhook(intruder.grpc_changing(update_request(form, &hook_id)))
                .await
                .err(),
            core.list_own_deliveries(intruder.grpc_changing(list_request(form, &hook_id)))
                .await
                .err(),
            core.retry_own_delivery(
                intruder.grpc_changing(retry_request(form, &hook_id, &delivery)),
            )
            .await
            .err(),
            core.send_test_event(intruder.grpc_changing(test_request(form, &hook_id)))
                .await
                .err(),
        ];
        for (i, status) in codes.into_iter().enumerate() {
            let status =
                status.unwrap_or_else(|| panic!("method {i} succeeded for another account"));
            assert_eq!(status.code(), Code::NotFound, "method {i}: {status:?}");
        }
    }
    // A delivery of another of the owner's webhooks is not this webhook's.
    let second = subscribe(
        &app,
        &key.key,
        &form_id,
        &receiver.url("/second"),
        &["form.published"],
    )
    .await;
    let second_id = second["id"].as_str().expect("id");
    let status = core
        .retry_own_delivery(owner.grpc_changing(retry_request(&form_id, second_id, &delivery)))
        .await
        .expect_err("a delivery of another webhook");
    assert_eq!(status.code(), Code::NotFound, "{status:?}");
    assert_eq!(
        delivery_row(&app, &delivery).await,
        ("failed".to_owned(), 4)
    );

    // The owner's session may; an API key (even the owner's, with every scope) may not.
    let listed = core
        .list_own_deliveries(owner.grpc_changing(list_request(&form_id, &hook_id)))
        .await
        .expect("the owner lists the deliveries")
        .into_inner();
    assert_eq!(listed.deliveries.len(), 1);
    assert_eq!(listed.deliveries[0].attempts.len(), 4);
    assert_eq!(listed.deliveries[0].attempts[0].status_code, Some(500));
    let codes = [
        core.update_own_webhook(grpc_request(update_request(&form_id, &hook_id), &key.key))
            .await
            .err(),
        core.list_own_deliveries(grpc_request(list_request(&form_id, &hook_id), &key.key))
            .await
            .err(),
        core.retry_own_delivery(grpc_request(
            retry_request(&form_id, &hook_id, &delivery),
            &key.key,
        ))
        .await
        .err(),
        core.send_test_event(grpc_request(test_request(&form_id, &hook_id), &key.key))
            .await
            .err(),
    ];
    for (i, status) in codes.into_iter().enumerate() {
        let status = status.unwrap_or_else(|| panic!("method {i} accepted an API key"));
        assert_eq!(
            status.code(),
            Code::PermissionDenied,
            "method {i}: {status:?}"
        );
    }
    // A session without the CSRF token may read but not change.
    let mut bare = tonic::Request::new(test_request(&form_id, &hook_id));
    bare.metadata_mut().insert(
        "x-dashboard-session",
        owner.session().parse().expect("metadata"),
    );
    let status = core.send_test_event(bare).await.expect_err("no CSRF token");
    assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
    assert_eq!(delivery_ids(&app, &hook_id).await.len(), 1);
    let listed = rest_hooks(&app, &key.key, &form_id).await;
    assert!(listed.iter().all(|h| h["name"] != "Taken"));
}

fn update_request(form_id: &str, hook_id: &str) -> pb::UpdateOwnWebhookRequest {
    pb::UpdateOwnWebhookRequest {
        form_id: form_id.to_owned(),
        webhook_id: hook_id.to_owned(),
        webhook: Some(pb::Webhook {
            name: "Taken".to_owned(),
            ..Default::default()
        }),
        update_mask: Some(prost_types::FieldMask {
            paths: vec!["name".to_owned()],
        }),
    }
}

fn list_request(form_id: &str, hook_id: &str) -> pb::ListOwnDeliveriesRequest {
    pb::ListOwnDeliveriesRequest {
        form_id: form_id.to_owned(),
        webhook_id: hook_id.to_owned(),
        page: None,
        per_page: None,
    }
}

fn retry_request(form_id: &str, hook_id: &str, delivery: &str) -> pb::RetryOwnDeliveryRequest {
    pb::RetryOwnDeliveryRequest {
        form_id: form_id.to_owned(),
        webhook_id: hook_id.to_owned(),
        delivery_id: delivery.to_owned(),
    }
}

fn test_request(form_id: &str, hook_id: &str) -> pb::SendTestEventRequest {
    pb::SendTestEventRequest {
        form_id: form_id.to_owned(),
        webhook_id: hook_id.to_owned(),
    }
}
