//! SPEC Responses and the book's decisions on responses: create (shape, validation,
//! closing rules, monthly quota), list (page mode, cursor mode, keyset paging while rows
//! arrive, a full export), get and delete; and the same service over gRPC.

use crate::fixtures::*;
use crate::harness::*;
use forms::pb;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// An app, a Pro key with every scope, and a published contact form.
struct Setup {
    app: TestApp,
    key: TestKey,
    form_id: String,
    fields: Vec<String>,
}

impl Setup {
    async fn new(extra: &[&str]) -> Setup {
        let app = TestApp::spawn_with(extra).await;
        let key = app.new_key(PRO, ALL).await;
        let form = published_form(&app, &key.key, contact_fields(), Value::Null).await;
        Setup {
            form_id: form["id"].as_str().expect("form id").to_owned(),
            fields: field_ids(&form),
            app,
            key,
        }
    }

    fn path(&self) -> String {
        format!("/forms/{}/responses", self.form_id)
    }

    async fn post(&self, body: &Value) -> Reply {
        self.app.post(&self.path(), &self.key.key, body).await
    }

    /// Creates response number `n` and returns it (data.response).
    async fn create(&self, n: usize) -> Value {
        let body = json!({"answers": contact_answers(&self.fields, n)});
        self.post(&body).await.ok(201)["response"].clone()
    }

    /// Creates `n` responses one after the other; returns their ids in creation order.
    async fn create_many(&self, n: usize) -> Vec<String> {
        let mut ids = Vec::with_capacity(n);
        for i in 0..n {
            ids.push(id_of(&self.create(i).await));
        }
        ids
    }

    /// GET the responses list with query parameters.
    async fn list(&self, query: &[(&str, &str)]) -> Reply {
        self.app
            .get(&with_query(&self.path(), query), &self.key.key)
            .await
    }

    /// Rows of this form in the database.
    async fn rows(&self) -> i64 {
        count(
            &self.app,
            "SELECT count(*) FROM responses WHERE form_id = $1",
            &self.form_id,
        )
        .await
    }
}

fn id_of(response: &Value) -> String {
    response["id"].as_str().expect("response id").to_owned()
}

fn ids_of(data: &Value) -> Vec<String> {
    data["responses"]
        .as_array()
        .expect("responses array")
        .iter()
        .map(id_of)
        .collect()
}

fn reversed(ids: &[String]) -> Vec<String> {
    ids.iter().rev().cloned().collect()
}

/// Pages through a form's responses by cursor; `between` runs after each page that has
/// a next cursor. Returns the ids in the order seen.
async fn page_by_cursor<F, Fut>(
    s: &Setup,
    sort: &str,
    per_page: &str,
    mut between: F,
) -> Vec<String>
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut seen = Vec::new();
    let mut cursor = String::new();
    for page in 0.. {
        assert!(page < 10_000, "cursor paging does not end");
        let reply = s
            .list(&[("cursor", &cursor), ("sort", sort), ("per_page", per_page)])
            .await;
        let data = reply.ok(200);
        seen.extend(ids_of(data));
        match data["pagination"]["next_cursor"].as_str() {
            Some(next) => {
                cursor = next.to_owned();
                between(page).await;
            }
            None => break,
        }
    }
    seen
}

fn assert_no_duplicates(ids: &[String]) {
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "duplicates in a listing");
}

// ---------------------------------------------------------------------------------------
// Create
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn create_answers_201_with_the_stored_response() {
    let s = Setup::new(&[]).await;
    let f = &s.fields;
    let body = json!({
        "answers": {f[0].clone(): "Ada", f[1].clone(): "ada@example.com", f[3].clone(): null},
        "metadata": {"campaign": "spring", "source": "browser", "nested": {"a": [1, 2]}},
    });
    let before = chrono::Utc::now() - chrono::Duration::seconds(5);
    let reply = s.post(&body).await;
    let after = chrono::Utc::now() + chrono::Duration::seconds(5);
    let r = reply.ok(201)["response"].clone();
    assert_eq!(
        keys_of(&r),
        [
            "answers",
            "browser",
            "completion_time_seconds",
            "device_type",
            "form_id",
            "id",
            "last_page",
            "metadata",
            "os",
            "started_at",
            "status",
            "submitted_at"
        ]
    );
    assert_uuid(r["id"].as_str().expect("id"));
    assert_eq!(r["form_id"], s.form_id.as_str());
    // Unanswered optional fields (null) are left out.
    assert_eq!(
        r["answers"],
        json!({f[0].clone(): "Ada", f[1].clone(): "ada@example.com"})
    );
    // Client metadata is kept; source is always "api".
    assert_eq!(
        r["metadata"],
        json!({"campaign": "spring", "source": "api", "nested": {"a": [1, 2]}})
    );
    for null in ["device_type", "browser", "os", "completion_time_seconds"] {
        assert_eq!(r[null], Value::Null, "{null} of an API response");
    }
    let started = assert_timestamp(&r["started_at"]);
    let submitted = assert_timestamp(&r["submitted_at"]);
    assert_eq!(started, submitted, "API responses start when submitted");
    assert!(
        before < submitted && submitted < after,
        "submitted_at {submitted}"
    );

    // What GET answers is what create answered.
    let got = s
        .app
        .get(&format!("{}/{}", s.path(), id_of(&r)), &s.key.key)
        .await;
    assert_eq!(got.ok(200)["response"], r);
    assert_eq!(s.rows().await, 1);
}

/// Posts `body` and expects 422 VALIDATION_ERROR; returns the message.
async fn refused(s: &Setup, body: &Value) -> String {
    let reply = s.post(body).await;
    let error = reply.error(422, "VALIDATION_ERROR");
    error["message"].as_str().expect("message").to_owned()
}

