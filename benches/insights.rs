//! Finding responses and the summary on two forms of one table, with 10,000 and with
//! 1,000,000 responses (issue 21, point 3): formsd (the release build, over its own
//! fresh database) asked over real HTTP, one request at a time, BENCH_SAMPLES times
//! (200) a line, the two forms in turn so that both see the same moments of a shared
//! machine; beside each line its bare SQL (the statements formsd sends for it, values
//! written in and planned with them, as formsd plans a filtered list) run the same way
//! on one connection of the same database. Prints p50/p99 for both forms, the ratio
//! 1M/10k and the targets (p99 under 50 ms at 1M; cost at 1M within 2x the cost at
//! 10k, judged on p50), then the write cost of the index `responses_find`: the hot
//! path's one-form create (REST, wrk) on the 1M form and on a new one, and a bare
//! INSERT of a batch (pgbench), with the index and without it. BENCH_EXPLAIN=1 also
//! prints each bare statement's scans and times (EXPLAIN ANALYZE).
//!
//! The responses are loaded by SQL (as the hot-path benchmark does): a name (a few of
//! them with a rare word), a rating 1..5, a choice (a few of them a rare option) and a
//! number, `submitted_at` one second apart. The rollup (`responses::rollup::round`)
//! then brings the stored tallies up to date, and the table is vacuumed and analyzed.
//!
//! Needs `wrk` and `pgbench` on the PATH.
//! Run: `cargo bench --bench insights` (on a server of its own with production settings: see `common::production_server`).

// Test code: a failed unwrap is a failed test, and its helpers are `pub` to each other.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod common;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use chrono::{DateTime, Utc};
use common::harness::TestApp;
use common::{ms, pgbench, wrk};
use forms::accounts::{Plan, Scope};
use hmac::{Hmac, Mac};
use serde_json::json;
use sha2::Sha256;
use sqlx::{AssertSqlSafe, PgPool};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// The sizes measured: responses of the small form and of the large one.
const SIZES: [i64; 2] = [10_000, 1_000_000];
/// Rows whose name has the rare word and whose choice is the rare option: five of the
/// first 10,000, and one in 200,000 beyond.
const RARE: &str = "((i <= 10000 AND i % 2000 = 1000) OR i % 200000 = 0)";
const FAR_PAST: &str = "0001-01-01 00:00:00+00";
const FAR_FUTURE: &str = "9999-12-31 23:59:59+00";
const TARGET_P99: Duration = Duration::from_millis(50);
const TARGET_RATIO: f64 = 2.0;
/// Rows a bare INSERT writes (see the write cost).
const BATCH: usize = 32;

/// One measured line on one form: the REST request and its bare SQL.
struct Probe {
    what: &'static str,
    path: String,
    sql: String,
    samples: usize,
}

/// A form loaded with responses, and what its lines need.
struct Loaded {
    id: String,
    uuid: Uuid,
    ids: Vec<String>,
    size: i64,
}

/// Creates and publishes a form of the benchmark's fields.
async fn new_form(app: &TestApp, key: &str, title: &str) -> (String, Vec<String>) {
    let form = app
        .create_form(
            key,
            &json!({"title": title, "fields": [
                {"type": "short_text", "label": "Name", "ref": "name"},
                {"type": "rating", "label": "Rating", "max": 5, "ref": "rating"},
                {"type": "single_choice", "label": "Choice", "ref": "choice", "options": [
                    {"id": "a", "label": "A"}, {"id": "b", "label": "B"},
                    {"id": "c", "label": "C"}, {"id": "d", "label": "D"},
                    {"id": "rare", "label": "Rare"}]},
                {"type": "number", "label": "Number", "ref": "number"},
            ]}),
        )
        .await;
    let id = form["id"].as_str().unwrap().to_owned();
    let ids = form["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_owned())
        .collect();
    app.put(
        &format!("/forms/{id}"),
        key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    (id, ids)
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
         SELECT gen_random_uuid(), $1::uuid,
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
    sqlx::query(
        "UPDATE forms SET response_count = response_count + $2,
                last_submitted_at = (SELECT max(submitted_at) FROM responses WHERE form_id = $1::uuid)
          WHERE id = $1::uuid",
    )
    .bind(form)
    .bind(to - from + 1)
    .execute(&mut *conn)
    .await
    .unwrap();
}

/// A cursor for the listing of `form` newest first, after `(at, id)`: as formsd signs
/// them (`responses::cursor`), under the secret it keeps in the database.
async fn cursor(pool: &PgPool, form: Uuid, at: DateTime<Utc>, id: Uuid) -> String {
    let key: Vec<u8> =
        sqlx::query_scalar("SELECT value FROM service_secrets WHERE name = 'cursor-signing'")
            .fetch_one(pool)
            .await
            .unwrap();
    let mut bytes = vec![1u8, 1u8];
    bytes.extend_from_slice(form.as_bytes());
    bytes.extend_from_slice(&at.timestamp_micros().to_be_bytes());
    bytes.extend_from_slice(id.as_bytes());
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&key).unwrap();
    mac.update(&bytes);
    bytes.extend_from_slice(&mac.finalize().into_bytes()[..16]);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Times `samples` runs of each of `runs` taken in turn (one of each, then again), so
/// that both forms of a line see the same moments of a shared machine: p50 and p99
/// of each.
async fn interleaved<F, Fut>(runs: usize, samples: usize, run: F) -> Vec<(Duration, Duration)>
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
            let started = Instant::now();
            run(i).await;
            took.push(started.elapsed());
        }
    }
    took.iter_mut().map(|t| common::percentiles(t)).collect()
}

