//! Signing in to the dashboard in tests: a one-time link minted over gRPC with the
//! operator token, redeemed by POST /app/sign-in/link for the `formsd_session` cookie;
//! then pages fetched and forms posted with that cookie and the page's CSRF token.

use crate::helpers::*;
use forms::pb::sessions_service_client::SessionsServiceClient;

/// The operator token of [`dashboard_app`].
pub const ADMIN_TOKEN: &str = "test-operator-token-of-the-dashboard";

/// `formsd serve` with the operator token (needed to mint sign-in links), plus `extra`.
pub async fn dashboard_app(extra: &[&str]) -> TestApp {
    let mut args = vec!["--admin-token", ADMIN_TOKEN];
    args.extend_from_slice(extra);
    TestApp::spawn_with(&args).await
}

/// A browser signed in to the dashboard as one account.
pub struct Dashboard {
    /// The origin, `http://127.0.0.1:PORT`.
    pub base: String,
    pub client: reqwest::Client,
    /// `formsd_session=…`, as the `cookie` header.
    pub cookie: String,
    /// The session's CSRF token, as pages put it in their `_csrf` field.
    pub csrf: String,
}

/// What a dashboard request answered.
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

/// The value of the first `name="<name>" value="…"` hidden field of a page.
pub fn hidden_value(html: &str, name: &str) -> Option<String> {
    let start = html.find(&format!("name=\"{name}\" value=\""))? + name.len() + 15;
    let end = html[start..].find('"')?;
    Some(html[start..start + end].to_owned())
}

/// A urlencoded form body.
pub fn form_body(fields: &[(&str, &str)]) -> String {
    serde_urlencoded::to_string(fields).expect("form body")
}

/// Signs `account` (which must exist) in to the dashboard of `app` (started with
/// [`ADMIN_TOKEN`], e.g. by [`dashboard_app`]).
pub async fn signed_in(app: &TestApp, account: &str) -> Dashboard {
    let channel = tonic::transport::Channel::from_shared(app.grpc_url.clone())
        .expect("gRPC URL")
        .connect()
        .await
        .expect("connecting to the core");
    let mut request = tonic::Request::new(forms::pb::CreateSignInLinkRequest {
        account: account.to_owned(),
    });
    request
        .metadata_mut()
        .insert("x-admin-token", ADMIN_TOKEN.parse().expect("metadata"));
    let token = SessionsServiceClient::new(channel)
        .create_sign_in_link(request)
        .await
        .expect("sign-in link")
        .into_inner()
        .token;
    let base = app.http_base.trim_end_matches("/api/v1").to_owned();
    let client = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let reply = client
        .post(format!("{base}/app/sign-in/link"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form_body(&[
            ("token", token.as_str()),
            ("next", "/app/forms"),
        ]))
        .send()
        .await
        .expect("redeem link");
    let status = reply.status().as_u16();
    if status != 303 {
        let text = reply.text().await.unwrap_or_default();
        let logs = app.logs().text();
        panic!("sign-in by link: {status}\n{text}\n{logs}");
    }
    let cookie = reply
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("formsd_session="))
        .and_then(|v| v.split(';').next())
        .expect("session cookie")
        .to_owned();
    let mut dashboard = Dashboard {
        base,
        client,
        cookie,
        csrf: String::new(),
    };
    let page = dashboard.get("/app/forms").await;
    assert_eq!(page.status, 200, "{}", page.text());
    dashboard.csrf = hidden_value(&page.text(), "_csrf").expect("a _csrf field");
    dashboard
}

impl Dashboard {
    /// GET `path` (from `/app/…`) with the session.
    pub async fn get(&self, path: &str) -> Got {
        let reply = self
            .client
            .get(format!("{}{path}", self.base))
            .header("cookie", &self.cookie)
            .send()
            .await
            .expect("GET");
        Self::got(reply).await
    }

    /// POST a urlencoded form with the session; `_csrf` is added unless `fields` has it.
    pub async fn post(&self, path: &str, fields: &[(&str, &str)]) -> Got {
        let mut fields = fields.to_vec();
        if !fields.iter().any(|(name, _)| *name == "_csrf") {
            fields.push(("_csrf", &self.csrf));
        }
        let reply = self
            .client
            .post(format!("{}{path}", self.base))
            .header("cookie", &self.cookie)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form_body(&fields))
            .send()
            .await
            .expect("POST");
        Self::got(reply).await
    }

    async fn got(reply: reqwest::Response) -> Got {
        let status = reply.status().as_u16();
        let headers = reply.headers().clone();
        let body = reply.bytes().await.expect("body").to_vec();
        Got {
            status,
            headers,
            body,
        }
    }
}
