//! After submitting and across pages (issue 32 §3, §4), end to end over HTTP against the
//! real binary: the confirmation mail reaches a real SMTP server (smtp_sink.rs) in the
//! respondent's language with their answers and the owner's reply-to, bounded per
//! address (10 a day, whatever the form) and per form (`--confirmation-mails-per-form`),
//! never for a robot's submission; a later page recalls an earlier answer, escaped,
//! and so do the confirmation message and the redirect (percent-encoded); a quiz set up
//! through the builder's posts shows the respondent their score.

use crate::dashboard_session::signed_in;
use crate::fixtures::*;
use crate::harness::*;
use crate::hosted::{DESKTOP, Visitor};
use crate::hosted_pages::Browser;
use crate::smtp_sink::{self, SmtpSink};
use serde_json::{Value, json};
use std::time::Duration;

async fn publish(app: &TestApp, key: &str, body: Value) -> Value {
    let form = app.create_form(key, &body).await;
    let id = form["id"].as_str().expect("form id");
    let reply = app
        .put(
            &format!("/forms/{id}"),
            key,
            &json!({"status": "published"}),
        )
        .await;
    reply.ok(200)["form"].clone()
}

fn id_by_ref(form: &Value, r: &str) -> String {
    form["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .find(|f| f["ref"] == r)
        .and_then(|f| f["id"].as_str())
        .unwrap_or_else(|| panic!("no field {r}"))
        .to_owned()
}

/// Submits the one-page form `short_id` as a new visitor, in `lang` if given.
async fn answer(app: &TestApp, short_id: &str, lang: &str, fields: &[(&str, &str)]) -> u16 {
    let mut visitor = Visitor::new(app);
    let page = visitor.open(&format!("{short_id}?lang={lang}")).await;
    assert_eq!(page.status, 200, "{}", page.html);
    let token = page.token();
    let mut posted = vec![("_token", token.as_str()), ("_lang", lang)];
    posted.extend_from_slice(fields);
    let done = visitor.submit(short_id, DESKTOP, &posted).await;
    assert!(done.status == 200 || done.status == 303, "{}", done.html);
    done.status
}

async fn confirmations(app: &TestApp, form_id: &str) -> i64 {
    count(
        app,
        "SELECT count(*) FROM notifications WHERE kind = 'confirmation' AND form_id = $1",
        form_id,
    )
    .await
}

#[tokio::test]
async fn the_respondent_is_mailed_in_their_language_and_no_address_is_mailed_an_eleventh_time() {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let app = TestApp::spawn_with(&[
        "--smtp-url",
        &url,
        "--smtp-from",
        "Forms <forms@example.com>",
        "--webhook-poll-interval",
        "200ms",
        "--hosted-submissions-per-minute",
        "1000",
        "--confirmation-mails-per-form",
        "11",
    ])
    .await;
    let key = app.new_key(PRO, ALL).await;
    formsd_cli(
        &app.db.url,
        &[
            "accounts",
            "update",
            &key.account,
            "--email",
            "owner@example.com",
        ],
    )
    .await;
    let fields = json!([
        {"type": "short_text", "label": "Your name", "required": true, "ref": "name"},
        {"type": "email", "label": "Email", "required": true, "ref": "email"},
        {"type": "single_choice", "label": "Colour", "ref": "colour",
         "options": [{"id": "red", "label": "Red"}, {"id": "blue", "label": "Blue"}]},
    ]);
    let form = publish(
        &app,
        &key.key,
        json!({
            "title": "Survey",
            "fields": fields,
            "settings": {"confirmation_mail": {"field_ref": "email",
                "subject": "Thanks, {{name}}", "text": "Hello {{name}}, you chose {{colour}}."}},
            "translations": {"de": {
                "title": "Umfrage",
                "fields": {"name": {"label": "Ihr Name"},
                           "colour": {"label": "Farbe", "options": {"red": "Rot"}}},
                "confirmation_mail": {"subject": "Danke, {{name}}",
                                      "text": "Hallo {{name}}, Sie wählten {{colour}}."}}}
        }),
    )
    .await;
    let (form_id, short_id) = (
        form["id"].as_str().expect("id").to_owned(),
        form["short_id"].as_str().expect("short id").to_owned(),
    );
    let (name, email, colour) = (
        id_by_ref(&form, "name"),
        id_by_ref(&form, "email"),
        id_by_ref(&form, "colour"),
    );
    // Stored by the field's id, the ref resolved.
    assert_eq!(
        form["settings"]["confirmation_mail"]["field_id"],
        email.as_str()
    );
    assert!(
        form["settings"]["confirmation_mail"]
            .get("field_ref")
            .is_none()
    );

    // A German respondent.
    let status = answer(
        &app,
        &short_id,
        "de",
        &[
            (&name, "<b>Ada</b>"),
            (&email, "ada@example.com"),
            (&colour, "red"),
        ],
    )
    .await;
    assert_eq!(status, 200);
    let mail = eventually("the confirmation mail", Duration::from_secs(20), || async {
        sink.mails().into_iter().next()
    })
    .await;
    assert_eq!(mail.to, ["ada@example.com"]);
    assert_eq!(
        smtp_sink::header(&mail.data, "Subject").as_deref(),
        Some("Danke, <b>Ada</b>")
    );
    assert_eq!(
        smtp_sink::header(&mail.data, "Reply-To").as_deref(),
        Some("owner@example.com")
    );
    let text = smtp_sink::part(&mail.data, "text/plain").expect("text part");
    for expected in [
        "Hallo <b>Ada</b>, Sie wählten Rot.",
        "Ihre Antworten:",
        "Ihr Name:\n    <b>Ada</b>",
        "Farbe:\n    Rot",
        "Email:\n    ada@example.com",
        "in einer Antwort auf das Formular „Umfrage“ angegeben",
    ] {
        assert!(text.contains(expected), "{expected:?} not in:\n{text}");
    }
    let html = smtp_sink::part(&mail.data, "text/html").expect("HTML part");
    assert!(
        html.contains("Hallo &lt;b&gt;Ada&lt;/b&gt;") && !html.contains("<b>Ada"),
        "{html}"
    );
    assert!(html.contains("<html lang=\"de\""), "{html}");

    // Nine more to the same address (in other cases) make ten; the eleventh is stored
    // and not mailed.
    for n in 0..10 {
        answer(
            &app,
            &short_id,
            "en",
            &[(&name, &format!("Ada {n}")), (&email, "ADA@Example.com")],
        )
        .await;
    }
    assert_eq!(confirmations(&app, &form_id).await, 10);
    let responses = app
        .get(
            &format!("/forms/{form_id}/responses?per_page=100"),
            &key.key,
        )
        .await;
    assert_eq!(
        responses.ok(200)["responses"].as_array().map(Vec::len),
        Some(11)
    );
    // A robot that fills the honeypot is answered as if all went well: no mail.
    answer(
        &app,
        &short_id,
        "en",
        &[
            (&name, "Bot"),
            (&email, "bot@example.com"),
            ("website", "http://spam.example"),
        ],
    )
    .await;
    assert_eq!(confirmations(&app, &form_id).await, 10);
    // Another address: the form's eleventh mail of the day, its last
    // (`--confirmation-mails-per-form 11`); a twelfth address gets none.
    answer(
        &app,
        &short_id,
        "en",
        &[(&name, "Bob"), (&email, "bob@example.com")],
    )
    .await;
    assert_eq!(confirmations(&app, &form_id).await, 11);
    answer(
        &app,
        &short_id,
        "en",
        &[(&name, "Cy"), (&email, "cy@example.com")],
    )
    .await;
    assert_eq!(confirmations(&app, &form_id).await, 11);

    // The address's bound holds across forms.
    let other = publish(
        &app,
        &key.key,
        json!({"title": "Other", "fields": [{"type": "email", "label": "Email", "ref": "e"}],
               "settings": {"confirmation_mail": {"field_ref": "e", "subject": "Hi", "text": "Thanks."}}}),
    )
    .await;
    let (other_id, other_short) = (
        other["id"].as_str().expect("id").to_owned(),
        other["short_id"].as_str().expect("short id").to_owned(),
    );
    let e = id_by_ref(&other, "e");
    answer(&app, &other_short, "en", &[(&e, "ada@example.com")]).await;
    assert_eq!(confirmations(&app, &other_id).await, 0);
    answer(&app, &other_short, "en", &[(&e, "dee@example.com")]).await;
    assert_eq!(confirmations(&app, &other_id).await, 1);

    // A mail's field must be an email field.
    let refused = app
        .put(
            &format!("/forms/{form_id}"),
            &key.key,
            &json!({"settings": {"confirmation_mail": {"field_ref": "name", "subject": "S", "text": "T"}}}),
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused
            .text
            .contains("settings.confirmation_mail: its field must be an email field")
    );
}

#[tokio::test]
async fn a_later_page_recalls_an_earlier_answer_escaped_and_the_thanks_recall_too() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = publish(
        &app,
        &key,
        json!({
            "title": "Trip",
            "fields": [
                {"type": "short_text", "label": "Your name", "required": true, "ref": "name"},
                {"type": "single_choice", "label": "Colour", "ref": "colour", "required": true,
                 "options": [{"id": "red", "label": "Red"}]},
                {"type": "page_break", "label": "Thanks {{name}}"},
                {"type": "short_text", "label": "Where to, {{name}} ({{colour}})?", "ref": "city"},
            ],
            "settings": {"confirmation_message": "Bon voyage, {{name}}, to {{city}}!",
                         "redirect_url": null},
            "translations": {"de": {"fields": {"colour": {"options": {"red": "Rot"}}}}}
        }),
    )
    .await;
    let short_id = form["short_id"].as_str().expect("short id");
    let (name, colour, city) = (
        id_by_ref(&form, "name"),
        id_by_ref(&form, "colour"),
        id_by_ref(&form, "city"),
    );
    let origin = app.http_base.trim_end_matches("/api/v1").to_owned();
    let mut browser = Browser::new(&origin);
    let first = browser.open(&format!("/f/{short_id}?lang=de")).await;
    assert_eq!(first.status, 200, "{}", first.html);
    // Nothing earlier to recall on the first page.
    assert!(!first.html.contains("{{name}}"));
    let saved = browser
        .post(
            &first,
            &[(&name, "<b>x</b>"), (&colour, "red"), ("_lang", "de")],
        )
        .await;
    let second = browser.follow(&saved).await;
    assert_eq!(second.status, 200, "{}", second.html);
    // The page's title and its question's label carry the answer as text, escaped;
    // the option by its German label.
    assert!(
        second.html.contains("Thanks &lt;b&gt;x&lt;/b&gt;"),
        "{}",
        second.html
    );
    assert!(
        second
            .html
            .contains("Where to, &lt;b&gt;x&lt;/b&gt; (Rot)?"),
        "{}",
        second.html
    );
    assert!(!second.html.contains("<b>x</b>"));
    let done = browser
        .post(&second, &[(&city, "Köln & <i>Bonn</i>"), ("_lang", "de")])
        .await;
    assert_eq!(done.status, 200, "{}", done.html);
    assert!(
        done.html
            .contains("Bon voyage, &lt;b&gt;x&lt;/b&gt;, to Köln &amp; &lt;i&gt;Bonn&lt;/i&gt;!"),
        "{}",
        done.html
    );

    // A redirect recalls an answer percent-encoded, never in its host.
    let id = form["id"].as_str().expect("id");
    let put = |settings: Value| {
        let (app, key) = (&app, &key);
        async move {
            app.put(&format!("/forms/{id}"), key, &json!({"settings": settings}))
                .await
        }
    };
    let host = put(json!({"redirect_url": "https://{{city}}.example.com/"})).await;
    assert_eq!(host.status, 422, "{}", host.text);
    put(json!({"redirect_url": "https://example.com/bye?who={{name}}"}))
        .await
        .ok(200);
    let mut browser = Browser::new(&origin);
    let first = browser.open(&format!("/f/{short_id}")).await;
    let saved = browser
        .post(&first, &[(&name, "A&B /x"), (&colour, "red")])
        .await;
    let second = browser.follow(&saved).await;
    let gone = browser.post(&second, &[(&city, "Rome")]).await;
    assert_eq!(gone.status, 303, "{}", gone.html);
    assert_eq!(
        gone.location.as_deref(),
        Some("https://example.com/bye?who=A%26B%20%2Fx")
    );
}

