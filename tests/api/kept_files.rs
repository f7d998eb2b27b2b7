//! A file survives a refused page (issue 32 §1): a browser never fills a file input
//! again, so the refused page keeps the file chosen, names it with a ticked box, and
//! the next post attaches it without choosing it again; only for the visitor who chose
//! it, and a new file for the field replaces it.

use crate::fixtures::*;
use crate::harness::*;
use crate::hosted::{Page, Visitor};
use crate::uploads::PNG;
use serde_json::{Value, json};

fn fields() -> Value {
    json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "file_upload", "label": "Photo", "required": true, "allowed_types": ["png"]},
    ])
}

/// The token of the kept file of `field` on a refused page.
fn kept_token(page: &Page, field: &str) -> String {
    let name = format!("name=\"{field}:kept\" value=\"");
    let start = page
        .html
        .find(&name)
        .unwrap_or_else(|| panic!("no kept file for {field}: {}", page.html))
        + name.len();
    let end = page.html[start..].find('"').expect("end of value") + start;
    page.html[start..end].to_owned()
}

#[tokio::test]
async fn a_chosen_file_survives_a_refused_page() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, fields(), Value::Null).await;
    let (short_id, form_id) = (
        form["short_id"].as_str().expect("short id"),
        form["id"].as_str().expect("form id"),
    );
    let f = field_ids(&form);
    let kept_name = format!("{}:kept", f[1]);

    // The name is left out: refused, and the photo chosen is kept, ticked, named with
    // its size; the file input is no longer required.
    let mut visitor = Visitor::new(&app);
    let token = visitor.open(short_id).await.token();
    let refused = visitor
        .submit_multipart(
            short_id,
            &[("_token", &token), (&f[0], "")],
            &[(&f[1], "me.png", PNG)],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.html);
    assert!(
        refused.html.contains("Name is required"),
        "{}",
        refused.html
    );
    assert!(
        refused.html.contains(&format!(
            "Keep the file you chose: me.png ({} B)",
            PNG.len()
        )),
        "{}",
        refused.html
    );
    assert!(refused.html.contains("checked"));
    let file_input = format!("type=\"file\" id=\"f-{}\"", f[1]);
    let input_at = refused.html.find(&file_input).expect("the file input");
    let input_end = refused.html[input_at..].find('>').expect("input end") + input_at;
    assert!(
        !refused.html[input_at..input_end].contains("required"),
        "{}",
        &refused.html[input_at..input_end]
    );
    let kept = kept_token(&refused, &f[1]);

    // Someone else with the token (but not the visitor's cookie) attaches nothing.
    let mut stranger = Visitor::new(&app);
    let their_token = stranger.open(short_id).await.token();
    let theirs = stranger
        .submit_multipart(
            short_id,
            &[
                ("_token", &their_token),
                (&f[0], "Eve"),
                (&kept_name, &kept),
            ],
            &[],
        )
        .await;
    assert_eq!(theirs.status, 422, "{}", theirs.html);
    assert!(theirs.html.contains("Photo is required"), "{}", theirs.html);

    // The visitor fills in the name and sends the page with the box still ticked: the
    // photo is the response's, without being chosen again.
    let done = visitor
        .submit_multipart(
            short_id,
            &[
                ("_token", &refused.token()),
                (&f[0], "Ada"),
                (&kept_name, &kept),
            ],
            &[],
        )
        .await;
    assert_eq!(done.status, 200, "{}", done.html);
    let list = app.get(&format!("/forms/{form_id}/responses"), &key).await;
    let responses = list.ok(200)["responses"].clone();
    assert_eq!(responses.as_array().map(Vec::len), Some(1), "{responses}");
    let answer = &responses[0]["answers"][&f[1]];
    assert_eq!(answer["name"], "me.png");
    assert_eq!(answer["size"], PNG.len());
    let (attached, waiting): (i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE response_id IS NOT NULL),
                count(*) FILTER (WHERE response_id IS NULL) FROM response_files",
    )
    .fetch_one(&app.pool)
    .await
    .expect("count files");
    assert_eq!((attached, waiting), (1, 0));

    // A token already spent attaches nothing again.
    let again_token = visitor.open(short_id).await.token();
    let again = visitor
        .submit_multipart(
            short_id,
            &[
                ("_token", &again_token),
                (&f[0], "Ada"),
                (&kept_name, &kept),
            ],
            &[],
        )
        .await;
    assert_eq!(again.status, 422, "{}", again.html);
}

#[tokio::test]
async fn a_new_file_replaces_the_kept_one_and_an_unticked_box_sends_none() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, fields(), Value::Null).await;
    let (short_id, form_id) = (
        form["short_id"].as_str().expect("short id"),
        form["id"].as_str().expect("form id"),
    );
    let f = field_ids(&form);
    let kept_name = format!("{}:kept", f[1]);
    let mut visitor = Visitor::new(&app);
    let token = visitor.open(short_id).await.token();
    let refused = visitor
        .submit_multipart(
            short_id,
            &[("_token", &token), (&f[0], "")],
            &[(&f[1], "first.png", PNG)],
        )
        .await;
    assert_eq!(refused.status, 422);
    let kept = kept_token(&refused, &f[1]);

    // The box unticked (not posted) and no new file: the photo is required again.
    let unticked = visitor
        .submit_multipart(
            short_id,
            &[("_token", &refused.token()), (&f[0], "Ada")],
            &[],
        )
        .await;
    assert_eq!(unticked.status, 422, "{}", unticked.html);
    assert!(unticked.html.contains("Photo is required"));

    // Ticked, with a new file chosen: the new one is the answer.
    let done = visitor
        .submit_multipart(
            short_id,
            &[
                ("_token", &unticked.token()),
                (&f[0], "Ada"),
                (&kept_name, &kept),
            ],
            &[(&f[1], "second.png", PNG)],
        )
        .await;
    assert_eq!(done.status, 200, "{}", done.html);
    let list = app.get(&format!("/forms/{form_id}/responses"), &key).await;
    assert_eq!(
        list.ok(200)["responses"][0]["answers"][&f[1]]["name"],
        "second.png"
    );
}
