//! Signing in to the dashboard in tests: a one-time link minted over gRPC with the
//! operator token (`SessionsService.CreateSignInLink`), redeemed by posting it to
//! `/app/sign-in/link`, which answers with the `formsd_session` cookie; then a browser
//! without redirects that carries the cookie and posts the page's `_csrf`.

use crate::helpers::*;
use forms::pb;
use tonic::transport::Channel;

/// The operator token of instances that tests sign in to: spawn them with
/// [`ADMIN_FLAGS`] (or `--admin-token ADMIN_TOKEN`).
pub const ADMIN_TOKEN: &str = "dashboard-tests-operator-token-0123456789";
pub const ADMIN_FLAGS: [&str; 2] = ["--admin-token", ADMIN_TOKEN];

/// A signed-in browser of one account.
pub struct Dashboard {
    pub base: String,
    pub client: reqwest::Client,
    /// The session token (the cookie's value, also the `x-dashboard-session` of gRPC).
    pub cookie: String,
    pub csrf: String,
}

/// A page as the browser got it.
#[derive(Debug)]
pub struct Page {
    pub status: u16,
    pub location: Option<String>,
    pub text: String,
}

async fn read(response: reqwest::Response) -> Page {
    let status = response.status().as_u16();
    let location = response
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let text = response.text().await.expect("reading a page");
    Page {
        status,
        location,
        text,
    }
}

/// The value of the `_csrf` field of a page.
pub fn csrf_of(html: &str) -> Option<String> {
    let at = html.find("name=\"_csrf\" value=\"")? + "name=\"_csrf\" value=\"".len();
    Some(html[at..].split('"').next()?.to_owned())
}

impl Dashboard {
    pub async fn get(&self, path: &str) -> Page {
        let response = self
            .client
            .get(format!("{}{path}", self.base))
            .header("cookie", format!("formsd_session={}", self.cookie))
            .send()
            .await
            .expect("GET a dashboard page");
        read(response).await
    }

    /// Posts `fields` with the session's CSRF token.
    pub async fn post(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        let mut all = vec![("_csrf", self.csrf.as_str())];
        all.extend_from_slice(fields);
        self.post_raw(path, &all).await
    }

    /// Posts exactly `fields` (no CSRF token unless among them).
    pub async fn post_raw(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        let body = serde_urlencoded::to_string(fields).expect("form body");
        let response = self
            .client
            .post(format!("{}{path}", self.base))
            .header("cookie", format!("formsd_session={}", self.cookie))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("POST to the dashboard");
        read(response).await
    }

    /// A gRPC request as this session (with its CSRF token).
    pub fn grpc<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        let md = request.metadata_mut();
        md.insert(
            "x-dashboard-session",
            self.cookie.parse().expect("metadata"),
        );
        md.insert("x-csrf-token", self.csrf.parse().expect("metadata"));
        request
    }
}

/// A gRPC channel to the app's core.
pub async fn core_channel(app: &TestApp) -> Channel {
    Channel::from_shared(app.grpc_url.clone())
        .expect("gRPC URL")
        .connect()
        .await
        .expect("connecting to the core")
}

/// The app's origin (`http_base` is the REST API's, under `/api/v1`).
pub fn origin(app: &TestApp) -> String {
    let base = app.http_base.trim_end_matches('/');
    base.strip_suffix("/api/v1").unwrap_or(base).to_owned()
}

/// Signs `account` (which must exist) in to the dashboard of `app` (spawned with
/// [`ADMIN_FLAGS`]).
pub async fn signed_in(app: &TestApp, account: &str) -> Dashboard {
    let mut sessions =
        pb::sessions_service_client::SessionsServiceClient::new(core_channel(app).await);
    let mut request = tonic::Request::new(pb::CreateSignInLinkRequest {
        account: account.to_owned(),
    });
    request
        .metadata_mut()
        .insert("x-admin-token", ADMIN_TOKEN.parse().expect("metadata"));
    let token = sessions
        .create_sign_in_link(request)
        .await
        .expect("CreateSignInLink")
        .into_inner()
        .token;
    let client = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .expect("HTTP client");
    let response = client
        .post(format!("{}/app/sign-in/link", origin(app)))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(serde_urlencoded::to_string([("token", token.as_str())]).expect("form body"))
        .send()
        .await
        .expect("redeeming the link");
    let status = response.status().as_u16();
    if status != 303 {
        let text = response.text().await.unwrap_or_default();
        panic!(
            "the link did not sign in: {status} {text}\n{}",
            app.logs().text()
        );
    }
    let cookie = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| v.strip_prefix("formsd_session="))
        .and_then(|v| v.split(';').next())
        .expect("formsd_session cookie")
        .to_owned();
    let mut dashboard = Dashboard {
        base: origin(app),
        client,
        cookie,
        csrf: String::new(),
    };
    let forms = dashboard.get("/app/forms").await;
    assert_eq!(forms.status, 200, "{}", forms.text);
    dashboard.csrf = csrf_of(&forms.text).expect("a _csrf field on /app/forms");
    dashboard
}
