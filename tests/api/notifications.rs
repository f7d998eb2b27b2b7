//! Owner notifications (the book, "Operations"): a new response to a form with
//! `notifications_enabled` mails the owner through a real SMTP server on loopback (the
//! sink of smtp_sink.rs): title, time, answers by label, text and escaped HTML, nothing
//! secret; a relay that is down gets the mail once it is back, exactly once; a response
//! deleted before its mail leaves nothing to send; one account's backlog does not hold
//! up another's mail; without SMTP nothing is sent and formsd warns at start.

use crate::fixtures::*;
use crate::harness::*;
use crate::smtp_sink::{self, SmtpSink};
use forms::accounts::{Plan, Scope};
use serde_json::{Value, json};
use std::time::Duration;

const ALL: &[Scope] = &[Scope::Read, Scope::Write, Scope::Admin];

/// How long a mail that should be sent may take.
const ARRIVAL: Duration = Duration::from_secs(20);

/// Flags of an instance mailing through `smtp_url`, retrying quickly.
fn mailing(smtp_url: &str, schedule: &str) -> Vec<String> {
    [
        "--smtp-url",
        smtp_url,
        "--smtp-from",
        "Forms <forms@example.com>",
        "--webhook-poll-interval",
        "200ms",
        "--webhook-retry-schedule",
        schedule,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

async fn spawn_mailing(smtp_url: &str, schedule: &str) -> TestApp {
    let flags = mailing(smtp_url, schedule);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    TestApp::spawn_with(&flags).await
}

/// A key whose account's owner is `owner@example.com`.
async fn owner_key(app: &TestApp) -> TestKey {
    owner_key_at(app, "owner@example.com").await
}

/// A key of a new account whose owner is `email`.
async fn owner_key_at(app: &TestApp, email: &str) -> TestKey {
    let key = app.new_key(Plan::Pro, ALL).await;
    let shown = formsd_cli(
        &app.db.url,
        &["accounts", "update", &key.account, "--email", email],
    )
    .await;
    let shown: Value = serde_json::from_str(shown.trim()).expect("account JSON");
    assert_eq!(shown["email"], email);
    key
}

/// `formsd notifications list --account NAME`, newest first.
async fn listed(app: &TestApp, account: &str) -> Vec<Value> {
    formsd_cli(
        &app.db.url,
        &["notifications", "list", "--account", account],
    )
    .await
    .lines()
    .filter(|l| !l.trim().is_empty())
    .map(|l| serde_json::from_str(l).expect("notification line"))
    .collect()
}

fn fields() -> Value {
    json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "long_text", "label": "Message <i>", "required": false},
        {"type": "file_upload", "label": "Attachment", "required": false},
    ])
}

#[tokio::test]
async fn a_new_response_mails_the_owner_its_answers_by_label() {
    let sink = SmtpSink::start().await;
    let app = spawn_mailing(&sink.url(), "1s,1s,1s").await;
    let key = owner_key(&app).await;
    // A form without notifications sends nothing.
    let quiet = published_form(&app, &key.key, fields(), Value::Null).await;
    let quiet_fields = field_ids(&quiet);
    let path = format!("/forms/{}/responses", quiet["id"].as_str().expect("id"));
    let body = json!({"answers": {quiet_fields[0].clone(): "Nobody"}});
    app.post(&path, &key.key, &body).await.ok(201);

    let form = published_form(
        &app,
        &key.key,
        fields(),
        json!({"notifications_enabled": true}),
    )
    .await;
    let ids = field_ids(&form);
    let form_id = form["id"].as_str().expect("form id");
    let answers = json!({
        ids[0].clone(): "<b>Ada</b> & \"co\"",
        ids[1].clone(): "line one\nline two",
        ids[2].clone(): "https://files.example.com/cv.pdf",
    });
    let created = app
        .post(
            &format!("/forms/{form_id}/responses"),
            &key.key,
            &json!({"answers": answers}),
        )
        .await;
    let response = created.ok(201)["response"].clone();
    let response_id = response["id"].as_str().expect("response id");

    let mail = eventually("the notification mail", ARRIVAL, || async {
        sink.mails().into_iter().next()
    })
    .await;
    assert_eq!(mail.to, ["owner@example.com"]);
    assert_eq!(mail.from, "forms@example.com");
    let subject = smtp_sink::header(&mail.data, "Subject").expect("subject");
    assert_eq!(subject, "New response: Contact");
    let text = smtp_sink::part(&mail.data, "text/plain").expect("text part");
    let html = smtp_sink::part(&mail.data, "text/html").expect("HTML part");
    let submitted = assert_timestamp(&response["submitted_at"]);
    let when = submitted.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    for expected in [
        "\"Contact\"",
        when.as_str(),
        "Name:\n    <b>Ada</b> & \"co\"",
        "Message <i>:\n    line one\n    line two",
        "Attachment:\n    https://files.example.com/cv.pdf",
        response_id,
    ] {
        assert!(
            text.contains(expected),
            "{expected:?} not in the text:\n{text}"
        );
    }
    for expected in [
        "&lt;b&gt;Ada&lt;/b&gt; &amp; &quot;co&quot;",
        "Message &lt;i&gt;",
        when.as_str(),
    ] {
        assert!(
            html.contains(expected),
            "{expected:?} not in the HTML:\n{html}"
        );
    }
    assert!(!html.contains("<b>Ada") && !html.contains("<i>"), "{html}");
    // Nothing secret: not the key, not any part of it.
    let (lookup, _) = split_key(&key.key);
    assert!(!mail.data.contains(lookup) && !mail.data.contains(&key.key));

    // Operators see it: sent once, one attempt, to the owner, the relay's answer.
    let rows = eventually("the notification recorded", ARRIVAL, || async {
        let rows = listed(&app, &key.account).await;
        (rows.len() == 1 && rows[0]["status"] == "succeeded").then_some(rows)
    })
    .await;
    assert_eq!(rows[0]["response_id"], response_id);
    assert_eq!(rows[0]["form_id"], form_id);
    let attempts = rows[0]["attempts"].as_array().expect("attempts");
    assert_eq!(attempts.len(), 1, "{rows:?}");
    assert_eq!(attempts[0]["recipient"], "owner@example.com");
    assert!(
        attempts[0]["reply"]
            .as_str()
            .expect("reply")
            .starts_with("250")
    );
    assert_eq!(sink.mails().len(), 1, "one response, one mail");
}

