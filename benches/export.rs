//! Export of a form's responses, in one run on one machine: the streaming export
//! (`GET …/responses/export`, NDJSON, CSV and XLSX, and gRPC ExportResponses) against
//! `psql` COPY of the same rows as JSON, and the cursor listing (`per_page=100`, REST
//! while responses keep arriving, and gRPC). Prints rates (rows/s), the ratio of the
//! NDJSON export to COPY (target ≥ 0.5) and formsd's resident memory (VmRSS idle,
//! VmHWM, the peak, after the exports; the XLSX's own peak, VmHWM reset before it, and
//! its time to the first byte: the file is written whole first). Rows: BENCH_ROWS
//! (100,000).
//!
//! Run: `cargo bench --bench export` (on a server of its own with production settings: see `common::production_server`; a release build).

// Test code: a failed unwrap is a failed test, and its helpers are `pub` to each other.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod common;

use common::harness::TestApp;
use forms::accounts::{Plan, Scope};
use forms::pb::{self, responses_service_client::ResponsesServiceClient};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// `VmRSS` or `VmHWM` of a process, in MiB.
fn memory_mib(pid: u32, field: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim_start_matches(':').trim().strip_suffix("kB"))
        .and_then(|kb| kb.trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn rate(rows: usize, took: Duration) -> f64 {
    rows as f64 / took.as_secs_f64()
}

/// Starts one REST export: the reply, its headers in, its body unread.
async fn start_export(app: &TestApp, key: &str, form_id: &str, format: &str) -> reqwest::Response {
    let reply = app
        .client
        .get(format!(
            "{}/forms/{form_id}/responses/export?format={format}",
            app.http_base
        ))
        .header("x-api-key", key)
        .timeout(Duration::from_secs(600))
        .send()
        .await
        .expect("export");
    assert_eq!(reply.status(), 200, "export status");
    reply
}

/// Streams one REST export, counting lines as the chunks arrive (nothing is kept).
async fn rest_export(app: &TestApp, key: &str, form_id: &str, format: &str) -> (usize, Duration) {
    let started = Instant::now();
    let mut reply = start_export(app, key, form_id, format).await;
    let mut lines = 0;
    while let Some(chunk) = reply.chunk().await.expect("export body") {
        lines += chunk.iter().filter(|b| **b == b'\n').count();
    }
    (lines, started.elapsed())
}

/// One REST XLSX export: the time to its first byte, in all, its size, and its rows
/// as calamine reads them back (after the timing).
async fn xlsx_export(
    app: &TestApp,
    key: &str,
    form_id: &str,
) -> (Duration, Duration, usize, usize) {
    use calamine::Reader;
    let started = Instant::now();
    let mut reply = start_export(app, key, form_id, "xlsx").await;
    let mut file = Vec::new();
    let mut first = None;
    while let Some(chunk) = reply.chunk().await.expect("export body") {
        first.get_or_insert_with(|| started.elapsed());
        file.extend_from_slice(&chunk);
    }
    let took = started.elapsed();
    let mut book =
        calamine::Xlsx::new(std::io::Cursor::new(file.clone())).expect("an XLSX workbook");
    let rows = book
        .worksheet_range("Responses")
        .expect("the sheet")
        .height();
    (first.unwrap_or(took), took, file.len(), rows)
}

/// Resets a process's VmHWM to its present VmRSS (Linux's clear_refs).
fn reset_peak(pid: u32) {
    if std::fs::write(format!("/proc/{pid}/clear_refs"), "5").is_err() {
        println!("(VmHWM could not be reset: the XLSX peak below is the run's)");
    }
}

/// Times `psql` copying the form's rows as JSON to /dev/null.
fn psql_copy(app: &TestApp, form_id: &str, rows: usize) -> Duration {
    let started = Instant::now();
    let status = std::process::Command::new("psql")
        .arg(&app.db.url)
        .arg("-qc")
        .arg(format!(
            "\\copy (SELECT row_to_json(r) FROM responses r WHERE form_id = '{form_id}') TO '/dev/null'"
        ))
        .status()
        .expect("running psql");
    let took = started.elapsed();
    assert!(status.success(), "psql failed");
    println!(
        "psql \\copy of row_to_json: {rows} rows in {took:.2?} ({:.0} rows/s)",
        rate(rows, took)
    );
    took
}

#[tokio::main]
async fn main() {
    common::production_server().await;
    let rows = common::env_num("BENCH_ROWS", 100_000);
    let app = TestApp::spawn_with(&["--enterprise-rate-limit", "1000000"]).await;
    let pid = app.server.child.id().expect("formsd pid");
    let key = app.key(Plan::Enterprise, &[Scope::Admin]).await;
    let form = app
        .create_form(&key, &json!({"title": "Export", "fields": [{"type": "short_text", "label": "Name", "required": true}]}))
        .await;
    let form_id = form["id"].as_str().expect("form id").to_owned();
    let field = form["fields"][0]["id"]
        .as_str()
        .expect("field id")
        .to_owned();
    app.put(
        &format!("/forms/{form_id}"),
        &key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);

    let seeded = Instant::now();
    sqlx::query(
        "WITH ins AS (
             INSERT INTO responses (id, form_id, answers, metadata, started_at, submitted_at)
             SELECT gen_random_uuid(), $1, jsonb_build_object($2::text, 'Name ' || g), '{\"source\":\"api\"}',
                    now() - make_interval(secs => ($3 - g) / 1000.0), now() - make_interval(secs => ($3 - g) / 1000.0)
               FROM generate_series(1, $3) AS g
             RETURNING submitted_at)
         UPDATE forms SET response_count = (SELECT count(*) FROM ins), last_submitted_at = (SELECT max(submitted_at) FROM ins)
          WHERE id = $1",
    )
    .bind(uuid::Uuid::parse_str(&form_id).expect("uuid"))
    .bind(&field)
    .bind(rows as i64)
    .execute(&app.pool)
    .await
    .expect("seeding responses");
    sqlx::query("VACUUM ANALYZE responses")
        .execute(&app.pool)
        .await
        .expect("vacuum");
    println!("seeded {rows} responses in {:.2?}", seeded.elapsed());
    let idle = memory_mib(pid, "VmRSS");

    // psql COPY of the same rows as JSON: the yardstick, run before and after the
    // exports (the faster run counts: no cache advantage for formsd).
    let copy_first = psql_copy(&app, &form_id, rows);
    // The streaming export, REST.
    let (lines, ndjson) = rest_export(&app, &key, &form_id, "ndjson").await;
    assert_eq!(lines, rows, "NDJSON export lines");
    println!(
        "export NDJSON (REST): {lines} rows in {ndjson:.2?} ({:.0} rows/s)",
        rate(lines, ndjson)
    );
    let (lines, csv) = rest_export(&app, &key, &form_id, "csv").await;
    assert_eq!(lines, rows + 1, "CSV export lines (with the header)");
    println!(
        "export CSV (REST): {rows} rows in {csv:.2?} ({:.0} rows/s)",
        rate(rows, csv)
    );

    let peak_text = memory_mib(pid, "VmHWM");
    // The XLSX export: written whole (constant memory, temporary files), then sent.
    reset_peak(pid);
    let before = memory_mib(pid, "VmRSS");
    let (first_byte, xlsx, size, xlsx_rows) = xlsx_export(&app, &key, &form_id).await;
    assert_eq!(xlsx_rows, rows + 1, "XLSX rows (with the header)");
    println!(
        "export XLSX (REST): {rows} rows in {xlsx:.2?} ({:.0} rows/s), first byte after {first_byte:.2?}, {:.1} MiB; formsd VmRSS before {before:.1} MiB, VmHWM (peak) during it {:.1} MiB",
        rate(rows, xlsx),
        size as f64 / 1_048_576.0,
        memory_mib(pid, "VmHWM")
    );

    // The streaming export, gRPC (network hop, same bytes).
    let mut grpc = ResponsesServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("gRPC connect");
    let started = Instant::now();
    let mut request = tonic::Request::new(pb::ExportResponsesRequest {
        form_id: form_id.clone(),
        format: pb::ExportFormat::Ndjson.into(),
        ..Default::default()
    });
    request
        .metadata_mut()
        .insert("x-api-key", key.parse().expect("metadata"));
    let mut stream = grpc
        .export_responses(request)
        .await
        .expect("gRPC export")
        .into_inner();
    let mut lines = 0;
    while let Some(message) = stream.message().await.expect("gRPC export message") {
        lines += message.data.iter().filter(|b| **b == b'\n').count();
    }
    let grpc_export = started.elapsed();
    assert_eq!(lines, rows, "gRPC export lines");
    println!(
        "export NDJSON (gRPC): {lines} rows in {grpc_export:.2?} ({:.0} rows/s)",
        rate(lines, grpc_export)
    );
    let peak = memory_mib(pid, "VmHWM").max(peak_text);
    let copy = copy_first.min(psql_copy(&app, &form_id, rows));
    println!(
        "formsd memory: VmRSS idle {idle:.1} MiB, VmHWM (peak) after the exports {peak:.1} MiB"
    );

    // The cursor listing, REST, while responses keep arriving through the API.
    let writer = {
        let (client, base, key, form_id, field) = (
            app.client.clone(),
            app.http_base.clone(),
            key.clone(),
            form_id.clone(),
            field.clone(),
        );
        tokio::spawn(async move {
            loop {
                let body = json!({"answers": {field.as_str(): "late"}});
                let sent = client
                    .post(format!("{base}/forms/{form_id}/responses"))
                    .header("x-api-key", &key)
                    .json(&body)
                    .send()
                    .await;
                if sent.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    let started = Instant::now();
    let mut seen = HashSet::new();
    let mut cursor = String::new();
    let mut pages = 0;
    loop {
        let reply = app
            .client
            .get(format!("{}/forms/{form_id}/responses", app.http_base))
            .query(&[
                ("cursor", cursor.as_str()),
                ("per_page", "100"),
                ("sort", "asc"),
            ])
            .header("x-api-key", &key)
            .send()
            .await
            .expect("export page");
        let body: Value = reply.json().await.expect("json page");
        pages += 1;
        for r in body["data"]["responses"].as_array().expect("responses") {
            assert!(
                seen.insert(r["id"].as_str().expect("id").to_owned()),
                "duplicate in export"
            );
        }
        match body["data"]["pagination"]["next_cursor"].as_str() {
            Some(next) => cursor = next.to_owned(),
            None => break,
        }
    }
    let rest = started.elapsed();
    writer.abort();
    assert!(
        seen.len() >= rows,
        "export missed rows: {} < {rows}",
        seen.len()
    );
    println!(
        "cursor listing (REST, per_page=100, while responses arrive): {} rows in {pages} pages, {rest:.2?} ({:.0} rows/s), no duplicates",
        seen.len(),
        rate(seen.len(), rest)
    );

    // The cursor listing, gRPC.
    let started = Instant::now();
    let (mut count, mut cursor) = (0usize, String::new());
    loop {
        let mut request = tonic::Request::new(pb::ListResponsesRequest {
            form_id: form_id.clone(),
            per_page: Some(100),
            sort: pb::SortOrder::Asc.into(),
            cursor: Some(cursor.clone()),
            ..Default::default()
        });
        request
            .metadata_mut()
            .insert("x-api-key", key.parse().expect("metadata"));
        let page = grpc
            .list_responses(request)
            .await
            .expect("gRPC page")
            .into_inner();
        count += page.responses.len();
        match page.pagination {
            Some(pb::list_responses_response::Pagination::Cursor(c)) if c.next_cursor.is_some() => {
                cursor = c.next_cursor.unwrap_or_default();
            }
            _ => break,
        }
    }
    let grpc_time = started.elapsed();
    println!(
        "cursor listing (gRPC, per_page=100): {count} rows in {grpc_time:.2?} ({:.0} rows/s)",
        rate(count, grpc_time)
    );

    let ratio = rate(rows, ndjson) / rate(rows, copy);
    println!(
        "ratio export NDJSON (REST) / psql COPY (faster run) = {ratio:.2}x (target >= 0.5x: {}); CSV / COPY = {:.2}x; XLSX / COPY = {:.2}x; cursor listing (REST) / COPY = {:.2}x",
        if ratio >= 0.5 { "met" } else { "NOT met" },
        rate(rows, csv) / rate(rows, copy),
        rate(rows, xlsx) / rate(rows, copy),
        rate(seen.len(), rest) / rate(rows, copy),
    );
}