#[tokio::test]
async fn a_quiz_set_in_the_builder_shows_the_respondent_their_score() {
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &format!("quiz-{}", uuid::Uuid::new_v4().simple())).await;
    let id = d.create_form("Capitals").await;
    let base = format!("/app/forms/{id}");
    for (kind, label) in [
        ("short_text", "Capital of France?"),
        ("number", "2 + 2?"),
        ("short_text", "Name"),
    ] {
        let added = d
            .post(
                &format!("{base}/fields"),
                &[("kind", kind), ("label", label)],
            )
            .await;
        assert_eq!(added.status, 303, "{}", added.text);
    }
    let form = app.get(&format!("/forms/{id}"), &d.key).await.ok(200)["form"].clone();
    let ids: Vec<String> = field_ids(&form);
    // The editor offers the quiz's boxes.
    let editor = d.get(&format!("{base}?edit={}", ids[0])).await;
    assert!(
        editor.text.contains("Quiz: correct answer and points"),
        "{}",
        editor.text
    );
    assert!(editor.text.contains("name=\"correct_answer\""));
    for (at, label, correct, points) in [
        (0, "Capital of France?", "Paris", "2"),
        (1, "2 + 2?", "4", ""),
    ] {
        let saved = d
            .post(
                &format!("{base}/fields/{}", ids[at]),
                &[
                    ("label", label),
                    ("correct_answer", correct),
                    ("points", points),
                ],
            )
            .await;
        assert_eq!(saved.status, 303, "{}", saved.text);
    }
    let saved = d
        .post(
            &format!("{base}/settings"),
            &[("confirmation_message", ""), ("show_quiz_score", "on")],
        )
        .await;
    assert_eq!(saved.status, 303, "{}", saved.text);
    let form = app.get(&format!("/forms/{id}"), &d.key).await.ok(200)["form"].clone();
    assert_eq!(form["fields"][0]["correct_answer"], "Paris");
    assert_eq!(form["fields"][0]["points"], 2);
    assert_eq!(form["fields"][1]["correct_answer"], 4.0);
    assert_eq!(form["settings"]["show_quiz_score"], true);
    // A correct answer that is not a number, for a number: refused, nothing changes.
    d.post(
        &format!("{base}/fields/{}", ids[1]),
        &[("label", "2 + 2?"), ("correct_answer", "four")],
    )
    .await;
    let kept = app.get(&format!("/forms/{id}"), &d.key).await.ok(200)["form"].clone();
    assert_eq!(kept["fields"][1]["correct_answer"], 4.0);
    let page = d.get(&base).await;
    assert!(
        page.text
            .contains("Show respondents their score after submitting")
    );
    let published = app
        .put(
            &format!("/forms/{id}"),
            &d.key,
            &json!({"status": "published"}),
        )
        .await;
    let short_id = published.ok(200)["form"]["short_id"]
        .as_str()
        .expect("short id")
        .to_owned();
    let mut visitor = Visitor::new(&app);
    let page = visitor.open(&short_id).await;
    // The answers stay on the server.
    assert!(!page.html.contains("Paris"));
    let done = visitor
        .submit(
            &short_id,
            DESKTOP,
            &[
                ("_token", &page.token()),
                (&ids[0], " paris "),
                (&ids[1], "5"),
                (&ids[2], "Ada"),
            ],
        )
        .await;
    assert_eq!(done.status, 200, "{}", done.html);
    assert!(
        done.html.contains("Your score: 2 of 3 points"),
        "{}",
        done.html
    );
    // Without the setting, no score.
    app.put(
        &format!("/forms/{id}"),
        &d.key,
        &json!({"settings": {"show_quiz_score": false}}),
    )
    .await
    .ok(200);
    let page = visitor.open(&short_id).await;
    let done = visitor
        .submit(
            &short_id,
            DESKTOP,
            &[("_token", &page.token()), (&ids[0], "Paris")],
        )
        .await;
    assert_eq!(done.status, 200, "{}", done.html);
    assert!(!done.html.contains("Your score"), "{}", done.html);
}

