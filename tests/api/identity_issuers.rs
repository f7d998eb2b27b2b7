//! An identity is the pair (issuer, subject) (issue 30, finding 14): the same `sub` at
//! two providers is two people. The OpenID provider is a real one (`oidc-provider`,
//! `tests/oidc/provider.mjs`); the provider cookie is signed as a provider would sign
//! it, read by a second instance on the same database when a second cookie issuer is
//! needed (`--session-issuer`). Every link and unlink goes through the real command line.

use crate::dashboard_session::{browser, origin, session_cookie};
use crate::dashboard_sign_in::{Browser, session_set, to_callback, with_provider};
use crate::fixtures::formsd_cli;
use crate::harness::*;

const SECRET: &str = "test-session-secret-of-32-bytes-or-more";
/// The provider cookie's issuer when no `--session-issuer` is set.
const COOKIE: &str = "provider-cookie";
/// A second cookie issuer, configured on a second instance.
const OTHER: &str = "https://idp-two.example.com";

/// A provider cookie of `subject`, carrying `iss` when given.
fn provider_cookie(subject: &str, iss: Option<&str>) -> String {
    let mut claims = serde_json::json!({"sub": subject, "exp": unix_now() + 600});
    if let Some(iss) = iss {
        claims["iss"] = iss.into();
    }
    let token = jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(SECRET.as_bytes()),
    )
    .unwrap();
    format!("session={token}")
}

/// Posts the sign-in page's "Use my current provider session" with `cookie`.
async fn cookie_sign_in(app: &TestApp, cookie: &str) -> Reply {
    let body = serde_urlencoded::to_string([("next", "/app/account")]).unwrap();
    send(
        browser()
            .post(format!("{}/app/sign-in/cookie", origin(app)))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("cookie", cookie)
            .body(body),
    )
    .await
}

/// The account page's reply to a dashboard session cookie.
async fn account_page(app: &TestApp, session: &str) -> Reply {
    send(
        browser()
            .get(format!("{}/app/account", origin(app)))
            .header("cookie", session),
    )
    .await
}

/// `GET /forms` of the REST API with a provider cookie and no key.
async fn api_with(app: &TestApp, cookie: &str) -> u16 {
    send(app.request(Method::GET, "/forms").header("cookie", cookie))
        .await
        .status
}

/// `formsd accounts VERB ACCOUNT --subject SUBJECT [--issuer ISSUER]`.
async fn cli(app: &TestApp, verb: &str, account: &str, subject: &str, issuer: Option<&str>) {
    let mut args = vec!["accounts", verb, account, "--subject", subject];
    if let Some(issuer) = issuer {
        args.extend(["--issuer", issuer]);
    }
    formsd_cli(&app.db.url, &args).await;
}

/// Two instances on one database whose provider cookies are two issuers' (the second
/// configured with `--session-issuer`), signed with the same key.
async fn two_cookie_issuers() -> (TestApp, TestApp) {
    let app = TestApp::spawn_with(&["--session-hs256-secret", SECRET]).await;
    let other = TestApp::spawn_on(
        app.db.clone(),
        &["--session-hs256-secret", SECRET, "--session-issuer", OTHER],
    )
    .await;
    (app, other)
}

