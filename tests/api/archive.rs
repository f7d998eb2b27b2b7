//! Moving an account between instances (issue 33 §3): `formsd accounts export` on one
//! instance, `formsd accounts import` on another (two `formsd serve` processes on two
//! databases), and every form, response, file, logo and webhook read back over REST on
//! the second equal to the first, ids kept. A second import, or a cut archive, is
//! refused with nothing written.

use crate::fixtures::*;
use crate::harness::*;
use crate::hosted::Visitor;
use crate::uploads::PNG;
use reqwest::Method;
use serde_json::{Value, json};
use uuid::Uuid;

/// A form with logic (a question shown on a condition), a file field, a theme and a
/// translation; published.
fn form_body() -> Value {
    json!({
        "title": "Cars",
        "fields": [
            {"type": "single_choice", "ref": "car", "label": "Do you own a car?", "required": true,
             "options": [{"id": "yes", "label": "Yes"}, {"id": "no", "label": "No"}]},
            {"type": "short_text", "ref": "model", "label": "Model",
             "show_if": [{"field": "car", "op": "equals", "value": "Yes"}]},
            {"type": "file_upload", "ref": "photo", "label": "Photo", "allowed_types": ["png"]}
        ],
        "theme": {"accent": "#8A3FFC", "background": "#fff8e7", "font": "serif",
                  "radius": 16, "appearance": "auto"},
        "translations": {
            "de": {"title": "Autos", "fields": {"car": {"label": "Haben Sie ein Auto?",
                                                        "options": {"yes": "Ja", "no": "Nein"}},
                                               "model": {"label": "Modell"}}}
        }
    })
}

async fn publish(app: &TestApp, key: &str, body: &Value) -> Value {
    let form = app.create_form(key, body).await;
    let id = form["id"].as_str().expect("form id");
    app.put(
        &format!("/forms/{id}"),
        key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200)["form"]
        .clone()
}

/// Everything the REST API shows of the account: each form, its responses (all of
/// them, completed and partial), its webhooks; by form id.
async fn everything(app: &TestApp, key: &str) -> Vec<(Value, Value, Value)> {
    let forms = app.get("/forms?limit=100", key).await.ok(200)["forms"].clone();
    let mut out = Vec::new();
    for form in forms.as_array().expect("forms") {
        let id = form["id"].as_str().expect("id");
        let form = app.get(&format!("/forms/{id}"), key).await.ok(200)["form"].clone();
        let responses = app
            .get(&format!("/forms/{id}/responses?limit=100&status=all"), key)
            .await
            .ok(200)["responses"]
            .clone();
        let hooks =
            app.get(&format!("/forms/{id}/webhooks"), key).await.ok(200)["webhooks"].clone();
        out.push((form, responses, hooks));
    }
    out.sort_by_key(|(f, _, _)| f["id"].as_str().map(str::to_owned));
    out
}

async fn bytes_of(app: &TestApp, key: &str, path: &str) -> Vec<u8> {
    let reply = app
        .request(Method::GET, path)
        .header("x-api-key", key)
        .send()
        .await
        .expect("download");
    assert_eq!(reply.status(), 200, "{path}");
    reply.bytes().await.expect("bytes").to_vec()
}

