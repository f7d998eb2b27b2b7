//! Partial responses (issue 20, part 3), through the hosted service's gRPC calls as the
//! edge makes them: a form with pages is posted page by page, each page saved as a
//! partial response under a resume token; the core decides the next page; the last one
//! completes the response exactly once. Partials fire no webhook, do not count against
//! the form's limit, survive a restart, and are listed only when asked for.

use crate::fixtures::*;
use crate::harness::*;
use forms::pb::{self, hosted_forms_service_client::HostedFormsServiceClient};
use serde_json::{Value, json};
use std::time::Duration;
use tonic::transport::Channel;

const NONCE: &str = "0123456789abcdef0123456789abcdef";
const DESKTOP: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";

/// Flags of an instance that delivers to the loopback receiver quickly.
const DELIVERING: &[&str] = &[
    "--webhook-allow-private",
    "--webhook-poll-interval",
    "200ms",
    "--webhook-timeout",
    "2s",
];

/// Three pages: page 2 only for car owners; page 3 for everyone.
fn paged_fields() -> Value {
    json!([
        {"type": "single_choice", "label": "Do you own a car?", "required": true, "ref": "car",
         "options": [{"id": "yes", "label": "Yes"}, {"id": "no", "label": "No"}]},
        {"type": "page_break", "label": "Your car", "ref": "p2",
         "show_if": [{"field": "car", "op": "equals", "value": "yes"}]},
        {"type": "short_text", "label": "Model", "required": true},
        {"type": "page_break", "label": "Last words"},
        {"type": "email", "label": "Email", "required": true},
    ])
}

struct Paged {
    app: TestApp,
    key: String,
    form: Value,
    hosted: HostedFormsServiceClient<Channel>,
}

impl Paged {
    async fn new(app: TestApp, settings: Value) -> Paged {
        let key = app.key(PRO, ALL).await;
        let form = published_form(&app, &key, paged_fields(), settings).await;
        let hosted = hosted_client(&app).await;
        Paged {
            app,
            key,
            form,
            hosted,
        }
    }

    fn id(&self) -> &str {
        str_of(&self.form, "id")
    }

    fn field(&self, i: usize) -> String {
        field_ids(&self.form)[i].clone()
    }

    async fn get(&mut self, resume: &str, page: Option<i32>) -> pb::GetHostedFormResponse {
        get(
            &mut self.hosted,
            str_of(&self.form, "short_id"),
            resume,
            page,
        )
        .await
    }

    /// Posts `page` with `answers` (by field index), after reading the page.
    async fn post(
        &mut self,
        page: i32,
        resume: &str,
        answers: &[(usize, &str)],
    ) -> Result<pb::SubmitHostedFormResponse, tonic::Status> {
        let token = self.get(resume, Some(page)).await.start_token;
        let answers: serde_json::Map<String, Value> = answers
            .iter()
            .map(|(i, v)| (self.field(*i), json!(v)))
            .collect();
        submit(
            &mut self.hosted,
            str_of(&self.form, "short_id"),
            token,
            page,
            resume,
            answers,
        )
        .await
    }

    async fn list(&self, status: &str) -> Value {
        let path = format!("/forms/{}/responses?status={status}", self.id());
        self.app.get(&path, &self.key).await.ok(200).clone()
    }
}

async fn hosted_client(app: &TestApp) -> HostedFormsServiceClient<Channel> {
    let channel = Channel::from_shared(app.grpc_url.clone())
        .expect("gRPC URL")
        .connect()
        .await
        .expect("connecting to the core");
    HostedFormsServiceClient::new(channel)
}

async fn get(
    hosted: &mut HostedFormsServiceClient<Channel>,
    short_id: &str,
    resume: &str,
    page: Option<i32>,
) -> pb::GetHostedFormResponse {
    hosted
        .get_hosted_form(pb::GetHostedFormRequest {
            short_id: short_id.to_owned(),
            csrf_nonce: NONCE.to_owned(),
            resume_token: resume.to_owned(),
            page,
        })
        .await
        .expect("GetHostedForm")
        .into_inner()
}

