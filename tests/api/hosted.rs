//! Hosted form pages (`/f/{short_id}`): the page, browser submissions with the SPEC
//! browser fields, CSRF protection, honeypot, throttle, validation shown in the page,
//! closed forms, and `submittedVia: "form"` events.

use crate::fixtures::*;
use crate::harness::*;
use serde_json::{Value, json};
use std::time::Duration;

const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
pub const DESKTOP: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

/// A browser of one visitor: its cookie, no redirects followed.
pub struct Visitor {
    pub client: reqwest::Client,
    pub origin: String,
    pub cookie: Option<String>,
}

/// What a page answered.
pub struct Page {
    pub status: u16,
    pub html: String,
    pub location: Option<String>,
    pub request_id: String,
}

impl Page {
    /// The value of the hidden start token.
    pub fn token(&self) -> String {
        let start = self
            .html
            .find("name=\"_token\" value=\"")
            .expect("token field")
            + 21;
        let end = self.html[start..].find('"').expect("token end");
        self.html[start..start + end].to_owned()
    }
}

impl Visitor {
    pub fn new(app: &TestApp) -> Visitor {
        Visitor {
            client: reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            origin: app.http_base.trim_end_matches("/api/v1").to_owned(),
            cookie: None,
        }
    }

    pub async fn finish(&mut self, reply: reqwest::Response) -> Page {
        if let Some(set) = reply
            .headers()
            .get("set-cookie")
            .and_then(|v| v.to_str().ok())
        {
            self.cookie = set.split(';').next().map(str::to_owned);
        }
        let status = reply.status().as_u16();
        let location = reply
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let request_id = reply
            .headers()
            .get("x-request-id")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        Page {
            status,
            html: reply.text().await.expect("page body"),
            location,
            request_id,
        }
    }

    pub async fn open(&mut self, short_id: &str) -> Page {
        let mut request = self.client.get(format!("{}/f/{short_id}", self.origin));
        if let Some(cookie) = &self.cookie {
            request = request.header("cookie", cookie);
        }
        let reply = request.send().await.expect("GET page");
        self.finish(reply).await
    }

    pub async fn submit(
        &mut self,
        short_id: &str,
        user_agent: &str,
        fields: &[(&str, &str)],
    ) -> Page {
        let body = serde_urlencoded::to_string(fields).expect("form body");
        let mut request = self
            .client
            .post(format!("{}/f/{short_id}", self.origin))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("user-agent", user_agent)
            .body(body);
        if let Some(cookie) = &self.cookie {
            request = request.header("cookie", cookie);
        }
        let reply = request.send().await.expect("POST page");
        self.finish(reply).await
    }
}

struct Setup {
    app: TestApp,
    key: String,
    form: Value,
    fields: Vec<String>,
}

impl Setup {
    async fn new(extra: &[&str], settings: Value) -> Setup {
        let app = TestApp::spawn_with(extra).await;
        let key = app.key(PRO, ALL).await;
        let form = published_form(&app, &key, contact_fields(), settings).await;
        let fields = field_ids(&form);
        Setup {
            app,
            key,
            form,
            fields,
        }
    }

    fn short_id(&self) -> String {
        self.form["short_id"].as_str().expect("short id").to_owned()
    }

    fn form_id(&self) -> String {
        self.form["id"].as_str().expect("form id").to_owned()
    }

    async fn responses(&self) -> Vec<Value> {
        let reply = self
            .app
            .get(&format!("/forms/{}/responses", self.form_id()), &self.key)
            .await;
        reply.ok(200)["responses"]
            .as_array()
            .expect("responses")
            .clone()
    }
}

#[tokio::test]
async fn the_page_shows_every_field_with_its_label_and_required_marker() {
    let s = Setup::new(&[], Value::Null).await;
    let mut visitor = Visitor::new(&s.app);
    let page = visitor.open(&s.short_id()).await;
    assert_eq!(page.status, 200);
    for label in ["Name", "Email", "Age", "Bio"] {
        assert!(
            page.html.contains(&format!(">{label}")),
            "label {label} missing"
        );
    }
    assert!(page.html.contains("type=\"email\""));
    assert!(page.html.contains("type=\"number\""));
    assert!(page.html.contains("<textarea"));
    assert_eq!(page.html.matches("aria-required=\"true\"").count(), 2);
    assert!(page.html.contains("name=\"viewport\""), "mobile viewport");
    assert!(
        !page.html.contains("http://") && !page.html.contains("https://"),
        "no external assets"
    );
    assert!(!page.token().is_empty());
    assert!(
        visitor
            .cookie
            .as_deref()
            .is_some_and(|c| c.starts_with("formsd_csrf="))
    );
}

