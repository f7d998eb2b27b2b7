//! Helpers of the responses, idempotency and webhooks suites (on top of harness.rs): a
//! recording HTTP receiver for webhook deliveries, the `formsd` command line, polling
//! with a deadline, published forms, gRPC requests with a key, signatures, a TCP proxy
//! to PostgreSQL that a test can cut or freeze.

use crate::harness::{TestApp, formsd_command};
use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use base64::{Engine, engine::general_purpose::STANDARD};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use std::future::Future;
use std::process::Stdio;
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------
// Polling
// ---------------------------------------------------------------------------------------

/// Polls `probe` every 50 ms until it answers `Some`, or panics naming `what` after
/// `timeout`.
/// How long a test waits for a change to reach an instance by notification. Instances
/// promise about a second; a loaded machine may take longer, so the deadline is generous,
/// yet far below the 60 s after which cached keys expire anyway: a change that arrives
/// only by expiry still fails.
pub const NOTIFIED: Duration = Duration::from_secs(15);

pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `eventually` (30 s) for a wait staged on the instance and its database: on timeout
/// the panic shows what they were doing instead (the database's backends and the
/// create path's metrics, if the instance serves them), so that a staging that went
/// another way says which.
pub async fn staged<F, Fut>(app: &TestApp, what: &str, mut probe: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let timeout = Duration::from_secs(30);
    let deadline = Instant::now() + timeout;
    while !probe().await {
        if Instant::now() >= deadline {
            let metrics = match app.server.metrics_addr {
                Some(_) => metrics_text(app).await,
                None => String::new(),
            };
            let create_path: String = metrics
                .lines()
                .filter(|line| {
                    line.starts_with("formsd_one_statement") || line.starts_with("formsd_create")
                })
                .map(|line| format!("  {line}\n"))
                .collect();
            panic!(
                "timed out after {timeout:?} waiting for {what}\n\
                 the database's backends (pid, state, wait, blocking pids, query):\n{}\
                 the create path's metrics:\n{create_path}",
                activity(app).await
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// ---------------------------------------------------------------------------------------
// The formsd command line
// ---------------------------------------------------------------------------------------

/// Runs `formsd --database-url URL <args>`; asserts success and returns stdout.
pub async fn formsd_cli(database_url: &str, args: &[&str]) -> String {
    let output = formsd_command()
        .arg("--database-url")
        .arg(database_url)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .await
        .expect("running formsd");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "formsd {args:?} failed ({}):\nstdout: {stdout}\nstderr: {stderr}",
        output.status,
    );
    // An operator's command prints its answer, not the database's chatter.
    assert!(
        !stderr.contains("_sqlx_migrations"),
        "formsd {args:?} logged the migrations' notice: {stderr}"
    );
    stdout
}

/// Creates a subscription of the form to `events` at `url`; returns data.webhook (with
/// its secret).
pub async fn subscribe(
    app: &TestApp,
    key: &str,
    form_id: &str,
    url: &str,
    events: &[&str],
) -> Value {
    let body = json!({"name": "Receiver", "url": url, "events": events});
    let path = format!("/forms/{form_id}/webhooks");
    app.post(&path, key, &body).await.ok(201)["webhook"].clone()
}

/// `formsd webhooks deliveries ID`: one JSON object per delivery, newest first.
pub async fn cli_deliveries(database_url: &str, webhook_id: &str) -> Vec<Value> {
    formsd_cli(database_url, &["webhooks", "deliveries", webhook_id])
        .await
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("delivery line {l:?}: {e}")))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Forms
// ---------------------------------------------------------------------------------------

/// The fields of the contact form most tests use: name (short_text, required), email
/// (email, required), age (number), bio (long_text).
pub fn contact_fields() -> Value {
    json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "email", "label": "Email", "required": true},
        {"type": "number", "label": "Age", "required": false},
        {"type": "long_text", "label": "Bio", "required": false},
    ])
}

/// A form created with `fields` (and `settings`, if any), then published; returns the
/// form as the update answered it.
pub async fn published_form(app: &TestApp, key: &str, fields: Value, settings: Value) -> Value {
    let mut body = json!({"title": "Contact", "fields": fields});
    if !settings.is_null() {
        body["settings"] = settings;
    }
    let form = app.create_form(key, &body).await;
    let id = form["id"].as_str().expect("form id");
    let reply = app
        .put(
            &format!("/forms/{id}"),
            key,
            &json!({"status": "published"}),
        )
        .await;
    let published = reply.ok(200)["form"].clone();
    assert_eq!(published["status"], "published");
    published
}

