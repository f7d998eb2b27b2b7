//! Signing in to the dashboard, end to end against the real binary: OpenID Connect
//! against a real provider (`oidc-provider` from npm, `tests/oidc/provider.mjs`), driven
//! without a browser (its development login and consent forms are posted as a browser
//! would, with a cookie jar per host); mailed sign-in links through a real SMTP sink; the
//! identity provider's session cookie; and the sign-in throttle.
//!
//! The OpenID tests need `npm install` (node_modules/oidc-provider). Without it they say
//! SKIPPED and pass, unless FORMS_REQUIRE_NODE_TOOLS=1 (as in CI).

use crate::fixtures::formsd_cli;
use crate::harness::*;
use crate::smtp_sink::{SmtpSink, part};
use jsonwebtoken::{EncodingKey, Header, encode};
use reqwest::header::{COOKIE, HOST, LOCATION, SET_COOKIE};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
pub(crate) const CLIENT_ID: &str = "formsd-dashboard";
pub(crate) const CLIENT_SECRET: &str = "a-client-secret-for-the-test-provider";

/// A browser without a browser: a cookie jar per host (paths and expiry ignored but
/// for removals), no automatic redirects.
pub(crate) struct Browser {
    http: reqwest::Client,
    jar: HashMap<String, BTreeMap<String, String>>,
}

/// A reply as the test reads it.
pub(crate) struct Page {
    pub(crate) status: u16,
    pub(crate) location: Option<String>,
    pub(crate) set_cookies: Vec<String>,
    pub(crate) body: String,
}

impl Browser {
    pub(crate) fn new() -> Self {
        let _ = rustls::crypto::ring::default_provider().install_default();
        Self {
            http: reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
            jar: HashMap::new(),
        }
    }

    fn host(url: &str) -> String {
        let url = reqwest::Url::parse(url).unwrap();
        format!(
            "{}:{}",
            url.host_str().unwrap(),
            url.port_or_known_default().unwrap()
        )
    }

    fn cookie(&self, url: &str, name: &str) -> Option<String> {
        self.jar.get(&Self::host(url))?.get(name).cloned()
    }

    fn set_cookie(&mut self, url: &str, name: &str, value: &str) {
        self.jar
            .entry(Self::host(url))
            .or_default()
            .insert(name.into(), value.into());
    }

