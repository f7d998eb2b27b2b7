//! The hosted page on a phone (issue 32, "Controls that fit a thumb"): Chromium at
//! 390×844 (`tests/browser/thumb.mjs`) answers a form of every kind over three pages (a
//! fourth, for teams, skipped): every choice's target is at least 44×44 px (the 0-10
//! scale's 24×44, all eleven on one line), "Other"'s box waits for "Other", Back then
//! Next keeps what was typed, the progress never skips a number and the thank-you page
//! says it once, and a file chosen before a refused Submit is kept without being chosen
//! again. Screenshots of a page of every kind and of the thank-you page go to
//! `target/screenshots/`.

use crate::fixtures::*;
use crate::hosted_pages::Paged;
use serde_json::{Value, json};

/// Four pages of every kind; the third is for teams only, so a "Pro" visitor sees three.
fn every_kind() -> Value {
    json!([
        {"type": "page_break", "label": "About you"},
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "single_choice", "label": "Plan", "required": true, "ref": "plan", "allow_other": true,
         "options": [{"label": "Free"}, {"label": "Pro"}, {"label": "Team"}]},
        {"type": "multiple_choice", "label": "Extras", "allow_other": true,
         "options": [{"label": "Stickers"}, {"label": "Training"}, {"label": "Support"}]},
        {"type": "dropdown", "label": "Size",
         "options": [{"label": "Small"}, {"label": "Large"}]},
        {"type": "checkbox", "label": "Send me news"},
        {"type": "page_break", "label": "Your view"},
        {"type": "rating", "label": "How was it?", "max": 5},
        {"type": "scale", "label": "Would you recommend us?", "min": 0, "max": 10,
         "min_label": "Not at all", "max_label": "Certainly"},
        {"type": "long_text", "label": "Tell us more"},
        {"type": "number", "label": "Seats"},
        {"type": "date", "label": "Start"},
        {"type": "url", "label": "Website"},
        {"type": "phone", "label": "Phone"},
        {"type": "page_break", "label": "Your team",
         "show_if": [{"field": "plan", "op": "equals", "value": "Team"}]},
        {"type": "short_text", "label": "Team name"},
        {"type": "page_break", "label": "Last step"},
        {"type": "file_upload", "label": "CV", "allowed_types": ["png", "pdf"], "max_size_mb": 1},
        {"type": "email", "label": "Email", "required": true},
    ])
}

#[tokio::test]
async fn chromium_at_phone_width_answers_every_kind_with_a_thumb() {
    if !crate::browser::browser_available() {
        return;
    }
    let p = Paged::new(every_kind()).await;
    // The same questions on one page, for the screenshots.
    let fields: Vec<Value> = every_kind()
        .as_array()
        .expect("fields")
        .iter()
        .filter(|f| f["type"] != "page_break")
        .cloned()
        .collect();
    let one = published_form(&p.app, &p.key, json!(fields), json!({})).await;
    let one_url = format!("{}/f/{}", p.origin(), one["short_id"].as_str().expect("id"));
    let shots = concat!(env!("CARGO_MANIFEST_DIR"), "/target/screenshots");
    std::fs::create_dir_all(shots).expect("screenshots folder");
    let dir = tempfile::tempdir().expect("temp dir");
    let cv = dir.path().join("cv.png");
    std::fs::write(&cv, crate::uploads::PNG).expect("writing the file");

    let url = format!("{}/f/{}", p.origin(), p.short_id());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/thumb.mjs");
    let seen: Value =
        crate::fixtures::run_browser_script(&[&script, &url, &cv, &one_url, &shots]).await;
    assert_eq!(seen["cspViolations"], json!([]), "{seen}");
    assert_eq!(seen["overflow"], false, "{seen}");
    assert_eq!(seen["axe"], json!([]), "{seen}");
    assert_eq!(seen["small"], json!([]), "targets under 44×44: {seen}");
    assert_eq!(seen["scale"]["count"], 11, "{seen}");
    assert_eq!(seen["scale"]["lines"], 1, "{seen}");
    assert!(seen["scale"]["right"].as_i64() <= Some(390), "{seen}");
    assert!(seen["scale"]["narrowest"].as_i64() >= Some(24), "{seen}");
    assert_eq!(
        seen["otherShown"],
        json!({"before": false, "chosen": true, "after": false}),
        "{seen}"
    );
    assert_eq!(seen["keyChose"], true, "{seen}");
    assert_eq!(
        seen["keptAfterBack"],
        json!({"text": "Typed before Back", "stars": true, "scale": true, "name": "Ada"}),
        "{seen}"
    );
    // The progress: one more each page forward, one less on Back, never a page skipped.
    assert_eq!(
        seen["steps"],
        json!([
            "Page 1 of 3",
            "Page 2 of 3",
            "Page 1 of 3",
            "Page 2 of 3",
            "Page 3 of 3",
            "Page 3 of 3"
        ]),
        "{seen}"
    );
    // The file chosen before the refused Submit: named on the refused page, ticked to
    // keep, and the response's without choosing it again.
    let kept = seen["fileAfterRefusal"].as_str().unwrap_or_default();
    assert!(kept.contains("Keep the file you chose: cv.png"), "{seen}");
    let thanks = seen["thanks"]["text"].as_str().unwrap_or_default();
    assert_eq!(thanks.matches("Thank").count(), 1, "thanked once: {seen}");

    let responses = p.responses("").await;
    assert_eq!(responses.len(), 1, "{responses:?}");
    let answers = &responses[0]["answers"];
    assert_eq!(
        answers[p.id("Tell us more")],
        "Typed before Back",
        "{answers}"
    );
    assert_eq!(answers[p.id("How was it?")], json!(4), "{answers}");
    assert_eq!(answers[p.id("CV")]["name"], "cv.png", "{answers}");
    assert_eq!(
        answers[p.id("Would you recommend us?")],
        json!(9),
        "{answers}"
    );
    assert_eq!(
        answers[p.id("Extras")],
        json!([p.option("Extras", "Support")]),
        "{answers}"
    );
}
