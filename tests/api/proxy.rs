//! Behind the book's own nginx (Debian's `nginx`, started by the test with the
//! configuration blocks its page "Behind a proxy" shows, only its ports, certificate files and
//! upstream addresses replaced): a client cannot choose the address it is throttled
//! under, neither with its own `Forwarded` or `X-Forwarded-For` on the REST port nor with
//! `x-client-ip` metadata on the gRPC port.
//!
//! Without nginx the test fails when FORMS_REQUIRE_NGINX=1 (as in CI), else says
//! SKIPPED.

use crate::harness::*;
use crate::limits::failures_before_throttled;
use ::forms::pb::{self, sessions_service_client::SessionsServiceClient};
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const NGINX: &str = "/usr/sbin/nginx";

/// The book's nginx blocks (every fenced `nginx` block of its page "Behind a proxy").
fn book_blocks() -> String {
    let page = Path::new(ROOT).join("docs/src/running/proxies.md");
    let text = std::fs::read_to_string(&page).expect("the book's page docs/src/running/proxies.md");
    let mut blocks = String::new();
    let mut inside = false;
    for line in text.lines() {
        match (inside, line.trim_end()) {
            (false, "```nginx") => inside = true,
            (true, "```") => inside = false,
            (true, line) => {
                blocks.push_str(line);
                blocks.push('\n');
            }
            _ => {}
        }
    }
    assert!(
        blocks.contains("grpc_pass"),
        "the book's proxy page shows the gRPC proxy"
    );
    blocks
}

/// A running nginx; stopped when dropped.
struct Nginx {
    child: std::process::Child,
    _dir: tempfile::TempDir,
    https: u16,
    grpcs: u16,
    cert: String,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// nginx with the book's blocks in front of `app`, on free ports of loopback.
async fn nginx_in_front_of(app: &TestApp) -> Option<Nginx> {
    if !Path::new(NGINX).exists() {
        assert!(
            std::env::var("FORMS_REQUIRE_NGINX").as_deref() != Ok("1"),
            "FORMS_REQUIRE_NGINX=1 but {NGINX} is missing (apt-get install nginx)"
        );
        eprintln!("SKIPPED: the proxy test needs Debian's nginx ({NGINX})");
        return None;
    }
    let dir = tempfile::tempdir().expect("a directory for nginx");
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("cert");
    let (cert, key): (PathBuf, PathBuf) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    let (https, grpcs) = (free_port(), free_port());
    let http_addr = app.server.http_addr.expect("REST address").to_string();
    let grpc_addr = app.server.grpc_addr.expect("gRPC address").to_string();
    let servers = book_blocks()
        .replace("listen 443 ssl;", &format!("listen 127.0.0.1:{https} ssl;"))
        .replace(
            "listen 50443 ssl http2;",
            &format!("listen 127.0.0.1:{grpcs} ssl http2;"),
        )
        .replace(
            "/etc/letsencrypt/live/forms.example.com/fullchain.pem",
            cert.to_str().unwrap(),
        )
        .replace(
            "/etc/letsencrypt/live/forms.example.com/privkey.pem",
            key.to_str().unwrap(),
        )
        .replace("127.0.0.1:8080", &http_addr)
        .replace("127.0.0.1:50051", &grpc_addr);
    let d = dir.path().display();
    let conf = format!(
        "worker_processes 1;\ndaemon off;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
         events {{}}\nhttp {{\n access_log off;\n client_body_temp_path {d}/body;\n\
         proxy_temp_path {d}/proxy;\n fastcgi_temp_path {d}/fastcgi;\n\
         uwsgi_temp_path {d}/uwsgi;\n scgi_temp_path {d}/scgi;\n{servers}}}\n"
    );
    let path = dir.path().join("nginx.conf");
    std::fs::write(&path, conf).unwrap();
    let child = std::process::Command::new(NGINX)
        .arg("-p")
        .arg(dir.path())
        .arg("-c")
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("starting nginx");
    let nginx = Nginx {
        child,
        _dir: dir,
        https,
        grpcs,
        cert: made.cert.pem(),
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while tokio::net::TcpStream::connect(("127.0.0.1", grpcs))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "nginx did not start listening");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Some(nginx)
}

/// A client of the proxy from 127.0.0.2 (not the trusted proxy's own address), trusting
/// its certificate.
fn visitor(nginx: &Nginx) -> reqwest::Client {
    let _ = http_client(); // installs the ring provider, as the service does
    reqwest::Client::builder()
        .no_proxy()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)))
        .tls_certs_only([reqwest::Certificate::from_pem(nginx.cert.as_bytes()).unwrap()])
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .expect("HTTPS client")
}

