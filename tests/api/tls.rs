//! Transport security (SPEC, Authentication 6: "Transport is TLS (HTTPS)."): HTTPS on
//! the REST edge and the hosted pages, gRPC over TLS, certificate files reloaded without
//! a restart, HSTS and `Secure` cookies over TLS; plain HTTP (behind a TLS-terminating
//! proxy) without either unless a trusted proxy says the visitor came over HTTPS.

use crate::fixtures::*;
use crate::harness::*;
use ::forms::pb::{self, forms_service_client::FormsServiceClient};
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;
use tonic::transport::{Certificate, Channel, ClientTlsConfig};

/// What the hosted page's CSRF cookie starts with.
const CSRF_COOKIE: &str = "formsd_csrf=";
/// Longest wait for a rotated certificate to be served (the tests poll every 200 ms).
const ROTATION_WAIT: Duration = Duration::from_secs(30);

/// A self-signed certificate for `localhost` and 127.0.0.1, as PEM, with its key.
struct Pair {
    cert: String,
    key: String,
    der: Vec<u8>,
}

impl Pair {
    fn new() -> Pair {
        let made = rcgen::generate_simple_self_signed(vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
        ])
        .expect("making a certificate");
        Pair {
            cert: made.cert.pem(),
            key: made.signing_key.serialize_pem(),
            der: made.cert.der().to_vec(),
        }
    }

    fn root(&self) -> reqwest::Certificate {
        reqwest::Certificate::from_pem(self.cert.as_bytes()).expect("test CA")
    }
}

/// The `--tls-cert` and `--tls-key` files of one server, in a directory of the test.
struct TlsFiles {
    _dir: tempfile::TempDir,
    cert: PathBuf,
    key: PathBuf,
}

impl TlsFiles {
    fn with(pair: &Pair) -> TlsFiles {
        let dir = tempfile::tempdir().expect("temporary directory");
        let files = TlsFiles {
            cert: dir.path().join("cert.pem"),
            key: dir.path().join("key.pem"),
            _dir: dir,
        };
        files.write(&pair.cert, &pair.key);
        files
    }

    /// Replaces the files' contents, as a renewal (certbot, cert-manager) does.
    fn write(&self, cert: &str, key: &str) {
        std::fs::write(&self.cert, cert).expect("writing the certificate");
        std::fs::write(&self.key, key).expect("writing the key");
    }

    /// `formsd serve` on these files, re-read every 200 ms, with the test application's
    /// base and client on HTTPS, trusting `pair`.
    async fn serve(&self, pair: &Pair) -> TestApp {
        let args = [
            "--tls-cert",
            self.cert.to_str().expect("UTF-8 path"),
            "--tls-key",
            self.key.to_str().expect("UTF-8 path"),
            "--tls-reload-interval",
            "200ms",
        ];
        let mut app = TestApp::spawn_with(&args).await;
        let addr = app.server.http_addr.expect("REST address");
        app.http_base = format!("https://{addr}/api/v1");
        app.client = https_client(&[pair]);
        app
    }
}

/// The origin of `app`'s REST edge (and hosted pages).
fn origin(app: &TestApp) -> &str {
    app.http_base.trim_end_matches("/api/v1")
}

/// A client that trusts only `roots`, on a new connection each time it is built.
fn https_client(roots: &[&Pair]) -> reqwest::Client {
    let _ = http_client(); // installs the ring provider, as the service does
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .tls_certs_only(roots.iter().map(|pair| pair.root()))
        .tls_info(true)
        .timeout(Duration::from_secs(30))
        .build()
        .expect("HTTPS client")
}

/// The certificate a new HTTPS connection to `app` is shown, as DER.
async fn served_certificate(app: &TestApp, roots: &[&Pair]) -> Option<Vec<u8>> {
    let reply = https_client(roots)
        .get(format!("{}/healthz", origin(app)))
        .send()
        .await
        .ok()?;
    let info = reply.extensions().get::<reqwest::tls::TlsInfo>()?;
    info.peer_certificate().map(<[u8]>::to_vec)
}

/// The `Set-Cookie` header of the CSRF cookie in `reply`.
fn csrf_cookie(reply: &Reply) -> String {
    reply
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(CSRF_COOKIE))
        .unwrap_or_else(|| panic!("no CSRF cookie in {:?}", reply.headers))
        .to_owned()
}

fn has_attribute(cookie: &str, name: &str) -> bool {
    cookie
        .split(';')
        .any(|attribute| attribute.trim().eq_ignore_ascii_case(name))
}

/// A published form's hosted page address, `/f/{short_id}`.
async fn hosted_page(app: &TestApp) -> String {
    let key = app.key(PRO, ALL).await;
    let form = published_form(app, &key, contact_fields(), json!({})).await;
    format!(
        "/f/{}",
        form["short_id"]
            .as_str()
            .expect("short_id of a published form")
    )
}

