//! Hosted pages in a real browser: Debian's headless Chromium, driven by playwright-core
//! (`tests/browser/hosted.mjs`), fills and submits a form; the API then returns the
//! response with the SPEC browser fields. Needs `chromium` and `npm install`; when they
//! are missing the tests say so and pass, unless FORMS_REQUIRE_BROWSER=1 (as in CI).

use crate::fixtures::*;
use crate::harness::*;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/hosted.mjs");

/// Whether the browser tests can run here; panics when they must but cannot.
pub fn browser_available() -> bool {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let playwright = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/node_modules/playwright-core"
    ));
    let ready = Path::new(&chromium).exists() && playwright.exists();
    if !ready {
        assert!(
            std::env::var("FORMS_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "browser tests required but {chromium} or node_modules/playwright-core is missing \
             (apt install chromium; npm install)"
        );
        eprintln!("SKIPPED: browser test needs {chromium} and node_modules/playwright-core");
    }
    ready
}

/// Runs the browser script on a page (attaching `file` to the CV field, if given);
/// returns what the visitor saw.
async fn visit(page_url: &str, mode: &str, file: Option<&Path>) -> Value {
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&SCRIPT, &page_url, &mode];
    if let Some(file) = &file {
        args.push(file);
    }
    let seen = crate::fixtures::run_browser_script(&args).await;
    // The page's Content-Security-Policy allows everything the page uses.
    assert_eq!(seen["cspViolations"], json!([]), "{seen}");
    seen
}

struct Setup {
    app: TestApp,
    key: String,
    form: Value,
    page_url: String,
}

async fn setup(extra: &[&str]) -> Setup {
    let app = TestApp::spawn_with(extra).await;
    let key = app.key(PRO, ALL).await;
    let mut fields = contact_fields();
    let cv = json!({"type": "file_upload", "label": "CV", "required": false, "allowed_types": ["png", "pdf"], "max_size_mb": 1});
    fields.as_array_mut().expect("fields").push(cv);
    let settings = json!({"confirmation_message": "Thanks, Ada!"});
    let form = published_form(&app, &key, fields, settings).await;
    let page_url = format!(
        "{}/f/{}",
        app.http_base.trim_end_matches("/api/v1"),
        form["short_id"].as_str().expect("short id")
    );
    Setup {
        app,
        key,
        form,
        page_url,
    }
}

async fn responses(s: &Setup) -> Vec<Value> {
    let path = format!(
        "/forms/{}/responses",
        s.form["id"].as_str().expect("form id")
    );
    s.app.get(&path, &s.key).await.ok(200)["responses"]
        .as_array()
        .expect("responses")
        .clone()
}

#[tokio::test]
async fn a_visitor_in_chromium_submits_and_the_api_returns_the_browser_fields() {
    if !browser_available() {
        return;
    }
    let receiver = Receiver::start().await;
    let s = setup(&["--webhook-allow-private"]).await;
    let hook =
        json!({"name": "crm", "url": receiver.url("/hook"), "events": ["response.received"]});
    let form_id = s.form["id"].as_str().expect("form id");
    s.app
        .post(&format!("/forms/{form_id}/webhooks"), &s.key, &hook)
        .await
        .ok(201);

    let dir = tempfile::tempdir().expect("temp dir");
    let cv = dir.path().join("cv.png");
    std::fs::write(&cv, crate::uploads::PNG).expect("writing the file");
    let seen = visit(&s.page_url, "desktop", Some(&cv)).await;
    assert_eq!(seen["openedStatus"], 200);
    assert_eq!(seen["submittedStatus"], 200);
    assert!(
        seen["text"]
            .as_str()
            .is_some_and(|t| t.contains("Thanks, Ada!")),
        "{seen}"
    );

    let stored = responses(&s).await;
    assert_eq!(stored.len(), 1);
    let r = &stored[0];
    let fields = field_ids(&s.form);
    assert_eq!(r["answers"][&fields[0]], "Ada Lovelace");
    assert_eq!(r["answers"][&fields[1]], "ada@example.com");
    assert_eq!(r["answers"][&fields[2]], json!(36));
    assert_eq!(r["metadata"], json!({}));
    assert_eq!(
        r["device_type"], "desktop",
        "{r} (agent {})",
        seen["userAgent"]
    );
    // uap-core names headless Chromium apart from Chrome.
    assert_eq!(r["browser"], "HeadlessChrome");
    assert_eq!(r["os"], "Linux");
    assert!(
        r["completion_time_seconds"]
            .as_i64()
            .is_some_and(|s| s >= 1),
        "{r}"
    );

    let hits = receiver.wait_for("/hook", 1, Duration::from_secs(20)).await;
    let body = hits[0].json();
    assert_eq!(body["event"], "response.received");
    assert_eq!(body["data"]["submittedVia"], "form");
    assert_eq!(body["data"]["responseId"], r["id"]);
}

#[tokio::test]
async fn chromium_shows_a_validation_error_next_to_its_field_and_keeps_the_input() {
    if !browser_available() {
        return;
    }
    let s = setup(&[]).await;
    let seen = visit(&s.page_url, "invalid", None).await;
    assert_eq!(seen["submittedStatus"], 422);
    let errors: Vec<String> = serde_json::from_value(seen["errors"].clone()).expect("errors");
    assert_eq!(errors, ["Email must be an email address"], "{seen}");
    assert_eq!(seen["keptName"], "Ada Lovelace");
    assert!(responses(&s).await.is_empty());
}

#[tokio::test]
async fn a_mobile_user_agent_is_stored_as_mobile() {
    if !browser_available() {
        return;
    }
    let s = setup(&[]).await;
    let seen = visit(&s.page_url, "mobile", None).await;
    assert_eq!(seen["submittedStatus"], 200, "{seen}");
    let stored = responses(&s).await;
    assert_eq!(stored[0]["device_type"], "mobile");
    assert_eq!(stored[0]["os"], "iOS");
}

#[tokio::test]
async fn a_form_framed_by_another_site_is_submitted_from_the_frame() {
    if !browser_available() {
        return;
    }
    let s = setup(&[]).await;
    let seen = visit(&s.page_url, "embedded", None).await;
    assert_eq!(seen["openedStatus"], 200, "{seen}");
    assert_eq!(seen["submittedStatus"], 200, "{seen}");
    assert!(
        seen["text"]
            .as_str()
            .is_some_and(|t| t.contains("Thanks, Ada!")),
        "{seen}"
    );
    let stored = responses(&s).await;
    assert_eq!(stored.len(), 1, "{seen}");
    assert_eq!(stored[0]["answers"][&field_ids(&s.form)[0]], "Ada Lovelace");
}
