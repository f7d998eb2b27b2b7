//! SPEC "Authentication": key headers, 401/403 codes, scopes, plans, account isolation,
//! and keys kept out of logs and error messages.

use crate::fixtures::{NOTIFIED, eventually};
use crate::harness::*;
use ::forms::accounts::{Plan, Scope, store};
use serde_json::{Value, json};

fn form_body(title: &str) -> Value {
    json!({"title": title, "fields": [{"type": "short_text", "label": "Name", "required": true}]})
}

#[tokio::test]
async fn x_api_key_header_is_accepted() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, READ).await;
    let reply = send(app.request(Method::GET, "/forms").header("x-api-key", &key)).await;
    let data = reply.ok(200);
    assert_eq!(data["forms"], json!([]));
}

#[tokio::test]
async fn bearer_authorization_is_accepted() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, &[Scope::Write]).await;
    let bearer = format!("Bearer {key}");
    let created = send(
        app.request(Method::POST, "/forms")
            .header("authorization", &bearer)
            .json(&form_body("Via bearer")),
    )
    .await;
    let id = created.ok(201)["form"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    // The same identity as with x-api-key: the form is visible both ways.
    let by_bearer = send(
        app.request(Method::GET, &format!("/forms/{id}"))
            .header("authorization", &bearer),
    )
    .await;
    assert_eq!(by_bearer.ok(200)["form"]["title"], "Via bearer");
    let by_header = app.get(&format!("/forms/{id}"), &key).await;
    assert_eq!(by_header.ok(200)["form"]["id"], id.as_str());
}

#[tokio::test]
async fn missing_key_is_unauthenticated() {
    let app = TestApp::spawn().await;
    let form_id = uuid::Uuid::new_v4();
    let requests = [
        app.request(Method::GET, "/forms"),
        app.request(Method::GET, &format!("/forms/{form_id}")),
        app.request(Method::POST, "/forms").json(&form_body("x")),
        app.request(Method::PUT, &format!("/forms/{form_id}"))
            .json(&json!({"title": "y"})),
        app.request(Method::DELETE, &format!("/forms/{form_id}")),
        app.request(Method::GET, "/usage"),
        // A non-bearer Authorization header carries no API key either.
        app.request(Method::GET, "/forms")
            .header("authorization", "Basic dXNlcjpwYXNz"),
    ];
    for request in requests {
        send(request).await.error(401, "UNAUTHENTICATED");
    }
}

#[tokio::test]
async fn wrong_key_is_key_invalid() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let (prefix, secret) = split_key(&key);
    let mut flipped = secret.to_owned();
    let last = flipped.pop().expect("secret");
    flipped.push(if last == 'A' { 'B' } else { 'A' });
    let wrong = [
        "not-a-key".to_owned(),
        "fsk_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".to_owned(),
        // The right lookup with a wrong secret, and with no secret at all.
        format!("{prefix}_{flipped}"),
        format!("{prefix}_"),
        format!("{key}x"),
    ];
    for presented in &wrong {
        for bearer in [false, true] {
            let request = app.request(Method::GET, "/forms");
            let request = if bearer {
                request.header("authorization", format!("Bearer {presented}"))
            } else {
                request.header("x-api-key", presented)
            };
            let reply = send(request).await;
            reply.error(401, "KEY_INVALID");
            assert!(
                !reply.text.contains(presented.as_str()),
                "the presented key is echoed in the error: {}",
                reply.text
            );
        }
    }
    // The right key still works after all those failures.
    app.get("/forms", &key).await.ok(200);
}