#[tokio::test]
async fn create_refuses_invalid_requests() {
    let s = Setup::new(&[]).await;
    let f = s.fields.clone();
    let valid = contact_answers(&f, 1);
    let raw = |content_type: Option<&str>, body: &str| {
        let mut request = s
            .app
            .request(Method::POST, &s.path())
            .header("x-api-key", &s.key.key)
            .body(body.to_owned());
        if let Some(ct) = content_type {
            request = request.header("content-type", ct);
        }
        request
    };
    let valid_text = json!({"answers": valid}).to_string();

    // Media type.
    send(raw(Some("text/plain"), &valid_text))
        .await
        .error(415, "UNSUPPORTED_MEDIA_TYPE");
    send(raw(None, &valid_text))
        .await
        .error(415, "UNSUPPORTED_MEDIA_TYPE");
    // Malformed JSON, and JSON that is not an object.
    send(raw(Some("application/json"), "{\"answers\": {"))
        .await
        .error(422, "VALIDATION_ERROR");
    send(raw(Some("application/json"), "[1, 2]"))
        .await
        .error(422, "VALIDATION_ERROR");

    // answers: required, an object.
    assert!(refused(&s, &json!({})).await.contains("answers"));
    assert!(
        refused(&s, &json!({"metadata": {}}))
            .await
            .contains("answers")
    );
    for bad in [json!("x"), json!([]), json!(1), json!(null)] {
        let message = refused(&s, &json!({"answers": bad})).await;
        assert!(message.contains("answers"), "{message}");
    }
    // metadata must be an object too.
    let message = refused(&s, &json!({"answers": valid, "metadata": "x"})).await;
    assert!(message.contains("metadata"), "{message}");

    // An unknown field id is named.
    let stranger = uuid::Uuid::new_v4().to_string();
    let mut answers = valid.clone();
    answers[&stranger] = json!("who?");
    let message = refused(&s, &json!({"answers": answers})).await;
    assert!(message.contains(&stranger), "{message}");
    let mut answers = valid.clone();
    answers["not-a-uuid"] = json!("x");
    refused(&s, &json!({"answers": answers})).await;

    // Required fields: missing, blank, null.
    let message = refused(&s, &json!({"answers": {f[0].clone(): "Ada"}})).await;
    assert!(
        message.contains(&f[1]),
        "names the missing field: {message}"
    );
    for blank in [json!(""), json!("   "), json!(null)] {
        let message = refused(
            &s,
            &json!({"answers": {f[0].clone(): blank, f[1].clone(): "a@example.com"}}),
        )
        .await;
        assert!(message.contains(&f[0]), "{message}");
    }

    // Field rules: email, text type and length.
    for email in ["not-an-email", "a@b", "a b@example.com", "@example.com"] {
        let message = refused(
            &s,
            &json!({"answers": {f[0].clone(): "Ada", f[1].clone(): email}}),
        )
        .await;
        assert!(message.contains(&f[1]), "{email}: {message}");
    }
    refused(
        &s,
        &json!({"answers": {f[0].clone(): 5, f[1].clone(): "a@example.com"}}),
    )
    .await;
    let message = refused(
        &s,
        &json!({"answers": {f[0].clone(): "x".repeat(1001), f[1].clone(): "a@example.com"}}),
    )
    .await;
    assert!(message.contains("1000"), "{message}");
    let message = refused(
        &s,
        &json!({"answers": {f[0].clone(): "Ada", f[1].clone(): "a@example.com", f[3].clone(): "y".repeat(20_001)}}),
    )
    .await;
    assert!(message.contains(&f[3]), "{message}");
    assert_eq!(s.rows().await, 0, "no refused request stored anything");

    // At the limits it is accepted.
    let ok = s
        .post(&json!({"answers": {
            f[0].clone(): "é".repeat(1000),
            f[1].clone(): "a@example.com",
            f[3].clone(): "y".repeat(20_000),
        }}))
        .await;
    ok.ok(201);
    assert_eq!(s.rows().await, 1);
}

#[tokio::test]
async fn null_metadata_counts_as_absent() {
    let s = Setup::new(&[]).await;
    let body = json!({"answers": contact_answers(&s.fields, 0), "metadata": null});
    let response = s.post(&body).await.ok(201)["response"].clone();
    assert_eq!(response["metadata"], json!({"source": "api"}));
}

#[tokio::test]
async fn number_answers_are_stored_as_numbers() {
    let s = Setup::new(&[]).await;
    let f = s.fields.clone();
    let age = f[2].clone();
    for (sent, stored) in [
        (json!("42"), json!(42)),
        (json!(" 7 "), json!(7)),
        (json!("3.5"), json!(3.5)),
        (json!(19), json!(19)),
        (json!(-2.25), json!(-2.25)),
    ] {
        let mut answers = contact_answers(&f, 1);
        answers[&age] = sent.clone();
        let r = s.post(&json!({"answers": answers})).await.ok(201)["response"].clone();
        assert_eq!(r["answers"][&age], stored, "{sent} answered");
        let got = s
            .app
            .get(&format!("{}/{}", s.path(), id_of(&r)), &s.key.key)
            .await;
        assert_eq!(got.ok(200)["response"]["answers"][&age], stored);
    }
    let (numbers,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM responses WHERE form_id = $1 AND jsonb_typeof(answers -> $2) = 'number'",
    )
    .bind(uuid::Uuid::parse_str(&s.form_id).expect("uuid"))
    .bind(&age)
    .fetch_one(&s.app.pool)
    .await
    .expect("counting numbers");
    assert_eq!(numbers, 5, "every age is stored as a JSON number");
    for bad in [json!("forty"), json!("4 2"), json!(true), json!("NaN")] {
        let mut answers = contact_answers(&f, 1);
        answers[&age] = bad;
        let message = refused(&s, &json!({"answers": answers})).await;
        assert!(message.contains(&age), "{message}");
    }
}

