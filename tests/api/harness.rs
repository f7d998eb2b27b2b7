//! The harness: a private database per test (cloned from a migrated template), the real
//! `formsd` binary on ports 0 with its stderr captured, API keys made through the
//! library, and small HTTP helpers that check the SPEC envelope and headers.

use forms::accounts::{Plan, Scope, Scopes, store};
use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::postgres::{PgConnection, PgPool, PgPoolOptions};
use sqlx::{Connection, Executor};
use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{OnceCell, mpsc};
use uuid::Uuid;

pub use reqwest::Method;

/// How long `formsd` waits at start for a database server that takes writes: the
/// default of `--db-start-timeout`, which the tests leave as it is.
pub const DB_START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long `formsd` may take to report ready: as long as it waits for the database
/// (a server slowed by a loaded machine is waited for, by formsd and by the tests
/// alike), and the rest of its start after that.
const STARTUP_TIMEOUT: Duration = DB_START_TIMEOUT.saturating_add(Duration::from_secs(30));

// ---------------------------------------------------------------------------------------
// Databases
// ---------------------------------------------------------------------------------------

/// The server of [`admin_url`], once chosen.
static ADMIN_URL: OnceCell<String> = OnceCell::const_new();

/// Makes `url` the server [`admin_url`] names, before anything asked for it: the
/// benchmarks measure on a server of their own (`benches/common`). False when a server
/// was chosen already.
pub fn use_server(url: String) -> bool {
    ADMIN_URL.set(url).is_ok()
}

/// The server the tests use: the one given to [`use_server`], else
/// FORMS_TEST_DATABASE_URL, else DATABASE_URL, else a private cluster under
/// target/test-pg (started once, reused by later runs, left running).
pub async fn admin_url() -> &'static str {
    ADMIN_URL
        .get_or_init(|| async {
            for var in ["FORMS_TEST_DATABASE_URL", "DATABASE_URL"] {
                if let Ok(url) = std::env::var(var)
                    && !url.trim().is_empty()
                {
                    return url;
                }
            }
            let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/target/test-pg"));
            let pg = forms::db::embedded::EmbeddedPostgres::start(dir)
                .await
                .unwrap_or_else(|e| panic!("starting the embedded test cluster in {dir:?}: {e}"));
            // Deliberately not stopped: later test processes reuse it.
            pg.url()
        })
        .await
}

/// [`admin_url`], also remembered for use outside async code (drops).
async fn admin_url_remembered() -> &'static str {
    let url = admin_url().await;
    *ADMIN_URL_COPY.lock().expect("admin url lock") = Some(url.to_owned());
    url
}

/// `url` with its database name replaced by `database` (works for TCP and for
/// unix-socket URLs, whose host is in the query string).
pub fn url_with_database(url: &str, database: &str) -> String {
    let scheme_end = url.find("://").map_or(0, |i| i + 3);
    let (head, rest) = url.split_at(scheme_end);
    let path_start = rest.find('/').unwrap_or(rest.len());
    let (authority, after) = rest.split_at(path_start);
    let query = after.find('?').map_or("", |i| &after[i..]);
    format!("{head}{authority}/{database}{query}")
}

/// Runs one statement built at run time (database names cannot be bound parameters;
/// every name here is made by the harness).
async fn exec(conn: &mut PgConnection, sql: String) -> Result<(), sqlx::Error> {
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
        .execute(conn)
        .await
        .map(drop)
}

