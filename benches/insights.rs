//! Finding responses and the summary on two forms of one table, with 10,000 and with
//! BENCH_ROWS (1,000,000) responses (issue 21, point 3; issue 35 asks it at 5,000,000): formsd (the release build, over its own
//! fresh database) asked over real HTTP, one request at a time, BENCH_SAMPLES times
//! (200) a line, the two forms in turn so that both see the same moments of a shared
//! machine; beside each line its bare SQL (the statements formsd sends for it, values
//! written in and planned with them, as formsd plans a filtered list) run the same way
//! on one connection of the same database. Prints p50/p99 for both forms, their
//! ratios and the targets (p99 under 50 ms on the large form; its p50 and its p99
//! each within 2x the small form's), then the write cost of the index
//! `responses_find`: the hot path's one-form create (REST, wrk) on the large form and
//! on a new one, and a bare
//! INSERT of a batch (pgbench), with the index, without it and with it again. BENCH_EXPLAIN=1 also
//! prints each bare statement's scans and times (EXPLAIN ANALYZE).
//!
//! The responses are loaded by SQL (as the hot-path benchmark does): a name (a few of
//! them with a rare word), a rating 1..5, a choice (a few of them a rare option) and a
//! number, `submitted_at` one second apart, with time-ordered ids as formsd gives them.
//! The rollup (`responses::rollup::round`) then brings the stored tallies up to date,
//! and the table is vacuumed and analyzed.
//!
//! Needs `wrk` and `pgbench` on the PATH.
//! Run: `cargo bench --bench insights` (on a server of its own with production settings: see `common::production_server`).

// Test code: a failed unwrap is a failed test, and its helpers are `pub` to each other.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod common;
#[path = "insights/probes.rs"]
mod probes;

use chrono::{DateTime, Utc};
use common::harness::TestApp;
use common::{ms, pgbench, wrk};
use forms::accounts::{Plan, Scope};
use probes::{Loaded, explain, probes};
use serde_json::json;
use sqlx::{AssertSqlSafe, PgPool};
use std::time::{Duration, Instant};

/// Responses of the small form; the large one has BENCH_ROWS (1,000,000).
const SMALL: i64 = 10_000;
/// Rows whose name has the rare word and whose choice is the rare option: five of the
/// first 10,000, and one in 200,000 beyond.
const RARE: &str = "((i <= 10000 AND i % 2000 = 1000) OR i % 200000 = 0)";
const TARGET_P99: Duration = Duration::from_millis(50);
const TARGET_RATIO: f64 = 2.0;
/// Rows a bare INSERT writes (see the write cost).
const BATCH: usize = 32;

/// Creates and publishes a form of the benchmark's fields.
async fn new_form(app: &TestApp, key: &str, title: &str) -> (String, Vec<String>) {
    let body = json!({"title": title, "fields": [
        {"type": "short_text", "label": "Name", "ref": "name"},
        {"type": "rating", "label": "Rating", "max": 5, "ref": "rating"},
        {"type": "single_choice", "label": "Choice", "ref": "choice", "options": [
            {"id": "a", "label": "A"}, {"id": "b", "label": "B"},
            {"id": "c", "label": "C"}, {"id": "d", "label": "D"},
            {"id": "rare", "label": "Rare"}]},
        {"type": "number", "label": "Number", "ref": "number"},
    ]});
    let (form, id) = common::published_form(app, key, &body).await;
    (id, common::field_ids(&form))
}

