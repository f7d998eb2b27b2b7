//! Shared by the benchmark programs: the end-to-end test harness (real binary, real
//! database), a latency summary, and small helpers.

// Each benchmark program uses a part of this module.
#![allow(dead_code)]

#[allow(dead_code)]
#[path = "../../tests/api/harness.rs"]
pub mod harness;

use sqlx::Connection;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// The server every benchmark measures on, chosen before anything else runs: one with
/// the settings a production server has (`forms::db::embedded::settings`), never the
/// machine's own test server, which runs without autovacuum. `BENCH_DATABASE_URL` names
/// a server to use, which must have those settings; without it the benchmark starts a
/// cluster of its own under `target/bench-pg` with them (reused by later runs and left
/// running, like the tests' private cluster). A server that differs is refused, saying
/// how. `DATABASE_URL` is not read: the tests' server is not the benchmarks'.
pub async fn production_server() -> String {
    use forms::db::embedded::{EmbeddedPostgres, settings};
    let url = match std::env::var("BENCH_DATABASE_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-pg");
            let pg = EmbeddedPostgres::start(&dir)
                .await
                .unwrap_or_else(|e| panic!("starting the benchmarks' cluster in {dir:?}: {e}"));
            pg.url()
        }
    };
    let mut conn = sqlx::PgConnection::connect(&url)
        .await
        .unwrap_or_else(|e| panic!("connecting to the benchmarks' server: {e}"));
    let mut shown = Vec::new();
    for (name, _) in settings::PRODUCTION {
        let value: String = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SHOW {name}")))
            .fetch_one(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("SHOW {name}: {e}"));
        shown.push(value);
    }
    let differences = settings::differences(&shown);
    assert!(
        differences.is_empty(),
        "refusing to measure on this server: {}. Benchmarks measure on a server with the \
         settings of production (the book's Capacity page): start it with them, or unset \
         BENCH_DATABASE_URL so that the benchmark starts its own (a cluster left running in \
         target/bench-pg from before: stop it with pg_ctl -D target/bench-pg/pgdata stop).",
        differences.join(", ")
    );
    println!(
        "server: {} ({})",
        if std::env::var("BENCH_DATABASE_URL").is_ok_and(|u| !u.trim().is_empty()) {
            "BENCH_DATABASE_URL"
        } else {
            "the benchmarks' own cluster in target/bench-pg"
        },
        settings::PRODUCTION
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert!(
        harness::use_server(url.clone()),
        "production_server() must run before anything uses the database"
    );
    url
}

/// Flags of an instance whose limits stay out of a benchmark's way: no rate limit or
/// response quota to hit, a pool of 40, webhooks to loopback receivers allowed.
pub const UNLIMITED: &[&str] = &[
    "--webhook-allow-private",
    "--enterprise-rate-limit",
    "1000000000",
    "--enterprise-response-limit",
    "unlimited",
    "--db-max-connections",
    "40",
];

/// Creates a form of `key`'s account from `body` and publishes it: the form as
/// created, and its id.
pub async fn published_form(
    app: &harness::TestApp,
    key: &str,
    body: &serde_json::Value,
) -> (serde_json::Value, String) {
    let form = app.create_form(key, body).await;
    let id = form["id"].as_str().expect("form id").to_owned();
    let published = serde_json::json!({"status": "published"});
    app.put(&format!("/forms/{id}"), key, &published)
        .await
        .ok(200);
    (form, id)
}

/// A form's counters as creates would have left them after `rows` responses loaded
/// by SQL: its count, and when the last was submitted.
pub async fn count_loaded(conn: &mut sqlx::PgConnection, form: &str, rows: i64) {
    sqlx::query(
        "UPDATE forms SET response_count = response_count + $2,
                last_submitted_at = (SELECT max(submitted_at) FROM responses WHERE form_id = $1::uuid)
          WHERE id = $1::uuid",
    )
    .bind(form)
    .bind(rows)
    .execute(conn)
    .await
    .expect("form counters");
}

/// Drops the search index `responses_find` and returns the statement that builds it
/// again, as a restore or a measurement without it needs.
pub async fn drop_search_index(pool: &sqlx::PgPool) -> String {
    let definition: String =
        sqlx::query_scalar("SELECT pg_get_indexdef('responses_find'::regclass)")
            .fetch_one(pool)
            .await
            .expect("responses_find");
    sqlx::query("DROP INDEX responses_find")
        .execute(pool)
        .await
        .expect("drop index");
    definition
}