pub async fn admin_connection() -> PgConnection {
    let url = admin_url().await;
    let mut last = None;
    for _ in 0..20 {
        match PgConnection::connect(url).await {
            Ok(conn) => return conn,
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("connecting to the test server: {last:?}")
}

/// Hash of the migrations directory: a changed migration gets a fresh template.
fn migrations_hash() -> String {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"));
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("reading migrations/")
        .map(|e| e.expect("migrations entry").path())
        .collect();
    entries.sort();
    let mut hasher = Sha256::new();
    for path in entries {
        hasher.update(path.file_name().expect("file name").as_encoded_bytes());
        hasher.update([0]);
        hasher.update(std::fs::read(&path).expect("reading a migration"));
        hasher.update([0]);
    }
    hex::encode(&hasher.finalize()[..8])
}

/// The migrated template database, created once per server (under an advisory lock,
/// so that concurrent test processes do not race).
async fn template() -> &'static str {
    static TEMPLATE: OnceCell<String> = OnceCell::const_new();
    TEMPLATE
        .get_or_init(|| async {
            let name = format!("forms_tpl_{}", migrations_hash());
            let mut conn = admin_connection().await;
            conn.execute("SELECT pg_advisory_lock(727001002)")
                .await
                .expect("template lock");
            let exists: Option<(i32,)> =
                sqlx::query_as("SELECT 1 FROM pg_database WHERE datname = $1")
                    .bind(&name)
                    .fetch_optional(&mut conn)
                    .await
                    .expect("looking up the template");
            if exists.is_none() {
                // Built under another name and renamed when complete, so that a run
                // interrupted mid-migration never leaves a half-made template.
                let building = format!("{name}_build");
                exec(
                    &mut conn,
                    format!("DROP DATABASE IF EXISTS \"{building}\" WITH (FORCE)"),
                )
                .await
                .expect("dropping a stale template build");
                exec(&mut conn, format!("CREATE DATABASE \"{building}\""))
                    .await
                    .expect("creating the template");
                let pool = PgPoolOptions::new()
                    .max_connections(1)
                    .connect(&url_with_database(admin_url().await, &building))
                    .await
                    .expect("connecting to the template");
                forms::db::migrate(&pool)
                    .await
                    .expect("migrating the template");
                pool.close().await;
                exec(
                    &mut conn,
                    format!("ALTER DATABASE \"{building}\" RENAME TO \"{name}\""),
                )
                .await
                .expect("renaming the template");
            }
            conn.execute("SELECT pg_advisory_unlock(727001002)")
                .await
                .expect("template unlock");
            let _ = conn.close().await;
            name
        })
        .await
}

/// A database of one test, dropped (forcibly) when the last holder lets go.
pub struct TestDb {
    pub name: String,
    pub url: String,
    /// Whether it is on the tests' server, and so dropped here; a database on a server
    /// a test made goes with that server.
    on_test_server: bool,
}

impl TestDb {
    pub async fn create() -> Arc<TestDb> {
        admin_url_remembered().await;
        let template = template().await;
        let name = format!("forms_test_{}", Uuid::new_v4().simple());
        let mut conn = admin_connection().await;
        let sql = format!("CREATE DATABASE \"{name}\" TEMPLATE \"{template}\"");
        let mut attempt = 0;
        loop {
            match exec(&mut conn, sql.clone()).await {
                Ok(_) => break,
                Err(e) if attempt < 20 && e.to_string().contains("being accessed") => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(100 * attempt)).await;
                }
                Err(e) => panic!("creating test database {name}: {e}"),
            }
        }
        let _ = conn.close().await;
        let url = url_with_database(admin_url().await, &name);
        Arc::new(TestDb {
            name,
            url,
            on_test_server: true,
        })
    }

    /// The database at `url`, on a server the test made (and removes with it).
    pub fn elsewhere(name: &str, url: String) -> Arc<TestDb> {
        Arc::new(TestDb {
            name: name.to_owned(),
            url,
            on_test_server: false,
        })
    }

    /// A small pool on this database.
    pub async fn pool(&self) -> PgPool {
        PgPoolOptions::new()
            .max_connections(3)
            .connect(&self.url)
            .await
            .expect("connecting to the test database")
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if !self.on_test_server {
            return;
        }
        // Best effort, on a runtime of its own: we may be inside a test's runtime.
        let name = self.name.clone();
        let Some(admin) = ADMIN_URL_COPY.lock().ok().and_then(|u| u.clone()) else {
            return;
        };
        let _ = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                if let Ok(mut conn) = PgConnection::connect(&admin).await {
                    let drop = format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
                    let _ = exec(&mut conn, drop).await;
                    let _ = conn.close().await;
                }
            });
        })
        .join();
    }
}

/// The admin URL for use outside async code (drops).
static ADMIN_URL_COPY: Mutex<Option<String>> = Mutex::new(None);

// ---------------------------------------------------------------------------------------
// The formsd process
// ---------------------------------------------------------------------------------------

/// Every stderr line of a `formsd` process, in order.
///
/// A line may reach the test after the reply it belongs to: formsd writes its logs from
/// a thread of its own, and they are read here from a pipe. Tests that look for a line
/// wait for it (`wait_for`, `logged`); after `terminate`, every line is in.
#[derive(Clone, Default)]
pub struct Logs(Arc<Mutex<Vec<String>>>, Arc<std::sync::atomic::AtomicBool>);