async fn submit(
    hosted: &mut HostedFormsServiceClient<Channel>,
    short_id: &str,
    start_token: String,
    page: i32,
    resume: &str,
    answers: serde_json::Map<String, Value>,
) -> Result<pb::SubmitHostedFormResponse, tonic::Status> {
    hosted
        .submit_hosted_form(pb::SubmitHostedFormRequest {
            short_id: short_id.to_owned(),
            start_token,
            csrf_nonce: NONCE.to_owned(),
            answers: Some(pb::convert::object_to_struct(&answers)),
            user_agent: DESKTOP.to_owned(),
            page,
            resume_token: resume.to_owned(),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is not a string in {value}"))
}

/// The deliveries of the test's database (one form), `and` narrowing them.
async fn deliveries(app: &TestApp, and: &str) -> i64 {
    let sql = format!("SELECT count(*) FROM deliveries d WHERE true {and}");
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .fetch_one(&app.pool)
        .await
        .expect("deliveries")
}

fn progress(reply: &pb::SubmitHostedFormResponse) -> &pb::HostedProgress {
    reply
        .progress
        .as_ref()
        .expect("a partial reply carries progress")
}

#[tokio::test]
async fn pages_are_saved_as_a_partial_and_the_core_picks_the_next_page() {
    let mut s = Paged::new(TestApp::spawn().await, Value::Null).await;
    let first = s.get("", None).await;
    let start = first.progress.expect("a paged form has progress");
    assert_eq!(
        (start.page, start.page_count, start.previous_page),
        (1, 3, 0)
    );
    assert_eq!(start.fields, [s.field(0)]);
    assert!(start.resume_token.is_empty());

    // A refused page saves nothing and says which page to show again.
    let refused = s.post(1, "", &[]).await.expect_err("car is required");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    // An answer to a field of another page is refused.
    let stray = s.post(1, "", &[(0, "yes"), (4, "a@example.com")]).await;
    assert!(stray.is_err(), "{stray:?}");

    // "yes" shows page 2.
    let saved = s.post(1, "", &[(0, "yes")]).await.expect("page 1");
    let at = progress(&saved);
    assert!(saved.response_id.is_empty());
    assert_eq!((at.page, at.previous_page), (2, 1));
    assert_eq!(at.fields, [s.field(1), s.field(2)]);
    let resume = at.resume_token.clone();
    assert!(resume.len() >= 40, "a resume token: {resume:?}");

    // The partial is listed only when asked for, at the page it reached.
    assert_eq!(s.list("completed").await["responses"], json!([]));
    let partial = s.list("partial").await;
    assert_eq!(partial["pagination"]["total"], 1);
    let row = &partial["responses"][0];
    assert_eq!(row["status"], "partial");
    assert_eq!(row["last_page"], 2);
    assert_eq!(row["answers"][s.field(0)], "yes");
    let one = s
        .app
        .get(
            &format!("/forms/{}/responses/{}", s.id(), str_of(row, "id")),
            &s.key,
        )
        .await;
    assert_eq!(one.ok(200)["response"]["status"], "partial");

    // Resuming with the token: the page reached, answers kept; back and forward too.
    let again = s.get(&resume, None).await.progress.expect("progress");
    assert_eq!(again.page, 2);
    assert_eq!(
        again.answers.as_ref().map(pb::convert::struct_to_object),
        Some(
            json!({ s.field(0): "yes" })
                .as_object()
                .cloned()
                .expect("object")
        )
    );
    let back = s.get(&resume, Some(1)).await.progress.expect("progress");
    assert_eq!(back.page, 1);
    // A page not reached yet gives the page reached.
    let ahead = s.get(&resume, Some(3)).await.progress.expect("progress");
    assert_eq!(ahead.page, 2);

    // Changing page 1 to "no" skips page 2; the model given for it is not kept.
    let saved = s.post(2, &resume, &[(2, "Model T")]).await.expect("page 2");
    assert_eq!(progress(&saved).page, 3);
    let saved = s
        .post(1, &resume, &[(0, "no")])
        .await
        .expect("page 1 again");
    assert_eq!(progress(&saved).page, 3);
    assert_eq!(progress(&saved).previous_page, 1);
    let done = s
        .post(3, &resume, &[(4, "ada@example.com")])
        .await
        .expect("last page");
    assert!(done.progress.is_none());
    let completed = s.list("completed").await;
    assert_eq!(completed["pagination"]["total"], 1);
    let response = &completed["responses"][0];
    assert_eq!(
        response["id"], row["id"],
        "the partial becomes the response"
    );
    assert_eq!(response["status"], "completed");
    assert_eq!(response["last_page"], 3);
    assert_eq!(
        response["answers"],
        json!({ s.field(0): "no", s.field(4): "ada@example.com" })
    );
    assert!(response["completion_time_seconds"].is_number());
    assert_eq!(s.list("partial").await["responses"], json!([]));
    assert_eq!(s.list("all").await["pagination"]["total"], 1);

    // The same resume afterwards: the same response, nothing more stored.
    let repeat = s
        .post(3, &resume, &[(4, "ada@example.com")])
        .await
        .expect("repeat");
    assert_eq!(repeat.response_id, done.response_id);
    assert_eq!(s.list("all").await["pagination"]["total"], 1);
    // ...and a fresh visit starts afresh.
    let fresh = s.get(&resume, None).await.progress.expect("progress");
    assert_eq!(fresh.page, 1);
    assert!(fresh.resume_token.is_empty());

    let bad = s
        .app
        .get(&format!("/forms/{}/responses?status=half", s.id()), &s.key)
        .await;
    bad.error(422, "VALIDATION_ERROR");
}

#[tokio::test]
async fn completing_is_exactly_once_under_concurrent_last_pages_and_fires_one_webhook() {
    let receiver = Receiver::start().await;
    let app = TestApp::spawn_with(DELIVERING).await;
    let mut s = Paged::new(app, Value::Null).await;
    subscribe(
        &s.app,
        &s.key,
        s.id(),
        &receiver.url("/hook"),
        &["form.submitted"],
    )
    .await;
    let saved = s.post(1, "", &[(0, "no")]).await.expect("page 1");
    let resume = progress(&saved).resume_token.clone();
    assert_eq!(progress(&saved).page, 3);
    // No event for a partial: events are written with what causes them (the outbox),
    // and the page's save wrote none.
    assert_eq!(deliveries(&s.app, "").await, 0, "a partial fired a webhook");

    // Eight last pages at once, over two instances: one response.
    let other = TestApp::spawn_on(s.app.db.clone(), DELIVERING).await;
    let short_id = str_of(&s.form, "short_id").to_owned();
    let email = s.field(4);
    let mut posts = Vec::new();
    for i in 0..8 {
        let mut hosted = hosted_client(if i % 2 == 0 { &s.app } else { &other }).await;
        let (short_id, resume, email) = (short_id.clone(), resume.clone(), email.clone());
        posts.push(tokio::spawn(async move {
            let token = get(&mut hosted, &short_id, &resume, Some(3))
                .await
                .start_token;
            let answers = json!({ email: "grace@example.com" })
                .as_object()
                .cloned()
                .expect("object");
            submit(&mut hosted, &short_id, token, 3, &resume, answers).await
        }));
    }
    let mut ids = std::collections::HashSet::new();
    for post in posts {
        let reply = post.await.expect("task").expect("last page");
        assert!(reply.progress.is_none());
        ids.insert(reply.response_id);
    }
    assert_eq!(
        ids.len(),
        1,
        "every post answers the same response: {ids:?}"
    );
    assert_eq!(s.list("all").await["pagination"]["total"], 1);
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM responses")
        .fetch_one(&s.app.pool)
        .await
        .expect("count");
    assert_eq!(stored, 1);
    let hits = receiver.wait_for("/hook", 1, Duration::from_secs(15)).await;
    // One delivery, sent once: settled, its only attempt recorded (a second send would
    // need a second row, or this one pending again).
    assert_eq!(deliveries(&s.app, "").await, 1, "one form.submitted");
    eventually("the delivery settled", Duration::from_secs(15), || async {
        (deliveries(&s.app, "AND d.status = 'succeeded' AND d.attempts = 1").await == 1)
            .then_some(())
    })
    .await;
    let (attempts,): (i64,) = sqlx::query_as("SELECT count(*) FROM delivery_attempts")
        .fetch_one(&s.app.pool)
        .await
        .expect("attempts");
    assert_eq!(attempts, 1);
    assert_eq!(receiver.hits_at("/hook").len(), 1, "one form.submitted");
    assert_eq!(
        hits[0].json()["data"]["responseId"],
        json!(ids.into_iter().next())
    );
}

#[tokio::test]
async fn a_partial_survives_a_kill_and_does_not_count_against_the_limit() {
    let app = TestApp::spawn().await;
    // One response at most: a partial must not close the form.
    let mut s = Paged::new(app, json!({"max_responses": 1})).await;
    let saved = s.post(1, "", &[(0, "yes")]).await.expect("page 1");
    let resume = progress(&saved).resume_token.clone();
    let other = s.post(1, "", &[(0, "no")]).await.expect("another visitor");
    assert_eq!(progress(&other).page, 3);
    let usage: i64 = sqlx::query_scalar(
        "SELECT coalesce(sum(response_count), 0)::bigint FROM response_quota_usage",
    )
    .fetch_one(&s.app.pool)
    .await
    .expect("quota");
    assert_eq!(usage, 0, "partials count against no quota");

    // kill -9, and a new process on the same database.
    let _ = s.app.server.child.start_kill();
    let _ = s.app.server.child.wait().await;
    s.app = TestApp::spawn_on(s.app.db.clone(), &[]).await;
    s.hosted = hosted_client(&s.app).await;
    let again = s.get(&resume, None).await.progress.expect("progress");
    assert_eq!(again.page, 2, "resumed where it was left");
    s.post(2, &resume, &[(2, "Model T")]).await.expect("page 2");
    let done = s
        .post(3, &resume, &[(4, "ada@example.com")])
        .await
        .expect("completes");
    assert!(!done.response_id.is_empty());
    // Now the form is full: a partial holds no place in it, so the other visitor's
    // page is refused as closed.
    let resume2 = progress(&other).resume_token.clone();
    let closed = s
        .hosted
        .get_hosted_form(pb::GetHostedFormRequest {
            short_id: str_of(&s.form, "short_id").to_owned(),
            csrf_nonce: NONCE.to_owned(),
            resume_token: resume2,
            page: Some(3),
        })
        .await
        .expect_err("the form is full");
    assert_eq!(closed.code(), tonic::Code::FailedPrecondition, "{closed:?}");
}

#[tokio::test]
async fn exports_carry_status_and_last_page_only_when_asked() {
    let app = TestApp::spawn().await;
    let mut s = Paged::new(app, Value::Null).await;
    let saved = s.post(1, "", &[(0, "yes")]).await.expect("page 1");
    let resume = progress(&saved).resume_token.clone();
    s.post(1, "", &[(0, "no")]).await.expect("another");
    let done = s.post(2, &resume, &[(2, "Model T")]).await.expect("page 2");
    assert_eq!(progress(&done).page, 3);
    let path = |q: &str| format!("/forms/{}/responses/export?{q}", s.id());
    let plain = s.app.request(reqwest::Method::GET, &path("format=ndjson"));
    let plain = send(plain.bearer_auth(&s.key)).await;
    assert_eq!(plain.status, 200);
    assert!(plain.text.is_empty(), "no completed response yet");
    let all = s
        .app
        .request(reqwest::Method::GET, &path("format=ndjson&status=all"));
    let all = send(all.bearer_auth(&s.key)).await;
    let rows: Vec<Value> = all
        .text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(rows.len(), 2);
    let mut pages: Vec<(String, i64)> = rows
        .iter()
        .map(|r| {
            (
                str_of(r, "status").to_owned(),
                r["last_page"].as_i64().expect("page"),
            )
        })
        .collect();
    pages.sort();
    assert_eq!(pages, [("partial".into(), 3), ("partial".into(), 3)]);
    let csv = s
        .app
        .request(reqwest::Method::GET, &path("format=csv&status=partial"));
    let csv = send(csv.bearer_auth(&s.key)).await;
    let header = csv.text.lines().next().expect("header");
    assert!(header.ends_with("Status,Last page,Language"), "{header}");
    assert!(
        !header.contains("Your car"),
        "a page break is no column: {header}"
    );
}
