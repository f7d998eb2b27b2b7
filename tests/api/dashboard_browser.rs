//! The whole dashboard in a real browser (Debian's Chromium through playwright-core,
//! `tests/browser/dashboard.mjs`): every step of issue 19's walk, axe-core on every page
//! (no serious or critical violation), no CSP violation, no page wider than a phone, the
//! skip link first under Tab; then what the pages claimed is checked in the database.
//! Screenshots of every page land in `target/dashboard-screenshots/`. The walk signs in
//! twice: with a link from the command line, and, after signing out, with OpenID Connect
//! against a real provider (`tests/oidc/provider.mjs`).

use crate::browser::browser_available;
use crate::dashboard_session::*;
use crate::dashboard_sign_in::{link_identity, with_provider};
use crate::harness::*;
use serde_json::Value;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/dashboard.mjs");
const SHOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/target/dashboard-screenshots");

#[tokio::test]
async fn an_owner_walks_the_whole_dashboard_in_a_browser() {
    if !browser_available() {
        return;
    }
    let Some((app, _provider, _)) = with_provider(&[
        "--webhook-allow-private",
        "--webhook-poll-interval",
        "200ms",
        "--webhook-retry-schedule",
        "300ms,300ms,300ms",
    ])
    .await
    else {
        return;
    };
    let owner = app.new_key(PRO, ALL).await;
    link_identity(&app, &owner.account, "ada").await;
    let link = sign_in_link(&app, &owner.account).await;
    let output = tokio::process::Command::new("node")
        .args([SCRIPT, &origin(&app), &link, SHOTS, "ada"])
        .output()
        .await
        .expect("running node");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let seen: Value = serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr)));
    println!(
        "{}",
        serde_json::to_string_pretty(&seen["axe"]).unwrap_or_default()
    );
    assert!(
        seen["error"].is_null(),
        "failed at {}: {}\n{:#}",
        seen["failedStep"],
        seen["error"],
        seen
    );
    assert_eq!(seen["steps"].as_array().map(Vec::len), Some(10), "{seen:#}");

    // Accessibility and policy, on every page visited.
    let axe = seen["axe"].as_object().expect("axe figures");
    let mut checked: Vec<&str> = axe.keys().map(String::as_str).collect();
    checked.sort_unstable();
    let mut every = [
        "sign-in",
        "forms-empty",
        "builder",
        "form-published",
        "inbox",
        "response-detail",
        "webhooks-empty",
        "webhook-created",
        "delivery-log-failed",
        "delivery-log-succeeded",
        "keys",
        "key-created",
        "key-revoke-confirm",
        "key-usage",
        "account",
        "forms",
    ];
    every.sort_unstable();
    assert_eq!(checked, every, "every page of the walk is checked");
    for (page, figures) in axe {
        assert_eq!(figures["serious"], 0, "{page}: {:#}", figures["details"]);
        assert_eq!(seen["firstTab"][page], "Skip to content", "{page}");
    }
    assert_eq!(seen["cspViolations"], serde_json::json!([]), "{seen:#}");
    assert_eq!(seen["overflow"], serde_json::json!([]), "{seen:#}");

    // What the pages showed is what happened.
    assert_eq!(seen["csvHasResponse"], true);
    assert_eq!(seen["secretShown"], true);
    assert_eq!(seen["keyWorks"], 200);
    assert_eq!(seen["keyAfterRevoke"], 401);
    assert!(
        seen["afterSignOut"]
            .as_str()
            .unwrap_or("")
            .starts_with("/app/sign-in"),
        "{seen:#}"
    );
    let form_id = seen["formId"].as_str().expect("form id");
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM responses WHERE form_id = $1::uuid")
        .bind(form_id)
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(stored, 1);
    let statuses: Vec<i64> = seen["received"]
        .as_array()
        .expect("received")
        .iter()
        .filter_map(|r| r["status"].as_i64())
        .collect();
    assert!(
        statuses.contains(&500) && statuses.last() == Some(&200),
        "{statuses:?}"
    );
    let live: i64 =
        sqlx::query_scalar("SELECT count(*) FROM dashboard_sessions WHERE ended_at IS NULL")
            .fetch_one(&app.pool)
            .await
            .expect("sessions");
    assert_eq!(
        live, 1,
        "signed out of the link's session, signed in again by OpenID"
    );
    let by_oidc: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM dashboard_sessions WHERE ended_at IS NULL AND method = 'oidc'",
    )
    .fetch_one(&app.pool)
    .await
    .expect("sessions");
    assert_eq!(by_oidc, 1);
    assert_eq!(seen["oidcAccount"], owner.account.as_str());
}