#[tokio::test]
async fn draft_and_unknown_forms_are_404_and_closed_forms_410() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let draft = app.create_form(&key, &json!({"title": "Draft"})).await;
    let mut visitor = Visitor::new(&app);
    assert_eq!(
        visitor
            .open(draft["short_id"].as_str().expect("short id"))
            .await
            .status,
        404
    );
    assert_eq!(visitor.open("nope1234").await.status, 404);
    // Posting to them is no different from opening them.
    for short_id in [draft["short_id"].as_str().expect("short id"), "nope1234"] {
        let page = visitor
            .submit(short_id, DESKTOP, &[("_token", "x"), ("a", "b")])
            .await;
        assert_eq!(page.status, 404, "{}", page.html);
    }
    let closed = published_form(
        &app,
        &key,
        contact_fields(),
        json!({"closes_at": "2000-01-01T00:00:00Z"}),
    )
    .await;
    let page = visitor
        .open(closed["short_id"].as_str().expect("short id"))
        .await;
    assert_eq!(page.status, 410);
    assert!(page.html.contains("closed"));
}

#[tokio::test]
async fn a_browser_submission_is_stored_with_the_browser_fields() {
    let s = Setup::new(&[], json!({"confirmation_message": "Merci!"})).await;
    let mut visitor = Visitor::new(&s.app);
    let token = visitor.open(&s.short_id()).await.token();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let fields = &s.fields;
    let page = visitor
        .submit(
            &s.short_id(),
            IPHONE,
            &[
                ("_token", &token),
                (&fields[0], "Ada"),
                (&fields[1], "ada@example.com"),
                (&fields[2], "36"),
                ("website", ""),
            ],
        )
        .await;
    assert_eq!(page.status, 200);
    assert!(page.html.contains("Merci!"));
    let responses = s.responses().await;
    assert_eq!(responses.len(), 1);
    let r = &responses[0];
    assert_eq!(r["metadata"], json!({}));
    assert_eq!(r["device_type"], "mobile");
    assert_eq!(r["browser"], "Safari");
    assert_eq!(r["os"], "iOS");
    assert!(
        r["completion_time_seconds"]
            .as_i64()
            .is_some_and(|s| s >= 1),
        "{r}"
    );
    assert_eq!(r["answers"][&fields[2]], json!(36));
    let started = assert_timestamp(&r["started_at"]);
    let submitted = assert_timestamp(&r["submitted_at"]);
    assert!(started < submitted);

    let token = visitor.open(&s.short_id()).await.token();
    visitor
        .submit(
            &s.short_id(),
            DESKTOP,
            &[
                ("_token", &token),
                (&fields[0], "Bob"),
                (&fields[1], "bob@example.com"),
            ],
        )
        .await;
    let desktop = s
        .responses()
        .await
        .into_iter()
        .find(|r| r["answers"][&fields[0]] == "Bob")
        .expect("Bob");
    assert_eq!(desktop["device_type"], "desktop");
    assert_eq!(desktop["browser"], "Chrome");
}

#[tokio::test]
async fn a_redirect_url_sends_the_visitor_on() {
    let s = Setup::new(&[], json!({"redirect_url": "https://example.com/thanks"})).await;
    let mut visitor = Visitor::new(&s.app);
    let token = visitor.open(&s.short_id()).await.token();
    let page = visitor
        .submit(
            &s.short_id(),
            DESKTOP,
            &[
                ("_token", &token),
                (&s.fields[0], "Ada"),
                (&s.fields[1], "ada@example.com"),
            ],
        )
        .await;
    assert_eq!(page.status, 303);
    assert_eq!(page.location.as_deref(), Some("https://example.com/thanks"));
}