#[tokio::test]
async fn a_revoked_key_is_refused_by_every_instance_within_a_second() {
    // Instances cache keys; a change is announced on commit and reaches them within a
    // second, whoever makes it (here plain SQL, as an operator could).
    let app = TestApp::spawn().await;
    let other = TestApp::spawn_on(app.db.clone(), &[]).await;
    let key = app.new_key(PRO, ALL).await;
    let sibling = app.key_for(&key.account, PRO, READ).await;
    app.get("/forms", &key.key).await.ok(200);
    other.get("/forms", &key.key).await.ok(200);
    store::revoke_key(&app.pool, key.key_id)
        .await
        .expect("revoking");
    for instance in [&app, &other] {
        eventually("the revocation", NOTIFIED, || async {
            (instance.get("/forms", &key.key).await.status == 401).then_some(())
        })
        .await;
        instance
            .get("/forms", &key.key)
            .await
            .error(401, "KEY_INVALID");
        instance
            .get("/usage", &key.key)
            .await
            .error(401, "KEY_INVALID");
        let bearer = send(
            instance
                .request(Method::GET, "/forms")
                .header("authorization", format!("Bearer {}", key.key)),
        )
        .await;
        bearer.error(401, "KEY_INVALID");
        // Other keys of the account are unaffected.
        instance.get("/forms", &sibling.key).await.ok(200);
    }
}

#[tokio::test]
async fn expired_key_is_key_invalid() {
    let app = TestApp::spawn().await;
    let now = chrono::Utc::now();
    let account = format!("acct-{}", uuid::Uuid::new_v4().simple());
    let expired = app
        .key_expiring(&account, PRO, ALL, Some(now - chrono::Duration::seconds(1)))
        .await;
    app.get("/forms", &expired.key)
        .await
        .error(401, "KEY_INVALID");
    let valid = app
        .key_expiring(&account, PRO, ALL, Some(now + chrono::Duration::hours(1)))
        .await;
    app.get("/forms", &valid.key).await.ok(200);
    // A key that expires while in use stops working once its time has come.
    let expires_at = chrono::Utc::now() + chrono::Duration::seconds(2);
    let short = app.key_expiring(&account, PRO, ALL, Some(expires_at)).await;
    app.get("/forms", &short.key).await.ok(200);
    sleep_until_unix(expires_at.timestamp() + 1).await;
    app.get("/forms", &short.key)
        .await
        .error(401, "KEY_INVALID");
}

#[tokio::test]
async fn read_scope_cannot_write_or_delete() {
    let app = TestApp::spawn().await;
    let admin = app.new_key(PRO, ALL).await;
    let read = app.key_for(&admin.account, PRO, READ).await;
    let form = app.create_form(&admin.key, &form_body("Owned")).await;
    let path = format!("/forms/{}", form["id"].as_str().expect("id"));

    app.post("/forms", &read.key, &form_body("Nope"))
        .await
        .error(403, "INSUFFICIENT_SCOPE");
    app.put(&path, &read.key, &json!({"title": "Changed"}))
        .await
        .error(403, "INSUFFICIENT_SCOPE");
    app.delete(&path, &read.key)
        .await
        .error(403, "INSUFFICIENT_SCOPE");
    // Reads are fine, and nothing changed.
    assert_eq!(
        app.get(&path, &read.key).await.ok(200)["form"]["title"],
        "Owned"
    );
    let list = app.get("/forms", &read.key).await;
    assert_eq!(list.ok(200)["pagination"]["total"], 1);
}

#[tokio::test]
async fn write_scope_can_create_update_and_read_but_not_delete() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, WRITE).await;
    let form = app.create_form(&key, &form_body("Mine")).await;
    let path = format!("/forms/{}", form["id"].as_str().expect("id"));
    let updated = app.put(&path, &key, &json!({"title": "Mine 2"})).await;
    assert_eq!(updated.ok(200)["form"]["title"], "Mine 2");
    // Write includes read.
    assert_eq!(
        app.get(&path, &key).await.ok(200)["form"]["title"],
        "Mine 2"
    );
    app.get("/forms", &key).await.ok(200);
    app.delete(&path, &key)
        .await
        .error(403, "INSUFFICIENT_SCOPE");
    app.get(&path, &key).await.ok(200);
}

