//! The results pages as a person reads them (issue 31, part 2): answers by option
//! label, "Other: …", Yes/No, stars and dates in the list and the detail, page breaks
//! never a column nor a row; the unfinished responses' tab with the page each reached;
//! a search by an option's label (REST and dashboard); the Excel download; a selection
//! of rows downloaded or deleted together; and no id or API syntax in any visible text.

use crate::dashboard_session::{Dashboard, dashboard_app, signed_in};
use crate::harness::TestApp;
use serde_json::{Value, json};

/// Visible text of a page: the markup without its tags, scripts and attributes (an
/// id in an `href` or a `value` is no one's reading).
pub fn visible_text(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        out.push(' ');
        let tail = &rest[open..];
        let skip_to = if tail.starts_with("<script") {
            tail.find("</script>").map(|i| i + 9)
        } else if tail.starts_with("<style") {
            tail.find("</style>").map(|i| i + 8)
        } else {
            tail.find('>').map(|i| i + 1)
        };
        rest = &tail[skip_to.unwrap_or(tail.len())..];
    }
    out.push_str(rest);
    out.replace("&amp;", "&")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
}

/// Whether `text` holds a UUID (8-4-4-4-12 hexadecimal digits).
fn has_uuid(text: &str) -> bool {
    let shape = [8, 4, 4, 4, 12];
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|start| {
        let mut at = start;
        for (i, n) in shape.iter().enumerate() {
            if i > 0 {
                if bytes.get(at) != Some(&b'-') {
                    return false;
                }
                at += 1;
            }
            for _ in 0..*n {
                if !bytes.get(at).is_some_and(u8::is_ascii_hexdigit) {
                    return false;
                }
                at += 1;
            }
        }
        true
    })
}

/// Fails on ids and API syntax in a page's visible text.
pub fn assert_plain_words(what: &str, html: &str) {
    let text = visible_text(html);
    for needle in [
        "opt_",
        "answers[",
        "[gte]",
        "[lte]",
        "greater_than",
        "less_than",
        "not_equals",
        "any_of",
        "not_answered",
        "page_break",
        "{\"",
        "true",
        "false",
    ] {
        assert!(!text.contains(needle), "{what} shows {needle:?}:\n{text}");
    }
    assert!(!has_uuid(&text), "{what} shows an id:\n{text}");
}

/// A published survey: a name, a choice with Other, a consent box, a page break (its
/// page shown to those who heard of us by the newsletter), a multiple choice, a
/// rating and a date. Returns the form.
pub async fn survey(app: &TestApp, d: &Dashboard) -> Value {
    let fields = json!([
        {"type": "short_text", "label": "Your name", "required": true},
        {"type": "single_choice", "label": "How did you hear about us?", "required": false,
         "allow_other": true, "ref": "heard",
         "options": [{"label": "Search engine"}, {"label": "Newsletter"}, {"label": "A friend"}]},
        {"type": "checkbox", "label": "I agree to be contacted", "required": false},
        {"type": "page_break", "label": "Your team",
         "show_if": [{"field": "heard", "op": "equals", "value": "Newsletter"}]},
        {"type": "multiple_choice", "label": "Which features do you use?", "required": false,
         "options": [{"label": "Webhooks"}, {"label": "Exports"}]},
        {"type": "rating", "label": "How happy are you?", "required": false},
        {"type": "date", "label": "When did you start?", "required": false},
    ]);
    let form = app
        .create_form(&d.key, &json!({"title": "Feedback", "fields": fields}))
        .await;
    let id = form["id"].as_str().expect("id").to_owned();
    app.put(
        &format!("/forms/{id}"),
        &d.key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    form
}

/// An unfinished response of form `id` at `page` with `answers`, stored as a visitor's
/// saved pages are (partial responses are made by the hosted pages only).
pub async fn unfinished(app: &TestApp, id: &str, answers: &Value, page: i32) {
    sqlx::query(
        "INSERT INTO partial_responses (id, form_id, resume_digest, answers, page, started_at,
                                        saved_at, updated_at)
         VALUES (gen_random_uuid(), $1::uuid, sha256(gen_random_uuid()::text::bytea), $2,
                 $3, now(), now(), now())",
    )
    .bind(id)
    .bind(answers)
    .bind(page)
    .execute(&app.pool)
    .await
    .expect("a partial response");
}

fn field(form: &Value, i: usize) -> String {
    form["fields"][i]["id"]
        .as_str()
        .expect("field id")
        .to_owned()
}

fn option(form: &Value, i: usize, o: usize) -> String {
    form["fields"][i]["options"][o]["id"]
        .as_str()
        .expect("option id")
        .to_owned()
}