#[tokio::test]
async fn only_published_open_forms_take_responses() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let fields = json!([{"type": "short_text", "label": "Name", "required": true}]);
    let submit = |form: &Value| {
        let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
        let body = json!({"answers": {field_ids(form)[0].clone(): "Ada"}});
        let app = &app;
        let key = key.clone();
        async move { app.post(&path, &key, &body).await }
    };

    // Draft.
    let draft = app
        .create_form(&key, &json!({"title": "Draft", "fields": fields}))
        .await;
    submit(&draft).await.error(422, "FORM_NOT_PUBLISHED");

    // Archived (after having been published).
    let archived = published_form(&app, &key, fields.clone(), Value::Null).await;
    submit(&archived).await.ok(201);
    let path = format!("/forms/{}", archived["id"].as_str().expect("id"));
    app.put(&path, &key, &json!({"status": "archived"}))
        .await
        .ok(200);
    submit(&archived).await.error(422, "FORM_NOT_PUBLISHED");

    // closes_at in the past: closed; in the future: open.
    let closed = published_form(
        &app,
        &key,
        fields.clone(),
        json!({"closes_at": "2020-01-01T00:00:00Z"}),
    )
    .await;
    submit(&closed).await.error(422, "FORM_CLOSED");
    let open = published_form(
        &app,
        &key,
        fields.clone(),
        json!({"closes_at": "2999-01-01T00:00:00Z"}),
    )
    .await;
    submit(&open).await.ok(201);

    // max_responses reached: closed.
    let capped = published_form(&app, &key, fields.clone(), json!({"max_responses": 2})).await;
    submit(&capped).await.ok(201);
    submit(&capped).await.ok(201);
    submit(&capped).await.error(422, "FORM_CLOSED");
    submit(&capped).await.error(422, "FORM_CLOSED");

    for (form, rows) in [(&draft, 0), (&archived, 1), (&closed, 0), (&capped, 2)] {
        let n = count(
            &app,
            "SELECT count(*) FROM responses WHERE form_id = $1",
            form["id"].as_str().expect("id"),
        )
        .await;
        assert_eq!(n, rows, "rows of {}", form["id"]);
    }
}

// ---------------------------------------------------------------------------------------
// Quota
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn monthly_response_quota_is_per_account_across_forms() {
    let app = TestApp::spawn_with(&["--pro-response-limit", "3"]).await;
    let key = app.key(PRO, ALL).await;
    let a = published_form(&app, &key, contact_fields(), Value::Null).await;
    let b = published_form(&app, &key, contact_fields(), Value::Null).await;
    let post = |form: &Value, n: usize| {
        let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
        let body = json!({"answers": contact_answers(&field_ids(form), n)});
        let app = &app;
        let key = key.clone();
        async move { app.post(&path, &key, &body).await }
    };
    let first = post(&a, 1).await.ok(201)["response"].clone();
    post(&b, 2).await.ok(201);
    post(&a, 3).await.ok(201);
    post(&b, 4).await.error(403, "RESPONSE_LIMIT_REACHED");
    post(&a, 5).await.error(403, "RESPONSE_LIMIT_REACHED");

    // Deleting a response does not give quota back.
    let path = format!(
        "/forms/{}/responses/{}",
        a["id"].as_str().unwrap(),
        id_of(&first)
    );
    assert_eq!(app.delete(&path, &key).await.status, 204);
    post(&a, 6).await.error(403, "RESPONSE_LIMIT_REACHED");

    // Another account has its own quota.
    let other = app.key(PRO, ALL).await;
    let c = published_form(&app, &other, contact_fields(), Value::Null).await;
    let path = format!("/forms/{}/responses", c["id"].as_str().expect("id"));
    let body = json!({"answers": contact_answers(&field_ids(&c), 1)});
    app.post(&path, &other, &body).await.ok(201);
}

#[tokio::test]
async fn response_quota_holds_under_concurrent_creates() {
    let app = Arc::new(TestApp::spawn_with(&["--pro-response-limit", "5"]).await);
    let key = app.new_key(PRO, ALL).await;
    // Two forms, so that the form row lock does not serialise every create.
    let forms = [
        published_form(&app, &key.key, contact_fields(), Value::Null).await,
        published_form(&app, &key.key, contact_fields(), Value::Null).await,
    ];
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..20 {
        let form = &forms[i % 2];
        let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
        let body = json!({"answers": contact_answers(&field_ids(form), i)});
        let (app, key) = (app.clone(), key.key.clone());
        tasks.spawn(async move { app.post(&path, &key, &body).await });
    }
    let (mut created, mut refused) = (0, 0);
    while let Some(reply) = tasks.join_next().await {
        let reply = reply.expect("task");
        match reply.status {
            201 => created += 1,
            _ => {
                reply.error(403, "RESPONSE_LIMIT_REACHED");
                refused += 1;
            }
        }
    }
    assert_eq!((created, refused), (5, 15));
    let (rows,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM responses r JOIN forms f ON f.id = r.form_id
          JOIN accounts a ON a.id = f.account_id WHERE a.name = $1",
    )
    .bind(&key.account)
    .fetch_one(&app.pool)
    .await
    .expect("counting rows");
    assert_eq!(rows, 5);
}

#[tokio::test]
async fn response_quota_holds_across_instances() {
    // Two instances, each batching its own creates: the quota is one conditional
    // update in the database, so together they never store more than it allows.
    let first = Arc::new(TestApp::spawn_with(&["--pro-response-limit", "7"]).await);
    let second =
        Arc::new(TestApp::spawn_on(first.db.clone(), &["--pro-response-limit", "7"]).await);
    let key = first.new_key(PRO, ALL).await;
    let form = published_form(&first, &key.key, contact_fields(), Value::Null).await;
    let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..40 {
        let app = if i % 2 == 0 {
            first.clone()
        } else {
            second.clone()
        };
        let body = json!({"answers": contact_answers(&field_ids(&form), i)});
        let (key, path) = (key.key.clone(), path.clone());
        tasks.spawn(async move { app.post(&path, &key, &body).await });
    }
    let mut created = 0;
    while let Some(reply) = tasks.join_next().await {
        let reply = reply.expect("task");
        if reply.status == 201 {
            created += 1;
        } else {
            reply.error(403, "RESPONSE_LIMIT_REACHED");
        }
    }
    assert_eq!(created, 7);
    let (rows,): (i64,) = sqlx::query_as("SELECT count(*) FROM responses WHERE form_id = $1::uuid")
        .bind(form["id"].as_str().expect("id"))
        .fetch_one(&first.pool)
        .await
        .expect("count");
    assert_eq!(rows, 7);
}

