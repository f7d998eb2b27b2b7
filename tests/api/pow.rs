//! Proof of work of hosted pages (`settings.proof_of_work`): the page carries a challenge
//! and the script that solves it; the core stores a submission only with a solution of
//! a challenge it issued for that form, once (also in endpoint mode, and on every saved
//! page of a form with pages); a form without the setting is unchanged.
//! Solutions are computed here as the page's script does (SHA-256 of salt and number),
//! and by the script itself in Chromium.

use crate::browser::browser_available;
use crate::fixtures::*;
use crate::harness::*;
use crate::hosted::{DESKTOP, Page, Visitor};
use base64::Engine;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::time::Duration;

/// A challenge as the page carries it (the form's data attributes).
#[derive(Debug)]
struct Challenge {
    algorithm: String,
    challenge: String,
    salt: String,
    max: u64,
    signature: String,
}

fn attribute(html: &str, name: &str) -> Option<String> {
    let needle = format!(" {name}=\"");
    let start = html.find(&needle)? + needle.len();
    let end = html[start..].find('"')?;
    Some(html[start..start + end].to_owned())
}

fn challenge_of(page: &Page) -> Challenge {
    let get = |name| {
        attribute(&page.html, name).unwrap_or_else(|| panic!("{name} missing: {}", page.html))
    };
    Challenge {
        algorithm: get("data-pow-algorithm"),
        challenge: get("data-pow-challenge"),
        salt: get("data-pow-salt"),
        max: get("data-pow-max").parse().expect("a number"),
        signature: get("data-pow-signature"),
    }
}

fn hash(salt: &str, number: u64) -> String {
    hex::encode(Sha256::digest(format!("{salt}{number}").as_bytes()))
}

/// The solution as the page's script sends it, with `number`.
fn solution_with(c: &Challenge, number: u64) -> String {
    let solution = json!({
        "algorithm": c.algorithm, "challenge": c.challenge, "number": number,
        "salt": c.salt, "signature": c.signature,
    });
    base64::engine::general_purpose::STANDARD.encode(solution.to_string())
}

/// Tries every number, as the page's script does.
fn solve(c: &Challenge) -> (u64, String) {
    let number = (0..=c.max)
        .find(|n| hash(&c.salt, *n) == c.challenge)
        .expect("the challenge has a solution up to its max_number");
    (number, solution_with(c, number))
}

struct Setup {
    app: TestApp,
    key: String,
    form: Value,
    fields: Vec<String>,
}

