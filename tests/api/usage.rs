//! SPEC "Usage": the calling key's daily request and error counts.

use crate::harness::*;
use ::forms::accounts::Plan;
use chrono::{NaiveDate, Utc};
use serde_json::{Value, json};

fn today() -> NaiveDate {
    Utc::now().date_naive()
}

/// Checks the SPEC shape of a usage record with `days` entries, newest first, ending
/// today, and that the totals are the sums; returns (total_requests, total_errors).
fn assert_usage_shape(usage: &Value, days: usize, first_day: &[NaiveDate]) -> (i64, i64) {
    assert_eq!(
        keys_of(usage),
        [
            "daily",
            "key_id",
            "period_days",
            "rate_limit_per_minute",
            "total_errors",
            "total_requests"
        ]
    );
    assert_uuid(usage["key_id"].as_str().expect("key_id"));
    assert_eq!(usage["period_days"], days);
    assert!(usage["rate_limit_per_minute"].is_i64());
    let daily = usage["daily"].as_array().expect("daily");
    assert_eq!(daily.len(), days, "one entry per day");
    let (mut requests, mut errors) = (0, 0);
    let mut previous: Option<NaiveDate> = None;
    for entry in daily {
        assert_eq!(keys_of(entry), ["day", "error_count", "request_count"]);
        let raw = entry["day"].as_str().expect("day string");
        assert_eq!(raw.len(), 10, "YYYY-MM-DD: {raw}");
        let day = NaiveDate::parse_from_str(raw, "%Y-%m-%d").expect("YYYY-MM-DD");
        if let Some(prev) = previous {
            assert_eq!(
                day,
                prev.pred_opt().expect("day before"),
                "consecutive, newest first"
            );
        } else {
            assert!(first_day.contains(&day), "newest day {day} is today");
        }
        previous = Some(day);
        let r = entry["request_count"]
            .as_i64()
            .expect("request_count integer");
        let e = entry["error_count"].as_i64().expect("error_count integer");
        assert!(r >= 0 && e >= 0 && e <= r, "counts {entry}");
        requests += r;
        errors += e;
    }
    assert_eq!(
        usage["total_requests"], requests,
        "total_requests is the sum"
    );
    assert_eq!(usage["total_errors"], errors, "total_errors is the sum");
    (requests, errors)
}

#[tokio::test]
async fn usage_has_the_spec_shape_and_defaults() {
    let app = TestApp::spawn().await;
    let key = app.new_key(PRO, READ).await;
    let before = today();
    let reply = app.get("/usage", &key.key).await;
    let usage = reply.ok(200).clone();
    let days = [before, today()];
    let totals = assert_usage_shape(&usage, 30, &days);
    assert_eq!(usage["key_id"], key.key_id.to_string());
    assert_eq!(usage["rate_limit_per_minute"], 1000);
    // A fresh key: the usage request itself is its only request.
    assert_eq!(totals, (1, 0));
    let daily = usage["daily"].as_array().expect("daily");
    assert_eq!(daily[0]["request_count"], 1);
    assert!(
        daily[1..]
            .iter()
            .all(|d| d["request_count"] == 0 && d["error_count"] == 0),
        "days without traffic are zeros"
    );
}