#[tokio::test]
async fn concurrent_creates_on_one_form_are_judged_one_by_one_and_stored_in_order() {
    // Creates that arrive together on one form share a transaction (one lock, one
    // commit): each is still judged alone, in arrival order, against the quota too.
    let app = Arc::new(TestApp::spawn_with(&["--pro-response-limit", "40"]).await);
    let key = app.new_key(PRO, ALL).await;
    let form = published_form(&app, &key.key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let path = format!("/forms/{form_id}/responses");
    let fields = field_ids(&form);
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..64 {
        // Every eighth has an answer its field refuses; every sixteenth metadata the
        // database refuses (a NUL), which aborts its transaction: the others are stored
        // without it.
        let mut answers = contact_answers(&fields, i);
        if i % 8 == 7 {
            answers[&fields[1]] = json!("not an email");
        }
        let mut body = json!({ "answers": answers });
        if i % 16 == 3 {
            body["metadata"] = json!({"note": "a\u{0}b"});
        }
        let (app, key, path) = (app.clone(), key.key.clone(), path.clone());
        tasks.spawn(async move { app.post(&path, &key, &body).await });
    }
    let (mut created, mut invalid, mut refused) = (0, 0, 0);
    while let Some(reply) = tasks.join_next().await {
        let reply = reply.expect("task");
        match reply.status {
            201 => created += 1,
            422 => {
                reply.error(422, "VALIDATION_ERROR");
                invalid += 1;
            }
            _ => {
                reply.error(403, "RESPONSE_LIMIT_REACHED");
                refused += 1;
            }
        }
    }
    // Answers are judged before the quota (8 always invalid); a NUL is found by the
    // insert, after the quota: 422 while quota remains, 403 once it is used up.
    assert_eq!(created, 40);
    assert_eq!(invalid + refused, 24);
    assert!((8..=12).contains(&invalid), "{invalid} invalid");
    let stored: Vec<(chrono::DateTime<chrono::Utc>,)> = sqlx::query_as(
        "SELECT submitted_at FROM responses WHERE form_id = $1::uuid ORDER BY submitted_at, id",
    )
    .bind(&form_id)
    .fetch_all(&app.pool)
    .await
    .expect("responses");
    assert_eq!(stored.len(), 40);
    assert!(
        stored.windows(2).all(|w| w[0].0 < w[1].0),
        "submission times are distinct and increasing"
    );
    let (count,): (i64,) = sqlx::query_as("SELECT response_count FROM forms WHERE id = $1::uuid")
        .bind(&form_id)
        .fetch_one(&app.pool)
        .await
        .expect("form");
    assert_eq!(
        count, 40,
        "the form's counter moved once per stored response"
    );
}

#[tokio::test]
async fn account_response_limit_overrides_the_plan_default() {
    let s = Setup::new(&["--pro-response-limit", "1"]).await;
    s.create(1).await;
    let body = json!({"answers": contact_answers(&s.fields, 2)});
    s.post(&body).await.error(403, "RESPONSE_LIMIT_REACHED");

    let out = formsd_cli(
        &s.app.db.url,
        &[
            "accounts",
            "update",
            &s.key.account,
            "--response-limit",
            "3",
        ],
    )
    .await;
    let account: Value = serde_json::from_str(out.trim()).expect("accounts update prints JSON");
    assert_eq!(account["response_limit"], 3, "{out}");
    s.create(2).await;
    s.create(3).await;
    s.post(&body).await.error(403, "RESPONSE_LIMIT_REACHED");

    // Back to the plan's default (1, already used up); an explicit 10 opens it again.
    formsd_cli(
        &s.app.db.url,
        &[
            "accounts",
            "update",
            &s.key.account,
            "--default-response-limit",
        ],
    )
    .await;
    s.post(&body).await.error(403, "RESPONSE_LIMIT_REACHED");
    formsd_cli(
        &s.app.db.url,
        &[
            "accounts",
            "update",
            &s.key.account,
            "--response-limit",
            "10",
        ],
    )
    .await;
    s.create(4).await;
    assert_eq!(s.rows().await, 4);
}

// ---------------------------------------------------------------------------------------
// List: page mode
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn page_mode_paginates_sorts_and_filters_by_time() {
    let s = Setup::new(&[]).await;
    let mut created = Vec::new();
    for i in 0..30 {
        created.push(s.create(i).await);
    }
    let ids: Vec<String> = created.iter().map(id_of).collect();
    let times: Vec<String> = created
        .iter()
        .map(|r| r["submitted_at"].as_str().expect("submitted_at").to_owned())
        .collect();
    for pair in times.windows(2) {
        assert!(
            assert_timestamp(&json!(pair[0])) < assert_timestamp(&json!(pair[1])),
            "submitted_at strictly increases: {pair:?}"
        );
    }

    // Defaults: page 1, 25 per page, newest first.
    let reply = s.list(&[]).await;
    let data = reply.ok(200);
    assert_eq!(keys_of(data), ["pagination", "responses"]);
    assert_eq!(
        data["pagination"],
        json!({"total": 30, "page": 1, "per_page": 25, "total_pages": 2})
    );
    assert_eq!(ids_of(data), reversed(&ids)[..25]);
    let reply = s.list(&[("page", "2")]).await;
    let data = reply.ok(200);
    assert_eq!(ids_of(data), reversed(&ids)[25..]);
    assert_eq!(data["pagination"]["page"], 2);

    // per_page above 100 is clamped to 100.
    let reply = s.list(&[("per_page", "500")]).await;
    let data = reply.ok(200);
    assert_eq!(
        data["pagination"],
        json!({"total": 30, "page": 1, "per_page": 100, "total_pages": 1})
    );
    assert_eq!(ids_of(data).len(), 30);

    // Sort orders.
    let reply = s
        .list(&[("sort", "asc"), ("per_page", "10"), ("page", "2")])
        .await;
    assert_eq!(ids_of(reply.ok(200)), ids[10..20]);
    let reply = s
        .list(&[("sort", "desc"), ("per_page", "10"), ("page", "3")])
        .await;
    assert_eq!(ids_of(reply.ok(200)), reversed(&ids[..10]));
    let reply = s.list(&[("per_page", "7"), ("page", "9")]).await;
    let data = reply.ok(200);
    assert_eq!(ids_of(data), Vec::<String>::new(), "past the last page");
    assert_eq!(data["pagination"]["total_pages"], 5);

    // since and until are exclusive, and apply to the total.
    let reply = s
        .list(&[("sort", "asc"), ("since", &times[4]), ("until", &times[9])])
        .await;
    let data = reply.ok(200);
    assert_eq!(ids_of(data), ids[5..9]);
    assert_eq!(
        data["pagination"],
        json!({"total": 4, "page": 1, "per_page": 25, "total_pages": 1})
    );
    let reply = s.list(&[("since", &times[27])]).await;
    assert_eq!(ids_of(reply.ok(200)), reversed(&ids[28..]));
    let reply = s.list(&[("until", &times[2]), ("sort", "asc")]).await;
    assert_eq!(ids_of(reply.ok(200)), ids[..2]);
    // The same instant in another offset.
    let since = assert_timestamp(&json!(times[4]))
        .with_timezone(&chrono::FixedOffset::east_opt(2 * 3600).expect("offset"))
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, false);
    let reply = s
        .list(&[("sort", "asc"), ("since", &since), ("until", &times[9])])
        .await;
    assert_eq!(ids_of(reply.ok(200)), ids[5..9], "since={since}");
}

