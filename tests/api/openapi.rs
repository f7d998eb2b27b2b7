//! The OpenAPI document: served without a key, identical to the committed
//! `docs/openapi.json` and to `formsd openapi`, describing every REST route of the
//! router; and its interactive reference, served from the binary (no CDN).
//!
//! After a change of the API, regenerate the committed copy with
//! `FORMS_BLESS=1 cargo test --test api -- openapi` (or `formsd openapi > docs/openapi.json`)
//! and review its diff.

use crate::harness::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Stdio;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn committed_path() -> String {
    format!("{ROOT}/docs/openapi.json")
}

#[tokio::test]
async fn the_served_document_is_the_committed_copy() {
    let app = TestApp::spawn().await;
    // No credentials.
    let reply = send(app.request(reqwest::Method::GET, "/openapi.json")).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert!(
        reply.header("content-type").starts_with("application/json"),
        "{:?}",
        reply.headers
    );
    assert_uuid(reply.header("x-request-id"));
    let served = reply.body;
    assert_eq!(served["openapi"], "3.1.0");

    let pretty = serde_json::to_string_pretty(&served).expect("printing the document") + "\n";
    if std::env::var("FORMS_BLESS").as_deref() == Ok("1") {
        std::fs::write(committed_path(), &pretty).expect("writing docs/openapi.json");
        eprintln!("FORMS_BLESS=1: rewrote docs/openapi.json");
    }
    let committed: Value = std::fs::read_to_string(committed_path())
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    assert!(
        committed == served,
        "the served OpenAPI document differs from docs/openapi.json: regenerate it with \
         `FORMS_BLESS=1 cargo test --test api -- openapi` (or `formsd openapi > \
         docs/openapi.json`) and review the diff"
    );

    // `formsd openapi` prints the same document, and needs no database.
    let printed = formsd_command()
        .arg("openapi")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .await
        .expect("running formsd openapi");
    assert!(printed.status.success(), "{printed:?}");
    let printed: Value = serde_json::from_slice(&printed.stdout).expect("formsd openapi: JSON");
    assert!(
        printed == served,
        "formsd openapi differs from the served document"
    );
}

/// `METHOD /api/v1/path` of every operation of the document.
fn documented_operations(doc: &Value) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let paths = doc["paths"].as_object().expect("paths");
    for (path, item) in paths {
        for method in item.as_object().expect("path item").keys() {
            if ["get", "put", "post", "delete", "patch"].contains(&method.as_str()) {
                found.insert(format!("{} /api/v1{path}", method.to_uppercase()));
            }
        }
    }
    found
}

#[tokio::test]
async fn every_api_route_is_documented_with_its_errors_and_headers() {
    let app = TestApp::spawn().await;
    let doc = send(app.request(reqwest::Method::GET, "/openapi.json"))
        .await
        .body;
    let routes: BTreeSet<String> = crate::isolation::rest_routes()
        .into_iter()
        .filter(|r| r.contains(" /api/v1/") && !r.contains("/openapi.json") && !r.contains("/docs"))
        .collect();
    assert_eq!(documented_operations(&doc), routes);

    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["apiKey"]["name"], "x-api-key");
    assert_eq!(schemes["apiKey"]["in"], "header");
    assert_eq!(schemes["bearer"]["scheme"], "bearer");

    let responses = &doc["components"]["responses"];
    let codes_of = |reference: &Value| -> Vec<String> {
        let name = reference["$ref"]
            .as_str()
            .and_then(|r| r.strip_prefix("#/components/responses/"))
            .unwrap_or_else(|| panic!("an error response by reference: {reference}"));
        responses[name]["content"]["application/json"]["schema"]["allOf"][1]["properties"]["error"]
            ["properties"]["code"]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("codes of {name}"))
            .iter()
            .map(|c| c.as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let create = &doc["paths"]["/forms/{form_id}/responses"]["post"];
    assert_eq!(
        codes_of(&create["responses"]["422"]),
        ["VALIDATION_ERROR", "FORM_NOT_PUBLISHED", "FORM_CLOSED"]
    );
    assert_eq!(
        codes_of(&create["responses"]["403"]),
        [
            "PLAN_REQUIRED",
            "INSUFFICIENT_SCOPE",
            "RESPONSE_LIMIT_REACHED"
        ]
    );
    assert_eq!(
        codes_of(&create["responses"]["401"]),
        ["UNAUTHENTICATED", "KEY_INVALID"]
    );
    let headers = create["responses"]["201"]["headers"]
        .as_object()
        .expect("headers");
    for name in [
        "X-Request-Id",
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "Idempotent-Replayed",
    ] {
        assert!(
            headers.contains_key(name),
            "{name} on 201 of createResponse"
        );
    }
    let params: Vec<&str> = create["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(params, ["form_id", "Idempotency-Key"]);
    assert!(responses["RateLimited"]["headers"]["Retry-After"].is_object());

    // Limits of the query parameters.
    let per_page = doc["paths"]["/forms"]["get"]["parameters"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == "per_page"))
        .expect("per_page");
    assert_eq!(
        (
            per_page["schema"]["minimum"].as_i64(),
            per_page["schema"]["maximum"].as_i64()
        ),
        (Some(1), Some(100))
    );
    let days = &doc["paths"]["/usage"]["get"]["parameters"][0];
    assert_eq!(days["name"], "days");
    assert_eq!(
        (
            days["schema"]["minimum"].as_i64(),
            days["schema"]["maximum"].as_i64()
        ),
        (Some(1), Some(90))
    );
}

#[tokio::test]
async fn the_api_reference_is_served_from_the_binary() {
    let app = TestApp::spawn().await;
    // /api/v1/docs leads to the page (the client follows the redirect).
    let page = send(app.request(reqwest::Method::GET, "/docs")).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(page.header("content-type").starts_with("text/html"));
    assert!(page.text.contains("swagger-ui"), "{}", page.text);
    // Its scripts and styles come from this server, never from elsewhere.
    assert!(
        !page.text.contains("src=\"http") && !page.text.contains("href=\"http"),
        "the page loads assets from another host: {}",
        page.text
    );
    for (file, media_type) in [
        ("swagger-ui.css", "text/css"),
        ("swagger-ui-bundle.js", "text/javascript"),
        ("swagger-initializer.js", "text/javascript"),
    ] {
        let asset = send(app.request(reqwest::Method::GET, &format!("/docs/{file}"))).await;
        assert_eq!(asset.status, 200, "{file}");
        assert!(
            asset.header("content-type").starts_with(media_type),
            "{file}: {:?}",
            asset.headers
        );
        if file == "swagger-initializer.js" {
            assert!(asset.text.contains("../openapi.json"), "{}", asset.text);
        }
    }
    let missing = send(app.request(reqwest::Method::GET, "/docs/nothing-here.js")).await;
    assert_eq!(missing.status, 404);
    assert_eq!(
        missing.body["error"]["code"], "NOT_FOUND",
        "{}",
        missing.text
    );
}
