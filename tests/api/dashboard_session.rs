//! Signing in to the dashboard in a test, the way an operator's browser does: a one-time
//! link printed by `formsd accounts sign-in-link`, posted to `/app/sign-in/link`, which
//! answers with the `formsd_session` cookie; the CSRF token is read from a page's
//! `_csrf` field. Requests carry the cookie by hand, and redirects are not followed, so
//! that tests see each 303 and where it goes.

use crate::fixtures::formsd_cli;
use crate::harness::{ALL, Reply, TestApp, send};
use forms::accounts::Plan;
use std::time::Duration;

/// A signed-in dashboard browser of one account, with a REST key of the same account.
pub struct Dashboard {
    /// `http://HOST:PORT`, where `/app/…` is served.
    pub base: String,
    /// `formsd_session=…`, as a `Cookie` header.
    pub cookie: String,
    pub csrf: String,
    pub client: reqwest::Client,
    pub account: String,
    /// An API key of the account (all scopes), for checks through the REST API.
    pub key: String,
}

/// A client that follows no redirect and keeps no cookie of its own.
pub fn browser() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .expect("HTTP client")
}

/// The value of the first `name="NAME" value="…"` input of a page.
pub fn input_value(page: &str, name: &str) -> Option<String> {
    let at = page.find(&format!(r#"name="{name}" value=""#))?;
    let rest = &page[at + name.len() + r#"name="" value=""#.len()..];
    rest.split('"').next().map(str::to_owned)
}

/// Signs `account` in (it is created, Pro, if new): its session cookie, CSRF token and
/// a REST key.
pub async fn signed_in(app: &TestApp, account: &str) -> Dashboard {
    let key = app.key_for(account, Plan::Pro, ALL).await.key;
    let printed = formsd_cli(&app.db.url, &["accounts", "sign-in-link", account]).await;
    let token = printed
        .trim()
        .split("token=")
        .nth(1)
        .expect("a token in the printed link")
        .to_owned();
    let client = browser();
    let base = format!("http://{}", app.server.http_addr.expect("HTTP address"));
    let body = serde_urlencoded::to_string([("token", token.as_str()), ("next", "/app/forms")])
        .expect("form body");
    let reply = send(
        client
            .post(format!("{base}/app/sign-in/link"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body),
    )
    .await;
    assert_eq!(reply.status, 303, "sign-in: {}", reply.text);
    let cookie = reply
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("formsd_session="))
        .and_then(|v| v.split(';').next())
        .expect("the session cookie")
        .to_owned();
    let mut dashboard = Dashboard {
        base,
        cookie,
        csrf: String::new(),
        client,
        account: account.to_owned(),
        key,
    };
    let page = dashboard.get("/app/forms").await;
    assert_eq!(page.status, 200, "{}", page.text);
    dashboard.csrf = input_value(&page.text, "_csrf").expect("a CSRF field on the forms page");
    dashboard
}

impl Dashboard {
    /// `GET {base}{path}` with the session.
    pub async fn get(&self, path: &str) -> Reply {
        send(
            self.client
                .get(format!("{}{path}", self.base))
                .header("cookie", &self.cookie),
        )
        .await
    }

    /// `GET` with more headers (e.g. `Host`).
    pub async fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = self
            .client
            .get(format!("{}{path}", self.base))
            .header("cookie", &self.cookie);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        send(request).await
    }

    /// A form post with the session and its CSRF token (unless `fields` has one).
    pub async fn post(&self, path: &str, fields: &[(&str, &str)]) -> Reply {
        let mut all = fields.to_vec();
        if !all.iter().any(|(name, _)| *name == "_csrf") {
            all.insert(0, ("_csrf", self.csrf.as_str()));
        }
        self.post_raw(path, &all).await
    }

    /// `GET` of a download: its bytes as they came.
    pub async fn download(&self, path: &str) -> Got {
        let reply = self
            .client
            .get(format!("{}{path}", self.base))
            .header("cookie", &self.cookie)
            .send()
            .await
            .expect("GET");
        Got {
            status: reply.status().as_u16(),
            headers: reply.headers().clone(),
            body: reply.bytes().await.expect("body").to_vec(),
        }
    }

    /// A form post with the session and exactly `fields` (no CSRF token added).
    pub async fn post_raw(&self, path: &str, fields: &[(&str, &str)]) -> Reply {
        let body = serde_urlencoded::to_string(fields).expect("form body");
        send(
            self.client
                .post(format!("{}{path}", self.base))
                .header("cookie", &self.cookie)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(body),
        )
        .await
    }

    /// Creates a form through the dashboard; returns its id.
    pub async fn create_form(&self, title: &str) -> String {
        let reply = self.post("/app/forms", &[("title", title)]).await;
        assert_eq!(reply.status, 303, "{}", reply.text);
        let location = reply.header("location");
        location
            .strip_prefix("/app/forms/")
            .and_then(|rest| rest.split('?').next())
            .expect("on to the new form's page")
            .to_owned()
    }
}

/// Where the service is reached (the test app's base is the API's, `…/api/v1`).
pub fn origin(app: &TestApp) -> String {
    app.http_base.trim_end_matches("/api/v1").to_owned()
}

/// A sign-in link for `account`, printed by the real command line for this origin.
pub async fn sign_in_link(app: &TestApp, account: &str) -> String {
    let base = origin(app);
    let printed = formsd_cli(
        &app.db.url,
        &["accounts", "sign-in-link", account, "--base-url", &base],
    )
    .await;
    printed.trim().to_owned()
}

/// The token of a sign-in link.
pub fn token_of(link: &str) -> &str {
    link.split_once("token=").map_or("", |(_, t)| t)
}

/// Posts a sign-in link's token, as its page's button does.
pub async fn redeem(app: &TestApp, token: &str) -> Reply {
    let body =
        serde_urlencoded::to_string([("token", token), ("next", "/app/forms")]).expect("form body");
    send(
        browser()
            .post(format!("{}/app/sign-in/link", origin(app)))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body),
    )
    .await
}

/// The session cookie a reply sets (`formsd_session=…`), if it sets one.
pub fn session_cookie(reply: &Reply) -> Option<String> {
    reply
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("formsd_session=") && !c.starts_with("formsd_session=;"))
        .map(|c| c.split(';').next().unwrap_or("").to_owned())
}

