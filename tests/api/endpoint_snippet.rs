//! The share panel's HTML for the owner's own page, pasted unchanged into a page of
//! another site (served here on its own origin, `http://localhost:<port>`), in Chromium
//! (`tests/browser/endpoint_snippet.mjs`): a form whose second question is asked only on
//! a condition is sent with that question hidden and with it shown, and both land. A
//! post the service refuses shows a page whose "Back to the form" returns to the
//! owner's page with the answers as they were; the confirmation page links back to
//! the owner's site.

use crate::browser::browser_available;
use crate::dashboard_session::signed_in;
use crate::endpoint_browser::serve;
use crate::fixtures::*;
use crate::harness::*;
use axum::response::Html;
use serde_json::{Value, json};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/browser/endpoint_snippet.mjs"
);

/// The text of the `<textarea id="{id}">` of a page, as the browser shows it.
fn textarea(page: &str, id: &str) -> Option<String> {
    let start = page.find(&format!(r#"<textarea id="{id}""#))?;
    let open = start + page[start..].find('>')? + 1;
    let close = open + page[open..].find("</textarea>")?;
    Some(
        page[open..close]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&"),
    )
}

#[tokio::test]
async fn the_share_panels_html_sends_a_conditional_form_from_another_site() {
    if !browser_available() {
        return;
    }
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &format!("snippet-{}", uuid::Uuid::new_v4().simple())).await;
    // The owner's site is served on its own origin before the form lists it.
    let snippet = std::sync::Arc::new(tokio::sync::OnceCell::<String>::new());
    let served = snippet.clone();
    let site = serve(axum::Router::new().route(
        "/survey",
        axum::routing::get(move || {
            let served = served.clone();
            async move {
                Html(format!(
                    "<!doctype html><html lang=\"en\"><title>Owner's survey</title><h1>Tell us about your car</h1>\n{}\n</html>",
                    served.get().map(String::as_str).unwrap_or("")
                ))
            }
        }),
    ))
    .await;
    let fields = json!([
        {"type": "short_text", "label": "Your name", "required": true},
        {"type": "single_choice", "ref": "car", "label": "Do you own a car?", "required": true,
         "options": [{"id": "yes", "label": "Yes"}, {"id": "no", "label": "No"}]},
        {"type": "short_text", "label": "Which model?", "required": true,
         "show_if": [{"field": "car", "op": "equals", "value": "Yes"}]}
    ]);
    let form = published_form(&app, &d.key, fields, json!({"allowed_origins": [site]})).await;
    let form_id = form["id"].as_str().expect("form id");
    let ids = field_ids(&form);

    // The snippet, as the share panel shows it to the owner.
    let page = d.get(&format!("/app/forms/{form_id}")).await;
    assert_eq!(page.status, 200, "{}", page.text);
    let html = textarea(&page.text, "endpoint-code").expect("the share panel's own-HTML snippet");
    snippet.set(html).expect("set once");

    let seen: Value =
        crate::fixtures::run_browser_script(&[&SCRIPT, &format!("{site}/survey")]).await;
    let thanks = format!(
        "{}/f/{}/thanks",
        d.base,
        form["short_id"].as_str().expect("short id")
    );

    // Hidden: "No", nothing typed for the model; the browser let it go and it landed.
    let hidden = &seen["hidden"];
    assert_eq!(hidden["status"], 200, "{seen}");
    assert_eq!(hidden["url"], thanks, "{seen}");
    assert_eq!(
        hidden["back"],
        format!("{site}/"),
        "a way back to the site: {seen}"
    );
    assert_eq!(hidden["axe"], serde_json::json!([]), "{seen}");
    // Shown without its answer: refused in words, and back to the page as it was left.
    let refused = &seen["refused"];
    assert_eq!(refused["status"], 422, "{seen}");
    assert!(
        refused["text"]
            .as_str()
            .is_some_and(|t| t.contains("Which model? is required") || t.contains("required")),
        "{seen}"
    );
    assert_eq!(refused["axe"], serde_json::json!([]), "{seen}");
    assert_eq!(refused["backUrl"], format!("{site}/survey"), "{seen}");
    assert_eq!(refused["nameKept"], "Grace Shown", "{seen}");
    assert_eq!(refused["yesKept"], true, "{seen}");
    // Shown and answered: it landed too.
    let shown = &seen["shown"];
    assert_eq!(shown["status"], 200, "{seen}");
    assert_eq!(shown["url"], thanks, "{seen}");

    let list = app
        .get(&format!("/forms/{form_id}/responses"), &d.key)
        .await;
    let stored = list.ok(200)["responses"]
        .as_array()
        .expect("responses")
        .clone();
    assert_eq!(stored.len(), 2, "{stored:?}");
    let by_name = |name: &str| {
        stored
            .iter()
            .find(|r| r["answers"][&ids[0]] == name)
            .unwrap_or_else(|| panic!("{name}'s response in {stored:?}"))
    };
    assert!(
        by_name("Ada Hidden")["answers"].get(&ids[2]).is_none(),
        "{stored:?}"
    );
    assert_eq!(
        by_name("Grace Shown")["answers"][&ids[2]],
        "Golf",
        "{stored:?}"
    );
}