#[tokio::test]
async fn chromium_photographs_the_recall_the_score_and_the_builders_folds() {
    if !crate::browser::browser_available() {
        return;
    }
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &format!("shots-{}", uuid::Uuid::new_v4().simple())).await;
    let form = publish(
        &app,
        &d.key,
        json!({
            "title": "Trip",
            "fields": [
                {"type": "short_text", "label": "Your name", "required": true, "ref": "name"},
                {"type": "single_choice", "label": "Capital of Italy?", "ref": "capital",
                 "options": [{"id": "rome", "label": "Rome"}, {"id": "milan", "label": "Milan"}],
                 "correct_answer": "rome", "points": 2},
                {"type": "email", "label": "Email", "ref": "email"},
                {"type": "page_break", "label": "Thanks, {{name}}"},
                {"type": "short_text", "label": "Where to next, {{name}} (after {{capital}})?", "ref": "city"},
            ],
            "settings": {"show_quiz_score": true,
                         "confirmation_message": "Bon voyage, {{name}}!",
                         "confirmation_mail": {"field_ref": "email", "subject": "Thanks, {{name}}",
                                               "text": "We got your answers."}}
        }),
    )
    .await;
    let short_id = form["short_id"].as_str().expect("short id");
    let (id, name, city, capital) = (
        form["id"].as_str().expect("id").to_owned(),
        id_by_ref(&form, "name"),
        id_by_ref(&form, "city"),
        id_by_ref(&form, "capital"),
    );
    let origin = app.http_base.trim_end_matches("/api/v1").to_owned();
    let shots = concat!(env!("CARGO_MANIFEST_DIR"), "/target/screenshots");
    std::fs::create_dir_all(shots).expect("screenshots folder");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/respond.mjs");
    let steps = json!([
        {},
        {"fill": [[format!("[name=\"{name}\"]"), "<b>x</b>"]],
         "check": [format!("input[name=\"{capital}:one\"][value=\"rome\"]")],
         "click": "button[value=\"next\"]"},
        {"fill": [[format!("[name=\"{city}\"]"), "Köln"]],
         "click": "button[type=submit]:not([value=\"back\"])"},
    ])
    .to_string();
    let url = format!("{origin}/f/{short_id}");
    let walked = crate::fixtures::run_browser_script(&[
        &script,
        &url,
        &"-",
        &steps,
        &shots,
        &"respond-page",
    ])
    .await;
    let seen = walked["steps"].as_array().expect("steps");
    let texts = |i: usize| seen[i]["texts"].to_string();
    assert!(
        texts(1).contains("Where to next, <b>x</b> (after Rome)?"),
        "{}",
        seen[1]
    );
    assert!(texts(1).contains("Thanks, <b>x</b>"), "{}", seen[1]);
    assert!(texts(2).contains("Bon voyage, <b>x</b>!"), "{}", seen[2]);
    assert!(
        texts(2).contains("Your score: 2 of 2 points"),
        "{}",
        seen[2]
    );
    for step in seen {
        assert_eq!(step["status"], 200, "{step}");
        assert_eq!(step["overflow"], false, "{step}");
        assert_eq!(step["axe"], json!([]), "{step}");
    }
    assert_eq!(walked["cspViolations"], json!([]), "{walked}");

    // The builder: the question's quiz fold, and the settings' mail and quiz.
    let url = format!("{origin}/app/forms/{id}?edit={capital}");
    let steps = json!([{"open": ["#settings", "#editor details.fold-inner"]}]).to_string();
    let built = crate::fixtures::run_browser_script(&[
        &script,
        &url,
        &d.cookie,
        &steps,
        &shots,
        &"respond-builder",
    ])
    .await;
    let step = &built["steps"][0];
    let texts = step["texts"].to_string();
    assert!(
        texts.contains("Confirmation mail to the respondent"),
        "{step}"
    );
    assert!(
        texts.contains("Show respondents their score after submitting"),
        "{step}"
    );
    assert!(texts.contains("Correct answer"), "{step}");
    assert_eq!(step["status"], 200, "{step}");
    assert_eq!(step["overflow"], false, "{step}");
    assert_eq!(step["axe"], json!([]), "{step}");
    assert_eq!(built["cspViolations"], json!([]), "{built}");
}
