//! Endpoint mode of `/f/{short_id}` (the Formspree model): the owner's own HTML form on
//! another site posts to the form, without our page's token. Over real HTTP on the
//! spawned binary: urlencoded, multipart (with a file) and JSON posts from an allowed
//! origin are stored as the hosted page's are (browser fields, files, `submittedVia:
//! "form"`); other origins, no origin, forms without `allowed_origins` are refused with
//! nothing stored; CORS preflights are answered for allowed origins only; validation
//! errors, the honeypot and the per-IP throttle.

use crate::fixtures::*;
use crate::harness::*;
use crate::uploads::{PNG, multipart};
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;

const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const SITE: &str = "https://www.example.com";

struct Setup {
    app: TestApp,
    key: String,
    form: Value,
    /// Name, Email, Age, Bio, CV.
    fields: Vec<String>,
    /// Answers no redirect: a browser's form post is judged by its first answer.
    client: reqwest::Client,
}

impl Setup {
    /// A published contact form with a CV field, taking posts from `SITE` (written in
    /// another case, with a trailing slash: the service normalises it) unless
    /// `settings` says otherwise.
    async fn new(extra: &[&str], settings: Value) -> Setup {
        let app = TestApp::spawn_with(extra).await;
        let key = app.key(PRO, ALL).await;
        let mut fields = contact_fields();
        let cv = json!({"type": "file_upload", "label": "CV", "required": false, "allowed_types": ["png"], "max_size_mb": 1});
        fields.as_array_mut().expect("fields").push(cv);
        let settings = if settings.is_null() {
            json!({"allowed_origins": ["https://WWW.Example.com/", "http://localhost:8080"], "confirmation_message": "Thanks, Ada!"})
        } else {
            settings
        };
        let form = published_form(&app, &key, fields, settings).await;
        let fields = field_ids(&form);
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        Setup {
            app,
            key,
            form,
            fields,
            client,
        }
    }

    fn url(&self) -> String {
        format!(
            "{}/f/{}",
            self.app.http_base.trim_end_matches("/api/v1"),
            self.form["short_id"].as_str().expect("short id")
        )
    }

    fn form_id(&self) -> String {
        self.form["id"].as_str().expect("form id").to_owned()
    }

    /// A post as a browser on a page of `origin` sends it (`None`: no Origin header).
    fn post(&self, origin: Option<&str>) -> reqwest::RequestBuilder {
        self.post_from(origin, "cross-site")
    }

    /// A post with its `Sec-Fetch-Site`.
    fn post_from(&self, origin: Option<&str>, site: &str) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .post(self.url())
            .header("user-agent", IPHONE)
            .header("sec-fetch-site", site);
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request
    }

    fn form_post(&self, origin: Option<&str>, pairs: &[(&str, &str)]) -> reqwest::RequestBuilder {
        self.post(origin)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(serde_urlencoded::to_string(pairs).expect("form body"))
    }

    fn json_post(&self, origin: Option<&str>, answers: &Value) -> reqwest::RequestBuilder {
        self.post(origin)
            .header("content-type", "application/json")
            .body(answers.to_string())
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

fn cors_headers(reply: &Reply) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = reply
        .headers
        .iter()
        .filter(|(name, _)| name.as_str().starts_with("access-control-"))
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                value.to_str().expect("text").to_owned(),
            )
        })
        .collect();
    headers.sort();
    headers
}

fn allows(reply: &Reply, origin: &str) -> bool {
    reply
        .headers
        .get("access-control-allow-origin")
        .is_some_and(|v| v == origin)
}