#[tokio::test]
async fn page_mode_refuses_bad_parameters() {
    let s = Setup::new(&[]).await;
    s.create(1).await;
    for (name, value) in [
        ("sort", "up"),
        ("sort", "newest"),
        ("since", "yesterday"),
        ("since", "2026-13-01T00:00:00Z"),
        ("until", "12345"),
        ("until", "2026-01-01"),
        ("page", "0"),
        ("page", "-1"),
        ("page", "abc"),
        ("page", "1.5"),
        ("per_page", "0"),
        ("per_page", "-5"),
        ("per_page", "ten"),
    ] {
        let reply = s.list(&[(name, value)]).await;
        let error = reply.error(422, "VALIDATION_ERROR");
        let message = error["message"].as_str().expect("message");
        assert!(message.contains(name), "{name}={value}: {message}");
    }
}

// ---------------------------------------------------------------------------------------
// List: cursor mode
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn cursor_mode_pages_to_the_end() {
    let s = Setup::new(&[]).await;
    let mut created = Vec::new();
    for i in 0..23 {
        created.push(s.create(i).await);
    }
    let ids: Vec<String> = created.iter().map(id_of).collect();

    // An empty cursor starts cursor mode: {per_page, next_cursor} only.
    let reply = s
        .list(&[("cursor", ""), ("sort", "asc"), ("per_page", "10")])
        .await;
    let data = reply.ok(200);
    assert_eq!(keys_of(&data["pagination"]), ["next_cursor", "per_page"]);
    assert_eq!(data["pagination"]["per_page"], 10);
    assert_eq!(ids_of(data), ids[..10]);
    let cursor = data["pagination"]["next_cursor"]
        .as_str()
        .expect("a next cursor")
        .to_owned();

    // The whole walk, ascending and (default) descending.
    let asc = page_by_cursor(&s, "asc", "10", |_| async {}).await;
    assert_eq!(asc, ids);
    let desc = page_by_cursor(&s, "desc", "10", |_| async {}).await;
    assert_eq!(desc, reversed(&ids));
    let reply = s.list(&[("cursor", "")]).await;
    let data = reply.ok(200);
    assert_eq!(data["pagination"]["per_page"], 25);
    assert_eq!(data["pagination"]["next_cursor"], Value::Null);
    assert_eq!(ids_of(data), reversed(&ids), "default sort is desc");

    // A page that ends exactly at the last row has no next cursor.
    let reply = s
        .list(&[("cursor", ""), ("sort", "asc"), ("per_page", "23")])
        .await;
    let data = reply.ok(200);
    assert_eq!(ids_of(data), ids);
    assert_eq!(data["pagination"]["next_cursor"], Value::Null);

    // page is ignored in cursor mode; per_page is clamped.
    let reply = s
        .list(&[
            ("cursor", ""),
            ("sort", "asc"),
            ("per_page", "10"),
            ("page", "3"),
        ])
        .await;
    assert_eq!(ids_of(reply.ok(200)), ids[..10]);
    let reply = s.list(&[("cursor", ""), ("per_page", "1000")]).await;
    assert_eq!(reply.ok(200)["pagination"]["per_page"], 100);

    // The cursor continues where the page ended, also when used twice.
    for _ in 0..2 {
        let reply = s
            .list(&[("cursor", &cursor), ("sort", "asc"), ("per_page", "10")])
            .await;
        assert_eq!(ids_of(reply.ok(200)), ids[10..20]);
    }

    // since/until apply in cursor mode.
    let times: Vec<&str> = created
        .iter()
        .map(|r| r["submitted_at"].as_str().expect("submitted_at"))
        .collect();
    let window = [
        ("sort", "asc"),
        ("per_page", "2"),
        ("since", times[4]),
        ("until", times[9]),
    ];
    let mut query = vec![("cursor", String::new())];
    query.extend(window.iter().map(|(k, v)| (*k, (*v).to_owned())));
    let mut seen = Vec::new();
    loop {
        let q: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let reply = s.list(&q).await;
        let data = reply.ok(200);
        seen.extend(ids_of(data));
        match data["pagination"]["next_cursor"].as_str() {
            Some(next) => query[0].1 = next.to_owned(),
            None => break,
        }
        assert!(seen.len() <= 10, "window paging does not end");
    }
    assert_eq!(seen, ids[5..9]);
}

