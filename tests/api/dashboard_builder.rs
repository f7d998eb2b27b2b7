//! The dashboard's form page (`/app/forms/{id}`), end to end over HTTP against the real
//! binary: building a form field by field through plain form posts (add, reorder, edit,
//! remove, with the field ids kept), its settings, its lifecycle, delete with a typed
//! title, the preview and the share panel; and that a post without the session's CSRF
//! token, or from another account's session, changes nothing. What the pages did is
//! read back through the REST API with a key of the same account.

use crate::dashboard_session::{Dashboard, signed_in};
use crate::harness::*;
use serde_json::{Value, json};
use uuid::Uuid;

fn account() -> String {
    format!("acct-{}", Uuid::new_v4().simple())
}

/// The form as the REST API shows it to the account.
async fn rest_form(d: &Dashboard, app: &TestApp, id: &str) -> Value {
    app.get(&format!("/forms/{id}"), &d.key).await.ok(200)["form"].clone()
}

fn labels(form: &Value) -> Vec<String> {
    form["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| f["label"].as_str().expect("label").to_owned())
        .collect()
}

fn id_of(form: &Value, label: &str) -> String {
    form["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .find(|f| f["label"] == label)
        .unwrap_or_else(|| panic!("no field {label} in {form}"))["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

fn assert_done(reply: &Reply, id: &str, done: &str) {
    assert_eq!(reply.status, 303, "{}", reply.text);
    let location = reply.header("location");
    assert!(
        location.starts_with(&format!("/app/forms/{id}?done={done}")),
        "{location}"
    );
}

#[tokio::test]
async fn the_builder_adds_reorders_edits_and_removes_fields_keeping_their_ids() {
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &account()).await;
    let id = d.create_form("Survey").await;
    let page_path = format!("/app/forms/{id}");

    let page = d.get(&format!("{page_path}?done=created")).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(page.text.contains("The form was created."));
    assert!(page.text.contains("<h1>Survey</h1>"));
    assert!(
        page.text
            .contains(&format!(r#"href="/app/forms/{id}/responses""#))
    );
    assert!(
        page.text
            .contains(&format!(r#"href="/app/forms/{id}/webhooks""#))
    );
    for kind in [
        "short_text",
        "long_text",
        "textarea",
        "email",
        "number",
        "file_upload",
    ] {
        assert!(
            page.text
                .contains(&format!(r#"name="kind" value="{kind}""#)),
            "kind {kind}"
        );
    }
    // Not published: a read-only preview on the page, no frame, no share panel.
    assert!(page.text.contains("This is a preview"));
    assert!(!page.text.contains("<iframe"));
    assert!(!page.text.contains(r#"id="share""#));
    // A `done` word the page does not know shows nothing.
    let odd = d.get(&format!("{page_path}?done=%3Cscript%3E")).await;
    assert!(!odd.text.contains("class=\"notice\""));

    let add = format!("{page_path}/fields");
    for (kind, label, extra) in [
        (
            "short_text",
            "Name",
            vec![("required", "on"), ("placeholder", "Ada")],
        ),
        ("email", "Email", vec![]),
        (
            "file_upload",
            "CV",
            vec![("allowed_types", "PDF, .png"), ("max_size_mb", "5")],
        ),
        (
            "number",
            "Age",
            vec![("allowed_types", "ignored"), ("max_size_mb", "3")],
        ),
    ] {
        let mut fields = vec![("kind", kind), ("label", label)];
        fields.extend(extra);
        assert_done(&d.post(&add, &fields).await, &id, "field-added");
    }
    let form = rest_form(&d, &app, &id).await;
    assert_eq!(labels(&form), ["Name", "Email", "CV", "Age"]);
    let f = &form["fields"];
    assert_eq!(f[0]["type"], "short_text");
    assert_eq!(f[0]["required"], true);
    assert_eq!(f[0]["placeholder"], "Ada");
    assert_eq!(f[1]["type"], "email");
    assert_eq!(f[1]["required"], false);
    assert_eq!(f[2]["allowed_types"], json!(["pdf", "png"]));
    assert_eq!(f[2]["max_size_mb"], 5.0);
    // File options are dropped for a kind that has none.
    assert_eq!(f[3]["type"], "number");
    assert!(
        f[3].get("max_size_mb").is_none_or(Value::is_null),
        "{}",
        f[3]
    );
    let ids: Vec<String> = ["Name", "Email", "CV", "Age"]
        .iter()
        .map(|l| id_of(&form, l))
        .collect();

    // The page lists them in order, each a link that opens it alone for editing.
    let page = d.get(&page_path).await;
    let rows: Vec<usize> = ids
        .iter()
        .map(|f| {
            page.text
                .find(&format!(r#"href="{page_path}?edit={f}#q-{f}""#))
                .expect("a link per question")
        })
        .collect();
    assert!(rows.windows(2).all(|w| w[0] < w[1]), "in order");
    assert!(!page.text.contains("data-editor="), "none open");
    let open = d.get(&format!("{page_path}?edit={}", ids[2])).await;
    assert_eq!(open.text.matches("data-editor=").count(), 1, "one open");
    assert!(open.text.contains(&format!(r#"data-editor="{}""#, ids[2])));
    // Only its kind's settings: the file's, no options, no bounds.
    assert!(open.text.contains(r#"name="allowed_types""#));
    assert!(!open.text.contains(r#"name="options""#));
    assert!(!open.text.contains(r#"name="min""#));
    assert!(
        !open.text.contains(r#"name="placeholder""#),
        "no hint box on a file"
    );
    assert!(
        page.text.contains(&format!(r#"id="pv-{}""#, ids[2])),
        "preview of the file field"
    );

    // Reorder: Age up, then one place up is refused for the first field.
    let age = &ids[3];
    let moved = d
        .post(
            &format!("{page_path}/fields/{age}/move"),
            &[("direction", "up")],
        )
        .await;
    assert_done(&moved, &id, "field-moved");
    let form = rest_form(&d, &app, &id).await;
    assert_eq!(labels(&form), ["Name", "Email", "Age", "CV"]);
    assert_eq!(id_of(&form, "Age"), *age, "the moved field keeps its id");
    let first = &ids[0];
    let refused = d
        .post(
            &format!("{page_path}/fields/{first}/move"),
            &[("direction", "up")],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(refused.text.contains("Nothing was saved"));
    let down = d
        .post(
            &format!("{page_path}/fields/{first}/move"),
            &[("direction", "down")],
        )
        .await;
    assert_done(&down, &id, "field-moved");
    assert_eq!(
        labels(&rest_form(&d, &app, &id).await),
        ["Email", "Name", "Age", "CV"]
    );

    // Edit: label, required, placeholder; the id stays.
    let email = &ids[1];
    let edited = d
        .post(
            &format!("{page_path}/fields/{email}"),
            &[
                ("label", "Work email"),
                ("required", "on"),
                ("placeholder", "you@example.com"),
            ],
        )
        .await;
    assert_done(&edited, &id, "field-saved");
    let form = rest_form(&d, &app, &id).await;
    assert_eq!(id_of(&form, "Work email"), *email);
    assert_eq!(form["fields"][0]["required"], true);
    assert_eq!(form["fields"][0]["placeholder"], "you@example.com");
    // Unchecked "required" and an empty placeholder clear them.
    let name = &ids[0];
    let cleared = d
        .post(
            &format!("{page_path}/fields/{name}"),
            &[("label", "Name"), ("placeholder", "")],
        )
        .await;
    assert_done(&cleared, &id, "field-saved");
    let form = rest_form(&d, &app, &id).await;
    assert_eq!(form["fields"][1]["required"], false);
    assert!(
        form["fields"][1]
            .get("placeholder")
            .is_none_or(Value::is_null)
    );

    // The file options of a file field: a size that is not a number, and one the core
    // refuses, are shown with what to fix; nothing changes.
    let cv = &ids[2];
    let bad = d
        .post(
            &format!("{page_path}/fields/{cv}"),
            &[("label", "CV"), ("max_size_mb", "lots")],
        )
        .await;
    assert_eq!(bad.status, 422, "{}", bad.text);
    assert!(bad.text.contains("Largest file"), "{}", bad.text);
    let too_big = d
        .post(
            &format!("{page_path}/fields/{cv}"),
            &[("label", "CV"), ("max_size_mb", "500")],
        )
        .await;
    assert_eq!(too_big.status, 422, "{}", too_big.text);
    assert!(
        too_big
            .text
            .contains("Field 4: max_size_mb must be greater than 0"),
        "{}",
        too_big.text
    );
    assert_eq!(
        rest_form(&d, &app, &id).await["fields"][3]["max_size_mb"],
        5.0
    );
    let opened = d
        .post(
            &format!("{page_path}/fields/{cv}"),
            &[
                ("label", "Résumé"),
                ("allowed_types", ""),
                ("max_size_mb", ""),
            ],
        )
        .await;
    assert_done(&opened, &id, "field-saved");
    let form = rest_form(&d, &app, &id).await;
    assert_eq!(id_of(&form, "Résumé"), *cv);
    assert!(
        form["fields"][3]
            .get("allowed_types")
            .is_none_or(|t| t == &json!([]) || t.is_null())
    );

    // A field the core refuses (no label) is shown with the field's number.
    let no_label = d
        .post(&add, &[("kind", "short_text"), ("label", "  ")])
        .await;
    assert_eq!(no_label.status, 422, "{}", no_label.text);
    assert!(
        no_label.text.contains("Field 5: label is required"),
        "{}",
        no_label.text
    );
    let unknown = d
        .post(&add, &[("kind", "colour"), ("label", "Favourite")])
        .await;
    assert_eq!(unknown.status, 422, "{}", unknown.text);
    assert_eq!(
        rest_form(&d, &app, &id).await["fields"]
            .as_array()
            .map(Vec::len),
        Some(4)
    );

    // Remove: first a page that asks (without script, nothing goes unasked), saying
    // what goes, with a way to keep it; nothing removed yet.
    let asked = d
        .post(&format!("{page_path}/fields/{name}/remove"), &[])
        .await;
    assert_eq!(asked.status, 200, "{}", asked.text);
    assert!(
        asked.text.contains("<h1>Delete the question “"),
        "{}",
        asked.text
    );
    assert!(
        asked.text.contains(r#"name="confirm" value="yes""#),
        "{}",
        asked.text
    );
    assert!(asked.text.contains(">Keep it</a>"), "{}", asked.text);
    assert!(
        asked.text.contains("answers already given to it stay"),
        "{}",
        asked.text
    );
    assert_eq!(
        rest_form(&d, &app, &id).await["fields"]
            .as_array()
            .map(Vec::len),
        Some(4)
    );
    // Confirmed: the others keep their ids and order.
    let removed = d
        .post(
            &format!("{page_path}/fields/{name}/remove"),
            &[("confirm", "yes")],
        )
        .await;
    assert_done(&removed, &id, "field-removed");
    let form = rest_form(&d, &app, &id).await;
    assert_eq!(labels(&form), ["Work email", "Age", "Résumé"]);
    assert_eq!(id_of(&form, "Age"), *age);
    // A field that is no longer there is not found.
    let gone = d
        .post(
            &format!("{page_path}/fields/{name}/remove"),
            &[("confirm", "yes")],
        )
        .await;
    assert_eq!(gone.status, 404);

    // Title and description; an empty description clears it.
    let saved = d
        .post(
            &format!("{page_path}/details"),
            &[("title", "Survey 2026"), ("description", "About you")],
        )
        .await;
    assert_done(&saved, &id, "saved");
    let form = rest_form(&d, &app, &id).await;
    assert_eq!(form["title"], "Survey 2026");
    assert_eq!(form["description"], "About you");
    let cleared = d
        .post(
            &format!("{page_path}/details"),
            &[("title", "Survey 2026"), ("description", "")],
        )
        .await;
    assert_done(&cleared, &id, "saved");
    assert_eq!(rest_form(&d, &app, &id).await["description"], Value::Null);
    let untitled = d
        .post(
            &format!("{page_path}/details"),
            &[("title", " "), ("description", "")],
        )
        .await;
    assert_eq!(untitled.status, 422, "{}", untitled.text);
    assert!(untitled.text.contains("title is required"));
    assert_eq!(rest_form(&d, &app, &id).await["title"], "Survey 2026");
}

#[tokio::test]
async fn settings_round_trip_and_empty_boxes_clear_them() {
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &account()).await;
    let id = d.create_form("Settings").await;
    let path = format!("/app/forms/{id}/settings");

    let saved = d
        .post(
            &path,
            &[
                ("confirmation_message", "Thanks, we got it."),
                ("redirect_url", "https://example.com/thanks"),
                ("notifications_enabled", "on"),
                ("proof_of_work", "on"),
                ("closes_at", "2030-12-31T18:00"),
                ("max_responses", "50"),
            ],
        )
        .await;
    assert_done(&saved, &id, "settings");
    let settings = rest_form(&d, &app, &id).await["settings"].clone();
    assert_eq!(settings["confirmation_message"], "Thanks, we got it.");
    assert_eq!(settings["redirect_url"], "https://example.com/thanks");
    assert_eq!(settings["notifications_enabled"], true);
    assert_eq!(settings["proof_of_work"], true);
    assert_eq!(settings["closes_at"], "2030-12-31T18:00:00.000Z");
    assert_eq!(settings["max_responses"], 50);

    let page = d.get(&format!("/app/forms/{id}?done=settings")).await;
    assert!(page.text.contains("The settings were saved."));
    assert!(
        page.text.contains(r#"value="2030-12-31T18:00""#),
        "closing date shown as set"
    );
    assert!(page.text.contains(r#"value="50""#));
    assert!(page.text.contains(r#"value="https://example.com/thanks""#));
    assert!(page.text.contains("Thanks, we got it.</textarea>"));
    assert!(page.text.contains(
        r#"name="notifications_enabled" value="on" aria-describedby="s-notify-hint" checked"#
    ));
    assert!(
        page.text.contains(
            r#"name="proof_of_work" value="on" aria-describedby="s-pow-hint" checked>Require a proof-of-work check (stops robots without a third party)"#
        ),
        "{}",
        page.text
    );
    assert!(page.text.contains("in UTC"));

    // Values the core refuses come back with what to fix, and nothing changes.
    for (name, value, said) in [
        (
            "max_responses",
            "0",
            "Response cap: must be a positive integer",
        ),
        ("max_responses", "ten", "Response cap: write a whole number"),
        (
            "redirect_url",
            "ftp://example.com/x",
            "Redirect URL: must be an http(s) URL",
        ),
        (
            "closes_at",
            "next week",
            "Closing date: give a date and time",
        ),
    ] {
        let reply = d.post(&path, &[(name, value)]).await;
        assert_eq!(reply.status, 422, "{name}={value}: {}", reply.text);
        assert!(reply.text.contains(said), "{name}={value}: {}", reply.text);
        assert!(reply.text.contains(r#"role="alert""#));
    }
    let unchanged = rest_form(&d, &app, &id).await["settings"].clone();
    assert_eq!(unchanged, settings);

    // Every box empty: every setting cleared.
    let cleared = d
        .post(
            &path,
            &[
                ("confirmation_message", ""),
                ("redirect_url", ""),
                ("closes_at", ""),
                ("max_responses", ""),
            ],
        )
        .await;
    assert_done(&cleared, &id, "settings");
    let settings = rest_form(&d, &app, &id).await["settings"].clone();
    assert_eq!(settings["confirmation_message"], "");
    assert_eq!(settings["redirect_url"], Value::Null);
    assert_eq!(settings["notifications_enabled"], false);
    assert_eq!(settings["proof_of_work"], false);
    assert_eq!(settings["closes_at"], Value::Null);
    assert_eq!(settings["max_responses"], Value::Null);
}

#[tokio::test]
async fn allowed_origins_are_saved_and_the_share_panel_gives_the_forms_html() {
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &account()).await;
    let id = d.create_form("Contact").await;
    let base = format!("/app/forms/{id}");
    for (kind, label) in [("email", "Email address"), ("long_text", "Message")] {
        let add = d
            .post(
                &format!("{base}/fields"),
                &[("kind", kind), ("label", label)],
            )
            .await;
        assert_done(&add, &id, "field-added");
    }
    let publish = d
        .post(&format!("{base}/status"), &[("action", "publish")])
        .await;
    assert_done(&publish, &id, "published");
    let page = d.get(&base).await;
    assert!(page.text.contains(r#"name="allowed_origins""#));
    assert!(
        !page.text.contains(r#"id="endpoint-code""#),
        "no endpoint HTML while no origin is listed"
    );

    let path = format!("{base}/settings");
    let bad = d
        .post(
            &path,
            &[("allowed_origins", "https://www.example.com/contact")],
        )
        .await;
    assert_eq!(bad.status, 422, "{}", bad.text);
    assert!(bad.text.contains("Allowed origins: "), "{}", bad.text);
    let saved = d
        .post(
            &path,
            &[(
                "allowed_origins",
                "https://WWW.Example.com\r\n\r\nhttp://localhost:8080/\r\n",
            )],
        )
        .await;
    assert_done(&saved, &id, "settings");
    let form = rest_form(&d, &app, &id).await;
    assert_eq!(
        form["settings"]["allowed_origins"],
        json!(["https://www.example.com", "http://localhost:8080"])
    );
    let short = form["short_id"].as_str().expect("short id");
    let page = d.get(&base).await;
    assert!(
        page.text
            .contains("https://www.example.com\nhttp://localhost:8080</textarea>"),
        "{}",
        page.text
    );
    let addr = app.server.http_addr.expect("address");
    for expected in [
        format!("&lt;form action=&quot;http://{addr}/f/{short}&quot; method=&quot;POST&quot;&gt;"),
        "type=&quot;email&quot; name=&quot;email_address&quot;&gt;".to_owned(),
        "&lt;textarea name=&quot;message&quot;&gt;".to_owned(),
        "name=&quot;_gotcha&quot;".to_owned(),
    ] {
        assert!(page.text.contains(&expected), "{expected}: {}", page.text);
    }
    assert!(page.text.contains(r#"data-copy="endpoint-code""#));

    // An empty box turns endpoint mode off.
    let cleared = d.post(&path, &[("allowed_origins", "")]).await;
    assert_done(&cleared, &id, "settings");
    let form = rest_form(&d, &app, &id).await;
    assert_eq!(form["settings"]["allowed_origins"], Value::Null);
}

#[tokio::test]
async fn lifecycle_share_panel_and_delete_with_the_typed_title() {
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &account()).await;
    let id = d.create_form("Launch <party>").await;
    let base = format!("/app/forms/{id}");
    let add = d
        .post(
            &format!("{base}/fields"),
            &[("kind", "short_text"), ("label", "Name")],
        )
        .await;
    assert_done(&add, &id, "field-added");
    let status = format!("{base}/status");

    assert_done(
        &d.post(&status, &[("action", "publish")]).await,
        &id,
        "published",
    );
    let form = rest_form(&d, &app, &id).await;
    assert_eq!(form["status"], "published");
    let short = form["short_id"].as_str().expect("short id").to_owned();

    // Preview in a frame; the share panel: link, embed snippet, QR code.
    let page = d.get(&format!("{base}?done=published")).await;
    assert_eq!(page.status, 200);
    assert!(page.text.contains("The form is published"));
    assert!(page.text.contains(&format!(r#"<iframe class="preview" src="/f/{short}" title="Preview of the hosted form Launch &lt;party&gt;""#)), "{}", page.text);
    let addr = app.server.http_addr.expect("address");
    let link = format!("http://{addr}/f/{short}");
    assert!(
        page.text.contains(&format!(
            r#"id="share-link" type="text" readonly value="{link}""#
        )),
        "{}",
        page.text
    );
    assert!(page.text.contains(r#"data-copy="share-link""#));
    assert!(page.text.contains(r#"data-copy="embed-code""#));
    assert!(
        page.text.contains(&format!(
            "&lt;iframe src=&quot;{link}&quot; title=&quot;Launch &amp;lt;party&amp;gt;&quot;"
        )),
        "{}",
        page.text
    );
    assert!(
        page.text.contains(
            r#"<svg class="qr" role="img" aria-label="QR code of the link to Launch &lt;party&gt;""#
        ),
        "{}",
        page.text
    );
    assert!(!page.text.contains("<?xml"));
    // The link follows the Host the browser used.
    let hosted = d.get_with(&base, &[("host", "forms.example.test")]).await;
    assert!(
        hosted
            .text
            .contains(r#"value="http://forms.example.test/f/"#),
        "{}",
        hosted.text
    );
    // The hosted page that the link names answers.
    let public = d.client.get(&link).send().await.expect("hosted page");
    assert_eq!(public.status(), 200);

    // Close now, then reopen.
    assert_done(
        &d.post(&status, &[("action", "close")]).await,
        &id,
        "closed",
    );
    let closes = rest_form(&d, &app, &id).await["settings"]["closes_at"].clone();
    let at = chrono::DateTime::parse_from_rfc3339(closes.as_str().expect("closes_at set"))
        .expect("timestamp");
    assert!(at <= chrono::Utc::now());
    let page = d.get(&base).await;
    assert!(
        page.text
            .contains(r#"<span class="badge closed">closed</span>"#)
    );
    assert!(page.text.contains(r#"name="action" value="reopen""#));
    let refused = d.client.get(&link).send().await.expect("hosted page");
    assert_ne!(refused.status(), 200, "a closed form is not answered");
    assert_done(
        &d.post(&status, &[("action", "reopen")]).await,
        &id,
        "reopened",
    );
    assert_eq!(
        rest_form(&d, &app, &id).await["settings"]["closes_at"],
        Value::Null
    );

    // Archive, back to draft.
    assert_done(
        &d.post(&status, &[("action", "archive")]).await,
        &id,
        "archived",
    );
    assert_eq!(rest_form(&d, &app, &id).await["status"], "archived");
    assert_done(
        &d.post(&status, &[("action", "draft")]).await,
        &id,
        "drafted",
    );
    assert_eq!(rest_form(&d, &app, &id).await["status"], "draft");
    let page = d.get(&base).await;
    assert!(page.text.contains("This is a preview"));
    assert!(!page.text.contains(r#"id="share""#));
    let odd = d.post(&status, &[("action", "explode")]).await;
    assert_eq!(odd.status, 422);

    // Delete: the typed title must be exact; a wrong one changes nothing.
    let delete = format!("{base}/delete");
    for wrong in ["", "launch <party>", "Launch <party> "] {
        let reply = d.post(&delete, &[("confirm_title", wrong)]).await;
        assert_eq!(reply.status, 422, "{wrong:?}: {}", reply.text);
        assert!(reply.text.contains("type its title exactly"));
        rest_form(&d, &app, &id).await;
    }
    let page = d.get(&base).await;
    assert!(
        page.text
            .contains(r#"data-confirm-input="delete-button" data-expected="Launch &lt;party&gt;""#)
    );
    let deleted = d
        .post(&delete, &[("confirm_title", "Launch <party>")])
        .await;
    assert_eq!(deleted.status, 303, "{}", deleted.text);
    assert_eq!(deleted.header("location"), "/app/forms?done=deleted");
    app.get(&format!("/forms/{id}"), &d.key)
        .await
        .error(404, "NOT_FOUND");
    assert_eq!(d.get(&base).await.status, 404);
}

#[tokio::test]
async fn a_post_without_the_sessions_csrf_token_changes_nothing() {
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &account()).await;
    let id = d.create_form("Guarded").await;
    let base = format!("/app/forms/{id}");
    assert_done(
        &d.post(
            &format!("{base}/fields"),
            &[("kind", "email"), ("label", "Email")],
        )
        .await,
        &id,
        "field-added",
    );
    let before = rest_form(&d, &app, &id).await;
    let field = id_of(&before, "Email");

    for csrf in ["", "forged-token"] {
        for (path, fields) in [
            (
                format!("{base}/fields"),
                vec![("kind", "number"), ("label", "Age")],
            ),
            (format!("{base}/fields/{field}"), vec![("label", "Changed")]),
            (
                format!("{base}/fields/{field}/remove"),
                vec![("confirm", "yes")],
            ),
            (format!("{base}/details"), vec![("title", "Changed")]),
            (format!("{base}/settings"), vec![("max_responses", "3")]),
            (format!("{base}/status"), vec![("action", "publish")]),
            (format!("{base}/delete"), vec![("confirm_title", "Guarded")]),
        ] {
            let mut all = vec![("_csrf", csrf)];
            all.extend(fields);
            let reply = d.post_raw(&path, &all).await;
            assert_eq!(
                reply.status, 403,
                "{path} with csrf {csrf:?}: {}",
                reply.text
            );
            assert!(reply.text.contains("Nothing was changed"), "{}", reply.text);
        }
    }
    let after = rest_form(&d, &app, &id).await;
    assert_eq!(after["fields"], before["fields"]);
    assert_eq!(after["title"], before["title"]);
    assert_eq!(after["settings"], before["settings"]);
    assert_eq!(after["status"], "draft");
    assert_eq!(after["updated_at"], before["updated_at"]);
}

#[tokio::test]
async fn another_accounts_session_finds_no_such_form() {
    let app = TestApp::spawn().await;
    let owner = signed_in(&app, &account()).await;
    let other = signed_in(&app, &account()).await;
    let id = owner.create_form("Mine").await;
    let base = format!("/app/forms/{id}");
    assert_done(
        &owner
            .post(
                &format!("{base}/fields"),
                &[("kind", "short_text"), ("label", "Name")],
            )
            .await,
        &id,
        "field-added",
    );
    assert_done(
        &owner
            .post(&format!("{base}/status"), &[("action", "publish")])
            .await,
        &id,
        "published",
    );
    let before = rest_form(&owner, &app, &id).await;
    let field = id_of(&before, "Name");

    let page = other.get(&base).await;
    assert_eq!(page.status, 404, "{}", page.text);
    assert!(!page.text.contains("Mine"));
    for (path, fields) in [
        (
            format!("{base}/fields"),
            vec![("kind", "number"), ("label", "Age")],
        ),
        (format!("{base}/fields/{field}"), vec![("label", "Changed")]),
        (
            format!("{base}/fields/{field}/move"),
            vec![("direction", "down")],
        ),
        (
            format!("{base}/fields/{field}/remove"),
            vec![("confirm", "yes")],
        ),
        (format!("{base}/details"), vec![("title", "Changed")]),
        (format!("{base}/settings"), vec![("max_responses", "3")]),
        (format!("{base}/status"), vec![("action", "archive")]),
        (format!("{base}/status"), vec![("action", "close")]),
        (format!("{base}/delete"), vec![("confirm_title", "Mine")]),
    ] {
        let reply = other.post(&path, &fields).await;
        assert_eq!(reply.status, 404, "{path}: {}", reply.text);
    }
    let after = rest_form(&owner, &app, &id).await;
    assert_eq!(after, before, "the owner's form is as it was");
    // Not a form id at all: not found either, for anyone.
    assert_eq!(owner.get("/app/forms/not-a-uuid").await.status, 404);
    // Without a session: on to sign in.
    let anonymous = crate::dashboard_session::browser()
        .get(format!("{}{base}", owner.base))
        .send()
        .await
        .expect("get");
    assert_eq!(anonymous.status(), 303);
}