#[tokio::test]
async fn posts_from_an_allowed_origin_are_stored_as_the_hosted_pages_are() {
    let receiver = Receiver::start().await;
    let s = Setup::new(&["--webhook-allow-private"], Value::Null).await;
    // The setting is stored as browsers write origins.
    assert_eq!(
        s.form["settings"]["allowed_origins"],
        json!([SITE, "http://localhost:8080"])
    );
    let hook = json!({"name": "crm", "url": receiver.url("/hook"), "events": ["form.submitted"]});
    s.app
        .post(&format!("/forms/{}/webhooks", s.form_id()), &s.key, &hook)
        .await
        .ok(201);
    let f = &s.fields;

    // A plain HTML form: fields named by their labels' slugs (or ids), sent on to our
    // confirmation page.
    let plain = send(s.form_post(
        Some(SITE),
        &[("name", "Ada"), ("email", "ada@example.com"), (&f[2], "36")],
    ))
    .await;
    assert_eq!(plain.status, 303, "{}", plain.text);
    let short_id = s.form["short_id"].as_str().expect("short id");
    assert_eq!(plain.header("location"), format!("/f/{short_id}/thanks"));
    assert!(allows(&plain, SITE));
    let thanks = send(s.client.get(format!("{}/thanks", s.url()))).await;
    assert_eq!(thanks.status, 200);
    assert!(thanks.text.contains("Thanks, Ada!"), "{}", thanks.text);

    // Multipart with a file, from a fetch that asks for JSON.
    let (content_type, body) = multipart(
        &[("name", "Grace"), ("email", "grace@example.com")],
        &[("cv", "cv.png", PNG)],
    );
    let with_file = send(
        s.post(Some(SITE))
            .header("content-type", content_type)
            .header("accept", "application/json")
            .body(body),
    )
    .await;
    assert_eq!(with_file.status, 201, "{}", with_file.text);
    assert!(allows(&with_file, SITE));
    assert_eq!(with_file.header("vary"), "Origin");
    let with_file_id = with_file.body["data"]["response_id"].clone();

    // JSON from fetch, typed as the API's answers, keyed by id or slug.
    let answers = json!({"name": "Linus", f[1].clone(): "linus@example.com", "age": 30});
    let fetched = send(s.json_post(Some("http://localhost:8080"), &answers)).await;
    assert_eq!(fetched.status, 201, "{}", fetched.text);
    assert_eq!(fetched.body["success"], true);
    assert_eq!(
        fetched.body["data"]["confirmation_message"], "Thanks, Ada!",
        "{}",
        fetched.text
    );
    assert_eq!(fetched.body["data"]["redirect_url"], Value::Null);
    assert!(allows(&fetched, "http://localhost:8080"));

    let stored = s.responses().await;
    assert_eq!(stored.len(), 3);
    let by_name = |name: &str| {
        stored
            .iter()
            .find(|r| r["answers"][&f[0]] == name)
            .unwrap_or_else(|| panic!("no response of {name}: {stored:?}"))
            .clone()
    };
    let ada = by_name("Ada");
    assert_eq!(ada["answers"][&f[2]], json!(36));
    assert_eq!(ada["metadata"], json!({}));
    assert_eq!(ada["device_type"], "mobile");
    assert_eq!(ada["browser"], "Safari");
    assert_eq!(ada["os"], "iOS");
    let grace = by_name("Grace");
    assert_eq!(grace["id"], with_file_id);
    assert_eq!(grace["answers"][&f[4]]["name"], "cv.png");
    assert_eq!(grace["answers"][&f[4]]["content_type"], "image/png");
    let linus = by_name("Linus");
    assert_eq!(linus["answers"][&f[1]], "linus@example.com");
    assert_eq!(linus["answers"][&f[2]], json!(30));
    assert_eq!(linus["id"], fetched.body["data"]["response_id"]);

    let hits = receiver.wait_for("/hook", 3, Duration::from_secs(20)).await;
    for hit in &hits {
        let body = hit.json();
        assert_eq!(body["event"], "form.submitted");
        assert_eq!(body["data"]["submittedVia"], "form");
    }
}

