//! One tenant's expensive reads cannot stall the instance (issue 30, finding 5): the
//! reads whose cost a caller chooses (filters, searches, summaries) are capped per
//! account and in the instance, as exports are, and run under a statement time limit;
//! a read whose client goes away is cancelled on the server, not left running.
//!
//! The storm runs on data built in SQL (`generate_series`), enough for one filtered
//! read to take seconds. The checks of cancellation and of the time limit make the read
//! wait instead on a lock the test holds on `responses`: a wait that lasts as long as
//! the test wants, whatever the machine's speed.

use crate::fixtures::*;
use crate::harness::*;
use serde_json::{Value, json};
use sqlx::{Connection, PgConnection};
use std::time::Duration;

/// Fields of the heavy form, each with a `contains` condition in the storm's filter.
const FIELDS: usize = 20;
/// Responses of the heavy form: a filtered read over them takes seconds.
const RESPONSES: i64 = 30_000;
/// Reads of the storm, all at once.
const STORM: usize = 22;

/// A published form of `FIELDS` short texts with `responses` made in SQL, every answer
/// containing "lo" (so that every condition of the storm is evaluated on every row).
async fn heavy_form(app: &TestApp, key: &str, responses: i64) -> (String, Vec<String>) {
    let fields: Vec<Value> = (0..FIELDS)
        .map(|i| json!({"type": "short_text", "label": format!("Field {i}")}))
        .collect();
    let form = published_form(app, key, Value::Array(fields), Value::Null).await;
    let id = form["id"].as_str().expect("form id").to_owned();
    let ids = field_ids(&form);
    // The search text as formsd writes it (`responses::search`): each answer folded,
    // between newlines ("hello n" is folded already).
    sqlx::query(
        "INSERT INTO responses (id, form_id, answers, started_at, submitted_at, search)
         SELECT gen_random_uuid(), $1, a.answers, now() - interval '2 days',
                now() - interval '1 day' + make_interval(secs => n), a.search
           FROM generate_series(1, $2) AS n,
                LATERAL (SELECT jsonb_object_agg(f, x.v) AS answers,
                                E'\\n' || string_agg(x.v || E'\\n', '') AS search
                           FROM unnest($3::text[]) AS f,
                                LATERAL (SELECT 'hello ' || n AS v) AS x) AS a",
    )
    .bind(uuid::Uuid::parse_str(&id).expect("uuid"))
    .bind(responses)
    .bind(&ids)
    .execute(&app.pool)
    .await
    .expect("generating responses");
    sqlx::query("UPDATE forms SET response_count = $2, last_submitted_at = now() WHERE id = $1")
        .bind(uuid::Uuid::parse_str(&id).expect("uuid"))
        .bind(responses)
        .execute(&app.pool)
        .await
        .expect("the form's count");
    (id, ids)
}

/// The storm's read: every field contains "lo".
fn filtered(form_id: &str, fields: &[String]) -> String {
    let conditions: Vec<(String, &str)> = fields
        .iter()
        .map(|f| (format!("answers[{f}][contains]"), "lo"))
        .collect();
    let query: Vec<(&str, &str)> = conditions.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    with_query(&format!("/forms/{form_id}/responses"), &query)
}

/// Backends of formsd running a statement of a filtered read (they fold answers).
async fn filtered_statements(app: &TestApp) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND state = 'active' AND query LIKE '%forms_fold(r.answers%'",
    )
    .fetch_one(&app.pool)
    .await
    .expect("pg_stat_activity")
}

/// Holds `ACCESS EXCLUSIVE` on `responses` until dropped: every read of it waits.
async fn lock_responses(app: &TestApp) -> PgConnection {
    let mut conn = PgConnection::connect(&app.db.url)
        .await
        .expect("connecting");
    sqlx::raw_sql("BEGIN; LOCK TABLE responses IN ACCESS EXCLUSIVE MODE")
        .execute(&mut conn)
        .await
        .expect("locking responses");
    conn
}