impl Setup {
    async fn new(settings: Value) -> Setup {
        let app = TestApp::spawn().await;
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

    fn page_url(&self) -> String {
        format!(
            "{}/f/{}",
            self.app.http_base.trim_end_matches("/api/v1"),
            self.short_id()
        )
    }

    async fn responses(&self) -> Vec<Value> {
        let id = self.form["id"].as_str().expect("form id");
        self.app
            .get(&format!("/forms/{id}/responses"), &self.key)
            .await
            .ok(200)["responses"]
            .as_array()
            .expect("responses")
            .clone()
    }

    /// Submits Ada's answers with the page's `token` and `solution` (none if `None`).
    async fn submit(&self, visitor: &mut Visitor, token: &str, solution: Option<&str>) -> Page {
        let mut fields = vec![
            ("_token", token),
            (self.fields[0].as_str(), "Ada"),
            (self.fields[1].as_str(), "ada@example.com"),
            ("website", ""),
        ];
        if let Some(solution) = solution {
            fields.push(("pow_solution", solution));
        }
        visitor.submit(&self.short_id(), DESKTOP, &fields).await
    }
}

#[tokio::test]
async fn a_form_with_proof_of_work_stores_one_submission_per_solved_challenge() {
    let s = Setup::new(json!({"proof_of_work": true, "confirmation_message": "Merci!"})).await;
    let mut visitor = Visitor::new(&s.app);
    let page = visitor.open(&s.short_id()).await;
    assert_eq!(page.status, 200);
    let c = challenge_of(&page);
    assert_eq!((c.algorithm.as_str(), c.max), ("SHA-256", 100_000));
    assert!(page.html.contains("name=\"pow_solution\" value=\"\""));
    assert!(
        page.html
            .contains("<script type=\"module\" src=\"/f/assets/pow.js\"></script>")
    );
    assert!(
        page.html
            .contains("<noscript><p class=\"banner\">This form needs JavaScript to be sent"),
        "{}",
        page.html
    );
    assert!(page.html.contains("role=\"status\" aria-live=\"polite\""));

    // The script, from the binary, allowed by the page's policy.
    let origin = s.app.http_base.trim_end_matches("/api/v1");
    let script = http_client()
        .get(format!("{origin}/f/assets/pow.js"))
        .send()
        .await
        .expect("GET script");
    assert_eq!(script.status(), 200);
    assert_eq!(
        script.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );
    assert_eq!(script.headers()["x-content-type-options"], "nosniff");
    assert!(
        script
            .text()
            .await
            .expect("script")
            .contains("form[data-pow-challenge]")
    );
    let csp = http_client()
        .get(s.page_url())
        .send()
        .await
        .expect("GET page")
        .headers()["content-security-policy"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(csp.contains("script-src 'self';"), "{csp}");

    // Without a solution (a robot, or a browser without JavaScript): refused, the page
    // again with the answers and a new challenge; nothing stored.
    let refused = s.submit(&mut visitor, &page.token(), None).await;
    assert_eq!(refused.status, 422, "{}", refused.html);
    assert!(
        refused
            .html
            .contains("This form needs JavaScript to be sent: your browser solves"),
        "{}",
        refused.html
    );
    assert!(refused.html.contains("value=\"Ada\""), "answers kept");
    let again = challenge_of(&refused);
    assert_ne!(again.challenge, c.challenge, "a new challenge");
    assert!(s.responses().await.is_empty());

    // A wrong number: refused.
    let (number, solution) = solve(&again);
    let wrong = solution_with(&again, (number + 1) % (again.max + 1));
    let page = s.submit(&mut visitor, &refused.token(), Some(&wrong)).await;
    assert_eq!(page.status, 422, "{}", page.html);
    assert!(page.html.contains("expired or was used already"));
    assert!(s.responses().await.is_empty());

    // Solved: stored.
    let page = s.submit(&mut visitor, &page.token(), Some(&solution)).await;
    assert_eq!(page.status, 200, "{}", page.html);
    assert!(page.html.contains("Merci!"));
    assert_eq!(s.responses().await.len(), 1);

    // Without a solution again, now that the form's instance view (snapshot) is kept:
    // refused there too.
    let fresh = visitor.open(&s.short_id()).await;
    let page = s.submit(&mut visitor, &fresh.token(), None).await;
    assert_eq!(page.status, 422, "{}", page.html);
    assert!(page.html.contains("needs JavaScript"));
    assert_eq!(s.responses().await.len(), 1);

    // The same solution again, with a fresh page's token: a replay, refused.
    let fresh = visitor.open(&s.short_id()).await;
    let page = s
        .submit(&mut visitor, &fresh.token(), Some(&solution))
        .await;
    assert_eq!(page.status, 422, "{}", page.html);
    assert!(page.html.contains("expired or was used already"));
    assert_eq!(s.responses().await.len(), 1);

    // The challenge of another form's page, solved: refused here.
    let other = published_form(
        &s.app,
        &s.key,
        contact_fields(),
        json!({"proof_of_work": true}),
    )
    .await;
    let other_page = visitor
        .open(other["short_id"].as_str().expect("short id"))
        .await;
    let (_, foreign) = solve(&challenge_of(&other_page));
    let fresh = visitor.open(&s.short_id()).await;
    let page = s.submit(&mut visitor, &fresh.token(), Some(&foreign)).await;
    assert_eq!(page.status, 422, "{}", page.html);
    assert_eq!(s.responses().await.len(), 1);

    // The spent challenge is kept until it expires, an hour after it was issued.
    let (kept,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM pow_spent
          WHERE expires_at BETWEEN now() + interval '55 minutes' AND now() + interval '61 minutes'",
    )
    .fetch_one(&s.app.pool)
    .await
    .expect("count spent");
    assert_eq!(kept, 1);
}

#[tokio::test]
async fn a_form_without_the_setting_is_unchanged() {
    for settings in [Value::Null, json!({"proof_of_work": false})] {
        let s = Setup::new(settings).await;
        let mut visitor = Visitor::new(&s.app);
        let page = visitor.open(&s.short_id()).await;
        assert_eq!(page.status, 200);
        for absent in [
            "data-pow",
            "<script",
            "<noscript",
            "pow_solution",
            "pow-status",
        ] {
            assert!(!page.html.contains(absent), "{absent} in {}", page.html);
        }
        let page = s.submit(&mut visitor, &page.token(), None).await;
        assert_eq!(page.status, 200, "{}", page.html);
        assert_eq!(s.responses().await.len(), 1);
    }
}

#[tokio::test]
async fn a_submission_with_files_is_refused_before_its_files_are_staged() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let fields = json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "file_upload", "label": "Photo", "required": true, "allowed_types": ["png"]},
    ]);
    let form = published_form(&app, &key, fields, json!({"proof_of_work": true})).await;
    let short_id = form["short_id"].as_str().expect("short id");
    let f = field_ids(&form);
    let mut visitor = Visitor::new(&app);
    let token = visitor.open(short_id).await.token();
    // While the form's row is locked, a submission that reached the lock would wait:
    // this one is answered, so it was refused before (and before its file was staged).
    let lock = lock_form(&app.pool, form["id"].as_str().expect("form id")).await;
    let page = tokio::time::timeout(
        Duration::from_secs(60),
        visitor.submit_multipart(
            short_id,
            &[("_token", &token), (&f[0], "Ada")],
            &[(&f[1], "me.png", crate::uploads::PNG)],
        ),
    )
    .await
    .expect("answered without waiting for the form's lock");
    assert_eq!(page.status, 422, "{}", page.html);
    assert!(page.html.contains("needs JavaScript"), "{}", page.html);
    let (files,): (i64,) = sqlx::query_as("SELECT count(*) FROM response_files")
        .fetch_one(&app.pool)
        .await
        .expect("count files");
    assert_eq!(files, 0, "no file staged");
    drop(lock);
}