#[tokio::test]
async fn cursor_mode_refuses_bad_cursors() {
    let s = Setup::new(&[]).await;
    s.create_many(5).await;
    let reply = s
        .list(&[("cursor", ""), ("sort", "asc"), ("per_page", "2")])
        .await;
    let cursor = reply.ok(200)["pagination"]["next_cursor"]
        .as_str()
        .expect("next cursor")
        .to_owned();

    let refused = |cursor: String, sort: &'static str| {
        let s = &s;
        async move {
            let reply = s
                .list(&[("cursor", &cursor), ("sort", sort), ("per_page", "2")])
                .await;
            let error = reply.error(422, "VALIDATION_ERROR");
            error["message"].as_str().expect("message").to_owned()
        }
    };

    // Tampered: one character changed, at several places.
    for at in [0, cursor.len() / 2, cursor.len() - 2] {
        let mut chars: Vec<char> = cursor.chars().collect();
        chars[at] = if chars[at] == 'A' { 'B' } else { 'A' };
        let tampered: String = chars.into_iter().collect();
        let message = refused(tampered, "asc").await;
        assert!(message.contains("cursor"), "{message}");
    }
    // Truncated, extended, garbage.
    refused(cursor[..cursor.len() - 4].to_owned(), "asc").await;
    refused(format!("{cursor}AAAA"), "asc").await;
    for garbage in ["garbage!", "AAAA", "null", "%%%", "eyJpZCI6MX0"] {
        refused(garbage.to_owned(), "asc").await;
    }
    // The other sort order (desc explicitly, and by default).
    let message = refused(cursor.clone(), "desc").await;
    assert!(message.contains("sort"), "{message}");
    let reply = s.list(&[("cursor", &cursor)]).await;
    reply.error(422, "VALIDATION_ERROR");

    // Another form of the same account.
    let other = published_form(&s.app, &s.key.key, contact_fields(), Value::Null).await;
    let path = format!("/forms/{}/responses", other["id"].as_str().expect("id"));
    let path = with_query(&path, &[("cursor", cursor.as_str()), ("sort", "asc")]);
    let reply = s.app.get(&path, &s.key.key).await;
    let message = reply.error(422, "VALIDATION_ERROR")["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(message.contains("form"), "{message}");

    // The genuine cursor still works.
    let reply = s
        .list(&[("cursor", &cursor), ("sort", "asc"), ("per_page", "2")])
        .await;
    assert_eq!(ids_of(reply.ok(200)).len(), 2);
}

#[tokio::test]
async fn keyset_paging_ascending_sees_rows_arriving_between_pages_once() {
    let s = Setup::new(&[]).await;
    let initial = s.create_many(25).await;
    let inserted = std::sync::Mutex::new(Vec::new());
    let seen = page_by_cursor(&s, "asc", "10", |page| {
        let (s, inserted) = (&s, &inserted);
        async move {
            if page < 4 {
                let new = s.create_many(3).await;
                inserted.lock().expect("lock").extend(new);
            }
        }
    })
    .await;
    let inserted = inserted.into_inner().expect("lock");
    assert_eq!(inserted.len(), 9, "inserted between pages 1..3");
    assert_no_duplicates(&seen);
    let mut expected = initial.clone();
    expected.extend(inserted);
    assert_eq!(seen, expected, "every row once, in submission order");
}

#[tokio::test]
async fn keyset_paging_descending_sees_every_existing_row_once() {
    let s = Setup::new(&[]).await;
    let initial = s.create_many(25).await;
    let inserted = std::sync::Mutex::new(Vec::new());
    let seen = page_by_cursor(&s, "desc", "10", |_| {
        let (s, inserted) = (&s, &inserted);
        async move {
            let new = s.create_many(3).await;
            inserted.lock().expect("lock").extend(new);
        }
    })
    .await;
    assert!(!inserted.lock().expect("lock").is_empty());
    assert_no_duplicates(&seen);
    // Rows that arrive during a newest-first walk are newer than its start: not in it.
    assert_eq!(seen, reversed(&initial));
}

#[tokio::test]
async fn full_export_by_cursor_while_responses_arrive() {
    const BULK: i64 = 10_000;
    let s = Setup::new(&["--pro-rate-limit", "1000000"]).await;
    let form = uuid::Uuid::parse_str(&s.form_id).expect("uuid");
    sqlx::query(
        "INSERT INTO responses (id, form_id, answers, metadata, started_at, submitted_at)
         SELECT gen_random_uuid(), $1,
                jsonb_build_object($2::text, 'Bulk ' || g, $3::text, 'bulk' || g || '@example.com'),
                '{\"source\": \"api\"}'::jsonb,
                date_trunc('milliseconds', now()) - interval '1 hour' + g * interval '1 millisecond',
                date_trunc('milliseconds', now()) - interval '1 hour' + g * interval '1 millisecond'
           FROM generate_series(1, $4::bigint) AS g",
    )
    .bind(form)
    .bind(&s.fields[0])
    .bind(&s.fields[1])
    .bind(BULK)
    .execute(&s.app.pool)
    .await
    .expect("bulk insert");
    sqlx::query(
        "UPDATE forms SET response_count = $2,
                last_submitted_at = (SELECT max(submitted_at) FROM responses WHERE form_id = $1)
          WHERE id = $1",
    )
    .bind(form)
    .bind(BULK)
    .execute(&s.app.pool)
    .await
    .expect("form counters");
    let bulk: Vec<(uuid::Uuid,)> =
        sqlx::query_as("SELECT id FROM responses WHERE form_id = $1 ORDER BY submitted_at, id")
            .bind(form)
            .fetch_all(&s.app.pool)
            .await
            .expect("bulk ids");
    let bulk: Vec<String> = bulk.into_iter().map(|(id,)| id.to_string()).collect();
    assert_eq!(bulk.len() as i64, BULK);

    // A writer keeps creating responses through the API during the export.
    let writer_key = s.app.key_for(&s.key.account, PRO, WRITE).await.key;
    let stop = Arc::new(AtomicBool::new(false));
    let created = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let writer = {
        let (stop, created) = (stop.clone(), created.clone());
        let url = format!("{}{}", s.app.http_base, s.path());
        let fields = s.fields.clone();
        tokio::spawn(async move {
            let client = http_client();
            let mut n = 0;
            while !stop.load(Ordering::SeqCst) {
                n += 1;
                let body = json!({"answers": contact_answers(&fields, n)});
                let reply = send(
                    client
                        .post(&url)
                        .header("x-api-key", &writer_key)
                        .json(&body),
                )
                .await;
                let id = id_of(&reply.ok(201)["response"]);
                created.lock().expect("lock").push(id);
            }
        })
    };

    // Wait until the writer is under way, then export.
    eventually(
        "the writer's first response",
        Duration::from_secs(10),
        || {
            let created = created.clone();
            async move { (!created.lock().expect("lock").is_empty()).then_some(()) }
        },
    )
    .await;
    let mut seen: Vec<String> = Vec::with_capacity(bulk.len() + 1000);
    let mut cursor = String::new();
    let mut pages = 0;
    let done_before_last_page = loop {
        let done_before = created.lock().expect("lock").len();
        let reply = s
            .list(&[("cursor", &cursor), ("sort", "asc"), ("per_page", "100")])
            .await;
        let data = reply.ok(200);
        let page = ids_of(data);
        assert!(page.len() <= 100);
        seen.extend(page);
        pages += 1;
        assert!(pages <= 1000, "the export does not end");
        match data["pagination"]["next_cursor"].as_str() {
            Some(next) => cursor = next.to_owned(),
            None => break done_before,
        }
    };
    stop.store(true, Ordering::SeqCst);
    writer.await.expect("writer");
    let created = created.lock().expect("lock").clone();

    assert_no_duplicates(&seen);
    assert!(pages > BULK as usize / 100, "{pages} pages");
    assert_eq!(
        seen[..bulk.len()],
        bulk[..],
        "every pre-existing response exactly once, in order"
    );
    // What the writer created came after the bulk, each at most once, and everything it
    // had created before the last page was requested is in the export.
    let written: HashSet<&String> = created.iter().collect();
    assert!(seen[bulk.len()..].iter().all(|id| written.contains(id)));
    assert!(
        done_before_last_page > 0,
        "the writer created responses during the export"
    );
    let seen_set: HashSet<&String> = seen.iter().collect();
    for id in &created[..done_before_last_page] {
        assert!(seen_set.contains(id), "response {id} was skipped");
    }

    // Page mode's total is the form's count.
    let reply = s.list(&[("per_page", "100")]).await;
    let data = reply.ok(200);
    let total = BULK + created.len() as i64;
    assert_eq!(s.rows().await, total);
    assert_eq!(data["pagination"]["total"], total);
    assert_eq!(
        data["pagination"]["total_pages"],
        (total + 99) / 100,
        "{}",
        data["pagination"]
    );
}