#[tokio::test]
async fn admin_scope_includes_read_and_write() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ADMIN).await;
    let form = app.create_form(&key, &form_body("Admin's")).await;
    let path = format!("/forms/{}", form["id"].as_str().expect("id"));
    app.put(&path, &key, &json!({"status": "published"}))
        .await
        .ok(200);
    assert_eq!(
        app.get(&path, &key).await.ok(200)["form"]["status"],
        "published"
    );
    assert_eq!(
        app.get("/forms", &key).await.ok(200)["pagination"]["total"],
        1
    );
    let deleted = app.delete(&path, &key).await;
    assert_eq!(deleted.status, 204, "{}", deleted.text);
}

#[tokio::test]
async fn usage_is_readable_with_any_scope() {
    let app = TestApp::spawn().await;
    for scopes in [READ, WRITE, ADMIN] {
        let key = app.new_key(PRO, scopes).await;
        let reply = app.get("/usage", &key.key).await;
        assert_eq!(reply.ok(200)["key_id"], key.key_id.to_string());
    }
}

#[tokio::test]
async fn free_plan_is_plan_required() {
    let app = TestApp::spawn().await;
    let key = app.key(Plan::Free, ALL).await;
    let form_id = uuid::Uuid::new_v4();
    app.get("/forms", &key).await.error(403, "PLAN_REQUIRED");
    app.post("/forms", &key, &form_body("x"))
        .await
        .error(403, "PLAN_REQUIRED");
    app.get(&format!("/forms/{form_id}"), &key)
        .await
        .error(403, "PLAN_REQUIRED");
    app.delete(&format!("/forms/{form_id}"), &key)
        .await
        .error(403, "PLAN_REQUIRED");
    app.get("/usage", &key).await.error(403, "PLAN_REQUIRED");
    // Nothing was created.
    let (count,): (i64,) = sqlx::query_as("SELECT count(*) FROM forms")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(count, 0);
}

#[tokio::test]
async fn plan_changes_take_effect_within_a_second() {
    let app = TestApp::spawn().await;
    let key = app.new_key(Plan::Free, READ).await;
    app.get("/forms", &key.key)
        .await
        .error(403, "PLAN_REQUIRED");
    for (plan, limit) in [(Plan::Pro, 1000), (Plan::Enterprise, 5000)] {
        let change = store::AccountChange {
            plan: Some(plan),
            ..Default::default()
        };
        store::update_account(&app.pool, &key.account, &change)
            .await
            .expect("plan change");
        // Instances cache keys with their plan; a change reaches them within a second
        // (a notification on commit). Made here by SQL, as an operator could.
        let reply = eventually("the new plan", NOTIFIED, || async {
            let reply = app.get("/forms", &key.key).await;
            (reply.status == 200 && reply.header_u64("x-ratelimit-limit") == limit).then_some(reply)
        })
        .await;
        reply.ok(200);
    }
    let change = store::AccountChange {
        plan: Some(Plan::Free),
        ..Default::default()
    };
    store::update_account(&app.pool, &key.account, &change)
        .await
        .expect("downgrade");
    let reply = eventually("the downgrade", NOTIFIED, || async {
        let reply = app.get("/forms", &key.key).await;
        (reply.status == 403).then_some(reply)
    })
    .await;
    reply.error(403, "PLAN_REQUIRED");
}

#[tokio::test]
async fn forms_of_another_account_are_invisible() {
    let app = TestApp::spawn().await;
    let a = app.new_key(PRO, ALL).await;
    let a2 = app.key_for(&a.account, PRO, READ).await;
    let b = app.new_key(PRO, ALL).await;
    let form = app.create_form(&a.key, &form_body("A's form")).await;
    let id = form["id"].as_str().expect("id");
    let path = format!("/forms/{id}");
    app.create_form(&b.key, &form_body("B's form")).await;

    app.get(&path, &b.key).await.error(404, "NOT_FOUND");
    app.put(&path, &b.key, &json!({"title": "Taken over"}))
        .await
        .error(404, "NOT_FOUND");
    app.delete(&path, &b.key).await.error(404, "NOT_FOUND");
    let b_list = app.get("/forms?per_page=100", &b.key).await;
    let b_forms = b_list.ok(200)["forms"].as_array().expect("forms").clone();
    assert_eq!(b_forms.len(), 1);
    assert_eq!(b_forms[0]["title"], "B's form");
    assert!(b_forms.iter().all(|f| f["id"] != id));
    let searched = app.get("/forms?search=A%27s", &b.key).await;
    assert_eq!(searched.ok(200)["forms"], json!([]));

    // Untouched, and visible to every key of its own account.
    let seen = app.get(&path, &a2.key).await;
    assert_eq!(seen.ok(200)["form"], form);
    let a_list = app.get("/forms", &a2.key).await;
    let a_forms = a_list.ok(200)["forms"].as_array().expect("forms").clone();
    assert_eq!(a_forms.len(), 1);
    assert_eq!(a_forms[0]["id"], id);
}