/// `SELECT` of a cursor-mode list page (25 rows and one more), newest first, before
/// `(at, id)`, with `filter` (SQL conditions on `r`): as `store::list` writes it.
fn list_sql(form: &str, filter: &str, at: &str, id: &str, limit: i64) -> String {
    format!(
        "SELECT r.id, r.form_id, r.answers, r.metadata, r.device_type, r.browser, r.os, \
         r.started_at, r.submitted_at, r.completion_time_seconds, NULL::integer AS page \
         FROM responses r WHERE r.form_id = '{form}' AND r.submitted_at > '{FAR_PAST}' \
         AND r.submitted_at < '{FAR_FUTURE}'{filter} AND (r.submitted_at, r.id) < ('{at}', '{id}') \
         ORDER BY r.submitted_at DESC, r.id DESC LIMIT {limit} OFFSET 0;"
    )
}

/// The form's count and fields, which every list reads first (`form_response_count`).
fn count_sql(form: &str, account: &str, filtering: bool) -> String {
    format!(
        "SELECT response_count, CASE WHEN {filtering} OR fields @> '[{{\"type\": \"page_break\"}}]' \
         THEN fields END FROM forms WHERE id = '{form}' AND account_id = '{account}';"
    )
}

/// The lines on `form`, as formsd answers them and as bare SQL.
async fn probes(pool: &PgPool, form: &Loaded, account: &str, samples: usize) -> Vec<Probe> {
    let form_id = &form.id;
    let base = format!("/forms/{form_id}");
    let (name, rating, choice) = (&form.ids[0], &form.ids[1], &form.ids[2]);
    let through_at: DateTime<Utc> =
        sqlx::query_scalar("SELECT through_at FROM response_rollups WHERE form_id = $1::uuid")
            .bind(form_id)
            .fetch_one(pool)
            .await
            .unwrap();
    // The deep page: a cursor after the response 90% down the list, newest first.
    let (deep_at, deep_id): (DateTime<Utc>, Uuid) = sqlx::query_as(
        "SELECT submitted_at, id FROM responses WHERE form_id = $1::uuid
          ORDER BY submitted_at ASC, id ASC OFFSET $2 LIMIT 1",
    )
    .bind(form_id)
    .bind(form.size / 10)
    .fetch_one(pool)
    .await
    .unwrap();
    let deep = cursor(pool, form.uuid, deep_at, deep_id).await;
    let deep_at = deep_at.to_rfc3339();
    let top = (FAR_FUTURE, "ffffffff-ffff-ffff-ffff-ffffffffffff");
    let window = format!("r.submitted_at > '{FAR_PAST}' AND r.submitted_at < '{FAR_FUTURE}'");
    let holds = |field: &str, value: serde_json::Value| {
        format!(
            " AND r.answers @> ANY(ARRAY['{}']::jsonb[])",
            json!({ field: value })
        )
    };
    vec![
        Probe {
            what: "summary, no filter",
            path: format!("{base}/summary"),
            sql: format!(
                "SELECT fields FROM forms WHERE id = '{form_id}' AND account_id = '{account}';\
                 SELECT through_at, tally FROM response_rollups WHERE form_id = '{form_id}' \
                   AND through_at IS NOT NULL AND tally IS NOT NULL;\
                 SELECT r.answers, r.device_type, r.browser, r.os, r.submitted_at, \
                   r.completion_time_seconds FROM responses r WHERE r.form_id = '{form_id}' \
                   AND r.submitted_at > '{}' AND r.submitted_at < '{FAR_FUTURE}' \
                   ORDER BY r.submitted_at ASC, r.id ASC;\
                 SELECT to_char(r.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), r.page, count(*) \
                   FROM responses_with_partial r WHERE r.form_id = '{form_id}' AND {window} \
                   AND r.status = ANY('{{partial}}') GROUP BY 1, 2;\
                 SELECT f.key AS field, t.id, t.submitted_at, t.value \
                   FROM unnest('{{{name}}}'::text[]) AS f (key) CROSS JOIN LATERAL \
                   (SELECT r.id, r.submitted_at, r.answers ->> f.key AS value FROM responses r \
                    WHERE r.form_id = '{form_id}' AND {window} \
                    AND jsonb_typeof(r.answers -> f.key) = 'string' \
                    ORDER BY r.submitted_at DESC, r.id DESC LIMIT 5) t;",
                through_at.to_rfc3339()
            ),
            samples,
        },
        Probe {
            what: "q=quixotic (a few rows)",
            path: format!("{base}/responses?q=quixotic&cursor="),
            sql: count_sql(form_id, account, true)
                + &list_sql(
                    form_id,
                    " AND r.search LIKE '%' || forms_fold('quixotic') || '%'",
                    top.0,
                    top.1,
                    26,
                ),
            samples,
        },
        Probe {
            what: "rating eq 5, first page",
            path: format!("{base}/responses?answers[rating][eq]=5&cursor="),
            sql: count_sql(form_id, account, true)
                + &list_sql(form_id, &holds(rating, json!(5)), top.0, top.1, 26),
            samples,
        },
        Probe {
            what: "choice eq rare, first page",
            path: format!("{base}/responses?answers[choice][eq]=rare&cursor="),
            sql: count_sql(form_id, account, true)
                + &list_sql(form_id, &holds(choice, json!("rare")), top.0, top.1, 26),
            samples,
        },
        Probe {
            what: "deep keyset page (90%)",
            path: format!("{base}/responses?cursor={deep}"),
            sql: count_sql(form_id, account, false)
                + &list_sql(form_id, "", &deep_at, &deep_id.to_string(), 26),
            samples,
        },
        Probe {
            what: "page mode, page 1, total",
            path: format!("{base}/responses?page=1&per_page=25"),
            sql: count_sql(form_id, account, false) + &list_sql(form_id, "", top.0, top.1, 25),
            samples,
        },
        Probe {
            what: "(a scanning total: count(*))",
            path: String::new(),
            sql: format!(
                "SELECT count(*) FROM responses r WHERE r.form_id = '{form_id}' AND {window};"
            ),
            samples: 20,
        },
    ]
}

