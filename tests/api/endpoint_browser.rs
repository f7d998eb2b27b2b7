//! Endpoint mode in a real browser: Chromium (`tests/browser/endpoint.mjs`) opens pages
//! of two other sites, served here on their own origins (`http://localhost:<port>`, the
//! service being on `127.0.0.1`), each with the owner's own HTML form posting to the
//! service plainly and a `fetch` of JSON. The allowed site's posts are stored (the
//! plain one lands on the confirmation page); the other site's plain post is refused
//! with a page, and its `fetch` fails: its CORS preflight gets no CORS headers.

use crate::browser::browser_available;
use crate::fixtures::*;
use crate::harness::*;
use axum::response::Html;
use serde_json::{Value, json};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/endpoint.mjs");

/// The owner's pages, posting to `action`: `/plain` and `/fetch`.
fn site_pages(action: &str, name_id: &str, email_id: &str) -> axum::Router {
    let plain = format!(
        r#"<!doctype html><html lang="en"><title>Owner's site</title><h1>Contact us</h1>
<form action="{action}" method="POST">
  <label>Name <input name="name" required></label>
  <label>Email <input type="email" name="email" required></label>
  <input type="text" name="_gotcha" style="display:none" tabindex="-1" autocomplete="off">
  <button type="submit">Send</button>
</form></html>"#
    );
    // The fetch page names the fields by id, as the JSON API's answers do.
    let fetch = format!(
        r#"<!doctype html><html lang="en"><title>Owner's site</title><h1>Contact us</h1>
<form id="contact">
  <label>Name <input name="{name_id}"></label>
  <label>Email <input type="email" name="{email_id}"></label>
  <button type="submit">Send</button>
</form>
<pre id="result"></pre>
<script>
document.getElementById('contact').addEventListener('submit', async (event) => {{
  event.preventDefault();
  const answers = Object.fromEntries(new FormData(event.target));
  const out = document.getElementById('result');
  try {{
    const reply = await fetch('{action}', {{
      method: 'POST',
      headers: {{ 'Content-Type': 'application/json', 'Accept': 'application/json' }},
      body: JSON.stringify(answers),
    }});
    out.textContent = JSON.stringify({{ status: reply.status, body: await reply.json() }});
  }} catch (error) {{
    out.textContent = JSON.stringify({{ failed: String(error) }});
  }}
}});
</script></html>"#
    );
    axum::Router::new()
        .route(
            "/plain",
            axum::routing::get(move || async move { Html(plain) }),
        )
        .route(
            "/fetch",
            axum::routing::get(move || async move { Html(fetch) }),
        )
}

/// Serves `router` on a free port of 127.0.0.1; returns its origin under `localhost`.
pub(crate) async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binding a site");
    let port = listener.local_addr().expect("address").port();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    format!("http://localhost:{port}")
}