#[tokio::test]
async fn invalid_answers_rerender_the_page_with_input_kept_and_messages_by_their_fields() {
    let s = Setup::new(&[], Value::Null).await;
    let mut visitor = Visitor::new(&s.app);
    let token = visitor.open(&s.short_id()).await.token();
    let page = visitor
        .submit(
            &s.short_id(),
            DESKTOP,
            &[
                ("_token", &token),
                (&s.fields[0], "Ada <3"),
                (&s.fields[1], "not-an-email"),
            ],
        )
        .await;
    assert_eq!(page.status, 422);
    assert!(
        page.html.contains("value=\"Ada &lt;3\""),
        "input kept and escaped"
    );
    assert!(
        page.html.contains(&format!("id=\"e-{}\"", s.fields[1])),
        "message next to the email field"
    );
    assert!(page.html.contains("Email must be an email address"));
    assert!(
        !page.html.contains(&format!("id=\"e-{}\"", s.fields[0])),
        "no message for a valid field"
    );
    assert!(s.responses().await.is_empty());
}

#[tokio::test]
async fn submissions_without_the_page_token_and_cookie_are_refused() {
    let s = Setup::new(&[], Value::Null).await;
    let answers = [
        (s.fields[0].as_str(), "Ada"),
        (s.fields[1].as_str(), "ada@example.com"),
    ];
    // No token at all.
    let mut visitor = Visitor::new(&s.app);
    visitor.open(&s.short_id()).await;
    let page = visitor.submit(&s.short_id(), DESKTOP, &answers).await;
    assert_eq!(page.status, 403);
    // A real token, but from another visitor's page (the cookie does not match).
    let mut other = Visitor::new(&s.app);
    let token = other.open(&s.short_id()).await.token();
    let mut forged: Vec<(&str, &str)> = vec![("_token", &token)];
    forged.extend(answers);
    assert_eq!(
        visitor.submit(&s.short_id(), DESKTOP, &forged).await.status,
        403
    );
    // A token without any cookie (a cross-site post).
    let mut stranger = Visitor::new(&s.app);
    assert_eq!(
        stranger
            .submit(&s.short_id(), DESKTOP, &forged)
            .await
            .status,
        403
    );
    assert!(s.responses().await.is_empty());
    // The owner of the token succeeds.
    assert_eq!(
        other.submit(&s.short_id(), DESKTOP, &forged).await.status,
        200
    );
    assert_eq!(s.responses().await.len(), 1);
}

#[tokio::test]
async fn the_honeypot_drops_robot_submissions_quietly() {
    let s = Setup::new(&[], Value::Null).await;
    let mut visitor = Visitor::new(&s.app);
    let token = visitor.open(&s.short_id()).await.token();
    let page = visitor
        .submit(
            &s.short_id(),
            DESKTOP,
            &[
                ("_token", &token),
                (&s.fields[0], "Bot"),
                (&s.fields[1], "bot@example.com"),
                ("website", "http://spam.example"),
            ],
        )
        .await;
    assert_eq!(page.status, 200, "a robot is told all went well");
    assert!(s.responses().await.is_empty(), "but nothing is stored");
    // The core's note of it can be found by the request id, like the edge's access line.
    let logs = s.app.logs();
    logs.logged(
        &page.request_id,
        "hosted submission dropped by the honeypot",
    )
    .await;
    let of_request = logs.logged(&page.request_id, "request").await;
    let messages: Vec<&str> = of_request
        .iter()
        .filter_map(|l| l["fields"]["message"].as_str())
        .collect();
    assert!(
        messages.contains(&"hosted submission dropped by the honeypot")
            && messages.contains(&"request"),
        "{messages:?}\n{}",
        s.app.logs().text()
    );
}

#[tokio::test]
async fn submissions_are_throttled_per_visitor_ip() {
    let s = Setup::new(&["--hosted-submissions-per-minute", "2"], Value::Null).await;
    let mut visitor = Visitor::new(&s.app);
    let mut statuses = Vec::new();
    for i in 0..3 {
        let token = visitor.open(&s.short_id()).await.token();
        let name = format!("P{i}");
        let page = visitor
            .submit(
                &s.short_id(),
                DESKTOP,
                &[
                    ("_token", &token),
                    (&s.fields[0], &name),
                    (&s.fields[1], "p@example.com"),
                ],
            )
            .await;
        statuses.push(page.status);
    }
    assert_eq!(statuses, [200, 200, 429]);
    assert_eq!(s.responses().await.len(), 2);
}