/// Loads responses `from..=to` of `form` (field ids in `ids`: name, rating, choice,
/// number), with the search text formsd would write (`forms_search_text`, the SQL twin
/// of its rule), and advances the form's counters as the create path does.
async fn load(pool: &PgPool, form: &str, ids: &[String], from: i64, to: i64) {
    let mut conn = pool.acquire().await.unwrap();
    sqlx::query(AssertSqlSafe(format!(
        "INSERT INTO responses (id, form_id, answers, metadata, device_type, browser, os,
                                started_at, submitted_at, completion_time_seconds, search)
         SELECT r.*, forms_search_text(r.answers) FROM (
         SELECT uuid_v7(), $1::uuid,
                jsonb_build_object(
                    $2::text, (ARRAY['Ada','Grace','Alan','Edsger','Barbara','Donald','Frances',
                                     'Ken','Dennis','Margaret','John','Radia','Leslie','Niklaus',
                                     'Tony','Sophie'])[1 + i % 16]
                              || ' ' ||
                              (ARRAY['Lovelace','Hopper','Turing','Dijkstra','Liskov','Knuth',
                                     'Allen','Thompson','Ritchie','Hamilton','Backus','Perlman',
                                     'Lamport','Wirth','Hoare','Wilson','Kay','Codd','Stonebraker',
                                     'Goldberg','Milner','Ullman','Karp'])[1 + (i / 16) % 23]
                              || CASE WHEN {RARE} THEN ' Quixotic' ELSE '' END,
                    $3::text, 1 + (i * 7919) % 5,
                    $4::text, CASE WHEN {RARE} THEN 'rare'
                                   ELSE (ARRAY['a','b','c','d'])[1 + i % 4] END,
                    $5::text, (i * 31337) % 1000),
                '{{\"source\": \"form\"}}'::jsonb,
                (ARRAY['desktop','mobile','tablet'])[1 + i % 3],
                (ARRAY['Firefox','Chrome','Safari'])[1 + i % 3], 'Linux',
                timestamptz '2025-01-01 00:00:00+00' + i * interval '1 second'
                    - (40 + i % 100) * interval '1 second',
                timestamptz '2025-01-01 00:00:00+00' + i * interval '1 second',
                40 + i % 100
           FROM generate_series($6::bigint, $7::bigint) AS i
         ) AS r (id, form_id, answers, metadata, device_type, browser, os, started_at,
                 submitted_at, completion_time_seconds)"
    )))
    .bind(form)
    .bind(&ids[0])
    .bind(&ids[1])
    .bind(&ids[2])
    .bind(&ids[3])
    .bind(from)
    .bind(to)
    .execute(&mut *conn)
    .await
    .unwrap();
    common::count_loaded(&mut conn, form, to - from + 1).await;
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::main]
async fn main() {
    common::production_server().await;
    let samples = common::env_num("BENCH_SAMPLES", 200);
    let clients = common::env_num("BENCH_CLIENTS", 32);
    let secs = common::env_num("BENCH_SECONDS", 8);
    let dir = tempfile::tempdir().expect("temp dir");
    let app = TestApp::spawn_with(common::UNLIMITED).await;
    let owner = app
        .new_key(Plan::Enterprise, &[Scope::Read, Scope::Write, Scope::Admin])
        .await;
    let key = owner.key.clone();
    println!("load average at start: {}", load_average());

    // The two forms, side by side in one table as tenants are; the large one is
    // bulk-loaded without the index, which is then built once, as a restore would.
    let mut forms = Vec::new();
    let rows = common::env_num("BENCH_ROWS", 1_000_000) as i64;
    let (small_name, large_name) = (common::rows_name(SMALL), common::rows_name(rows));
    for (title, size) in [("Small", SMALL), ("Large", rows)] {
        let (id, ids) = new_form(&app, &key, title).await;
        let started = Instant::now();
        let rebuild = size > 100_000;
        if rebuild {
            sqlx::query("DROP INDEX responses_find")
                .execute(&app.pool)
                .await
                .unwrap();
        }
        load(&app.pool, &id, &ids, 1, size).await;
        if rebuild {
            let mut conn = app.pool.acquire().await.unwrap();
            sqlx::query("SET maintenance_work_mem = '256MB'")
                .execute(&mut *conn)
                .await
                .unwrap();
            sqlx::query(
                "CREATE INDEX responses_find ON responses
                     USING gin (form_id, search gin_trgm_ops, answers jsonb_path_ops)",
            )
            .execute(&mut *conn)
            .await
            .unwrap();
        }
        println!(
            "{size} responses loaded in {:.1} s{}",
            started.elapsed().as_secs_f64(),
            if rebuild { " (index built after)" } else { "" }
        );
        forms.push(Loaded {
            uuid: id.parse().unwrap(),
            id,
            ids,
            size,
        });
    }
    let started = Instant::now();
    let ids: Vec<&str> = forms.iter().map(|f| f.id.as_str()).collect();
    common::caught_up(&app.pool, &ids).await;
    let rollup_took = started.elapsed();
    let started = Instant::now();
    sqlx::query("VACUUM ANALYZE responses")
        .execute(&app.pool)
        .await
        .unwrap();
    println!(
        "rollup caught up in {:.1} s (with formsd's own every 2 s), VACUUM ANALYZE {:.1} s",
        rollup_took.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    let account: String =
        sqlx::query_scalar("SELECT account_id::text FROM forms WHERE id = $1::uuid")
            .bind(&forms[0].id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    // The bare statements' own connection, so that they never wait for formsd's pool.
    let bare = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect(&app.db.url)
        .await
        .unwrap();

    let mut lines = Vec::new();
    for form in &forms {
        let (through_at, last): (DateTime<Utc>, DateTime<Utc>) = sqlx::query_as(
            "SELECT u.through_at, f.last_submitted_at
               FROM response_rollups u JOIN forms f ON f.id = u.form_id WHERE f.id = $1::uuid",
        )
        .bind(&form.id)
        .fetch_one(&app.pool)
        .await
        .unwrap();
        assert_eq!(through_at, last, "the rollup is behind");
        let base = format!("/forms/{}", form.id);
        // What the lines return: the few rows, the maintained total, the deep page.
        let found = app
            .get(
                &format!("{base}/responses?q=quixotic&cursor=&per_page=100"),
                &key,
            )
            .await;
        let found = found.ok(200)["responses"].as_array().unwrap().len();
        let paged = app.get(&format!("{base}/responses?page=1"), &key).await;
        assert_eq!(paged.ok(200)["pagination"]["total"], json!(form.size));
        let probes = probes(&app.pool, form, &account, samples).await;
        let deep_page = app.get(&probes[4].path, &key).await;
        let first = deep_page.ok(200)["responses"][0]["submitted_at"].clone();
        println!(
            "{} responses: q=quixotic finds {found}; the deep page starts at {first}",
            form.size
        );
        lines.push(probes);
    }
    if std::env::var("BENCH_EXPLAIN").is_ok_and(|v| !v.is_empty()) {
        for (form, probes) in forms.iter().zip(&lines) {
            for probe in probes {
                println!("-- {} at {}", probe.what, form.size);
                explain(&bare, &probe.sql).await;
            }
        }
    }

    println!(
        "\n{samples} requests a line, one at a time, the two forms in turn; formsd release \
         build, one host (2 cores shared with other builds: load average {})",
        load_average()
    );
    println!(
        "{:<30} {:<5} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}  targets at {large_name}",
        "line",
        "",
        format!("{small_name} p50"),
        format!("{small_name} p99"),
        format!("{large_name} p50"),
        format!("{large_name} p99"),
        "p50 ×",
        "p99 ×"
    );
    let ratio = |a: Duration, b: Duration| b.as_secs_f64() / a.as_secs_f64().max(1e-9);
    for (small, large) in lines[0].iter().zip(&lines[1]) {
        let rest = if small.path.is_empty() {
            None
        } else {
            let paths = [&small.path, &large.path];
            Some(
                common::in_turn(2, small.samples, |i| {
                    let (app, key, path) = (&app, &key, paths[i]);
                    async move {
                        let reply = app.get(path, key).await;
                        assert_eq!(reply.status, 200, "{path}: {}", reply.text);
                    }
                })
                .await,
            )
        };
        let sqls = [&small.sql, &large.sql];
        let bare_sql = common::in_turn(2, small.samples, |i| {
            let (bare, sql) = (&bare, sqls[i]);
            async move {
                sqlx::raw_sql(AssertSqlSafe(sql.clone()))
                    .fetch_all(bare)
                    .await
                    .unwrap_or_else(|e| panic!("{sql}: {e}"));
            }
        })
        .await;
        for (label, figures) in [("REST", rest), ("SQL", Some(bare_sql))] {
            let Some(f) = figures else { continue };
            let verdict = if label == "REST" {
                let p99 = if f[1].p99 < TARGET_P99 {
                    "met"
                } else {
                    "NOT MET"
                };
                let within = |small: Duration, large: Duration| {
                    if ratio(small, large) <= TARGET_RATIO {
                        "met"
                    } else {
                        "NOT MET"
                    }
                };
                format!(
                    "p99<50ms {p99}, p50 ×≤2 {}, p99 ×≤2 {}",
                    within(f[0].p50, f[1].p50),
                    within(f[0].p99, f[1].p99)
                )
            } else {
                String::new()
            };
            println!(
                "{:<30} {:<5} {:>9} {:>9} {:>9} {:>9} {:>7.2}× {:>7.2}×  {verdict}",
                if label == "REST" || small.path.is_empty() {
                    small.what
                } else {
                    ""
                },
                label,
                ms(f[0].p50),
                ms(f[0].p99),
                ms(f[1].p50),
                ms(f[1].p99),
                ratio(f[0].p50, f[1].p50),
                ratio(f[0].p99, f[1].p99),
            );
        }
    }

    // The write cost of the index: the hot path's one-form create on the large form and on
    // a new form of the same fields, and the bare INSERT, with the index and without it.
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("script");
        path
    };
    let answers = |ids: &[String]| {
        json!({
            ids[0].as_str(): "Ada Lovelace", ids[1].as_str(): 4,
            ids[2].as_str(): "b", ids[3].as_str(): 12,
        })
    };
    let post = |name: &str, ids: &[String]| {
        write(
            name,
            &format!(
                "wrk.method = \"POST\"\nwrk.headers[\"x-api-key\"] = {:?}\n\
                 wrk.headers[\"content-type\"] = \"application/json\"\nwrk.body = {:?}\n",
                key,
                json!({ "answers": answers(ids) }).to_string()
            ),
        )
    };
    let large = &forms[1];
    let (fresh_id, fresh_ids) = new_form(&app, &key, "New").await;
    let post_large = post("post_large.lua", &large.ids);
    let post_fresh = post("post_fresh.lua", &fresh_ids);
    // The bare INSERT writes BATCH rows a statement, as formsd writes a form's batch: a
    // lone row a transaction would measure the wait on the form's day counter instead.
    // A space after each key's colon: pgbench reads `:name` as a variable.
    let insert = write(
        "insert.sql",
        &format!(
            "INSERT INTO responses (id, form_id, answers, started_at, submitted_at, search) \
             SELECT gen_random_uuid(), '{}', '{}', now(), now(), E'{}' \
             FROM generate_series(1, {BATCH});\n",
            large.id,
            answers(&large.ids).to_string().replace("\":", "\": "),
            // The search text formsd writes with each response.
            common::search_literal(&answers(&large.ids))
        ),
    );
    let large_url = format!("{}/forms/{}/responses", app.http_base, large.id);
    let fresh_url = format!("{}/forms/{fresh_id}/responses", app.http_base);
    let db = app.db.url.clone();
    let rates = || {
        (
            wrk(&large_url, &post_large, clients, secs),
            wrk(&fresh_url, &post_fresh, clients, secs),
            pgbench(&db, std::slice::from_ref(&insert), clients, secs) * BATCH as f64,
        )
    };
    // With the index, without it, and with it again after building it anew: the two
    // "with" lines bracket the one without, so that a drift of the machine or of the
    // table's upkeep (the load's checkpoint, autovacuum) shows as their difference
    // rather than as the index's cost.
    let with = rates();
    let definition = common::drop_search_index(&app.pool).await;
    let without = rates();
    let building = Instant::now();
    sqlx::query(AssertSqlSafe(definition))
        .execute(&app.pool)
        .await
        .unwrap();
    let built = building.elapsed().as_secs_f64();
    let again = rates();
    println!(
        "\nwrite cost of responses_find: {clients} clients, {secs} s a line; with it, without \
         it, then with it again (built anew in {built:.1} s)"
    );
    println!(
        "{:<42} {:>10} {:>10} {:>10} {:>8} {:>8}",
        "creates/s", "with", "without", "again", "with/wo", "again/wo"
    );
    let large_line = format!("POST …/responses, the {large_name} form (REST)");
    for (what, w, wo, a) in [
        (large_line.as_str(), with.0, without.0, again.0),
        (
            "POST …/responses, a new form (REST)",
            with.1,
            without.1,
            again.1,
        ),
        (
            "bare INSERT of 32 rows (pgbench, rows/s)",
            with.2,
            without.2,
            again.2,
        ),
    ] {
        println!(
            "{what:<42} {w:>10.0} {wo:>10.0} {a:>10.0} {:>7.2}× {:>7.2}×",
            w / wo,
            a / wo
        );
    }
    println!("load average at end: {}", load_average());
}
