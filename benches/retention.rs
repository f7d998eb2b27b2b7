//! A form's retention applied to a large form while respondents keep submitting to it
//! (issue 33 §3: "deleting at scale runs in bounded batches that never stall creates";
//! issue 35 §4 asks the same of millions of rows).
//!
//! 1. Load: a published form with BENCH_ROWS responses (1,000,000) by SQL, half of them
//!    60 days old and more, half within the last days; analysed.
//! 2. Before: BENCH_CLIENTS (8) clients create responses to that form over REST for
//!    BENCH_SECS (20): creates per second, p50, p99, longest.
//! 3. During: the form is given `retention_days: 30` and a second instance starts on
//!    the database (each instance applies retention at its start and every minute):
//!    the same clients create responses to the same form (whose row every purge batch
//!    takes, for a moment, at its end) until the old half is gone. Rows purged per
//!    second; creates while the purge runs against before [>= 0.8x]; their p99
//!    against before [<= 2x]; the longest create [< 1 s].
//!
//! Run: `cargo bench --bench retention` (on a server of its own with production
//! settings: see `common::production_server`).

// Test code: a failed unwrap is a failed test, and its helpers are `pub` to each other.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod common;

use common::harness::TestApp;
use forms::accounts::{Plan, Scope};
use serde_json::json;
use sqlx::PgPool;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Creates made by the clients: when each was answered, and how long it took.
type Made = Vec<(Instant, Duration)>;

/// `clients` loops posting `body` to `url` until `stop`; each returns what it made.
fn start_creating(
    url: String,
    key: String,
    body: serde_json::Value,
    clients: usize,
    stop: Arc<AtomicBool>,
) -> Vec<tokio::task::JoinHandle<Made>> {
    let http = reqwest::Client::new();
    (0..clients)
        .map(|_| {
            let (http, url, key, body, stop) = (
                http.clone(),
                url.clone(),
                key.clone(),
                body.clone(),
                stop.clone(),
            );
            tokio::spawn(async move {
                let mut made = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let started = Instant::now();
                    let reply = http
                        .post(&url)
                        .header("x-api-key", &key)
                        .json(&body)
                        .send()
                        .await
                        .expect("a create answered");
                    assert_eq!(reply.status(), 201, "{}", reply.text().await.unwrap());
                    made.push((Instant::now(), started.elapsed()));
                }
                made
            })
        })
        .collect()
}

async fn collect(tasks: Vec<tokio::task::JoinHandle<Made>>) -> Made {
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.expect("client"));
    }
    all
}

/// Creates per second, p50, p99 and the longest, of the creates answered in `from..to`.
fn summary(made: &Made, from: Instant, to: Instant) -> (f64, Duration, Duration, Duration) {
    let mut took: Vec<Duration> = made
        .iter()
        .filter(|(at, _)| *at >= from && *at <= to)
        .map(|(_, took)| *took)
        .collect();
    let rate = took.len() as f64 / (to - from).as_secs_f64().max(1e-9);
    let longest = took.iter().max().copied().unwrap_or_default();
    let (p50, p99) = common::percentiles(&mut took);
    (rate, p50, p99, longest)
}

/// The form's oldest response: a retention purge takes the oldest first.
async fn oldest(pool: &PgPool, form_id: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    sqlx::query_scalar("SELECT min(submitted_at) FROM responses WHERE form_id = $1::uuid")
        .bind(form_id)
        .fetch_one(pool)
        .await
        .unwrap()
}

fn met(yes: bool) -> &'static str {
    if yes { "met" } else { "NOT met" }
}