/// The ids of a form's fields, in order.
pub fn field_ids(form: &Value) -> Vec<String> {
    form["fields"]
        .as_array()
        .expect("fields array")
        .iter()
        .map(|f| f["id"].as_str().expect("field id").to_owned())
        .collect()
}

/// Valid answers to the contact form, the name numbered by `n`.
pub fn contact_answers(fields: &[String], n: usize) -> Value {
    json!({fields[0].clone(): format!("Person {n}"), fields[1].clone(): format!("p{n}@example.com")})
}

/// Number of rows of a query returning one bigint.
pub async fn count(app: &TestApp, sql: &'static str, bind: &str) -> i64 {
    let uuid = uuid::Uuid::parse_str(bind).expect("uuid bind");
    let (n,): (i64,) = sqlx::query_as(sql)
        .bind(uuid)
        .fetch_one(&app.pool)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    n
}

// ---------------------------------------------------------------------------------------
// gRPC
// ---------------------------------------------------------------------------------------

/// A gRPC request carrying `key` as `x-api-key`.
pub fn grpc_request<T>(message: T, key: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request
        .metadata_mut()
        .insert("x-api-key", key.parse().expect("key as metadata"));
    request
}

// ---------------------------------------------------------------------------------------
// Signatures
// ---------------------------------------------------------------------------------------

pub fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("any key length");
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().to_vec()
}

/// SPEC `X-Webhook-Signature`: `sha256=` + hex HMAC of the body keyed with the secret.
pub fn spec_signature(secret: &str, body: &[u8]) -> String {
    format!(
        "sha256={}",
        hex::encode(hmac_sha256(secret.as_bytes(), &[body]))
    )
}

/// Standard Webhooks `webhook-signature` (`v1,` + base64 HMAC of `id.ts.body`, keyed
/// with the base64-decoded secret after `whsec_`).
pub fn standard_signature(secret: &str, id: &str, ts: &str, body: &[u8]) -> String {
    let key = STANDARD
        .decode(secret.strip_prefix("whsec_").expect("whsec_ prefix"))
        .expect("secret is base64 after whsec_");
    let sig = hmac_sha256(&key, &[id.as_bytes(), b".", ts.as_bytes(), b".", body]);
    format!("v1,{}", STANDARD.encode(sig))
}

// ---------------------------------------------------------------------------------------
// A webhook receiver on loopback
// ---------------------------------------------------------------------------------------

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Hit {
    pub method: Method,
    pub path: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Hit {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .unwrap_or_else(|| panic!("delivery without {name}: {:?}", self.headers))
            .to_str()
            .expect("header is text")
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("delivery body is JSON")
    }

    /// The delivery id (`webhook-id`).
    pub fn delivery_id(&self) -> String {
        self.header("webhook-id").to_owned()
    }

    pub fn event(&self) -> String {
        self.header("x-webhook-event").to_owned()
    }
}

#[derive(Default)]
struct ReceiverState {
    hits: Mutex<Vec<Hit>>,
    status: AtomicU16,
    delay_ms: AtomicU64,
    in_flight: AtomicUsize,
    /// The most requests answered at once so far.
    most_in_flight: AtomicUsize,
}

/// An HTTP server on 127.0.0.1 recording every request (method, path, headers, raw
/// body) and answering with a configurable status after an optional delay.
pub struct Receiver {
    pub base: String,
    state: Arc<ReceiverState>,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    pub async fn start() -> Receiver {
        let state = Arc::new(ReceiverState::default());
        state.status.store(200, Ordering::SeqCst);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding the receiver");
        let addr = listener.local_addr().expect("receiver address");
        let shared = state.clone();
        let app = axum::Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let state = shared.clone();
                async move {
                    state.hits.lock().expect("hits lock").push(Hit {
                        method,
                        path: uri.path().to_owned(),
                        headers,
                        body,
                    });
                    let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    state.most_in_flight.fetch_max(now, Ordering::SeqCst);
                    let delay = state.delay_ms.load(Ordering::SeqCst);
                    if delay > 0 {
                        tokio::time::sleep(Duration::from_millis(delay)).await;
                    }
                    state.in_flight.fetch_sub(1, Ordering::SeqCst);
                    let status = state.status.load(Ordering::SeqCst);
                    (
                        StatusCode::from_u16(status).expect("valid status"),
                        "receiver says hi",
                    )
                }
            },
        );
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Receiver {
            base: format!("http://{addr}"),
            state,
            task,
        }
    }

    /// The receiver's URL for `path` (starting with '/').
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn set_status(&self, status: u16) {
        self.state.status.store(status, Ordering::SeqCst);
    }

    pub fn set_delay(&self, delay: Duration) {
        let ms = u64::try_from(delay.as_millis()).expect("delay in ms");
        self.state.delay_ms.store(ms, Ordering::SeqCst);
    }

    /// Requests being answered right now (received, delay not over).
    pub fn in_flight(&self) -> usize {
        self.state.in_flight.load(Ordering::SeqCst)
    }

    /// The most requests answered at once so far.
    pub fn most_in_flight(&self) -> usize {
        self.state.most_in_flight.load(Ordering::SeqCst)
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.state.hits.lock().expect("hits lock").clone()
    }

    pub fn hits_at(&self, path: &str) -> Vec<Hit> {
        self.hits().into_iter().filter(|h| h.path == path).collect()
    }

    /// Waits until at least `n` requests arrived at `path`; returns them all.
    pub async fn wait_for(&self, path: &str, n: usize, timeout: Duration) -> Vec<Hit> {
        eventually(&format!("{n} deliveries at {path}"), timeout, || async {
            let hits = self.hits_at(path);
            (hits.len() >= n).then_some(hits)
        })
        .await
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// `path?query`, the query encoded (reqwest is built without its `query` feature).
pub fn with_query(path: &str, query: &[(&str, &str)]) -> String {
    let encoded = serde_urlencoded::to_string(query).expect("encoding a query");
    if encoded.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{encoded}")
    }
}