#[tokio::test]
async fn the_setting_is_a_boolean() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let reply = app
        .post(
            "/forms",
            &key,
            &json!({"title": "T", "settings": {"proof_of_work": "yes"}}),
        )
        .await;
    let error = reply.error(422, "VALIDATION_ERROR");
    assert_eq!(
        error["message"],
        "settings.proof_of_work: must be true or false"
    );
}

#[tokio::test]
async fn expired_spent_challenges_are_purged() {
    let db = TestDb::create().await;
    let pool = db.pool().await;
    for (digest, age) in [(vec![1u8; 32], "-1 minute"), (vec![2u8; 32], "+1 hour")] {
        sqlx::query("INSERT INTO pow_spent (digest, expires_at) VALUES ($1, now() + $2::interval)")
            .bind(digest)
            .bind(age)
            .execute(&pool)
            .await
            .expect("insert spent");
    }
    // The maintenance task runs once at start, then every minute.
    let app = TestApp::spawn_on(db, &[]).await;
    eventually(
        "the expired challenge purged",
        Duration::from_secs(30),
        || {
            let pool = app.pool.clone();
            async move {
                let (left,): (Vec<u8>,) = sqlx::query_as("SELECT digest FROM pow_spent")
                    .fetch_one(&pool)
                    .await
                    .ok()?;
                (left == vec![2u8; 32]).then_some(())
            }
        },
    )
    .await;
}

#[tokio::test]
async fn chromium_solves_the_challenge_and_submits() {
    if !browser_available() {
        return;
    }
    let s = Setup::new(json!({"proof_of_work": true, "confirmation_message": "Merci!"})).await;
    let seen = visit(&s.page_url(), "submit").await;
    assert_eq!(seen["openedStatus"], 200, "{seen}");
    // Submit waits, and says why, until the challenge is solved.
    let said = seen["said"].as_array().expect("said");
    assert!(
        said[0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Checking that a browser, not a robot")),
        "{seen}"
    );
    assert_eq!(said[0]["disabled"], true, "{seen}");
    assert_eq!(said[0]["live"], "polite", "{seen}");
    let last = said.last().expect("said something");
    assert_eq!(last["text"], "Ready to submit.", "{seen}");
    assert_eq!(last["disabled"], false, "{seen}");
    assert_eq!(seen["axe"], json!([]), "{seen}");
    assert_eq!(seen["submittedStatus"], 200, "{seen}");
    assert!(
        seen["text"].as_str().is_some_and(|t| t.contains("Merci!")),
        "{seen}"
    );
    println!("proof of work solved in Chromium in {} ms", seen["ms"]);
    let stored = s.responses().await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["answers"][&s.fields[0]], "Ada Lovelace");
}