    async fn send(&mut self, request: reqwest::RequestBuilder, url: &str) -> Page {
        let cookies = self
            .jar
            .get(&Self::host(url))
            .map(|c| {
                c.iter()
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_default();
        let request = if cookies.is_empty() {
            request
        } else {
            request.header(COOKIE, cookies)
        };
        let reply = request.send().await.unwrap();
        let status = reply.status().as_u16();
        let location = reply.headers().get(LOCATION).map(|l| {
            reqwest::Url::parse(url)
                .unwrap()
                .join(l.to_str().unwrap())
                .unwrap()
                .to_string()
        });
        let set_cookies: Vec<String> = reply
            .headers()
            .get_all(SET_COOKIE)
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect();
        for cookie in &set_cookies {
            let (pair, attributes) = cookie.split_once(';').unwrap_or((cookie, ""));
            let (name, value) = pair.split_once('=').unwrap();
            let jar = self.jar.entry(Self::host(url)).or_default();
            if value.is_empty() || attributes.to_ascii_lowercase().contains("max-age=0") {
                jar.remove(name.trim());
            } else {
                jar.insert(name.trim().into(), value.trim().into());
            }
        }
        Page {
            status,
            location,
            set_cookies,
            body: reply.text().await.unwrap(),
        }
    }

    pub(crate) async fn get(&mut self, url: &str) -> Page {
        let request = self.http.get(url);
        self.send(request, url).await
    }

    pub(crate) async fn post(&mut self, url: &str, form: &[(&str, &str)]) -> Page {
        let body = serde_urlencoded::to_string(form).unwrap();
        let request = self
            .http
            .post(url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body);
        self.send(request, url).await
    }
}

/// The dashboard's origin of an app.
pub(crate) fn origin(app: &TestApp) -> String {
    format!("http://{}", app.server.http_addr.unwrap())
}

/// The value of attribute `name` in an HTML tag.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].replace("&amp;", "&"))
}

/// The first form of a page: its action and its fields (hidden ones with their values;
/// `login` and `password` filled in as a person would).
fn first_form(html: &str, login: &str) -> (String, Vec<(String, String)>) {
    let form_at = html.find("<form").expect("a form on the provider's page");
    let form = &html[form_at..html[form_at..].find("</form>").unwrap() + form_at];
    let action = attribute(&form[..form.find('>').unwrap()], "action").unwrap();
    let mut fields = Vec::new();
    for piece in form.split("<input").skip(1) {
        let tag = &piece[..piece.find('>').unwrap()];
        let Some(name) = attribute(tag, "name") else {
            continue;
        };
        let value = match name.as_str() {
            "login" => login.to_owned(),
            "password" => "any password".to_owned(),
            _ => attribute(tag, "value").unwrap_or_default(),
        };
        fields.push((name, value));
    }
    (action, fields)
}

/// From the dashboard's OpenID button to the provider's redirect back: the callback URL
/// (not yet visited). The provider's login (as `login`) and consent forms are posted.
pub(crate) async fn to_callback(browser: &mut Browser, app: &TestApp, login: &str) -> String {
    let base = origin(app);
    let started = browser
        .get(&format!(
            "{base}/app/sign-in/oidc?next=%2Fapp%2Fforms%3Ffrom%3Doidc"
        ))
        .await;
    assert_eq!(started.status, 303, "{}", started.body);
    assert!(
        browser.cookie(&base, "formsd_oidc").is_some(),
        "the attempt is bound to the browser"
    );
    let bound = started
        .set_cookies
        .iter()
        .find(|c| c.starts_with("formsd_oidc="))
        .unwrap();
    for attribute in [
        "Path=/app/sign-in/oidc",
        "HttpOnly",
        "SameSite=Lax",
        "Max-Age=600",
    ] {
        assert!(bound.contains(attribute), "{bound}");
    }
    let mut url = started.location.unwrap();
    let authorization = reqwest::Url::parse(&url).unwrap();
    let query: HashMap<String, String> = authorization.query_pairs().into_owned().collect();
    assert_eq!(query["code_challenge_method"], "S256");
    assert_eq!(query["client_id"], CLIENT_ID);
    assert_eq!(
        query["redirect_uri"],
        format!("{base}/app/sign-in/oidc/callback")
    );
    assert!(!query["nonce"].is_empty() && !query["code_challenge"].is_empty());
    for _ in 0..20 {
        if url.starts_with(&format!("{base}/app/sign-in/oidc/callback")) {
            return url;
        }
        let mut page = browser.get(&url).await;
        if page.status == 200 {
            let (action, fields) = first_form(&page.body, login);
            let action = reqwest::Url::parse(&url)
                .unwrap()
                .join(&action)
                .unwrap()
                .to_string();
            let fields: Vec<(&str, &str)> = fields
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_str()))
                .collect();
            page = browser.post(&action, &fields).await;
        }
        assert!(
            (300..400).contains(&page.status),
            "provider at {url}: {} {}",
            page.status,
            page.body
        );
        url = page.location.unwrap();
    }
    panic!("the provider never sent the browser back");
}

