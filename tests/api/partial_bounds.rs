//! Bounds on partial responses (issue 30, finding 4): a saved page of a multi-page form
//! begins a partial response only where a submission would be taken. It needs room in
//! the owner's monthly response quota, and the visitor, the form and the account each
//! have a cap on unfinished partials, the account one on the bytes of their files
//! (the proof of work of each saved page is in `pow.rs`).
//!
//! Visitors are told apart by the address they connect from (127.0.0.2, 127.0.0.3…:
//! all loopback), as the core sees them, with no header to believe.

use crate::fixtures::*;
use crate::harness::*;
use forms::pb::{self, hosted_forms_service_client::HostedFormsServiceClient};
use serde_json::{Value, json};
use std::net::{IpAddr, Ipv4Addr};
use tonic::transport::{Channel, Endpoint};

const NONCE: &str = "0123456789abcdef0123456789abcdef";
const DESKTOP: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";

/// Two pages: a name (and a file) first, an email last.
fn two_pages() -> Value {
    json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "file_upload", "label": "Photo", "required": false,
         "allowed_types": ["png"], "max_size_mb": 2},
        {"type": "page_break", "label": "Last"},
        {"type": "email", "label": "Email", "required": true},
    ])
}

/// A visitor of the hosted pages, connecting to the core from `127.0.0.<n>`.
struct Visitor {
    hosted: HostedFormsServiceClient<Channel>,
}

impl Visitor {
    async fn at(app: &TestApp, n: u8) -> Visitor {
        let channel = Endpoint::from_shared(app.grpc_url.clone())
            .expect("gRPC URL")
            .local_address(Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, n))))
            .connect()
            .await
            .expect("connecting to the core");
        Visitor {
            hosted: HostedFormsServiceClient::new(channel),
        }
    }

    /// Posts page 1 of `form` (a new partial) with a name and `file` bytes, if any.
    async fn begin(
        &mut self,
        form: &Value,
        file: Option<Vec<u8>>,
    ) -> Result<pb::SubmitHostedFormResponse, tonic::Status> {
        let short_id = form["short_id"].as_str().expect("short id").to_owned();
        let page = self
            .hosted
            .get_hosted_form(pb::GetHostedFormRequest {
                short_id: short_id.clone(),
                csrf_nonce: NONCE.to_owned(),
                ..Default::default()
            })
            .await
            .expect("GetHostedForm")
            .into_inner();
        let ids = field_ids(form);
        let answers = json!({&ids[0]: "Ada"});
        let files = file
            .map(|content| pb::UploadedFile {
                field_id: ids[1].clone(),
                file_name: "photo.png".to_owned(),
                content,
            })
            .into_iter()
            .collect();
        self.hosted
            .submit_hosted_form(pb::SubmitHostedFormRequest {
                short_id,
                start_token: page.start_token,
                csrf_nonce: NONCE.to_owned(),
                answers: Some(pb::convert::object_to_struct(
                    answers.as_object().expect("answers"),
                )),
                user_agent: DESKTOP.to_owned(),
                page: 1,
                files,
                ..Default::default()
            })
            .await
            .map(tonic::Response::into_inner)
    }
}

/// A PNG of about `bytes` bytes (its type is read from its first bytes).
fn png_of(bytes: usize) -> Vec<u8> {
    let mut png = crate::uploads::PNG.to_vec();
    png.resize(bytes, 0);
    png
}

/// Asserts a refusal over a cap on partials: RATE_LIMITED naming the cap, with a wait.
fn assert_capped(result: Result<pb::SubmitHostedFormResponse, tonic::Status>, what: &str) {
    let status = result.expect_err(what);
    assert_eq!(
        status.code(),
        tonic::Code::ResourceExhausted,
        "{what}: {status:?}"
    );
    let info = tonic_types::StatusExt::get_details_error_info(&status);
    assert_eq!(
        info.map(|i| (i.reason, i.metadata.get("limit").cloned())),
        Some(("RATE_LIMITED".to_owned(), Some("partials".to_owned()))),
        "{what}: the cap is named, for the page to say what to do"
    );
    let wait = tonic_types::StatusExt::get_details_retry_info(&status).and_then(|r| r.retry_delay);
    assert!(wait.is_some_and(|w| !w.is_zero()), "{what}: {status:?}");
}

async fn unfinished(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM partial_responses WHERE completed_at IS NULL")
        .fetch_one(&app.pool)
        .await
        .expect("counting partials")
}

async fn staged_files(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM response_files WHERE response_id IS NULL")
        .fetch_one(&app.pool)
        .await
        .expect("counting staged files")
}

#[tokio::test]
async fn one_visitor_leaves_at_most_ten_unfinished_partials_on_a_form() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, two_pages(), Value::Null).await;
    let mut robot = Visitor::at(&app, 2).await;
    for n in 0..10 {
        let saved = robot.begin(&form, None).await;
        assert!(saved.is_ok(), "partial {n}: {saved:?}");
    }
    assert_capped(robot.begin(&form, None).await, "the eleventh partial");
    assert_eq!(unfinished(&app).await, 10);
    // Another visitor is not held back by the first.
    let mut other = Visitor::at(&app, 3).await;
    other.begin(&form, None).await.expect("another visitor's");
    assert_eq!(unfinished(&app).await, 11);
}