/// Longest wait for a log line to arrive.
const LOG_WAIT: Duration = Duration::from_secs(10);

impl Logs {
    fn push(&self, line: String) {
        self.0.lock().expect("logs lock").push(line);
    }

    /// The pipe is at its end: the process has written its last line.
    fn close(&self) {
        self.1.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    fn closed(&self) -> bool {
        self.1.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Polls `probe` until it says it is done, the process has written its last line,
    /// or [`LOG_WAIT`] is over; returns what it found last.
    async fn settle<T>(&self, probe: impl Fn(&Self) -> (bool, T)) -> T {
        let deadline = tokio::time::Instant::now() + LOG_WAIT;
        loop {
            let (done, found) = probe(self);
            if done || self.closed() || tokio::time::Instant::now() >= deadline {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits (bounded) until the text contains `needle`; says whether it does.
    pub async fn wait_for(&self, needle: &str) -> bool {
        self.settle(|logs| {
            let found = logs.text().contains(needle);
            (found, found)
        })
        .await
    }

    /// The lines of the request `request_id` (as `lines_of_request`), once one of them
    /// carries `message` or the wait is over.
    pub async fn logged(&self, request_id: &str, message: &str) -> Vec<Value> {
        self.settle(|logs| {
            let lines = logs.lines_of_request(request_id);
            (
                lines.iter().any(|l| l["fields"]["message"] == message),
                lines,
            )
        })
        .await
    }

    /// Waits (bounded) until the process's last line is in.
    async fn ended(&self) {
        self.settle(|logs| (logs.closed(), ())).await;
    }

    /// All lines so far, joined by newlines.
    pub fn text(&self) -> String {
        self.0.lock().expect("logs lock").join("\n")
    }

    /// The JSON lines logged within the request whose id is `request_id` (in any of
    /// their spans).
    pub fn lines_of_request(&self, request_id: &str) -> Vec<Value> {
        assert!(!request_id.is_empty(), "no request id");
        self.json_lines()
            .into_iter()
            .filter(|l| {
                // "span" is the line's own span, "spans" the ones it was logged in.
                l["span"]["request_id"] == request_id
                    || l["spans"]
                        .as_array()
                        .is_some_and(|spans| spans.iter().any(|s| s["request_id"] == request_id))
            })
            .collect()
    }

    /// The lines so far parsed as JSON (lines that are not JSON are skipped).
    pub fn json_lines(&self) -> Vec<Value> {
        self.0
            .lock()
            .expect("logs lock")
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

/// A `formsd` command with a clean environment: nothing from DATABASE_URL or FORMS_*
/// (except FORMS_PG_BIN, which only locates PostgreSQL) leaks in from the test runner.
pub fn formsd_command() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_formsd"));
    cmd.env_remove("DATABASE_URL");
    for (name, _) in std::env::vars_os() {
        if let Some(name) = name.to_str()
            && name.starts_with("FORMS_")
            && name != "FORMS_PG_BIN"
        {
            cmd.env_remove(name);
        }
    }
    cmd.env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .kill_on_drop(true);
    cmd
}

/// A running `formsd`.
pub struct Formsd {
    pub child: Child,
    pub logs: Logs,
    pub http_addr: Option<SocketAddr>,
    pub grpc_addr: Option<SocketAddr>,
    pub metrics_addr: Option<SocketAddr>,
}

impl Formsd {
    /// Runs `formsd <args>` and waits until it reports ready with the addresses its
    /// role listens on (both for `--role all`, the gRPC one for `core`, the REST one for
    /// `edge`).
    pub async fn start(args: &[String]) -> Formsd {
        Self::start_with(formsd_command(), args).await
    }

    pub async fn start_with(mut cmd: Command, args: &[String]) -> Formsd {
        cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawning formsd");
        let stderr = child.stderr.take().expect("piped stderr");
        let stdout = child.stdout.take().expect("piped stdout");
        let logs = Logs::default();
        let sink = logs.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                sink.push(line);
            }
            sink.close();
        });
        // formsd reports readiness as one JSON line on stdout, with its addresses.
        let (tx, mut rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && v["ready"] == true
                {
                    let _ = tx.send(v);
                }
            }
        });
        let ready = tokio::time::timeout(STARTUP_TIMEOUT, rx.recv()).await;
        let Ok(Some(ready)) = ready else {
            let _ = child.start_kill();
            let status = child.wait().await;
            panic!(
                "formsd {args:?} did not report ready ({}; exit: {status:?}); stderr:\n{}",
                if ready.is_err() {
                    "timed out"
                } else {
                    "it stopped"
                },
                logs.text()
            );
        };
        let addr = |name: &str| -> Option<SocketAddr> {
            ready[name].as_str().map(|a| {
                a.parse()
                    .unwrap_or_else(|e| panic!("{name} {a:?} in {ready}: {e}"))
            })
        };
        Formsd {
            http_addr: addr("http_addr"),
            grpc_addr: addr("grpc_addr"),
            metrics_addr: addr("metrics_addr"),
            child,
            logs,
        }
    }

    pub fn http_base(&self) -> String {
        format!("http://{}/api/v1", self.http_addr.expect("REST address"))
    }

    pub fn grpc_url(&self) -> String {
        format!("http://{}", self.grpc_addr.expect("gRPC address"))
    }

    /// Sends SIGTERM and waits (bounded) for the exit status.
    pub async fn terminate(&mut self) -> std::process::ExitStatus {
        let pid = self.child.id().expect("formsd is running");
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(i32::try_from(pid).expect("pid")),
            nix::sys::signal::Signal::SIGTERM,
        )
        .expect("sending SIGTERM");
        let status = tokio::time::timeout(Duration::from_secs(30), self.child.wait())
            .await
            .unwrap_or_else(|_| panic!("formsd did not stop on SIGTERM:\n{}", self.logs.text()))
            .expect("waiting for formsd");
        // Its last lines are read to the pipe's end.
        self.logs.ended().await;
        status
    }
}

