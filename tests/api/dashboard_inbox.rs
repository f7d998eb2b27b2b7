//! The dashboard's responses inbox (`/app/forms/{id}/responses`): label headers, newest
//! first, keyset pages that visit every response once, the date filter, the CSV and
//! NDJSON downloads, the detail with device/browser/OS and files, the deletion (CSRF
//! and confirmation), and another account's 404 everywhere.

use crate::dashboard_session::*;
use crate::fixtures::*;
use crate::harness::*;
use crate::hosted::{DESKTOP, Visitor};
use crate::uploads::PNG;
use serde_json::{Value, json};
use uuid::Uuid;

/// An account with a key and a dashboard session.
async fn owner(app: &TestApp) -> (String, Dashboard) {
    let account = format!("acct-{}", Uuid::new_v4().simple());
    let key = app.key_for(&account, PRO, ALL).await.key;
    let dashboard = signed_in(app, &account).await;
    (key, dashboard)
}

/// `&amp;` back to `&` in an attribute value.
fn unescape(href: &str) -> String {
    href.replace("&amp;", "&")
}

/// The href of the link with `rel="<rel>"` on a page.
fn link(html: &str, rel: &str) -> Option<String> {
    let end = html.find(&format!("\" rel=\"{rel}\""))?;
    let start = html[..end].rfind("href=\"")? + 6;
    Some(unescape(&html[start..end]))
}

