//! A create is judged on its form as it is now, whichever instance changed the form last.
//! An instance keeps its last view of each form and stores the next response on it in
//! one statement, only if neither the form nor its account has moved since
//! (core/responses/create/snapshot.rs); these tests move them from another instance.

use crate::fixtures::*;
use crate::harness::*;
use serde_json::{Value, json};
use std::time::Duration;

#[tokio::test]
async fn creates_are_judged_on_the_form_as_another_instance_left_it() {
    let a = TestApp::spawn().await;
    let b = TestApp::spawn_on(a.db.clone(), &[]).await;
    let key = a.key(PRO, ALL).await;
    let k = key.as_str();
    let name_only = json!([{"type": "short_text", "label": "Name", "required": true}]);
    let form = published_form(&a, k, name_only, json!({"max_responses": 5})).await;
    let id = form["id"].as_str().expect("id").to_owned();
    let (form_path, path) = (format!("/forms/{id}"), format!("/forms/{id}/responses"));
    let name = field_ids(&form)[0].clone();
    let named = |n: &str| json!({"answers": {name.clone(): n}});
    a.post(&path, k, &named("one")).await.ok(201);
    a.post(&path, k, &named("two")).await.ok(201);

    // B adds a required field: A's next create is judged on it.
    let fields = json!([form["fields"][0].clone(),
                        {"type": "email", "label": "Email", "required": true}]);
    let updated = b.put(&form_path, k, &json!({"fields": fields})).await;
    let email = field_ids(&updated.ok(200)["form"])[1].clone();
    a.post(&path, k, &named("three"))
        .await
        .error(422, "VALIDATION_ERROR");
    let full =
        |n: &str| json!({"answers": {name.clone(): n, email.clone(): format!("{n}@example.com")}});
    a.post(&path, k, &full("three")).await.ok(201);

    // B stores the fourth: A counts it, so its fifth closes the form for both.
    b.post(&path, k, &full("four")).await.ok(201);
    a.post(&path, k, &full("five")).await.ok(201);
    a.post(&path, k, &full("six"))
        .await
        .error(422, "FORM_CLOSED");
    b.post(&path, k, &full("six"))
        .await
        .error(422, "FORM_CLOSED");

    // B raises the cap: A takes responses again; B archives the form: A refuses.
    let raised = json!({"settings": {"max_responses": 10}});
    b.put(&form_path, k, &raised).await.ok(200);
    a.post(&path, k, &full("six")).await.ok(201);
    b.put(&form_path, k, &json!({"status": "archived"}))
        .await
        .ok(200);
    a.post(&path, k, &full("seven"))
        .await
        .error(422, "FORM_NOT_PUBLISHED");

    // Every stored response once, in submission order, and the form's count with them.
    let listed = a.get(&format!("{path}?sort=asc&per_page=100"), k).await;
    let responses = listed.ok(200)["responses"]
        .as_array()
        .expect("responses")
        .clone();
    let names: Vec<&str> = responses
        .iter()
        .map(|r| r["answers"][&name].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["one", "two", "three", "four", "five", "six"]);
    let times: Vec<chrono::DateTime<chrono::Utc>> = responses
        .iter()
        .map(|r| assert_timestamp(&r["submitted_at"]))
        .collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    let counted = count(&a, "SELECT response_count FROM forms WHERE id = $1", &id).await;
    assert_eq!(counted, 6);
}

#[tokio::test]
async fn a_webhook_added_on_another_instance_gets_the_next_create() {
    let private = [
        "--webhook-allow-private",
        "--webhook-poll-interval",
        "100ms",
    ];
    let a = TestApp::spawn_with(&private).await;
    let b = TestApp::spawn_on(a.db.clone(), &private).await;
    let key = a.key(PRO, ALL).await;
    let form = published_form(&a, &key, contact_fields(), Value::Null).await;
    let id = form["id"].as_str().expect("id").to_owned();
    let path = format!("/forms/{id}/responses");
    let fields = field_ids(&form);
    for n in 0..2 {
        let body = json!({"answers": contact_answers(&fields, n)});
        a.post(&path, &key, &body).await.ok(201);
    }
    let receiver = Receiver::start().await;
    subscribe(&b, &key, &id, &receiver.url("/hook"), &["form.submitted"]).await;
    let body = json!({"answers": contact_answers(&fields, 2)});
    let created = a.post(&path, &key, &body).await;
    let response_id = created.ok(201)["response"]["id"].clone();
    let hits = receiver.wait_for("/hook", 1, Duration::from_secs(20)).await;
    let event: Value = serde_json::from_slice(&hits[0].body).expect("event JSON");
    assert_eq!(event["data"]["responseId"], response_id, "{event}");
}