/// A reply whose body is bytes (downloads).
pub struct Got {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

impl Got {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

/// An application for dashboard tests, with extra `serve` flags.
pub async fn dashboard_app(extra: &[&str]) -> TestApp {
    TestApp::spawn_with(extra).await
}

/// The operator token of apps spawned by [`spawn`].
pub const ADMIN_TOKEN: &str = "dashboard-test-operator-token-of-32-bytes-or-more";

/// An app whose operator token is [`ADMIN_TOKEN`], for tests that call the admin services.
pub async fn spawn(extra: &[&str]) -> TestApp {
    let mut args = vec!["--admin-token", ADMIN_TOKEN];
    args.extend_from_slice(extra);
    TestApp::spawn_with(&args).await
}

/// A gRPC channel to the app's core.
pub async fn channel(app: &TestApp) -> tonic::transport::Channel {
    tonic::transport::Channel::from_shared(app.grpc_url.clone())
        .expect("gRPC URL")
        .connect()
        .await
        .expect("connecting to the core")
}

/// A request with the operator token.
pub fn as_operator<T>(message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request
        .metadata_mut()
        .insert("x-admin-token", ADMIN_TOKEN.parse().expect("metadata"));
    request
}

impl Dashboard {
    /// The session's token (the cookie's value).
    pub fn session(&self) -> &str {
        self.cookie.trim_start_matches("formsd_session=")
    }

    /// A gRPC request as this session, with its CSRF token.
    pub fn grpc_changing<T>(&self, message: T) -> tonic::Request<T> {
        self.grpc(message, true)
    }

    /// A gRPC request as this session (with its CSRF token when `change`).
    pub fn grpc<T>(&self, message: T, change: bool) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        let md = request.metadata_mut();
        md.insert(
            "x-dashboard-session",
            self.session().parse().expect("metadata"),
        );
        if change {
            md.insert("x-csrf-token", self.csrf.parse().expect("metadata"));
        }
        request
    }
}
