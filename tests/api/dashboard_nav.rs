//! One navigation pattern on every dashboard page, in words a person reads: the same
//! bar, a breadcrumb trail from the section to the page, and on each page of a form the
//! form's tabs with the page's own marked. In Chromium at 1280 and 390 px
//! (`tests/browser/dashboard_pages.mjs`): axe-clean, CSP-clean, no sideways scroll, the
//! bar in deliberate rows at 390 (brand and Sign out, then the sections), the tabs on
//! one row, a long title on at most 3 lines, a gap between the forms list's filter and
//! its table, and no id or API syntax in any page's visible words. Against the real binary, with a long-titled form, a response and a
//! webhook. `SCREENSHOTS=<dir>` keeps the pictures.

use crate::browser::browser_available;
use crate::dashboard_session::{Dashboard, signed_in, spawn};
use crate::fixtures::*;
use crate::harness::*;
use serde_json::{Value, json};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/browser/dashboard_pages.mjs"
);

const TITLE: &str = "Customer satisfaction survey for the spring product launch, all regions";

/// A published form with a long title, one response and one webhook: its id, the
/// response's and the webhook's.
async fn furnished(app: &TestApp, d: &Dashboard) -> (String, String, String) {
    let body = json!({"title": TITLE, "fields": contact_fields()});
    let form = app.create_form(&d.key, &body).await;
    let id = form["id"].as_str().expect("form id").to_owned();
    app.put(
        &format!("/forms/{id}"),
        &d.key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    let fields = field_ids(&form);
    let response = app
        .post(
            &format!("/forms/{id}/responses"),
            &d.key,
            &json!({"answers": contact_answers(&fields, 1)}),
        )
        .await
        .ok(201)["response"]["id"]
        .as_str()
        .expect("response id")
        .to_owned();
    let hook = app
        .post(
            &format!("/forms/{id}/webhooks"),
            &d.key,
            &json!({"name": "CRM", "url": "http://127.0.0.1:9/hook", "events": ["form.submitted"]}),
        )
        .await
        .ok(201)["webhook"]["id"]
        .as_str()
        .expect("webhook id")
        .to_owned();
    (id, response, hook)
}

/// The dashboard's pages of one form and account: (name, path, the tab it marks).
fn pages(
    id: &str,
    response: &str,
    hook: &str,
    key: &str,
) -> Vec<(&'static str, String, Option<&'static str>)> {
    let form = format!("/app/forms/{id}");
    vec![
        ("forms", "/app/forms".to_owned(), None),
        ("builder", form.clone(), Some("Builder")),
        ("responses", format!("{form}/responses"), Some("Responses")),
        (
            "response",
            format!("{form}/responses/{response}"),
            Some("Responses"),
        ),
        ("summary", format!("{form}/summary"), Some("Summary")),
        ("webhooks", format!("{form}/webhooks"), Some("Webhooks")),
        (
            "webhook",
            format!("{form}/webhooks/{hook}"),
            Some("Webhooks"),
        ),
        ("keys", "/app/keys".to_owned(), None),
        ("key", format!("/app/keys/{key}"), None),
        ("account", "/app/account".to_owned(), None),
        ("audit", "/app/audit".to_owned(), None),
        ("members", "/app/members".to_owned(), None),
    ]
}

#[tokio::test]
async fn every_form_page_has_the_trail_and_the_tabs_with_its_own_marked() {
    let app = spawn(&["--webhook-allow-private"]).await;
    let d = signed_in(&app, "nav-owner").await;
    let (id, response, hook) = furnished(&app, &d).await;
    for (name, path, tab) in pages(&id, &response, &hook, "none") {
        let Some(tab) = tab else { continue };
        let page = d.get(&path).await;
        assert_eq!(page.status, 200, "{name}: {}", page.text);
        let html = &page.text;
        assert!(
            html.contains(r#"<nav class="crumbs" aria-label="Breadcrumb"><ol><li><a href="/app/forms">Forms</a></li>"#),
            "{name}: the trail starts at Forms: {html}"
        );
        assert!(
            html.contains(r#"<nav class="subnav" aria-label="Form">"#),
            "{name}: {html}"
        );
        assert!(
            html.contains(&format!(r#"aria-current="page">{tab}</a>"#)),
            "{name} marks {tab}: {html}"
        );
        // The old patterns are gone: no "/" or "←" trails.
        assert!(
            !html.contains("</a> / ") && !html.contains('←'),
            "{name}: {html}"
        );
    }
}

#[tokio::test]
async fn the_pages_read_well_at_1280_and_390_in_chromium() {
    if !browser_available() {
        return;
    }
    let app = spawn(&["--webhook-allow-private"]).await;
    let d = signed_in(&app, "nav-phone").await;
    let (id, response, hook) = furnished(&app, &d).await;
    let key = forms::pb::owner_service_client::OwnerServiceClient::new(
        crate::dashboard_session::channel(&app).await,
    )
    .list_own_keys(d.grpc(forms::pb::ListOwnKeysRequest {}, false))
    .await
    .expect("keys")
    .into_inner()
    .keys
    .into_iter()
    .find(|k| !k.session_key)
    .and_then(|k| k.key)
    .expect("the API key")
    .id;
    // The Members page with a second member and an invitation not yet accepted.
    let mut members = forms::pb::members_service_client::MembersServiceClient::new(
        crate::dashboard_session::channel(&app).await,
    );
    let mut pending = String::new();
    for (email, role) in [("sam@example.com", "editor"), ("pat@example.com", "viewer")] {
        let invite = forms::pb::InviteMemberRequest {
            email: email.into(),
            role: role.into(),
        };
        let made = members.invite_member(d.grpc_changing(invite)).await;
        let token = made.expect("invited").into_inner().token;
        if role == "editor" {
            let accept = forms::pb::AcceptInvitationRequest { token };
            members
                .accept_invitation(tonic::Request::new(accept))
                .await
                .expect("accepted");
        } else {
            pending = token;
        }
    }
    let mut pages = pages(&id, &response, &hook, &key);
    let invitation = format!("/app/invitation?token={pending}");
    pages.push(("invitation", invitation, None));
    let mut args: Vec<String> = vec![SCRIPT.to_owned(), d.base.clone(), d.cookie.clone()];
    args.extend(pages.iter().map(|(name, path, _)| format!("{name}={path}")));
    let args: Vec<&dyn AsRef<std::ffi::OsStr>> = args.iter().map(|a| a as _).collect();
    let seen: Value = run_browser_script(&args).await;

    for (name, _, tab) in &pages {
        for width in [1280, 390] {
            let at = &seen[format!("{name}@{width}")];
            assert_eq!(at["status"], 200, "{name}@{width}: {at}");
            assert_eq!(at["axe"], json!([]), "{name}@{width}: {at}");
            assert_eq!(at["csp"], json!([]), "{name}@{width}: {at}");
            // No id or API syntax in the words of any page (issue 31 §5).
            assert_eq!(at["forbidden"], json!([]), "{name}@{width}: {at}");
            assert_eq!(
                at["sideways"], false,
                "{name}@{width} scrolls sideways: {at}"
            );
            assert_eq!(at["signOutBesideBrand"], true, "{name}@{width}: {at}");
            assert_eq!(at["sectionsOneRow"], true, "{name}@{width}: {at}");
            assert!(
                at["titleLines"].as_i64().is_some_and(|n| n <= 3),
                "{name}@{width}: {at}"
            );
            if let Some(tab) = tab {
                assert_eq!(at["currentTab"], *tab, "{name}@{width}: {at}");
                assert_eq!(at["tabsOneRow"], true, "{name}@{width}: {at}");
                assert_eq!(at["crumbs"][0], "Forms", "{name}@{width}: {at}");
            }
        }
    }
    for width in [1280, 390] {
        // The builder's share panel opens its embed fold from the keyboard (its axe
        // findings open are in the builder's above).
        let opened = &seen[format!("builder@{width}")]["shareOpened"];
        assert_eq!(*opened, true, "the share fold at {width}: {opened}");
        let gap = seen[format!("forms@{width}")]["filterGap"].as_i64();
        assert!(
            gap.is_some_and(|g| g >= 8),
            "the table touches the filter at {width}: {gap:?}"
        );
    }
    println!("{seen}");
}
