//! A form of the bench's account with its responses loaded by SQL (as the hot-path
//! benchmark does), its counters as the creates would have left them, and a webhook.

use crate::common::harness::TestApp;
use serde_json::json;

/// A loaded form: what its pages' paths and statements name.
pub struct Loaded {
    pub rows: usize,
    pub form_id: String,
    /// Its questions' ids: name, email, age, comments.
    pub fields: Vec<String>,
    pub webhook_id: Option<String>,
}

/// Creates and publishes a survey of four questions with a webhook, and loads `rows`
/// responses into it, seven seconds apart, with time-ordered ids as formsd gives them.
pub async fn form_with(app: &TestApp, key: &str, title: &str, rows: usize) -> Loaded {
    let body = json!({"title": title, "fields": [
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "email", "label": "Email", "required": true},
        {"type": "number", "label": "Age"},
        {"type": "long_text", "label": "Comments"},
    ]});
    let (form, form_id) = crate::common::published_form(app, key, &body).await;
    let fields = crate::common::field_ids(&form);
    let webhook = app
        .post(
            &format!("/forms/{form_id}/webhooks"),
            key,
            &json!({"name": "Sink", "url": "http://127.0.0.1:9/hook", "events": ["form.submitted"]}),
        )
        .await;
    let webhook_id = webhook.ok(201)["webhook"]["id"].as_str().map(str::to_owned);
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
    crate::common::count_loaded(&mut conn, &form_id, rows as i64).await;
    Loaded {
        rows,
        form_id,
        fields,
        webhook_id,
    }
}