/// Three responses: Ada (Newsletter, both features, agreed, 4 stars, a date), Grace
/// ("Other: Hacker News", not agreed), Linus (Search engine). Returns their ids.
pub async fn answer(app: &TestApp, d: &Dashboard, form: &Value) -> Vec<String> {
    let id = form["id"].as_str().expect("id");
    let bodies = [
        json!({field(form, 0): "Ada", field(form, 1): option(form, 1, 1),
               field(form, 2): true, field(form, 4): [option(form, 4, 0), option(form, 4, 1)],
               field(form, 5): 4, field(form, 6): "2024-03-05"}),
        json!({field(form, 0): "Grace", field(form, 1): {"other": "Hacker News"}, field(form, 2): false}),
        json!({field(form, 0): "Linus", field(form, 1): option(form, 1, 0)}),
    ];
    let mut ids = Vec::new();
    for answers in bodies {
        let reply = app
            .post(
                &format!("/forms/{id}/responses"),
                &d.key,
                &json!({"answers": answers}),
            )
            .await;
        ids.push(
            reply.ok(201)["response"]["id"]
                .as_str()
                .expect("id")
                .to_owned(),
        );
    }
    ids
}

#[tokio::test]
async fn answers_read_as_people_wrote_them_in_the_list_and_the_detail() {
    let app = dashboard_app(&[]).await;
    let d = signed_in(&app, "results-reader").await;
    let form = survey(&app, &d).await;
    let ids = answer(&app, &d, &form).await;
    let inbox = format!("/app/forms/{}/responses", form["id"].as_str().expect("id"));
    let page = d.get(&inbox).await;
    assert_eq!(page.status, 200, "{}", page.text);
    let html = page.text.clone();
    for shown in [
        "<span class=\"answer\">Newsletter</span>",
        "<span class=\"answer\">Other: Hacker News</span>",
        "<span class=\"answer\">Webhooks, Exports</span>",
        "<span class=\"answer\">Yes</span>",
        "<span class=\"answer\">No</span>",
        "aria-label=\"4 of 5 stars\">★★★★☆</span>",
        "<span class=\"answer\">5 Mar 2024</span>",
    ] {
        assert!(html.contains(shown), "{shown} missing in:\n{html}");
    }
    // The page break is no column.
    assert!(!html.contains("title=\"Your team\""), "{html}");
    assert_plain_words("the list", &html);

    let detail = d.get(&format!("{inbox}/{}", ids[0])).await;
    assert_eq!(detail.status, 200, "{}", detail.text);
    let html = detail.text.clone();
    for shown in [
        "<dt>How did you hear about us?</dt><dd><span class=\"answer\">Newsletter</span></dd>",
        "<dt>I agree to be contacted</dt><dd><span class=\"answer\">Yes</span></dd>",
        "<dt>When did you start?</dt><dd><span class=\"answer\">5 Mar 2024</span></dd>",
    ] {
        assert!(html.contains(shown), "{shown} missing in:\n{html}");
    }
    assert!(
        !html.contains("<dt>Your team</dt>"),
        "no row for a page break: {html}"
    );
    assert_plain_words("the detail", &html);
    let other = d.get(&format!("{inbox}/{}", ids[1])).await.text.clone();
    assert!(
        other.contains("<span class=\"answer\">Other: Hacker News</span>"),
        "{other}"
    );
    assert_plain_words("the detail of Other", &other);
}

#[tokio::test]
async fn unfinished_responses_have_their_tab_with_the_page_each_reached() {
    let app = dashboard_app(&[]).await;
    let d = signed_in(&app, "results-unfinished").await;
    let form = survey(&app, &d).await;
    answer(&app, &d, &form).await;
    let id = form["id"].as_str().expect("id").to_owned();
    let answers = json!({field(&form, 0): "Half-way Hannah", field(&form, 1): option(&form, 1, 2)});
    unfinished(&app, &id, &answers, 2).await;
    let inbox = format!("/app/forms/{id}/responses");
    let finished = d.get(&inbox).await.text.clone();
    assert!(!finished.contains("Half-way Hannah"), "{finished}");
    assert!(
        finished.contains(&format!(
            "<a href=\"{inbox}?show=unfinished\">Unfinished</a>"
        )),
        "{finished}"
    );
    let page = d.get(&format!("{inbox}?show=unfinished")).await;
    assert_eq!(page.status, 200, "{}", page.text);
    let html = page.text.clone();
    for shown in [
        "aria-current=\"page\">Unfinished</a>",
        "<th scope=\"col\">Reached</th>",
        "<td>Page 2: Your team</td>",
        "Half-way Hannah",
        "<span class=\"answer\">A friend</span>",
    ] {
        assert!(html.contains(shown), "{shown} missing in:\n{html}");
    }
    assert!(!html.contains(">Ada<"), "only unfinished ones: {html}");
    assert_plain_words("the unfinished tab", &html);
    // Its detail says so.
    let start = html
        .find("<td class=\"nowrap\"><a href=\"")
        .expect("a row link")
        + 28;
    let end = html[start..].find('"').expect("href end");
    let detail = d.get(&html[start..start + end]).await.text.clone();
    assert!(
        detail.contains("Reached Page 2: Your team; not sent yet."),
        "{detail}"
    );
    assert_plain_words("an unfinished detail", &detail);
}

