//! Sign-in and sessions under attack, from the fourth security review: a mailed link
//! never goes to a host the caller chose, a session ends with the identity that opened
//! it, anonymous requests cannot lock the owner out, a bad `next` spends nothing, a
//! cross-site post without `Sec-Fetch-Site` is refused by its Origin, and the session
//! cookie cannot be tossed. Each against the real binary, with a real SMTP sink.

use crate::dashboard_session::{browser, origin, redeem, session_cookie, sign_in_link, token_of};
use crate::fixtures::{eventually, formsd_cli};
use crate::harness::*;
use crate::smtp_sink::{SmtpSink, part};
use ::forms::pb::{self, sessions_service_client::SessionsServiceClient};
use std::time::Duration;

const PUBLIC_URL: &str = "http://forms.example.test";

/// The token of the sign-in link in a mailed text, which must be on `base`.
fn mailed_token(text: &str, base: &str) -> String {
    let prefix = format!("{base}/app/sign-in/link?token=");
    let at = text
        .find(&prefix)
        .unwrap_or_else(|| panic!("a link on {base}: {text}"));
    text[at + prefix.len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

async fn with_owner_address(app: &TestApp, address: &str) -> TestKey {
    let key = app.new_key(PRO, ALL).await;
    formsd_cli(
        &app.db.url,
        &["accounts", "update", &key.account, "--email", address],
    )
    .await;
    key
}

async fn mail_over_grpc(app: &TestApp, email: &str, base_url: &str) {
    let mut sessions = SessionsServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("the gRPC port");
    #[allow(deprecated)]
    let request = pb::MailSignInLinkRequest {
        email: email.to_owned(),
        base_url: base_url.to_owned(),
    };
    sessions
        .mail_sign_in_link(request)
        .await
        .expect("MailSignInLink answers alike for every address");
}

async fn links_of(app: &TestApp) -> i64 {
    let pool = app.db.pool().await;
    sqlx::query_scalar::<_, i64>("SELECT count(*) FROM sign_in_links")
        .fetch_one(&pool)
        .await
        .unwrap()
}

/// Finding 1 (high): an unauthenticated MailSignInLink with `base_url` of the caller's
/// choosing mailed the owner a genuine link to that host. The core builds mailed links
/// on its own `--public-url` only, and mails none without one.
#[tokio::test]
async fn a_mailed_link_is_built_on_the_public_url_whatever_the_caller_asks() {
    let sink = SmtpSink::start().await;
    let smtp = sink.url();
    let mail_flags = [
        "--smtp-url",
        &smtp,
        "--smtp-from",
        "Forms <forms@example.com>",
    ];
    let mut with_url = mail_flags.to_vec();
    with_url.extend(["--public-url", PUBLIC_URL]);
    let app = TestApp::spawn_with(&with_url).await;
    with_owner_address(&app, "owner@example.com").await;

    mail_over_grpc(&app, "owner@example.com", "https://evil.example").await;
    let mail = eventually("the mailed link", Duration::from_secs(10), || {
        let mails = sink.mails();
        async move { mails.into_iter().next() }
    })
    .await;
    let text = part(&mail.data, "text/plain").expect("a text part");
    assert!(!text.contains("evil.example"), "{text}");
    assert!(!mail.data.contains("evil.example"), "{}", mail.data);
    assert_eq!(mailed_token(&text, PUBLIC_URL).len(), 43);

    // Without --public-url the core mails nothing, whatever base the caller names. A
    // second instance on the same database and sink, which has the URL, then mails
    // once: after its mail, the sink and the links hold that one alone.
    let bare = TestApp::spawn_on(app.db.clone(), &mail_flags).await;
    let before = links_of(&app).await;
    mail_over_grpc(&bare, "owner@example.com", "https://evil.example").await;
    mail_over_grpc(&app, "owner@example.com", "").await;
    eventually("the second mail", Duration::from_secs(10), || {
        let n = sink.mails().len();
        async move { (n >= 2).then_some(()) }
    })
    .await;
    assert_eq!(links_of(&app).await, before + 1);
    let mails = sink.mails();
    assert_eq!(mails.len(), 2, "{mails:?}");
    assert!(mails.iter().all(|m| !m.data.contains("evil.example")));
}

const SESSION_SECRET: &str = "test-session-secret-of-32-bytes-or-more";

/// The identity provider's session cookie of `subject` (HS256, ten minutes).
fn provider_cookie(subject: &str) -> String {
    let claims = serde_json::json!({"sub": subject, "exp": unix_now() + 600});
    let token = jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(SESSION_SECRET.as_bytes()),
    )
    .unwrap();
    format!("session={token}")
}

fn form_post(app: &TestApp, path: &str, fields: &[(&str, &str)]) -> reqwest::RequestBuilder {
    browser()
        .post(format!("{}{path}", origin(app)))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(serde_urlencoded::to_string(fields).unwrap())
}

/// Signs in with the provider's cookie of `subject`: the dashboard's session cookie.
async fn cookie_session(app: &TestApp, subject: &str) -> String {
    let reply = send(
        form_post(app, "/app/sign-in/cookie", &[("next", "/app/account")])
            .header("cookie", provider_cookie(subject)),
    )
    .await;
    assert_eq!(reply.status, 303, "{}", reply.text);
    session_cookie(&reply).expect("a session cookie")
}

async fn account_page(app: &TestApp, cookie: &str) -> Reply {
    send(
        browser()
            .get(format!("{}/app/account", origin(app)))
            .header("cookie", cookie),
    )
    .await
}

async fn link(app: &TestApp, account: &str, subject: &str, verb: &str) {
    formsd_cli(
        &app.db.url,
        &["accounts", verb, account, "--subject", subject],
    )
    .await;
}

/// Finding 2: a dashboard session opened by an identity outlived the identity's unlink
/// (and its move to another account), on the instance that served it.
#[tokio::test]
async fn a_session_ends_with_the_identity_that_opened_it_on_every_instance() {
    let flags = ["--session-hs256-secret", SESSION_SECRET];
    let app = TestApp::spawn_with(&flags).await;
    let other = TestApp::spawn_on(app.db.clone(), &flags).await;
    let a = app.new_key(PRO, ALL).await;
    let b = app.new_key(PRO, ALL).await;
    link(&app, &a.account, "user-1", "link-identity").await;
    let opened = cookie_session(&app, "user-1").await;
    // A session of the same account opened by a link is no session of the identity.
    let by_link = redeem(&app, token_of(&sign_in_link(&app, &a.account).await)).await;
    let by_link = session_cookie(&by_link).expect("a link's session");
    let page = account_page(&other, &opened).await;
    assert_eq!(page.status, 200);
    assert!(page.text.contains(&a.account));

    link(&app, &a.account, "user-1", "unlink-identity").await;
    let after = account_page(&other, &opened).await;
    assert_eq!(
        after.status, 303,
        "the unlinked identity's session: {}",
        after.text
    );
    assert!(after.header("location").starts_with("/app/sign-in"));
    assert_eq!(account_page(&app, &opened).await.status, 303);
    assert_eq!(account_page(&other, &by_link).await.status, 200);

    // Moved to another account: the session it opened on the first ends, and the next
    // sign-in is the new account's.
    link(&app, &a.account, "user-1", "link-identity").await;
    let again = cookie_session(&app, "user-1").await;
    assert_eq!(account_page(&other, &again).await.status, 200);
    link(&app, &b.account, "user-1", "link-identity").await;
    assert_eq!(account_page(&other, &again).await.status, 303);
    let moved = cookie_session(&other, "user-1").await;
    let page = account_page(&app, &moved).await;
    assert_eq!(page.status, 200);
    assert!(page.text.contains(&b.account) && !page.text.contains(&a.account));
}

/// Finding 10: anonymous mailed-link requests for the owner's address used up the
/// account's sign-in allowance, and the owner's own operator-printed link got 429.
#[tokio::test]
async fn anonymous_mail_requests_cannot_lock_the_owner_out() {
    let sink = SmtpSink::start().await;
    let smtp = sink.url();
    let app = TestApp::spawn_with(&[
        "--smtp-url",
        &smtp,
        "--smtp-from",
        "forms@example.com",
        "--public-url",
        PUBLIC_URL,
        "--trusted-proxies",
        "127.0.0.1",
    ])
    .await;
    let key = with_owner_address(&app, "owner@example.com").await;
    for n in 0..15 {
        let from = format!("198.51.100.{}", n + 1);
        let reply = send(
            form_post(&app, "/app/sign-in/mail", &[("email", "owner@example.com")])
                .header("x-forwarded-for", &from),
        )
        .await;
        assert_eq!(reply.status, 200, "request {n}: {}", reply.text);
    }
    // The mails go out, as many as the account's allowance of mails (ten a minute);
    // then the owner signs in with the operator's link.
    eventually("the mails", Duration::from_secs(10), || {
        let n = sink.mails().len();
        async move { (n >= 10).then_some(()) }
    })
    .await;
    let printed = sign_in_link(&app, &key.account).await;
    let reply = send(
        form_post(
            &app,
            "/app/sign-in/link",
            &[("token", token_of(&printed)), ("next", "/app/forms")],
        )
        .header("x-forwarded-for", "203.0.113.77"),
    )
    .await;
    assert_eq!(reply.status, 303, "the owner's own link: {}", reply.text);
    assert!(session_cookie(&reply).is_some());
}

/// Finding 11: a `next` holding CR/LF passed the check; the link was spent and the
/// session made, then the redirect failed with 500 and no cookie.
#[tokio::test]
async fn a_next_with_line_breaks_goes_home_and_the_link_signs_in() {
    let app = TestApp::spawn().await;
    let key = app.new_key(PRO, ALL).await;
    for next in [
        "/app/forms\r\nSet-Cookie: x=1",
        "/app/\nforms",
        "/app/forms\t",
    ] {
        let printed = sign_in_link(&app, &key.account).await;
        let reply = send(form_post(
            &app,
            "/app/sign-in/link",
            &[("token", token_of(&printed)), ("next", next)],
        ))
        .await;
        assert_eq!(reply.status, 303, "{next:?}: {}", reply.text);
        assert_eq!(reply.header("location"), "/app/forms");
        assert!(session_cookie(&reply).is_some(), "{next:?}");
    }
}

/// Finding 12: a cross-site post to `/app/sign-in/link` from an older browser (no
/// `Sec-Fetch-Site`) signed the victim's browser in to the attacker's account.
#[tokio::test]
async fn a_cross_site_post_without_fetch_metadata_is_refused_by_its_origin() {
    let app = TestApp::spawn().await;
    let key = app.new_key(PRO, ALL).await;
    let own = origin(&app);
    let cases = [
        ("origin", "https://attacker.example".to_owned(), 403),
        ("referer", "https://attacker.example/page".to_owned(), 403),
        ("origin", "null".to_owned(), 403),
        ("origin", own.clone(), 303),
        ("referer", format!("{own}/app/sign-in"), 303),
    ];
    for (header, value, status) in cases {
        let printed = sign_in_link(&app, &key.account).await;
        let reply = send(
            form_post(&app, "/app/sign-in/link", &[("token", token_of(&printed))])
                .header(header, &value),
        )
        .await;
        assert_eq!(reply.status, status, "{header}: {value}: {}", reply.text);
        assert_eq!(session_cookie(&reply).is_some(), status == 303);
        // A refused post spends nothing: the link still signs in from here.
        if status == 403 {
            assert_eq!(redeem(&app, token_of(&printed)).await.status, 303);
        }
    }
}

/// Finding 13: no `__Host-` prefix over HTTPS, and the first of two session cookies won
/// (a sibling site could toss its own session cookie in front of the victim's).
#[tokio::test]
async fn the_session_cookie_is_host_bound_over_https_and_never_ambiguous() {
    let app = TestApp::spawn_with(&["--trusted-proxies", "127.0.0.1"]).await;
    let victim = app.new_key(PRO, ALL).await;
    let attacker = app.new_key(PRO, ALL).await;

    let printed = sign_in_link(&app, &victim.account).await;
    let reply = send(
        form_post(&app, "/app/sign-in/link", &[("token", token_of(&printed))])
            .header("x-forwarded-proto", "https"),
    )
    .await;
    assert_eq!(reply.status, 303, "{}", reply.text);
    let set: Vec<&str> = reply
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    let host_cookie = set
        .iter()
        .find(|c| c.starts_with("__Host-formsd_session="))
        .unwrap_or_else(|| panic!("a __Host- session cookie over HTTPS: {set:?}"));
    assert!(
        host_cookie.contains("; Secure") && host_cookie.contains("Path=/;"),
        "{host_cookie}"
    );
    assert!(!host_cookie.to_ascii_lowercase().contains("domain="));
    let pair = host_cookie.split(';').next().unwrap();
    let https_page = |cookie: String| {
        send(
            browser()
                .get(format!("{}/app/forms", origin(&app)))
                .header("x-forwarded-proto", "https")
                .header("cookie", cookie),
        )
    };
    assert_eq!(https_page(pair.to_owned()).await.status, 200);
    // Over HTTPS the unprefixed name, which any sibling host may set, is not read.
    let value = pair.split_once('=').unwrap().1;
    assert_eq!(
        https_page(format!("formsd_session={value}")).await.status,
        303
    );

    // Over plain HTTP two session cookies are no session: the tossed one cannot win.
    let theirs = redeem(&app, token_of(&sign_in_link(&app, &attacker.account).await)).await;
    let theirs = session_cookie(&theirs).unwrap();
    let mine = redeem(&app, token_of(&sign_in_link(&app, &victim.account).await)).await;
    let mine = session_cookie(&mine).unwrap();
    let page = |cookie: String| {
        send(
            browser()
                .get(format!("{}/app/forms", origin(&app)))
                .header("cookie", cookie),
        )
    };
    assert_eq!(page(mine.clone()).await.status, 200);
    let tossed = page(format!("{theirs}; {mine}")).await;
    assert_eq!(tossed.status, 303, "{}", tossed.text);
    assert!(!tossed.text.contains(&attacker.account));
}

/// The per-account allowance of sessions, end to end (it was only unit-tested): links
/// of one account redeemed from many addresses run out of it, and the refused link is
/// not spent, so that it works once the minute has passed.
#[tokio::test]
async fn sessions_opened_for_one_account_run_out_and_the_refused_link_is_kept() {
    let app = TestApp::spawn_with(&[
        "--trusted-proxies",
        "127.0.0.1",
        "--sign-in-attempts-per-minute",
        "3",
    ])
    .await;
    let key = app.new_key(PRO, ALL).await;
    let mut statuses = Vec::new();
    for n in 0..4 {
        let printed = sign_in_link(&app, &key.account).await;
        let reply = send(
            form_post(&app, "/app/sign-in/link", &[("token", token_of(&printed))])
                .header("x-forwarded-for", format!("198.51.100.{n}")),
        )
        .await;
        statuses.push(reply.status);
    }
    assert_eq!(statuses, [303, 303, 303, 429]);
    let pool = app.db.pool().await;
    let unspent: i64 =
        sqlx::query_scalar("SELECT count(*) FROM sign_in_links WHERE used_at IS NULL")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(unspent, 1, "the refused link is still unused");
}
