//! Step 4: a backlog under stale statistics.

use super::{common, db_pool, met, receiver};
use common::harness::{TestApp, TestDb};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The drain rate of a backlog the planner's statistics do not know of, against the
/// same backlog once analysed.
pub async fn run(db: &Arc<TestDb>, bare_receiver: f64) {
    let size = common::env_num("BENCH_STALE_BACKLOG", 100_000) as i64;
    let pool = db_pool(&db.url).await;
    let mut rates = Vec::new();
    for fresh in [false, true] {
        let count = Arc::new(AtomicUsize::new(0));
        let hook = receiver(Arc::default(), count.clone(), Duration::ZERO).await;
        // Statistics taken with nothing pending, and no analyse of the table until the
        // backlog is drained (autovacuum would otherwise catch up within a minute).
        sqlx::query("ALTER TABLE deliveries SET (autovacuum_enabled = false)")
            .execute(&pool)
            .await
            .expect("autovacuum off for deliveries");
        sqlx::query("VACUUM ANALYZE deliveries")
            .execute(&pool)
            .await
            .expect("vacuum");
        // A delivery goes to its subscription's URL as it is now: this step's receiver.
        sqlx::query("UPDATE webhooks SET url = $1")
            .bind(&hook)
            .execute(&pool)
            .await
            .expect("the webhooks to this receiver");
        // As many deliveries to each subscription (one per account): a subscription's
        // deliveries of one event go one at a time, so the drain lasts as long as its
        // longest sequence. (Copied from the first 64 settled rows, as this step did
        // until 2026-11-29, some subscriptions got two or three shares and others none.)
        sqlx::query(
            "INSERT INTO deliveries (id, webhook_id, account_id, form_id, event, url,
                                     response_id, payload, max_retries, next_attempt_at,
                                     created_at)
             WITH one AS (
                 SELECT DISTINCT ON (webhook_id) * FROM deliveries
                  WHERE status = 'succeeded' ORDER BY webhook_id, created_at
             ), numbered AS (
                 SELECT one.*, (row_number() OVER (ORDER BY webhook_id) - 1)::int AS place,
                        count(*) OVER ()::int AS subscriptions
                   FROM one
             )
             SELECT uuid_v7(), d.webhook_id, d.account_id, d.form_id, d.event, $2,
                    d.response_id, d.payload, d.max_retries, now(), now()
               FROM generate_series(1, $1) g
               JOIN numbered d ON d.place = g % d.subscriptions",
        )
        .bind(size)
        .bind(&hook)
        .execute(&pool)
        .await
        .expect("a backlog");
        let (sequences, longest): (i64, i64) = sqlx::query_as(
            "SELECT count(*), coalesce(max(n), 0) FROM (
                 SELECT count(*) AS n FROM deliveries WHERE status = 'pending'
                  GROUP BY webhook_id, event) s",
        )
        .fetch_one(&pool)
        .await
        .expect("sequences");
        if fresh {
            sqlx::query("ANALYZE deliveries")
                .execute(&pool)
                .await
                .expect("analyse");
        }
        let app = TestApp::spawn_on(db.clone(), common::UNLIMITED).await;
        let started = Instant::now();
        let deadline = started + Duration::from_secs(600);
        while (count.load(Ordering::Relaxed) as i64) < size && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let rate = count.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64();
        drop(app);
        sqlx::query("ALTER TABLE deliveries RESET (autovacuum_enabled)")
            .execute(&pool)
            .await
            .expect("autovacuum back");
        println!(
            "backlog of {size} in {sequences} sequences (the longest {longest}), statistics \
             {}: {} delivered at {rate:.0}/s",
            if fresh { "fresh" } else { "stale" },
            count.load(Ordering::Relaxed)
        );
        rates.push(rate);
    }
    let (stale, fresh) = (rates[0], rates[1]);
    println!(
        "stale statistics: {:.2}x the fresh drain (target >= 0.8x: {}), {:.2}x the receiver \
         (target >= 0.5x: {})",
        stale / fresh,
        met(stale / fresh >= 0.8),
        stale / bare_receiver,
        met(stale / bare_receiver >= 0.5)
    );
}