/// `formsd accounts import FILE` on `database_url`, expected to fail: its stderr.
async fn import_refused(database_url: &str, file: &str) -> String {
    let output = formsd_command()
        .args(["--database-url", database_url, "accounts", "import", file])
        .output()
        .await
        .expect("running formsd");
    assert!(!output.status.success(), "the import should be refused");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

async fn counts(pool: &sqlx::PgPool) -> (i64, i64, i64, i64) {
    sqlx::query_as(
        "SELECT (SELECT count(*) FROM accounts), (SELECT count(*) FROM forms),
                (SELECT count(*) FROM responses), (SELECT count(*) FROM response_files)",
    )
    .fetch_one(pool)
    .await
    .expect("counts")
}

#[tokio::test]
async fn an_account_moves_to_another_instance_with_its_ids() {
    let a = TestApp::spawn_with(&["--webhook-allow-private"]).await;
    let name = format!("mover-{}", Uuid::new_v4().simple());
    let key_a = a.key_for(&name, PRO, ALL).await.key;

    // A form with logic, theme, translation, logo; responses over the API and a
    // hosted page with a file; a webhook. And a second, plain form.
    let form = publish(&a, &key_a, &form_body()).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let f = field_ids(&form);
    let logo = a
        .request(Method::PUT, &format!("/forms/{form_id}/logo"))
        .header("x-api-key", &key_a)
        .header("content-type", "image/png")
        .body(PNG.to_vec())
        .send()
        .await
        .expect("logo upload");
    assert_eq!(logo.status(), 200);
    let answers = json!({&f[0]: "no"});
    a.post(
        &format!("/forms/{form_id}/responses"),
        &key_a,
        &json!({"answers": answers}),
    )
    .await
    .ok(201);
    let mut visitor = Visitor::new(&a);
    let token = visitor.open(&short_id).await.token();
    let page = visitor
        .submit_multipart(
            &short_id,
            &[("_token", &token), (&f[0], "yes"), (&f[1], "Beetle")],
            &[(&f[2], "car.png", PNG)],
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.html);
    let hook = subscribe(
        &a,
        &key_a,
        &form_id,
        "http://127.0.0.1:9/hook",
        &["form.submitted"],
    )
    .await;
    let plain = publish(
        &a,
        &key_a,
        &json!({"title": "Plain", "fields": contact_fields()}),
    )
    .await;
    let plain_id = plain["id"].as_str().expect("id");
    for n in 0..3 {
        let answers = contact_answers(&field_ids(&plain), n);
        a.post(
            &format!("/forms/{plain_id}/responses"),
            &key_a,
            &json!({"answers": answers}),
        )
        .await
        .ok(201);
    }
    let before = everything(&a, &key_a).await;

    // Export on A; import on B, another instance on a database of its own.
    let dir = tempfile::tempdir().expect("temp dir");
    let archive = dir.path().join("account.jsonl");
    let archive = archive.to_str().expect("path");
    formsd_cli(&a.db.url, &["accounts", "export", &name, "--out", archive]).await;
    let b = TestApp::spawn().await;
    let report = formsd_cli(&b.db.url, &["accounts", "import", archive]).await;
    let report: Value = serde_json::from_str(report.trim()).expect("import report");
    assert_eq!(report["account_name"], name.as_str());
    assert_eq!(
        (report["forms"].as_i64(), report["responses"].as_i64()),
        (Some(2), Some(5))
    );
    // Each trail records its half of the move, by the operator: the export on A's
    // account, the import on B's (committed with it).
    for (pool, action) in [(&a.pool, "ExportAccount"), (&b.pool, "ImportAccount")] {
        let entries: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM audit_entries e JOIN accounts ac ON ac.id = e.account_id
              WHERE ac.name = $1 AND e.action = $2 AND e.actor_kind = 'operator'",
        )
        .bind(&name)
        .bind(action)
        .fetch_one(pool)
        .await
        .expect("audit entries");
        assert_eq!(entries, 1, "{action}");
    }
    assert_eq!(report["files"], 1);
    let new_hook = &report["webhooks"][0];
    assert_eq!(new_hook["id"], hook["id"]);
    let secret = new_hook["secret"].as_str().expect("a new secret");
    assert!(secret.starts_with("whsec_"), "{secret}");
    assert_ne!(
        Some(secret),
        hook["secret"].as_str(),
        "secrets are never moved"
    );

    // B shows the same, over REST, with a key made there.
    let key_b = b.key_for(&name, PRO, ALL).await.key;
    let after = everything(&b, &key_b).await;
    assert_eq!(after.len(), 2);
    for ((form_a, responses_a, hooks_a), (form_b, responses_b, hooks_b)) in
        before.iter().zip(&after)
    {
        assert_eq!(form_a, form_b, "the form");
        assert_eq!(
            responses_a, responses_b,
            "the responses of {}",
            form_a["id"]
        );
        assert_eq!(hooks_a, hooks_b, "the webhooks of {}", form_a["id"]);
    }
    assert_eq!(
        after[0].1.as_array().map(Vec::len).unwrap_or(0)
            + after[1].1.as_array().map(Vec::len).unwrap_or(0),
        5
    );
    let with_file = before
        .iter()
        .flat_map(|(_, r, _)| r.as_array().cloned().unwrap_or_default())
        .find(|r| r["answers"][&f[2]].is_object())
        .expect("the response with the file");
    let path = format!(
        "/forms/{form_id}/responses/{}/files/{}",
        with_file["id"].as_str().expect("id"),
        with_file["answers"][&f[2]]["file_id"]
            .as_str()
            .expect("file id")
    );
    assert_eq!(bytes_of(&b, &key_b, &path).await, PNG);
    let origin = b.http_base.trim_end_matches("/api/v1").to_owned();
    let logo = b
        .client
        .get(format!("{origin}/f/{short_id}/logo"))
        .send()
        .await
        .expect("logo");
    assert_eq!(logo.status(), 200);
    assert_eq!(logo.bytes().await.expect("logo bytes").as_ref(), PNG);

    // A second import is refused, naming what is taken, and writes nothing.
    let held = counts(&b.pool).await;
    let refused = import_refused(&b.db.url, archive).await;
    assert!(
        refused.contains("nothing was imported") && refused.contains("already exists"),
        "{refused}"
    );
    assert_eq!(counts(&b.pool).await, held);

    // A cut archive is refused too, on a database of its own.
    let text = std::fs::read_to_string(archive).expect("archive");
    let cut = dir.path().join("cut.jsonl");
    let half: Vec<&str> = text.lines().take(text.lines().count() - 2).collect();
    std::fs::write(&cut, half.join("\n")).expect("cut archive");
    let c = TestDb::create().await;
    let refused = import_refused(&c.url, cut.to_str().expect("path")).await;
    assert!(refused.contains("cut short"), "{refused}");
    assert_eq!(counts(&c.pool().await).await, (0, 0, 0, 0));
}