// ---------------------------------------------------------------------------------------
// Get and delete
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn get_one_response_and_what_is_not_found() {
    let s = Setup::new(&[]).await;
    let created = s.create(1).await;
    let id = id_of(&created);
    let key = &s.key.key;
    let reply = s.app.get(&format!("{}/{id}", s.path()), key).await;
    assert_eq!(reply.ok(200)["response"], created);

    let unknown = uuid::Uuid::new_v4();
    for path in [
        format!("{}/{unknown}", s.path()),
        format!("{}/not-a-uuid", s.path()),
        format!("/forms/{unknown}/responses/{id}"),
        format!("/forms/{unknown}/responses"),
    ] {
        s.app.get(&path, key).await.error(404, "NOT_FOUND");
    }
    // Through another form of the same account.
    let other = published_form(&s.app, key, contact_fields(), Value::Null).await;
    let path = format!("/forms/{}/responses/{id}", other["id"].as_str().unwrap());
    s.app.get(&path, key).await.error(404, "NOT_FOUND");
    // By another account: 404, never 403.
    let stranger = s.app.key(PRO, ALL).await;
    for path in [format!("{}/{id}", s.path()), s.path()] {
        s.app.get(&path, &stranger).await.error(404, "NOT_FOUND");
    }
    let body = json!({"answers": contact_answers(&s.fields, 2)});
    s.app
        .post(&s.path(), &stranger, &body)
        .await
        .error(404, "NOT_FOUND");
    s.app
        .delete(&format!("{}/{id}", s.path()), &stranger)
        .await
        .error(404, "NOT_FOUND");
    assert_eq!(s.rows().await, 1);
}

#[tokio::test]
async fn delete_response_needs_admin_scope() {
    let s = Setup::new(&[]).await;
    let ids = s.create_many(3).await;
    let path = format!("{}/{}", s.path(), ids[1]);
    for scopes in [WRITE, READ] {
        let weaker = s.app.key_for(&s.key.account, PRO, scopes).await;
        s.app
            .delete(&path, &weaker.key)
            .await
            .error(403, "INSUFFICIENT_SCOPE");
    }
    assert_eq!(s.rows().await, 3);

    let admin = s.app.key_for(&s.key.account, PRO, ADMIN).await;
    let reply = s.app.delete(&path, &admin.key).await;
    assert_eq!(reply.status, 204, "{}", reply.text);
    assert_eq!(reply.text, "", "204 has no body");
    reply.assert_common_headers();
    s.app.get(&path, &s.key.key).await.error(404, "NOT_FOUND");
    s.app
        .delete(&path, &admin.key)
        .await
        .error(404, "NOT_FOUND");

    let reply = s.list(&[]).await;
    let data = reply.ok(200);
    assert_eq!(data["pagination"]["total"], 2);
    assert_eq!(ids_of(data), [ids[2].clone(), ids[0].clone()]);
    let reply = s.list(&[("cursor", ""), ("sort", "asc")]).await;
    assert_eq!(ids_of(reply.ok(200)), [ids[0].clone(), ids[2].clone()]);
    assert_eq!(s.rows().await, 2);
}

#[tokio::test]
async fn deleting_a_form_deletes_its_responses() {
    let s = Setup::new(&[]).await;
    s.create_many(3).await;
    let other = published_form(&s.app, &s.key.key, contact_fields(), Value::Null).await;
    let other_path = format!("/forms/{}/responses", other["id"].as_str().unwrap());
    let body = json!({"answers": contact_answers(&field_ids(&other), 1)});
    s.app.post(&other_path, &s.key.key, &body).await.ok(201);
    assert_eq!(s.rows().await, 3);

    let reply = s
        .app
        .delete(&format!("/forms/{}", s.form_id), &s.key.key)
        .await;
    assert_eq!(reply.status, 204, "{}", reply.text);
    assert_eq!(s.rows().await, 0, "the form's responses are gone");
    s.list(&[]).await.error(404, "NOT_FOUND");
    // Other forms keep theirs.
    let n = count(
        &s.app,
        "SELECT count(*) FROM responses WHERE form_id = $1",
        other["id"].as_str().unwrap(),
    )
    .await;
    assert_eq!(n, 1);
}

