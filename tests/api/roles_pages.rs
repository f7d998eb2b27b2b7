//! The role axis of the dashboard (issue 33 §1): every `/app` route has a row giving the
//! least role that may use it (or none: the sign-in pages, assets and an invitation's
//! page, which no role gates), and a route without its row, or a row without its
//! route, fails the guard. Every page (GET) is opened by a member of each role: below
//! the row's role it is the 403 page saying the role does not allow it, at or above it
//! never is. Every change (POST) is sent by each role below the row's, and refused with
//! that page, changing nothing (its allowed use is the page tests' own, as the owner).

use crate::dashboard_session::{Dashboard, signed_in, spawn};
use crate::harness::{Reply, TestApp, send};
use crate::members::invite;
use forms::permissions::Role;
use serde_json::json;
use std::collections::BTreeSet;

use Role::{Admin, Editor, Owner, Viewer};

/// Every dashboard route and the least role that may use it; `None`: not a member's.
const PAGES: &[(&str, Option<Role>)] = &[
    ("GET /app/", None),
    ("GET /app/assets/{file}", None),
    ("GET /app/sign-in", None),
    ("GET /app/sign-in/link", None),
    ("POST /app/sign-in/link", None),
    ("POST /app/sign-in/cookie", None),
    ("POST /app/sign-in/mail", None),
    ("GET /app/sign-in/oidc", None),
    ("GET /app/sign-in/oidc/callback", None),
    ("GET /app/invitation", None),
    ("POST /app/invitation", None),
    ("POST /app/sign-out", Some(Viewer)),
    ("GET /app/forms", Some(Viewer)),
    ("POST /app/forms", Some(Editor)),
    ("GET /app/forms/{id}", Some(Viewer)),
    ("POST /app/forms/{id}/details", Some(Editor)),
    ("POST /app/forms/{id}/fields", Some(Editor)),
    ("POST /app/forms/{id}/fields/{field_id}", Some(Editor)),
    (
        "POST /app/forms/{id}/fields/{field_id}/conditions",
        Some(Editor),
    ),
    ("POST /app/forms/{id}/fields/{field_id}/move", Some(Editor)),
    (
        "POST /app/forms/{id}/fields/{field_id}/duplicate",
        Some(Editor),
    ),
    ("POST /app/forms/{id}/order", Some(Editor)),
    (
        "POST /app/forms/{id}/fields/{field_id}/remove",
        Some(Editor),
    ),
    ("POST /app/forms/{id}/settings", Some(Editor)),
    ("POST /app/forms/{id}/design", Some(Editor)),
    ("POST /app/forms/{id}/logo", Some(Editor)),
    ("POST /app/forms/{id}/status", Some(Editor)),
    ("POST /app/forms/{id}/delete", Some(Editor)),
    ("POST /app/forms/{id}/languages", Some(Editor)),
    ("GET /app/forms/{id}/languages/{lang}", Some(Viewer)),
    ("POST /app/forms/{id}/languages/{lang}", Some(Editor)),
    ("POST /app/forms/{id}/languages/{lang}/remove", Some(Editor)),
    ("GET /app/forms/{id}/responses", Some(Viewer)),
    ("GET /app/forms/{id}/summary", Some(Viewer)),
    ("GET /app/forms/{id}/responses/export.csv", Some(Viewer)),
    ("GET /app/forms/{id}/responses/export.ndjson", Some(Viewer)),
    ("GET /app/forms/{id}/responses/export.xlsx", Some(Viewer)),
    // Deleting the chosen responses: an admin's, as DeleteResponse is.
    ("POST /app/forms/{id}/responses/selection", Some(Admin)),
    ("GET /app/forms/{id}/responses/{response_id}", Some(Viewer)),
    (
        "POST /app/forms/{id}/responses/{response_id}/delete",
        Some(Admin),
    ),
    (
        "GET /app/forms/{id}/responses/{response_id}/files/{file_id}",
        Some(Viewer),
    ),
    ("GET /app/forms/{id}/webhooks", Some(Viewer)),
    ("POST /app/forms/{id}/webhooks", Some(Admin)),
    // A webhook's page is its delivery log: an admin's.
    ("GET /app/forms/{id}/webhooks/{webhook_id}", Some(Admin)),
    ("POST /app/forms/{id}/webhooks/{webhook_id}", Some(Admin)),
    (
        "POST /app/forms/{id}/webhooks/{webhook_id}/delete",
        Some(Admin),
    ),
    (
        "POST /app/forms/{id}/webhooks/{webhook_id}/test",
        Some(Admin),
    ),
    (
        "POST /app/forms/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
        Some(Admin),
    ),
    (
        "POST /app/forms/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/send",
        Some(Admin),
    ),
    ("GET /app/keys", Some(Admin)),
    ("POST /app/keys", Some(Admin)),
    ("GET /app/keys/{key_id}", Some(Admin)),
    ("GET /app/keys/{key_id}/revoke", Some(Admin)),
    ("POST /app/keys/{key_id}/revoke", Some(Admin)),
    ("GET /app/account", Some(Viewer)),
    ("POST /app/account/notifications", Some(Owner)),
    ("POST /app/account/unlink", Some(Owner)),
    ("POST /app/account/design", Some(Editor)),
    ("GET /app/account/erasure", Some(Viewer)),
    ("POST /app/account/erasure", Some(Admin)),
    ("GET /app/audit", Some(Admin)),
    ("GET /app/members", Some(Viewer)),
    ("POST /app/members/invite", Some(Admin)),
    ("POST /app/members/leave", Some(Viewer)),
    ("POST /app/members/{person_id}/role", Some(Admin)),
    ("POST /app/members/{person_id}/remove", Some(Admin)),
    ("POST /app/invitations/{invitation_id}/revoke", Some(Admin)),
    ("POST /app/accounts/switch", Some(Viewer)),
];