#[tokio::test]
async fn rest_and_hosted_pages_are_served_over_https_with_hsts_and_secure_cookies() {
    let pair = Pair::new();
    let files = TlsFiles::with(&pair);
    let app = files.serve(&pair).await;
    let key = app.key(PRO, ALL).await;
    assert!(app.http_base.starts_with("https://"));

    let reply = app.get("/forms", &key).await;
    reply.ok(200);
    reply.assert_common_headers();
    assert_eq!(
        reply.header("strict-transport-security"),
        "max-age=63072000",
        "HSTS on a reply over TLS"
    );

    let page = send(
        app.client
            .get(format!("{}{}", origin(&app), hosted_page(&app).await)),
    )
    .await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert_eq!(page.header("strict-transport-security"), "max-age=63072000");
    let cookie = csrf_cookie(&page);
    assert!(has_attribute(&cookie, "Secure"), "{cookie}");
    assert!(has_attribute(&cookie, "HttpOnly"), "{cookie}");

    // The listener speaks only TLS: plain HTTP on it gets no page.
    let plain = http_client()
        .get(format!(
            "http://{}/healthz",
            app.server.http_addr.expect("REST address")
        ))
        .send()
        .await;
    assert!(
        plain.map_or(true, |reply| !reply.status().is_success()),
        "plain HTTP answered on the TLS port"
    );
}

#[tokio::test]
async fn grpc_is_served_over_tls() {
    let pair = Pair::new();
    let files = TlsFiles::with(&pair);
    let app = files.serve(&pair).await;
    let key = app.key(PRO, ALL).await;
    let grpc_addr = app.server.grpc_addr.expect("gRPC address");
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(&pair.cert))
        .domain_name("localhost");
    let channel = Channel::from_shared(format!("https://{grpc_addr}"))
        .expect("gRPC URL")
        .tls_config(tls)
        .expect("TLS settings")
        .connect()
        .await
        .expect("connecting to the core over TLS");
    let forms = FormsServiceClient::new(channel)
        .list_forms(grpc_request(pb::ListFormsRequest::default(), &key))
        .await
        .expect("ListForms over TLS")
        .into_inner();
    assert!(forms.forms.is_empty());

    // A client without TLS is not served.
    let plain = Channel::from_shared(format!("http://{grpc_addr}"))
        .expect("gRPC URL")
        .connect()
        .await;
    if let Ok(channel) = plain {
        FormsServiceClient::new(channel)
            .list_forms(grpc_request(pb::ListFormsRequest::default(), &key))
            .await
            .expect_err("plain gRPC on the TLS port");
    }
}

#[tokio::test]
async fn a_renewed_certificate_is_served_without_a_restart_and_a_bad_one_is_not() {
    let old = Pair::new();
    let new = Pair::new();
    let files = TlsFiles::with(&old);
    let app = files.serve(&old).await;
    let both = [&old, &new];
    assert_eq!(served_certificate(&app, &both).await, Some(old.der.clone()));

    // A file that is not a certificate: the old one stays in service, with a warning
    // that shows no key material.
    files.write("not a certificate\n", &new.key);
    assert!(
        app.logs()
            .wait_for("TLS certificate files changed but do not load")
            .await,
        "no warning for a bad certificate file:\n{}",
        app.logs().text()
    );
    assert_eq!(served_certificate(&app, &both).await, Some(old.der.clone()));
    // A certificate with another certificate's key is refused the same way.
    files.write(&new.cert, &old.key);
    assert!(
        app.logs().wait_for("do not go together").await,
        "no warning for a key of another certificate:\n{}",
        app.logs().text()
    );
    assert_eq!(served_certificate(&app, &both).await, Some(old.der.clone()));

    files.write(&new.cert, &new.key);
    eventually(
        "the renewed certificate on a new connection",
        ROTATION_WAIT,
        || {
            let app = &app;
            let both = &both;
            let want = new.der.clone();
            async move { (served_certificate(app, both).await == Some(want)).then_some(()) }
        },
    )
    .await;
    // A client that trusts only the new certificate is served.
    let reply = send(https_client(&[&new]).get(format!("{}/healthz", origin(&app)))).await;
    assert_eq!(reply.status, 200);

    // No line of either key, nor any PEM armour (a half-written file may have been
    // read and refused on the way).
    let logs = app.logs().text();
    for secret in [&old.key, &new.key] {
        for line in secret.lines().filter(|line| !line.starts_with("-----")) {
            assert!(!logs.contains(line), "key material in the logs:\n{logs}");
        }
    }
    assert!(!logs.contains("-----BEGIN"), "PEM in the logs:\n{logs}");
}