#[tokio::test]
async fn chromium_without_javascript_says_the_form_needs_it() {
    if !browser_available() {
        return;
    }
    let s = Setup::new(json!({"proof_of_work": true})).await;
    let seen = visit(&s.page_url(), "nojs").await;
    assert_eq!(seen["openedStatus"], 200, "{seen}");
    assert!(
        seen["note"]
            .as_str()
            .is_some_and(|t| t.contains("This form needs JavaScript to be sent")),
        "{seen}"
    );
    assert_eq!(seen["submittedStatus"], 422, "{seen}");
    assert!(
        seen["banner"]
            .as_str()
            .is_some_and(|t| t.starts_with("This form needs JavaScript to be sent")),
        "{seen}"
    );
    assert_eq!(seen["keptName"], "Ada Lovelace", "{seen}");
    assert!(s.responses().await.is_empty());
}

#[tokio::test]
async fn chromium_walks_a_form_with_pages_solving_each_page() {
    if !browser_available() {
        return;
    }
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let fields = json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "page_break", "label": "More"},
        {"type": "email", "label": "Email", "required": true},
    ]);
    let settings = json!({"proof_of_work": true, "confirmation_message": "Merci!"});
    let form = published_form(&app, &key, fields, settings).await;
    let url = format!(
        "{}/f/{}",
        app.http_base.trim_end_matches("/api/v1"),
        form["short_id"].as_str().expect("short id")
    );
    let seen = visit(&url, "pages").await;
    assert_eq!(seen["openedStatus"], 200, "{seen}");
    assert_eq!(seen["submittedStatus"], 200, "{seen}");
    assert!(
        seen["text"].as_str().is_some_and(|t| t.contains("Merci!")),
        "{seen}"
    );
    println!("proof of work solved on each page in {} ms", seen["ms"]);
    let id = form["id"].as_str().expect("form id");
    let stored = app.get(&format!("/forms/{id}/responses"), &key).await;
    let list = stored.ok(200)["responses"]
        .as_array()
        .expect("list")
        .clone();
    assert_eq!(list.len(), 1, "{list:?}");
}

/// Measures the page's solving in Chromium, on this machine's CPU and slowed fourfold as
/// for a phone, and prints the figures (speed is reported, never asserted).
#[tokio::test]
async fn chromium_solving_time_is_measured() {
    if !browser_available() {
        return;
    }
    let s = Setup::new(json!({"proof_of_work": true})).await;
    let seen = visit(&s.page_url(), "measure").await;
    for (name, label) in [("desktop", "this machine"), ("phoneLike", "CPU slowed 4x")] {
        let runs = seen[name].as_array().expect("runs");
        assert!(!runs.is_empty(), "{seen}");
        let per_50k: Vec<u64> = runs
            .iter()
            .map(|r| r["msPer50k"].as_u64().expect("msPer50k"))
            .collect();
        let ms: Vec<u64> = runs.iter().map(|r| r["ms"].as_u64().expect("ms")).collect();
        println!(
            "proof of work in Chromium ({label}): solves took {ms:?} ms; \
             per 50,000 hashes (the expected work): {per_50k:?} ms"
        );
    }
}

/// Runs tests/browser/pow.mjs on the page; what the visitor saw.
async fn visit(page_url: &str, mode: &str) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/pow.mjs");
    let seen: Value = crate::fixtures::run_browser_script(&[&script, &page_url, &mode]).await;
    assert_eq!(seen["cspViolations"], json!([]), "{seen}");
    seen
}

