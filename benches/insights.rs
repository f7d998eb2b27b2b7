//! Finding responses and the summary on one form with 10,000 and then 1,000,000
//! responses (issue 21, point 3): formsd (the release build, over its own fresh
//! database) asked over real HTTP, one request at a time, BENCH_SAMPLES times (200) a
//! line; beside each line its bare SQL (the statements formsd sends for it, values
//! written in, planned with them) run the same way on one connection of the same
//! database. Prints p50/p99 at both sizes, the ratio 1M/10k and the targets (p99 under
//! 50 ms at 1M; cost at 1M within 2x the cost at 10k, judged on p50), then the write
//! cost of the index `responses_find`: the hot path's one-form create (REST, wrk) and
//! the bare INSERT (pgbench), with and without it.
//!
//! The responses are loaded by SQL (as the hot-path benchmark does): a name (a few of
//! them with a rare word), a rating 1..5, a choice (a few of them a rare option) and a
//! number, `submitted_at` one second apart. The rollup (`responses::rollup::round`)
//! then brings the stored tally up to date, and the tables are vacuumed and analyzed.
//!
//! Needs `wrk` and `pgbench` on the PATH.
//! Run: `cargo bench --bench insights` (DATABASE_URL as for the tests).

// Test code: a failed unwrap is a failed test, and its helpers are `pub` to each other.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod common;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use chrono::{DateTime, Utc};
use common::helpers::TestApp;
use common::{ms, pgbench, wrk};
use forms::accounts::{Plan, Scope};
use hmac::{Hmac, Mac};
use serde_json::json;
use sha2::Sha256;
use sqlx::{AssertSqlSafe, PgPool};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// The sizes measured, in responses of the one form.
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

/// One measured line at one size: the REST request and its bare SQL.
struct Probe {
    what: &'static str,
    path: String,
    sql: String,
    samples: usize,
}

/// p50 and p99 of a line at each size.
#[derive(Default)]
struct Figures {
    rest: Vec<(Duration, Duration)>,
    bare: Vec<(Duration, Duration)>,
}

