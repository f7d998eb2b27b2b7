//! Data rights (issue 33 §3): a form's `retention_days` over REST and gRPC, the purge
//! that deletes responses past it with their files (in the database and in an object
//! store), and the erasure of a respondent (`POST /erasures`, EraseRespondent): its dry
//! run, and after it no text, jsonb or bytea column of any table holding the value,
//! while another account's response with the same value stays.

use crate::fixtures::*;
use crate::harness::*;
use crate::hosted::Visitor;
use crate::uploads::PNG;
use forms::pb::{
    self, forms_service_client::FormsServiceClient,
    hosted_forms_service_client::HostedFormsServiceClient,
    responses_service_client::ResponsesServiceClient,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

const NONCE: &str = "0123456789abcdef0123456789abcdef";

fn upload_fields() -> Value {
    json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "file_upload", "label": "Photo", "required": true, "allowed_types": ["png"], "max_size_mb": 0.5},
    ])
}

fn str_of(v: &Value, key: &str) -> String {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} in {v}"))
        .to_owned()
}

async fn channel(app: &TestApp) -> tonic::transport::Channel {
    tonic::transport::Channel::from_shared(app.grpc_url.clone())
        .expect("gRPC URL")
        .connect()
        .await
        .expect("connecting to the core")
}

/// Submits `name` with a photo to the hosted page of `form`; the response's id.
async fn submit_with_photo(app: &TestApp, key: &str, form: &Value, name: &str) -> String {
    let short_id = str_of(form, "short_id");
    let f = field_ids(form);
    let mut visitor = Visitor::new(app);
    let token = visitor.open(&short_id).await.token();
    let page = visitor
        .submit_multipart(
            &short_id,
            &[("_token", &token), (&f[0], name)],
            &[(&f[1], "me.png", PNG)],
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.html);
    let list = app
        .get(&format!("/forms/{}/responses", str_of(form, "id")), key)
        .await;
    let responses = list.ok(200)["responses"].clone();
    let found = responses
        .as_array()
        .expect("responses")
        .iter()
        .find(|r| r["answers"][&f[0]] == name)
        .expect("the new response");
    str_of(found, "id")
}

async fn backdate(app: &TestApp, response_id: &str, days: i32) {
    let id = uuid::Uuid::parse_str(response_id).expect("uuid");
    sqlx::query("UPDATE responses SET submitted_at = submitted_at - make_interval(days => $2) WHERE id = $1")
        .bind(id)
        .bind(days)
        .execute(&app.pool)
        .await
        .expect("backdating");
}

async fn files_of(app: &TestApp, response_id: &str) -> i64 {
    count(
        app,
        "SELECT count(*) FROM response_files WHERE response_id = $1",
        response_id,
    )
    .await
}

#[tokio::test]
async fn retention_is_a_form_property_over_rest_and_grpc() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app
        .create_form(&key, &json!({"title": "Kept", "retention_days": 30}))
        .await;
    assert_eq!(form["retention_days"], 30);
    let id = str_of(&form, "id");
    let read = app.get(&format!("/forms/{id}"), &key).await.ok(200)["form"].clone();
    assert_eq!(read["retention_days"], 30);
    // Another update leaves it; null clears it, and the form has SPEC's shape again.
    let path = format!("/forms/{id}");
    let kept = app.put(&path, &key, &json!({"title": "Still kept"})).await;
    assert_eq!(kept.ok(200)["form"]["retention_days"], 30);
    let cleared = app.put(&path, &key, &json!({"retention_days": null})).await;
    assert!(cleared.ok(200)["form"].get("retention_days").is_none());
    for bad in [json!(0), json!(36501), json!("30")] {
        app.put(&path, &key, &json!({"retention_days": bad}))
            .await
            .error(422, "VALIDATION_ERROR");
    }
    let plain = app.create_form(&key, &json!({"title": "Plain"})).await;
    assert!(plain.get("retention_days").is_none(), "{plain}");

    // gRPC: on create, read back, and cleared by an update mask naming it.
    let mut forms = FormsServiceClient::new(channel(&app).await);
    let created = forms
        .create_form(grpc_request(
            pb::CreateFormRequest {
                title: "By gRPC".into(),
                retention_days: Some(7),
                ..Default::default()
            },
            &key,
        ))
        .await
        .expect("CreateForm")
        .into_inner()
        .form
        .expect("form");
    assert_eq!(created.retention_days, Some(7));
    let updated = forms
        .update_form(grpc_request(
            pb::UpdateFormRequest {
                id: created.id.clone(),
                form: Some(pb::Form::default()),
                update_mask: Some(prost_types::FieldMask {
                    paths: vec!["retention_days".into()],
                }),
            },
            &key,
        ))
        .await
        .expect("UpdateForm")
        .into_inner()
        .form
        .expect("form");
    assert_eq!(updated.retention_days, None);
}