#[tokio::main]
async fn main() {
    common::production_server().await;
    let rows = common::env_num("BENCH_ROWS", 1_000_000) as i64;
    let clients = common::env_num("BENCH_CLIENTS", 8);
    let secs = common::env_num("BENCH_SECS", 20) as u64;
    let app = TestApp::spawn_with(common::UNLIMITED).await;
    let owner = app
        .new_key(Plan::Enterprise, &[Scope::Read, Scope::Write, Scope::Admin])
        .await;
    let body = json!({"title": "Kept a month", "fields": [
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "email", "label": "Email"},
    ]});
    let (form, form_id) = common::published_form(&app, &owner.key, &body).await;
    let fields: Vec<&str> = form["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();

    // 1. Load: the odd rows 60 days old and older, the even ones within the last days.
    let loading = Instant::now();
    sqlx::query(
        "INSERT INTO responses (id, form_id, answers, metadata, device_type, browser, os,
                                started_at, submitted_at, completion_time_seconds)
         SELECT uuid_v7(), $1::uuid,
                jsonb_build_object($2::text, 'Person ' || n, $3::text, 'p' || n || '@example.com'),
                '{\"source\": \"form\"}', 'mobile', 'Safari', 'iOS', at - interval '30 seconds',
                at, 30
           FROM generate_series(1, $4) AS n,
                LATERAL (SELECT CASE WHEN n % 2 = 1
                                     THEN now() - interval '60 days' - n * interval '3 seconds'
                                     ELSE now() - n * interval '1 second' END AS at) t",
    )
    .bind(&form_id)
    .bind(fields[0])
    .bind(fields[1])
    .bind(rows)
    .execute(&app.pool)
    .await
    .unwrap();
    sqlx::query("UPDATE forms SET response_count = response_count + $2 WHERE id = $1::uuid")
        .bind(&form_id)
        .bind(rows)
        .execute(&app.pool)
        .await
        .unwrap();
    sqlx::query("VACUUM ANALYZE responses")
        .execute(&app.pool)
        .await
        .unwrap();
    let old = (rows + 1) / 2;
    println!(
        "loaded {rows} responses ({old} past 30 days) in {:.1} s",
        loading.elapsed().as_secs_f64()
    );

    let url = format!("{}/forms/{form_id}/responses", app.http_base);
    let answer = json!({"answers": {fields[0]: "Bench", fields[1]: "bench@example.com"}});

    // 2. Before: no retention on the form.
    let stop = Arc::new(AtomicBool::new(false));
    let tasks = start_creating(
        url.clone(),
        owner.key.clone(),
        answer.clone(),
        clients,
        stop.clone(),
    );
    let from = Instant::now() + Duration::from_secs(2);
    tokio::time::sleep(Duration::from_secs(secs + 2)).await;
    let to = Instant::now();
    stop.store(true, Ordering::Relaxed);
    let before = summary(&collect(tasks).await, from, to);

    // 3. During: retention set, a second instance applies it at its start.
    let first_oldest = oldest(&app.pool, &form_id).await;
    let stop = Arc::new(AtomicBool::new(false));
    let tasks = start_creating(url, owner.key.clone(), answer, clients, stop.clone());
    tokio::time::sleep(Duration::from_secs(2)).await;
    app.put(
        &format!("/forms/{form_id}"),
        &owner.key,
        &json!({"retention_days": 30}),
    )
    .await
    .ok(200);
    let _purging = TestApp::spawn_on(app.db.clone(), common::UNLIMITED).await;
    let deadline = Instant::now() + Duration::from_secs(900);
    let mut started = None;
    let cutoff = chrono::Utc::now() - chrono::Duration::days(30);
    let ended = loop {
        let now_oldest = oldest(&app.pool, &form_id).await;
        if started.is_none() && now_oldest != first_oldest {
            started = Some(Instant::now());
        }
        if now_oldest.is_some_and(|at| at > cutoff) {
            break Instant::now();
        }
        assert!(
            Instant::now() < deadline,
            "the purge did not end in 15 minutes"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    stop.store(true, Ordering::Relaxed);
    let made = collect(tasks).await;
    let started = started.unwrap_or(ended);
    let during = summary(&made, started, ended);
    let purge_secs = (ended - started).as_secs_f64().max(1e-9);
    let left: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM responses WHERE form_id = $1::uuid AND submitted_at < $2",
    )
    .bind(&form_id)
    .bind(cutoff)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(left, 0, "every response past the retention is gone");

    let line = |name: &str, (rate, p50, p99, longest): (f64, Duration, Duration, Duration)| {
        println!(
            "{name:<28} {rate:>8.0} creates/s  p50 {}  p99 {}  longest {}",
            common::ms(p50),
            common::ms(p99),
            common::ms(longest)
        );
    };
    println!("--- retention at {rows} responses, {clients} clients creating to the same form");
    line("creates before", before);
    line("creates while purging", during);
    println!(
        "purge: {old} responses in {purge_secs:.1} s = {:.0} rows/s",
        old as f64 / purge_secs
    );
    let (rate_ratio, p99_ratio) = (
        during.0 / before.0,
        during.2.as_secs_f64() / before.2.as_secs_f64().max(1e-9),
    );
    println!(
        "creates while purging: {rate_ratio:.2}x before (target >= 0.8x: {})",
        met(rate_ratio >= 0.8)
    );
    println!(
        "p99 while purging: {p99_ratio:.2}x before (target <= 2x: {})",
        met(p99_ratio <= 2.0)
    );
    println!(
        "longest create while purging: {} (target < 1 s: {})",
        common::ms(during.3),
        met(during.3 < Duration::from_secs(1))
    );
}