/// Holds the form's row lock, as a submission storing a response does, until dropped.
pub async fn lock_form(
    pool: &sqlx::PgPool,
    form_id: &str,
) -> sqlx::Transaction<'static, sqlx::Postgres> {
    let mut tx = pool.begin().await.expect("begin");
    sqlx::query("SELECT id FROM forms WHERE id = $1::uuid FOR UPDATE")
        .bind(form_id)
        .execute(&mut *tx)
        .await
        .expect("lock the form");
    tx
}

/// The create path's shared statements (`insert_all_if_current`, whose text begins
/// `WITH batch AS`) of the test's database that are queued for a row of `table`:
/// PostgreSQL queues the waiters for a row by its tuple lock, held by the first and
/// waited for by the others. Only those: the instance's housekeeping waits for rows
/// too (the rollup's first row of a form checks its key against the form's row, and so
/// waits behind the test's `FOR UPDATE`), and a statement can wait a moment for
/// another row than the one the test holds.
pub async fn statements_queued_for(app: &TestApp, table: &str) -> i64 {
    let (queued,): (i64,) = sqlx::query_as(
        "SELECT count(DISTINCT l.pid) FROM pg_locks l
           JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE a.datname = current_database() AND a.query LIKE 'WITH batch AS%'
            AND l.locktype = 'tuple' AND l.relation = $1::regclass",
    )
    .bind(table)
    .fetch_one(&app.pool)
    .await
    .expect("pg_locks");
    queued
}

/// The backends of the test's database other than the asking one, one line each: pid,
/// state, what it waits for, the backends it waits behind, the start of its query.
/// What a staged wait that timed out was looking at.
pub async fn activity(app: &TestApp) -> String {
    type Row = (i32, String, String, String, String);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT pid, coalesce(state, ''),
                coalesce(wait_event_type, '') || ':' || coalesce(wait_event, ''),
                pg_blocking_pids(pid)::text,
                left(regexp_replace(query, '\\s+', ' ', 'g'), 100)
           FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()
          ORDER BY backend_start",
    )
    .fetch_all(&app.pool)
    .await
    .expect("pg_stat_activity");
    rows.into_iter()
        .map(|(pid, state, wait, behind, query)| {
            format!("  {pid} {state} {wait} behind {behind}: {query}\n")
        })
        .collect()
}

/// The text of the instance's Prometheus endpoint (`--metrics-addr`).
pub async fn metrics_text(app: &TestApp) -> String {
    scrape(&app.server).await
}

/// The text of `server`'s Prometheus endpoint (`--metrics-addr`).
pub async fn scrape(server: &crate::harness::Formsd) -> String {
    let metrics = server.metrics_addr.expect("metrics address");
    crate::harness::http_client()
        .get(format!("http://{metrics}/metrics"))
        .send()
        .await
        .expect("scrape")
        .text()
        .await
        .expect("metrics text")
}

/// The value of the series `name{labels}` (labels as rendered, in order) in a scrape.
pub fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.trim().parse().ok())
}

// ---------------------------------------------------------------------------------------
// A TCP proxy to PostgreSQL
// ---------------------------------------------------------------------------------------

/// One connection through the proxy.
struct Link {
    /// The proxy's own port towards the server: `client_port` in `pg_stat_activity`.
    upstream_port: u16,
    /// While set, bytes are held in both directions and the sockets stay open.
    frozen: Arc<std::sync::atomic::AtomicBool>,
    task: tokio::task::AbortHandle,
}