#[tokio::test]
async fn usage_counts_every_request_and_error() {
    let app = TestApp::spawn().await;
    let key = app.new_key(PRO, ALL).await;
    let read = app.key_for(&key.account, PRO, READ).await;
    let other = app.new_key(PRO, ALL).await;
    let k = key.key.as_str();
    let before = today();

    app.get("/forms", k).await.ok(200);
    app.post("/forms", k, &json!({"title": "Counted"}))
        .await
        .ok(201);
    send(
        app.request(Method::POST, "/forms")
            .header("x-api-key", k)
            .header("content-type", "text/plain")
            .body("{}"),
    )
    .await
    .error(415, "UNSUPPORTED_MEDIA_TYPE");
    send(
        app.request(Method::POST, "/forms")
            .header("x-api-key", k)
            .header("content-type", "application/json")
            .body("{oops"),
    )
    .await
    .error(422, "VALIDATION_ERROR");
    app.get(&format!("/forms/{}", uuid::Uuid::new_v4()), k)
        .await
        .error(404, "NOT_FOUND");
    app.get("/no-such-route", k).await.error(404, "NOT_FOUND");
    send(app.request(Method::PATCH, "/forms").header("x-api-key", k))
        .await
        .error(405, "METHOD_NOT_ALLOWED");
    app.get("/forms?status=nope", k)
        .await
        .error(422, "VALIDATION_ERROR");
    app.get("/usage?days=0", k)
        .await
        .error(422, "VALIDATION_ERROR");
    // Unauthenticated requests are charged to nobody.
    send(app.request(Method::GET, "/forms"))
        .await
        .error(401, "UNAUTHENTICATED");

    let reply = app.get("/usage", k).await;
    let usage = reply.ok(200).clone();
    let days = [before, today()];
    // 9 requests above (7 errors) plus this one.
    assert_eq!(assert_usage_shape(&usage, 30, &days), (10, 7), "{usage}");
    if before == today() {
        assert_eq!(usage["daily"][0]["request_count"], 10);
        assert_eq!(usage["daily"][0]["error_count"], 7);
    }
    // Reading usage counts too.
    let again = app.get("/usage", k).await;
    assert_eq!(assert_usage_shape(again.ok(200), 30, &days), (11, 7));

    // Usage is per key: a sibling key of the same account and another account's key
    // have their own counts.
    app.post("/forms", &read.key, &json!({"title": "No"}))
        .await
        .error(403, "INSUFFICIENT_SCOPE");
    let sibling = app.get("/usage", &read.key).await;
    let sibling = sibling.ok(200);
    assert_eq!(sibling["key_id"], read.key_id.to_string());
    assert_eq!(assert_usage_shape(sibling, 30, &days), (2, 1));
    let stranger = app.get("/usage", &other.key).await;
    assert_eq!(assert_usage_shape(stranger.ok(200), 30, &days), (1, 0));
}

#[tokio::test]
async fn usage_days_parameter() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, READ).await;
    let before = today();
    for days in [1_usize, 7, 30, 90] {
        let reply = app.get(&format!("/usage?days={days}"), &key).await;
        assert_usage_shape(reply.ok(200), days, &[before, today()]);
    }
    for bad in ["0", "91", "-1", "abc", "1.5", "1000000000000"] {
        app.get(&format!("/usage?days={bad}"), &key)
            .await
            .error(422, "VALIDATION_ERROR");
    }
}

#[tokio::test]
async fn usage_reports_the_configured_limit_of_the_plan() {
    let app =
        TestApp::spawn_with(&["--pro-rate-limit", "77", "--enterprise-rate-limit", "88"]).await;
    for (plan, limit) in [(Plan::Pro, 77), (Plan::Enterprise, 88)] {
        let key = app.key(plan, READ).await;
        let reply = app.get("/usage", &key).await;
        assert_eq!(reply.ok(200)["rate_limit_per_minute"], limit);
        assert_eq!(reply.header_u64("x-ratelimit-limit"), limit);
    }
}

/// The requests counted for a key in the usage table (what has been written).
async fn written(app: &TestApp, key_id: uuid::Uuid) -> i64 {
    sqlx::query_scalar::<_, Option<i64>>(
        "SELECT sum(request_count)::int8 FROM usage_daily WHERE key_id = $1",
    )
    .bind(key_id)
    .fetch_one(&app.pool)
    .await
    .expect("usage rows")
    .unwrap_or(0)
}