#[tokio::test]
async fn plain_http_sends_neither_hsts_nor_secure_cookies() {
    let app = TestApp::spawn().await;
    let url = format!("{}{}", origin(&app), hosted_page(&app).await);
    let page = send(app.client.get(&url)).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(page.headers.get("strict-transport-security").is_none());
    let cookie = csrf_cookie(&page);
    assert!(!has_attribute(&cookie, "Secure"), "{cookie}");

    // A client's own X-Forwarded-Proto is not believed: it is no trusted proxy.
    let page = send(app.client.get(&url).header("x-forwarded-proto", "https")).await;
    assert!(page.headers.get("strict-transport-security").is_none());
    assert!(!has_attribute(&csrf_cookie(&page), "Secure"));
}

#[tokio::test]
async fn behind_a_trusted_proxy_that_terminated_tls_cookies_are_secure() {
    // The tests' client connects from 127.0.0.1: here it is the trusted proxy.
    let app = TestApp::spawn_with(&["--trusted-proxies", "127.0.0.1"]).await;
    let url = format!("{}{}", origin(&app), hosted_page(&app).await);
    let visit = |proto: Option<&'static str>| {
        let mut request = app.client.get(&url);
        if let Some(proto) = proto {
            request = request.header("x-forwarded-proto", proto);
        }
        send(request)
    };

    let page = visit(Some("https")).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(has_attribute(&csrf_cookie(&page), "Secure"));
    assert_eq!(page.header("strict-transport-security"), "max-age=63072000");

    // The proxy received plain HTTP, or said nothing: no Secure, no HSTS.
    for proto in [Some("http"), None] {
        let page = visit(proto).await;
        assert!(!has_attribute(&csrf_cookie(&page), "Secure"), "{proto:?}");
        assert!(page.headers.get("strict-transport-security").is_none());
    }

    // A client's own Forwarded, which this proxy (writing X-Forwarded-*) passes
    // through, is not its word.
    let page = send(
        app.client
            .get(&url)
            .header("forwarded", "for=198.51.100.7;proto=https"),
    )
    .await;
    assert!(!has_attribute(&csrf_cookie(&page), "Secure"));

    // Behind a proxy that writes RFC 7239's Forwarded, that header says the same.
    let app = TestApp::spawn_with(&[
        "--trusted-proxies",
        "127.0.0.1",
        "--proxy-header",
        "forwarded",
    ])
    .await;
    let url = format!("{}{}", origin(&app), hosted_page(&app).await);
    let page = send(
        app.client
            .get(&url)
            .header("forwarded", "for=198.51.100.7;proto=https"),
    )
    .await;
    assert!(has_attribute(&csrf_cookie(&page), "Secure"));
    let page = send(app.client.get(&url).header("x-forwarded-proto", "https")).await;
    assert!(!has_attribute(&csrf_cookie(&page), "Secure"));
}

#[tokio::test]
async fn an_edge_reaches_its_core_over_tls() {
    let pair = Pair::new();
    let files = TlsFiles::with(&pair);
    let db = TestDb::create().await;
    let (cert, key) = (
        files.cert.to_str().expect("UTF-8 path"),
        files.key.to_str().expect("UTF-8 path"),
    );
    let core_args = ["--role", "core", "--tls-cert", cert, "--tls-key", key];
    let core = Formsd::start(&serve_args(&db.url, &core_args)).await;
    let core_url = format!("https://{}", core.grpc_addr.expect("gRPC address"));
    let edge = Formsd::start(&edge_serve_args(&core_url, &["--core-ca", cert])).await;
    let app = TestApp::from_parts(edge, db).await;
    let key = app.key(PRO, ALL).await;
    let form = app
        .create_form(
            &key,
            &json!({"title": "Split over TLS", "fields": contact_fields()}),
        )
        .await;
    let path = format!("/forms/{}", form["id"].as_str().expect("id"));
    assert_eq!(app.get(&path, &key).await.ok(200)["form"], form);
}

#[tokio::test]
async fn the_dashboards_session_cookie_is_secure_over_https() {
    let pair = Pair::new();
    let files = TlsFiles::with(&pair);
    let app = files.serve(&pair).await;
    let owner = app.new_key(PRO, ALL).await;
    let link = crate::dashboard_session::sign_in_link(&app, &owner.account).await;
    assert!(link.starts_with("https://"), "{link}");
    let signed_in = send(
        https_client(&[&pair])
            .post(format!("{}/app/sign-in/link", origin(&app)))
            .form(&[
                ("token", crate::dashboard_session::token_of(&link)),
                ("next", "/app/forms"),
            ]),
    )
    .await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.text);
    // Over HTTPS the cookie is host-bound: `__Host-`, Path=/, no Domain.
    let cookie = signed_in
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("__Host-formsd_session="))
        .expect("the session cookie")
        .to_owned();
    assert!(!cookie.to_ascii_lowercase().contains("domain="), "{cookie}");
    for attribute in ["Secure", "HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(has_attribute(&cookie, attribute), "{attribute}: {cookie}");
    }
    assert_eq!(
        signed_in.header("strict-transport-security"),
        "max-age=63072000"
    );
}