#[test]
fn every_dashboard_route_has_its_role() {
    let rows: BTreeSet<String> = PAGES.iter().map(|(r, _)| (*r).to_owned()).collect();
    assert_eq!(rows.len(), PAGES.len(), "a route listed twice");
    let routes = crate::isolation::dashboard_routes();
    let missing: Vec<_> = routes.difference(&rows).collect();
    let stale: Vec<_> = rows.difference(&routes).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "routes without a role: {missing:?}; rows without a route: {stale:?}"
    );
}

/// The fields a change needs to reach the core (a confirmation, a choice): without
/// them the page answers what is missing before the role is looked at.
fn fields_of(route: &str, [field, second, response]: [&str; 3]) -> Vec<(&'static str, String)> {
    let path = route.split_once(' ').map_or(route, |(_, p)| p);
    let pairs: Vec<(&'static str, String)> = match path {
        "/app/forms/{id}/fields/{field_id}/move" => vec![("direction", "down".into())],
        "/app/forms/{id}/order" => vec![("order", second.into()), ("order", field.into())],
        "/app/forms/{id}/fields/{field_id}/remove"
        | "/app/forms/{id}/responses/{response_id}/delete" => vec![("confirm", "yes".into())],
        "/app/forms/{id}/status" => vec![("action", "close".into())],
        "/app/forms/{id}/delete" => vec![("confirm_title", "Roles".into())],
        "/app/forms/{id}/languages" => vec![("action", "add".into()), ("language", "fr".into())],
        "/app/forms/{id}/languages/{lang}/remove" => vec![("confirm", "yes".into())],
        "/app/forms/{id}/responses/selection" => vec![
            ("id", response.into()),
            ("action", "delete".into()),
            ("confirm", "yes".into()),
        ],
        _ => Vec::new(),
    };
    pairs
}

/// The logo's post: a multipart form asking to remove the logo.
async fn post_logo(browser: &Dashboard, path: &str) -> Reply {
    let boundary = "roles-boundary";
    let body = format!(
        "--{boundary}\r\ncontent-disposition: form-data; name=\"_csrf\"\r\n\r\n{}\r\n\
         --{boundary}\r\ncontent-disposition: form-data; name=\"remove\"\r\n\r\n1\r\n\
         --{boundary}--\r\n",
        browser.csrf
    );
    let request = browser
        .client
        .post(format!("{}{path}", browser.base))
        .header("cookie", &browser.cookie)
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(body);
    send(request).await
}

/// Whether a reply is the dashboard's refusal for a role.
fn refused(reply: &Reply) -> bool {
    reply.status == 403 && reply.text.contains("Your role does not allow this")
}