/// Loads responses `from..=to` of `form` (field ids in `ids`: name, rating, choice,
/// number) and advances the form's counters as the create path does.
async fn load(pool: &PgPool, form: &str, ids: &[String], from: i64, to: i64) {
    let mut conn = pool.acquire().await.unwrap();
    sqlx::query(AssertSqlSafe(format!(
        "INSERT INTO responses (id, form_id, answers, metadata, device_type, browser, os,
                                started_at, submitted_at, completion_time_seconds)
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
                '{{\"source\": \"form\"}}',
                (ARRAY['desktop','mobile','tablet'])[1 + i % 3],
                (ARRAY['Firefox','Chrome','Safari'])[1 + i % 3], 'Linux',
                timestamptz '2025-01-01 00:00:00+00' + i * interval '1 second'
                    - (40 + i % 100) * interval '1 second',
                timestamptz '2025-01-01 00:00:00+00' + i * interval '1 second',
                40 + i % 100
           FROM generate_series($6::bigint, $7::bigint) AS i"
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

async fn rest_latency(
    app: &TestApp,
    key: &str,
    path: &str,
    samples: usize,
) -> (Duration, Duration) {
    for _ in 0..5 {
        let reply = app.get(path, key).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.text);
    }
    let mut took = Vec::with_capacity(samples);
    for _ in 0..samples {
        let started = Instant::now();
        let reply = app.get(path, key).await;
        took.push(started.elapsed());
        assert_eq!(reply.status, 200);
    }
    common::percentiles(&mut took)
}

async fn sql_latency(pool: &PgPool, sql: &str, samples: usize) -> (Duration, Duration) {
    let run = || sqlx::raw_sql(AssertSqlSafe(sql.to_owned())).fetch_all(pool);
    for _ in 0..5 {
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
    let samples = common::env_num("BENCH_SAMPLES", 200);
    let clients = common::env_num("BENCH_CLIENTS", 32);
    let secs = common::env_num("BENCH_SECONDS", 8);
    let dir = tempfile::tempdir().expect("temp dir");
    let app = TestApp::spawn_with(&[
        "--enterprise-rate-limit",
        "1000000000",
        "--enterprise-response-limit",
        "unlimited",
        "--db-max-connections",
        "40",
    ])
    .await;
    let owner = app
        .new_key(Plan::Enterprise, &[Scope::Read, Scope::Write, Scope::Admin])
        .await;
    let key = owner.key.clone();
    let form = app
        .create_form(
            &key,
            &json!({"title": "Insights", "fields": [
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
    let form_id = form["id"].as_str().unwrap().to_owned();
    let form_uuid: Uuid = form_id.parse().unwrap();
    let ids: Vec<String> = form["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_owned())
        .collect();
    app.put(
        &format!("/forms/{form_id}"),
        &key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    let account = owner.account.clone();
    // The bare statements' own connection, so that they never wait for formsd's pool.
    let bare = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect(&app.db.url)
        .await
        .unwrap();
    let base = format!("/forms/{form_id}");
    let [name, rating, choice, _] = [&ids[0], &ids[1], &ids[2], &ids[3]];
    println!("load average at start: {}", load_average());

    let mut figures: Vec<(&'static str, Figures)> = Vec::new();
    let mut loaded = 0;
    for size in SIZES {
        // Load: a bulk load builds the index once after it, as a restore would; the
        // rows of the first size go in through it.
        let started = Instant::now();
        let rebuild = size - loaded > 100_000;
        if rebuild {
            sqlx::query("DROP INDEX responses_find")
                .execute(&app.pool)
                .await
                .unwrap();
        }
        load(&app.pool, &form_id, &ids, loaded + 1, size).await;
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
        loaded = size;
        let load_took = started.elapsed();
        let started = Instant::now();
        loop {
            if forms::responses::rollup::round(&app.pool).await.unwrap() == 0 {
                break;
            }
        }
        let rollup_took = started.elapsed();
        let started = Instant::now();
        sqlx::query("VACUUM ANALYZE responses")
            .execute(&app.pool)
            .await
            .unwrap();
        println!(
            "\n{size} responses: loaded in {:.1} s{}, rollup caught up in {:.1} s \
             (with formsd's own), VACUUM ANALYZE {:.1} s; load average {}",
            load_took.as_secs_f64(),
            if rebuild {
                " (index rebuilt after)"
            } else {
                ""
            },
            rollup_took.as_secs_f64(),
            started.elapsed().as_secs_f64(),
            load_average()
        );

        let (through_at, tallied): (DateTime<Utc>, DateTime<Utc>) = sqlx::query_as(
            "SELECT u.through_at, f.last_submitted_at
               FROM response_rollups u JOIN forms f ON f.id = u.form_id WHERE f.id = $1::uuid",
        )
        .bind(&form_id)
        .fetch_one(&app.pool)
        .await
        .unwrap();
        assert_eq!(through_at, tallied, "the rollup is behind");
        // The deep page: a cursor after the response 90% down the list, newest first.
        let (deep_at, deep_id): (DateTime<Utc>, Uuid) = sqlx::query_as(
            "SELECT submitted_at, id FROM responses WHERE form_id = $1::uuid
              ORDER BY submitted_at ASC, id ASC OFFSET $2 LIMIT 1",
        )
        .bind(&form_id)
        .bind(size / 10)
        .fetch_one(&app.pool)
        .await
        .unwrap();
        let deep = cursor(&app.pool, form_uuid, deep_at, deep_id).await;
        let deep_at = deep_at.to_rfc3339();
        let top = (FAR_FUTURE, "ffffffff-ffff-ffff-ffff-ffffffffffff");
        let window = format!("r.submitted_at > '{FAR_PAST}' AND r.submitted_at < '{FAR_FUTURE}'");
        let holds = |field: &str, value: serde_json::Value| {
            format!(
                " AND r.answers @> ANY(ARRAY['{}']::jsonb[])",
                json!({ field: value })
            )
        };

        let probes = [
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
                sql: count_sql(&form_id, &account, true)
                    + &list_sql(
                        &form_id,
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
                sql: count_sql(&form_id, &account, true)
                    + &list_sql(&form_id, &holds(rating, json!(5)), top.0, top.1, 26),
                samples,
            },
            Probe {
                what: "choice eq rare, first page",
                path: format!("{base}/responses?answers[choice][eq]=rare&cursor="),
                sql: count_sql(&form_id, &account, true)
                    + &list_sql(&form_id, &holds(choice, json!("rare")), top.0, top.1, 26),
                samples,
            },
            Probe {
                what: "deep keyset page (90%)",
                path: format!("{base}/responses?cursor={deep}"),
                sql: count_sql(&form_id, &account, false)
                    + &list_sql(&form_id, "", &deep_at, &deep_id.to_string(), 26),
                samples,
            },
            Probe {
                what: "page mode, page 1, total",
                path: format!("{base}/responses?page=1&per_page=25"),
                sql: count_sql(&form_id, &account, false)
                    + &list_sql(&form_id, "", top.0, top.1, 25),
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
        ];
        // What the lines return: the few rows, a full page, the maintained total.
        let found = app
            .get(
                &format!("{base}/responses?q=quixotic&cursor=&per_page=100"),
                &key,
            )
            .await;
        let found = found.ok(200)["responses"].as_array().unwrap().len();
        let paged = app.get(&format!("{base}/responses?page=1"), &key).await;
        assert_eq!(paged.ok(200)["pagination"]["total"], json!(size));
        let deep_page = app
            .get(&format!("{base}/responses?cursor={deep}"), &key)
            .await;
        let first = deep_page.ok(200)["responses"][0]["submitted_at"].clone();
        println!("q=quixotic finds {found} responses; the deep page starts at {first}");

        for probe in probes {
            let rest = if probe.path.is_empty() {
                (Duration::ZERO, Duration::ZERO)
            } else {
                rest_latency(&app, &key, &probe.path, probe.samples).await
            };
            let sql = sql_latency(&bare, &probe.sql, probe.samples).await;
            match figures.iter_mut().find(|(w, _)| *w == probe.what) {
                Some((_, f)) => {
                    f.rest.push(rest);
                    f.bare.push(sql);
                }
                None => figures.push((
                    probe.what,
                    Figures {
                        rest: vec![rest],
                        bare: vec![sql],
                    },
                )),
            }
        }
    }

    println!(
        "\n{samples} requests a line, one at a time; formsd release build, one host \
         (2 cores shared with other builds: load average {})",
        load_average()
    );
    println!(
        "{:<30} {:<5} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}  {}",
        "line", "", "10k p50", "10k p99", "1M p50", "1M p99", "p50 ×", "p99 ×", "targets at 1M"
    );
    for (what, f) in &figures {
        for (label, [small, large]) in [
            ("REST", [f.rest[0], f.rest[1]]),
            ("SQL", [f.bare[0], f.bare[1]]),
        ] {
            if label == "REST" && large.1.is_zero() {
                continue;
            }
            let ratio = |a: Duration, b: Duration| b.as_secs_f64() / a.as_secs_f64().max(1e-9);
            let verdict = if label == "REST" {
                let p99 = if large.1 < TARGET_P99 {
                    "met"
                } else {
                    "NOT MET"
                };
                let cost = if ratio(small.0, large.0) <= TARGET_RATIO {
                    "met"
                } else {
                    "NOT MET"
                };
                format!("p99<50ms {p99}, ×≤2 {cost}")
            } else {
                String::new()
            };
            println!(
                "{:<30} {:<5} {:>9} {:>9} {:>9} {:>9} {:>7.2}× {:>7.2}×  {}",
                if label == "REST" || f.rest[1].1.is_zero() {
                    *what
                } else {
                    ""
                },
                label,
                ms(small.0),
                ms(small.1),
                ms(large.0),
                ms(large.1),
                ratio(small.0, large.0),
                ratio(small.1, large.1),
                verdict
            );
        }
    }

    // The write cost of the index: the hot path's one-form create, and its bare INSERT,
    // on this form of 1M responses, with the index and without it.
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("script");
        path
    };
    let answers = json!({name: "Ada Lovelace", rating: 4, choice: "b", ids[3].as_str(): 12});
    // The bare INSERT writes BATCH rows a statement, as formsd writes a form's batch: a
    // lone row a transaction would measure the wait on the form's day counter instead.
    // A space after each key's colon: pgbench reads `:name` as a variable.
    let insert = write(
        "insert.sql",
        &format!(
            "INSERT INTO responses (id, form_id, answers, started_at, submitted_at) \
             SELECT gen_random_uuid(), '{form_id}', '{}', now(), now() \
             FROM generate_series(1, {BATCH});\n",
            answers.to_string().replace("\":", "\": ")
        ),
    );
    let post = write(
        "post.lua",
        &format!(
            "wrk.method = \"POST\"\nwrk.headers[\"x-api-key\"] = {:?}\n\
             wrk.headers[\"content-type\"] = \"application/json\"\nwrk.body = {:?}\n",
            key,
            json!({ "answers": answers }).to_string()
        ),
    );
    let post_url = format!("{}/forms/{form_id}/responses", app.http_base);
    let db = app.db.url.clone();
    let with = (
        wrk(&post_url, &post, clients, secs),
        pgbench(&db, std::slice::from_ref(&insert), clients, secs) * BATCH as f64,
    );
    sqlx::query("DROP INDEX responses_find")
        .execute(&app.pool)
        .await
        .unwrap();
    let without = (
        wrk(&post_url, &post, clients, secs),
        pgbench(&db, std::slice::from_ref(&insert), clients, secs) * BATCH as f64,
    );
    println!("\nwrite cost of responses_find: {clients} clients, {secs} s a line, the 1M form");
    println!(
        "{:<42} {:>12} {:>12} {:>8}",
        "creates/s", "with index", "without", "with/without"
    );
    for (what, w, wo) in [
        ("POST …/responses, one form (REST)", with.0, without.0),
        (
            "bare INSERT of 32 rows (pgbench, rows/s)",
            with.1,
            without.1,
        ),
    ] {
        println!("{what:<42} {w:>12.0} {wo:>12.0} {:>7.2}×", w / wo);
    }
    println!("load average at end: {}", load_average());
}