#[tokio::test]
async fn usage_is_exact_after_a_clean_stop_and_a_second_short_at_most_after_kill_9() {
    let mut app = TestApp::spawn().await;
    let key = app.new_key(Plan::Pro, READ).await;
    for _ in 0..20 {
        app.get("/forms", &key.key).await.ok(200);
    }
    // A clean stop writes what is pending.
    assert!(app.server.terminate().await.success());
    assert_eq!(written(&app, key.key_id).await, 20);

    let mut app = TestApp::spawn_on(app.db.clone(), &[]).await;
    for _ in 0..20 {
        app.get("/forms", &key.key).await.ok(200);
    }
    // Counts are written every second...
    crate::fixtures::eventually(
        "counts written",
        std::time::Duration::from_secs(5),
        || async { (written(&app, key.key_id).await == 40).then_some(()) },
    )
    .await;
    // ...so kill -9 loses at most the last second's: requests for four seconds, then
    // kill -9. Every request answered more than the last second (and a flush's time,
    // with room for a loaded machine: two seconds) before the kill was counted, and
    // nothing was counted twice.
    let started = std::time::Instant::now();
    let mut answered = Vec::new();
    while started.elapsed() < std::time::Duration::from_secs(4) {
        app.get("/forms", &key.key).await.ok(200);
        answered.push(std::time::Instant::now());
        // Paced: at most 200 of them, well inside the Pro key's 1,000 a minute.
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    app.server.child.kill().await.expect("kill -9");
    let killed = std::time::Instant::now();
    let after = written(&app, key.key_id).await;
    let settled = answered
        .iter()
        .filter(|at| killed.duration_since(**at) > std::time::Duration::from_secs(3))
        .count() as i64;
    let made = 40 + answered.len() as i64;
    assert!(settled > 0, "requests long before the kill");
    assert!(
        (40 + settled..=made).contains(&after),
        "{after} counted of {made}; {settled} were answered over 3 s before kill -9"
    );
    let app = TestApp::spawn_on(app.db.clone(), &[]).await;
    let usage = app.get("/usage", &key.key).await;
    assert_eq!(usage.ok(200)["total_requests"], after + 1);
}

/// Counts of one key today, as the tally keeps them.
fn today_of(
    key_id: uuid::Uuid,
    requests: i64,
) -> std::collections::HashMap<(uuid::Uuid, NaiveDate), ::forms::usage::store::Counts> {
    let counts = ::forms::usage::store::Counts {
        requests,
        errors: 0,
    };
    std::collections::HashMap::from([((key_id, today()), counts)])
}

#[tokio::test]
async fn a_usage_flush_sent_twice_is_counted_once() {
    // A flush whose commit is not known is sent again with its id: if the first went
    // through after all, the second adds nothing.
    let app = TestApp::spawn().await;
    let key = app.new_key(Plan::Pro, READ).await;
    let flush = uuid::Uuid::now_v7();
    let counts = today_of(key.key_id, 7);
    for _ in 0..2 {
        ::forms::usage::store::add(&app.pool, flush, &counts)
            .await
            .expect("flush");
    }
    assert_eq!(written(&app, key.key_id).await, 7);
    ::forms::usage::store::add(&app.pool, uuid::Uuid::now_v7(), &counts)
        .await
        .expect("another flush");
    assert_eq!(written(&app, key.key_id).await, 14);
}

#[tokio::test]
async fn a_failed_usage_flush_is_kept_whole_and_read_once() {
    let app = TestApp::spawn().await;
    let key = app.new_key(Plan::Pro, READ).await;
    let tally = ::forms::usage::tally::Tally::default();
    for _ in 0..5 {
        tally.request(key.key_id);
    }
    // Nothing listens there: the flush fails and its counts are kept.
    let down = sqlx::postgres::PgPoolOptions::new()
        .acquire_timeout(std::time::Duration::from_secs(2))
        .connect_lazy("postgres://postgres@127.0.0.1:1/none")
        .expect("lazy pool");
    assert!(tally.flush(&down).await.is_err());
    for _ in 0..3 {
        tally.request(key.key_id);
    }
    let requests = |daily: Vec<::forms::usage::store::Day>| -> i64 {
        daily.iter().map(|d| d.request_count).sum()
    };
    let reads = ::forms::db::Replicas::none(app.pool.clone());
    let read = tally.daily(&reads, key.key_id, 1).await.expect("read");
    assert_eq!(requests(read), 8, "the failed flush and the pending counts");
    tally.flush(&app.pool).await.expect("flush");
    assert_eq!(written(&app, key.key_id).await, 8);
    tally.flush(&app.pool).await.expect("nothing left");
    assert_eq!(written(&app, key.key_id).await, 8);
    let read = tally.daily(&reads, key.key_id, 1).await.expect("read");
    assert_eq!(requests(read), 8, "read once, from the table");
}