#[tokio::test]
async fn responses_past_retention_go_with_their_files_and_younger_ones_stay() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("file://{}", dir.path().display());
    let db = TestDb::create().await;
    let app = TestApp::spawn_on(db.clone(), &["--file-store-url", &url]).await;
    let key = app.key(PRO, ALL).await;
    let retained = published_form(&app, &key, upload_fields(), Value::Null).await;
    let retained_id = str_of(&retained, "id");
    app.put(
        &format!("/forms/{retained_id}"),
        &key,
        &json!({"retention_days": 30}),
    )
    .await
    .ok(200);
    let forever = published_form(&app, &key, upload_fields(), Value::Null).await;
    let old = submit_with_photo(&app, &key, &retained, "Old").await;
    let young = submit_with_photo(&app, &key, &retained, "Young").await;
    let ancient = submit_with_photo(&app, &key, &forever, "Ancient").await;
    let stored =
        |dir: &std::path::Path| std::fs::read_dir(dir.join("files")).map_or(0, |d| d.count());
    assert_eq!(stored(dir.path()), 3);
    // Made old by SQL, as the days would: 31 days for one of the retained form's,
    // 29 for the other; years for the form without retention.
    backdate(&app, &old, 31).await;
    backdate(&app, &young, 29).await;
    backdate(&app, &ancient, 3650).await;

    // While another session holds the retention lock, as an instance applying retention
    // does, a round leaves the work to it: nothing goes.
    let mut holder = app.pool.acquire().await.expect("connection");
    let lock = "SELECT pg_advisory_lock(7381244128697410932)"; // core/rights/store.rs
    sqlx::query(lock).execute(&mut *holder).await.expect("lock");
    let mut cmd = formsd_command();
    cmd.env("RUST_LOG", "debug");
    let server = Formsd::start_with(cmd, &serve_args(&db.url, &["--file-store-url", &url])).await;
    let waiting = TestApp::from_parts(server, Arc::clone(&db)).await;
    assert!(
        waiting
            .logs()
            .wait_for("form retention left to the instance applying it")
            .await
    );
    assert_eq!(files_of(&app, &old).await, 1, "left while the lock is held");
    let unlock = "SELECT pg_advisory_unlock(7381244128697410932)";
    sqlx::query(unlock)
        .execute(&mut *holder)
        .await
        .expect("unlock");
    drop((holder, waiting));

    // Another instance, whose first round runs at its start.
    let mut cmd = formsd_command();
    cmd.env("RUST_LOG", "debug");
    let server = Formsd::start_with(cmd, &serve_args(&db.url, &["--file-store-url", &url])).await;
    let purging = TestApp::from_parts(server, Arc::clone(&db)).await;
    assert!(
        purging.logs().wait_for("form retention applied").await,
        "no retention round logged"
    );

    let get = |form: &str, id: &str| format!("/forms/{form}/responses/{id}");
    app.get(&get(&retained_id, &old), &key)
        .await
        .error(404, "NOT_FOUND");
    assert_eq!(files_of(&app, &old).await, 0);
    app.get(&get(&retained_id, &young), &key).await.ok(200);
    assert_eq!(files_of(&app, &young).await, 1);
    app.get(&get(&str_of(&forever, "id"), &ancient), &key)
        .await
        .ok(200);
    assert_eq!(files_of(&app, &ancient).await, 1);
    assert_eq!(
        stored(dir.path()),
        2,
        "the old response's object is deleted"
    );
    let list = app
        .get(&format!("/forms/{retained_id}/responses"), &key)
        .await;
    assert_eq!(list.ok(200)["pagination"]["total"], 1, "the count follows");
}