#[tokio::test]
async fn a_partial_begins_only_while_the_owners_response_quota_has_room() {
    let app = TestApp::spawn_with(&["--pro-response-limit", "1"]).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, two_pages(), Value::Null).await;
    let ids = field_ids(&form);
    let mut visitor = Visitor::at(&app, 2).await;
    visitor
        .begin(&form, None)
        .await
        .expect("a partial while there is room");
    // The month's one response, through the API.
    let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
    let body = json!({"answers": {&ids[0]: "Grace", &ids[3]: "grace@example.com"}});
    app.post(&path, &key, &body).await.ok(201);
    let refused = visitor
        .begin(&form, Some(png_of(1 << 20)))
        .await
        .expect_err("no room left in the quota");
    assert_eq!(
        refused.code(),
        tonic::Code::ResourceExhausted,
        "{refused:?}"
    );
    assert!(refused.message().contains("response limit"), "{refused:?}");
    assert_eq!(
        unfinished(&app).await,
        1,
        "the refused page left no partial"
    );
    assert_eq!(staged_files(&app).await, 0, "nor its file");
}

#[tokio::test]
async fn partials_and_their_files_are_capped_per_form_and_per_account() {
    let app = TestApp::spawn_with(&[
        "--partials-per-form",
        "3",
        "--partials-per-account",
        "4",
        "--partial-file-bytes-per-account",
        "3500000",
    ])
    .await;
    let key = app.key(PRO, ALL).await;
    let first = published_form(&app, &key, two_pages(), Value::Null).await;
    let second = published_form(&app, &key, two_pages(), Value::Null).await;
    let mut visitors = Vec::new();
    for n in 2..9 {
        visitors.push(Visitor::at(&app, n).await);
    }
    // Three visitors fill the first form, one file of 1 MiB each.
    for visitor in &mut visitors[..3] {
        visitor
            .begin(&first, Some(png_of(1 << 20)))
            .await
            .expect("a partial with its file");
    }
    assert_capped(
        visitors[3].begin(&first, None).await,
        "a fourth partial of the form",
    );
    // The account has room for one more partial, on its other form, but not for
    // another mebibyte of files (three are held).
    assert_capped(
        visitors[3].begin(&second, Some(png_of(1 << 20))).await,
        "a file past the account's bytes",
    );
    visitors[3]
        .begin(&second, None)
        .await
        .expect("the account's fourth");
    assert_capped(
        visitors[4].begin(&second, None).await,
        "a fifth of the account",
    );
    assert_eq!(unfinished(&app).await, 4);
    assert_eq!(
        staged_files(&app).await,
        3,
        "refused pages' files are not kept"
    );
}

impl Visitor {
    /// The hosted page of `form` as this visitor opens it with `resume_token`.
    async fn open(&mut self, form: &Value, resume_token: &str) -> pb::GetHostedFormResponse {
        self.hosted
            .get_hosted_form(pb::GetHostedFormRequest {
                short_id: form["short_id"].as_str().expect("short id").to_owned(),
                csrf_nonce: NONCE.to_owned(),
                resume_token: resume_token.to_owned(),
                ..Default::default()
            })
            .await
            .expect("GetHostedForm")
            .into_inner()
    }

    /// Posts `page` of `form` with `answers`, under `resume_token`.
    async fn post(
        &mut self,
        form: &Value,
        page: i32,
        resume_token: &str,
        answers: Value,
    ) -> pb::SubmitHostedFormResponse {
        let opened = self.open(form, resume_token).await;
        self.hosted
            .submit_hosted_form(pb::SubmitHostedFormRequest {
                short_id: form["short_id"].as_str().expect("short id").to_owned(),
                start_token: opened.start_token,
                csrf_nonce: NONCE.to_owned(),
                answers: Some(pb::convert::object_to_struct(
                    answers.as_object().expect("answers"),
                )),
                user_agent: DESKTOP.to_owned(),
                page,
                resume_token: resume_token.to_owned(),
                ..Default::default()
            })
            .await
            .expect("the page is saved")
            .into_inner()
    }
}

/// Finding 9: a visitor who opened someone else's `?resume=` link and saved a page
/// showed their answers to the link's maker. A response moves to the visitor who saves
/// a page of it from elsewhere: they get a new token, and the link's reaches it no more.
#[tokio::test]
async fn a_resume_link_saved_from_elsewhere_moves_the_response_away_from_its_maker() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let fields = json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "file_upload", "label": "Photo", "required": false,
         "allowed_types": ["png"], "max_size_mb": 2},
        {"type": "page_break", "label": "Private"},
        {"type": "short_text", "label": "Secret", "required": true},
        {"type": "page_break", "label": "Last"},
        {"type": "email", "label": "Email", "required": true},
    ]);
    let form = published_form(&app, &key, fields, Value::Null).await;
    let ids = field_ids(&form);
    let mut maker = Visitor::at(&app, 2).await;
    let begun = maker.begin(&form, None).await.expect("the maker's page");
    let link = begun.progress.expect("progress").resume_token;

    let mut victim = Visitor::at(&app, 3).await;
    let saved = victim
        .post(&form, 2, &link, json!({&ids[3]: "victim-secret"}))
        .await;
    let moved = saved.progress.expect("progress").resume_token;
    assert!(!moved.is_empty());
    assert_ne!(
        moved, link,
        "the response moved to the visitor who saved it"
    );

    let seen = maker.open(&form, &link).await;
    assert!(
        !format!("{seen:?}").contains("victim-secret"),
        "the link's maker sees the visitor's answers: {seen:?}"
    );
    let own = victim.open(&form, &moved).await;
    assert!(format!("{own:?}").contains("victim-secret"), "{own:?}");

    // The same visitor saving again keeps its token: a double click, or a link it
    // copied to continue later, still reaches the response.
    let again = victim
        .post(&form, 2, &moved, json!({&ids[3]: "victim-secret-2"}))
        .await;
    assert_eq!(again.progress.expect("progress").resume_token, moved);
}
