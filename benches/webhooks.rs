//! Webhook delivery throughput and latency: BENCH_EVENTS (10,000) `form.submitted`
//! events, created through the REST API, delivered to a receiver on loopback. Prints
//! deliveries per second and the median and p99 delay from the API's 201 to receipt.
//!
//! Run: `cargo bench --bench webhooks` (DATABASE_URL as for the tests).

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

#[tokio::main]
async fn main() {
    let events = common::env_num("BENCH_EVENTS", 10_000);
    let concurrency = common::env_num("BENCH_CONCURRENCY", 32);

    let receipts: Receipts = Arc::default();
    let sink = receipts.clone();
    let receiver = axum::Router::new().route(
        "/hook",
        post(move |body: Bytes| {
            let sink = sink.clone();
            async move {
                let at = Instant::now();
                if let Ok(v) = serde_json::from_slice::<Value>(&body)
                    && let Some(id) = v["data"]["responseId"].as_str()
                {
                    sink.lock().expect("receipts").insert(id.to_owned(), at);
                }
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("receiver bind");
    let hook = format!("http://{}/hook", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, receiver).await });

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
        let form = app
            .create_form(&key, &json!({"title": "Bench", "fields": [{"type": "short_text", "label": "Name", "required": true}]}))
            .await;
        let form_id = form["id"].as_str().expect("form id").to_owned();
        let field = form["fields"][0]["id"]
            .as_str()
            .expect("field id")
            .to_owned();
        let published = json!({"status": "published"});
        app.put(&format!("/forms/{form_id}"), &key, &published)
            .await
            .ok(200);
        let subscription = json!({"name": "bench", "url": hook, "events": ["form.submitted"]});
        app.post(&format!("/forms/{form_id}/webhooks"), &key, &subscription)
            .await
            .ok(201);
        forms.push((form_id, field));
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
}
