//! SPEC Idempotency for POST /forms and POST /forms/:form_id/responses, with the book's
//! decisions: replays are byte-identical and flagged, keys are per account, expire after
//! --idempotency-ttl, hold under concurrency, only successes are remembered; the gRPC
//! creates honour `idempotency-key` metadata.

use crate::fixtures::*;
use crate::harness::*;
use forms::pb;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

const REPLAYED: &str = "idempotent-replayed";

async fn post_idem(app: &TestApp, path: &str, key: &str, idem: &str, body: &Value) -> Reply {
    send(
        app.request(Method::POST, path)
            .header("x-api-key", key)
            .header("Idempotency-Key", idem)
            .json(body),
    )
    .await
}

fn replayed(reply: &Reply) -> Option<&str> {
    reply
        .headers
        .get(REPLAYED)
        .map(|v| v.to_str().expect("header is text"))
}

/// Asserts `retry` replays `first`: same status, identical body, the replay header.
fn assert_replay(first: &Reply, retry: &Reply) {
    assert_eq!(replayed(first), None, "a first reply is not a replay");
    assert_eq!(retry.status, first.status, "{}", retry.text);
    assert_eq!(retry.text, first.text, "the replayed body is identical");
    assert_eq!(replayed(retry), Some("true"));
    retry.assert_common_headers();
}

async fn forms_of(app: &TestApp, account: &str) -> i64 {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM forms f JOIN accounts a ON a.id = f.account_id WHERE a.name = $1",
    )
    .bind(account)
    .fetch_one(&app.pool)
    .await
    .expect("counting forms");
    n
}

async fn responses_of(app: &TestApp, form_id: &str) -> i64 {
    count(
        app,
        "SELECT count(*) FROM responses WHERE form_id = $1",
        form_id,
    )
    .await
}

fn idem_key() -> String {
    Uuid::new_v4().to_string()
}

#[tokio::test]
async fn form_create_retry_replays_the_first_reply() {
    let app = TestApp::spawn().await;
    let key = app.new_key(PRO, ALL).await;
    let k = idem_key();
    let body = json!({"title": "Contact", "description": "d", "fields": contact_fields()});
    let first = post_idem(&app, "/forms", &key.key, &k, &body).await;
    let form = first.ok(201)["form"].clone();
    let retry = post_idem(&app, "/forms", &key.key, &k, &body).await;
    assert_replay(&first, &retry);
    assert_eq!(retry.ok(201)["form"]["id"], form["id"]);
    // The same body with its keys in another order is the same request.
    let reordered = json!({"fields": contact_fields(), "description": "d", "title": "Contact"});
    let again = post_idem(&app, "/forms", &key.key, &k, &reordered).await;
    assert_replay(&first, &again);
    assert_eq!(forms_of(&app, &key.account).await, 1, "no second form");
    // Without a key, every POST creates.
    app.create_form(&key.key, &body).await;
    assert_eq!(forms_of(&app, &key.account).await, 2);
}

#[tokio::test]
async fn response_create_retry_replays_the_first_reply() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id");
    let path = format!("/forms/{form_id}/responses");
    let body = json!({"answers": contact_answers(&field_ids(&form), 1), "metadata": {"a": 1}});
    let k = idem_key();
    let first = post_idem(&app, &path, &key, &k, &body).await;
    let id = first.ok(201)["response"]["id"].clone();
    for _ in 0..3 {
        let retry = post_idem(&app, &path, &key, &k, &body).await;
        assert_replay(&first, &retry);
        assert_eq!(retry.ok(201)["response"]["id"], id);
    }
    assert_eq!(responses_of(&app, form_id).await, 1, "no second response");
    let list = app.get(&path, &key).await;
    assert_eq!(list.ok(200)["pagination"]["total"], 1);
}

