//! API sign-in with the identity provider's session cookie (SPEC Authentication rule 2):
//! key first, then the session; expired, tampered, foreign-key and unknown-subject
//! sessions are KEY_INVALID; sessions have every scope and the plan rule applies.

use crate::harness::*;
use forms::accounts::store;
use jsonwebtoken::{EncodingKey, Header, encode};
use serde_json::json;

const SECRET: &str = "test-session-secret-of-32-bytes-or-more";

fn session(secret: &str, subject: &str, expires_in: i64) -> String {
    let claims = json!({"sub": subject, "exp": unix_now() + expires_in});
    encode(
        &Header::default(),
        &claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .expect("token")
}

async fn with_session(app: &TestApp, path: &str, cookie: &str) -> Reply {
    send(app.request(Method::GET, path).header("cookie", cookie)).await
}

async fn app_with_user(plan: forms::accounts::Plan) -> (TestApp, TestKey) {
    let app = TestApp::spawn_with(&["--session-hs256-secret", SECRET]).await;
    let key = app.new_key(plan, ALL).await;
    // Linked by the operator's command line (AdminService.LinkIdentity).
    let out = crate::fixtures::formsd_cli(
        &app.db.url,
        &[
            "accounts",
            "link-identity",
            &key.account,
            "--subject",
            "user-1",
        ],
    )
    .await;
    let account: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON account");
    assert_eq!(account["name"], key.account.as_str(), "{out}");
    (app, key)
}

#[tokio::test]
async fn a_valid_session_cookie_signs_in_to_the_linked_account() {
    let (app, key) = app_with_user(PRO).await;
    let form = app.create_form(&key.key, &json!({"title": "Mine"})).await;
    let cookie = format!("theme=dark; session={}", session(SECRET, "user-1", 600));
    let list = with_session(&app, "/forms", &cookie).await;
    list.assert_common_headers();
    assert_eq!(list.ok(200)["forms"][0]["id"], form["id"]);
    // Sessions have every scope: the owner can delete.
    let path = format!("/forms/{}", form["id"].as_str().expect("id"));
    let deleted = send(app.request(Method::DELETE, &path).header("cookie", &cookie)).await;
    assert_eq!(deleted.status, 204);
    // Counted in usage under the account's session key.
    let usage = with_session(&app, "/usage?days=1", &cookie).await;
    let usage = usage.ok(200);
    assert!(
        usage["total_requests"].as_i64().is_some_and(|n| n >= 3),
        "{usage}"
    );
    assert_ne!(usage["key_id"], json!(key.key_id.to_string()));
}

#[tokio::test]
async fn bad_sessions_are_key_invalid_and_missing_ones_unauthenticated() {
    let (app, _key) = app_with_user(PRO).await;
    for (what, token) in [
        ("expired", session(SECRET, "user-1", -3600)),
        (
            "signed with another key",
            session("not-the-secret", "user-1", 600),
        ),
        ("unknown subject", session(SECRET, "someone-else", 600)),
        ("not a token", "garbage".to_owned()),
    ] {
        let reply = with_session(&app, "/forms", &format!("session={token}")).await;
        assert_eq!(reply.status, 401, "{what}");
        reply.error(401, "KEY_INVALID");
    }
    let mut tampered = session(SECRET, "user-1", 600);
    tampered.insert(tampered.len() / 2, 'x');
    with_session(&app, "/forms", &format!("session={tampered}"))
        .await
        .error(401, "KEY_INVALID");
    let other_cookie = format!("sessionid={}", session(SECRET, "user-1", 600));
    with_session(&app, "/forms", &other_cookie)
        .await
        .error(401, "UNAUTHENTICATED");
    send(app.request(Method::GET, "/forms"))
        .await
        .error(401, "UNAUTHENTICATED");
}

#[tokio::test]
async fn the_api_key_is_tried_first() {
    let (app, user_key) = app_with_user(PRO).await;
    app.create_form(&user_key.key, &json!({"title": "Session account"}))
        .await;
    let other = app.key(PRO, READ).await;
    let cookie = format!("session={}", session(SECRET, "user-1", 600));
    let reply = send(
        app.request(Method::GET, "/forms")
            .header("cookie", &cookie)
            .header("x-api-key", &other),
    )
    .await;
    assert_eq!(
        reply.ok(200)["pagination"]["total"],
        0,
        "the key's account, not the session's"
    );
    let wrong = send(
        app.request(Method::GET, "/forms")
            .header("cookie", &cookie)
            .header("x-api-key", "fsk_0000000000000000_nope"),
    )
    .await;
    wrong.error(401, "KEY_INVALID");
}

#[tokio::test]
async fn the_plan_rule_applies_to_sessions() {
    let (app, _key) = app_with_user(forms::accounts::Plan::Free).await;
    let cookie = format!("session={}", session(SECRET, "user-1", 600));
    with_session(&app, "/forms", &cookie)
        .await
        .error(403, "PLAN_REQUIRED");
}

#[tokio::test]
async fn without_session_configuration_cookies_are_ignored() {
    let app = TestApp::spawn().await;
    let key = app.new_key(PRO, ALL).await;
    store::link_identity(&app.pool, &key.account, None, "user-1")
        .await
        .expect("linking");
    let cookie = format!("session={}", session(SECRET, "user-1", 600));
    with_session(&app, "/forms", &cookie)
        .await
        .error(401, "UNAUTHENTICATED");
}

/// A token with these claims (and `exp` in ten minutes unless given).
fn token_with(claims: serde_json::Value) -> String {
    let mut claims = claims;
    if claims.get("exp").is_none() {
        claims["exp"] = json!(unix_now() + 600);
    }
    encode(
        &Header::default(),
        &claims,
        &EncodingKey::from_secret(SECRET.as_bytes()),
    )
    .expect("token")
}

async fn status_with(app: &TestApp, token: &str) -> u16 {
    with_session(app, "/forms", &format!("session={token}"))
        .await
        .status
}

#[tokio::test]
async fn unlinking_a_subject_ends_its_sessions_at_once() {
    let (app, key) = app_with_user(PRO).await;
    let cookie = format!("session={}", session(SECRET, "user-1", 600));
    with_session(&app, "/forms", &cookie).await.ok(200);
    crate::fixtures::formsd_cli(
        &app.db.url,
        &[
            "accounts",
            "unlink-identity",
            &key.account,
            "--subject",
            "user-1",
        ],
    )
    .await;
    with_session(&app, "/forms", &cookie)
        .await
        .error(401, "KEY_INVALID");
    // A subject that is not linked there is NOT_FOUND, and nothing changes.
    let output = formsd_command()
        .args(["--database-url", &app.db.url, "accounts", "unlink-identity"])
        .args([&key.account, "--subject", "user-1"])
        .output()
        .await
        .expect("running formsd");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("not found"));
}