/// Arguments of `formsd serve` on ports 0 with JSON logs, on `database_url`.
pub fn serve_args(database_url: &str, extra: &[&str]) -> Vec<String> {
    let args = [
        "--database-url",
        database_url,
        "--log-format",
        "json",
        // Many instances run at once against one server: keep each pool small.
        "--db-max-connections",
        "5",
        "serve",
        "--http-addr",
        "127.0.0.1:0",
        "--grpc-addr",
        "127.0.0.1:0",
    ];
    args.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// Arguments of an edge-only `formsd serve` (no database) on a free port with JSON logs,
/// calling the core at `core_url`.
pub fn edge_serve_args(core_url: &str, extra: &[&str]) -> Vec<String> {
    let args = [
        "--log-format",
        "json",
        "serve",
        "--role",
        "edge",
        "--core-url",
        core_url,
        "--http-addr",
        "127.0.0.1:0",
    ];
    args.iter().chain(extra).map(|s| s.to_string()).collect()
}

// ---------------------------------------------------------------------------------------
// The test application
// ---------------------------------------------------------------------------------------

/// `formsd serve` on its own database, with a pool on that database and an HTTP client.
pub struct TestApp {
    pub server: Formsd,
    pub http_base: String,
    pub grpc_url: String,
    pub pool: PgPool,
    pub db: Arc<TestDb>,
    pub client: reqwest::Client,
}

impl TestApp {
    pub async fn spawn() -> TestApp {
        Self::spawn_with(&[]).await
    }

    /// With extra `serve` flags, e.g. `&["--pro-rate-limit", "3"]`.
    pub async fn spawn_with(extra: &[&str]) -> TestApp {
        let db = TestDb::create().await;
        Self::spawn_on(db, extra).await
    }

    /// Another instance on an existing database.
    pub async fn spawn_on(db: Arc<TestDb>, extra: &[&str]) -> TestApp {
        let server = Formsd::start(&serve_args(&db.url, extra)).await;
        Self::from_parts(server, db).await
    }

    /// With extra environment variables for `formsd` (e.g. RUST_LOG).
    pub async fn spawn_env(extra: &[&str], env: &[(&str, &str)]) -> TestApp {
        let db = TestDb::create().await;
        let mut cmd = formsd_command();
        cmd.envs(env.iter().copied());
        let server = Formsd::start_with(cmd, &serve_args(&db.url, extra)).await;
        Self::from_parts(server, db).await
    }

    /// A test application around a `formsd` already started on `db` (e.g. an edge).
    pub async fn from_parts(server: Formsd, db: Arc<TestDb>) -> TestApp {
        let pool = db.pool().await;
        TestApp {
            http_base: server.http_base(),
            grpc_url: server
                .grpc_addr
                .map(|a| format!("http://{a}"))
                .unwrap_or_default(),
            server,
            pool,
            db,
            client: http_client(),
        }
    }

    pub fn logs(&self) -> &Logs {
        &self.server.logs
    }

    /// A key of a new account with `plan` and `scopes`.
    pub async fn key(&self, plan: Plan, scopes: &[Scope]) -> String {
        self.new_key(plan, scopes).await.key
    }

    /// Like [`TestApp::key`], with the ids and the account name.
    pub async fn new_key(&self, plan: Plan, scopes: &[Scope]) -> TestKey {
        let account = format!("acct-{}", Uuid::new_v4().simple());
        self.key_for(&account, plan, scopes).await
    }

    /// A key of `account` (created with `plan` if new).
    pub async fn key_for(&self, account: &str, plan: Plan, scopes: &[Scope]) -> TestKey {
        self.key_expiring(account, plan, scopes, None).await
    }

    pub async fn key_expiring(
        &self,
        account: &str,
        plan: Plan,
        scopes: &[Scope],
        expires_at: Option<chrono::DateTime<chrono::Utc>>,
    ) -> TestKey {
        let created = store::create_key(
            &self.pool,
            account,
            Some(plan),
            &Scopes::new(scopes.iter().copied()),
            expires_at,
        )
        .await
        .expect("creating a key");
        TestKey {
            key: created.key,
            key_id: created.key_id,
            account: account.to_owned(),
        }
    }

    /// Every line the instance logged: it is stopped first, so that a line still on
    /// its way is in. Checks that something is absent from the logs read these.
    pub async fn logs_to_end(&mut self) -> String {
        self.server.terminate().await;
        self.logs().text()
    }

    /// A request to `{http_base}{path}` (path starts with '/').
    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.client
            .request(method, format!("{}{path}", self.http_base))
    }

    pub async fn get(&self, path: &str, key: &str) -> Reply {
        send(self.request(Method::GET, path).header("x-api-key", key)).await
    }

    pub async fn delete(&self, path: &str, key: &str) -> Reply {
        send(self.request(Method::DELETE, path).header("x-api-key", key)).await
    }

    pub async fn post(&self, path: &str, key: &str, body: &Value) -> Reply {
        send(
            self.request(Method::POST, path)
                .header("x-api-key", key)
                .json(body),
        )
        .await
    }

    pub async fn put(&self, path: &str, key: &str, body: &Value) -> Reply {
        send(
            self.request(Method::PUT, path)
                .header("x-api-key", key)
                .json(body),
        )
        .await
    }

    /// Creates a form and returns it (data.form), asserting 201.
    pub async fn create_form(&self, key: &str, body: &Value) -> Value {
        let reply = self.post("/forms", key, body).await;
        reply.ok(201)["form"].clone()
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        // The database goes when the last TestApp on it is dropped (TestDb::drop).
        let _ = self.server.child.start_kill();
    }
}