#[tokio::test]
async fn a_search_finds_a_choice_by_its_label_over_rest_and_in_the_dashboard() {
    let app = dashboard_app(&[]).await;
    let d = signed_in(&app, "results-search").await;
    let form = survey(&app, &d).await;
    let ids = answer(&app, &d, &form).await;
    let id = form["id"].as_str().expect("id");
    // A part of a label, any case and accent.
    let reply = app
        .get(&format!("/forms/{id}/responses?q=NEWSL%C3%89T"), &d.key)
        .await;
    let found = reply.ok(200);
    let found: Vec<&str> = found["responses"]
        .as_array()
        .expect("responses")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(found, [ids[0].as_str()]);
    let page = d
        .get(&format!("/app/forms/{id}/responses?q=newsletter"))
        .await
        .text
        .clone();
    assert!(
        page.contains(">Ada<") && !page.contains(">Linus<"),
        "{page}"
    );
    // Renamed, the option is found by its new label in the responses stored before.
    let mut fields = form["fields"].clone();
    fields[1]["options"][1]["label"] = json!("Our monthly letter");
    app.put(&format!("/forms/{id}"), &d.key, &json!({"fields": fields}))
        .await
        .ok(200);
    let page = d
        .get(&format!("/app/forms/{id}/responses?q=monthly"))
        .await
        .text
        .clone();
    assert!(
        page.contains(">Ada<") && !page.contains(">Grace<"),
        "{page}"
    );
    // Free text still found as before.
    let page = d
        .get(&format!("/app/forms/{id}/responses?q=hacker"))
        .await
        .text
        .clone();
    assert!(
        page.contains(">Grace<") && !page.contains(">Ada<"),
        "{page}"
    );
}

#[tokio::test]
async fn excel_and_a_selection_are_downloaded_and_a_selection_deleted() {
    let app = dashboard_app(&[]).await;
    let d = signed_in(&app, "results-selection").await;
    let form = survey(&app, &d).await;
    let ids = answer(&app, &d, &form).await;
    let id = form["id"].as_str().expect("id");
    let inbox = format!("/app/forms/{id}/responses");
    let html = d.get(&inbox).await.text.clone();
    assert!(
        html.contains(&format!(
            "href=\"{inbox}/export.xlsx\" download>Download Excel (XLSX)</a>"
        )),
        "{html}"
    );
    let xlsx = d.download(&format!("{inbox}/export.xlsx")).await;
    assert_eq!(xlsx.status, 200);
    assert!(xlsx.body.starts_with(b"PK"), "a zip (workbook)");
    assert!(
        xlsx.header("content-disposition").ends_with(".xlsx\""),
        "{}",
        xlsx.header("content-disposition")
    );
    // The selection: a form around the rows, a box per row.
    assert!(
        html.contains(&format!(
            "<form method=\"post\" action=\"{inbox}/selection\""
        )),
        "{html}"
    );
    assert!(
        html.contains(&format!("name=\"id\" value=\"{}\"", ids[0])),
        "{html}"
    );
    let csv = d
        .post(
            &format!("{inbox}/selection"),
            &[("action", "csv"), ("id", &ids[0]), ("id", &ids[2])],
        )
        .await;
    assert_eq!(csv.status, 200, "{}", csv.text);
    assert_eq!(csv.text.lines().count(), 3, "{}", csv.text);
    assert!(csv.text.contains("Ada") && csv.text.contains("Linus") && !csv.text.contains("Grace"));
    // Nothing ticked says so.
    let none = d
        .post(&format!("{inbox}/selection"), &[("action", "delete")])
        .await;
    assert_eq!(none.status, 303);
    assert_eq!(none.header("location"), format!("{inbox}?done=chose-none"));
    // Delete asks first, then deletes both.
    let ask = d
        .post(
            &format!("{inbox}/selection"),
            &[("action", "delete"), ("id", &ids[0]), ("id", &ids[1])],
        )
        .await;
    assert_eq!(ask.status, 200, "{}", ask.text);
    assert!(ask.text.contains("Delete 2 responses?"), "{}", ask.text);
    assert_plain_words("the deletion's confirmation", &ask.text);
    for still in [&ids[0], &ids[1]] {
        app.get(&format!("/forms/{id}/responses/{still}"), &d.key)
            .await
            .ok(200);
    }
    let done = d
        .post(
            &format!("{inbox}/selection"),
            &[
                ("action", "delete"),
                ("confirm", "yes"),
                ("id", &ids[0]),
                ("id", &ids[1]),
            ],
        )
        .await;
    assert_eq!(done.status, 303, "{}", done.text);
    assert_eq!(
        done.header("location"),
        format!("{inbox}?done=deleted-some")
    );
    for gone in [&ids[0], &ids[1]] {
        assert_eq!(
            app.get(&format!("/forms/{id}/responses/{gone}"), &d.key)
                .await
                .status,
            404
        );
    }
    app.get(&format!("/forms/{id}/responses/{}", ids[2]), &d.key)
        .await
        .ok(200);
    // Without the session's CSRF token nothing is deleted.
    let forged = d
        .post_raw(
            &format!("{inbox}/selection"),
            &[
                ("_csrf", "forged"),
                ("action", "delete"),
                ("confirm", "yes"),
                ("id", &ids[2]),
            ],
        )
        .await;
    assert_ne!(forged.status, 303, "{}", forged.text);
    app.get(&format!("/forms/{id}/responses/{}", ids[2]), &d.key)
        .await
        .ok(200);
}

