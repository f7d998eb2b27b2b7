//! The dashboard's sessions and the rules every page shares: sign-in links that work
//! once, the session cookie's attributes, CSRF on every change, the page headers,
//! sign-out on every instance, the idle timeout and the lifetime, the account-scoped
//! gRPC surface refusing API keys, and the per-day counters behind the forms list.

use crate::dashboard_session::*;
use crate::fixtures::*;
use crate::harness::*;
use ::forms::pb;
use serde_json::{Value, json};
use std::time::Duration;
use tonic::Request;
use tonic_types::StatusExt;

fn reason(status: &tonic::Status) -> String {
    status
        .get_details_error_info()
        .map(|info| info.reason)
        .unwrap_or_else(|| format!("{status:?}"))
}

/// The session token of a `formsd_session=…` cookie.
fn token(cookie: &str) -> &str {
    cookie.trim_start_matches("formsd_session=")
}

fn as_session<T>(message: T, token: &str, csrf: Option<&str>) -> Request<T> {
    let mut request = Request::new(message);
    let md = request.metadata_mut();
    md.insert("x-dashboard-session", token.parse().expect("metadata"));
    if let Some(csrf) = csrf {
        md.insert("x-csrf-token", csrf.parse().expect("metadata"));
    }
    request
}

async fn form_titles(app: &TestApp, key: &str) -> Vec<String> {
    let reply = app.get("/forms", key).await;
    reply.ok(200)["forms"]
        .as_array()
        .expect("forms")
        .iter()
        .map(|f| f["title"].as_str().expect("title").to_owned())
        .collect()
}

#[tokio::test]
async fn a_sign_in_link_opens_one_session_once_with_a_strict_cookie() {
    let app = TestApp::spawn().await;
    let owner = app.new_key(PRO, ALL).await;
    let link = sign_in_link(&app, &owner.account).await;
    assert!(
        link.starts_with(&format!("{}/app/sign-in/link?token=", origin(&app))),
        "{link}"
    );

    // Opening the link spends nothing: a mail scanner's GET leaves it usable.
    let opened = send(browser().get(&link)).await;
    assert_eq!(opened.status, 200);
    assert_eq!(opened.headers["referrer-policy"], "no-referrer");
    assert!(session_cookie(&opened).is_none());

    let first = redeem(&app, token_of(&link)).await;
    assert_eq!(first.status, 303);
    assert_eq!(first.header("location"), "/app/forms");
    let set = first.headers["set-cookie"].to_str().expect("ascii");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/app"] {
        assert!(set.contains(attribute), "{set}");
    }
    assert!(!set.contains("Secure"), "plain HTTP: no Secure ({set})");

    let again = redeem(&app, token_of(&link)).await;
    assert_eq!(again.status, 401, "a link works once");
    assert!(session_cookie(&again).is_none());
    assert!(again.text.contains("used already"), "{}", again.text);

    let forged = redeem(&app, "not-a-token").await;
    assert_eq!(forged.status, 401);
}

#[tokio::test]
async fn an_expired_link_signs_no_one_in() {
    let app = TestApp::spawn().await;
    let owner = app.new_key(PRO, ALL).await;
    let link = sign_in_link(&app, &owner.account).await;
    sqlx::query("UPDATE sign_in_links SET expires_at = now() - interval '1 second'")
        .execute(&app.pool)
        .await
        .expect("expiring the link");
    assert_eq!(redeem(&app, token_of(&link)).await.status, 401);
}

