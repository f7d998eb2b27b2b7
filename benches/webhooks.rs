//! Webhook delivery throughput and latency: BENCH_EVENTS (10,000) `form.submitted`
//! events, created through the REST API, delivered to a receiver on loopback. Prints
//! deliveries per second and the median and p99 delay from the API's 201 to receipt.
//! Then fairness: how long one tenant's events wait while another tenant's backlog of
//! BENCH_SLOW_BACKLOG (30) deliveries to a receiver taking 3 s each is worked, with 4
//! slots per process and at most 2 for one account (first come first served, they
//! would wait about 22 s).
//!
//! Run: `cargo bench --bench webhooks` (DATABASE_URL as for the tests).

// Test code: a failed unwrap is a failed test, and its helpers are `pub` to each other.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod common;

use axum::body::Bytes;
use axum::routing::post;
use common::helpers::TestApp;
use forms::accounts::{Plan, Scope};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

type Receipts = Arc<Mutex<HashMap<String, Instant>>>;

/// A receiver on loopback that answers after `delay`, noting when each event's response
/// id arrived; returns its URL.
async fn receiver(receipts: Receipts, delay: Duration) -> String {
    let router = axum::Router::new().route(
        "/hook",
        post(move |body: Bytes| {
            let sink = receipts.clone();
            async move {
                let at = Instant::now();
                if let Ok(v) = serde_json::from_slice::<Value>(&body)
                    && let Some(id) = v["data"]["responseId"].as_str()
                {
                    sink.lock().expect("receipts").insert(id.to_owned(), at);
                }
                tokio::time::sleep(delay).await;
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("receiver bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

/// A published form of `key`'s account subscribed to `hook`; returns its id and the id
/// of its one field.
async fn subscribed_form(app: &TestApp, key: &str, hook: &str) -> (String, String) {
    let form = app
        .create_form(key, &json!({"title": "Bench", "fields": [{"type": "short_text", "label": "Name", "required": true}]}))
        .await;
    let form_id = form["id"].as_str().expect("form id").to_owned();
    let field = form["fields"][0]["id"]
        .as_str()
        .expect("field id")
        .to_owned();
    let published = json!({"status": "published"});
    app.put(&format!("/forms/{form_id}"), key, &published)
        .await
        .ok(200);
    let subscription = json!({"name": "bench", "url": hook, "events": ["form.submitted"]});
    app.post(&format!("/forms/{form_id}/webhooks"), key, &subscription)
        .await
        .ok(201);
    (form_id, field)
}

/// Creates a response on the form; returns its id.
async fn respond(
    app: &TestApp,
    key: &str,
    (form_id, field): &(String, String),
    n: usize,
) -> String {
    let body = json!({"answers": {field.as_str(): format!("n{n}")}});
    let reply = app
        .post(&format!("/forms/{form_id}/responses"), key, &body)
        .await;
    reply.ok(201)["response"]["id"]
        .as_str()
        .expect("response id")
        .to_owned()
}

#[tokio::main]
async fn main() {
    let events = common::env_num("BENCH_EVENTS", 10_000);
    let concurrency = common::env_num("BENCH_CONCURRENCY", 32);

    let receipts: Receipts = Arc::default();
    let hook = receiver(receipts.clone(), Duration::ZERO).await;

    let app = TestApp::spawn_with(&[
        "--webhook-allow-private",
        "--enterprise-rate-limit",
        "10000000",
        "--db-max-connections",
        "40",
    ])
    .await;
    let key = app.key(Plan::Enterprise, &[Scope::Admin]).await;
    // Responses of one form are written one at a time (its row lock keeps keyset order
    // exact), so the load is spread over several forms, each with a subscription.
    let mut forms = Vec::new();
    for _ in 0..common::env_num("BENCH_FORMS", 8) {
        forms.push(subscribed_form(&app, &key, &hook).await);
    }

    let created: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let permits = Arc::new(Semaphore::new(concurrency));
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(events);
    for i in 0..events {
        let permit = permits.clone().acquire_owned().await.expect("permit");
        let (form_id, field) = &forms[i % forms.len()];
        let (client, url, key, created) = (
            app.client.clone(),
            format!("{}/forms/{form_id}/responses", app.http_base),
            key.clone(),
            created.clone(),
        );
        let body = json!({"answers": {field.as_str(): format!("n{i}")}});
        tasks.push(tokio::spawn(async move {
            let reply = client
                .post(url)
                .header("x-api-key", key)
                .json(&body)
                .send()
                .await;
            let at = Instant::now();
            if let Ok(reply) = reply
                && let Ok(v) = reply.json::<Value>().await
                && let Some(id) = v["data"]["response"]["id"].as_str()
            {
                created.lock().expect("created").insert(id.to_owned(), at);
            }
            drop(permit);
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let api_time = started.elapsed();
    let deadline = Instant::now() + Duration::from_secs(300);
    while receipts.lock().expect("receipts").len() < events && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let total = started.elapsed();
    let receipts = receipts.lock().expect("receipts").clone();
    let created = created.lock().expect("created").clone();
    let mut delays: Vec<Duration> = created
        .iter()
        .filter_map(|(id, made)| {
            receipts
                .get(id)
                .map(|got| got.saturating_duration_since(*made))
        })
        .collect();
    let (p50, p99) = common::percentiles(&mut delays);
    println!(
        "{} responses created on {} forms in {api_time:.2?} ({:.0}/s, concurrency {concurrency})",
        created.len(),
        forms.len(),
        created.len() as f64 / api_time.as_secs_f64()
    );
    println!(
        "{} of {events} delivered in {total:.2?} from the first create: {:.0} deliveries/s",
        receipts.len(),
        receipts.len() as f64 / total.as_secs_f64()
    );
    println!(
        "delay from 201 to receipt: median {}, p99 {}",
        common::ms(p50),
        common::ms(p99)
    );
    drop(app);
    fairness().await;
}

/// The delay of a fast tenant's events while a slow tenant's backlog is worked.
async fn fairness() {
    let backlog = common::env_num("BENCH_SLOW_BACKLOG", 30);
    let slow_receipts: Receipts = Arc::default();
    let slow_hook = receiver(slow_receipts.clone(), Duration::from_secs(3)).await;
    let fast_receipts: Receipts = Arc::default();
    let fast_hook = receiver(fast_receipts.clone(), Duration::ZERO).await;
    let app = TestApp::spawn_with(&[
        "--webhook-allow-private",
        "--webhook-poll-interval",
        "200ms",
        "--webhook-concurrency",
        "4",
        "--webhook-concurrency-per-account",
        "2",
    ])
    .await;
    let slow_key = app.key(Plan::Pro, &[Scope::Admin]).await;
    let fast_key = app.key(Plan::Pro, &[Scope::Admin]).await;
    let slow_form = subscribed_form(&app, &slow_key, &slow_hook).await;
    let fast_form = subscribed_form(&app, &fast_key, &fast_hook).await;
    for n in 0..backlog {
        respond(&app, &slow_key, &slow_form, n).await;
    }
    let mut delays = Vec::new();
    for n in 0..5 {
        let id = respond(&app, &fast_key, &fast_form, n).await;
        let sent = Instant::now();
        let deadline = sent + Duration::from_secs(120);
        let arrived = loop {
            if let Some(at) = fast_receipts.lock().expect("receipts").get(&id) {
                break Some(*at);
            }
            if Instant::now() > deadline {
                break None;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        match arrived {
            Some(at) => delays.push(at.saturating_duration_since(sent)),
            None => println!("fairness: a fast tenant's event did not arrive within 120 s"),
        }
    }
    let slow_done = slow_receipts.lock().expect("receipts").len();
    let (p50, _) = common::percentiles(&mut delays);
    let most = delays.iter().max().copied().unwrap_or_default();
    println!(
        "fairness: a tenant's delivery waits median {}, at most {} while another's backlog of {backlog} slow deliveries is worked ({slow_done} of them had reached their receiver by then)",
        common::ms(p50),
        common::ms(most)
    );
}
