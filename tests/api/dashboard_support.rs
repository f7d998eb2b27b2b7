//! Signing in to the dashboard in tests, the way an operator does on a fresh machine:
//! `formsd accounts sign-in-link ACCOUNT` prints a one-time URL, and posting its token
//! opens a session. `Dashboard` then browses `/app/…` with the session cookie and the
//! page's CSRF token, following no redirect (tests look at each one).

use crate::helpers::*;
use std::time::Duration;

/// Where the service is reached (the test app's base is the API's, `…/api/v1`).
pub fn origin(app: &TestApp) -> String {
    app.http_base.trim_end_matches("/api/v1").to_owned()
}

/// Prints a sign-in link for `account` with the real command line.
pub async fn sign_in_link(app: &TestApp, account: &str) -> String {
    let output = formsd_command()
        .args([
            "--database-url",
            &app.db.url,
            "accounts",
            "sign-in-link",
            account,
        ])
        .args(["--base-url", &origin(app)])
        .output()
        .await
        .expect("running formsd accounts sign-in-link");
    assert!(
        output.status.success(),
        "sign-in-link failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("utf-8")
        .trim()
        .to_owned()
}

/// The token of a sign-in URL.
pub fn token_of(link: &str) -> &str {
    link.split_once("token=")
        .map(|(_, t)| t)
        .expect("token in link")
}

/// A browser signed in to the dashboard.
pub struct Dashboard {
    pub base: String,
    pub cookie: String,
    pub csrf: String,
    pub client: reqwest::Client,
}

/// A page as the tests see it.
pub struct Page {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub html: String,
}

impl Page {
    pub fn location(&self) -> &str {
        self.headers
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The value of the first hidden input named `name`.
    pub fn input(&self, name: &str) -> Option<String> {
        let needle = format!("name=\"{name}\" value=\"");
        let start = self.html.find(&needle)? + needle.len();
        let end = self.html[start..].find('"')? + start;
        Some(self.html[start..end].replace("&amp;", "&"))
    }
}

pub fn browser_client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client")
}

/// Posts a sign-in link's token, as its page's button does.
pub async fn redeem(app: &TestApp, token: &str) -> Page {
    let client = browser_client();
    fetch(
        client
            .post(format!("{}/app/sign-in/link", origin(app)))
            .form(&[("token", token), ("next", "/app/forms")]),
    )
    .await
}

pub async fn fetch(request: reqwest::RequestBuilder) -> Page {
    let reply = request.send().await.expect("request");
    Page {
        status: reply.status().as_u16(),
        headers: reply.headers().clone(),
        html: reply.text().await.expect("body"),
    }
}

/// The session cookie a reply sets (`formsd_session=…`), if any.
pub fn session_cookie(page: &Page) -> Option<String> {
    page.headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("formsd_session=") && !c.starts_with("formsd_session=;"))
        .map(|c| c.split(';').next().unwrap_or("").to_owned())
}

/// Signs in to `account` (which must exist: make a key for it first) through a link
/// printed by the command line.
pub async fn signed_in(app: &TestApp, account: &str) -> Dashboard {
    let link = sign_in_link(app, account).await;
    let page = redeem(app, token_of(&link)).await;
    assert_eq!(page.status, 303, "{}", page.html);
    let cookie = session_cookie(&page).expect("session cookie");
    let mut dashboard = Dashboard {
        base: origin(app),
        cookie,
        csrf: String::new(),
        client: browser_client(),
    };
    let forms = dashboard.get("/app/forms").await;
    assert_eq!(forms.status, 200, "{}", forms.html);
    dashboard.csrf = forms.input("_csrf").expect("csrf field");
    dashboard
}

impl Dashboard {
    pub async fn get(&self, path: &str) -> Page {
        fetch(
            self.client
                .get(format!("{}{path}", self.base))
                .header("cookie", &self.cookie),
        )
        .await
    }

    /// Posts a form with the session's CSRF token added.
    pub async fn post(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        let mut fields = fields.to_vec();
        fields.push(("_csrf", &self.csrf));
        self.post_raw(path, &fields).await
    }

    /// Posts exactly `fields` (no CSRF token added).
    pub async fn post_raw(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        fetch(
            self.client
                .post(format!("{}{path}", self.base))
                .header("cookie", &self.cookie)
                .form(fields),
        )
        .await
    }
}