/// Saves page 1 of a two-page form (an email, then a name) as a visitor: a partial.
async fn save_partial(app: &TestApp, form: &Value, email: &str) {
    let mut hosted = HostedFormsServiceClient::new(channel(app).await);
    let short_id = str_of(form, "short_id");
    let page = hosted
        .get_hosted_form(pb::GetHostedFormRequest {
            short_id: short_id.clone(),
            csrf_nonce: NONCE.to_owned(),
            page: Some(1),
            ..Default::default()
        })
        .await
        .expect("GetHostedForm")
        .into_inner();
    let answers = json!({field_ids(form)[0].clone(): email});
    let saved = hosted
        .submit_hosted_form(pb::SubmitHostedFormRequest {
            short_id,
            start_token: page.start_token,
            csrf_nonce: NONCE.to_owned(),
            answers: Some(pb::convert::object_to_struct(
                answers.as_object().expect("object"),
            )),
            user_agent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0".to_owned(),
            page: 1,
            ..Default::default()
        })
        .await
        .expect("page 1 saved")
        .into_inner();
    assert!(saved.progress.is_some(), "a partial");
}

/// Every (table, column) of a text, jsonb, array or bytea type whose rows hold `needle`
/// (lower case), with how many rows.
async fn holders(app: &TestApp, needle: &str) -> Vec<(String, String, i64)> {
    let columns: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT c.table_name::text, c.column_name::text, c.data_type::text
           FROM information_schema.columns c
           JOIN information_schema.tables t
             ON t.table_schema = c.table_schema AND t.table_name = c.table_name
          WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
            AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'ARRAY', 'bytea')
          ORDER BY 1, 2",
    )
    .fetch_all(&app.pool)
    .await
    .expect("columns");
    assert!(columns.len() > 30, "{columns:?}");
    let pattern = format!("%{needle}%");
    let mut found = Vec::new();
    for (table, column, kind) in columns {
        let value = if kind == "bytea" {
            format!("encode(\"{column}\", 'escape')")
        } else {
            format!("\"{column}\"::text")
        };
        let sql = format!("SELECT count(*) FROM \"{table}\" WHERE lower({value}) LIKE $1");
        // Names from the catalogue, quoted; the value is bound.
        let (n,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(sql.clone()))
            .bind(&pattern)
            .fetch_one(&app.pool)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        if n > 0 {
            found.push((table, column, n));
        }
    }
    found
}

