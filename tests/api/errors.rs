//! SPEC "Errors" and the headers every reply carries: the envelope on unknown routes and
//! methods, X-RateLimit-* and X-Request-Id on successes and errors alike.

use crate::harness::*;
use ::forms::accounts::Plan;
use serde_json::json;
use std::collections::HashSet;

#[tokio::test]
async fn unknown_route_is_404_envelope() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app.create_form(&key, &json!({"title": "F"})).await;
    let id = form["id"].as_str().expect("id");
    let root = app.http_base.trim_end_matches("/api/v1").to_owned();
    let urls = [
        format!("{}/nope", app.http_base),
        format!("{}/forms/{id}/nothing-here", app.http_base),
        format!("{}/forms/", app.http_base),
        format!("{}/FORMS", app.http_base),
        format!("{root}/api/v2/forms"),
        format!("{root}/api/v1"),
        format!("{root}/forms"),
    ];
    for url in &urls {
        let reply = send(app.client.get(url).header("x-api-key", &key)).await;
        reply.error(404, "NOT_FOUND");
        let reply = send(
            app.client
                .post(url)
                .header("x-api-key", &key)
                .json(&json!({"title": "x"})),
        )
        .await;
        reply.error(404, "NOT_FOUND");
    }
    // Without a key, authentication comes first.
    for url in &urls {
        send(app.client.get(url))
            .await
            .error(401, "UNAUTHENTICATED");
    }
    // The service's own address is a person's (GET: to the dashboard, see
    // dashboard::the_addresses_people_type_…); any other method there is an unknown
    // route of the API, as before.
    for method in [
        reqwest::Method::POST,
        reqwest::Method::PUT,
        reqwest::Method::DELETE,
    ] {
        send(
            app.client
                .request(method, format!("{root}/"))
                .header("x-api-key", &key),
        )
        .await
        .error(404, "NOT_FOUND");
    }
}

#[tokio::test]
async fn wrong_method_is_405_envelope() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app.create_form(&key, &json!({"title": "F"})).await;
    let form_path = format!("/forms/{}", form["id"].as_str().expect("id"));
    let cases = [
        (Method::PATCH, "/forms".to_owned()),
        (Method::PUT, "/forms".to_owned()),
        (Method::DELETE, "/forms".to_owned()),
        (Method::POST, form_path.clone()),
        (Method::PATCH, form_path.clone()),
        (Method::POST, "/usage".to_owned()),
        (Method::DELETE, "/usage".to_owned()),
    ];
    for (method, path) in &cases {
        let reply = send(
            app.request(method.clone(), path)
                .header("x-api-key", &key)
                .json(&json!({"title": "x"})),
        )
        .await;
        reply.error(405, "METHOD_NOT_ALLOWED");
    }
    for (method, path) in &cases {
        send(app.request(method.clone(), path))
            .await
            .error(401, "UNAUTHENTICATED");
    }
    // Nothing was changed by the refused requests.
    let list = app.get("/forms", &key).await;
    let data = list.ok(200);
    assert_eq!(data["pagination"]["total"], 1);
    assert_eq!(data["forms"][0], form);
}

#[tokio::test]
async fn every_reply_carries_rate_limit_headers_and_a_unique_request_id() {
    let app =
        TestApp::spawn_with(&["--enterprise-rate-limit", "1", "--max-body-bytes", "2048"]).await;
    let key = app.key(PRO, ALL).await;
    let read = app.key(PRO, READ).await;
    let free = app.key(Plan::Free, ALL).await;
    let limited = app.key(Plan::Enterprise, READ).await;
    let form = app.create_form(&key, &json!({"title": "F"})).await;
    let path = format!("/forms/{}", form["id"].as_str().expect("id"));

    let mut replies: Vec<(u16, Reply)> = Vec::new();
    replies.push((200, app.get("/forms", &key).await));
    replies.push((200, app.get("/usage", &key).await));
    replies.push((201, app.post("/forms", &key, &json!({"title": "G"})).await));
    replies.push((200, app.put(&path, &key, &json!({"title": "H"})).await));
    replies.push((401, send(app.request(Method::GET, "/forms")).await));
    replies.push((401, app.get("/forms", "fsk_0000000000000000_wrong").await));
    replies.push((403, app.post("/forms", &read, &json!({"title": "x"})).await));
    replies.push((403, app.get("/forms", &free).await));
    replies.push((404, app.get("/nowhere", &key).await));
    replies.push((
        404,
        app.get(&format!("/forms/{}", uuid::Uuid::new_v4()), &key)
            .await,
    ));
    replies.push((
        405,
        send(
            app.request(Method::PATCH, "/forms")
                .header("x-api-key", &key),
        )
        .await,
    ));
    replies.push((
        413,
        app.post(
            "/forms",
            &key,
            &json!({"title": "x", "description": "y".repeat(4096)}),
        )
        .await,
    ));
    replies.push((
        415,
        send(
            app.request(Method::POST, "/forms")
                .header("x-api-key", &key)
                .header("content-type", "text/plain")
                .body("x"),
        )
        .await,
    ));
    replies.push((
        422,
        send(
            app.request(Method::POST, "/forms")
                .header("x-api-key", &key)
                .header("content-type", "application/json")
                .body("{"),
        )
        .await,
    ));
    replies.push((422, app.get("/usage?days=91", &key).await));
    replies.push((200, app.get("/forms", &limited).await));
    replies.push((429, app.get("/forms", &limited).await));
    replies.push((204, app.delete(&path, &key).await));

    let mut ids = HashSet::new();
    let now = unix_now();
    for (status, reply) in &replies {
        assert_eq!(reply.status, *status, "{}", reply.text);
        reply.assert_common_headers();
        let reset = reply.header_u64("x-ratelimit-reset") as i64;
        assert!(
            reset >= now - 5 && reset <= now + 3600,
            "X-RateLimit-Reset is Unix seconds: {reset}"
        );
        assert!(
            ids.insert(reply.header("x-request-id").to_owned()),
            "X-Request-Id repeated"
        );
        if *status >= 400 {
            assert_eq!(reply.body["success"], false, "{}", reply.text);
            assert!(reply.body["error"]["code"].is_string());
        }
    }
    // Unauthenticated replies show the per-IP failed-auth allowance (60 by default).
    assert_eq!(replies[4].1.header_u64("x-ratelimit-limit"), 60);
    assert_eq!(replies[5].1.header_u64("x-ratelimit-limit"), 60);
    // Keyed replies show the key's plan limit.
    assert_eq!(replies[0].1.header_u64("x-ratelimit-limit"), 1000);
    assert_eq!(replies[16].1.header_u64("x-ratelimit-limit"), 1);
    assert!(replies[16].1.headers.contains_key("retry-after"));
    assert_eq!(
        replies[7].1.header_u64("x-ratelimit-limit"),
        0,
        "free plan: no allowance"
    );
}