/// Rolls up until every form of `forms` (ids) has a stored tally that covers its last
/// response. A round of the bench's own finds nothing to do while formsd's round
/// (every 2 s) holds a form, so an empty round alone does not mean caught up.
pub async fn caught_up(pool: &sqlx::PgPool, forms: &[&str]) {
    let started = std::time::Instant::now();
    loop {
        while forms::responses::rollup::round(pool).await.expect("rollup") > 0 {}
        let behind: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM forms f LEFT JOIN response_rollups u ON u.form_id = f.id
              WHERE f.id::text = ANY($1)
                AND u.through_at IS DISTINCT FROM f.last_submitted_at",
        )
        .bind(forms)
        .fetch_one(pool)
        .await
        .expect("rollup state");
        if behind == 0 {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the rollup is still behind on {behind} forms after 10 minutes"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A form's question ids, in order.
pub fn field_ids(form: &serde_json::Value) -> Vec<String> {
    form["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| f["id"].as_str().expect("field id").to_owned())
        .collect()
}

/// Serves `router` (whose route is `/hook`) on a loopback port: the receiver's URL.
pub async fn serve_receiver(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("receiver bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

/// Deliveries not yet settled.
pub async fn pending(pool: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM deliveries WHERE status = 'pending'")
        .fetch_one(pool)
        .await
        .expect("pending deliveries")
}

/// Waits until no delivery is pending (counted every `every`); false if some still
/// are after `limit`.
pub async fn drained(pool: &sqlx::PgPool, limit: Duration, every: Duration) -> bool {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if pending(pool).await == 0 {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(every).await;
    }
}

/// Median and 99th percentile of `samples` (sorted in place).
pub fn percentiles(samples: &mut [Duration]) -> (Duration, Duration) {
    if samples.is_empty() {
        return (Duration::ZERO, Duration::ZERO);
    }
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.99))
}

/// Milliseconds with two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// An environment variable as a number, or `default`.
pub fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A command's standard output, failing on a non-zero exit.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e} (is it installed?)"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The number after `label` on the line that has it.
pub fn figure(text: &str, line_has: &str, label: &str) -> f64 {
    text.lines()
        .find(|l| l.contains(line_has))
        .and_then(|l| l.split(label).nth(1))
        .and_then(|rest| {
            rest.split_whitespace()
                .next()
                .map(|n| n.trim_end_matches(',').to_owned())
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {label:?} in:\n{text}"))
}

/// pgbench of the script files at `clients` connections: transactions per second.
pub fn pgbench(url: &str, scripts: &[std::path::PathBuf], clients: usize, secs: usize) -> f64 {
    let mut cmd = Command::new("pgbench");
    cmd.args(["-n", "-M", "prepared", "-j", "2"]).args([
        "-c",
        &clients.to_string(),
        "-T",
        &secs.to_string(),
    ]);
    for script in scripts {
        cmd.arg("-f").arg(script);
    }
    cmd.arg(url);
    figure(&run(&mut cmd), "tps = ", "tps = ")
}

/// wrk with a Lua script: requests per second, failing on any non-2xx answer.
pub fn wrk(url: &str, script: &Path, clients: usize, secs: usize) -> f64 {
    let text = run(Command::new("wrk")
        .args(["-t", "2", "-c", &clients.to_string()])
        .args(["-d", &format!("{secs}s"), "-s"])
        .arg(script)
        .arg(url));
    assert!(
        !text.contains("Non-2xx"),
        "wrk saw failed requests:\n{text}"
    );
    figure(&text, "Requests/sec:", "Requests/sec:")
}

/// The search text formsd writes for `answers`, as the body of an `E'...'` literal: a
/// bare INSERT compared with formsd's creates writes it too.
pub fn search_literal(answers: &serde_json::Value) -> String {
    let empty = serde_json::Map::new();
    forms::responses::search::text_of(answers.as_object().unwrap_or(&empty))
        .replace('\\', "\\\\")
        .replace('\'', "''")
        .replace('\n', "\\n")
}

/// The sum of a Prometheus metric's series in `text` (the text format of /metrics)
/// whose labels contain `labels` (e.g. `outcome="stored"`; empty: all).
pub fn metric_sum(text: &str, name: &str, labels: &str) -> f64 {
    text.lines()
        .filter(|line| {
            line.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with(['{', ' ']) && rest.contains(labels))
        })
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// Times `samples` runs of each of `runs` taken in turn (one of each, then again, after
/// five rounds of warm-up), so that every one sees the same moments of a shared
/// machine and their ratio compares like with like: each one's times (p50, p99, and
/// every sample in order, for `Timed::over`).
pub async fn in_turn<F, Fut>(runs: usize, samples: usize, run: F) -> Vec<Timed>
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for _ in 0..5 {
        for i in 0..runs {
            run(i).await;
        }
    }
    let mut took = vec![Vec::with_capacity(samples); runs];
    for _ in 0..samples {
        for (i, took) in took.iter_mut().enumerate() {
            let started = std::time::Instant::now();
            run(i).await;
            took.push(started.elapsed());
        }
    }
    took.into_iter().map(Timed::from).collect()
}

/// One line's times: p50, p99 and every sample in the order taken.
pub struct Timed {
    pub p50: Duration,
    pub p99: Duration,
    pub samples: Vec<Duration>,
}

impl From<Vec<Duration>> for Timed {
    fn from(samples: Vec<Duration>) -> Self {
        let (p50, p99) = percentiles(&mut samples.clone());
        Self { p50, p99, samples }
    }
}

impl Timed {
    /// The samples over `limit`, each with its place among them.
    pub fn over(&self, limit: Duration) -> Vec<(usize, Duration)> {
        self.samples
            .iter()
            .enumerate()
            .filter(|(_, t)| **t > limit)
            .map(|(i, t)| (i, *t))
            .collect()
    }
}

/// "5M", "10k", "2500": a number of rows as a column names it.
pub fn rows_name(n: impl Into<i64>) -> String {
    match n.into() {
        n if n != 0 && n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n != 0 && n % 1_000 == 0 => format!("{}k", n / 1_000),
        n => n.to_string(),
    }
}