/// A browser of `account` signed in as a member with `role`, invited by `owner`.
async fn member(app: &TestApp, owner: &Dashboard, role: &str) -> Dashboard {
    let token = invite(app, owner, &format!("{role}@pages.example"), role).await;
    let client = crate::dashboard_session::browser();
    let body = serde_urlencoded::to_string([("token", token.as_str())]).expect("body");
    let reply = send(
        client
            .post(format!("{}/app/invitation", owner.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body),
    )
    .await;
    let cookie = crate::dashboard_session::session_cookie(&reply)
        .unwrap_or_else(|| panic!("accepting: {} {}", reply.status, reply.text));
    let mut browser = Dashboard {
        base: owner.base.clone(),
        cookie,
        csrf: String::new(),
        client,
        account: owner.account.clone(),
        key: owner.key.clone(),
    };
    let page = browser.get("/app/members").await;
    browser.csrf = crate::dashboard_session::input_value(&page.text, "_csrf").expect("CSRF");
    browser
}

#[tokio::test]
async fn every_page_and_change_answers_each_role_as_its_row_says() {
    let app = spawn(&["--webhook-allow-private"]).await;
    let owner = signed_in(&app, "pages-team").await;
    let form = app
        .create_form(
            &owner.key,
            &json!({"title": "Roles", "translations": {"de": {"title": "Rollen"}}, "fields": [
                {"type": "short_text", "label": "Name"},
                {"type": "short_text", "label": "Town"},
            ]}),
        )
        .await;
    let id = form["id"].as_str().expect("id").to_owned();
    let field = form["fields"][0]["id"].as_str().expect("field").to_owned();
    let second = form["fields"][1]["id"].as_str().expect("field").to_owned();
    app.put(
        &format!("/forms/{id}"),
        &owner.key,
        &json!({"status": "published"}),
    )
    .await;
    let response = app
        .post(
            &format!("/forms/{id}/responses"),
            &owner.key,
            &json!({"answers": {field.clone(): "Ann"}}),
        )
        .await;
    let response = response.ok(201)["response"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let hook = app
        .post(
            &format!("/forms/{id}/webhooks"),
            &owner.key,
            &json!({"name": "Roles hook", "url": "http://127.0.0.1:9/hook", "events": ["response.received"]}),
        )
        .await;
    let hook = hook.ok(201)["webhook"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let key_id: uuid::Uuid = sqlx::query_scalar(
        "SELECT k.id FROM api_keys k JOIN accounts a ON a.id = k.account_id
          WHERE a.name = 'pages-team' AND k.lookup NOT LIKE 'session-%' LIMIT 1",
    )
    .fetch_one(&app.pool)
    .await
    .expect("the API key");
    let key_id = key_id.to_string();
    let nobody = uuid::Uuid::now_v7().to_string();
    let fill = |route: &str| {
        route
            .replace("{id}", &id)
            .replace("{field_id}", &field)
            .replace("{response_id}", &response)
            .replace("{webhook_id}", &hook)
            .replace("{key_id}", &key_id)
            .replace("{file_id}", &nobody)
            .replace("{delivery_id}", &nobody)
            .replace("{person_id}", &nobody)
            .replace("{invitation_id}", &nobody)
            .replace("{lang}", "de")
    };
    let mut members = vec![(Owner, signed_in(&app, "pages-team").await)];
    for (role, name) in [(Admin, "admin"), (Editor, "editor"), (Viewer, "viewer")] {
        members.push((role, member(&app, &owner, name).await));
    }
    let title = || async {
        app.get(&format!("/forms/{id}"), &owner.key).await.ok(200)["form"]["title"].clone()
    };
    let before = title().await;

    let (mut cells, mut wrong) = (0, Vec::new());
    for (route, least) in PAGES {
        let Some(least) = least else { continue };
        let (method, path) = route.split_once(' ').expect("METHOD path");
        let path = fill(path);
        let fields = fields_of(route, [&field, &second, &response]);
        let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        for (role, browser) in &members {
            let below = role < least;
            let reply = match method {
                "GET" => browser.get(&path).await,
                // A change is sent only by the roles it refuses.
                _ if below && path.ends_with("/logo") => post_logo(browser, &path).await,
                _ if below => browser.post(&path, &fields).await,
                _ => continue,
            };
            cells += 1;
            if refused(&reply) != below {
                wrong.push(format!(
                    "{route} as {role:?}: {} {}",
                    reply.status, reply.text
                ));
            }
        }
    }
    eprintln!("roles: {} dashboard routes, {cells} cells", PAGES.len());
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n\n")
    );
    assert_eq!(title().await, before, "a refused change changed the form");
}