#[tokio::test]
async fn browser_submissions_fire_form_submitted_with_submitted_via_form() {
    let receiver = Receiver::start().await;
    let s = Setup::new(&["--webhook-allow-private"], Value::Null).await;
    let hook = json!({"name": "crm", "url": receiver.url("/hook"), "events": ["form.submitted"]});
    s.app
        .post(&format!("/forms/{}/webhooks", s.form_id()), &s.key, &hook)
        .await
        .ok(201);
    let mut visitor = Visitor::new(&s.app);
    let token = visitor.open(&s.short_id()).await.token();
    visitor
        .submit(
            &s.short_id(),
            IPHONE,
            &[
                ("_token", &token),
                (&s.fields[0], "Ada"),
                (&s.fields[1], "ada@example.com"),
            ],
        )
        .await;
    let hits = receiver.wait_for("/hook", 1, Duration::from_secs(20)).await;
    let body = hits[0].json();
    assert_eq!(body["event"], "form.submitted");
    assert_eq!(body["data"]["submittedVia"], "form");
    assert_eq!(body["data"]["answers"][&s.fields[0]], "Ada");
}

#[tokio::test]
async fn quiz_answers_are_not_in_the_page() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let fields = json!([{"type": "short_text", "label": "Capital of France", "required": true, "correct_answer": "Paris", "points": 2}]);
    let form = published_form(&app, &key, fields, Value::Null).await;
    let page = Visitor::new(&app)
        .open(form["short_id"].as_str().expect("short id"))
        .await;
    assert_eq!(page.status, 200);
    assert!(page.html.contains("Capital of France"));
    assert!(!page.html.contains("Paris"));
}

#[tokio::test]
async fn a_refused_page_is_shown_again_with_a_token_that_works() {
    let s = Setup::new(&[], Value::Null).await;
    let answers = [
        (s.fields[0].as_str(), "Ada"),
        (s.fields[1].as_str(), "ada@example.com"),
    ];
    // Invalid answers: the page again, whose own token then succeeds.
    let mut visitor = Visitor::new(&s.app);
    let token = visitor.open(&s.short_id()).await.token();
    let invalid = [
        ("_token", token.as_str()),
        (s.fields[0].as_str(), "Ada"),
        (s.fields[1].as_str(), "nope"),
    ];
    let page = visitor.submit(&s.short_id(), DESKTOP, &invalid).await;
    assert_eq!(page.status, 422);
    let mut again: Vec<(&str, &str)> = Vec::new();
    let token = page.token();
    again.push(("_token", &token));
    again.extend(answers);
    assert_eq!(
        visitor.submit(&s.short_id(), DESKTOP, &again).await.status,
        200
    );
    // A post without cookie or token (the page expired with its cookie): the page
    // again, setting a cookie for the token it carries, kept answers, then success.
    let mut stranger = Visitor::new(&s.app);
    let page = stranger.submit(&s.short_id(), DESKTOP, &answers).await;
    assert_eq!(page.status, 403);
    assert!(stranger.cookie.is_some(), "the page sets its nonce cookie");
    assert!(
        page.html.contains("value=\"ada@example.com\""),
        "answers kept"
    );
    let token = page.token();
    let mut again: Vec<(&str, &str)> = vec![("_token", &token)];
    again.extend(answers);
    assert_eq!(
        stranger.submit(&s.short_id(), DESKTOP, &again).await.status,
        200
    );
    assert_eq!(s.responses().await.len(), 2);
}