#[tokio::test]
async fn a_storm_of_one_accounts_filtered_reads_leaves_another_account_served() {
    // The harness's pool of 5 connections, every other setting as shipped.
    let app = TestApp::spawn().await;
    let a = app.key(PRO, ALL).await;
    let b = app.key(PRO, ALL).await;
    let (heavy, fields) = heavy_form(&app, &a, RESPONSES).await;
    let b_form = published_form(&app, &b, contact_fields(), Value::Null).await;
    let b_path = format!("/forms/{}", b_form["id"].as_str().expect("id"));
    let path = filtered(&heavy, &fields);

    let storm: Vec<_> = (0..STORM)
        .map(|_| {
            let request = app
                .request(reqwest::Method::GET, &path)
                .header("x-api-key", &a);
            tokio::spawn(send(request))
        })
        .collect();
    // B reads its form, one request after another, for as long as the storm lasts.
    let mut answers = Vec::new();
    let mut busy = 0;
    while storm.iter().any(|task| !task.is_finished()) {
        if filtered_statements(&app).await > 0 {
            busy += 1;
        }
        let reply = app.get(&b_path, &b).await;
        answers.push((reply.status, reply.text));
    }
    let mut storm_statuses = Vec::new();
    for task in storm {
        let reply = task.await.expect("storm request");
        match reply.status {
            200 => {}
            429 => {
                reply.error(429, "RATE_LIMITED");
                assert!(reply.header_u64("retry-after") > 0, "{}", reply.text);
            }
            // A read over the time limit is told so (not a 500).
            503 => {
                reply.error(503, "SERVICE_UNAVAILABLE");
            }
            other => panic!("A's read answered {other}: {}", reply.text),
        }
        storm_statuses.push(reply.status);
    }
    let failed: Vec<_> = answers
        .iter()
        .filter(|(status, _)| *status != 200)
        .collect();
    assert!(
        failed.is_empty(),
        "B's GET {b_path} answered {} of {} times otherwise than 200 during A's storm: {:?}",
        failed.len(),
        answers.len(),
        failed.first()
    );
    let refused = storm_statuses.iter().filter(|s| **s == 429).count();
    assert!(
        refused >= STORM - 4,
        "A's reads over its cap are refused at once: {storm_statuses:?}"
    );
    assert!(
        busy >= 3,
        "B asked {} times, {busy} of them while A's reads ran: the storm was too short to show anything",
        answers.len()
    );
}

#[tokio::test]
async fn a_filtered_read_whose_client_went_away_is_cancelled_on_the_server() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let (form, fields) = heavy_form(&app, &key, 10).await;
    let held = lock_responses(&app).await;
    let request = app
        .request(reqwest::Method::GET, &filtered(&form, &fields))
        .header("x-api-key", &key);
    let client = tokio::spawn(send(request));
    eventually(
        "the read's statement, waiting",
        Duration::from_secs(15),
        || async { (filtered_statements(&app).await == 1).then_some(()) },
    )
    .await;
    // The client gives up: its connection closes.
    client.abort();
    assert!(client.await.is_err_and(|e| e.is_cancelled()));
    eventually(
        "the statement of the read whose client left to be cancelled",
        Duration::from_secs(10),
        || async { (filtered_statements(&app).await == 0).then_some(()) },
    )
    .await;
    drop(held);
    // The instance serves reads as before.
    let reply = app.get(&filtered(&form, &fields), &key).await;
    assert_eq!(
        reply.ok(200)["responses"].as_array().map(Vec::len),
        Some(10)
    );
}

#[tokio::test]
async fn a_read_over_the_statement_time_limit_is_refused_with_a_clear_error() {
    let app = TestApp::spawn_with(&["--db-statement-timeout", "1s"]).await;
    let key = app.key(PRO, ALL).await;
    let (form, fields) = heavy_form(&app, &key, 10).await;
    let held = lock_responses(&app).await;
    let path = filtered(&form, &fields);
    let reply = app.get(&path, &key).await;
    let error = reply.error(503, "SERVICE_UNAVAILABLE");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("time limit"), "{message}");
    // A read that would take as long again is not invited back at once.
    assert!(
        reply.headers.get("retry-after").is_none(),
        "{:?}",
        reply.headers
    );
    assert_eq!(
        filtered_statements(&app).await,
        0,
        "the statement was cancelled"
    );
    // The summary is bounded alike.
    let summary_path = path.replacen("/responses?", "/summary?", 1);
    let summary = app.get(&summary_path, &key).await;
    summary.error(503, "SERVICE_UNAVAILABLE");
    drop(held);
    app.get(&path, &key).await.ok(200);
}
