//! PostgreSQL blinking under a running `formsd`: through a TCP proxy the test can cut,
//! requests are answered 503 SERVICE_UNAVAILABLE (never 500), `GET /readyz` says
//! unavailable, and both recover by themselves when the database is back.

use crate::helpers::*;
use crate::support::eventually;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

/// A TCP proxy to PostgreSQL that can drop every connection and refuse new ones.
struct PgProxy {
    addr: SocketAddr,
    open: Arc<AtomicBool>,
    piped: Arc<Mutex<Vec<AbortHandle>>>,
}

impl PgProxy {
    async fn start(target: SocketAddr) -> PgProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let open = Arc::new(AtomicBool::new(true));
        let piped = Arc::new(Mutex::new(Vec::new()));
        let (gate, tasks) = (open.clone(), piped.clone());
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !gate.load(Ordering::SeqCst) {
                    continue; // dropped: the database "is down"
                }
                let task = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                tasks.lock().expect("lock").push(task.abort_handle());
            }
        });
        PgProxy { addr, open, piped }
    }

    fn cut(&self) {
        self.open.store(false, Ordering::SeqCst);
        for task in self.piped.lock().expect("lock").drain(..) {
            task.abort();
        }
    }

    fn restore(&self) {
        self.open.store(true, Ordering::SeqCst);
    }
}

async fn status_of(app: &TestApp, path: &str, key: &str) -> (u16, String) {
    let reply = app
        .client
        .get(format!("{}{path}", app.http_base))
        .header("x-api-key", key)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .expect("an answer, not a hang");
    (
        reply.status().as_u16(),
        reply.text().await.unwrap_or_default(),
    )
}

async fn ready(app: &TestApp) -> u16 {
    let origin = app.http_base.trim_end_matches("/api/v1");
    app.client
        .get(format!("{origin}/readyz"))
        .send()
        .await
        .expect("readyz answers")
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_database_outage_is_503_and_recovers() {
    let db = TestDb::create().await;
    let Ok(url) = url::Url::parse(&db.url) else {
        panic!("test database URL {} does not parse", db.url);
    };
    let target = match (url.host_str(), url.port_or_known_default()) {
        (Some(host), Some(port)) if !host.is_empty() => tokio::net::lookup_host((host, port))
            .await
            .expect("resolving the database host")
            .next()
            .expect("an address"),
        _ => {
            eprintln!(
                "SKIPPED: the test database is not reached over TCP ({})",
                db.url
            );
            return;
        }
    };
    let proxy = PgProxy::start(target).await;
    let mut proxied = url.clone();
    proxied.set_ip_host(proxy.addr.ip()).expect("host");
    proxied.set_port(Some(proxy.addr.port())).expect("port");
    let server = Formsd::start(&serve_args(proxied.as_str(), &[])).await;
    let app = TestApp::from_parts(server, db).await;
    let key = app.key(PRO, ALL).await;
    assert_eq!(status_of(&app, "/forms", &key).await.0, 200);
    assert_eq!(ready(&app).await, 200);

    proxy.cut();
    let started = Instant::now();
    let (status, body) = status_of(&app, "/forms", &key).await;
    eprintln!(
        "answer during the outage after {:?}: {status}",
        started.elapsed()
    );
    assert_eq!(status, 503, "{body}\n{}", app.logs().text());
    assert!(body.contains("\"code\":\"SERVICE_UNAVAILABLE\""), "{body}");
    eventually(
        "readyz says unavailable",
        Duration::from_secs(20),
        || async { (ready(&app).await == 503).then_some(()) },
    )
    .await;
    let logs = app.logs().text();
    assert!(!logs.contains("internal failure"), "{logs}");

    proxy.restore();
    eventually("requests served again", Duration::from_secs(30), || async {
        (status_of(&app, "/forms", &key).await.0 == 200).then_some(())
    })
    .await;
    eventually("ready again", Duration::from_secs(20), || async {
        (ready(&app).await == 200).then_some(())
    })
    .await;
}