/// The results pages (issue 31, part 2) in Chromium at 1280 and 390 px: the list, a
/// filter's mistake, a detail, the unfinished tab and the summary; axe-clean, CSP-clean,
/// no sideways scrolling, no id or API syntax in the visible text, a compact header
/// row, no text under 12 px at 390; and a selection made with the keyboard only.
/// Screenshots land in `target/results-screenshots/`.
#[tokio::test]
async fn the_results_pages_read_plainly_in_a_browser() {
    if !browser_available() {
        return;
    }
    const RESULTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/results.mjs");
    const RESULT_SHOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/target/results-screenshots");
    let app = dashboard_app(&[]).await;
    let d = signed_in(&app, "results-browser").await;
    let form = crate::dashboard_results::survey(&app, &d).await;
    let ids = crate::dashboard_results::answer(&app, &d, &form).await;
    let id = form["id"].as_str().expect("id").to_owned();
    let name = form["fields"][0]["id"].as_str().expect("field").to_owned();
    let hannah = serde_json::json!({ name: "Half-way Hannah" });
    crate::dashboard_results::unfinished(&app, &id, &hannah, 2).await;
    let rating = form["fields"][5]["id"].as_str().expect("field");
    let inbox = format!("/app/forms/{id}/responses");
    let pages = [
        format!("list={inbox}"),
        format!("filter-mistake={inbox}?field={rating}&op=gte&value=lots"),
        format!("detail={inbox}/{}", ids[0]),
        format!("unfinished={inbox}?show=unfinished"),
        format!("summary=/app/forms/{id}/summary"),
    ];
    let mut args = vec![
        RESULTS.to_owned(),
        origin(&app),
        d.cookie.clone(),
        RESULT_SHOTS.to_owned(),
    ];
    args.extend(pages);
    let output = tokio::process::Command::new("node")
        .args(&args)
        .output()
        .await
        .expect("running node");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let seen: Value = serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr)));
    println!("{seen:#}");
    assert!(seen["error"].is_null(), "{seen:#}");
    for name in ["list", "filter-mistake", "detail", "unfinished", "summary"] {
        let page = &seen["pages"][name];
        let want = if name == "filter-mistake" { 422 } else { 200 };
        assert_eq!(page["status"], want, "{name}: {page:#}");
        assert_eq!(page["serious"], serde_json::json!([]), "{name}: {page:#}");
        assert_eq!(page["forbidden"], serde_json::json!([]), "{name}: {page:#}");
        assert!(
            page["overflow"].as_i64().is_some_and(|w| w <= 1),
            "{name}: {page:#}"
        );
        assert!(
            page["smallestText"].as_f64().is_some_and(|px| px >= 12.0),
            "{name}: {page:#}"
        );
    }
    for name in ["list", "unfinished"] {
        let header = seen["pages"][name]["headerHeight"].as_i64().unwrap_or(999);
        assert!(header <= 72, "{name}: the header row is {header} px tall");
    }
    assert_eq!(seen["cspViolations"], serde_json::json!([]), "{seen:#}");
    assert_eq!(seen["keyboardReachedBox"], true, "{seen:#}");
    assert_eq!(seen["tickedByKeyboard"], 1, "{seen:#}");
    assert_eq!(
        seen["selectionCsvRows"], 2,
        "a header and the ticked row: {seen:#}"
    );
}
