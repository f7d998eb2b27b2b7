//! The cost of the edge -> core hop: the same REST requests against `--role all` (the
//! edge calls the core's gRPC routes in-process) and against `--role edge` + `--role
//! core` (a real gRPC connection on loopback). Prints requests per second, median
//! latency, and the ratio. Requests: BENCH_REQUESTS (5,000), BENCH_CONCURRENCY (16).
//!
//! Run: `cargo bench --bench hop` (on a server of its own with production settings: see `common::production_server`).

// Test code: a failed unwrap is a failed test, and its helpers are `pub` to each other.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod common;

use common::harness::{Formsd, TestApp, serve_args};
use forms::accounts::{Plan, Scope};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

async fn drive(
    client: &reqwest::Client,
    url: &str,
    key: &str,
    n: usize,
    concurrency: usize,
) -> (f64, Duration) {
    let permits = Arc::new(Semaphore::new(concurrency));
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(n);
    for _ in 0..n {
        let permit = permits.clone().acquire_owned().await.expect("permit");
        let (client, url, key) = (client.clone(), url.to_owned(), key.to_owned());
        tasks.push(tokio::spawn(async move {
            let t = Instant::now();
            let ok = client
                .get(url)
                .header("x-api-key", key)
                .send()
                .await
                .is_ok_and(|r| r.status().is_success());
            drop(permit);
            (ok, t.elapsed())
        }));
    }
    let mut latencies = Vec::with_capacity(n);
    for t in tasks {
        if let Ok((true, d)) = t.await {
            latencies.push(d);
        }
    }
    let rate = latencies.len() as f64 / started.elapsed().as_secs_f64();
    assert_eq!(latencies.len(), n, "some requests failed");
    (rate, common::percentiles(&mut latencies).0)
}

#[tokio::main]
async fn main() {
    common::production_server().await;
    let n = common::env_num("BENCH_REQUESTS", 5_000);
    let concurrency = common::env_num("BENCH_CONCURRENCY", 16);
    let limit = ["--enterprise-rate-limit", "100000000"];
    let app = TestApp::spawn_with(&limit).await;
    let key = app.key(Plan::Enterprise, &[Scope::Admin]).await;
    let form = app.create_form(&key, &json!({"title": "Hop"})).await;
    let path = format!("/forms/{}", form["id"].as_str().expect("form id"));

    // A separate core and edge on the same database.
    let core = Formsd::start(&serve_args(
        &app.db.url,
        &[&limit[..], &["--role", "core"]].concat(),
    ))
    .await;
    let core_url = core.grpc_url();
    let edge = Formsd::start(&serve_args(
        &app.db.url,
        &[&limit[..], &["--role", "edge", "--core-url", &core_url]].concat(),
    ))
    .await;

    // Warm both paths, then measure each.
    drive(
        &app.client,
        &format!("{}{path}", app.http_base),
        &key,
        200,
        concurrency,
    )
    .await;
    drive(
        &app.client,
        &format!("{}{path}", edge.http_base()),
        &key,
        200,
        concurrency,
    )
    .await;
    let (local_rate, local_p50) = drive(
        &app.client,
        &format!("{}{path}", app.http_base),
        &key,
        n,
        concurrency,
    )
    .await;
    let (hop_rate, hop_p50) = drive(
        &app.client,
        &format!("{}{path}", edge.http_base()),
        &key,
        n,
        concurrency,
    )
    .await;
    println!("GET {path}: {n} requests, concurrency {concurrency}");
    println!(
        "  --role all (in-process core): {local_rate:.0} req/s, median {}",
        common::ms(local_p50)
    );
    println!(
        "  --role edge + --role core:    {hop_rate:.0} req/s, median {}",
        common::ms(hop_p50)
    );
    println!(
        "  in-process / network throughput ratio: {:.2}",
        local_rate / hop_rate
    );
}