/// Over gRPC: a refused SubmitHostedForm carries the page (form and a fresh token) as
/// an error detail beside the ErrorInfo, so the edge needs no second call.
#[tokio::test]
async fn grpc_a_refused_submission_carries_the_page_to_show_again() {
    use ::forms::pb::{self, hosted_forms_service_client::HostedFormsServiceClient};
    use tonic_types::StatusExt;

    let s = Setup::new(&[], Value::Null).await;
    let channel = tonic::transport::Channel::from_shared(s.app.grpc_url.clone())
        .expect("gRPC URL")
        .connect()
        .await
        .expect("connecting to the core");
    let mut hosted = HostedFormsServiceClient::new(channel);
    let nonce = "0123456789abcdef0123456789abcdef".to_owned();
    let answers = |email: &str| {
        let text = |t: &str| ::forms::pb::convert::json_to_value(&json!(t));
        prost_types::Struct {
            fields: [
                (s.fields[0].clone(), text("Ada")),
                (s.fields[1].clone(), text(email)),
            ]
            .into(),
        }
    };
    let submit = |token: String, email: &str| pb::SubmitHostedFormRequest {
        short_id: s.short_id(),
        start_token: token,
        csrf_nonce: nonce.clone(),
        answers: Some(answers(email)),
        user_agent: DESKTOP.to_owned(),
        honeypot_filled: false,
        files: Vec::new(),
        ..Default::default()
    };
    let page = hosted
        .get_hosted_form(pb::GetHostedFormRequest {
            short_id: s.short_id(),
            csrf_nonce: nonce.clone(),
            ..Default::default()
        })
        .await
        .expect("page")
        .into_inner();

    for (request, reason) in [
        (submit(page.start_token.clone(), "nope"), "VALIDATION_ERROR"),
        (
            submit("forged".to_owned(), "ada@example.com"),
            "CSRF_FAILED",
        ),
    ] {
        let refused = hosted
            .submit_hosted_form(request)
            .await
            .expect_err("refused");
        let info = refused.get_details_error_info().expect("ErrorInfo");
        assert_eq!(info.reason, reason);
        if reason == "VALIDATION_ERROR" {
            assert_eq!(
                info.metadata
                    .get(&format!("field.{}", s.fields[1]))
                    .map(String::as_str),
                Some("Email must be an email address")
            );
        }
        let again = ::forms::pb::details::detail::<pb::HostedFormPage>(&refused)
            .expect("HostedFormPage detail");
        let form = again.form.expect("form");
        assert_eq!(form.id, s.form_id());
        assert_eq!(form.fields.len(), s.fields.len());
        // The fresh token is bound to the same nonce and works.
        let stored = hosted
            .submit_hosted_form(submit(again.start_token, "ada@example.com"))
            .await
            .expect("accepted")
            .into_inner();
        assert!(!stored.response_id.is_empty());
    }
    // Other refusals carry no page.
    let mut unknown = submit(page.start_token, "ada@example.com");
    unknown.short_id = "nosuchform".to_owned();
    let refused = hosted.submit_hosted_form(unknown).await.expect_err("404");
    assert!(::forms::pb::details::detail::<pb::HostedFormPage>(&refused).is_none());
    assert_eq!(s.responses().await.len(), 2);
}

/// The headers of a hosted page.
async fn page_headers(app: &TestApp, path: &str) -> reqwest::header::HeaderMap {
    let origin = app.http_base.trim_end_matches("/api/v1");
    let reply = app
        .client
        .get(format!("{origin}{path}"))
        .send()
        .await
        .expect("GET page");
    reply.headers().clone()
}

#[tokio::test]
async fn pages_carry_a_content_security_policy_and_no_sniffing() {
    let s = Setup::new(
        &["--frame-ancestors", "'self' https://embed.example"],
        json!({"redirect_url": "https://example.com/thanks"}),
    )
    .await;
    let headers = page_headers(&s.app, &format!("/f/{}", s.short_id())).await;
    let csp = headers["content-security-policy"].to_str().expect("ascii");
    assert!(csp.starts_with("default-src 'none'; "), "{csp}");
    // Our inline sheet by its hash, and a form's theme from our own origin.
    assert!(csp.contains("style-src 'self' 'sha256-"), "{csp}");
    assert!(csp.contains("img-src 'self';"), "{csp}");
    assert!(!csp.contains("unsafe"), "{csp}");
    // Posts go to the page itself, and may lead on to the form's redirect.
    assert!(
        csp.contains("form-action 'self' https://example.com;"),
        "{csp}"
    );
    assert!(
        csp.ends_with("frame-ancestors 'self' https://embed.example"),
        "{csp}"
    );
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["referrer-policy"], "same-origin");

    // Error pages too, with posts to the page only; by default anyone may embed.
    let other = TestApp::spawn().await;
    let headers = page_headers(&other, "/f/nosuchform").await;
    let csp = headers["content-security-policy"].to_str().expect("ascii");
    assert!(csp.contains("form-action 'self';"), "{csp}");
    assert!(csp.ends_with("frame-ancestors *"), "{csp}");
    assert_eq!(headers["x-content-type-options"], "nosniff");
}