#[tokio::test]
async fn a_filter_mistake_is_shown_beside_its_input_in_words_keeping_what_was_typed() {
    let app = dashboard_app(&[]).await;
    let d = signed_in(&app, "results-mistakes").await;
    let form = survey(&app, &d).await;
    answer(&app, &d, &form).await;
    let inbox = format!("/app/forms/{}/responses", form["id"].as_str().expect("id"));
    let rating = field(&form, 5);
    let page = d
        .get(&format!("{inbox}?field={rating}&op=gte&value=lots&q=ada"))
        .await;
    assert_eq!(page.status, 422, "{}", page.text);
    let html = page.text.clone();
    for shown in [
        "<p class=\"error field-error\" id=\"value-error\" role=\"alert\">For “How happy are you?”, enter a number of stars, such as 4.</p>",
        "aria-invalid=\"true\" aria-describedby=\"value-error\"",
        "value=\"lots\"",
        "value=\"ada\"",
        "<option value=\"gte\" selected>is at least</option>",
    ] {
        assert!(html.contains(shown), "{shown} missing in:\n{html}");
    }
    assert!(
        html.contains(&format!("<option value=\"{rating}\" selected>")),
        "{html}"
    );
    assert!(
        !html.contains("<h1>Check the filter</h1>"),
        "no separate page: {html}"
    );
    assert_plain_words("a filter's mistake", &html);
    // A condition the question can not take, beside the condition.
    let page = d
        .get(&format!("{inbox}?field={rating}&op=contains&value=3"))
        .await;
    assert!(
        page.text
            .contains("id=\"op-error\" role=\"alert\">“How happy are you?” can not be compared with “contains”"),
        "{}",
        page.text
    );
    // A date that is none, beside the date, as typed.
    let page = d.get(&format!("{inbox}?since=yesterday")).await;
    assert!(
        page.text
            .contains("id=\"since-error\" role=\"alert\">Enter the From date"),
        "{}",
        page.text
    );
    assert!(page.text.contains("value=\"yesterday\""), "{}", page.text);
    // A checkbox is filtered by Yes or No, as it reads.
    let agreed = field(&form, 2);
    let page = d
        .get(&format!("{inbox}?field={agreed}&op=eq&value=Yes"))
        .await;
    assert!(
        page.text.contains(">Ada<") && !page.text.contains(">Grace<"),
        "{}",
        page.text
    );
}

#[test]
fn the_scan_sees_ids_and_api_syntax_only_in_visible_text() {
    assert!(has_uuid("x 0b5c6a1e-2f3d-4e5f-8a9b-0c1d2e3f4a5b y"));
    assert!(!has_uuid("2026-11-27 16:54:56"));
    let page = "<a href=\"/r/0b5c6a1e-2f3d-4e5f-8a9b-0c1d2e3f4a5b\">Ada</a><script>opt_x</script>";
    assert_eq!(visible_text(page).trim(), "Ada");
    assert!(
        std::panic::catch_unwind(|| assert_plain_words("t", "<td>opt_fc26545155</td>")).is_err()
    );
}
