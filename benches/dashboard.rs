//! Every dashboard page on a form with BENCH_ROWS responses (1,000,000), rendered by the
//! release build over real HTTP with a real session, one request at a time: p50 and p99
//! per page (target: p99 under 20 ms at 1M), next to the bare SQL of the page's main
//! statement run BENCH_SAMPLES times on the same database. The responses are loaded by
//! SQL (as the hot-path benchmark does), with their per-day counters filled by the same
//! statement triggers as any insert.
//!
//! Run: `cargo bench --bench dashboard` (on a server of its own with production settings: see `common::production_server`).

// Test code: a failed unwrap is a failed test, and its helpers are `pub` to each other.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod common;

#[allow(dead_code)]
#[path = "../tests/api/dashboard_session.rs"]
mod dashboard_session;
// `crate::fixtures`, as the dashboard's test support names it.
#[allow(dead_code)]
#[path = "../tests/api/fixtures.rs"]
mod fixtures;

// `crate::harness`, as the dashboard's test support names it.
use common::harness::{self, TestApp};
use dashboard_session::{Dashboard, signed_in};
use forms::accounts::{Plan, Scope};
use serde_json::json;
use std::time::{Duration, Instant};

/// One page: its path, and its main statement with the values it binds.
struct Line {
    page: &'static str,
    path: String,
    sql: &'static str,
    binds: Vec<String>,
}

/// Above this a page's request is over its target; each such request is listed.
const TARGET: Duration = Duration::from_millis(20);

/// p50 and p99 of `samples` requests of `path`, and the requests over `TARGET` (their
/// order among the samples, and their time), so that a p99 over it says whether the
/// slow ones came first, together, or spread out.
async fn page_latency(
    dashboard: &Dashboard,
    path: &str,
    samples: usize,
) -> (Duration, Duration, Vec<(usize, Duration)>) {
    // Warm up: connections, caches.
    for _ in 0..10 {
        let page = dashboard.get(path).await;
        assert_eq!(
            page.status,
            200,
            "{path}: {}",
            &page.text[..page.text.len().min(400)]
        );
    }
    let mut took = Vec::with_capacity(samples);
    for _ in 0..samples {
        let started = Instant::now();
        let page = dashboard.get(path).await;
        took.push(started.elapsed());
        assert_eq!(page.status, 200);
    }
    let slow = took
        .iter()
        .enumerate()
        .filter(|(_, t)| **t > TARGET)
        .map(|(i, t)| (i, *t))
        .collect();
    let (p50, p99) = common::percentiles(&mut took);
    (p50, p99, slow)
}