/// The test provider, on `port`, with the dashboard's client; None when node_modules
/// lacks it (and it is not required).
pub(crate) async fn start_provider(port: u16, redirect_uri: &str) -> Option<tokio::process::Child> {
    let ready = Path::new(ROOT)
        .join("node_modules/oidc-provider/package.json")
        .exists();
    if !ready {
        assert!(
            std::env::var("FORMS_REQUIRE_NODE_TOOLS").as_deref() != Ok("1"),
            "FORMS_REQUIRE_NODE_TOOLS=1 but node_modules/oidc-provider is missing (npm install)"
        );
        eprintln!("SKIPPED: the OpenID test needs node_modules/oidc-provider (npm install)");
        return None;
    }
    let mut child = tokio::process::Command::new("node")
        .arg(Path::new(ROOT).join("tests/oidc/provider.mjs"))
        .args([
            "--port",
            &port.to_string(),
            "--client-id",
            CLIENT_ID,
            "--client-secret",
            CLIENT_SECRET,
        ])
        .args(["--redirect-uri", redirect_uri])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("node");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the provider starts")
        .unwrap()
        .expect("the provider's issuer line");
    let ready: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(ready["issuer"], format!("http://127.0.0.1:{port}"));
    Some(child)
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub(crate) async fn link_identity(app: &TestApp, account: &str, subject: &str) {
    formsd_cli(
        &app.db.url,
        &["accounts", "link-identity", account, "--subject", subject],
    )
    .await;
}

async fn sessions_of(app: &TestApp, method: &str) -> i64 {
    sqlx::query_scalar::<_, i64>("SELECT count(*) FROM dashboard_sessions WHERE method = $1")
        .bind(method)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

async fn attempts(app: &TestApp) -> i64 {
    sqlx::query_scalar::<_, i64>("SELECT count(*) FROM oidc_attempts")
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// The session cookie a reply sets, if any.
pub(crate) fn session_set(page: &Page) -> Option<&String> {
    page.set_cookies
        .iter()
        .find(|c| c.starts_with("formsd_session=") && !c.starts_with("formsd_session=;"))
}

/// An app whose dashboard signs in with the test provider (on a free port), with
/// `extra` flags: the app, the provider (stopped when dropped) and its issuer. None when
/// the provider cannot run (see `start_provider`).
pub(crate) async fn with_provider(
    extra: &[&str],
) -> Option<(TestApp, tokio::process::Child, String)> {
    let port = free_port();
    let issuer = format!("http://127.0.0.1:{port}");
    let mut flags = vec![
        "--oidc-issuer",
        &issuer,
        "--oidc-client-id",
        CLIENT_ID,
        "--oidc-client-secret",
        CLIENT_SECRET,
    ];
    flags.extend_from_slice(extra);
    let app = TestApp::spawn_with(&flags).await;
    let callback = format!("{}/app/sign-in/oidc/callback", origin(&app));
    let provider = start_provider(port, &callback).await?;
    Some((app, provider, issuer))
}

#[tokio::test]
async fn openid_connect_signs_in_a_linked_subject_once_from_the_browser_that_started() {
    let Some((app, _provider, _)) = with_provider(&[]).await else {
        return;
    };
    let base = origin(&app);
    let key = app.new_key(PRO, ALL).await;
    link_identity(&app, &key.account, "alice").await;

    // The page offers the provider.
    let mut browser = Browser::new();
    let page = browser.get(&format!("{base}/app/sign-in")).await;
    assert!(
        page.body.contains("href=\"/app/sign-in/oidc?next="),
        "{}",
        page.body
    );

    // A linked subject signs in, and lands on the page it asked for.
    let callback = to_callback(&mut browser, &app, "alice").await;
    let state = reqwest::Url::parse(&callback)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "state")
        .unwrap()
        .1
        .into_owned();
    let bound = browser.cookie(&base, "formsd_oidc").unwrap();
    assert_eq!(attempts(&app).await, 1, "the attempt is stored");
    let landed = browser.get(&callback).await;
    assert_eq!(landed.status, 303, "{}", landed.body);
    assert_eq!(
        landed.location.as_deref(),
        Some(format!("{base}/app/forms?from=oidc").as_str())
    );
    assert!(session_set(&landed).is_some(), "{:?}", landed.set_cookies);
    assert!(
        browser.cookie(&base, "formsd_oidc").is_none(),
        "the attempt's cookie is cleared"
    );
    let forms = browser.get(&format!("{base}/app/forms")).await;
    assert_eq!(forms.status, 200, "{}", forms.body);
    assert!(
        forms.body.contains(&key.account),
        "signed in as the linked account"
    );
    assert_eq!(sessions_of(&app, "oidc").await, 1);
    assert_eq!(attempts(&app).await, 0, "the attempt is taken, once");

    // The same state again (the attempt's cookie put back, as an attacker who saw the
    // callback would): the attempt was taken, no second session.
    let mut replay = Browser::new();
    replay.set_cookie(&base, "formsd_oidc", &bound);
    let again = replay.get(&callback).await;
    assert_eq!(again.status, 401, "{}", again.body);
    assert!(session_set(&again).is_none());
    assert_eq!(sessions_of(&app, "oidc").await, 1);

    // A callback in a browser that did not start the attempt (login CSRF: the attacker's
    // own code and state sent to a victim): refused before the core is asked, and the
    // attempt is still there for its own browser.
    let mut attacker = Browser::new();
    let planted = to_callback(&mut attacker, &app, "alice").await;
    let mut victim = Browser::new();
    let refused = victim.get(&planted).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(
        refused.body.contains("did not start in this browser"),
        "{}",
        refused.body
    );
    assert!(session_set(&refused).is_none());
    victim.set_cookie(&base, "formsd_oidc", &format!("{state}.%2Fapp%2Fforms"));
    let other_state = victim.get(&planted).await;
    assert_eq!(
        other_state.status, 403,
        "another attempt's state is no better"
    );
    assert_eq!(sessions_of(&app, "oidc").await, 1);
    let own = attacker.get(&planted).await;
    assert_eq!(
        own.status, 303,
        "its own browser still finishes it: {}",
        own.body
    );
    assert_eq!(sessions_of(&app, "oidc").await, 2);

    // A subject the provider vouches for but no account links: no session.
    let mut stranger = Browser::new();
    let callback = to_callback(&mut stranger, &app, "mallory").await;
    let unlinked = stranger.get(&callback).await;
    assert_eq!(unlinked.status, 401, "{}", unlinked.body);
    assert!(unlinked.body.contains("not linked"), "{}", unlinked.body);
    assert!(session_set(&unlinked).is_none());
    assert_eq!(sessions_of(&app, "oidc").await, 2);

    // The provider's refusal: the sign-in page says so, in its own words.
    let denied = stranger
        .get(&format!("{base}/app/sign-in/oidc/callback?error=access_denied&error_description=%3Cb%3Enope&state=x"))
        .await;
    assert_eq!(denied.status, 401);
    assert!(
        denied.body.contains("access was denied") && !denied.body.contains("nope"),
        "{}",
        denied.body
    );
}

#[tokio::test]
async fn without_a_provider_the_page_offers_none_and_the_button_refuses() {
    let app = TestApp::spawn().await;
    let base = origin(&app);
    let mut browser = Browser::new();
    let page = browser.get(&format!("{base}/app/sign-in")).await;
    assert_eq!(page.status, 200);
    assert!(!page.body.contains("/app/sign-in/oidc"), "{}", page.body);
    assert!(
        !page.body.contains("/app/sign-in/mail"),
        "no mailed links without --public-url"
    );
    let started = browser.get(&format!("{base}/app/sign-in/oidc")).await;
    assert_eq!(started.status, 401, "{}", started.body);
    assert!(started.body.contains("not available"), "{}", started.body);
    // Nor the provider's session without a session key: that button could only fail,
    // and it said a link had been used. Posted anyway, the page says what is so.
    assert!(!page.body.contains("/app/sign-in/cookie"), "{}", page.body);
    assert!(!page.body.contains("Single sign-on"), "{}", page.body);
    let posted = browser
        .post(
            &format!("{base}/app/sign-in/cookie"),
            &[("next", "/app/forms")],
        )
        .await;
    assert_eq!(posted.status, 404, "{}", posted.body);
    assert!(
        posted
            .body
            .contains("does not sign in with your identity provider")
            && !posted.body.contains("link was used"),
        "{}",
        posted.body
    );
}

const PUBLIC_URL: &str = "http://forms.example.test";

#[tokio::test]
async fn a_mailed_link_reaches_a_known_address_and_signs_in_once() {
    let sink = SmtpSink::start().await;
    let app = TestApp::spawn_with(&[
        "--smtp-url",
        &sink.url(),
        "--smtp-from",
        "Forms <forms@example.com>",
        "--public-url",
        PUBLIC_URL,
    ])
    .await;
    let base = origin(&app);
    let key = app.new_key(PRO, ALL).await;
    formsd_cli(
        &app.db.url,
        &[
            "accounts",
            "update",
            &key.account,
            "--email",
            "owner@example.com",
        ],
    )
    .await;

    let mut browser = Browser::new();
    let page = browser.get(&format!("{base}/app/sign-in")).await;
    assert!(
        page.body.contains("action=\"/app/sign-in/mail\""),
        "{}",
        page.body
    );
    // The unknown address first: links are mailed in the order they are asked for, so
    // once the known one's mail is here, the unknown one has been dealt with.
    let unknown = browser
        .post(
            &format!("{base}/app/sign-in/mail"),
            &[("email", "nobody@example.com"), ("next", "/app/forms")],
        )
        .await;
    let known = browser
        .post(
            &format!("{base}/app/sign-in/mail"),
            &[("email", "Owner@Example.com"), ("next", "/app/forms")],
        )
        .await;
    assert_eq!(known.status, 200, "{}", known.body);
    assert!(
        known
            .body
            .contains("If an account has this address, a link is on its way")
    );
    assert_eq!(
        (unknown.status, &unknown.body),
        (200, &known.body),
        "the same page either way"
    );

    let mail = wait_for(Duration::from_secs(10), || {
        let mails = sink.mails();
        async move { mails.into_iter().next() }
    })
    .await
    .expect("the link is mailed");
    assert_eq!(mail.to, vec!["Owner@Example.com".to_owned()]);
    assert_eq!(sink.mails().len(), 1, "nothing to the unknown address");
    let text = part(&mail.data, "text/plain").unwrap();
    let prefix = format!("{PUBLIC_URL}/app/sign-in/link?token=");
    let at = text
        .find(&prefix)
        .unwrap_or_else(|| panic!("the link on --public-url: {text}"));
    let token: String = text[at + prefix.len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    assert_eq!(token.len(), 43);

    // The link page does not spend it; its button does, once.
    let shown = browser
        .get(&format!("{base}/app/sign-in/link?token={token}"))
        .await;
    assert_eq!(shown.status, 200);
    let signed = browser
        .post(
            &format!("{base}/app/sign-in/link"),
            &[("token", &token), ("next", "/app/forms")],
        )
        .await;
    assert_eq!(signed.status, 303, "{}", signed.body);
    assert!(session_set(&signed).is_some());
    let forms = browser.get(&format!("{base}/app/forms")).await;
    assert_eq!(forms.status, 200);
    assert!(forms.body.contains(&key.account));
    let again = Browser::new()
        .post(&format!("{base}/app/sign-in/link"), &[("token", &token)])
        .await;
    assert_eq!(again.status, 401, "a link works once");
}

async fn wait_for<T, F, Fut>(within: Duration, mut probe: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(found) = probe().await {
            return Some(found);
        }
        if tokio::time::Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

const SESSION_SECRET: &str = "test-session-secret-of-32-bytes-or-more";

fn provider_cookie(subject: &str) -> String {
    let claims = serde_json::json!({"sub": subject, "exp": unix_now() + 600});
    let token = encode(
        &Header::default(),
        &claims,
        &EncodingKey::from_secret(SESSION_SECRET.as_bytes()),
    )
    .unwrap();
    format!("theme=dark; session={token}")
}

#[tokio::test]
async fn the_identity_providers_cookie_signs_in_its_linked_account() {
    let app = TestApp::spawn_with(&["--session-hs256-secret", SESSION_SECRET]).await;
    let base = origin(&app);
    let key = app.new_key(PRO, ALL).await;
    link_identity(&app, &key.account, "user-1").await;
    // Offered on the sign-in page (and nothing of OpenID, which is not configured).
    let page = Browser::new().get(&format!("{base}/app/sign-in")).await;
    assert!(
        page.body.contains("action=\"/app/sign-in/cookie\"")
            && !page.body.contains("/app/sign-in/oidc"),
        "{}",
        page.body
    );
    let http = Browser::new().http;
    let post = |cookie: String| {
        http.post(format!("{base}/app/sign-in/cookie"))
            .header("content-type", "application/x-www-form-urlencoded")
            .header(COOKIE, cookie)
            .body("next=%2Fapp%2Fforms")
            .send()
    };
    let signed = post(provider_cookie("user-1")).await.unwrap();
    assert_eq!(signed.status(), 303);
    let session = signed
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|c| c.starts_with("formsd_session="))
        .expect("a session cookie");
    let pair = session.split(';').next().unwrap().to_owned();
    let forms = http
        .get(format!("{base}/app/forms"))
        .header(COOKIE, pair)
        .send()
        .await
        .unwrap();
    assert_eq!(forms.status(), 200);
    assert!(forms.text().await.unwrap().contains(&key.account));
    assert_eq!(sessions_of(&app, "cookie").await, 1);

    // An unlinked subject, or no provider cookie: no session.
    for cookie in [provider_cookie("user-2"), "theme=dark".to_owned()] {
        let refused = post(cookie).await.unwrap();
        assert_eq!(refused.status(), 401);
        assert!(
            refused
                .headers()
                .get_all(SET_COOKIE)
                .iter()
                .all(|c| !c.to_str().unwrap().starts_with("formsd_session="))
        );
    }
    assert_eq!(sessions_of(&app, "cookie").await, 1);
}

#[tokio::test]
async fn the_eleventh_bad_link_from_one_address_waits_and_spends_no_valid_link() {
    // The test's requests come through a "proxy" (loopback is trusted) from two
    // addresses: a guesser and a colleague.
    let app = TestApp::spawn_with(&["--trusted-proxies", "127.0.0.1"]).await;
    let base = origin(&app);
    let key = app.new_key(PRO, ALL).await;
    let link = formsd_cli(&app.db.url, &["accounts", "sign-in-link", &key.account]).await;
    let token = link.trim().rsplit_once("token=").unwrap().1.to_owned();
    let http = Browser::new().http;
    let redeem = |from: &'static str, token: String| {
        http.post(format!("{base}/app/sign-in/link"))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("x-forwarded-for", from)
            .header(HOST, app.server.http_addr.unwrap().to_string())
            .body(serde_urlencoded::to_string([("token", token)]).unwrap())
            .send()
    };
    for n in 1..=10 {
        let bad = redeem("203.0.113.7", format!("guess-{n}")).await.unwrap();
        assert_eq!(bad.status(), 401, "guess {n}");
    }
    let throttled = redeem("203.0.113.7", "guess-11".into()).await.unwrap();
    assert_eq!(throttled.status(), 429);
    assert!(throttled.text().await.unwrap().contains("Wait a minute"));
    // A valid link from the throttled address waits too (the throttle does not tell
    // good tokens from bad ones), and is not spent by the refusal.
    let valid_but_waiting = redeem("203.0.113.7", token.clone()).await.unwrap();
    assert_eq!(valid_but_waiting.status(), 429);
    // Another address is not held up, and the link still works there.
    let colleague = redeem("198.51.100.20", token).await.unwrap();
    assert_eq!(colleague.status(), 303);
    assert_eq!(sessions_of(&app, "link").await, 1);
}