#[tokio::test]
async fn a_lone_create_takes_one_statement_once_the_form_is_known() {
    let app = TestApp::spawn_with(&["--metrics-addr", "127.0.0.1:0"]).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let id = form["id"].as_str().expect("id").to_owned();
    let path = format!("/forms/{id}/responses");
    let fields = field_ids(&form);
    let create = |n: usize| {
        let body = json!({"answers": contact_answers(&fields, n)});
        let (app, path, key) = (&app, &path, &key);
        async move {
            app.post(path, key, &body).await.ok(201);
        }
    };
    let scrape = || async {
        let text = metrics_text(&app).await;
        (
            one_statement(&text, "stored"),
            one_statement(&text, "moved"),
        )
    };
    // The first create locks the form in a transaction; the next ones are one statement.
    for n in 0..3 {
        create(n).await;
    }
    assert_eq!(scrape().await, (2.0, 0.0));
    // An edit moves the form: the next create finds it moved and takes the transaction,
    // and the one after is one statement again.
    app.put(&format!("/forms/{id}"), &key, &json!({"title": "Edited"}))
        .await
        .ok(200);
    create(3).await;
    assert_eq!(scrape().await, (2.0, 1.0));
    create(4).await;
    assert_eq!(scrape().await, (3.0, 1.0));
    let stored = count(
        &app,
        "SELECT count(*) FROM responses WHERE form_id = $1",
        &id,
    )
    .await;
    assert_eq!(stored, 5);
}

#[tokio::test]
async fn a_full_view_lets_go_of_the_least_recently_used_form_alone() {
    // One form's view, as the instance counts it: from an instance with room to spare.
    let roomy = TestApp::spawn_with(&["--metrics-addr", "127.0.0.1:0"]).await;
    let key = roomy.key(PRO, ALL).await;
    let mut forms = Vec::new();
    for _ in 0..4 {
        let form = published_form(&roomy, &key, contact_fields(), Value::Null).await;
        let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
        forms.push((path, field_ids(&form)));
    }
    async fn create(app: &TestApp, key: &str, form: &(String, Vec<String>)) {
        let body = json!({"answers": contact_answers(&form.1, 0)});
        app.post(&form.0, key, &body).await.ok(201);
    }
    create(&roomy, &key, &forms[0]).await;
    let view = |text: &str, what: &str| {
        sample(
            text,
            &format!("formsd_form_view_{what}{{view=\"snapshots\"}}"),
        )
        .unwrap_or(0.0)
    };
    let one = view(&metrics_text(&roomy).await, "bytes");
    assert!(one > 0.0);
    // An instance whose snapshots hold three such forms (an eighth of the flag goes to
    // owners), not four.
    let bytes = (one * 3.5 * 8.0 / 7.0) as usize;
    let app = TestApp::spawn_on(
        roomy.db.clone(),
        &[
            "--metrics-addr",
            "127.0.0.1:0",
            "--form-view-bytes",
            &bytes.to_string(),
        ],
    )
    .await;
    // 0, 1, 2 in view (each by the locked path); 0 used again, so 1 is the least
    // recently used when 3 comes in.
    for form in [0, 1, 2, 0, 3] {
        create(&app, &key, &forms[form]).await;
    }
    let text = metrics_text(&app).await;
    assert_eq!(
        (one_statement(&text, "stored"), view(&text, "entries")),
        (1.0, 3.0)
    );
    assert!(view(&text, "bytes") <= bytes as f64);
    // 0, 2 and 3 stayed in view: one statement each. 1 left it: the locked path.
    for form in [0, 2, 3, 1] {
        create(&app, &key, &forms[form]).await;
    }
    let text = metrics_text(&app).await;
    assert_eq!(
        (one_statement(&text, "stored"), view(&text, "entries")),
        (4.0, 3.0)
    );
}

