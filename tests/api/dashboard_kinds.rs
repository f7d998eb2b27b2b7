//! The dashboard's builder with the new field kinds: a single choice added with its
//! options (one per line), then edited with its option ids kept across a rename; a
//! rating, a scale and a date with their bounds; the preview draws them. Read back
//! through the REST API.

use crate::dashboard_session::signed_in;
use crate::harness::*;
use serde_json::{Value, json};
use uuid::Uuid;

fn option_ids(field: &Value) -> Vec<(String, String)> {
    field["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|o| {
            (
                o["id"].as_str().expect("option id").to_owned(),
                o["label"].as_str().expect("option label").to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn the_builder_adds_and_edits_choice_rating_scale_and_date_fields() {
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &format!("acct-{}", Uuid::new_v4().simple())).await;
    let id = d.create_form("Kinds").await;
    let page_path = format!("/app/forms/{id}");
    let add = format!("{page_path}/fields");
    let rest = || async { app.get(&format!("/forms/{id}"), &d.key).await.ok(200)["form"].clone() };

    let page = d.get(&page_path).await;
    for kind in [
        "single_choice",
        "dropdown",
        "multiple_choice",
        "rating",
        "scale",
        "date",
        "url",
        "phone",
        "checkbox",
        "hidden",
    ] {
        assert!(
            page.text
                .contains(&format!(r#"name="kind" value="{kind}""#)),
            "{kind}"
        );
    }
    let added = d
        .post(
            &add,
            &[
                ("kind", "single_choice"),
                ("label", "Colour"),
                ("options", "Red\r\n Green \r\n\r\nBlue\r\n"),
                ("allow_other", "on"),
                ("required", "on"),
            ],
        )
        .await;
    assert_eq!(added.status, 303, "{}", added.text);
    let form = rest().await;
    let colour = &form["fields"][0];
    assert_eq!(colour["type"], "single_choice");
    assert_eq!(colour["allow_other"], true);
    let options = option_ids(colour);
    let labels: Vec<&str> = options.iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(labels, ["Red", "Green", "Blue"]);
    assert!(options.iter().all(|(id, _)| !id.is_empty()));

    // Edit: Green renamed (its id kept), Blue removed, Purple added, "Other" off.
    let field_id = colour["id"].as_str().expect("field id");
    let page = d.get(&format!("{page_path}?edit={field_id}")).await;
    assert!(
        page.text.contains(&format!(r#"value="{}""#, options[1].0)),
        "option ids in the page"
    );
    assert!(
        page.text.contains("type=\"radio\""),
        "the preview draws radios"
    );
    let edited = d
        .post(
            &format!("{page_path}/fields/{field_id}"),
            &[
                ("label", "Colour"),
                ("option_id", &options[0].0),
                ("option_label", "Red"),
                ("option_id", &options[1].0),
                ("option_label", "Lime"),
                ("option_id", &options[2].0),
                ("option_label", ""),
                ("options", "Purple"),
            ],
        )
        .await;
    assert_eq!(edited.status, 303, "{}", edited.text);
    let form = rest().await;
    let colour = &form["fields"][0];
    assert_ne!(colour["allow_other"], true, "{colour}");
    let after = option_ids(colour);
    assert_eq!(after[0], options[0]);
    assert_eq!(after[1], (options[1].0.clone(), "Lime".to_owned()));
    assert_eq!(after[2].1, "Purple");
    assert_eq!(after.len(), 3);

    // Rating, scale and date with their bounds.
    for fields in [
        vec![("kind", "rating"), ("label", "Stars"), ("max", "4")],
        vec![
            ("kind", "scale"),
            ("label", "NPS"),
            ("min", "1"),
            ("max", "7"),
            ("min_label", "No"),
            ("max_label", "Yes"),
        ],
        vec![
            ("kind", "date"),
            ("label", "Arrival"),
            ("min", "2026-01-01"),
            ("max", ""),
        ],
    ] {
        let reply = d.post(&add, &fields).await;
        assert_eq!(reply.status, 303, "{}", reply.text);
    }
    let form = rest().await;
    let f = &form["fields"];
    assert_eq!(f[1]["max"], json!(4));
    assert_eq!(
        (f[2]["min"].clone(), f[2]["max"].clone()),
        (json!(1), json!(7))
    );
    assert_eq!(
        (f[2]["min_label"].clone(), f[2]["max_label"].clone()),
        (json!("No"), json!("Yes"))
    );
    assert_eq!(f[3]["min"], json!("2026-01-01"));
    let page = d.get(&page_path).await;
    assert!(
        page.text.contains("4 stars") && page.text.contains("7 (Yes)"),
        "the preview draws the ranges"
    );
    // The other kinds, then the page (builder and preview of every kind) in Chromium:
    // no serious axe-core violation, no CSP violation.
    for (kind, label) in [
        ("dropdown", "Country"),
        ("multiple_choice", "Toppings"),
        ("checkbox", "I agree"),
        ("hidden", "utm_source"),
        ("url", "Website"),
        ("phone", "Phone"),
    ] {
        let mut fields = vec![("kind", kind), ("label", label)];
        if kind.ends_with("_choice") || kind == "dropdown" {
            fields.extend([("options", "One\nTwo"), ("allow_other", "on")]);
        }
        let reply = d.post(&add, &fields).await;
        assert_eq!(reply.status, 303, "{}", reply.text);
    }
    if crate::browser::browser_available() {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/axe_page.mjs");
        let output = tokio::process::Command::new("node")
            .args([script, &format!("{}{page_path}", d.base), &d.cookie])
            .output()
            .await
            .expect("running node");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let seen: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        assert_eq!(seen["status"], 200, "{seen}");
        assert_eq!(seen["axe"], json!([]), "{seen}");
        assert_eq!(seen["cspViolations"], json!([]), "{seen}");
    }
    // A bound that is not a number is a problem to fix, not a 500.
    let bad = d
        .post(
            &add,
            &[("kind", "rating"), ("label", "Bad"), ("max", "many")],
        )
        .await;
    assert_eq!(bad.status, 422, "{}", bad.text);
}