#[tokio::test]
async fn an_erasure_leaves_no_copy_of_the_value_in_the_account() {
    const VALUE: &str = "alice.rights@example.com";
    let receiver = Receiver::start().await;
    let app = TestApp::spawn_with(&["--webhook-allow-private"]).await;
    let key = app.key(PRO, ALL).await;
    let contact = published_form(&app, &key, contact_fields(), Value::Null).await;
    let contact_id = str_of(&contact, "id");
    let f = field_ids(&contact);
    subscribe(
        &app,
        &key,
        &contact_id,
        &format!("{}/hook", receiver.base),
        &["form.submitted"],
    )
    .await;
    // Alice twice (in other capitals, once with an idempotency key), Bob once.
    let create = |answers: Value| {
        app.request(Method::POST, &format!("/forms/{contact_id}/responses"))
            .header("x-api-key", &key)
            .header("idempotency-key", uuid::Uuid::new_v4().to_string())
            .json(&json!({"answers": answers}))
    };
    let alice = send(create(
        json!({f[0].clone(): "Alice", f[1].clone(): "Alice.Rights@Example.com"}),
    ))
    .await;
    let alice = str_of(&alice.ok(201)["response"], "id");
    let bob = send(create(
        json!({f[0].clone(): "Bob", f[1].clone(): "bob@example.com"}),
    ))
    .await;
    let bob = str_of(&bob.ok(201)["response"], "id");
    // Her address as a plain text answer of another form, and a partial of a third.
    let notes = published_form(
        &app,
        &key,
        json!([{"type": "short_text", "label": "Who", "required": true}]),
        Value::Null,
    )
    .await;
    let n = field_ids(&notes);
    let noted = app
        .post(
            &format!("/forms/{}/responses", str_of(&notes, "id")),
            &key,
            &json!({"answers": {n[0].clone(): format!(" {VALUE} ")}}),
        )
        .await;
    let noted = str_of(&noted.ok(201)["response"], "id");
    let paged = published_form(
        &app,
        &key,
        json!([{"type": "email", "label": "Email", "required": true},
               {"type": "page_break", "label": "More"},
               {"type": "short_text", "label": "Name", "required": true}]),
        Value::Null,
    )
    .await;
    save_partial(&app, &paged, "ALICE.RIGHTS@example.com").await;
    // Another account's response with the same address.
    let other_key = app.key(PRO, ALL).await;
    let other = published_form(&app, &other_key, contact_fields(), Value::Null).await;
    let o = field_ids(&other);
    app.post(
        &format!("/forms/{}/responses", str_of(&other, "id")),
        &other_key,
        &json!({"answers": {o[0].clone(): "Alice", o[1].clone(): VALUE}}),
    )
    .await
    .ok(201);
    receiver.wait_for("/hook", 2, Duration::from_secs(20)).await;

    // The dry run lists her three and deletes nothing; so does one over gRPC.
    let dry = app
        .post("/erasures", &key, &json!({"value": VALUE, "dry_run": true}))
        .await;
    let dry = dry.ok(200).clone();
    assert_eq!(dry["erased"], false);
    let listed: Vec<(String, String)> = dry["responses"]
        .as_array()
        .expect("responses")
        .iter()
        .map(|r| (str_of(r, "status"), str_of(r, "form_title")))
        .collect();
    assert_eq!(listed.len(), 3, "{dry}");
    assert!(
        listed.contains(&("partial".into(), "Contact".into())),
        "{listed:?}"
    );
    assert!(str_of(&dry, "not_retroactive").contains("already delivered"));
    let mut responses = ResponsesServiceClient::new(channel(&app).await);
    let by_grpc = responses
        .erase_respondent(grpc_request(
            pb::EraseRespondentRequest {
                value: VALUE.to_uppercase(),
                dry_run: true,
            },
            &key,
        ))
        .await
        .expect("EraseRespondent")
        .into_inner();
    assert_eq!(by_grpc.matches.len(), 3);
    assert!(!by_grpc.erased);
    app.get(&format!("/forms/{contact_id}/responses/{alice}"), &key)
        .await
        .ok(200);
    // The admin scope is needed.
    let reader = app.key(PRO, READ).await;
    app.post("/erasures", &reader, &json!({"value": VALUE}))
        .await
        .error(403, "INSUFFICIENT_SCOPE");
    app.post("/erasures", &key, &json!({"value": "  "}))
        .await
        .error(422, "VALIDATION_ERROR");

    let done = app.post("/erasures", &key, &json!({"value": VALUE})).await;
    let done = done.ok(200).clone();
    assert_eq!(done["erased"], true);
    assert_eq!(done["responses"].as_array().map(Vec::len), Some(3));
    app.get(&format!("/forms/{contact_id}/responses/{alice}"), &key)
        .await
        .error(404, "NOT_FOUND");
    app.get(
        &format!("/forms/{}/responses/{noted}", str_of(&notes, "id")),
        &key,
    )
    .await
    .error(404, "NOT_FOUND");
    app.get(&format!("/forms/{contact_id}/responses/{bob}"), &key)
        .await
        .ok(200);
    // Only the other account's response holds it now, in its answers and search text.
    let left = holders(&app, VALUE).await;
    assert_eq!(
        left,
        vec![
            ("responses".to_owned(), "answers".to_owned(), 1),
            ("responses".to_owned(), "search".to_owned(), 1),
        ],
        "copies left after the erasure"
    );
    // The trail names the erasure, an entry per form whose responses went (the value is
    // in none of its rows: `holders` searched them above).
    let trail = app
        .get("/audit?action=EraseRespondent", &key)
        .await
        .ok(200)
        .clone();
    let erased_forms: std::collections::BTreeSet<&str> = trail["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["form_id"].as_str())
        .collect();
    let forms_erased: std::collections::BTreeSet<&str> = done["responses"]
        .as_array()
        .expect("erased responses")
        .iter()
        .filter_map(|r| r["form_id"].as_str())
        .collect();
    assert!(!forms_erased.is_empty());
    assert_eq!(erased_forms, forms_erased, "{trail}");
    let again = app.post("/erasures", &key, &json!({"value": VALUE})).await;
    assert_eq!(again.ok(200)["responses"], json!([]));
}

#[tokio::test]
async fn the_dashboard_finds_and_erases_a_respondent_in_chromium() {
    let app = TestApp::spawn().await;
    let key = app.new_key(PRO, ALL).await;
    let d = crate::dashboard_session::signed_in(&app, &key.account).await;
    let form = published_form(&app, &key.key, contact_fields(), Value::Null).await;
    let f = field_ids(&form);
    let path = format!("/forms/{}/responses", str_of(&form, "id"));
    for (name, email) in [
        ("Ann", "ann@example.org"),
        ("Ann again", "ANN@example.org"),
        ("Ben", "ben@example.org"),
    ] {
        app.post(
            &path,
            &key.key,
            &json!({"answers": {f[0].clone(): name, f[1].clone(): email}}),
        )
        .await
        .ok(201);
    }
    // Retention set in the builder's settings, shown on the responses page, cleared.
    let form_id = str_of(&form, "id");
    let settings = format!("/app/forms/{form_id}/settings");
    let saved = d.post(&settings, &[("retention_days", "14")]).await;
    assert_eq!(saved.status, 303, "{}", saved.text);
    let read = app.get(&format!("/forms/{form_id}"), &key.key).await;
    assert_eq!(read.ok(200)["form"]["retention_days"], 14);
    let inbox = d.get(&format!("/app/forms/{form_id}/responses")).await;
    assert!(
        inbox.text.contains("Responses are kept 14 days"),
        "{}",
        inbox.text
    );
    let refused = d.post(&settings, &[("retention_days", "0")]).await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    let cleared = d.post(&settings, &[("retention_days", "")]).await;
    assert_eq!(cleared.status, 303, "{}", cleared.text);
    let read = app.get(&format!("/forms/{form_id}"), &key.key).await;
    assert!(
        read.ok(200)["form"].get("retention_days").is_none(),
        "{}",
        read.text
    );

    // Without script: the dry run lists two, the confirmation erases them.
    let listed = d
        .post("/app/account/erasure", &[("value", "ann@example.org")])
        .await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    assert!(
        listed.text.contains("2 responses hold it"),
        "{}",
        listed.text
    );
    let total = |reply: Reply| reply.ok(200)["pagination"]["total"].clone();
    assert_eq!(
        total(app.get(&path, &key.key).await),
        3,
        "a dry run deletes nothing"
    );
    if !crate::browser::browser_available() {
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/erasure.mjs");
    let output = tokio::process::Command::new("node")
        .args([script, &d.base, &d.cookie, "ann@example.org"])
        .output()
        .await
        .expect("running node");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(seen["found390"], 2, "{seen}");
    assert_eq!(seen["found1280"], 2, "{seen}");
    assert_eq!(seen["notice"], "2 responses were erased.", "{seen}");
    assert_eq!(seen["axe"], json!([]), "{seen}");
    assert_eq!(seen["cspViolations"], json!([]), "{seen}");
    assert_eq!(seen["sideways"], json!([]), "{seen}");
    assert_eq!(total(app.get(&path, &key.key).await), 1, "Ben stays");
}