/// A TCP proxy to PostgreSQL that can cut the server off (every connection dropped, new
/// ones accepted and never answered, as behind a network partition: a connect waits
/// for its deadline), or freeze one connection: its bytes are held and its sockets kept
/// open, as a link that died silently (neither end is told).
pub struct PgProxy {
    pub addr: std::net::SocketAddr,
    open: Arc<std::sync::atomic::AtomicBool>,
    links: Arc<Mutex<Vec<Link>>>,
}

/// Copies `from` to `to`, holding what it read while `frozen` is set.
async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    frozen: Arc<std::sync::atomic::AtomicBool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = vec![0; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        while frozen.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

impl PgProxy {
    /// A proxy to the server of `database_url` and that URL through the proxy; `None`
    /// when the server is not reached over TCP (a unix socket).
    pub async fn in_front_of(database_url: &str) -> Option<(PgProxy, String)> {
        let url = url::Url::parse(database_url).ok()?;
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return None;
        };
        if host.is_empty() {
            return None;
        }
        let target = tokio::net::lookup_host((host, port)).await.ok()?.next()?;
        let proxy = PgProxy::start(target).await;
        let mut proxied = url.clone();
        proxied.set_ip_host(proxy.addr.ip()).ok()?;
        proxied.set_port(Some(proxy.addr.port())).ok()?;
        Some((proxy, proxied.to_string()))
    }

    async fn start(target: std::net::SocketAddr) -> PgProxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let open = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let links = Arc::new(Mutex::new(Vec::new()));
        let (gate, all) = (open.clone(), links.clone());
        tokio::spawn(async move {
            let mut unanswered = Vec::new();
            while let Ok((client, _)) = listener.accept().await {
                if !gate.load(Ordering::SeqCst) {
                    unanswered.push(client); // the database "is down": silence
                    continue;
                }
                unanswered.clear();
                let Ok(server) = tokio::net::TcpStream::connect(target).await else {
                    continue;
                };
                let upstream_port = server.local_addr().map_or(0, |a| a.port());
                let frozen = Arc::new(std::sync::atomic::AtomicBool::new(false));
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                let task = tokio::spawn({
                    let frozen = frozen.clone();
                    async move {
                        tokio::join!(
                            pipe(client_read, server_write, frozen.clone()),
                            pipe(server_read, client_write, frozen)
                        );
                    }
                });
                all.lock().expect("links lock").push(Link {
                    upstream_port,
                    frozen,
                    task: task.abort_handle(),
                });
            }
        });
        PgProxy { addr, open, links }
    }

    /// The server is cut off: every connection is dropped, new ones are never answered.
    pub fn cut(&self) {
        self.open.store(false, Ordering::SeqCst);
        for link in self.links.lock().expect("links lock").drain(..) {
            link.task.abort();
        }
    }

    /// The server is back: new connections go through again.
    pub fn restore(&self) {
        self.open.store(true, Ordering::SeqCst);
    }

    /// Freezes the connection whose port towards the server is `upstream_port`; says
    /// whether there is one.
    pub fn freeze(&self, upstream_port: u16) -> bool {
        let links = self.links.lock().expect("links lock");
        let link = links.iter().find(|l| l.upstream_port == upstream_port);
        if let Some(link) = link {
            link.frozen.store(true, Ordering::SeqCst);
        }
        link.is_some()
    }
}

/// Drops a form's stored summary tally (as a delete of a response does), for tests that
/// move responses' times by SQL: the rollup counts a form's responses in the order they
/// became visible, which such an edit breaks.
pub async fn restart_tally(app: &TestApp, form_id: &str) {
    sqlx::query(
        "INSERT INTO response_rollups (form_id) VALUES ($1::uuid)
         ON CONFLICT (form_id) DO UPDATE SET through_at = NULL, tally = NULL",
    )
    .bind(form_id)
    .execute(&app.pool)
    .await
    .expect("restart the form's tally");
}

/// A small seeded generator (64-bit LCG): the same responses on every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Runs a browser script of `tests/browser/` under node (`args`: the script's path, then
/// its own arguments) and returns the JSON it prints, once it has exited well.
pub async fn run_browser_script(args: &[&dyn AsRef<std::ffi::OsStr>]) -> serde_json::Value {
    let output = tokio::process::Command::new("node")
        .args(args.iter().map(|a| a.as_ref()))
        .output()
        .await
        .expect("running node");
    assert!(
        output.status.success(),
        "browser script failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the browser script prints JSON")
}