async fn sql_latency(
    pool: &sqlx::PgPool,
    sql: &'static str,
    binds: &[String],
    samples: usize,
) -> (Duration, Duration) {
    let run = || {
        let mut query = sqlx::query(sql);
        for b in binds {
            query = query.bind(b.clone());
        }
        query.fetch_all(pool)
    };
    for _ in 0..10 {
        run().await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let mut took = Vec::with_capacity(samples);
    for _ in 0..samples {
        let started = Instant::now();
        run().await.unwrap();
        took.push(started.elapsed());
    }
    common::percentiles(&mut took)
}

/// The first link of a page with `rel="next"`, as the browser would follow it.
fn next_link(html: &str) -> Option<String> {
    let at = html.find("rel=\"next\"")?;
    let start = html[..at].rfind("href=\"")? + 6;
    let end = html[start..].find('"')? + start;
    Some(html[start..end].replace("&amp;", "&"))
}

#[tokio::main]
async fn main() {
    common::production_server().await;
    let rows = common::env_num("BENCH_ROWS", 1_000_000);
    let samples = common::env_num("BENCH_SAMPLES", 400);
    let app =
        TestApp::spawn_with(&["--pro-rate-limit", "1000000", "--webhook-allow-private"]).await;
    let owner = app
        .new_key(Plan::Pro, &[Scope::Read, Scope::Write, Scope::Admin])
        .await;
    let form = app
        .create_form(
            &owner.key,
            &json!({"title": "Survey", "fields": [
                {"type": "short_text", "label": "Name", "required": true},
                {"type": "email", "label": "Email", "required": true},
                {"type": "number", "label": "Age"},
                {"type": "long_text", "label": "Comments"},
            ]}),
        )
        .await;
    let form_id = form["id"].as_str().unwrap().to_owned();
    let fields: Vec<String> = form["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_owned())
        .collect();
    app.put(
        &format!("/forms/{form_id}"),
        &owner.key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    // A few forms beside it, as an account has.
    for n in 0..20 {
        app.create_form(&owner.key, &json!({"title": format!("Other {n}"), "fields": [{"type": "short_text", "label": "Q"}]}))
            .await;
    }
    let webhook = app
        .post(
            &format!("/forms/{form_id}/webhooks"),
            &owner.key,
            &json!({"name": "Sink", "url": "http://127.0.0.1:9/hook", "events": ["form.submitted"]}),
        )
        .await;
    let webhook_id = webhook.ok(201)["webhook"]["id"].as_str().map(str::to_owned);

    let loading = Instant::now();
    let mut conn = app.pool.acquire().await.unwrap();
    sqlx::query(
        "INSERT INTO responses (id, form_id, answers, metadata, device_type, browser, os,
                                started_at, submitted_at, completion_time_seconds)
         SELECT uuid_v7(), $1::uuid,
                jsonb_build_object($2::text, 'Person ' || n, $3::text, 'p' || n || '@example.com',
                                   $4::text, n % 90, $5::text, 'A comment about the survey, number ' || n),
                '{\"source\": \"form\"}', 'desktop', 'Firefox', 'Linux',
                now() - (n * interval '7 seconds') - interval '40 seconds',
                now() - (n * interval '7 seconds'), 40
           FROM generate_series(1, $6) AS n",
    )
    .bind(&form_id)
    .bind(&fields[0])
    .bind(&fields[1])
    .bind(&fields[2])
    .bind(&fields[3])
    .bind(rows as i64)
    .execute(&mut *conn)
    .await
    .unwrap();
    sqlx::query(
        "UPDATE forms SET response_count = response_count + $2,
                last_submitted_at = (SELECT max(submitted_at) FROM responses WHERE form_id = $1::uuid)
          WHERE id = $1::uuid",
    )
    .bind(&form_id)
    .bind(rows as i64)
    .execute(&mut *conn)
    .await
    .unwrap();
    sqlx::query("VACUUM ANALYZE responses")
        .execute(&mut *conn)
        .await
        .unwrap();
    sqlx::query("ANALYZE form_daily_responses")
        .execute(&mut *conn)
        .await
        .unwrap();
    drop(conn);
    // The summary's stored tally caught up, as the rollup keeps it within seconds of the
    // creates in service (rows loaded by SQL all at once would leave it 1M behind, and
    // the page would add them up live: that case is `insights`' summary line).
    let rolling = Instant::now();
    while forms::responses::rollup::round(&app.pool).await.unwrap() > 0 {}
    println!(
        "summary tally rolled up in {:.1} s",
        rolling.elapsed().as_secs_f64()
    );
    println!(
        "loaded {rows} responses in {:.1} s",
        loading.elapsed().as_secs_f64()
    );

    let dashboard = signed_in(&app, &owner.account).await;
    // A response in the middle, and a deep keyset page: the inbox's Next link followed
    // from a date filter that starts half-way down the form's history.
    let (middle_id, middle_at): (uuid::Uuid, chrono::DateTime<chrono::Utc>) = sqlx::query_as(
        "SELECT id, submitted_at FROM responses WHERE form_id = $1::uuid
          ORDER BY submitted_at DESC, id DESC OFFSET $2 LIMIT 1",
    )
    .bind(&form_id)
    .bind((rows / 2) as i64)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let until = middle_at.format("%Y-%m-%d").to_string();
    let inbox = format!("/app/forms/{form_id}/responses");
    let filtered = format!("{inbox}?until={until}");
    let deep = next_link(&dashboard.get(&filtered).await.text)
        .unwrap_or_else(|| panic!("no Next link on {filtered}"));
    let key_id = owner.key_id.to_string();
    let account_id: uuid::Uuid =
        sqlx::query_scalar("SELECT account_id FROM api_keys WHERE id = $1")
            .bind(owner.key_id)
            .fetch_one(&app.pool)
            .await
            .unwrap();

    let mut lines = vec![
        Line {
            page: "forms list",
            path: "/app/forms".into(),
            sql: "SELECT id, title, status, response_count, last_submitted_at FROM forms
                   WHERE account_id = $1::uuid ORDER BY created_at DESC, id DESC LIMIT 25",
            binds: vec![account_id.to_string()],
        },
        Line {
            page: "form builder",
            path: format!("/app/forms/{form_id}"),
            sql: "SELECT * FROM forms WHERE id = $1::uuid AND account_id = $2::uuid",
            binds: vec![form_id.clone(), account_id.to_string()],
        },
        Line {
            page: "builder, a question open",
            path: format!("/app/forms/{form_id}?edit={}", fields[1]),
            sql: "SELECT * FROM forms WHERE id = $1::uuid AND account_id = $2::uuid",
            binds: vec![form_id.clone(), account_id.to_string()],
        },
        Line {
            page: "summary",
            path: format!("/app/forms/{form_id}/summary"),
            sql: "SELECT * FROM response_rollups WHERE form_id = $1::uuid",
            binds: vec![form_id.clone()],
        },
        Line {
            page: "unfinished responses",
            path: format!("{inbox}?show=unfinished"),
            sql: "SELECT * FROM partial_responses WHERE form_id = $1::uuid
                   ORDER BY saved_at DESC LIMIT 26",
            binds: vec![form_id.clone()],
        },
        Line {
            page: "inbox, first page",
            path: inbox.clone(),
            sql: "SELECT * FROM responses WHERE form_id = $1::uuid
                   ORDER BY submitted_at DESC, id DESC LIMIT 26",
            binds: vec![form_id.clone()],
        },
        Line {
            page: "inbox, deep keyset page",
            path: deep,
            sql: "SELECT * FROM responses WHERE form_id = $1::uuid
                     AND (submitted_at, id) < ($2::timestamptz, $3::uuid)
                   ORDER BY submitted_at DESC, id DESC LIMIT 26",
            binds: vec![
                form_id.clone(),
                middle_at.to_rfc3339(),
                middle_id.to_string(),
            ],
        },
        Line {
            page: "response detail",
            path: format!("{inbox}/{middle_id}"),
            sql: "SELECT * FROM responses WHERE id = $1::uuid AND form_id = $2::uuid",
            binds: vec![middle_id.to_string(), form_id.clone()],
        },
        Line {
            page: "webhooks",
            path: format!("/app/forms/{form_id}/webhooks"),
            sql: "SELECT * FROM webhooks WHERE form_id = $1::uuid ORDER BY created_at",
            binds: vec![form_id.clone()],
        },
        Line {
            page: "API keys",
            path: "/app/keys".into(),
            sql: "SELECT * FROM api_keys WHERE account_id = $1::uuid ORDER BY created_at DESC",
            binds: vec![account_id.to_string()],
        },
        Line {
            page: "key usage (90 days)",
            path: format!("/app/keys/{key_id}"),
            sql: "SELECT * FROM usage_daily WHERE key_id = $1::uuid AND day > current_date - 90",
            binds: vec![key_id.clone()],
        },
        Line {
            page: "account",
            path: "/app/account".into(),
            sql: "SELECT * FROM response_quota_usage WHERE account_id = $1::uuid
                   AND month = date_trunc('month', now())::date",
            binds: vec![account_id.to_string()],
        },
    ];
    if let Some(webhook_id) = webhook_id {
        let after_webhooks = lines.iter().position(|l| l.page == "webhooks");
        lines.insert(
            after_webhooks.map_or(lines.len(), |i| i + 1),
            Line {
                page: "delivery log",
                path: format!("/app/forms/{form_id}/webhooks/{webhook_id}"),
                sql: "SELECT * FROM deliveries WHERE webhook_id = $1::uuid
                       ORDER BY created_at DESC LIMIT 25",
                binds: vec![webhook_id],
            },
        );
    }

    println!(
        "\ndashboard pages at {rows} responses, {samples} requests each, one at a time (target p99 < 20 ms)"
    );
    println!(
        "{:<26} {:>10} {:>10}   {:>10} {:>10}   verdict",
        "page", "p50", "p99", "SQL p50", "SQL p99"
    );
    let mut worst = Duration::ZERO;
    for line in &lines {
        let (p50, p99, slow) = page_latency(&dashboard, &line.path, samples).await;
        let (s50, s99) = sql_latency(&app.pool, line.sql, &line.binds, samples).await;
        worst = worst.max(p99);
        println!(
            "{:<26} {:>10} {:>10}   {:>10} {:>10}   {}",
            line.page,
            common::ms(p50),
            common::ms(p99),
            common::ms(s50),
            common::ms(s99),
            if p99 < TARGET { "ok" } else { "OVER 20 ms" }
        );
        if !slow.is_empty() {
            let listed: Vec<String> = slow
                .iter()
                .map(|(i, t)| format!("#{i} {}", common::ms(*t)))
                .collect();
            println!(
                "    {} of {samples} over 20 ms: {}",
                slow.len(),
                listed.join(", ")
            );
        }
    }
    println!("\nbare SQL of each page:");
    for line in &lines {
        println!(
            "  {:<24} {}",
            line.page,
            line.sql.split_whitespace().collect::<Vec<_>>().join(" ")
        );
    }
    println!("\nworst p99: {}", common::ms(worst));
}
