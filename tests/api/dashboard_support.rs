//! Signing in to the dashboard in a test: a sign-in link minted by the operator
//! (SessionsService.CreateSignInLink with the admin token), redeemed by POST
//! /app/sign-in/link for the `formsd_session` cookie; the page's `_csrf` read from a
//! page. Requests never follow redirects, so that each step can be checked.

use crate::helpers::*;
use forms::pb;
use tonic::Request;
use tonic::transport::Channel;

/// The operator token of apps spawned by [`spawn`].
pub const ADMIN_TOKEN: &str = "dashboard-test-operator-token-of-32-bytes-or-more";

/// An app whose operator token is [`ADMIN_TOKEN`].
pub async fn spawn(extra: &[&str]) -> TestApp {
    let mut args = vec!["--admin-token", ADMIN_TOKEN];
    args.extend_from_slice(extra);
    TestApp::spawn_with(&args).await
}

/// A gRPC channel to the app's core.
pub async fn channel(app: &TestApp) -> Channel {
    Channel::from_shared(app.grpc_url.clone())
        .expect("gRPC URL")
        .connect()
        .await
        .expect("connecting to the core")
}

/// A request with the operator token.
pub fn as_operator<T>(message: T) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("x-admin-token", ADMIN_TOKEN.parse().expect("metadata"));
    request
}

/// A signed-in browser of one account.
pub struct Dashboard {
    pub base: String,
    /// The session token (the `formsd_session` cookie's value).
    pub session: String,
    pub csrf: String,
    pub client: reqwest::Client,
}

/// Where the app serves its pages (`http_base` is the REST API's `…/api/v1`).
pub fn site(app: &TestApp) -> String {
    app.http_base.trim_end_matches("/api/v1").to_owned()
}

/// A page or a post's reply.
pub struct Page {
    pub status: u16,
    pub location: String,
    pub text: String,
}

/// Signs in to `account` (a Pro account, made if new) in an app made by [`spawn`].
pub async fn signed_in(app: &TestApp, account: &str) -> Dashboard {
    sqlx::query("INSERT INTO accounts (id, name, plan) VALUES ($1, $2, 'pro') ON CONFLICT (name) DO NOTHING")
        .bind(uuid::Uuid::now_v7())
        .bind(account)
        .execute(&app.pool)
        .await
        .expect("account");
    let mut sessions = pb::sessions_service_client::SessionsServiceClient::new(channel(app).await);
    let link = sessions
        .create_sign_in_link(as_operator(pb::CreateSignInLinkRequest {
            account: account.into(),
        }))
        .await
        .expect("sign-in link")
        .into_inner();
    let client = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .expect("client");
    let reply = client
        .post(format!("{}/app/sign-in/link", site(app)))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(serde_urlencoded::to_string([("token", link.token.as_str())]).expect("form"))
        .send()
        .await
        .expect("redeeming the link");
    let session = reply
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|c| c.strip_prefix("formsd_session="))
        .and_then(|c| c.split(';').next())
        .filter(|c| !c.is_empty())
        .expect("a session cookie")
        .to_owned();
    let mut dashboard = Dashboard {
        base: site(app),
        session,
        csrf: String::new(),
        client,
    };
    let page = dashboard.get("/app/forms").await;
    assert_eq!(page.status, 200, "{}", page.text);
    dashboard.csrf = input_value(&page.text, "_csrf").expect("a _csrf field");
    dashboard
}

/// The `value` of the first input named `name` in a page.
pub fn input_value(page: &str, name: &str) -> Option<String> {
    let at = page.find(&format!("name=\"{name}\""))?;
    let start = page[..at].rfind('<')?;
    let tag = &page[start..start + page[start..].find('>')?];
    let value = tag.split("value=\"").nth(1)?;
    Some(value[..value.find('"')?].replace("&amp;", "&"))
}

impl Dashboard {
    async fn read(&self, request: reqwest::RequestBuilder) -> Page {
        let reply = request
            .header("cookie", format!("formsd_session={}", self.session))
            .send()
            .await
            .expect("dashboard request");
        let status = reply.status().as_u16();
        let location = reply
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        Page {
            status,
            location,
            text: reply.text().await.expect("body"),
        }
    }

    pub async fn get(&self, path: &str) -> Page {
        self.read(self.client.get(format!("{}{path}", self.base)))
            .await
    }

    /// A post of `fields` with the session's CSRF token.
    pub async fn post(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        let mut all = vec![("_csrf", self.csrf.as_str())];
        all.extend_from_slice(fields);
        self.post_raw(path, &all).await
    }

    /// A post of exactly `fields` (no CSRF token unless given).
    pub async fn post_raw(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        let body = serde_urlencoded::to_string(fields).expect("form");
        self.read(
            self.client
                .post(format!("{}{path}", self.base))
                .header("content-type", "application/x-www-form-urlencoded")
                .body(body),
        )
        .await
    }

    /// A gRPC request as this session (with its CSRF token when `change`).
    pub fn grpc<T>(&self, message: T, change: bool) -> Request<T> {
        let mut request = Request::new(message);
        let md = request.metadata_mut();
        md.insert(
            "x-dashboard-session",
            self.session.parse().expect("metadata"),
        );
        if change {
            md.insert("x-csrf-token", self.csrf.parse().expect("metadata"));
        }
        request
    }
}
