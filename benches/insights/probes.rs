//! The lines `insights` measures on a loaded form: each a REST request and the bare
//! SQL formsd sends for it, with the values written in.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use serde_json::json;
use sha2::Sha256;
use sqlx::{AssertSqlSafe, PgPool};
use uuid::Uuid;

const FAR_PAST: &str = "0001-01-01 00:00:00+00";
const FAR_FUTURE: &str = "9999-12-31 23:59:59+00";

/// One measured line on one form: the REST request and its bare SQL.
pub struct Probe {
    pub what: &'static str,
    pub path: String,
    pub sql: String,
    pub samples: usize,
}

/// A form loaded with responses, and what its lines need.
pub struct Loaded {
    pub id: String,
    pub uuid: Uuid,
    pub ids: Vec<String>,
    pub size: i64,
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
pub async fn probes(pool: &PgPool, form: &Loaded, account: &str, samples: usize) -> Vec<Probe> {
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
pub async fn explain(pool: &PgPool, sql: &str) {
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