/// The identities of `subject`: (issuer, account name), by issuer.
async fn issuers_of(app: &TestApp, subject: &str) -> Vec<(String, String)> {
    sqlx::query_as::<_, (String, String)>(
        "SELECT i.issuer, a.name FROM account_identities i JOIN accounts a ON a.id = i.account_id
          WHERE i.subject = $1 ORDER BY i.issuer",
    )
    .bind(subject)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

/// The same subject at the OpenID provider and in the provider cookie: two identities.
/// Before, the cookie's `alice` signed in to the account linked for the OpenID `alice`.
#[tokio::test]
async fn the_same_subject_at_two_providers_is_two_identities() {
    let Some((app, _provider, issuer)) = with_provider(&["--session-hs256-secret", SECRET]).await
    else {
        return;
    };
    let base = origin(&app);
    let a = app.new_key(PRO, ALL).await;
    let b = app.new_key(PRO, ALL).await;
    cli(&app, "link-identity", &a.account, "alice", Some(&issuer)).await;

    // The OpenID provider's alice signs in to A.
    let mut oidc = Browser::new();
    let callback = to_callback(&mut oidc, &app, "alice").await;
    let landed = oidc.get(&callback).await;
    assert_eq!(landed.status, 303, "{}", landed.body);
    assert!(session_set(&landed).is_some());
    let page = oidc.get(&format!("{base}/app/account")).await;
    assert!(page.body.contains(&a.account), "{}", page.body);
    // The account page names the provider by its host.
    assert!(page.body.contains("127.0.0.1"), "{}", page.body);

    // A cookie whose subject is alice is someone else: no dashboard, no API.
    let hers = provider_cookie("alice", None);
    let refused = cookie_sign_in(&app, &hers).await;
    assert_eq!(refused.status, 401, "{}", refused.text);
    assert!(session_cookie(&refused).is_none());
    assert_eq!(api_with(&app, &hers).await, 401);
    assert_eq!(
        issuers_of(&app, "alice").await,
        [(issuer.clone(), a.account.clone())]
    );

    // Linked to B as the cookie's: each provider's alice signs in to her own account.
    cli(&app, "link-identity", &b.account, "alice", Some(COOKIE)).await;
    let signed = cookie_sign_in(&app, &hers).await;
    assert_eq!(signed.status, 303, "{}", signed.text);
    let session = session_cookie(&signed).expect("a session");
    let page = account_page(&app, &session).await;
    assert!(page.text.contains(&b.account) && !page.text.contains(&a.account));
    assert!(page.text.contains("session cookie"), "{}", page.text);
    assert_eq!(api_with(&app, &hers).await, 200);
    let mut again = Browser::new();
    let callback = to_callback(&mut again, &app, "alice").await;
    assert_eq!(again.get(&callback).await.status, 303);
    let page = again.get(&format!("{base}/app/account")).await;
    assert!(page.body.contains(&a.account) && !page.body.contains(&b.account));

    // A link that names no provider cannot tell the two apart: refused, nothing moves.
    let out = formsd_command()
        .args(["--database-url", &app.db.url, "accounts", "link-identity"])
        .args([&a.account, "--subject", "alice"])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("several identity providers"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        issuers_of(&app, "alice").await,
        [
            (issuer, a.account.clone()),
            (COOKIE.into(), b.account.clone())
        ]
    );
}

/// A row linked before providers were told apart (no issuer) is claimed by the first
/// provider that signs its subject in, and is that provider's alone from then on.
#[tokio::test]
async fn a_legacy_identity_is_claimed_by_the_first_provider_only() {
    let (app, other) = two_cookie_issuers().await;
    let a = app.new_key(PRO, ALL).await;
    // As the code before migration 0021 wrote it.
    sqlx::query(
        "INSERT INTO account_identities (subject, account_id)
         SELECT 'legacy-1', id FROM accounts WHERE name = $1",
    )
    .bind(&a.account)
    .execute(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        issuers_of(&app, "legacy-1").await,
        [(String::new(), a.account.clone())]
    );

    // The second issuer's cookie claims it (through the API, the first use)...
    let theirs = provider_cookie("legacy-1", Some(OTHER));
    assert_eq!(api_with(&other, &theirs).await, 200);
    assert_eq!(
        issuers_of(&app, "legacy-1").await,
        [(OTHER.into(), a.account.clone())]
    );
    let signed = cookie_sign_in(&other, &theirs).await;
    assert_eq!(signed.status, 303, "{}", signed.text);

    // ...and the first issuer's same subject is nobody, on the dashboard and the API.
    let mine = provider_cookie("legacy-1", None);
    assert_eq!(cookie_sign_in(&app, &mine).await.status, 401);
    assert_eq!(api_with(&app, &mine).await, 401);
    assert_eq!(
        issuers_of(&app, "legacy-1").await,
        [(OTHER.into(), a.account.clone())]
    );
}

/// Unlinking one provider's identity ends the sessions it opened, and only those: the
/// same subject at another provider keeps its own.
#[tokio::test]
async fn unlinking_one_providers_identity_ends_its_sessions_only() {
    let (app, other) = two_cookie_issuers().await;
    let a = app.new_key(PRO, ALL).await;
    cli(&app, "link-identity", &a.account, "bob", Some(COOKIE)).await;
    cli(&app, "link-identity", &a.account, "bob", Some(OTHER)).await;
    let (mine, theirs) = (
        provider_cookie("bob", None),
        provider_cookie("bob", Some(OTHER)),
    );
    let by_cookie = session_cookie(&cookie_sign_in(&app, &mine).await).expect("a session");
    let by_other = session_cookie(&cookie_sign_in(&other, &theirs).await).expect("a session");
    let page = account_page(&app, &by_cookie).await;
    assert_eq!(page.status, 200);
    assert!(page.text.contains("idp-two.example.com"), "{}", page.text);

    cli(&app, "unlink-identity", &a.account, "bob", Some(COOKIE)).await;
    let ended = account_page(&app, &by_cookie).await;
    assert_eq!(
        ended.status, 303,
        "the unlinked identity's session: {}",
        ended.text
    );
    assert!(ended.header("location").starts_with("/app/sign-in"));
    assert_eq!(
        account_page(&app, &by_other).await.status,
        200,
        "the other provider's bob keeps his session"
    );
    assert_eq!(api_with(&app, &mine).await, 401);
    assert_eq!(api_with(&other, &theirs).await, 200);
    assert_eq!(
        issuers_of(&app, "bob").await,
        [(OTHER.into(), a.account.clone())]
    );
}
