//! The measured figures of `docs/src/running/capacity.md` (the book's Capacity page): what one response and one delivery cost
//! on disk, in WAL and in CPU seconds, of formsd and of PostgreSQL, so that a
//! deployment can be sized from rates instead of guesses.
//!
//! formsd (the release build, over its own fresh database) with BENCH_ACCOUNTS (64)
//! accounts, each with a published form of six typical fields, driven by `wrk` at BENCH_CLIENTS (32)
//! connections for BENCH_SECONDS (20) a phase:
//! 1. creates, no webhook; then the same with an `Idempotency-Key` each;
//! 2. creates on the same forms, each now with a webhook to a receiver on loopback that
//!    answers at once, until every delivery has succeeded;
//! 3. deliveries alone: phase 2's deliveries copied as a pending backlog by SQL (each
//!    once more), drained.
//!
//! CPU is read from `/proc/<pid>/stat`: formsd's process, and PostgreSQL's processes
//! that serve this database (formsd's pool) plus the cluster's own background
//! processes (WAL writer, checkpointer, background writer, autovacuum), which serve
//! every database: run it on an otherwise quiet server. Sizes are after `VACUUM`, so a
//! row's dead versions count only as the free space they leave for later rows.
//!
//! BENCH_PRELOAD (0) responses are written by SQL after a phase 0 (phase 1's creates on
//! the table before it), to measure creates against a table of that size: their rate
//! against phase 0's is printed with its target (>= 0.8x), as is the PostgreSQL CPU of
//! a create with its delivery against a plain one's (phase 2 against phase 1, <= 1.5x).
//!
//! Needs `wrk`. Run: `cargo bench --bench capacity` (on a server of its own with production settings: see `common::production_server`).

// Test code: a failed unwrap is a failed test, and its helpers are `pub` to each other.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod common;
#[path = "capacity/meter.rs"]
mod meter;

use axum::routing::post;
use common::harness::TestApp;
use common::{figure, run};
use forms::accounts::{Plan, Scope};
use meter::{Meter, Rates, print_phase};
use serde_json::json;
use sqlx::{AssertSqlSafe, PgPool};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Six fields a typical survey has.
fn fields() -> serde_json::Value {
    json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "email", "label": "Email", "required": true},
        {"type": "single_choice", "label": "Plan",
         "options": [{"id": "free", "label": "Free"}, {"id": "team", "label": "Team"},
                     {"id": "business", "label": "Business"}]},
        {"type": "rating", "label": "How likely are you to recommend us?", "max": 5},
        {"type": "long_text", "label": "What should we improve?"},
        {"type": "hidden", "label": "utm_source"},
    ])
}

/// Answers to `fields`, by the form's field ids: about 400 bytes of JSON.
fn answers(form: &serde_json::Value) -> serde_json::Value {
    let values = [
        json!("Ada Lovelace"),
        json!("ada.lovelace@example.com"),
        json!("team"),
        json!(4),
        json!(
            "The export could keep the column order of the form, and the summary page \
             could show the trend of the last weeks next to the totals. Otherwise it \
             does what we need, and the webhooks arrive quickly."
        ),
        json!("newsletter"),
    ];
    let ids = form["fields"].as_array().expect("fields").iter();
    let answers: serde_json::Map<_, _> = ids
        .zip(values)
        .map(|(f, v)| (f["id"].as_str().expect("id").to_owned(), v))
        .collect();
    serde_json::Value::Object(answers)
}

/// The first figure of a fixed statement of the benchmark's own.
async fn count(pool: &PgPool, sql: &str) -> i64 {
    // The benchmark's own fixed statements and table names.
    sqlx::query_scalar(AssertSqlSafe(sql.to_owned()))
        .fetch_one(pool)
        .await
        .expect("count")
}

/// The on-disk bytes of `tables` (heap, TOAST, every index), after VACUUM, per row of
/// the first: printed part by part.
async fn print_sizes(pool: &PgPool, what: &str, tables: &[&str]) {
    for table in tables {
        sqlx::query(AssertSqlSafe(format!("VACUUM (ANALYZE) {table}")))
            .execute(pool)
            .await
            .expect("vacuum");
    }
    let rows = count(pool, &format!("SELECT count(*) FROM {}", tables[0])).await;
    let parts: Vec<(String, i64)> = sqlx::query_as(
        "SELECT c.relname || ' (heap+TOAST)', pg_table_size(c.oid) FROM pg_class c \
           WHERE c.relname::text = ANY($1) \
         UNION ALL \
         SELECT i.relname::text, pg_relation_size(i.oid) FROM pg_index x \
           JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid \
          WHERE t.relname::text = ANY($1) \
         ORDER BY 2 DESC",
    )
    .bind(tables)
    .fetch_all(pool)
    .await
    .expect("sizes");
    let total: i64 = parts.iter().map(|(_, b)| b).sum();
    println!(
        "{what}: {rows} rows, {:.1} MiB, {:.0} B each",
        total as f64 / 1048576.0,
        total as f64 / rows.max(1) as f64
    );
    for (part, bytes) in parts {
        println!(
            "    {part:<40} {:>7.0} B each",
            bytes as f64 / rows.max(1) as f64
        );
    }
}