#[tokio::test]
async fn api_creates_and_page_submissions_share_the_forms_view() {
    // One queue and one kept view per form: a page submission does not move the view
    // of the API's creates (nor the other way round), so both stay one statement.
    let app = TestApp::spawn_with(&["--metrics-addr", "127.0.0.1:0"]).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    let (id, short_id) = (
        form["id"].as_str().expect("id"),
        form["short_id"].as_str().expect("short id"),
    );
    let fields = field_ids(&form);
    let path = format!("/forms/{id}/responses");
    let mut visitor = crate::hosted::Visitor::new(&app);
    for n in 0..4 {
        if n == 2 {
            let token = visitor.open(short_id).await.token();
            let answers = [
                ("_token", token.as_str()),
                (fields[0].as_str(), "Visitor"),
                (fields[1].as_str(), "visitor@example.com"),
            ];
            let page = visitor
                .submit(short_id, crate::hosted::DESKTOP, &answers)
                .await;
            assert_eq!(page.status, 200, "{}", page.html);
        } else {
            let body = json!({"answers": contact_answers(&fields, n)});
            app.post(&path, &key, &body).await.ok(201);
        }
    }
    let text = metrics_text(&app).await;
    assert_eq!(one_statement(&text, "stored"), 3.0, "{text}");
    assert_eq!(one_statement(&text, "moved"), 0.0, "{text}");
    assert!(
        text.contains(r#"formsd_responses_created_total{via="form"} 1"#),
        "{text}"
    );
    let stored = count(
        &app,
        "SELECT count(*) FROM responses WHERE form_id = $1",
        id,
    )
    .await;
    assert_eq!(stored, 4);
}

#[tokio::test]
async fn lone_creates_of_many_forms_share_a_statement_and_the_quota_stays_exact() {
    // Two statements are held by the account's quota row; the creates of three other
    // forms that arrive meanwhile wait, and are stored by the next statement together.
    // The account has room for two of those three: the shared statement, which counts
    // an account's responses all together or not at all, refuses, and each takes the
    // locked path, where the quota is judged one response at a time.
    let app =
        TestApp::spawn_with(&["--metrics-addr", "127.0.0.1:0", "--pro-response-limit", "9"]).await;
    let key = app.key(PRO, ALL).await;
    let mut forms = Vec::new();
    for n in 0..5 {
        let form = published_form(&app, &key, contact_fields(), Value::Null).await;
        let body = json!({"answers": contact_answers(&field_ids(&form), n)});
        let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
        // The first create of each form is locked; this instance keeps the form's view.
        app.post(&path, &key, &body).await.ok(201);
        forms.push((path, body));
    }
    let ids: Vec<String> = forms
        .iter()
        .map(|(path, _)| path.split('/').nth(2).expect("form id").to_owned())
        .collect();
    // The account's quota row is held: both statements wait for it, and the three later
    // creates wait for a statement of their own (two run at a time) until the first of
    // them is done. PostgreSQL does not promise the second held statement the row before
    // that later statement (once the row has a new version, both go for it afresh), so
    // the three forms' rows are held too, until both held creates are answered: the
    // shared statement locks its forms' rows before the quota row, and so the two held
    // creates are counted first, whatever the timing.
    let mut later_forms = app.pool.begin().await.expect("begin");
    let held_forms =
        sqlx::query("SELECT 1 FROM forms WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE")
            .bind(&ids[2..])
            .fetch_all(&mut *later_forms)
            .await
            .expect("lock the later forms");
    assert_eq!(held_forms.len(), 3, "the three later forms' rows");
    let mut quota = app.pool.begin().await.expect("begin");
    let held_rows = sqlx::query(
        "SELECT 1 FROM response_quota_usage
          WHERE account_id = (SELECT account_id FROM forms WHERE id = $1::uuid) FOR UPDATE",
    )
    .bind(&ids[0])
    .fetch_all(&mut *quota)
    .await
    .expect("lock the quota");
    assert_eq!(held_rows.len(), 1, "the account's quota row of this month");
    let app = std::sync::Arc::new(app);
    let create = |(path, body): (String, Value)| {
        let (app, key) = (app.clone(), key.clone());
        tokio::spawn(async move { app.post(&path, &key, &body).await })
    };
    // One held create at a time, each once the one before waits for the row: creates
    // that arrive together are taken by one statement (it takes all that waits), which
    // would leave the later creates a statement of their own.
    let mut held = Vec::new();
    for (form, what) in forms[..2].iter().cloned().zip([
        "the first statement waits for the quota row",
        "the second statement waits for the quota row",
    ]) {
        held.push(create(form));
        let statements = held.len() as i64;
        staged(&app, what, || async {
            statements_queued_for(&app, "response_quota_usage").await == statements
        })
        .await;
    }
    let queued: Vec<_> = forms[2..].iter().cloned().map(create).collect();
    staged(&app, "three forms wait for a statement", || async {
        let text = metrics_text(&app).await;
        sample(&text, "formsd_one_statement_waiting") == Some(3.0)
    })
    .await;
    drop(quota);
    for reply in held {
        reply.await.expect("create").ok(201);
    }
    staged(
        &app,
        "the shared statement waits for its forms' rows",
        || async { statements_queued_for(&app, "forms").await == 1 },
    )
    .await;
    drop(later_forms);
    let mut statuses = Vec::new();
    for reply in queued {
        let reply = reply.await.expect("create");
        if reply.status != 201 {
            reply.error(403, "RESPONSE_LIMIT_REACHED");
        }
        statuses.push(reply.status);
    }
    statuses.sort();
    assert_eq!(statuses, [201, 201, 403]);

    let text = metrics_text(&app).await;
    assert_eq!(one_statement(&text, "stored"), 2.0, "{text}");
    assert_eq!(one_statement(&text, "over_quota"), 3.0, "{text}");
    assert!(
        text.contains("formsd_one_statement_writes_total 3\n"),
        "two held statements and one shared by three forms:\n{text}"
    );
    let stored = count(
        &app,
        "SELECT count(*) FROM responses r JOIN forms f ON f.id = r.form_id
          WHERE f.account_id = (SELECT account_id FROM forms WHERE id = $1::uuid)",
        &ids[0],
    )
    .await;
    assert_eq!(stored, 9);
    let counted = count(
        &app,
        "SELECT sum(response_count)::bigint FROM forms
          WHERE account_id = (SELECT account_id FROM forms WHERE id = $1::uuid)",
        &ids[0],
    )
    .await;
    assert_eq!(counted, 9);
}

#[tokio::test]
async fn a_forms_waiting_creates_are_judged_in_turn_and_stored_by_one_statement() {
    // One create holds the form (its statement waits for the row lock) while more
    // arrive and wait in the form's queue. Once the lock goes, they are judged on the
    // form as the first left it, one after another, and stored by one statement; when
    // one of them is refused on that view (the form's cap), the whole batch takes the
    // locked path instead, where each is judged alone.
    let app = std::sync::Arc::new(TestApp::spawn_with(&["--metrics-addr", "127.0.0.1:0"]).await);
    let key = app.key(PRO, ALL).await;
    let settings = json!({"max_responses": 8});
    let form = published_form(&app, &key, contact_fields(), settings).await;
    let id = form["id"].as_str().expect("id").to_owned();
    let path = format!("/forms/{id}/responses");
    let fields = field_ids(&form);
    app.post(
        &path,
        &key,
        &json!({"answers": contact_answers(&fields, 0)}),
    )
    .await
    .ok(201);
    let create = |n: usize| {
        let body = json!({"answers": contact_answers(&fields, n)});
        let (app, key, path) = (app.clone(), key.clone(), path.clone());
        tokio::spawn(async move { app.post(&path, &key, &body).await })
    };
    // A held create, then `later` more; the statuses of all, in order.
    let held_round = |first: usize, later: usize| {
        let (app, id) = (app.clone(), id.clone());
        async move {
            let lock = lock_form(&app.pool, &id).await;
            let held = create(first);
            staged(&app, "the statement waits for the form's row", || async {
                statements_queued_for(&app, "forms").await == 1
            })
            .await;
            let waiting = later as f64;
            let later: Vec<_> = (first + 1..=first + later).map(create).collect();
            staged(
                &app,
                "the later creates wait in the form's queue",
                || async {
                    let text = metrics_text(&app).await;
                    sample(&text, "formsd_create_queue_waiting") == Some(waiting)
                },
            )
            .await;
            drop(lock);
            let mut statuses = Vec::new();
            for reply in std::iter::once(held).chain(later) {
                let reply = reply.await.expect("create");
                if reply.status != 201 {
                    reply.error(422, "FORM_CLOSED");
                }
                statuses.push(reply.status);
            }
            statuses.sort();
            statuses
        }
    };
    let scrape = || async {
        let text = metrics_text(&app).await;
        let writes = sample(&text, "formsd_one_statement_writes_total").unwrap_or(0.0);
        (one_statement(&text, "stored"), writes)
    };

    // Five responses in two statements: the held one, then the four that waited.
    assert_eq!(held_round(1, 4).await, [201; 5]);
    assert_eq!(scrape().await, (5.0, 2.0));
    // Six so far of the cap of 8: the held one is the seventh; of the three that wait,
    // the view refuses the third, so the three are judged on the locked rows.
    let statuses = held_round(6, 3).await;
    assert_eq!(statuses, [201, 201, 422, 422]);
    assert_eq!(scrape().await, (6.0, 3.0));

    let listed = app
        .get(&format!("{path}?sort=asc&per_page=100"), &key)
        .await;
    let listed = listed.ok(200)["responses"]
        .as_array()
        .expect("responses")
        .clone();
    let names: std::collections::HashSet<&str> = listed
        .iter()
        .map(|r| r["answers"][&fields[0]].as_str().expect("name"))
        .collect();
    assert_eq!((listed.len(), names.len()), (8, 8), "stored once each");
    let times: Vec<chrono::DateTime<chrono::Utc>> = listed
        .iter()
        .map(|r| assert_timestamp(&r["submitted_at"]))
        .collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    let counted = count(
        &app,
        "SELECT response_count FROM forms WHERE id = $1::uuid",
        &id,
    )
    .await;
    assert_eq!(counted, 8);
}

#[tokio::test]
async fn another_accounts_creates_leave_the_owners_form_alone() {
    // Creates for a form of another account are answered "not found" before they join
    // the form's queue: they take no lock and move no row, so the owner's creates stay
    // one statement while a stranger hammers the form's id.
    let app = std::sync::Arc::new(
        TestApp::spawn_with(&[
            "--metrics-addr",
            "127.0.0.1:0",
            "--pro-rate-limit",
            "1000000",
        ])
        .await,
    );
    let (owner, stranger) = (app.key(PRO, ALL).await, app.key(PRO, ALL).await);
    let form = published_form(&app, &owner, contact_fields(), Value::Null).await;
    let id = form["id"].as_str().expect("id").to_owned();
    let path = format!("/forms/{id}/responses");
    let fields = field_ids(&form);
    let body = |n: usize| json!({"answers": contact_answers(&fields, n)});
    // The first create locks the form; this instance keeps its view.
    app.post(&path, &owner, &body(0)).await.ok(201);

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let refused = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let hammers: Vec<_> = (0..8)
        .map(|n| {
            let (app, key, path, body) = (app.clone(), stranger.clone(), path.clone(), body(n));
            let (stop, refused) = (stop.clone(), refused.clone());
            tokio::spawn(async move {
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    app.post(&path, &key, &body).await.error(404, "NOT_FOUND");
                    refused.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            })
        })
        .collect();
    eventually(
        "the stranger's creates are under way",
        Duration::from_secs(30),
        || async { (refused.load(std::sync::atomic::Ordering::SeqCst) >= 40).then_some(()) },
    )
    .await;
    let creates = 20;
    for n in 1..=creates {
        app.post(&path, &owner, &body(n)).await.ok(201);
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    for hammer in hammers {
        hammer.await.expect("stranger's creates");
    }

    let text = metrics_text(&app).await;
    assert_eq!(one_statement(&text, "stored"), creates as f64, "{text}");
    assert_eq!(one_statement(&text, "moved"), 0.0, "{text}");
    let stored = count(
        &app,
        "SELECT count(*) FROM responses WHERE form_id = $1::uuid",
        &id,
    )
    .await;
    assert_eq!(stored, creates as i64 + 1);
}

#[tokio::test]
async fn one_statement_counts_an_accounts_responses_in_each_month_against_that_month() {
    // Batches judged on either side of a month's end can share a statement: each is
    // counted in its own month, and a full month refuses only its own responses.
    use forms::responses::store::{Current, IfCurrent, Quota, Versions, insert_all_if_current};
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let mut entries = Vec::new();
    for month in [1, 2] {
        let form = published_form(&app, &key, contact_fields(), Value::Null).await;
        let form_id = uuid::Uuid::parse_str(form["id"].as_str().expect("id")).expect("uuid");
        let (account_id, form_version, account_version): (uuid::Uuid, String, String) =
            sqlx::query_as(
                "SELECT f.account_id, f.xmin::text, a.xmin::text
                   FROM forms f JOIN accounts a ON a.id = f.account_id WHERE f.id = $1",
            )
            .bind(form_id)
            .fetch_one(&app.pool)
            .await
            .expect("versions");
        let now = chrono::Utc::now();
        let month = chrono::NaiveDate::from_ymd_opt(2026, month, 1).expect("month");
        let response = forms::responses::Response {
            id: uuid::Uuid::new_v4(),
            form_id,
            answers: contact_answers(&field_ids(&form), 1)
                .as_object()
                .expect("answers")
                .clone(),
            metadata: serde_json::Map::new(),
            device_type: None,
            browser: None,
            os: None,
            started_at: now,
            submitted_at: now,
            completion_time_seconds: None,
            partial_page: None,
            language: None,
        };
        entries.push(IfCurrent {
            form_id,
            versions: Versions {
                form: form_version,
                account: account_version,
            },
            count: 0,
            newest: None,
            quota: Quota {
                account_id,
                month,
                limit: Some(5),
            },
            responses: vec![response],
            has_webhooks: false,
            events: Vec::new(),
        });
    }
    // January is full; February has room.
    sqlx::query(
        "INSERT INTO response_quota_usage (account_id, month, response_count)
         VALUES ($1, '2026-01-01', 5)",
    )
    .bind(entries[0].quota.account_id)
    .execute(&app.pool)
    .await
    .expect("a full January");
    let outcomes = insert_all_if_current(&app.pool, &entries)
        .await
        .expect("the statement")
        .forms;
    assert_eq!(outcomes[0], Current::OverQuota);
    assert!(matches!(outcomes[1], Current::Stored(_)), "{outcomes:?}");
    for (entry, stored) in entries.iter().zip([0, 1]) {
        let id = entry.form_id.to_string();
        let rows = count(
            &app,
            "SELECT count(*) FROM responses WHERE form_id = $1",
            &id,
        )
        .await;
        let counted = count(&app, "SELECT response_count FROM forms WHERE id = $1", &id).await;
        assert_eq!(
            (rows, counted),
            (stored, stored),
            "form of month {}",
            entry.quota.month
        );
    }
    let usage: Vec<(chrono::NaiveDate, i64)> = sqlx::query_as(
        "SELECT month, response_count FROM response_quota_usage WHERE account_id = $1
          ORDER BY month",
    )
    .bind(entries[0].quota.account_id)
    .fetch_all(&app.pool)
    .await
    .expect("usage");
    let months: Vec<(String, i64)> = usage
        .into_iter()
        .map(|(month, n)| (month.to_string(), n))
        .collect();
    assert_eq!(
        months,
        [("2026-01-01".to_owned(), 5), ("2026-02-01".to_owned(), 1)]
    );
}

/// `formsd_one_statement_creates_total` of `outcome` (0 when not counted yet).
fn one_statement(text: &str, outcome: &str) -> f64 {
    let series = format!("formsd_one_statement_creates_total{{outcome=\"{outcome}\"}}");
    sample(text, &series).unwrap_or(0.0)
}