/// A key made for a test.
#[derive(Debug, Clone)]
pub struct TestKey {
    pub key: String,
    pub key_id: Uuid,
    pub account: String,
}

pub fn http_client() -> reqwest::Client {
    // reqwest is built without a default TLS provider (the service installs ring).
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("HTTP client")
}

// ---------------------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------------------

/// An HTTP reply, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
    /// The body as JSON, or Null when it is empty or not JSON.
    pub body: Value,
}

pub async fn send(request: reqwest::RequestBuilder) -> Reply {
    let response = request.send().await.expect("sending a request");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.expect("reading a reply");
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Reply {
        status,
        headers,
        text,
        body,
    }
}

pub const RATE_HEADERS: [&str; 3] = [
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
];

impl Reply {
    /// A header as text; panics when it is missing.
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .unwrap_or_else(|| panic!("header {name} missing in {} {}", self.status, self.text))
            .to_str()
            .expect("header is text")
    }

    /// A header as an integer; panics when it is missing or not one.
    pub fn header_u64(&self, name: &str) -> u64 {
        let raw = self.header(name);
        raw.parse()
            .unwrap_or_else(|_| panic!("header {name} is not an integer: {raw:?}"))
    }

    /// Checks the headers every reply carries: X-RateLimit-* integers and a UUID
    /// X-Request-Id.
    pub fn assert_common_headers(&self) {
        for name in RATE_HEADERS {
            self.header_u64(name);
        }
        assert!(
            self.header_u64("x-ratelimit-remaining") <= self.header_u64("x-ratelimit-limit"),
            "remaining above limit"
        );
        assert_uuid(self.header("x-request-id"));
    }

    /// Asserts a success reply with `status` and returns its data.
    pub fn ok(&self, status: u16) -> &Value {
        assert_eq!(self.status, status, "unexpected reply: {}", self.text);
        self.assert_common_headers();
        assert_eq!(self.body["success"], Value::Bool(true), "{}", self.text);
        let keys: Vec<&String> = self.body.as_object().expect("object body").keys().collect();
        assert_eq!(keys, ["success", "data"], "envelope keys: {}", self.text);
        &self.body["data"]
    }

    /// Asserts the SPEC error envelope with `status` and `code`; returns the error object.
    pub fn error(&self, status: u16, code: &str) -> &Value {
        assert_eq!(self.status, status, "unexpected reply: {}", self.text);
        self.assert_common_headers();
        let content_type = self.header("content-type");
        assert!(
            content_type.starts_with("application/json"),
            "error content type {content_type}"
        );
        let body = self.body.as_object().expect("JSON object error body");
        let mut keys: Vec<&str> = body.keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, ["error", "success"], "envelope keys: {}", self.text);
        assert_eq!(self.body["success"], Value::Bool(false));
        let error = &self.body["error"];
        assert_eq!(error["code"], code, "error code in {}", self.text);
        let message = error["message"].as_str().expect("error.message string");
        assert!(!message.is_empty(), "empty error message");
        let allowed: &[&str] = if code == "RATE_LIMITED" {
            &["code", "message", "retryAfter"]
        } else {
            &["code", "message"]
        };
        for key in error.as_object().expect("error object").keys() {
            assert!(allowed.contains(&key.as_str()), "unexpected error.{key}");
        }
        error
    }
}