#[tokio::test]
async fn a_page_framed_by_another_site_keeps_its_nonce_in_the_page() {
    let s = Setup::new(&[], Value::Null).await;
    let origin = s.app.http_base.trim_end_matches("/api/v1").to_owned();
    let url = format!("{origin}/f/{}", s.short_id());
    let client = &s.app.client;
    // Framed: no cookie (the browser would withhold it), the nonce is in the page.
    let reply = client
        .get(&url)
        .header("sec-fetch-dest", "iframe")
        .header("sec-fetch-site", "cross-site")
        .send()
        .await
        .expect("GET");
    assert!(reply.headers().get("set-cookie").is_none());
    let page = Page {
        status: reply.status().as_u16(),
        location: None,
        request_id: String::new(),
        html: reply.text().await.expect("html"),
    };
    assert_eq!(page.status, 200);
    let token = page.token();
    let start = page
        .html
        .find("name=\"_nonce\" value=\"")
        .expect("nonce field")
        + 21;
    let nonce = page.html[start..start + 32].to_owned();
    let post = |site: Option<&'static str>, name: &'static str| {
        let body = serde_urlencoded::to_string([
            ("_token", token.as_str()),
            ("_nonce", nonce.as_str()),
            (s.fields[0].as_str(), name),
            (s.fields[1].as_str(), "framed@example.com"),
        ])
        .expect("form body");
        let mut request = client
            .post(&url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body);
        if let Some(site) = site {
            request = request.header("sec-fetch-site", site);
        }
        async move { request.send().await.expect("POST").status().as_u16() }
    };
    // Another site posting, or a browser that does not say where the post comes from:
    // refused, as without the cookie before.
    assert_eq!(post(Some("cross-site"), "Mallory").await, 403);
    assert_eq!(post(None, "Mallory").await, 403);
    // The framed page itself posting: accepted.
    assert_eq!(post(Some("same-origin"), "Framed").await, 200);
    let responses = s.responses().await;
    let names: Vec<&Value> = responses
        .iter()
        .map(|r| &r["answers"][&s.fields[0]])
        .collect();
    assert_eq!(names, [&json!("Framed")]);
}

#[tokio::test]
async fn submissions_with_more_parts_than_any_form_are_refused() {
    let s = Setup::new(&[], Value::Null).await;
    let mut visitor = Visitor::new(&s.app);
    let token = visitor.open(&s.short_id()).await.token();
    let names: Vec<String> = (0..300).map(|i| format!("x{i}")).collect();
    let mut texts: Vec<(&str, &str)> = vec![("_token", token.as_str())];
    texts.extend(names.iter().map(|n| (n.as_str(), "y")));
    let page = visitor.submit_multipart(&s.short_id(), &texts, &[]).await;
    assert_eq!(page.status, 413, "{}", page.html);
    let page = visitor.submit(&s.short_id(), DESKTOP, &texts).await;
    assert_eq!(page.status, 413, "{}", page.html);
    assert!(s.responses().await.is_empty());
    // A form's own parts are well within the bound.
    let page = visitor
        .submit(
            &s.short_id(),
            DESKTOP,
            &[
                ("_token", &token),
                (&s.fields[0], "Ada"),
                (&s.fields[1], "ada@example.com"),
            ],
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.html);
}

#[tokio::test]
async fn a_browser_submission_counts_against_the_accounts_response_quota() {
    // The hosted page stores through the same quota-and-insert statement as the API.
    let s = Setup::new(&["--pro-response-limit", "1"], Value::Null).await;
    let fields = &s.fields;
    let mut visitor = Visitor::new(&s.app);
    let first = visitor.open(&s.short_id()).await.token();
    let second = visitor.open(&s.short_id()).await.token();
    for (token, name, status) in [(&first, "Ada", 200), (&second, "Bob", 403)] {
        let email = format!("{name}@example.com");
        let answers = [
            ("_token", token.as_str()),
            (fields[0].as_str(), name),
            (fields[1].as_str(), email.as_str()),
        ];
        let page = visitor.submit(&s.short_id(), DESKTOP, &answers).await;
        assert_eq!(page.status, status, "{name}: {}", page.html);
        if status == 403 {
            assert!(
                page.html.contains("not accepting responses"),
                "{}",
                page.html
            );
        }
    }
    assert_eq!(
        s.responses().await.len(),
        1,
        "the refused one is not stored"
    );
}