// ---------------------------------------------------------------------------------------
// gRPC
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn grpc_create_list_and_error_details() {
    use pb::responses_service_client::ResponsesServiceClient;
    use tonic_types::StatusExt;

    let s = Setup::new(&[]).await;
    let key = &s.key.key;
    let mut client = ResponsesServiceClient::connect(s.app.grpc_url.clone())
        .await
        .expect("gRPC connection");
    let answers = |n: usize| {
        let Value::Object(map) = contact_answers(&s.fields, n) else {
            unreachable!()
        };
        Some(pb::convert::object_to_struct(&map))
    };
    let mut ids = Vec::new();
    for n in 0..5 {
        let metadata = json!({"via": "grpc"});
        let request = pb::CreateResponseRequest {
            form_id: s.form_id.clone(),
            answers: answers(n),
            metadata: Some(pb::convert::object_to_struct(
                metadata.as_object().expect("object"),
            )),
        };
        let reply = client
            .create_response(grpc_request(request, key))
            .await
            .expect("CreateResponse")
            .into_inner();
        let r = reply.response.expect("response");
        assert_eq!(r.form_id, s.form_id);
        let meta = pb::convert::struct_to_object(r.metadata.as_ref().expect("metadata"));
        assert_eq!(Value::Object(meta), json!({"via": "grpc", "source": "api"}));
        assert_eq!(r.device_type, None);
        assert_eq!(r.completion_time_seconds, None);
        assert_eq!(r.started_at, r.submitted_at);
        ids.push(r.id);
    }
    // The REST API sees them.
    let reply = s.list(&[("sort", "asc")]).await;
    assert_eq!(ids_of(reply.ok(200)), ids);

    // Cursor mode.
    let mut seen = Vec::new();
    let mut cursor = Some(String::new());
    while let Some(c) = cursor {
        let request = pb::ListResponsesRequest {
            form_id: s.form_id.clone(),
            per_page: Some(2),
            sort: pb::SortOrder::Asc.into(),
            cursor: Some(c),
            ..Default::default()
        };
        let reply = client
            .list_responses(grpc_request(request, key))
            .await
            .expect("ListResponses")
            .into_inner();
        seen.extend(reply.responses.into_iter().map(|r| r.id));
        cursor = match reply.pagination {
            Some(pb::list_responses_response::Pagination::Cursor(p)) => {
                assert_eq!(p.per_page, 2);
                p.next_cursor
            }
            other => panic!("cursor mode answered {other:?}"),
        };
        assert!(seen.len() <= 10);
    }
    assert_eq!(seen, ids);

    // Page mode.
    let request = pb::ListResponsesRequest {
        form_id: s.form_id.clone(),
        page: Some(2),
        per_page: Some(2),
        ..Default::default()
    };
    let reply = client
        .list_responses(grpc_request(request, key))
        .await
        .expect("ListResponses")
        .into_inner();
    let got: Vec<String> = reply.responses.into_iter().map(|r| r.id).collect();
    assert_eq!(got, [ids[2].clone(), ids[1].clone()], "newest first");
    match reply.pagination {
        Some(pb::list_responses_response::Pagination::Page(p)) => {
            assert_eq!((p.total, p.page, p.per_page, p.total_pages), (5, 2, 2, 3));
        }
        other => panic!("page mode answered {other:?}"),
    }

    // Errors carry google.rpc.ErrorInfo with the SPEC code as reason.
    let draft = s
        .app
        .create_form(key, &json!({"title": "Draft", "fields": contact_fields()}))
        .await;
    let expect_reason = |status: tonic::Status, code: tonic::Code, reason: &str| {
        assert_eq!(status.code(), code, "{status:?}");
        let info = status
            .get_details_error_info()
            .unwrap_or_else(|| panic!("no ErrorInfo in {status:?}"));
        assert_eq!(info.reason, reason);
        assert_eq!(info.domain, "forms.v1");
    };
    let request = pb::CreateResponseRequest {
        form_id: draft["id"].as_str().unwrap().to_owned(),
        answers: answers(1),
        metadata: None,
    };
    let status = client
        .create_response(grpc_request(request, key))
        .await
        .expect_err("draft form");
    expect_reason(
        status,
        tonic::Code::FailedPrecondition,
        "FORM_NOT_PUBLISHED",
    );
    let request = pb::CreateResponseRequest {
        form_id: s.form_id.clone(),
        answers: None,
        metadata: None,
    };
    let status = client
        .create_response(grpc_request(request, key))
        .await
        .expect_err("no answers");
    expect_reason(status, tonic::Code::InvalidArgument, "VALIDATION_ERROR");
    let request = pb::ListResponsesRequest {
        form_id: s.form_id.clone(),
        cursor: Some("garbage".into()),
        ..Default::default()
    };
    let status = client
        .list_responses(grpc_request(request, key))
        .await
        .expect_err("bad cursor");
    expect_reason(status, tonic::Code::InvalidArgument, "VALIDATION_ERROR");
    let request = pb::GetResponseRequest {
        form_id: s.form_id.clone(),
        id: uuid::Uuid::new_v4().to_string(),
    };
    let status = client
        .get_response(grpc_request(request, key))
        .await
        .expect_err("unknown response");
    expect_reason(status, tonic::Code::NotFound, "NOT_FOUND");
    let status = client
        .get_response(tonic::Request::new(pb::GetResponseRequest {
            form_id: s.form_id.clone(),
            id: ids[0].clone(),
        }))
        .await
        .expect_err("no key");
    expect_reason(status, tonic::Code::Unauthenticated, "UNAUTHENTICATED");
}
