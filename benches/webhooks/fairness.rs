//! Step 5: one tenant's events while another's slow backlog is worked.

use super::{Receipts, common, receiver, respond, subscribed_form};
use common::harness::TestApp;
use forms::accounts::{Plan, Scope};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The delay of a fast tenant's events while a slow tenant's backlog is worked.
pub async fn run() {
    let backlog = common::env_num("BENCH_SLOW_BACKLOG", 30);
    let slow_receipts: Receipts = Arc::default();
    let slow_hook = receiver(
        slow_receipts.clone(),
        Arc::default(),
        Duration::from_secs(3),
    )
    .await;
    let fast_receipts: Receipts = Arc::default();
    let fast_hook = receiver(fast_receipts.clone(), Arc::default(), Duration::ZERO).await;
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