// ---------------------------------------------------------------------------------------
// Value checks
// ---------------------------------------------------------------------------------------

/// A canonical (lower-case, hyphenated) UUID.
pub fn assert_uuid(s: &str) -> Uuid {
    let id = Uuid::parse_str(s).unwrap_or_else(|_| panic!("not a UUID: {s:?}"));
    assert_eq!(id.to_string(), s, "UUID not in canonical form");
    id
}

/// ISO 8601 UTC with milliseconds, like 2026-11-22T03:28:35.712Z.
pub fn assert_timestamp(value: &Value) -> chrono::DateTime<chrono::Utc> {
    let s = value
        .as_str()
        .unwrap_or_else(|| panic!("timestamp is not a string: {value}"));
    let b = s.as_bytes();
    let shape_ok = b.len() == 24
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            23 => *c == b'Z',
            _ => c.is_ascii_digit(),
        });
    assert!(shape_ok, "timestamp not like 2026-11-22T03:28:35.712Z: {s}");
    chrono::DateTime::parse_from_rfc3339(s)
        .unwrap_or_else(|e| panic!("timestamp {s}: {e}"))
        .with_timezone(&chrono::Utc)
}

/// A key `fsk_<lookup>_<secret>` as ("fsk_<lookup>", secret). The secret is base64url and
/// may itself contain '_', so this splits after the lookup, not at the last '_'.
pub fn split_key(key: &str) -> (&str, &str) {
    let mut parts = key.splitn(3, '_');
    let (fsk, lookup, secret) = (
        parts.next().expect("prefix"),
        parts.next().expect("lookup"),
        parts.next().expect("secret"),
    );
    assert_eq!(fsk, "fsk", "key shape {key}");
    assert_eq!(lookup.len(), 16, "lookup of {key}");
    (&key[..fsk.len() + 1 + lookup.len()], secret)
}

/// Now, in Unix seconds.
pub fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The keys of a JSON object, sorted.
pub fn keys_of(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .cloned()
        .collect();
    keys.sort();
    keys
}

/// Sleeps until the Unix second `at` has begun (plus a margin).
pub async fn sleep_until_unix(at: i64) {
    let now = chrono::Utc::now();
    let target = chrono::DateTime::from_timestamp(at, 0).expect("valid instant")
        + chrono::Duration::milliseconds(150);
    if let Ok(wait) = (target - now).to_std() {
        tokio::time::sleep(wait).await;
    }
}

/// Every scope at once.
pub const ALL: &[Scope] = &[Scope::Read, Scope::Write, Scope::Admin];
pub const READ: &[Scope] = &[Scope::Read];
pub const WRITE: &[Scope] = &[Scope::Write];
pub const ADMIN: &[Scope] = &[Scope::Admin];
pub const PRO: Plan = Plan::Pro;