/// Finding 3: a client chose its own address behind the book's proxy: by its own
/// `Forwarded` on the REST port (which the edge preferred to the `X-Forwarded-For` the
/// proxy set), and by `x-client-ip` metadata on the gRPC port (believed from any trusted
/// peer, and passed on unchanged by `grpc_pass`).
#[tokio::test]
async fn behind_the_books_nginx_a_client_cannot_choose_its_address() {
    let app = TestApp::spawn_with(&[
        "--trusted-proxies",
        "127.0.0.1",
        "--auth-failures-per-minute",
        "3",
        "--sign-in-attempts-per-minute",
        "3",
    ])
    .await;
    let Some(nginx) = nginx_in_front_of(&app).await else {
        return;
    };
    let client = visitor(&nginx);
    let base = format!("https://localhost:{}", nginx.https);

    // REST: bad keys, each with another claimed address in every header a client could
    // send. The proxy's word (the visitor's real address) is the one counted.
    let mut statuses = Vec::new();
    for n in 0..8 {
        let reply = client
            .get(format!("{base}/api/v1/forms"))
            .header("x-api-key", "fsk_0123456789abcdef_guessguessguess")
            .header("forwarded", format!("for=198.51.100.{n};proto=https"))
            .header("x-forwarded-for", format!("203.0.113.{n}"))
            .send()
            .await
            .expect("an answer through nginx");
        statuses.push(reply.status().as_u16());
    }
    assert_eq!(
        statuses,
        [401, 401, 401, 429, 429, 429, 429, 429],
        "one visitor, however many addresses it claims"
    );
    // The visitor's address is the proxy's word: another visitor behind the same proxy
    // (from 127.0.0.3) is not held up by the first.
    let second = reqwest::Client::builder()
        .no_proxy()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 3)))
        .tls_certs_only([reqwest::Certificate::from_pem(nginx.cert.as_bytes()).unwrap()])
        .build()
        .unwrap();
    let reply = second
        .get(format!("{base}/api/v1/forms"))
        .header("x-api-key", "fsk_0123456789abcdef_guessguessguess")
        .send()
        .await
        .unwrap();
    assert_eq!(
        reply.status().as_u16(),
        401,
        "another visitor has its own allowance"
    );

    // gRPC through grpc_pass: bad sign-in links, each claiming another address.
    let tls = tonic::transport::ClientTlsConfig::new()
        .ca_certificate(tonic::transport::Certificate::from_pem(&nginx.cert))
        .domain_name("localhost");
    let channel =
        tonic::transport::Endpoint::from_shared(format!("https://localhost:{}", nginx.grpcs))
            .unwrap()
            .tls_config(tls)
            .unwrap()
            .connect()
            .await
            .expect("gRPC through nginx");
    let mut sessions = SessionsServiceClient::new(channel);
    let mut codes = Vec::new();
    for n in 0..6 {
        let mut request = tonic::Request::new(pb::RedeemSignInLinkRequest {
            token: format!("guess-{n}"),
        });
        let md = request.metadata_mut();
        md.insert("x-client-ip", format!("198.51.100.{n}").parse().unwrap());
        md.insert("x-forwarded-for", format!("203.0.113.{n}").parse().unwrap());
        let refused = sessions
            .redeem_sign_in_link(request)
            .await
            .expect_err("a bad link");
        codes.push(refused.code());
    }
    assert_eq!(
        codes
            .iter()
            .filter(|c| **c == tonic::Code::ResourceExhausted)
            .count(),
        3,
        "{codes:?}"
    );
}

/// The other side of finding 3: a separate REST edge still forwards its visitors'
/// addresses to a remote core, which believes them only with the shared secret.
#[tokio::test]
async fn a_separate_edge_forwards_addresses_only_with_the_shared_secret() {
    const SECRET: &str = "an-edge-secret-of-thirty-two-bytes-or-more";
    for (secret, believed) in [(Some(SECRET), true), (None, false)] {
        let db = TestDb::create().await;
        let mut core_args = vec!["--role", "core", "--auth-failures-per-minute", "2"];
        let mut edge_args = vec!["--trusted-proxies", "127.0.0.1"];
        if let Some(secret) = secret {
            core_args.extend(["--edge-secret", secret]);
            edge_args.extend(["--edge-secret", secret]);
        }
        let core = Formsd::start(&serve_args(&db.url, &core_args)).await;
        let edge = Formsd::start(&edge_serve_args(&core.grpc_url(), &edge_args)).await;
        let app = TestApp::from_parts(edge, db).await;
        assert_eq!(failures_before_throttled(&app, "198.51.100.1").await, 2);
        let second = failures_before_throttled(&app, "198.51.100.2").await;
        assert_eq!(
            second,
            if believed { 2 } else { 0 },
            "a second visitor behind the edge, secret {secret:?}"
        );
    }
}