#[tokio::test]
async fn a_relay_that_is_down_gets_the_mail_once_it_is_back() {
    let mut sink = SmtpSink::down().await;
    // Retries 1 s, then 2 s, then 60 s after the failures: the relay comes back in
    // between; whatever the timing, the mail goes out exactly once.
    let app = spawn_mailing(&sink.url(), "1s,2s,60s").await;
    let key = owner_key(&app).await;
    let form = published_form(
        &app,
        &key.key,
        fields(),
        json!({"notifications_enabled": true}),
    )
    .await;
    let ids = field_ids(&form);
    let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
    app.post(
        &path,
        &key.key,
        &json!({"answers": {ids[0].clone(): "Grace"}}),
    )
    .await
    .ok(201);

    // The relay is down: attempts fail and are recorded, the notification stays pending.
    let failed = eventually("two failed attempts", ARRIVAL, || async {
        let rows = listed(&app, &key.account).await;
        let n = rows.first()?["attempts"].as_array()?.len();
        (n >= 2).then_some(rows)
    })
    .await;
    assert_eq!(failed[0]["status"], "pending", "{failed:?}");
    for attempt in failed[0]["attempts"].as_array().expect("attempts") {
        assert!(attempt["error"].is_string(), "{attempt}");
    }
    assert!(sink.mails().is_empty());

    sink.resume().await;
    let rows = eventually(
        "the mail after the outage",
        Duration::from_secs(90),
        || async {
            let rows = listed(&app, &key.account).await;
            (rows.first()?["status"] == "succeeded").then_some(rows)
        },
    )
    .await;
    let attempts = rows[0]["attempts"].as_array().expect("attempts");
    assert!(attempts.len() >= 3, "{rows:?}");
    assert!(attempts.last().expect("last")["error"].is_null());
    // Every attempt reached the relay before the notification was settled, and a
    // settled one is never claimed again: one mail now is one mail for good.
    let mails = sink.mails();
    assert_eq!(mails.len(), 1, "delivered once: {mails:?}");
    let (pending,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM notifications WHERE status <> 'succeeded'")
            .fetch_one(&app.pool)
            .await
            .expect("notifications");
    assert_eq!(pending, 0);
    println!(
        "SMTP outage: {} attempts, {} failed while the relay was down, {} mail delivered",
        attempts.len(),
        attempts.len() - 1,
        mails.len()
    );
    let text = smtp_sink::part(&mails[0].data, "text/plain").expect("text part");
    assert!(text.contains("Grace"), "{text}");
}

#[tokio::test]
async fn a_response_deleted_before_its_mail_is_never_sent() {
    let mut sink = SmtpSink::down().await;
    let app = spawn_mailing(&sink.url(), "1s,1s,60s").await;
    let key = owner_key(&app).await;
    let form = published_form(
        &app,
        &key.key,
        fields(),
        json!({"notifications_enabled": true}),
    )
    .await;
    let ids = field_ids(&form);
    let form_id = form["id"].as_str().expect("id");
    let created = app
        .post(
            &format!("/forms/{form_id}/responses"),
            &key.key,
            &json!({"answers": {ids[0].clone(): "Secret Person"}}),
        )
        .await;
    let response_id = created.ok(201)["response"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    eventually("a failed attempt", ARRIVAL, || async {
        let rows = listed(&app, &key.account).await;
        (!rows.first()?["attempts"].as_array()?.is_empty()).then_some(())
    })
    .await;
    let path = format!("/forms/{form_id}/responses/{response_id}");
    assert_eq!(app.delete(&path, &key.key).await.status, 204);
    sink.resume().await;
    let rows = eventually("the notification given up", ARRIVAL, || async {
        let rows = listed(&app, &key.account).await;
        (rows.first()?["status"] == "failed").then_some(rows)
    })
    .await;
    assert!(rows[0]["response_id"].is_null(), "{rows:?}");
    let last = rows[0]["attempts"]
        .as_array()
        .expect("attempts")
        .last()
        .cloned();
    let error = last.expect("an attempt")["error"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(error.contains("deleted"), "{error}");
    assert!(
        sink.mails().is_empty(),
        "nothing of a deleted response is mailed"
    );
}

#[tokio::test]
async fn without_smtp_the_setting_is_kept_nothing_is_sent_and_formsd_warns() {
    let app = TestApp::spawn().await;
    let key = owner_key(&app).await;
    let form = published_form(
        &app,
        &key.key,
        fields(),
        json!({"notifications_enabled": true}),
    )
    .await;
    assert_eq!(form["settings"]["notifications_enabled"], true);
    let ids = field_ids(&form);
    let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
    app.post(
        &path,
        &key.key,
        &json!({"answers": {ids[0].clone(): "Ada"}}),
    )
    .await
    .ok(201);
    assert!(listed(&app, &key.account).await.is_empty());
    // The next start finds a form with notifications on and no relay: it says so.
    let again = TestApp::spawn_on(app.db.clone(), &[]).await;
    eventually("the warning", ARRIVAL, || async {
        again
            .logs()
            .text()
            .contains("no --smtp-url is configured")
            .then_some(())
    })
    .await;
    assert!(!app.logs().text().contains("no --smtp-url is configured"));
}

#[tokio::test]
async fn an_owner_address_must_be_an_address() {
    let app = TestApp::spawn().await;
    let key = app.new_key(Plan::Pro, ALL).await;
    for bad in [
        "not-an-address",
        "a@b\r\nBcc: x@example.com",
        "Name <a@example.com>",
    ] {
        let output = formsd_command()
            .args([
                "--database-url",
                &app.db.url,
                "accounts",
                "update",
                &key.account,
            ])
            .args(["--email", bad])
            .output()
            .await
            .expect("running formsd");
        assert!(!output.status.success(), "{bad:?} was accepted");
    }
    let cleared = formsd_cli(
        &app.db.url,
        &["accounts", "update", &key.account, "--email", ""],
    )
    .await;
    let cleared: Value = serde_json::from_str(cleared.trim()).expect("JSON");
    assert!(cleared["email"].is_null(), "{cleared}");
}

#[tokio::test]
async fn one_accounts_backlog_of_mails_does_not_hold_up_anothers() {
    // The slow account's relay conversations take 2 s each: its 20 mails, 4 at a time,
    // would keep every slot for 10 s first come first served.
    let sink = SmtpSink::start().await;
    sink.slow_for("slow@example.com", Duration::from_secs(2));
    let app = spawn_mailing(&sink.url(), "1s,1s,1s").await;
    let slow = owner_key_at(&app, "slow@example.com").await;
    let fast = owner_key_at(&app, "fast@example.com").await;
    let on = json!({"notifications_enabled": true});
    let slow_form = published_form(&app, &slow.key, fields(), on.clone()).await;
    let fast_form = published_form(&app, &fast.key, fields(), on).await;
    let respond = |form: &Value, key: &str, n: usize| {
        let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
        let body = json!({"answers": {field_ids(form)[0].clone(): format!("n{n}")}});
        let key = key.to_owned();
        let app = &app;
        async move { app.post(&path, &key, &body).await.ok(201).clone() }
    };
    for n in 0..20 {
        respond(&slow_form, &slow.key, n).await;
    }
    let slow_id = slow_form["id"].as_str().expect("id");
    let count = |sql: &'static str| {
        let app = &app;
        async move {
            let (n,): (i64,) = sqlx::query_as(sql)
                .bind(slow_id)
                .fetch_one(&app.pool)
                .await
                .expect("counting notifications");
            n
        }
    };
    const IN_FLIGHT: &str = "SELECT count(*) FROM notifications
        WHERE form_id = $1::uuid AND status = 'pending' AND locked_until > now()";
    const UNCLAIMED: &str = "SELECT count(*) FROM notifications
        WHERE form_id = $1::uuid AND status = 'pending'
          AND (locked_until IS NULL OR locked_until < now())";
    eventually(
        "the slow account's mails in every slot",
        ARRIVAL,
        || async { (count(IN_FLIGHT).await >= 4).then_some(()) },
    )
    .await;

    respond(&fast_form, &fast.key, 0).await;
    eventually("the other account's mail", ARRIVAL, || async {
        sink.mails()
            .iter()
            .any(|m| m.to == ["fast@example.com"])
            .then_some(())
    })
    .await;
    // It took the first free slot: most of the slow backlog had not even been claimed.
    let waiting = count(UNCLAIMED).await;
    assert!(
        waiting >= 5,
        "the other account's mail waited for the slow backlog ({waiting} of 20 left)"
    );
}