/// The numbers n of the "Person n" names on a page, in order.
fn people(html: &str) -> Vec<usize> {
    html.match_indices("Person ")
        .filter_map(|(i, _)| {
            let digits: String = html[i + 7..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
        .collect()
}

/// Response n is submitted on 2026-01-0(1 + n/10), at 01:00 + n min, except the day
/// edges: 9 and 19 on the last microsecond of their day, 10 and 20 at midnight.
fn submitted_at(n: usize) -> String {
    let day = 1 + n / 10;
    match n {
        9 | 19 => format!("2026-01-0{day}T23:59:59.999999Z"),
        10 | 20 => format!("2026-01-0{day}T00:00:00Z"),
        _ => format!("2026-01-0{day}T01:{n:02}:00Z"),
    }
}

/// A published contact form with `n` responses made by the REST API, dated by
/// `submitted_at`; returns the form id and the response ids by n.
async fn form_with_responses(app: &TestApp, key: &str, n: usize) -> (String, Vec<String>) {
    let form = published_form(app, key, contact_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("form id").to_owned();
    let fields = field_ids(&form);
    let mut ids = Vec::new();
    for i in 0..n {
        let reply = app
            .post(
                &format!("/forms/{form_id}/responses"),
                key,
                &json!({"answers": contact_answers(&fields, i)}),
            )
            .await;
        let id = reply.ok(201)["response"]["id"]
            .as_str()
            .expect("response id")
            .to_owned();
        sqlx::query("UPDATE responses SET submitted_at = $1::timestamptz, started_at = $1::timestamptz WHERE id = $2")
            .bind(submitted_at(i))
            .bind(Uuid::parse_str(&id).expect("uuid"))
            .execute(&app.pool)
            .await
            .expect("dating a response");
        ids.push(id);
    }
    (form_id, ids)
}

#[tokio::test]
async fn the_inbox_lists_newest_first_under_labels_in_keyset_pages_filtered_by_date() {
    let app = dashboard_app(&[]).await;
    let (key, dashboard) = owner(&app).await;
    let (form_id, _) = form_with_responses(&app, &key, 30).await;
    let inbox = format!("/app/forms/{form_id}/responses");

    // First page: labels as headers, newest first, refresh and downloads.
    let page = dashboard.get(&inbox).await;
    assert_eq!(page.status, 200, "{}", page.text.clone());
    let html = page.text.clone();
    for label in ["Submitted", "Name", "Email", "Age", "Bio"] {
        assert!(
            html.contains(&format!(
                "<th scope=\"col\" title=\"{label}\"><span class=\"clamp\">{label}</span></th>"
            )) || label == "Submitted"
                && html
                    .contains("<th scope=\"col\">Submitted (<span data-zone-name>UTC</span>)</th>"),
            "{label}"
        );
    }
    assert!(html.contains("<caption"));
    assert!(html.contains(&format!(
        "id=\"inbox\" data-refresh=\"{inbox}\" data-every=\"10\""
    )));
    assert!(html.contains(&format!("<a href=\"{inbox}\">Refresh</a>")));
    assert!(html.contains(&format!("href=\"{inbox}/export.csv\"")));
    assert!(html.contains(&format!("href=\"{inbox}/export.ndjson\"")));
    assert_eq!(people(&html), (5..30).rev().collect::<Vec<_>>());
    // Times with seconds, in UTC as sent (the column names the zone; the page's script
    // shows them on the computer's clock).
    assert!(
        html.contains(
            "<time datetime=\"2026-01-03T01:29:00.000Z\" data-local=\"bare\" data-seconds>2026-01-03 01:29:00</time>"
        ),
        "times with seconds: {html}"
    );

    // Keyset pages of 7: every response once, newest first, then Previous goes back.
    let mut seen = Vec::new();
    let mut pages = Vec::new();
    let mut next = Some(format!("{inbox}?per_page=7"));
    while let Some(url) = next {
        let page = dashboard.get(&url).await;
        assert_eq!(page.status, 200, "{url}: {}", page.text.clone());
        let html = page.text.clone();
        seen.extend(people(&html));
        next = link(&html, "next");
        pages.push((url, html));
        assert!(pages.len() < 10, "paging does not end");
    }
    assert_eq!(seen, (0..30).rev().collect::<Vec<_>>());
    assert_eq!(pages.len(), 5);
    assert!(pages[4].1.contains("rel=\"prev\""));
    let back = link(&pages[2].1, "prev").expect("a Previous link on page 3");
    let previous = dashboard.get(&back).await;
    assert_eq!(people(&previous.text.clone()), people(&pages[1].1));
    let back = link(&pages[1].1, "prev").expect("a Previous link on page 2");
    assert_eq!(
        people(&dashboard.get(&back).await.text.clone()),
        people(&pages[0].1)
    );
    assert!(link(&pages[0].1, "prev").is_none());

    // The date filter: whole UTC days, both ends included.
    let dates = |q: &str| format!("{inbox}?per_page=100&{q}");
    let cases: [(&str, Vec<usize>); 4] = [
        (
            "since=2026-01-02&until=2026-01-02",
            (10..20).rev().collect(),
        ),
        ("since=2026-01-03", (20..30).rev().collect()),
        ("until=2026-01-01", (0..10).rev().collect()),
        ("since=2026-01-04", vec![]),
    ];
    for (query, expected) in &cases {
        let page = dashboard.get(&dates(query)).await;
        assert_eq!(page.status, 200, "{query}");
        assert_eq!(&people(&page.text.clone()), expected, "{query}");
    }
    assert!(
        dashboard
            .get(&dates("since=2026-01-04"))
            .await
            .text
            .clone()
            .contains("No response in these dates.")
    );

    // Bad input is a page saying what to fix, never a 500.
    for (query, says) in [
        ("since=yesterday", "Enter the From date as a date"),
        ("until=2026-02-30", "Enter the To date as a date"),
        ("since=2026-01-03&until=2026-01-02", "must not be before"),
        ("per_page=0", "Rows per page"),
        ("per_page=101", "Rows per page"),
        ("cursor=AAAA", "not valid"),
    ] {
        let page = dashboard.get(&format!("{inbox}?{query}")).await;
        assert_eq!(page.status, 422, "{query}");
        assert!(
            page.text.clone().contains(says),
            "{query}: {}",
            page.text.clone()
        );
    }
    // A cursor changed by one character is refused too.
    let second = &pages[1].0;
    let at = second.find("cursor=").expect("cursor") + 7;
    let mut tampered = second.clone();
    let flipped = if &second[at..=at] == "A" { "B" } else { "A" };
    tampered.replace_range(at..=at, flipped);
    assert_eq!(dashboard.get(&tampered).await.status, 422);

    // Downloads: attachments with the filter applied.
    let csv = dashboard
        .get(&format!(
            "{inbox}/export.csv?since=2026-01-02&until=2026-01-02"
        ))
        .await;
    assert_eq!(csv.status, 200);
    assert_eq!(csv.header("content-type"), "text/csv; charset=utf-8");
    assert_eq!(
        csv.header("content-disposition"),
        format!("attachment; filename=\"responses-{form_id}.csv\"")
    );
    assert_eq!(csv.header("x-content-type-options"), "nosniff");
    let text = csv.text.clone();
    assert!(text.starts_with("Response ID,Submitted at,"), "{text}");
    assert!(
        text.lines()
            .next()
            .unwrap_or("")
            .ends_with(",Name,Email,Age,Bio,Language"),
        "{text}"
    );
    assert_eq!(people(&text), (10..20).collect::<Vec<_>>(), "oldest first");
    let ndjson = dashboard
        .get(&format!("{inbox}/export.ndjson?until=2026-01-01"))
        .await;
    assert_eq!(ndjson.status, 200);
    assert_eq!(ndjson.header("content-type"), "application/x-ndjson");
    assert_eq!(
        ndjson.header("content-disposition"),
        format!("attachment; filename=\"responses-{form_id}.ndjson\"")
    );
    let rows: Vec<Value> = ndjson
        .text
        .clone()
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(rows.len(), 10);
    assert_eq!(rows[0]["form_id"], form_id.as_str());
    // A filter the download can not take leads back to the inbox, filter kept, where
    // what to fix is said beside it (never a raw error page).
    let refused = dashboard
        .get(&format!("{inbox}/export.csv?since=nope&q=x"))
        .await;
    assert_eq!(refused.status, 303, "{}", refused.text);
    assert_eq!(
        refused.header("location"),
        format!("{inbox}?since=nope&q=x")
    );
    let page = dashboard.get(refused.header("location")).await;
    assert_eq!(page.status, 422);
    assert!(page.text.contains("id=\"since-error\""), "{}", page.text);
    assert!(page.text.contains("value=\"nope\""), "{}", page.text);

    // A form without responses says so.
    let empty = published_form(&app, &key, contact_fields(), Value::Null).await;
    let page = dashboard
        .get(&format!(
            "/app/forms/{}/responses",
            empty["id"].as_str().expect("id")
        ))
        .await;
    assert_eq!(page.status, 200);
    assert!(page.text.clone().contains("No responses yet."));
}

#[tokio::test]
async fn the_detail_shows_answers_by_label_device_times_metadata_and_files() {
    let app = dashboard_app(&[]).await;
    let (key, dashboard) = owner(&app).await;
    let fields = json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "file_upload", "label": "Photo", "required": false, "allowed_types": ["png"], "max_size_mb": 1},
        {"type": "long_text", "label": "Notes", "required": false},
    ]);
    let form = published_form(&app, &key, fields, Value::Null).await;
    let form_id = form["id"].as_str().expect("form id").to_owned();
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let f = field_ids(&form);

    // Through the hosted page, with a desktop Chrome browser and a file.
    let mut visitor = Visitor::new(&app);
    let token = visitor.open(&short_id).await.token();
    let page = visitor
        .submit_multipart(
            &short_id,
            &[
                ("_token", &token),
                (&f[0], "Ada <Lovelace>"),
                (&f[2], "line one"),
            ],
            &[(&f[1], "me.png", PNG)],
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.html);
    assert!(DESKTOP.contains("Chrome"));

    let inbox = format!("/app/forms/{form_id}/responses");
    let html = dashboard.get(&inbox).await.text.clone();
    assert!(html.contains("Ada &lt;Lovelace&gt;"), "escaped: {html}");
    assert!(
        html.contains("download>me.png</a> <span class=\"muted nowrap\">("),
        "files as links with their name and size: {html}"
    );
    let start = html
        .find("<td class=\"nowrap\"><a href=\"")
        .expect("a row link")
        + 28;
    let end = html[start..].find('"').expect("href end");
    let detail_url = html[start..start + end].to_owned();

    let detail = dashboard.get(&detail_url).await;
    assert_eq!(detail.status, 200);
    let html = detail.text.clone();
    for expected in [
        "<dt>Name</dt><dd><span class=\"answer\">Ada &lt;Lovelace&gt;</span></dd>",
        "<dt>Notes</dt><dd><span class=\"answer\">line one</span></dd>",
        "<dt>Device</dt><dd>desktop</dd>",
        "<dt>Browser</dt><dd>Chrome</dd>",
        "<dt>Operating system</dt><dd>Windows</dd>",
        "<dt>Source</dt><dd>Hosted page</dd>",
        "<dt>Photo</dt><dd><a href=\"",
    ] {
        assert!(html.contains(expected), "{expected}: {html}");
    }
    let timed = html
        .find("<dt>Completion time</dt><dd>")
        .expect("completion time")
        + 28;
    assert!(
        html[timed..]
            .split("</dd>")
            .next()
            .is_some_and(|t| t.ends_with(" s")),
        "{html}"
    );
    // The file downloads with its name and stored media type.
    let start = html
        .find("<dt>Photo</dt><dd><a href=\"")
        .expect("file link")
        + 27;
    let end = html[start..].find('"').expect("href end");
    let file_url = html[start..start + end].to_owned();
    assert!(
        file_url.starts_with(&format!("{detail_url}/files/")),
        "{file_url}"
    );
    let file = dashboard.download(&file_url).await;
    assert_eq!(file.status, 200);
    assert_eq!(file.body, PNG);
    assert_eq!(file.header("content-type"), "image/png");
    assert_eq!(
        file.header("content-disposition"),
        "attachment; filename=\"me.png\""
    );
    assert_eq!(file.header("x-content-type-options"), "nosniff");
    let missing = format!("{detail_url}/files/{}", Uuid::new_v4());
    assert_eq!(dashboard.get(&missing).await.status, 404);

    // Through the API, with metadata; then a field removed from the form keeps its
    // answer under its id.
    let reply = app
        .post(
            &format!("/forms/{form_id}/responses"),
            &key,
            &json!({"answers": {f[0].clone(): "Grace", f[2].clone(): "kept"}, "metadata": {"campaign": "spring"}}),
        )
        .await;
    let id = reply.ok(201)["response"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    sqlx::query("UPDATE responses SET started_at = submitted_at - interval '72 seconds', completion_time_seconds = 72 WHERE id = $1")
        .bind(Uuid::parse_str(&id).expect("uuid"))
        .execute(&app.pool)
        .await
        .expect("timing");
    let kept: Vec<Value> = form["fields"].as_array().expect("fields")[..2].to_vec();
    let updated = app
        .put(&format!("/forms/{form_id}"), &key, &json!({"fields": kept}))
        .await;
    updated.ok(200);
    let html = dashboard.get(&format!("{inbox}/{id}")).await.text.clone();
    for expected in [
        "<dt>Name</dt><dd><span class=\"answer\">Grace</span></dd>",
        "<dt>Photo</dt><dd><span class=\"muted\">No answer</span></dd>",
        "<dt>A question removed from the form</dt><dd><span class=\"answer\">kept</span></dd>",
        "<dt>Source</dt><dd>API</dd>",
        "<dt>Metadata <code>campaign</code></dt><dd><span class=\"answer\">spring</span></dd>",
        "<dt>Completion time</dt><dd>1 min 12 s</dd>",
        "<dt>Device</dt><dd>—</dd>",
    ] {
        assert!(html.contains(expected), "{expected}: {html}");
    }
    // An unknown response of the form is 404.
    assert_eq!(
        dashboard
            .get(&format!("{inbox}/{}", Uuid::new_v4()))
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn deleting_needs_the_csrf_token_and_the_confirmation_and_others_get_404() {
    let app = dashboard_app(&[]).await;
    let (key, dashboard) = owner(&app).await;
    let (_, stranger) = owner(&app).await;
    let fields = json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "file_upload", "label": "Photo", "required": true, "allowed_types": ["png"], "max_size_mb": 1},
    ]);
    let form = published_form(&app, &key, fields, Value::Null).await;
    let form_id = form["id"].as_str().expect("form id").to_owned();
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let f = field_ids(&form);
    let mut visitor = Visitor::new(&app);
    let token = visitor.open(&short_id).await.token();
    let page = visitor
        .submit_multipart(
            &short_id,
            &[("_token", &token), (&f[0], "Ada")],
            &[(&f[1], "me.png", PNG)],
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.html);
    let list = app.get(&format!("/forms/{form_id}/responses"), &key).await;
    let response = list.ok(200)["responses"][0].clone();
    let id = response["id"].as_str().expect("id").to_owned();
    let file_id = response["answers"][&f[1]]["file_id"]
        .as_str()
        .expect("file")
        .to_owned();
    let inbox = format!("/app/forms/{form_id}/responses");
    let detail = format!("{inbox}/{id}");
    let delete = format!("{detail}/delete");
    let still_there = || async {
        app.get(&format!("/forms/{form_id}/responses/{id}"), &key)
            .await
            .status
            == 200
    };

    // Another account: 404 on every page, file, download and the delete.
    for path in [
        inbox.clone(),
        detail.clone(),
        format!("{detail}/files/{file_id}"),
        format!("{inbox}/export.csv"),
        format!("{inbox}/export.ndjson"),
    ] {
        let page = stranger.download(&path).await;
        assert_eq!(page.status, 404, "{path}");
        assert!(!page.text().contains("Ada"), "{path}");
        assert!(page.body != PNG, "{path}");
    }
    let refused = stranger.post(&delete, &[("confirm", "yes")]).await;
    assert_eq!(refused.status, 404);
    assert!(still_there().await);

    // The owner: the detail has the form; a wrong or missing token changes nothing.
    let page = dashboard.get(&detail).await.text.clone();
    assert!(page.contains(&format!("action=\"{delete}\"")));
    assert!(page.contains("name=\"confirm\" type=\"checkbox\" value=\"yes\" required"));
    for csrf in ["wrong", ""] {
        let refused = dashboard
            .post(&delete, &[("_csrf", csrf), ("confirm", "yes")])
            .await;
        assert_eq!(refused.status, 403, "csrf {csrf:?}");
        assert!(still_there().await);
    }
    // Another session's token is not this one's.
    let refused = dashboard
        .post(&delete, &[("_csrf", &stranger.csrf), ("confirm", "yes")])
        .await;
    assert_eq!(refused.status, 403);
    // Without the confirmation box, nothing is deleted either.
    let unconfirmed = dashboard.post(&delete, &[]).await;
    assert_eq!(unconfirmed.status, 422);
    assert!(unconfirmed.text.clone().contains("to confirm"));
    assert!(still_there().await);

    let deleted = dashboard.post(&delete, &[("confirm", "yes")]).await;
    assert_eq!(deleted.status, 303);
    assert_eq!(deleted.header("location"), format!("{inbox}?done=deleted"));
    assert!(!still_there().await);
    let page = dashboard.get(&format!("{inbox}?done=deleted")).await;
    assert!(page.text.clone().contains("The response was deleted."));
    assert!(page.text.clone().contains("No responses yet."));
    assert_eq!(dashboard.get(&detail).await.status, 404);
    assert_eq!(
        dashboard
            .get(&format!("{detail}/files/{file_id}"))
            .await
            .status,
        404
    );
    // `done` never echoes free text.
    let page = dashboard.get(&format!("{inbox}?done=%3Cb%3Ehacked")).await;
    assert!(!page.text.clone().contains("hacked"));
}

#[tokio::test]
async fn the_inbox_searches_answers_and_downloads_what_it_shows() {
    let app = dashboard_app(&[]).await;
    let (key, dashboard) = owner(&app).await;
    let (form_id, _) = form_with_responses(&app, &key, 30).await;
    let inbox = format!("/app/forms/{form_id}/responses");
    let page = dashboard.get(&format!("{inbox}?q=PERSON%202")).await;
    assert_eq!(page.status, 200, "{}", page.text.clone());
    let html = page.text.clone();
    let want: Vec<usize> = (0..30)
        .rev()
        .filter(|n| format!("Person {n}").contains("Person 2"))
        .collect();
    assert_eq!(people(&html), want);
    assert!(html.contains("role=\"search\""));
    assert!(
        html.contains("value=\"PERSON 2\""),
        "the search stays in its box"
    );
    // The downloads carry the search.
    assert!(
        html.contains(&format!("href=\"{inbox}/export.csv?q=PERSON+2\"")),
        "{html}"
    );
    let csv = dashboard
        .get(&format!("{inbox}/export.csv?q=PERSON+2"))
        .await
        .text
        .clone();
    assert_eq!(csv.lines().count(), 1 + want.len(), "{csv}");
    // Nothing found says so.
    let none = dashboard
        .get(&format!("{inbox}?q=nobody"))
        .await
        .text
        .clone();
    assert!(none.contains("No response matches this search."));

    // A condition on one answer: the email is one, or contains a part.
    let form = app.get(&format!("/forms/{form_id}"), &key).await.ok(200)["form"].clone();
    let email = field_ids(&form)[1].clone();
    let page = dashboard
        .get(&format!(
            "{inbox}?field={email}&op=eq&value=P7%40EXAMPLE.COM"
        ))
        .await;
    assert_eq!(people(&page.text.clone()), [7]);
    assert!(
        page.text.contains(&format!(
            "<option value=\"{email}\" selected>Email</option>"
        )),
        "{}",
        page.text.clone()
    );
    let page = dashboard
        .get(&format!(
            "{inbox}?field={email}&op=contains&value=p1&q=person"
        ))
        .await;
    let want: Vec<usize> = (0..30)
        .rev()
        .filter(|n| format!("p{n}@").starts_with("p1"))
        .collect();
    assert_eq!(people(&page.text.clone()), want);
    // A value the field can not take: the inbox again, the mistake beside the value
    // (dashboard_results checks the words and what is kept).
    let age = field_ids(&form)[2].clone();
    let page = dashboard
        .get(&format!("{inbox}?field={age}&op=gte&value=old"))
        .await;
    assert_eq!(page.status, 422, "{}", page.text.clone());
    assert!(
        page.text
            .contains("id=\"value-error\" role=\"alert\">For “Age”, enter a number")
    );
    let page = dashboard.get(&format!("{inbox}?field={age}&op=gte")).await;
    assert!(
        page.text
            .contains("id=\"value-error\" role=\"alert\">Give a value")
    );
}