#[tokio::test]
async fn other_origins_no_origin_and_forms_without_origins_are_refused() {
    let s = Setup::new(&[], Value::Null).await;
    let f = &s.fields;
    let answers = json!({"name": "Eve", "email": "eve@example.com"});
    let pairs = [("name", "Eve"), ("email", "eve@example.com")];

    // Another site, as a fetch and as a plain form.
    let fetched = send(s.json_post(Some("https://evil.example"), &answers)).await;
    assert_eq!(fetched.status, 403, "{}", fetched.text);
    assert_eq!(fetched.body["success"], false);
    assert_eq!(fetched.body["error"]["code"], "ORIGIN_NOT_ALLOWED");
    assert_eq!(cors_headers(&fetched), vec![]);
    let plain = send(s.form_post(Some("https://evil.example"), &pairs)).await;
    assert_eq!(plain.status, 403);
    assert!(plain.text.contains("allowed origins"), "{}", plain.text);
    assert_eq!(cors_headers(&plain), vec![]);
    // A look-alike: the scheme, the host and the port are the origin.
    for origin in [
        "http://www.example.com",
        "https://example.com",
        "https://www.example.com.evil.example",
        "http://localhost:8081",
        "null",
    ] {
        let reply = send(s.json_post(Some(origin), &answers)).await;
        assert_eq!(reply.status, 403, "{origin}: {}", reply.text);
        assert_eq!(
            reply.body["error"]["code"], "ORIGIN_NOT_ALLOWED",
            "{origin}"
        );
    }
    // No origin at all: a JSON post is refused; a form post is no page of ours either
    // (it has no token).
    let fetched = send(s.json_post(None, &answers)).await;
    assert_eq!(fetched.status, 403);
    assert_eq!(fetched.body["error"]["code"], "ORIGIN_NOT_ALLOWED");
    let plain = send(s.form_post(None, &pairs)).await;
    assert_eq!(plain.status, 403);
    // Sec-Fetch-Site: none is no page, whatever Origin it claims.
    let typed = send(
        s.post_from(Some(SITE), "none")
            .header("content-type", "application/json")
            .body(answers.to_string()),
    )
    .await;
    assert_eq!(typed.status, 403, "{}", typed.text);
    assert!(s.responses().await.is_empty());

    // Without Origin, the Referer's origin stands in for it.
    let referred = send(
        s.form_post(None, &[("name", "Ref"), ("email", "ref@example.com")])
            .header("referer", format!("{SITE}/contact?x=1")),
    )
    .await;
    assert_eq!(referred.status, 303, "{}", referred.text);
    let evil_referer = send(
        s.form_post(None, &pairs)
            .header("referer", "https://evil.example/contact"),
    )
    .await;
    assert_eq!(evil_referer.status, 403);
    let stored = s.responses().await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["answers"][&f[0]], "Ref");

    // Endpoint mode off again (an empty list), a form that never had it, a draft.
    let off = json!({"settings": {"allowed_origins": []}});
    s.app
        .put(&format!("/forms/{}", s.form_id()), &s.key, &off)
        .await
        .ok(200);
    let refused = send(s.json_post(Some(SITE), &answers)).await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.body["error"]["code"], "ORIGIN_NOT_ALLOWED");
    let plain_form = published_form(&s.app, &s.key, contact_fields(), Value::Null).await;
    let draft = s
        .app
        .create_form(
            &s.key,
            &json!({"title": "Draft", "fields": contact_fields(), "settings": {"allowed_origins": [SITE]}}),
        )
        .await;
    for form in [&plain_form, &draft] {
        let url = format!(
            "{}/f/{}",
            s.app.http_base.trim_end_matches("/api/v1"),
            form["short_id"].as_str().expect("short id")
        );
        let reply = send(
            s.client
                .post(url)
                .header("origin", SITE)
                .header("content-type", "application/json")
                .body(answers.to_string()),
        )
        .await;
        // An unknown, draft or closed-to-sites form: one answer, telling nothing.
        assert_eq!(reply.status, 403, "{}", reply.text);
        assert_eq!(reply.body["error"]["code"], "ORIGIN_NOT_ALLOWED");
    }
    assert_eq!(s.responses().await.len(), 1);
    let none: (i64,) = sqlx::query_as("SELECT count(*) FROM responses")
        .fetch_one(&s.app.pool)
        .await
        .expect("count");
    assert_eq!(none.0, 1);
}

#[tokio::test]
async fn preflights_are_answered_for_allowed_origins_only() {
    let s = Setup::new(&[], Value::Null).await;
    let preflight = |origin: &str| {
        s.client
            .request(Method::OPTIONS, s.url())
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "content-type")
    };
    let allowed = send(preflight(SITE)).await;
    assert_eq!(allowed.status, 204);
    assert_eq!(
        cors_headers(&allowed),
        [
            ("access-control-allow-headers", "Content-Type, Accept"),
            ("access-control-allow-methods", "POST"),
            ("access-control-allow-origin", SITE),
            ("access-control-max-age", "600"),
        ]
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
    );
    assert_eq!(allowed.header("vary"), "Origin");
    for origin in ["https://evil.example", "http://www.example.com", "null"] {
        let refused = send(preflight(origin)).await;
        assert_eq!(refused.status, 403, "{origin}");
        assert_eq!(cors_headers(&refused), vec![], "{origin}");
    }
    let bare = send(s.client.request(Method::OPTIONS, s.url())).await;
    assert_eq!(cors_headers(&bare), vec![]);
}