#[tokio::test]
async fn request_ids_are_fresh_uuids() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, READ).await;
    let mut ids = HashSet::new();
    for i in 0..20 {
        // A client-sent X-Request-Id does not make two replies share an id.
        let reply = send(
            app.request(Method::GET, "/forms")
                .header("x-api-key", &key)
                .header("x-request-id", "client-chosen-id"),
        )
        .await;
        reply.ok(200);
        let id = assert_uuid(reply.header("x-request-id"));
        assert!(ids.insert(id), "request id repeated at request {i}");
    }
}

#[tokio::test]
async fn replies_are_json() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    for reply in [
        app.get("/forms", &key).await,
        app.post("/forms", &key, &json!({"title": "x"})).await,
        app.get("/usage", &key).await,
        app.get("/nope", &key).await,
    ] {
        let ct = reply.header("content-type");
        assert!(ct.starts_with("application/json"), "content type {ct}");
        assert!(reply.body.is_object(), "{}", reply.text);
    }
}

#[tokio::test]
async fn deeply_nested_json_is_a_validation_error_and_counted() {
    use crate::fixtures::{contact_fields, field_ids, published_form};
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), serde_json::Value::Null).await;
    let fields = field_ids(&form);
    let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
    // Deeper than the gRPC message could carry (prost stops at 100 levels).
    let mut nested = json!("deep");
    for _ in 0..120 {
        nested = json!([nested]);
    }
    let errors = || async {
        app.get("/usage", &key).await.ok(200)["total_errors"]
            .as_i64()
            .expect("total_errors")
    };
    let before = errors().await;
    for body in [
        json!({"answers": {fields[0].clone(): nested.clone(), fields[1].clone(): "a@example.com"}}),
        json!({"answers": {fields[0].clone(): "Ann", fields[1].clone(): "a@example.com"}, "metadata": {"x": nested.clone()}}),
    ] {
        let reply = app.post(&path, &key, &body).await;
        let error = reply.error(422, "VALIDATION_ERROR");
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|m| m.contains("deep")),
            "{error}"
        );
    }
    assert_eq!(
        errors().await,
        before + 2,
        "both refusals are counted as errors"
    );
}

/// Text PostgreSQL cannot store (a NUL character, in a query string, a text property or
/// inside JSON) is the client's input: 422 VALIDATION_ERROR, never a 500. Found by
/// schemathesis (`search=%00`).
#[tokio::test]
async fn a_nul_character_is_a_validation_error() {
    let mut app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app
        .create_form(
            &key,
            &json!({"title": "F", "fields": [{"type": "short_text", "label": "Name"}]}),
        )
        .await;
    let id = form["id"].as_str().expect("id");
    let field = form["fields"][0]["id"].as_str().expect("field id");
    app.put(
        &format!("/forms/{id}"),
        &key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    let replies = [
        app.get("/forms?search=a%00b", &key).await,
        app.post("/forms", &key, &json!({"title": "a\u{0}b"})).await,
        app.post(
            "/forms",
            &key,
            &json!({"title": "T", "settings": {"note": "\u{0}"}}),
        )
        .await,
        app.put(
            &format!("/forms/{id}"),
            &key,
            &json!({"description": "\u{0}"}),
        )
        .await,
        app.post(
            &format!("/forms/{id}/responses"),
            &key,
            &json!({"answers": {field: "x"}, "metadata": {"k": "\u{0}"}}),
        )
        .await,
    ];
    for reply in replies {
        let error = reply.error(422, "VALIDATION_ERROR");
        assert!(
            error["message"].as_str().is_some_and(|m| m.contains("NUL")),
            "{}",
            reply.text
        );
    }
    let logs = app.logs_to_end().await;
    assert!(!logs.contains("internal failure"), "{logs}");
}