#[tokio::test]
async fn an_allowed_sites_form_and_fetch_are_stored_and_another_sites_are_refused() {
    if !browser_available() {
        return;
    }
    let app = TestApp::spawn_with(&["--metrics-addr", "127.0.0.1:0"]).await;
    let key = app.key(PRO, ALL).await;
    let settings = json!({"confirmation_message": "Thanks from the endpoint!"});
    let form = published_form(&app, &key, contact_fields(), settings).await;
    let form_id = form["id"].as_str().expect("form id");
    let fields = field_ids(&form);
    let action = format!(
        "{}/f/{}",
        app.http_base.trim_end_matches("/api/v1"),
        form["short_id"].as_str().expect("short id")
    );
    let allowed = serve(site_pages(&action, &fields[0], &fields[1])).await;
    let refused = serve(site_pages(&action, &fields[0], &fields[1])).await;
    app.put(
        &format!("/forms/{form_id}"),
        &key,
        &json!({"settings": {"allowed_origins": [allowed]}}),
    )
    .await
    .ok(200);

    let seen: Value = crate::fixtures::run_browser_script(&[&SCRIPT, &allowed, &refused]).await;

    // The allowed site: the plain form lands on the confirmation page, the fetch reads
    // the JSON answer.
    let plain = &seen["allowedPlain"];
    assert_eq!(plain["status"], 200, "{seen}");
    assert_eq!(plain["url"], format!("{action}/thanks"), "{seen}");
    assert!(
        plain["text"]
            .as_str()
            .is_some_and(|t| t.contains("Thanks from the endpoint!")),
        "{seen}"
    );
    let fetched = &seen["allowedFetch"];
    assert_eq!(fetched["status"], 201, "{seen}");
    assert_eq!(fetched["body"]["success"], true, "{seen}");
    let fetched_id = fetched["body"]["data"]["response_id"].clone();

    // The other site: its plain post is refused with a page, its fetch fails.
    let plain = &seen["refusedPlain"];
    assert_eq!(plain["status"], 403, "{seen}");
    assert_eq!(
        plain["heading"], "This site may not send this form",
        "{seen}"
    );
    let fetched = &seen["refusedFetch"];
    assert!(
        fetched["failed"]
            .as_str()
            .is_some_and(|e| e.contains("Failed to fetch")),
        "{seen}"
    );
    assert!(
        fetched["consoleErrors"]
            .to_string()
            .contains("Access-Control-Allow-Origin"),
        "the browser blamed CORS: {seen}"
    );
    // Its preflight reached the service and was refused; its post never did.
    let metrics = metrics_text(&app).await;
    let series = |method: &str, status: u16| {
        sample(
            &metrics,
            &format!(
                r#"formsd_http_requests_total{{method="{method}",route="/f/{{short_id}}",status="{status}"}}"#
            ),
        )
    };
    assert_eq!(series("OPTIONS", 403), Some(1.0), "{metrics}");
    assert_eq!(series("OPTIONS", 204), Some(1.0), "{metrics}");
    assert_eq!(
        series("POST", 403),
        Some(1.0),
        "only the plain post: {metrics}"
    );

    let list = app.get(&format!("/forms/{form_id}/responses"), &key).await;
    let stored = list.ok(200)["responses"]
        .as_array()
        .expect("responses")
        .clone();
    let names: Vec<&str> = stored
        .iter()
        .filter_map(|r| r["answers"][&fields[0]].as_str())
        .collect();
    assert_eq!(stored.len(), 2, "{names:?}");
    assert!(
        names.contains(&"Ada Plain") && names.contains(&"Grace Fetch"),
        "{names:?}"
    );
    for response in &stored {
        assert_eq!(response["browser"], "HeadlessChrome", "{response}");
        assert_eq!(response["device_type"], "desktop", "{response}");
    }
    assert!(stored.iter().any(|r| r["id"] == fetched_id));
}

const POW_SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/browser/endpoint_pow.mjs"
);

/// Endpoint mode with the proof of work: the owner's page loads the service's pow.js
/// from the service's origin, which fetches the form's challenge
/// (`/f/{short_id}/challenge`, CORS for the allowed origin), solves it into `_pow`, and
/// the plain post is stored.
#[tokio::test]
async fn an_owners_page_solves_the_proof_of_work_with_the_services_script() {
    if !browser_available() {
        return;
    }
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("form id");
    let service = app.http_base.trim_end_matches("/api/v1").to_owned();
    let action = format!(
        "{service}/f/{}",
        form["short_id"].as_str().expect("short id")
    );
    let page = format!(
        r#"<!doctype html><html lang="en"><title>Owner's site</title><h1>Contact us</h1>
<form action="{action}" method="POST" data-pow-challenge-url="{action}/challenge">
  <label>Name <input name="name" required></label>
  <label>Email <input type="email" name="email" required></label>
  <input type="hidden" name="_pow">
  <p id="pow-status" role="status"></p>
  <button type="submit">Send</button>
</form>
<script type="module" src="{service}/f/assets/pow.js"></script></html>"#
    );
    let site = serve(axum::Router::new().route(
        "/pow",
        axum::routing::get(move || async move { Html(page) }),
    ))
    .await;
    app.put(
        &format!("/forms/{form_id}"),
        &key,
        &json!({"settings": {"allowed_origins": [site], "proof_of_work": true}}),
    )
    .await
    .ok(200);

    let seen: Value =
        crate::fixtures::run_browser_script(&[&POW_SCRIPT, &format!("{site}/pow")]).await;
    assert_eq!(seen["status"], 200, "{seen}");
    assert_eq!(seen["url"], format!("{action}/thanks"), "{seen}");
    // (The owner's test site has no favicon: its 404 is the only console error.)
    let errors = seen["consoleErrors"].to_string();
    assert!(
        !errors.contains("CORS") && !errors.contains("Access-Control"),
        "{seen}"
    );
    println!(
        "owner's page solved its challenge in {} ms",
        seen["solvedIn"]
    );
    let list = app.get(&format!("/forms/{form_id}/responses"), &key).await;
    let stored = list.ok(200)["responses"]
        .as_array()
        .expect("responses")
        .clone();
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0]["answers"][&field_ids(&form)[0]], "Ada Proven");
}