#[tokio::test]
async fn invalid_answers_come_back_in_the_envelope_or_a_page_and_nothing_is_stored() {
    let s = Setup::new(&[], Value::Null).await;
    let f = &s.fields;
    let fetched = send(s.json_post(Some(SITE), &json!({"name": "Ada", "email": "nope"}))).await;
    assert_eq!(fetched.status, 422, "{}", fetched.text);
    assert!(allows(&fetched, SITE), "the page's script may read why");
    assert_eq!(fetched.body["success"], false);
    let error = &fetched.body["error"];
    assert_eq!(error["code"], "VALIDATION_ERROR");
    assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()));
    let problems = error["fields"].as_object().expect("fields by id");
    assert_eq!(problems.keys().collect::<Vec<_>>(), [&f[1]], "{error}");
    assert!(
        problems[&f[1]]
            .as_str()
            .is_some_and(|m| m.starts_with("Email"))
    );
    // A key of no field is no answer.
    let unknown = send(s.json_post(
        Some(SITE),
        &json!({"name": "Ada", "email": "ada@example.com", "shoe_size": 44}),
    ))
    .await;
    assert_eq!(unknown.status, 422, "{}", unknown.text);
    // A body that is not JSON.
    let broken = send(
        s.post(Some(SITE))
            .header("content-type", "application/json")
            .body("{nope"),
    )
    .await;
    assert_eq!(broken.status, 422, "{}", broken.text);
    assert_eq!(broken.body["error"]["code"], "VALIDATION_ERROR");
    assert!(allows(&broken, SITE));

    let plain = send(
        s.form_post(Some(SITE), &[("name", "Ada")])
            .header("referer", format!("{SITE}/contact")),
    )
    .await;
    assert_eq!(plain.status, 422);
    assert!(plain.text.contains("Email is required"), "{}", plain.text);
    assert!(
        plain
            .text
            .contains("href=\"https://www.example.com/contact\""),
        "a link back: {}",
        plain.text
    );
    assert!(s.responses().await.is_empty());

    // The setting itself is checked.
    for bad in [
        json!("https://www.example.com"),
        json!(["www.example.com"]),
        json!(["https://www.example.com/contact"]),
        json!(["https://*.example.com"]),
        json!(
            (0..21)
                .map(|n| format!("https://s{n}.example.com"))
                .collect::<Vec<_>>()
        ),
    ] {
        let reply = s
            .app
            .put(
                &format!("/forms/{}", s.form_id()),
                &s.key,
                &json!({"settings": {"allowed_origins": bad}}),
            )
            .await;
        let error = reply.error(422, "VALIDATION_ERROR");
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|m| m.contains("allowed_origins")),
            "{error}"
        );
    }
}

#[tokio::test]
async fn the_honeypot_drops_a_robots_post_silently() {
    let s = Setup::new(&[], Value::Null).await;
    let robot =
        json!({"name": "Bot", "email": "bot@example.com", "_gotcha": "http://spam.example"});
    let fetched = send(s.json_post(Some(SITE), &robot)).await;
    assert_eq!(fetched.status, 201, "as if stored: {}", fetched.text);
    let id = fetched.body["data"]["response_id"]
        .as_str()
        .expect("an id all the same");
    assert_uuid(id);
    let plain = send(s.form_post(
        Some(SITE),
        &[
            ("name", "Bot"),
            ("email", "bot@example.com"),
            ("_gotcha", "x"),
        ],
    ))
    .await;
    assert_eq!(plain.status, 303);
    assert!(s.responses().await.is_empty());
    let lookup = s
        .app
        .get(&format!("/forms/{}/responses/{id}", s.form_id()), &s.key)
        .await;
    lookup.error(404, "NOT_FOUND");
    // An empty honeypot is a person's.
    let person = send(s.form_post(
        Some(SITE),
        &[
            ("name", "Ada"),
            ("email", "ada@example.com"),
            ("_gotcha", ""),
        ],
    ))
    .await;
    assert_eq!(person.status, 303);
    assert_eq!(s.responses().await.len(), 1);
}

#[tokio::test]
async fn endpoint_posts_are_throttled_per_visitor_ip() {
    let s = Setup::new(&["--hosted-submissions-per-minute", "2"], Value::Null).await;
    let mut statuses = Vec::new();
    let mut last = None;
    for i in 0..3 {
        let answers = json!({"name": format!("P{i}"), "email": "p@example.com"});
        let reply = send(s.json_post(Some(SITE), &answers)).await;
        statuses.push(reply.status);
        last = Some(reply);
    }
    assert_eq!(statuses, [201, 201, 429]);
    let limited = last.expect("a reply");
    assert_eq!(limited.body["error"]["code"], "RATE_LIMITED");
    assert!(limited.headers.contains_key("retry-after"));
    assert!(allows(&limited, SITE));
    assert_eq!(s.responses().await.len(), 2);
}