#[tokio::test]
async fn pages_need_a_session_and_send_a_strict_policy() {
    let app = TestApp::spawn().await;
    let anonymous = send(browser().get(format!("{}/app/forms?status=draft", origin(&app)))).await;
    assert_eq!(anonymous.status, 303);
    assert_eq!(
        anonymous.header("location"),
        "/app/sign-in?next=%2Fapp%2Fforms%3Fstatus%3Ddraft"
    );

    let owner = app.new_key(PRO, ALL).await;
    let dashboard = signed_in(&app, &owner.account).await;
    for path in ["/app/forms", "/app/sign-in", "/app/no-such-page"] {
        let page = dashboard.get(path).await;
        let csp = page.headers["content-security-policy"]
            .to_str()
            .expect("ascii");
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
            "{csp}"
        );
        assert!(
            csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"),
            "{csp}"
        );
        assert_eq!(page.headers["x-content-type-options"], "nosniff");
        assert_eq!(page.headers["x-frame-options"], "DENY");
        // Nothing inline that the policy would block.
        assert!(
            !page.text.contains("style=\"") && !page.text.contains("<script>"),
            "{path}"
        );
    }
    assert_eq!(dashboard.get("/app/no-such-page").await.status, 404);
    let css = dashboard.get("/app/assets/app.css").await;
    assert_eq!(css.status, 200);
    assert!(
        css.headers["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/css")
    );

    // After sign-in, only a dashboard path: never another site.
    let link = sign_in_link(&app, &owner.account).await;
    let elsewhere = send(
        browser()
            .post(format!("{}/app/sign-in/link", origin(&app)))
            .form(&[("token", token_of(&link)), ("next", "//evil.example/app/")]),
    )
    .await;
    assert_eq!(elsewhere.header("location"), "/app/forms");
}

#[tokio::test]
async fn a_change_without_the_csrf_token_or_from_another_site_changes_nothing() {
    let app = TestApp::spawn().await;
    let owner = app.new_key(PRO, ALL).await;
    let dashboard = signed_in(&app, &owner.account).await;

    let missing = dashboard
        .post_raw("/app/forms", &[("title", "Missing")])
        .await;
    assert_eq!(missing.status, 403, "{}", missing.text);
    assert!(missing.text.contains("Nothing was changed"));
    let wrong = dashboard
        .post_raw("/app/forms", &[("title", "Wrong"), ("_csrf", "AAAA")])
        .await;
    assert_eq!(wrong.status, 403);
    // Another session's token is not this one's.
    let other = signed_in(&app, &owner.account).await;
    assert_ne!(other.csrf, dashboard.csrf);
    let foreign = dashboard
        .post_raw(
            "/app/forms",
            &[("title", "Foreign"), ("_csrf", &other.csrf)],
        )
        .await;
    assert_eq!(foreign.status, 403);
    let cross_site = send(
        dashboard
            .client
            .post(format!("{}/app/forms", origin(&app)))
            .header("cookie", &dashboard.cookie)
            .header("sec-fetch-site", "cross-site")
            .form(&[("title", "Cross"), ("_csrf", dashboard.csrf.as_str())]),
    )
    .await;
    assert_eq!(cross_site.status, 403);
    assert!(form_titles(&app, &owner.key).await.is_empty());

    let made = dashboard.post("/app/forms", &[("title", "Made")]).await;
    assert_eq!(made.status, 303, "{}", made.text);
    assert!(
        made.header("location").starts_with("/app/forms/"),
        "{}",
        made.header("location")
    );
    assert_eq!(form_titles(&app, &owner.key).await, ["Made"]);
}

