//! The pages measured: each with its path and its main statement with the values it
//! binds. A form's pages are measured on both forms; the account's once.

use super::load::Loaded;
use crate::common::harness::TestApp;
use crate::dashboard_session::Dashboard;

/// One page: its path, and its main statement with the values it binds.
pub struct Line {
    pub page: &'static str,
    pub path: String,
    pub sql: &'static str,
    pub binds: Vec<String>,
}

/// The first link of a page with `rel="next"`, as the browser would follow it.
fn next_link(html: &str) -> Option<String> {
    let at = html.find("rel=\"next\"")?;
    let start = html[..at].rfind("href=\"")? + 6;
    let end = html[start..].find('"')? + start;
    Some(html[start..end].replace("&amp;", "&"))
}

/// A form's pages, in the order a person meets them. The detail shows a response in
/// the middle of the form's history, and the deep page is the inbox's Next link
/// followed from a date filter that starts there.
pub async fn of_form(app: &TestApp, dashboard: &Dashboard, form: &Loaded) -> Vec<Line> {
    let form_id = &form.form_id;
    let (middle_id, middle_at): (uuid::Uuid, chrono::DateTime<chrono::Utc>) = sqlx::query_as(
        "SELECT id, submitted_at FROM responses WHERE form_id = $1::uuid
          ORDER BY submitted_at DESC, id DESC OFFSET $2 LIMIT 1",
    )
    .bind(form_id)
    .bind((form.rows / 2) as i64)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let inbox = format!("/app/forms/{form_id}/responses");
    let filtered = format!("{inbox}?until={}", middle_at.format("%Y-%m-%d"));
    let deep = next_link(&dashboard.get(&filtered).await.text)
        .unwrap_or_else(|| panic!("no Next link on {filtered}"));
    let form_only = || vec![form_id.clone()];
    let mut lines = vec![
        Line {
            page: "form builder",
            path: format!("/app/forms/{form_id}"),
            sql: "SELECT * FROM forms WHERE id = $1::uuid",
            binds: form_only(),
        },
        Line {
            page: "builder, a question open",
            path: format!("/app/forms/{form_id}?edit={}", form.fields[1]),
            sql: "SELECT * FROM forms WHERE id = $1::uuid",
            binds: form_only(),
        },
        Line {
            page: "summary",
            path: format!("/app/forms/{form_id}/summary"),
            sql: "SELECT * FROM response_rollups WHERE form_id = $1::uuid",
            binds: form_only(),
        },
        Line {
            page: "unfinished responses",
            path: format!("{inbox}?show=unfinished"),
            sql: "SELECT * FROM partial_responses WHERE form_id = $1::uuid
                   ORDER BY saved_at DESC LIMIT 26",
            binds: form_only(),
        },
        Line {
            page: "inbox, first page",
            path: inbox.clone(),
            sql: "SELECT * FROM responses WHERE form_id = $1::uuid
                   ORDER BY submitted_at DESC, id DESC LIMIT 26",
            binds: form_only(),
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
            binds: form_only(),
        },
    ];
    if let Some(webhook_id) = &form.webhook_id {
        lines.push(Line {
            page: "delivery log",
            path: format!("/app/forms/{form_id}/webhooks/{webhook_id}"),
            sql: "SELECT * FROM deliveries WHERE webhook_id = $1::uuid
                   ORDER BY created_at DESC LIMIT 25",
            binds: vec![webhook_id.clone()],
        });
    }
    lines
}

/// The account's pages, which hold both forms.
pub fn of_account(account_id: uuid::Uuid, key_id: uuid::Uuid) -> Vec<Line> {
    let (account_id, key_id) = (account_id.to_string(), key_id.to_string());
    vec![
        Line {
            page: "forms list",
            path: "/app/forms".into(),
            sql: "SELECT id, title, status, response_count, last_submitted_at FROM forms
                   WHERE account_id = $1::uuid ORDER BY created_at DESC, id DESC LIMIT 25",
            binds: vec![account_id.clone()],
        },
        Line {
            page: "API keys",
            path: "/app/keys".into(),
            sql: "SELECT * FROM api_keys WHERE account_id = $1::uuid ORDER BY created_at DESC",
            binds: vec![account_id.clone()],
        },
        Line {
            page: "key usage (90 days)",
            path: format!("/app/keys/{key_id}"),
            sql: "SELECT * FROM usage_daily WHERE key_id = $1::uuid AND day > current_date - 90",
            binds: vec![key_id],
        },
        Line {
            page: "account",
            path: "/app/account".into(),
            sql: "SELECT * FROM response_quota_usage WHERE account_id = $1::uuid
                   AND month = date_trunc('month', now())::date",
            binds: vec![account_id],
        },
    ]
}
