//! Endpoint mode and the form's logic: the owner's own HTML form shows every question,
//! so an answer to a question the other answers hide is dropped, not refused (as the
//! hosted page drops a hidden field's value). Over real HTTP on the spawned binary, a
//! form-encoded post to `/f/{short_id}` from an allowed origin.

use crate::fixtures::*;
use crate::harness::*;
use serde_json::{Value, json};

const SITE: &str = "https://www.example.com";

#[tokio::test]
async fn an_answer_to_a_hidden_question_is_dropped_not_refused() {
    let app = TestApp::spawn_with(&[]).await;
    let key = app.key(PRO, ALL).await;
    let fields = json!([
        {"type": "single_choice", "ref": "car", "label": "Do you own a car?", "required": true,
         "options": [{"id": "yes", "label": "Yes"}, {"id": "no", "label": "No"}]},
        {"type": "short_text", "ref": "model", "label": "Model", "required": true,
         "show_if": [{"field": "car", "op": "equals", "value": "Yes"}]}
    ]);
    let form = published_form(&app, &key, fields, json!({"allowed_origins": [SITE]})).await;
    let ids = field_ids(&form);
    let option = |i: usize| {
        form["fields"][0]["options"][i]["id"]
            .as_str()
            .expect("option id")
            .to_owned()
    };
    let (yes, no) = (option(0), option(1));
    let client = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let url = format!(
        "{}/f/{}",
        app.http_base.trim_end_matches("/api/v1"),
        form["short_id"].as_str().expect("short id")
    );
    let post = |pairs: &[(&str, &str)]| {
        client
            .post(&url)
            .header("origin", SITE)
            .header("sec-fetch-site", "cross-site")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(serde_urlencoded::to_string(pairs).expect("form body"))
    };

    // "Model" is hidden when the answer is No: what was typed in it is not kept.
    let hidden = send(post(&[(&ids[0], &no), (&ids[1], "Golf")])).await;
    assert_eq!(hidden.status, 303, "{}", hidden.text);
    // Shown when the answer is Yes: kept, and required.
    let shown = send(post(&[(&ids[0], &yes), (&ids[1], "Golf")])).await;
    assert_eq!(shown.status, 303, "{}", shown.text);
    let missing = send(post(&[(&ids[0], &yes)])).await;
    assert_eq!(missing.status, 422, "{}", missing.text);

    let listed = app
        .get(
            &format!("/forms/{}/responses", form["id"].as_str().expect("id")),
            &key,
        )
        .await;
    let responses = listed.ok(200)["responses"]
        .as_array()
        .expect("responses")
        .clone();
    let answers: Vec<&Value> = responses.iter().map(|r| &r["answers"]).collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert!(
        answers.contains(&&json!({ids[0].clone(): no})),
        "{answers:?}"
    );
    assert!(
        answers.contains(&&json!({ids[0].clone(): yes, ids[1].clone(): "Golf"})),
        "{answers:?}"
    );
}