#[tokio::test]
async fn a_revoked_session_key_stops_every_session_of_the_account_until_relinked() {
    let (app, key) = app_with_user(PRO).await;
    let cookie = format!("session={}", session(SECRET, "user-1", 600));
    let usage = with_session(&app, "/usage?days=1", &cookie).await;
    let session_key_id = usage.ok(200)["key_id"].as_str().expect("key_id").to_owned();
    crate::fixtures::formsd_cli(&app.db.url, &["keys", "revoke", &session_key_id]).await;
    // The very next request: there is no key cache to wait for.
    with_session(&app, "/forms", &cookie)
        .await
        .error(401, "KEY_INVALID");
    // The account's API keys are not touched.
    app.get("/forms", &key.key).await.ok(200);
    // Linking again is the way back, under a fresh session key.
    crate::fixtures::formsd_cli(
        &app.db.url,
        &[
            "accounts",
            "link-identity",
            &key.account,
            "--subject",
            "user-1",
        ],
    )
    .await;
    let usage = with_session(&app, "/usage?days=1", &cookie).await;
    assert_ne!(usage.ok(200)["key_id"], json!(session_key_id));
}

#[tokio::test]
async fn audience_and_issuer_are_required_when_configured() {
    let app = TestApp::spawn_with(&[
        "--session-hs256-secret",
        SECRET,
        "--session-audience",
        "https://forms.example.com",
        "--session-issuer",
        "https://idp.example.com/",
    ])
    .await;
    let key = app.new_key(PRO, ALL).await;
    store::link_identity(&app.pool, &key.account, None, "user-1")
        .await
        .expect("linking");
    let (aud, iss) = ("https://forms.example.com", "https://idp.example.com/");
    for (what, claims, expected) in [
        (
            "right aud and iss",
            json!({"sub": "user-1", "aud": aud, "iss": iss}),
            200,
        ),
        (
            "aud among several",
            json!({"sub": "user-1", "aud": ["x", aud], "iss": iss}),
            200,
        ),
        (
            "another audience",
            json!({"sub": "user-1", "aud": "https://other.example.com", "iss": iss}),
            401,
        ),
        ("no audience", json!({"sub": "user-1", "iss": iss}), 401),
        (
            "another issuer",
            json!({"sub": "user-1", "aud": aud, "iss": "https://evil.example.com/"}),
            401,
        ),
        ("no issuer", json!({"sub": "user-1", "aud": aud}), 401),
    ] {
        assert_eq!(
            status_with(&app, &token_with(claims)).await,
            expected,
            "{what}"
        );
    }
}

#[tokio::test]
async fn provider_tokens_with_an_audience_sign_in_and_nbf_is_honoured() {
    let (app, _key) = app_with_user(PRO).await;
    let now = unix_now();
    // Identity providers always set `aud`: without --session-audience it is not checked.
    let with_aud = token_with(json!({"sub": "user-1", "aud": "some-client-id", "iss": "x"}));
    assert_eq!(status_with(&app, &with_aud).await, 200);
    // Not valid before ten minutes from now (beyond the minute of clock leeway).
    let early = token_with(json!({"sub": "user-1", "nbf": now + 600}));
    assert_eq!(status_with(&app, &early).await, 401);
    let started = token_with(json!({"sub": "user-1", "nbf": now - 5}));
    assert_eq!(status_with(&app, &started).await, 200);
}