#[tokio::test]
async fn same_key_with_another_body_or_endpoint_is_refused() {
    let app = TestApp::spawn().await;
    let key = app.new_key(PRO, ALL).await;
    let form = published_form(&app, &key.key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id");
    let path = format!("/forms/{form_id}/responses");
    let fields = field_ids(&form);
    let forms_before = forms_of(&app, &key.account).await;

    // Forms: another title.
    let k = idem_key();
    post_idem(&app, "/forms", &key.key, &k, &json!({"title": "A"}))
        .await
        .ok(201);
    let reply = post_idem(&app, "/forms", &key.key, &k, &json!({"title": "B"})).await;
    reply.error(422, "VALIDATION_ERROR");
    assert_eq!(replayed(&reply), None);
    // The same key on the other endpoint.
    let answers = json!({"answers": contact_answers(&fields, 1)});
    post_idem(&app, &path, &key.key, &k, &answers)
        .await
        .error(422, "VALIDATION_ERROR");
    assert_eq!(forms_of(&app, &key.account).await, forms_before + 1);
    assert_eq!(responses_of(&app, form_id).await, 0);

    // Responses: other answers, another form.
    let k = idem_key();
    post_idem(&app, &path, &key.key, &k, &answers).await.ok(201);
    let other_answers = json!({"answers": contact_answers(&fields, 2)});
    post_idem(&app, &path, &key.key, &k, &other_answers)
        .await
        .error(422, "VALIDATION_ERROR");
    let other = published_form(&app, &key.key, contact_fields(), Value::Null).await;
    let other_path = format!("/forms/{}/responses", other["id"].as_str().expect("id"));
    let other_body = json!({"answers": contact_answers(&field_ids(&other), 1)});
    post_idem(&app, &other_path, &key.key, &k, &other_body)
        .await
        .error(422, "VALIDATION_ERROR");
    post_idem(&app, "/forms", &key.key, &k, &json!({"title": "A"}))
        .await
        .error(422, "VALIDATION_ERROR");
    assert_eq!(responses_of(&app, form_id).await, 1);
    let other_id = other["id"].as_str().expect("id");
    assert_eq!(responses_of(&app, other_id).await, 0);

    // Keys are at most 255 characters.
    let long = "k".repeat(256);
    post_idem(&app, &path, &key.key, &long, &answers)
        .await
        .error(422, "VALIDATION_ERROR");
    let longest = "k".repeat(255);
    let first = post_idem(&app, &path, &key.key, &longest, &answers).await;
    first.ok(201);
    let retry = post_idem(&app, &path, &key.key, &longest, &answers).await;
    assert_replay(&first, &retry);
    assert_eq!(responses_of(&app, form_id).await, 2);
}

#[tokio::test]
async fn keys_are_scoped_to_the_account() {
    let app = TestApp::spawn().await;
    let a = app.new_key(PRO, ALL).await;
    let b = app.new_key(PRO, ALL).await;
    let k = "shared-key-1";
    let body = json!({"title": "Same"});
    // Two accounts use the same key independently.
    let ra = post_idem(&app, "/forms", &a.key, k, &body).await;
    let rb = post_idem(&app, "/forms", &b.key, k, &body).await;
    assert_eq!(replayed(&ra), None);
    assert_eq!(replayed(&rb), None);
    assert_ne!(ra.ok(201)["form"]["id"], rb.ok(201)["form"]["id"]);
    // Another body under the same key is fine in another account.
    let rb2 = post_idem(&app, "/forms", &b.key, "shared-key-2", &body).await;
    rb2.ok(201);
    let ra2 = post_idem(
        &app,
        "/forms",
        &a.key,
        "shared-key-2",
        &json!({"title": "Other"}),
    )
    .await;
    assert_eq!(replayed(&ra2), None);
    ra2.ok(201);

    // Two keys of one account share them.
    let a2 = app.key_for(&a.account, PRO, WRITE).await;
    let retry = post_idem(&app, "/forms", &a2.key, k, &body).await;
    assert_replay(&ra, &retry);
    post_idem(&app, "/forms", &a2.key, k, &json!({"title": "Different"}))
        .await
        .error(422, "VALIDATION_ERROR");
    assert_eq!(forms_of(&app, &a.account).await, 2);
    assert_eq!(forms_of(&app, &b.account).await, 2);
}

#[tokio::test]
async fn keys_expire_after_the_ttl() {
    let app = TestApp::spawn_with(&["--idempotency-ttl", "2s"]).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id");
    let path = format!("/forms/{form_id}/responses");
    let body = json!({"answers": contact_answers(&field_ids(&form), 1)});
    let k = idem_key();

    let first = post_idem(&app, &path, &key, &k, &body).await;
    let started = std::time::Instant::now();
    let first_id = first.ok(201)["response"]["id"].clone();
    let retry = post_idem(&app, &path, &key, &k, &body).await;
    assert_replay(&first, &retry);

    // Past the TTL the key starts a fresh request.
    tokio::time::sleep(Duration::from_millis(2300).saturating_sub(started.elapsed())).await;
    let fresh = post_idem(&app, &path, &key, &k, &body).await;
    assert_eq!(replayed(&fresh), None, "{}", fresh.text);
    let fresh_id = fresh.ok(201)["response"]["id"].clone();
    assert_ne!(fresh_id, first_id);
    assert_eq!(responses_of(&app, form_id).await, 2);
    // ...which is remembered in turn, with a body of its own.
    let retry = post_idem(&app, &path, &key, &k, &body).await;
    assert_replay(&fresh, &retry);
    let other = json!({"answers": contact_answers(&field_ids(&form), 2)});
    post_idem(&app, &path, &key, &k, &other)
        .await
        .error(422, "VALIDATION_ERROR");
    assert_eq!(responses_of(&app, form_id).await, 2);
}

#[tokio::test]
async fn concurrent_requests_with_one_key_create_one_object() {
    let app = Arc::new(TestApp::spawn().await);
    let key = app.new_key(PRO, ALL).await;
    let form = published_form(&app, &key.key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let response_path = format!("/forms/{form_id}/responses");
    let response_body = json!({"answers": contact_answers(&field_ids(&form), 1)});
    let forms_before = forms_of(&app, &key.account).await;

    for (path, body, object) in [
        (response_path.clone(), response_body, "response"),
        ("/forms".to_owned(), json!({"title": "Raced"}), "form"),
    ] {
        let k = idem_key();
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..10 {
            let (app, path, body, key, k) = (
                app.clone(),
                path.clone(),
                body.clone(),
                key.key.clone(),
                k.clone(),
            );
            tasks.spawn(async move { post_idem(&app, &path, &key, &k, &body).await });
        }
        let mut replies = Vec::new();
        while let Some(reply) = tasks.join_next().await {
            replies.push(reply.expect("task"));
        }
        let ids: Vec<Value> = replies
            .iter()
            .map(|r| r.ok(201)[object]["id"].clone())
            .collect();
        assert!(ids.iter().all(|id| *id == ids[0]), "one {object}: {ids:?}");
        let originals: Vec<&Reply> = replies.iter().filter(|r| replayed(r).is_none()).collect();
        assert_eq!(
            originals.len(),
            1,
            "exactly one {object} create is not a replay"
        );
        for reply in &replies {
            if replayed(reply).is_some() {
                assert_replay(originals[0], reply);
            }
        }
    }
    assert_eq!(responses_of(&app, &form_id).await, 1);
    assert_eq!(forms_of(&app, &key.account).await, forms_before + 1);
}

#[tokio::test]
async fn failed_requests_are_not_remembered() {
    let app = TestApp::spawn().await;
    let key = app.new_key(PRO, ALL).await;
    let draft = app
        .create_form(
            &key.key,
            &json!({"title": "Draft", "fields": contact_fields()}),
        )
        .await;
    let form_id = draft["id"].as_str().expect("id");
    let path = format!("/forms/{form_id}/responses");
    let body = json!({"answers": contact_answers(&field_ids(&draft), 1)});
    let k = idem_key();
    for _ in 0..2 {
        let reply = post_idem(&app, &path, &key.key, &k, &body).await;
        reply.error(422, "FORM_NOT_PUBLISHED");
        assert_eq!(replayed(&reply), None);
    }
    app.put(
        &format!("/forms/{form_id}"),
        &key.key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    let created = post_idem(&app, &path, &key.key, &k, &body).await;
    assert_eq!(replayed(&created), None, "{}", created.text);
    created.ok(201);
    let retry = post_idem(&app, &path, &key.key, &k, &body).await;
    assert_replay(&created, &retry);
    assert_eq!(responses_of(&app, form_id).await, 1);

    // A refused form create leaves the key free for another body.
    let k = idem_key();
    let bad = json!({"title": "Bad", "fields": [{"type": "hologram", "label": "X"}]});
    post_idem(&app, "/forms", &key.key, &k, &bad)
        .await
        .error(422, "VALIDATION_ERROR");
    let good = post_idem(&app, "/forms", &key.key, &k, &json!({"title": "Good"})).await;
    assert_eq!(replayed(&good), None);
    assert_eq!(good.ok(201)["form"]["title"], "Good");
}

#[tokio::test]
async fn grpc_creates_honour_idempotency_key_metadata() {
    use pb::forms_service_client::FormsServiceClient;
    use pb::responses_service_client::ResponsesServiceClient;

    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let Value::Object(answers) = contact_answers(&field_ids(&form), 1) else {
        unreachable!()
    };
    let message = pb::CreateResponseRequest {
        form_id: form_id.clone(),
        answers: Some(pb::convert::object_to_struct(&answers)),
        metadata: None,
    };
    let k = idem_key();
    let request = |message: pb::CreateResponseRequest| {
        let mut request = grpc_request(message, &key);
        request
            .metadata_mut()
            .insert("idempotency-key", k.parse().expect("metadata"));
        request
    };
    let mut client = ResponsesServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("gRPC connection");
    let first = client
        .create_response(request(message.clone()))
        .await
        .expect("CreateResponse");
    assert!(first.metadata().get(REPLAYED).is_none());
    let retry = client
        .create_response(request(message.clone()))
        .await
        .expect("CreateResponse retry");
    assert_eq!(
        retry
            .metadata()
            .get(REPLAYED)
            .map(|v| v.to_str().expect("text")),
        Some("true")
    );
    assert_eq!(retry.get_ref(), first.get_ref(), "the same reply");
    let id = first
        .get_ref()
        .response
        .as_ref()
        .expect("response")
        .id
        .clone();

    // Another message under the key is refused.
    let mut other = message.clone();
    other.metadata = Some(pb::convert::object_to_struct(
        json!({"x": 1}).as_object().expect("object"),
    ));
    let status = client
        .create_response(request(other))
        .await
        .expect_err("another request under the key");
    assert_eq!(status.code(), tonic::Code::InvalidArgument);

    // REST and gRPC share the records: the same request over REST is a replay.
    let path = format!("/forms/{form_id}/responses");
    let rest = post_idem(&app, &path, &key, &k, &json!({"answers": answers})).await;
    assert_eq!(replayed(&rest), Some("true"), "{}", rest.text);
    assert_eq!(rest.ok(201)["response"]["id"], id.as_str());
    assert_eq!(responses_of(&app, &form_id).await, 1);

    // CreateForm too.
    let mut forms = FormsServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("gRPC connection");
    let k2 = idem_key();
    let form_request = || {
        let mut request = grpc_request(
            pb::CreateFormRequest {
                title: "Over gRPC".into(),
                ..Default::default()
            },
            &key,
        );
        request
            .metadata_mut()
            .insert("idempotency-key", k2.parse().expect("metadata"));
        request
    };
    let a = forms.create_form(form_request()).await.expect("CreateForm");
    let b = forms
        .create_form(form_request())
        .await
        .expect("CreateForm retry");
    assert!(a.metadata().get(REPLAYED).is_none());
    assert_eq!(
        b.metadata()
            .get(REPLAYED)
            .map(|v| v.to_str().expect("text")),
        Some("true")
    );
    assert_eq!(a.get_ref(), b.get_ref());
}