/// Writes `rows` responses by SQL, spread over the forms, before phase 1: the forms'
/// responses so far again, each comment and email made its own (so that the search
/// index holds as many distinct trigrams as real text would), submitted before any
/// response the phases add, with time-ordered ids as formsd gives them. The search
/// index is dropped and built again after, as a restore would.
///
/// A row keeps its seed's size: the end of each long text is a digest of the row's
/// own, of the same length. Rows made longer than the creates that follow leave each
/// page with room for one more create, and the phase after the preload measured
/// creates each into an old page (see `Placement`), which a table grown by these
/// creates would not have.
async fn preload_responses(pool: &PgPool, rows: usize) {
    const BATCH: usize = 100_000;
    let definition = common::drop_search_index(pool).await;
    let seeds: i64 = count(pool, "SELECT count(*) FROM responses").await;
    for from in (0..rows).step_by(BATCH) {
        let to = (from + BATCH).min(rows);
        // Each seed's answers, with its text answers (the name and the comment) given
        // a suffix of the row's own: a hex digest, as unlike the others as a real name.
        sqlx::query(
            "INSERT INTO responses (id, form_id, answers, metadata, device_type, browser, os,
                                    started_at, submitted_at, completion_time_seconds, search)
             SELECT r.*, forms_search_text(r.answers) FROM (
               SELECT uuid_v7(), s.form_id,
                      (SELECT jsonb_object_agg(k, CASE WHEN jsonb_typeof(v) = 'string'
                                                        AND length(v #>> '{}') > 20
                                                   THEN to_jsonb(left(v #>> '{}', -least(length(v #>> '{}') / 2, 32))
                                                                 || right(md5(i::text), least(length(v #>> '{}') / 2, 32)))
                                                   ELSE v END)
                         FROM jsonb_each(s.answers) AS a (k, v)),
                      s.metadata, s.device_type, s.browser, s.os,
                      s.started_at - i * interval '1 second',
                      s.submitted_at - i * interval '1 second', s.completion_time_seconds
                 FROM generate_series($1::bigint, $2::bigint) AS i
                 JOIN (SELECT *, row_number() OVER (ORDER BY id) - 1 AS n FROM responses
                        ORDER BY id LIMIT $3) AS s ON s.n = i % $3
             ) AS r (id, form_id, answers, metadata, device_type, browser, os, started_at,
                     submitted_at, completion_time_seconds)",
        )
        .bind(i64::try_from(from).expect("rows"))
        .bind(i64::try_from(to).expect("rows") - 1)
        .bind(seeds)
        .execute(pool)
        .await
        .expect("preload");
    }
    sqlx::query(AssertSqlSafe(definition))
        .execute(pool)
        .await
        .expect("index again");
    sqlx::query("VACUUM (ANALYZE) responses")
        .execute(pool)
        .await
        .expect("vacuum");
}

/// Where a phase's creates went in the heap of `responses`: into the pages it had
/// before the phase, or into pages added after. A create into an old page dirties a
/// page that no create touched since the last checkpoint (a full page in WAL, and a
/// read if it left memory); the free space map offers such pages once `VACUUM` has
/// recorded their room, as it does for the preload's.
struct Placement {
    /// The heap's pages before the phase.
    pages: i64,
    /// The greatest id before the phase: formsd's ids are time-ordered, so the
    /// phase's rows are those after it.
    last: Option<uuid::Uuid>,
}

impl Placement {
    async fn before(pool: &PgPool) -> Self {
        let pages = count(
            pool,
            "SELECT pg_relation_size('responses') / current_setting('block_size')::bigint",
        )
        .await;
        let last = sqlx::query_scalar("SELECT id FROM responses ORDER BY id DESC LIMIT 1")
            .fetch_optional(pool)
            .await
            .expect("last id");
        Self { pages, last }
    }

    async fn print(&self, pool: &PgPool) {
        let (old, all): (i64, i64) = sqlx::query_as(
            "SELECT count(*) FILTER (WHERE (ctid::text::point)[0] < $1), count(*)
               FROM responses WHERE $2::uuid IS NULL OR id > $2",
        )
        .bind(self.pages)
        .bind(self.last)
        .fetch_one(pool)
        .await
        .expect("placement");
        println!(
            "    heap: {old} of {all} creates into the {} pages the table had before the phase ({:.0}%)",
            self.pages,
            100.0 * old as f64 / all.max(1) as f64
        );
    }
}

/// wrk with a Lua script for `secs`: prints how many answers were not 2xx (under a
/// table that outgrows memory a create may wait past the pool's acquire timeout and be
/// answered 503, which a capacity run reports rather than fails on).
fn wrk(url: &str, script: &std::path::Path, clients: usize, secs: usize) {
    let text = run(Command::new("wrk")
        .args(["-t", "2", "-c", &clients.to_string()])
        .args(["-d", &format!("{secs}s"), "-s"])
        .arg(script)
        .arg(url));
    if text.contains("Non-2xx") {
        let failed = figure(&text, "Non-2xx", "responses:");
        let timeouts = text
            .lines()
            .find(|l| l.contains("Socket errors"))
            .unwrap_or("no socket errors");
        println!("    wrk: {failed:.0} answers not 2xx; {}", timeouts.trim());
    }
}

/// A receiver on loopback that answers 200 at once and counts; returns its URL.
async fn receiver(received: Arc<AtomicU64>) -> String {
    let router = axum::Router::new().route(
        "/hook",
        post(move || {
            received.fetch_add(1, Ordering::Relaxed);
            async { "ok" }
        }),
    );
    common::serve_receiver(router).await
}

#[tokio::main]
async fn main() {
    common::production_server().await;
    let clients = common::env_num("BENCH_CLIENTS", 32);
    let secs = common::env_num("BENCH_SECONDS", 20);
    let accounts = common::env_num("BENCH_ACCOUNTS", 64);
    let tick: f64 = run(Command::new("getconf").arg("CLK_TCK"))
        .trim()
        .parse()
        .expect("CLK_TCK");
    let dir = tempfile::tempdir().expect("temp dir");
    let app = TestApp::spawn_with(common::UNLIMITED).await;
    let pid = app.server.child.id().expect("formsd pid");
    let origin = app.http_base.trim_end_matches("/api/v1").to_owned();
    let pool = &app.pool;
    // WAL by resource manager, where the server has the contrib module.
    if let Err(e) = sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
        .execute(pool)
        .await
    {
        println!("no WAL breakdown: {e}");
    }

    let mut tenants = Vec::new();
    for _ in 0..accounts {
        let key = app.key(Plan::Enterprise, &[Scope::Admin]).await;
        let body = json!({"title": "Feedback", "fields": fields()});
        let (form, id) = common::published_form(&app, &key, &body).await;
        let body = json!({"answers": answers(&form)}).to_string();
        // The measured body must be valid: a 422 is fast and would flatter the line.
        app.post(
            &format!("/forms/{id}/responses"),
            &key,
            &serde_json::from_str(&body).expect("body"),
        )
        .await
        .ok(201);
        tenants.push((key, id, body));
    }
    // wrk's script: the accounts' creates in turn; with `idempotent`, each request
    // with a key of its own (thread number and count).
    let script = |idempotent: bool| {
        let mut text = String::from("local t = {\n");
        for (key, form, body) in &tenants {
            text.push_str(&format!(
                "  {{{key:?}, {:?}, {body:?}}},\n",
                format!("/api/v1/forms/{form}/responses")
            ));
        }
        let header = if idempotent {
            ", [\"idempotency-key\"] = \"bench-\" .. id .. \"-\" .. n"
        } else {
            ""
        };
        text.push_str(&format!(
            "}}\nlocal threads = 0\nfunction setup(thread)\n  threads = threads + 1\n  \
             thread:set(\"id\", threads)\nend\nlocal n = 0\nrequest = function()\n  \
             n = n + 1\n  local c = t[(n % #t) + 1]\n  return wrk.format(\"POST\", c[2], \
             {{[\"x-api-key\"] = c[1], [\"content-type\"] = \"application/json\"{header}}}, \
             c[3])\nend\n"
        ));
        let path = dir.path().join(format!("creates_{idempotent}.lua"));
        std::fs::write(&path, text).expect("script");
        path
    };
    let (script_path, idempotent_path) = (script(false), script(true));
    let responses = "SELECT count(*) FROM responses";
    // Phase 1, the plain creates: measured on the table as it is.
    let plain_creates = async |what: &str| -> Rates {
        let before = count(pool, responses).await;
        let placed = Placement::before(pool).await;
        let meter = Meter::start(pool, pid, tick).await;
        wrk(&origin, &script_path, clients, secs);
        let used = meter.stop(pool).await;
        let created = count(pool, responses).await - before;
        let rates = print_phase(what, "creates", created, &used);
        placed.print(pool).await;
        rates
    };
    println!("\n{clients} clients, {secs} s a phase, formsd release build, one host");
    let preload = common::env_num("BENCH_PRELOAD", 0);
    // With a preload, the same creates first on the table before it (the fresh rate
    // the target compares with), in the same run.
    let before_preload = if preload > 0 {
        let fresh = plain_creates("0. creates, before the preload").await;
        let started = Instant::now();
        preload_responses(pool, preload).await;
        println!(
            "{preload} responses preloaded by SQL in {:.0} s",
            started.elapsed().as_secs_f64()
        );
        Some(fresh)
    } else {
        None
    };
    // 1. Creates without a webhook.
    let plain = plain_creates("1. creates, no webhook").await;

    // 1b. The same with an Idempotency-Key each: a transaction each, and a row kept for
    // the key's lifetime.
    let before = count(pool, responses).await;
    let meter = Meter::start(pool, pid, tick).await;
    wrk(&origin, &idempotent_path, clients, secs);
    let used = meter.stop(pool).await;
    let created = count(pool, responses).await - before;
    print_phase("1b. creates, Idempotency-Key", "creates", created, &used);

    // 2. Creates on forms with a webhook each, until every delivery has succeeded.
    let received = Arc::new(AtomicU64::new(0));
    let hook = receiver(received.clone()).await;
    for (key, form, _) in &tenants {
        let subscription = json!({"name": "capacity", "url": hook, "events": ["form.submitted"]});
        app.post(&format!("/forms/{form}/webhooks"), key, &subscription)
            .await
            .ok(201);
    }
    let before = count(pool, responses).await;
    let meter = Meter::start(pool, pid, tick).await;
    wrk(&origin, &script_path, clients, secs);
    let all_sent = common::drained(pool, Duration::from_secs(600), Duration::from_millis(50)).await;
    let used = meter.stop(pool).await;
    let created = count(pool, responses).await - before;
    assert!(
        all_sent,
        "phase 2's deliveries were not all sent in 10 minutes"
    );
    let with_webhook = print_phase("2. creates with a webhook, sent", "creates", created, &used);

    // 3. Deliveries alone: phase 2's, once more, as a pending backlog written by SQL.
    let columns: Vec<String> = sqlx::query_scalar(
        "SELECT column_name::text FROM information_schema.columns \
          WHERE table_schema = current_schema() AND table_name = 'deliveries' \
          ORDER BY ordinal_position",
    )
    .fetch_all(pool)
    .await
    .expect("columns");
    let fresh = |column: &str| match column {
        "id" => "gen_random_uuid()".to_owned(),
        "status" => "'pending'".to_owned(),
        "attempts" => "0".to_owned(),
        "next_attempt_at" | "created_at" => "now()".to_owned(),
        "locked_until" => "NULL".to_owned(),
        other => other.to_owned(),
    };
    let copy = format!(
        "INSERT INTO deliveries ({}) SELECT {} FROM deliveries WHERE status = 'succeeded'",
        columns.join(", "),
        columns
            .iter()
            .map(|c| fresh(c))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let received_before = received.load(Ordering::Relaxed);
    let meter = Meter::start(pool, pid, tick).await;
    // Column names read from the catalog, values fixed here.
    let backlog = sqlx::query(AssertSqlSafe(copy))
        .execute(pool)
        .await
        .expect("backlog")
        .rows_affected();
    sqlx::query("NOTIFY forms_deliveries")
        .execute(pool)
        .await
        .expect("notify");
    let all_sent = common::drained(pool, Duration::from_secs(600), Duration::from_millis(50)).await;
    let used = meter.stop(pool).await;
    assert!(all_sent, "the backlog was not drained in 10 minutes");
    let delivered = received.load(Ordering::Relaxed) - received_before;
    assert!(
        delivered >= backlog,
        "the receiver got {delivered} of a backlog of {backlog}"
    );
    print_phase(
        "3. deliveries of a backlog",
        "sent",
        i64::try_from(backlog).expect("count"),
        &used,
    );

    println!("\ntargets (issue 35)");
    let verdict = |met: bool| if met { "met" } else { "NOT MET" };
    if let Some(fresh) = before_preload {
        let ratio = plain.per_second / fresh.per_second;
        println!(
            "creates at {preload} preloaded responses / before the preload: {ratio:.2}x \
             (target >= 0.8x: {})",
            verdict(ratio >= 0.8)
        );
    }
    let cost = plain.per_postgres_second / with_webhook.per_postgres_second;
    println!(
        "PostgreSQL CPU of a create with its delivery / a plain create: {cost:.2}x \
         (target <= 1.5x: {})",
        verdict(cost <= 1.5)
    );

    println!();
    print_sizes(pool, "responses", &["responses"]).await;
    print_sizes(pool, "deliveries", &["deliveries", "delivery_attempts"]).await;
    print_sizes(pool, "idempotency keys", &["idempotency_keys"]).await;
    let database: i64 = count(pool, "SELECT pg_database_size(current_database())").await;
    println!("database: {:.1} MiB in all", database as f64 / 1048576.0);
}