/// Endpoint mode (the owner's own HTML form on their site): a form that turns the proof
/// of work on needs a solution there too, in `_pow` (here: the challenge of the form's
/// own page, solved), once.
#[tokio::test]
async fn an_endpoint_post_to_a_form_with_proof_of_work_needs_a_solution_once() {
    const SITE: &str = "https://www.example.com";
    let s = Setup::new(json!({"proof_of_work": true, "allowed_origins": [SITE]})).await;
    let post = |body: Value| {
        http_client()
            .post(s.page_url())
            .header("origin", SITE)
            .header("sec-fetch-site", "cross-site")
            .header("content-type", "application/json")
            .body(body.to_string())
    };
    let answers = json!({"name": "Ada", "email": "ada@example.com"});
    let refused = send(post(answers.clone())).await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    let error = &refused.body["error"];
    assert_eq!(error["code"], "VALIDATION_ERROR");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("proof-of-work")),
        "{error}"
    );
    assert!(s.responses().await.is_empty());

    let page = Visitor::new(&s.app).open(&s.short_id()).await;
    let (_, solution) = solve(&challenge_of(&page));
    let mut solved = answers.clone();
    solved["_pow"] = json!(solution);
    let stored = send(post(solved.clone())).await;
    assert!(stored.status < 300, "{} {}", stored.status, stored.text);
    assert_eq!(s.responses().await.len(), 1);
    let replayed = send(post(solved)).await;
    assert_eq!(replayed.status, 422, "{}", replayed.text);
    assert!(replayed.text.contains("used already"), "{}", replayed.text);
    assert_eq!(s.responses().await.len(), 1);
}

/// Endpoint mode's own challenge: the owner's page fetches one from
/// `/f/{short_id}/challenge` (readable by the form's allowed origins only), solves it
/// and posts it in `_pow`; the pow.js script is loadable from another origin.
#[tokio::test]
async fn an_owners_page_fetches_its_challenge_from_an_allowed_origin() {
    const SITE: &str = "https://www.example.com";
    let s = Setup::new(json!({"proof_of_work": true, "allowed_origins": [SITE]})).await;
    let origin = s.page_url().split("/f/").next().expect("origin").to_owned();
    let fetch = |from: &str| {
        http_client()
            .get(format!("{}/challenge", s.page_url()))
            .header("origin", from)
            .header("sec-fetch-site", "cross-site")
    };
    let got = send(fetch(SITE)).await;
    assert_eq!(got.status, 200, "{}", got.text);
    assert_eq!(got.header("access-control-allow-origin"), SITE);
    assert_eq!(got.header("cache-control"), "no-store");
    let c = &got.body["data"]["challenge"];
    let challenge = Challenge {
        algorithm: c["algorithm"].as_str().expect("algorithm").to_owned(),
        challenge: c["challenge"].as_str().expect("challenge").to_owned(),
        salt: c["salt"].as_str().expect("salt").to_owned(),
        max: c["max_number"].as_u64().expect("max"),
        signature: c["signature"].as_str().expect("signature").to_owned(),
    };
    // Another site gets no challenge, and no CORS header to read the refusal with.
    let other = send(fetch("https://evil.example")).await;
    assert_eq!(other.status, 403, "{}", other.text);
    assert_eq!(other.body["error"]["code"], "ORIGIN_NOT_ALLOWED");
    assert!(other.headers.get("access-control-allow-origin").is_none());

    let (_, solution) = solve(&challenge);
    let post = |body: Value| {
        http_client()
            .post(s.page_url())
            .header("origin", SITE)
            .header("sec-fetch-site", "cross-site")
            .header("content-type", "application/json")
            .body(body.to_string())
    };
    let answers = json!({"name": "Ada", "email": "ada@example.com", "_pow": solution});
    let stored = send(post(answers.clone())).await;
    assert_eq!(stored.status, 201, "{}", stored.text);
    let replayed = send(post(answers)).await;
    assert_eq!(replayed.status, 422, "{}", replayed.text);
    assert_eq!(s.responses().await.len(), 1);

    // A form that does not ask: no challenge.
    s.app
        .put(
            &format!("/forms/{}", s.form["id"].as_str().expect("id")),
            &s.key,
            &json!({"settings": {"proof_of_work": false}}),
        )
        .await
        .ok(200);
    let none = send(fetch(SITE)).await;
    assert_eq!(none.status, 200, "{}", none.text);
    assert_eq!(none.body["data"]["challenge"], Value::Null);

    let script = send(http_client().get(format!("{origin}/f/assets/pow.js"))).await;
    assert_eq!(script.status, 200);
    assert_eq!(script.header("access-control-allow-origin"), "*");
    assert!(script.text.contains("data-pow-challenge-url"));
}