/// Each statement's plan lines that tell its scans, rows and time.
async fn explain(pool: &PgPool, sql: &str) {
    for statement in sql.split(';').filter(|s| !s.trim().is_empty()) {
        let plan: Vec<String> = sqlx::query_scalar(AssertSqlSafe(format!(
            "EXPLAIN (ANALYZE, BUFFERS) {statement}"
        )))
        .fetch_all(pool)
        .await
        .unwrap();
        let telling = ["Scan", "Execution", "Planning", "JIT", "Rows Removed"];
        for line in plan
            .iter()
            .filter(|l| telling.iter().any(|k| l.contains(k)))
        {
            println!("   {line}");
        }
    }
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
    for (title, size) in [("Small", SIZES[0]), ("Large", SIZES[1])] {
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
    while forms::responses::rollup::round(&app.pool).await.unwrap() > 0 {}
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
        "{:<30} {:<5} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}  targets at 1M",
        "line", "", "10k p50", "10k p99", "1M p50", "1M p99", "p50 ×", "p99 ×"
    );
    let ratio = |a: Duration, b: Duration| b.as_secs_f64() / a.as_secs_f64().max(1e-9);
    for (small, large) in lines[0].iter().zip(&lines[1]) {
        let rest = if small.path.is_empty() {
            None
        } else {
            let paths = [&small.path, &large.path];
            Some(
                interleaved(2, small.samples, |i| {
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
        let bare_sql = interleaved(2, small.samples, |i| {
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
                let p99 = if f[1].1 < TARGET_P99 {
                    "met"
                } else {
                    "NOT MET"
                };
                let cost = if ratio(f[0].0, f[1].0) <= TARGET_RATIO {
                    "met"
                } else {
                    "NOT MET"
                };
                format!("p99<50ms {p99}, ×≤2 {cost}")
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
                ms(f[0].0),
                ms(f[0].1),
                ms(f[1].0),
                ms(f[1].1),
                ratio(f[0].0, f[1].0),
                ratio(f[0].1, f[1].1),
            );
        }
    }

    // The write cost of the index: the hot path's one-form create on the 1M form and on
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
    let with = rates();
    sqlx::query("DROP INDEX responses_find")
        .execute(&app.pool)
        .await
        .unwrap();
    let without = rates();
    println!("\nwrite cost of responses_find: {clients} clients, {secs} s a line");
    println!(
        "{:<42} {:>12} {:>12} {:>8}",
        "creates/s", "with index", "without", "with/without"
    );
    for (what, w, wo) in [
        ("POST …/responses, the 1M form (REST)", with.0, without.0),
        ("POST …/responses, a new form (REST)", with.1, without.1),
        (
            "bare INSERT of 32 rows (pgbench, rows/s)",
            with.2,
            without.2,
        ),
    ] {
        println!("{what:<42} {w:>12.0} {wo:>12.0} {:>7.2}×", w / wo);
    }
    println!("load average at end: {}", load_average());
}
