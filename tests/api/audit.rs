//! The audit trail (issue 33 §2): a change is listed with its actor and address over
//! REST and on the dashboard page; `formsd audit verify` passes on an intact trail and
//! names the entry after a row is deleted or altered by SQL; secrets and answers never
//! reach a row; another account never sees the trail; retention purges a backdated
//! entry and what is left still verifies.

use crate::dashboard_session::{browser, sign_in_link, signed_in, token_of};
use crate::fixtures::*;
use crate::harness::*;
use forms::accounts::Scope;
use serde_json::{Value, json};
use std::process::Stdio;

/// `formsd audit verify` on `database_url`: (success, stdout, stderr).
async fn verify(database_url: &str) -> (bool, String, String) {
    let output = formsd_command()
        .args(["--database-url", database_url, "audit", "verify"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .await
        .expect("running formsd audit verify");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The account's trail over REST (newest first).
async fn trail(app: &TestApp, key: &str, query: &str) -> Vec<Value> {
    let reply = app.get(&format!("/audit?{query}"), key).await;
    reply.ok(200)["entries"]
        .as_array()
        .expect("entries")
        .clone()
}

/// An account with a form, updated over REST with a user agent of ours: (key, form id).
async fn updated_form(app: &TestApp) -> (TestKey, String) {
    let key = app.new_key(PRO, ALL).await;
    let form = app
        .create_form(
            &key.key,
            &json!({"title": "Audited", "fields": contact_fields()}),
        )
        .await;
    let id = form["id"].as_str().expect("form id").to_owned();
    let reply = send(
        app.request(reqwest::Method::PUT, &format!("/forms/{id}"))
            .header("x-api-key", &key.key)
            .header("user-agent", "audit-test/1.0")
            .json(&json!({"title": "Audited, renamed", "status": "published"})),
    )
    .await;
    reply.ok(200);
    (key, id)
}

#[tokio::test]
async fn a_form_update_is_listed_with_its_key_and_address_over_rest_and_on_the_page() {
    let app = TestApp::spawn().await;
    let (key, form_id) = updated_form(&app).await;

    let entries = trail(&app, &key.key, &format!("form_id={form_id}")).await;
    let update = entries
        .iter()
        .find(|e| e["action"] == "UpdateForm")
        .unwrap_or_else(|| panic!("no UpdateForm entry: {entries:?}"));
    assert_eq!(update["actor_kind"], "key");
    assert_eq!(update["actor_key_id"], key.key_id.to_string());
    assert_eq!(update["client_ip"], "127.0.0.1");
    assert_eq!(update["user_agent"], "audit-test/1.0");
    assert_eq!(update["target_kind"], "form");
    assert_eq!(update["target_id"], form_id.as_str());
    assert_eq!(update["outcome"], "ok");
    assert_eq!(update["changed"], json!(["title", "status"]));
    assert!(
        entries.iter().any(|e| e["action"] == "CreateForm"),
        "the create is listed too: {entries:?}"
    );
    // The filters: by action, and by actor.
    let by_action = trail(&app, &key.key, "action=CreateForm").await;
    assert!(by_action.iter().all(|e| e["action"] == "CreateForm"));
    assert_eq!(by_action.len(), 1, "{by_action:?}");
    let by_actor = trail(&app, &key.key, &format!("actor={}", key.key_id)).await;
    assert_eq!(by_actor.len(), 2, "{by_actor:?}");
    // Keyset paging: one entry a page, the older one behind the cursor.
    let first = app.get("/audit?limit=1", &key.key).await;
    let first = first.ok(200);
    assert_eq!(first["entries"][0]["action"], "UpdateForm");
    let cursor = first["next_cursor"].as_str().expect("a next page");
    let second = app
        .get(&format!("/audit?limit=1&cursor={cursor}"), &key.key)
        .await;
    assert_eq!(second.ok(200)["entries"][0]["action"], "CreateForm");
    // The export: the same entries, one JSON object a line.
    let export = app.get("/audit/export", &key.key).await;
    assert_eq!(export.status, 200, "{}", export.text);
    let lines: Vec<Value> = export
        .text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{}", export.text);
    assert_eq!(lines[0]["actor_key_id"], key.key_id.to_string());
    // Reading the trail takes the admin scope.
    let writer = app
        .key_for(&key.account, PRO, &[Scope::Read, Scope::Write])
        .await;
    app.get("/audit", &writer.key)
        .await
        .error(403, "INSUFFICIENT_SCOPE");

    // The owner's page lists it with its key and address.
    let dashboard = signed_in(&app, &key.account).await;
    let page = dashboard.get(&format!("/app/audit?form={form_id}")).await;
    assert_eq!(page.status, 200, "{}", page.text);
    for expected in [
        "Update form",
        &key.key_id.to_string(),
        "127.0.0.1",
        "audit-test/1.0",
    ] {
        assert!(page.text.contains(expected), "{expected} not on the page");
    }
    // The form is chosen by its title in the filter, and named by it in the entries.
    assert!(
        page.text.contains(&format!(
            r#"<option value="{form_id}" selected>Audited, renamed</option>"#
        )),
        "the form chosen by title"
    );
    assert!(
        page.text.contains("form “Audited, renamed”"),
        "the target by title"
    );
    // The dashboard sign-in itself is an entry of the account, by its session.
    let signed = trail(&app, &key.key, "action=RedeemSignInLink").await;
    assert_eq!(signed.len(), 1, "{signed:?}");
    assert_eq!(signed[0]["actor_kind"], "visitor");
    assert!(
        !signed[0]["actor_session_id"]
            .as_str()
            .unwrap_or_default()
            .is_empty()
    );
}

/// Entries of `account`'s chain, by number.
async fn seqs(app: &TestApp, key: &TestKey) -> Vec<i64> {
    let account: uuid::Uuid = sqlx::query_scalar("SELECT id FROM accounts WHERE name = $1")
        .bind(&key.account)
        .fetch_one(&app.pool)
        .await
        .expect("account id");
    sqlx::query_scalar("SELECT seq FROM audit_entries WHERE chain = $1 ORDER BY seq")
        .bind(account)
        .fetch_all(&app.pool)
        .await
        .expect("entries")
}

#[tokio::test]
async fn verify_passes_on_an_intact_trail_and_names_an_entry_deleted_by_sql() {
    let app = TestApp::spawn().await;
    let (key, form_id) = updated_form(&app).await;
    app.delete(&format!("/forms/{form_id}"), &key.key).await;
    let (ok, stdout, stderr) = verify(&app.db.url).await;
    assert!(ok, "an intact trail fails: {stdout} {stderr}");
    assert!(stdout.contains("audit trail intact"), "{stdout}");

    let numbers = seqs(&app, &key).await;
    assert_eq!(numbers, vec![1, 2, 3]);
    sqlx::query("DELETE FROM audit_entries WHERE seq = 2 AND account_id = (SELECT id FROM accounts WHERE name = $1)")
        .bind(&key.account)
        .execute(&app.pool)
        .await
        .expect("deleting an entry");
    let (ok, stdout, stderr) = verify(&app.db.url).await;
    assert!(!ok, "a deleted entry passes: {stdout}");
    assert!(
        stderr.contains("broken at entry 2 of chain") && stderr.contains("deleted"),
        "{stderr}"
    );
}

#[tokio::test]
async fn verify_names_an_entry_altered_by_sql() {
    let app = TestApp::spawn().await;
    let (key, _) = updated_form(&app).await;
    let (ok, _, stderr) = verify(&app.db.url).await;
    assert!(ok, "{stderr}");
    // The service never updates an entry; the table refuses it.
    let refused = sqlx::query("UPDATE audit_entries SET client_ip = '10.6.6.6'")
        .execute(&app.pool)
        .await;
    assert!(refused.is_err(), "an entry was updated");
    // Someone with the rights to drop the guard alters the first entry.
    let mut tx = app.pool.begin().await.expect("transaction");
    for sql in [
        "ALTER TABLE audit_entries DISABLE TRIGGER audit_entries_no_update",
        "UPDATE audit_entries SET client_ip = '10.6.6.6' WHERE seq = 1",
        "ALTER TABLE audit_entries ENABLE TRIGGER audit_entries_no_update",
    ] {
        sqlx::query(sql).execute(&mut *tx).await.expect(sql);
    }
    tx.commit().await.expect("commit");
    let (ok, stdout, stderr) = verify(&app.db.url).await;
    assert!(!ok, "an altered entry passes: {stdout}");
    assert!(
        stderr.contains("broken at entry 1 of chain") && stderr.contains("altered"),
        "{stderr}"
    );
    let _ = key;
}

#[tokio::test]
async fn secrets_and_answers_never_reach_the_trail() {
    let app = TestApp::spawn_with(&["--webhook-allow-private"]).await;
    let account = format!("acct-{}", uuid::Uuid::new_v4().simple());
    // A key made by the operator's command: its entry names it by id only.
    let printed = formsd_cli(
        &app.db.url,
        &[
            "keys",
            "create",
            "--account",
            &account,
            "--scopes",
            "read,write,admin",
            "--json",
        ],
    )
    .await;
    let created: Value = serde_json::from_str(printed.trim()).expect("JSON");
    let key = created["key"].as_str().expect("key").to_owned();
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("form id").to_owned();
    let hook = app
        .post(
            &format!("/forms/{form_id}/webhooks"),
            &key,
            &json!({"name": "h", "url": "http://127.0.0.1:9/hook", "events": ["response.received"]}),
        )
        .await;
    let secret = hook.ok(201)["webhook"]["secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    let fields = field_ids(&form);
    let answer = format!("answer-{}", uuid::Uuid::new_v4().simple());
    let response = app
        .post(
            &format!("/forms/{form_id}/responses"),
            &key,
            &json!({"answers": {fields[0].clone(): answer, fields[1].clone(): "a@example.com"}}),
        )
        .await;
    let response_id = response.ok(201)["response"]["id"]
        .as_str()
        .expect("response id")
        .to_owned();
    let export = app
        .get(&format!("/forms/{form_id}/responses/export"), &key)
        .await;
    assert!(export.text.contains(&answer));
    app.delete(&format!("/forms/{form_id}/responses/{response_id}"), &key)
        .await;
    // A failed sign-in: its token is not kept either.
    let bogus = format!("bogus{}", uuid::Uuid::new_v4().simple());
    let body = serde_urlencoded::to_string([("token", bogus.as_str()), ("next", "/app/forms")])
        .expect("form body");
    let base = format!("http://{}", app.server.http_addr.expect("HTTP address"));
    browser()
        .post(format!("{base}/app/sign-in/link"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .expect("a failed sign-in");
    let real = sign_in_link(&app, &account).await;

    let actions: Vec<String> = trail(&app, &key, "limit=500")
        .await
        .iter()
        .map(|e| e["action"].as_str().unwrap_or_default().to_owned())
        .collect();
    for expected in [
        "CreateKey",
        "CreateForm",
        "UpdateForm",
        "CreateWebhook",
        "ExportResponses",
        "DeleteResponse",
        "CreateSignInLink",
    ] {
        assert!(
            actions.iter().any(|a| a == expected),
            "no {expected}: {actions:?}"
        );
    }
    let refused: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit_entries
          WHERE action = 'RedeemSignInLink' AND outcome = 'refused' AND account_id IS NULL",
    )
    .fetch_one(&app.pool)
    .await
    .expect("count");
    assert_eq!(refused, 1, "the failed sign-in is in the instance's chain");
    for (what, value) in [
        ("the API key", key.as_str()),
        ("the webhook secret", secret.as_str()),
        ("the answer", answer.as_str()),
        ("a failed sign-in's token", bogus.as_str()),
        ("a sign-in link's token", token_of(&real)),
    ] {
        let found: i64 = sqlx::query_scalar(
            "SELECT (SELECT count(*) FROM audit_entries e WHERE strpos(row_to_json(e)::text, $1) > 0)
                  + (SELECT count(*) FROM audit_heads h WHERE strpos(row_to_json(h)::text, $1) > 0)",
        )
        .bind(value)
        .fetch_one(&app.pool)
        .await
        .expect("search");
        assert_eq!(found, 0, "{what} is in the audit trail");
    }
}

#[tokio::test]
async fn another_account_never_sees_the_trail() {
    let app = TestApp::spawn().await;
    let (a, form_id) = updated_form(&app).await;
    let b = app.new_key(PRO, ALL).await;
    for query in [
        "",
        "limit=500",
        &format!("form_id={form_id}"),
        &format!("actor={}", a.key_id),
    ] {
        let reply = app.get(&format!("/audit?{query}"), &b.key).await;
        let text = reply.text.clone();
        assert!(
            reply.ok(200)["entries"]
                .as_array()
                .expect("entries")
                .is_empty(),
            "{text}"
        );
        assert!(!text.contains(&form_id));
    }
    let export = app
        .get(&format!("/audit/export?form_id={form_id}"), &b.key)
        .await;
    assert_eq!(export.status, 200);
    assert!(export.text.is_empty(), "{}", export.text);
    let page = signed_in(&app, &b.account).await.get("/app/audit").await;
    assert_eq!(page.status, 200);
    assert!(!page.text.contains(&form_id) && !page.text.contains(&a.key_id.to_string()));
    // A's own trail holds A's form: the control.
    assert!(
        !trail(&app, &a.key, &format!("form_id={form_id}"))
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn retention_purges_backdated_entries_and_the_rest_still_verifies() {
    let app = TestApp::spawn().await;
    let (key, form_id) = updated_form(&app).await;
    app.put(
        &format!("/forms/{form_id}"),
        &key.key,
        &json!({"title": "Third"}),
    )
    .await
    .ok(200);
    assert_eq!(seqs(&app, &key).await, vec![1, 2, 3]);
    // The first two entries, made old as the months would.
    let mut tx = app.pool.begin().await.expect("transaction");
    for sql in [
        "ALTER TABLE audit_entries DISABLE TRIGGER audit_entries_no_update",
        "UPDATE audit_entries SET at = at - interval '400 days' WHERE seq <= 2",
        "ALTER TABLE audit_entries ENABLE TRIGGER audit_entries_no_update",
    ] {
        sqlx::query(sql).execute(&mut *tx).await.expect(sql);
    }
    tx.commit().await.expect("commit");

    // Another instance, whose first purge round runs at start (default retention: 1 year).
    let purging = TestApp::spawn_on(app.db.clone(), &[]).await;
    assert!(
        purging
            .logs()
            .wait_for("audit entries past retention")
            .await,
        "no purge logged"
    );
    let purged = purging
        .logs()
        .json_lines()
        .into_iter()
        .find(|l| l["fields"]["message"] == "audit entries past retention")
        .map(|l| l["fields"]["purged"].clone());
    assert_eq!(purged, Some(json!(2)));
    assert_eq!(seqs(&app, &key).await, vec![3]);
    let (ok, stdout, stderr) = verify(&app.db.url).await;
    assert!(ok, "what is left does not verify: {stdout} {stderr}");
    // And the cut is still guarded: deleting the first kept entry is caught.
    sqlx::query("DELETE FROM audit_entries WHERE seq = 3")
        .execute(&app.pool)
        .await
        .expect("delete");
    let (ok, _, stderr) = verify(&app.db.url).await;
    assert!(!ok, "a deleted entry after the cut passes");
    assert!(stderr.contains("entries were deleted"), "{stderr}");
}

#[tokio::test]
async fn the_audit_page_filters_by_keyboard_at_390_and_1280_in_chromium() {
    if !crate::browser::browser_available() {
        return;
    }
    let app = TestApp::spawn().await;
    let (key, _) = updated_form(&app).await;
    let dashboard = signed_in(&app, &key.account).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/audit.mjs");
    let args: [&dyn AsRef<std::ffi::OsStr>; 4] =
        [&script, &dashboard.base, &dashboard.cookie, &"UpdateForm"];
    let seen = crate::fixtures::run_browser_script(&args).await;
    for width in ["390", "1280"] {
        assert_eq!(seen["reachedFilter"][width], true, "{seen}");
        // The one form update, said in words; the sign-in and the create filtered out.
        assert_eq!(seen["listed"][width], json!(["Update form"]), "{seen}");
    }
    assert_eq!(seen["axe"], json!([]), "{seen}");
    assert_eq!(seen["cspViolations"], json!([]), "{seen}");
    assert_eq!(seen["sideways"], json!([]), "{seen}");
}
