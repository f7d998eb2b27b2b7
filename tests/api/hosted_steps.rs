//! One question at a time (`settings.one_question_at_a_time`) on the hosted page as a
//! browser without JavaScript walks it: each question its own page, progress counting
//! the steps, Back keeping answers, and the last step completing one response with every
//! answer. The setting is refused when it is not true or false.

use crate::fixtures::*;
use crate::harness::*;
use crate::hosted_pages::{Browser, Paged};
use serde_json::json;

/// Three questions and a hidden field on one page (no page break of their own).
fn step_fields() -> serde_json::Value {
    json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "email", "label": "Email", "required": true},
        {"type": "rating", "label": "How was it?", "required": true, "max": 5},
        {"type": "hidden", "label": "utm_source"},
    ])
}

fn has(html: &str, id: &str) -> bool {
    html.contains(&format!("name=\"{id}"))
}

#[tokio::test]
async fn each_question_is_its_own_page_without_script() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let settings = json!({"one_question_at_a_time": true, "confirmation_message": "Done!"});
    let form = published_form(&app, &key, step_fields(), settings).await;
    assert_eq!(form["settings"]["one_question_at_a_time"], true, "{form}");
    let p = Paged { app, key, form };
    let short_id = p.short_id();
    let (name, email, rating, utm) = (
        p.id("Name"),
        p.id("Email"),
        p.id("How was it?"),
        p.id("utm_source"),
    );
    let mut browser = Browser::new(&p.origin());

    let first = browser
        .open(&format!("/f/{short_id}?utm_source=mail"))
        .await;
    assert_eq!(first.status, 200, "{}", first.html);
    assert!(first.html.contains("Question 1 of 3"), "{}", first.html);
    assert!(has(&first.html, &name) && !has(&first.html, &email));
    assert!(!has(&first.html, &rating));

    let second = browser.post(&first, &[(&name, "Ada")]).await;
    let second = browser.follow(&second).await;
    assert!(second.html.contains("Question 2 of 3"), "{}", second.html);
    assert!(has(&second.html, &email) && !has(&second.html, &name));

    // Back keeps what was typed on the step left.
    let back = browser
        .post(&second, &[(&email, "ada@example.com"), ("nav", "back")])
        .await;
    let back = browser.follow(&back).await;
    assert!(back.html.contains("Question 1 of 3"), "{}", back.html);
    assert_eq!(back.input(&name).as_deref(), Some("Ada"));
    let again = browser.post(&back, &[(&name, "Ada")]).await;
    let second = browser.follow(&again).await;
    assert_eq!(second.input(&email).as_deref(), Some("ada@example.com"));

    let third = browser.post(&second, &[(&email, "ada@example.com")]).await;
    let third = browser.follow(&third).await;
    assert!(third.html.contains("Question 3 of 3"), "{}", third.html);
    assert!(has(&third.html, &rating));
    assert_eq!(third.input(&utm).as_deref(), Some("mail"));

    let done = browser
        .post(&third, &[(&format!("{rating}:int"), "4"), (&utm, "mail")])
        .await;
    assert_eq!(done.status, 200, "{}", done.html);
    assert!(done.html.contains("Done!"), "{}", done.html);
    let responses = p.responses("").await;
    assert_eq!(responses.len(), 1, "{responses:?}");
    let answers = &responses[0]["answers"];
    assert_eq!(answers[&name], "Ada");
    assert_eq!(answers[&email], "ada@example.com");
    assert_eq!(answers[&rating], json!(4));
    assert_eq!(answers[&utm], "mail");
}

#[tokio::test]
async fn the_setting_is_true_or_false() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let body = json!({"title": "Steps", "fields": step_fields(),
        "settings": {"one_question_at_a_time": "yes"}});
    let refused = app.post("/forms", &key, &body).await;
    refused.error(422, "VALIDATION_ERROR");
}

/// Four questions, one of each way of answering, for Chromium.
fn chromium_fields() -> serde_json::Value {
    json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "single_choice", "label": "Colour", "required": true,
         "options": [{"label": "Red"}, {"label": "Blue"}]},
        {"type": "email", "label": "Email", "required": true},
        {"type": "long_text", "label": "Comments"},
    ])
}

/// Runs `tests/browser/steps.mjs` on a page in `mode` (`script` or `noscript`).
async fn chromium(url: &str, mode: &str) -> serde_json::Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/steps.mjs");
    let output = tokio::process::Command::new("node")
        .args([script, url, mode])
        .output()
        .await
        .expect("running node");
    assert!(
        output.status.success(),
        "browser script failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("browser script prints JSON")
}

/// Chromium at 390×844: with JavaScript, by keyboard alone (the question focused, Enter
/// continuing from a text box and a choice, a new line in the text area, the live region
/// saying the step); without it, step by step with the buttons. Progress advances
/// one step at a time, axe-core and the CSP find nothing, and one response holds every
/// answer.
#[tokio::test]
async fn chromium_answers_one_question_at_a_time_by_keyboard_and_without_script() {
    if !crate::browser::browser_available() {
        return;
    }
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let settings = json!({"one_question_at_a_time": true});
    let form = published_form(&app, &key, chromium_fields(), settings).await;
    let p = Paged { app, key, form };
    for (n, mode) in ["script", "noscript"].into_iter().enumerate() {
        let url = format!("{}/f/{}", p.origin(), p.short_id());
        let seen = chromium(&url, mode).await;
        assert_eq!(seen["cspViolations"], json!([]), "{seen}");
        assert_eq!(
            seen["steps"],
            json!([
                "Question 1 of 4",
                "Question 2 of 4",
                "Question 3 of 4",
                "Question 4 of 4"
            ]),
            "{seen}"
        );
        assert_eq!(seen["progress"], json!(["1", "2", "3", "4"]), "{seen}");
        if mode == "script" {
            assert_eq!(seen["axe"], json!([]), "{seen}");
            assert_eq!(
                seen["focused"],
                json!(["text", "radio", "email", "textarea"]),
                "{seen}"
            );
            assert_eq!(seen["live"][1], "Question 2 of 4", "{seen}");
            assert_eq!(seen["textarea"], "Hello\nthere", "{seen}");
        }
        let responses = p.responses("").await;
        assert_eq!(responses.len(), n + 1, "{responses:?}");
        let answers = &responses[0]["answers"];
        assert_eq!(answers[p.id("Name")], "Ada", "{answers}");
        assert_eq!(answers[p.id("Colour")], json!(p.option("Colour", "Red")));
        assert_eq!(answers[p.id("Email")], "ada@example.com");
        // A browser sends a text area's new line as CRLF (HTML's form encoding).
        assert_eq!(answers[p.id("Comments")], "Hello\r\nthere");
    }
}