/// Every 12-character piece of `secret` (none when it is shorter).
fn fragments(secret: &str) -> Vec<&str> {
    (0..(secret.len() + 1).saturating_sub(12))
        .map(|i| &secret[i..i + 12])
        .collect()
}

#[tokio::test]
async fn keys_never_appear_in_logs() {
    keys_stay_out_of_logs("info").await;
}

#[tokio::test]
async fn keys_never_appear_in_debug_logs() {
    keys_stay_out_of_logs("debug").await;
}

async fn keys_stay_out_of_logs(level: &str) {
    let app = TestApp::spawn_env(&[], &[("RUST_LOG", level)]).await;
    let key = app.new_key(PRO, ALL).await;
    let (prefix, secret) = split_key(&key.key);
    let wrong = format!("{prefix}_{}", secret.chars().rev().collect::<String>());
    let revoked = app.key_for(&key.account, PRO, READ).await;
    store::revoke_key(&app.pool, revoked.key_id)
        .await
        .expect("revoke");

    let bearer = |k: &str| format!("Bearer {k}");
    let form = app.create_form(&key.key, &form_body("Logged")).await;
    let path = format!("/forms/{}", form["id"].as_str().expect("id"));
    let requests = vec![
        app.request(Method::GET, "/forms")
            .header("x-api-key", &key.key),
        app.request(Method::GET, &path)
            .header("authorization", bearer(&key.key)),
        app.request(Method::PUT, &path)
            .header("authorization", bearer(&key.key))
            .json(&json!({"title": "Logged 2"})),
        app.request(Method::GET, "/forms")
            .header("x-api-key", &wrong),
        app.request(Method::GET, "/forms")
            .header("authorization", bearer(&wrong)),
        app.request(Method::GET, "/forms")
            .header("x-api-key", &revoked.key),
        app.request(Method::POST, "/forms")
            .header("x-api-key", &key.key)
            .header("content-type", "text/plain")
            .body("title=x"),
        app.request(Method::POST, "/forms")
            .header("x-api-key", &key.key)
            .header("content-type", "application/json")
            .body("{not json"),
        app.request(Method::GET, "/nowhere")
            .header("x-api-key", &key.key),
        app.request(Method::GET, "/usage")
            .header("x-api-key", &key.key),
    ];
    let expected_lines = requests.len() + 1;
    for request in requests {
        send(request).await;
    }
    // Wait until the access log shows every request (it is written before the reply,
    // but read from the pipe asynchronously).
    let request_lines = || {
        app.logs()
            .json_lines()
            .iter()
            .filter(|l| l["fields"]["message"] == "request")
            .count()
    };
    for _ in 0..100 {
        if request_lines() >= expected_lines {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(request_lines(), expected_lines, "{}", app.logs().text());

    let logs = app.logs().text();
    for presented in [&key.key, &wrong, &revoked.key] {
        assert!(!logs.contains(presented.as_str()), "a key is in the logs");
        // The secret after the lookup. It may itself contain '_': the part after the
        // last '_' is a suffix of it, so its 12-character pieces are checked here too.
        let secret = split_key(presented).1;
        assert!(!logs.contains(secret), "a key's secret is in the logs");
        for fragment in fragments(secret) {
            assert!(
                !logs.contains(fragment),
                "a fragment of a key's secret ({fragment}) is in the logs:\n{logs}"
            );
        }
    }
}