/// A form with pages (over the core's gRPC, as the hosted page posts it page by page):
/// every saved page costs a solution, as a submission does (issue 30: pages were saved
/// without one, and left partial responses waiting for free).
#[tokio::test]
async fn every_saved_page_of_a_form_with_pages_needs_a_solution() {
    use ::forms::pb::{self, hosted_forms_service_client::HostedFormsServiceClient};
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let fields = json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "page_break", "label": "More"},
        {"type": "email", "label": "Email", "required": true},
    ]);
    let form = published_form(&app, &key, fields, json!({"proof_of_work": true})).await;
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let ids = field_ids(&form);
    let mut hosted = HostedFormsServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("gRPC");
    let nonce = "0123456789abcdef0123456789abcdef".to_owned();
    // A page as the visitor's browser gets it: its start token and a solved challenge.
    let mut open = async || {
        let page = hosted
            .get_hosted_form(pb::GetHostedFormRequest {
                short_id: short_id.clone(),
                csrf_nonce: nonce.clone(),
                ..Default::default()
            })
            .await
            .expect("GetHostedForm")
            .into_inner();
        let c = page.pow_challenge.expect("a challenge");
        let (_, solution) = solve(&Challenge {
            algorithm: c.algorithm,
            challenge: c.challenge,
            salt: c.salt,
            max: c.max_number,
            signature: c.signature,
        });
        (page.start_token, solution)
    };
    let (token, first_solution) = open().await;
    let (_, second_solution) = open().await;
    let post = |page_number: i32, answers: Value, resume_token: &str, solution: &str| {
        pb::SubmitHostedFormRequest {
            short_id: short_id.clone(),
            start_token: token.clone(),
            csrf_nonce: nonce.clone(),
            answers: Some(pb::convert::object_to_struct(
                answers.as_object().expect("answers"),
            )),
            user_agent: DESKTOP.to_owned(),
            page: page_number,
            resume_token: resume_token.to_owned(),
            pow_solution: solution.to_owned(),
            ..Default::default()
        }
    };
    let partials = async || {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM partial_responses")
            .fetch_one(&app.pool)
            .await
            .expect("partials")
    };
    let first = json!({&ids[0]: "Ada"});
    let refused = hosted
        .submit_hosted_form(post(1, first.clone(), "", ""))
        .await
        .expect_err("the first page without a solution");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert!(refused.message().contains("proof-of-work"), "{refused:?}");
    assert_eq!(partials().await, 0, "nothing saved");
    let saved = hosted
        .submit_hosted_form(post(1, first.clone(), "", &first_solution))
        .await
        .expect("page 1 saved with a solution")
        .into_inner();
    let progress = saved.progress.expect("the next page");
    assert_eq!(progress.page, 2);
    // The same solution again, for another partial: spent.
    let replayed = hosted
        .submit_hosted_form(post(1, first, "", &first_solution))
        .await
        .expect_err("a spent solution");
    assert!(replayed.message().contains("used already"), "{replayed:?}");
    assert_eq!(partials().await, 1);
    let last = json!({&ids[2]: "ada@example.com"});
    let refused = hosted
        .submit_hosted_form(post(2, last.clone(), &progress.resume_token, ""))
        .await
        .expect_err("the last page without a solution");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    let done = hosted
        .submit_hosted_form(post(2, last, &progress.resume_token, &second_solution))
        .await
        .expect("completed with a solution")
        .into_inner();
    assert!(!done.response_id.is_empty());
    let reply = app
        .get(
            &format!("/forms/{}/responses", form["id"].as_str().expect("id")),
            &key,
        )
        .await;
    assert_eq!(
        reply.ok(200)["responses"].as_array().expect("list").len(),
        1
    );
}