#[tokio::test]
async fn concurrent_browser_submissions_are_stored_once_each_in_order_up_to_the_cap() {
    // Submissions arriving together share the form's transactions, as API creates do:
    // each is still judged alone, in arrival order, against the form's cap.
    let extra = ["--hosted-submissions-per-minute", "1000"];
    let s = Setup::new(&extra, json!({"max_responses": 10})).await;
    // Every page is open before any is submitted: a page opened after the cap is
    // reached says the form is closed, and has no form to submit.
    let mut visitors = Vec::new();
    for n in 0..24 {
        let mut visitor = Visitor::new(&s.app);
        let token = visitor.open(&s.short_id()).await.token();
        visitors.push((n, visitor, token));
    }
    let mut tasks = tokio::task::JoinSet::new();
    for (n, mut visitor, token) in visitors {
        let (short_id, fields) = (s.short_id(), s.fields.clone());
        tasks.spawn(async move {
            let (name, email) = (format!("Person {n}"), format!("p{n}@example.com"));
            let answers = [
                ("_token", token.as_str()),
                (fields[0].as_str(), name.as_str()),
                (fields[1].as_str(), email.as_str()),
            ];
            visitor.submit(&short_id, DESKTOP, &answers).await
        });
    }
    let mut statuses = Vec::new();
    while let Some(page) = tasks.join_next().await {
        let page = page.expect("visitor task");
        assert!([200, 410].contains(&page.status), "{}", page.html);
        statuses.push(page.status);
    }
    assert_eq!(statuses.iter().filter(|&&s| s == 200).count(), 10);
    let responses = s.responses().await;
    assert_eq!(responses.len(), 10, "the cap holds: {responses:?}");
    let mut times: Vec<_> = responses
        .iter()
        .map(|r| assert_timestamp(&r["submitted_at"]))
        .collect();
    let listed = times.clone();
    times.sort();
    times.dedup();
    assert_eq!(
        times.len(),
        10,
        "each response has its own time: {listed:?}"
    );
}

#[tokio::test]
async fn a_token_of_one_forms_page_is_refused_at_another_forms_address() {
    let s = Setup::new(&[], Value::Null).await;
    let other = published_form(&s.app, &s.key, contact_fields(), Value::Null).await;
    let other_short_id = other["short_id"].as_str().expect("short id");
    let mut visitor = Visitor::new(&s.app);
    let token = visitor.open(&s.short_id()).await.token();
    let other_fields = field_ids(&other);
    let answers = [
        ("_token", token.as_str()),
        (other_fields[0].as_str(), "Ada"),
        (other_fields[1].as_str(), "ada@example.com"),
    ];
    let page = visitor.submit(other_short_id, DESKTOP, &answers).await;
    assert_eq!(page.status, 403, "{}", page.html);
    assert!(s.responses().await.is_empty());
    let stored = count(
        &s.app,
        "SELECT count(*) FROM responses WHERE form_id = $1",
        other["id"].as_str().expect("id"),
    )
    .await;
    assert_eq!(stored, 0);
}

#[tokio::test]
async fn the_confirmation_is_the_forms_as_each_submission_finds_it() {
    // The second submission is stored in one statement on this instance's view of the
    // form; a change made through another instance moves that view, and the next
    // visitor sees the new message.
    let s = Setup::new(&[], json!({"confirmation_message": "Merci!"})).await;
    let other = TestApp::spawn_on(s.app.db.clone(), &[]).await;
    let mut visitor = Visitor::new(&s.app);
    let mut submit = async |name: &str| {
        let token = visitor.open(&s.short_id()).await.token();
        let email = format!("{name}@example.com");
        let answers = [
            ("_token", token.as_str()),
            (s.fields[0].as_str(), name),
            (s.fields[1].as_str(), email.as_str()),
        ];
        let page = visitor.submit(&s.short_id(), DESKTOP, &answers).await;
        assert_eq!(page.status, 200, "{}", page.html);
        page.html
    };
    assert!(submit("Ada").await.contains("Merci!"));
    assert!(submit("Bob").await.contains("Merci!"));
    let changed = json!({"settings": {"confirmation_message": "Danke!"}});
    let path = format!("/forms/{}", s.form_id());
    other.put(&path, &s.key, &changed).await.ok(200);
    let page = submit("Cleo").await;
    assert!(
        page.contains("Danke!") && !page.contains("Merci!"),
        "{page}"
    );
    assert_eq!(s.responses().await.len(), 3);
}