#[tokio::test]
async fn sign_out_ends_the_session_on_every_instance() {
    let a = TestApp::spawn().await;
    let b = TestApp::spawn_on(a.db.clone(), &[]).await;
    let owner = a.new_key(PRO, ALL).await;
    let on_a = signed_in(&a, &owner.account).await;
    let on_b = Dashboard {
        base: origin(&b),
        client: browser(),
        cookie: on_a.cookie.clone(),
        csrf: on_a.csrf.clone(),
        account: on_a.account.clone(),
        key: on_a.key.clone(),
    };
    assert_eq!(on_b.get("/app/forms").await.status, 200);

    // Signing out needs the CSRF token too: a forged sign-out leaves the session alone.
    assert_eq!(on_a.post_raw("/app/sign-out", &[]).await.status, 403);
    assert_eq!(on_b.get("/app/forms").await.status, 200);

    let out = on_a.post("/app/sign-out", &[]).await;
    assert_eq!(out.status, 200);
    let cleared = out.headers["set-cookie"].to_str().expect("ascii");
    assert!(
        cleared.starts_with("formsd_session=;") && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
    let after = on_b.get("/app/forms").await;
    assert_eq!(
        after.status, 303,
        "the other instance no longer knows the session"
    );
    assert!(after.header("location").starts_with("/app/sign-in"));
    // And the token is refused by the core itself.
    let mut forms = pb::forms_service_client::FormsServiceClient::new(channel(&b).await);
    let refused = forms
        .list_forms(as_session(
            pb::ListFormsRequest::default(),
            token(&on_a.cookie),
            None,
        ))
        .await
        .expect_err("ended session");
    assert_eq!(reason(&refused), "KEY_INVALID");
}

#[tokio::test]
async fn a_session_ends_when_idle_and_at_its_lifetime_however_busy() {
    let idle = TestApp::spawn_with(&["--session-idle-timeout", "4s"]).await;
    let owner = idle.new_key(PRO, ALL).await;
    let dashboard = signed_in(&idle, &owner.account).await;
    // In use every second for six seconds: longer than the idle timeout, still alive.
    for _ in 0..6 {
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!(dashboard.get("/app/forms").await.status, 200);
    }
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(
        dashboard.get("/app/forms").await.status,
        303,
        "idle for 5 s"
    );

    let short = TestApp::spawn_with(&["--session-lifetime", "3s"]).await;
    let owner = short.new_key(PRO, ALL).await;
    let dashboard = signed_in(&short, &owner.account).await;
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_millis(2500) {
        assert_eq!(dashboard.get("/app/forms").await.status, 200);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        dashboard.get("/app/forms").await.status,
        303,
        "past its lifetime"
    );
}

#[tokio::test]
async fn a_session_is_a_credential_of_the_core_with_csrf_on_changes() {
    let app = TestApp::spawn().await;
    let owner = app.new_key(PRO, ALL).await;
    let dashboard = signed_in(&app, &owner.account).await;
    let session = token(&dashboard.cookie);
    let channel = channel(&app).await;
    let mut forms = pb::forms_service_client::FormsServiceClient::new(channel.clone());
    forms
        .list_forms(as_session(pb::ListFormsRequest::default(), session, None))
        .await
        .expect("a read needs no CSRF token");
    let create = || pb::CreateFormRequest {
        title: "By gRPC".into(),
        ..Default::default()
    };
    let refused = forms
        .create_form(as_session(create(), session, None))
        .await
        .expect_err("no CSRF token");
    assert_eq!(reason(&refused), "CSRF_FAILED");
    forms
        .create_form(as_session(create(), session, Some(&dashboard.csrf)))
        .await
        .expect("with the CSRF token");
    assert_eq!(form_titles(&app, &owner.key).await, ["By gRPC"]);

    // The owner's methods are the dashboard's: an API key, even an admin one, is refused.
    let mut owner_service = pb::owner_service_client::OwnerServiceClient::new(channel);
    let mut as_key = Request::new(pb::GetFormActivityRequest::default());
    as_key
        .metadata_mut()
        .insert("x-api-key", owner.key.parse().expect("metadata"));
    let refused = owner_service
        .get_form_activity(as_key)
        .await
        .expect_err("an API key");
    assert_eq!(reason(&refused), "INSUFFICIENT_SCOPE");
    owner_service
        .get_form_activity(as_session(
            pb::GetFormActivityRequest::default(),
            session,
            None,
        ))
        .await
        .expect("a session");
}

#[tokio::test]
async fn the_dashboard_is_open_to_every_plan() {
    let app = TestApp::spawn().await;
    let owner = app.new_key(::forms::accounts::Plan::Free, ALL).await;
    let dashboard = signed_in(&app, &owner.account).await;
    assert_eq!(dashboard.get("/app/forms").await.status, 200);
    // The plan still gates the API.
    app.get("/forms", &owner.key)
        .await
        .error(403, "PLAN_REQUIRED");
}

#[tokio::test]
async fn form_activity_counts_each_day_from_counters_and_keeps_to_the_account() {
    let app = TestApp::spawn().await;
    let owner = app.new_key(PRO, ALL).await;
    let form = published_form(&app, &owner.key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id");
    let fields = field_ids(&form);
    let mut ids = Vec::new();
    for n in 0..3 {
        let reply = app
            .post(
                &format!("/forms/{form_id}/responses"),
                &owner.key,
                &json!({"answers": contact_answers(&fields, n)}),
            )
            .await;
        ids.push(
            reply.ok(201)["response"]["id"]
                .as_str()
                .expect("id")
                .to_owned(),
        );
    }
    // Two responses of earlier days, stored as a migration or an import would.
    sqlx::query(
        "INSERT INTO responses (id, form_id, answers, started_at, submitted_at)
         SELECT gen_random_uuid(), $1::uuid, '{}', now() - d * interval '1 day', now() - d * interval '1 day'
           FROM generate_series(2, 3) AS d",
    )
    .bind(form_id)
    .execute(&app.pool)
    .await
    .expect("older responses");
    sqlx::query("UPDATE forms SET response_count = response_count + 2 WHERE id = $1::uuid")
        .bind(form_id)
        .execute(&app.pool)
        .await
        .expect("their count");
    app.delete(
        &format!("/forms/{form_id}/responses/{}", ids[0]),
        &owner.key,
    )
    .await;

    let stranger = app.new_key(PRO, ALL).await;
    let theirs = app
        .create_form(
            &stranger.key,
            &json!({"title": "Theirs", "fields": contact_fields()}),
        )
        .await;
    let dashboard = signed_in(&app, &owner.account).await;
    let mut service = pb::owner_service_client::OwnerServiceClient::new(channel(&app).await);
    let activity = service
        .get_form_activity(as_session(
            pb::GetFormActivityRequest {
                form_ids: vec![
                    form_id.to_owned(),
                    theirs["id"].as_str().expect("id").to_owned(),
                    "not-a-uuid".into(),
                ],
                days: Some(5),
            },
            token(&dashboard.cookie),
            None,
        ))
        .await
        .expect("activity")
        .into_inner();
    assert_eq!(
        activity.forms.len(),
        1,
        "another account's form is left out"
    );
    let mine = &activity.forms[0];
    assert_eq!(
        mine.daily,
        [0, 1, 1, 0, 2],
        "oldest first; today's deleted one gone"
    );
    assert!(mine.last_response_at.is_some());
    let expected_total: i64 = mine.daily.iter().sum();
    assert_eq!(mine.response_count, expected_total);

    let page = dashboard.get("/app/forms").await;
    assert!(page.text.contains(">4</td>"), "{}", page.text);
    assert!(
        page.text.contains("4 responses in the last 14 days"),
        "{}",
        page.text
    );
}

/// The addresses a person types (the service's own, the dashboard's with or without a
/// slash) lead to the forms, which ask to sign in first; and browsers' icon request finds
/// an icon, not a JSON error.
#[tokio::test]
async fn the_addresses_people_type_lead_to_sign_in_and_the_icon_is_served() {
    let app = TestApp::spawn().await;
    let origin = app.http_base.trim_end_matches("/api/v1").to_owned();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let get = |path: &str| client.get(format!("{origin}{path}")).send();
    let location = |reply: &reqwest::Response| {
        reply
            .headers()
            .get("location")
            .and_then(|l| l.to_str().ok())
            .map(str::to_owned)
    };
    for path in ["/", "/app", "/app/"] {
        let reply = get(path).await.expect(path);
        assert_eq!(reply.status().as_u16(), 303, "{path}");
        assert_eq!(location(&reply).as_deref(), Some("/app/forms"), "{path}");
    }
    let forms = get("/app/forms").await.expect("forms");
    assert_eq!(forms.status().as_u16(), 303);
    assert!(
        location(&forms).is_some_and(|l| l.starts_with("/app/sign-in")),
        "{:?}",
        location(&forms)
    );
    let icon = get("/favicon.ico").await.expect("icon");
    assert_eq!(icon.status().as_u16(), 200);
    assert_eq!(
        icon.headers().get("content-type").map(|v| v.as_bytes()),
        Some(&b"image/svg+xml"[..])
    );
    assert!(icon.text().await.expect("body").starts_with("<svg"));
}
