//! Full export by cursor: REST (`per_page=100`) and gRPC against `psql` reading the same
//! rows, on one machine in one run, reported as ratios. Rows: BENCH_ROWS (100,000).
//!
//! Run: `cargo bench --bench export` (DATABASE_URL as for the tests).

mod common;

use common::helpers::TestApp;
use forms::accounts::{Plan, Scope};
use forms::pb::{self, responses_service_client::ResponsesServiceClient};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::time::Instant;

#[tokio::main]
async fn main() {
    let rows = common::env_num("BENCH_ROWS", 100_000);
    let app = TestApp::spawn_with(&["--enterprise-rate-limit", "1000000"]).await;
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
    println!("seeded {rows} responses in {:.2?}", seeded.elapsed());

    // REST export, while responses keep arriving through the API.
    let writer = {
        let (client, base, key, form_id, field) = (
            app.client.clone(),
            app.http_base.clone(),
            key.clone(),
            form_id.clone(),
            field.clone(),
        );
        tokio::spawn(async move {
            let mut created = 0usize;
            loop {
                let body = json!({"answers": {field.as_str(): "late"}});
                let sent = client
                    .post(format!("{base}/forms/{form_id}/responses"))
                    .header("x-api-key", &key)
                    .json(&body)
                    .send()
                    .await;
                if sent.is_err() {
                    return created;
                }
                created += 1;
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
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
        "REST export: {} responses in {pages} pages, {rest:.2?} ({:.0} responses/s), no duplicates",
        seen.len(),
        seen.len() as f64 / rest.as_secs_f64()
    );

    // gRPC export of the same form (network hop, no JSON).
    let mut grpc = ResponsesServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("gRPC connect");
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
    println!("gRPC export: {count} responses in {grpc_time:.2?}");

    // psql reading the same rows in the same order.
    let started = Instant::now();
    let status = std::process::Command::new("psql")
        .arg(&app.db.url)
        .arg("-qAtc")
        .arg(format!(
            "COPY (SELECT id, form_id, answers, metadata, device_type, browser, os, started_at, submitted_at, completion_time_seconds FROM responses WHERE form_id = '{form_id}' ORDER BY submitted_at, id) TO STDOUT"
        ))
        .stdout(std::process::Stdio::null())
        .status()
        .expect("running psql");
    let psql = started.elapsed();
    assert!(status.success(), "psql failed");
    println!("psql COPY of the same rows: {psql:.2?}");
    println!(
        "ratios: REST/psql = {:.1}x, gRPC/psql = {:.1}x",
        rest.as_secs_f64() / psql.as_secs_f64(),
        grpc_time.as_secs_f64() / psql.as_secs_f64()
    );
}
