//! The builder as an owner uses it, in a real browser (`tests/browser/builder.mjs`): an
//! 18-question, 3-page survey with a condition built through the builder's own page
//! (palette, editor, conditions editor, keyboard moves, a drag), JavaScript on. It
//! prints the clicks and keystrokes that took and the page's height at 1280 px wide,
//! collapsed; it fails on a full page load while building, on a page taller than two
//! screens (1,800 px at 1280), on a serious or critical axe-core violation, on sideways
//! scrolling at 390 px, on a CSP violation, and on ids or API syntax in the words of
//! any step or view (issue 31 §5); a question deleted is undone, then deleted. Then
//! the form is read back through the REST API: what the page showed is what was saved. Screenshots land in
//! `target/builder-screenshots/`.

use crate::browser::browser_available;
use crate::dashboard_session::signed_in;
use crate::harness::*;
use serde_json::{Value, json};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/builder.mjs");
const SHOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/target/builder-screenshots");

#[tokio::test]
async fn an_owner_builds_a_three_page_survey_with_a_condition_in_the_builder() {
    if !browser_available() {
        return;
    }
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &format!("acct-{}", uuid::Uuid::new_v4().simple())).await;
    let output = tokio::process::Command::new("node")
        .args([SCRIPT, &d.base, &d.cookie, SHOTS])
        .output()
        .await
        .expect("running node");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let seen: Value = serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr)));
    println!(
        "builder: {} questions in {} clicks and {} keystrokes; height at 1280 collapsed {} px, open {} px; at 390 collapsed {} px",
        seen["questions"],
        seen["clicks"],
        seen["keystrokes"],
        seen["heights"]["collapsed-1280"],
        seen["heights"]["open-1280"],
        seen["heights"]["collapsed-390"],
    );
    assert!(
        seen["error"].is_null(),
        "failed at {}: {}\n{seen:#}",
        seen["failedStep"],
        seen["error"]
    );
    assert_eq!(seen["steps"].as_array().map(Vec::len), Some(8), "{seen:#}");
    // No id, API syntax or operator name in the words of any step or view (§5).
    assert_eq!(seen["forbidden"], json!({}), "{seen:#}");
    // A deleted question leaves at once with an Undo (focused); undone, it is back and
    // was never deleted; deleted again and left, the deletion is sent.
    assert_eq!(seen["toast"], "“Temporary” was deleted. Undo", "{seen:#}");
    assert_eq!(seen["hiddenAfterDelete"], true, "{seen:#}");
    assert_eq!(seen["undoFocused"], true, "{seen:#}");
    assert_eq!(seen["backAfterUndo"], true, "{seen:#}");
    assert_eq!(seen["keptOnServer"], true, "{seen:#}");
    // Sent as the button would send it: 303 back to the builder.
    assert_eq!(seen["removalStatus"], 303, "{seen:#}");
    assert_eq!(seen["goneAfterDelete"], true, "{seen:#}");
    assert_eq!(seen["questions"], 20, "18 questions and 2 page breaks");

    // With JavaScript on, adding, editing, conditions and moves never reload the page.
    assert_eq!(seen["fullLoadsWhileBuilding"], 0, "{seen:#}");
    assert_eq!(seen["sameDocument"], true, "{seen:#}");
    // The preview and the state follow the typing; a refusal keeps what was typed.
    assert_eq!(seen["previewFollows"], true, "{seen:#}");
    assert_eq!(seen["stateBeforeSave"], "Not saved yet");
    assert_eq!(seen["stateAfterSave"], "Saved");
    // Saved as it was typed, without a click, the focus and caret left where they were.
    assert_eq!(seen["autosaved"], true, "{seen:#}");
    assert_eq!(seen["focusAfterAutosave"], "Company name", "{seen:#}");
    let refusal = seen["refusal"].as_str().unwrap_or("");
    assert!(
        refusal.starts_with("Not saved: ") && refusal.contains("label is required"),
        "{refusal}"
    );
    assert_eq!(seen["keptTyped"], "   ");
    // A choice offers only a choice's comparisons, and its options as values.
    assert_eq!(
        seen["offered"],
        json!([
            "is",
            "is not",
            "is any of",
            "is answered",
            "is not answered"
        ])
    );
    assert_eq!(seen["values"], json!(["Free", "Pro", "Team"]));
    // The reference's pattern works in the browser (it compiles under the `v` flag).
    assert_eq!(seen["patterns"], json!(["ok"]), "{seen:#}");
    // The keyboard's move keeps the focus on the moved question's arrow.
    assert_eq!(seen["focusAfterMove"], "Move “Your website” up");

    // Two screens at 1280, collapsed; axe-clean, no sideways scroll, strict CSP.
    let height = seen["heights"]["collapsed-1280"]
        .as_i64()
        .unwrap_or(i64::MAX);
    assert!(height <= 1800, "the builder is {height} px tall at 1280");
    for (view, found) in seen["axe"].as_object().expect("axe") {
        assert_eq!(found, &json!([]), "{view}");
    }
    for (view, wide) in seen["overflow"].as_object().expect("overflow") {
        assert!(
            wide.as_i64().unwrap_or(i64::MAX) <= 1,
            "{view}: {wide} px sideways"
        );
    }
    assert_eq!(seen["cspViolations"], json!([]), "{seen:#}");

    // What the page showed is what the core keeps.
    let form_id = seen["formId"].as_str().expect("form id");
    let form = app.get(&format!("/forms/{form_id}"), &d.key).await.ok(200)["form"].clone();
    let fields = form["fields"].as_array().expect("fields");
    let labels: Vec<&str> = fields.iter().filter_map(|f| f["label"].as_str()).collect();
    let shown: Vec<&str> = seen["order"]
        .as_array()
        .expect("order")
        .iter()
        .filter_map(Value::as_str)
        .map(|l| {
            l.trim()
                .trim_start_matches("Page 2: ")
                .trim_start_matches("Page 3: ")
        })
        .collect();
    assert_eq!(labels, shown);
    assert_eq!(
        fields.iter().filter(|f| f["type"] == "page_break").count(),
        2
    );
    let at = |label: &str| {
        labels
            .iter()
            .position(|l| *l == label)
            .unwrap_or_else(|| panic!("no question {label:?} among {labels:?}\n{seen:#}"))
    };
    assert_eq!(at("Your website") + 1, at("Pro features"));
    assert_eq!(at("What should we build next?") + 1, at("Anything else?"));
    let plan = &fields[at("Plan")];
    let pro = plan["options"]
        .as_array()
        .expect("options")
        .iter()
        .find(|o| o["label"] == "Pro")
        .expect("Pro")["id"]
        .clone();
    assert_eq!(
        fields[at("Pro features")]["show_if"],
        json!([{"field": plan["id"], "op": "equals", "value": pro}]),
        "{:#}",
        fields[at("Pro features")]
    );
    assert_eq!(fields[at("Company name")]["label"], "Company name");
}

fn labels(form: &Value) -> Vec<String> {
    form["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .filter_map(|f| f["label"].as_str().map(str::to_owned))
        .collect()
}

/// The builder's plain posts, as a browser without JavaScript sends them: the palette
/// adds at a place and opens the new question; a choice comes with two options to
/// rename; a duplicate lands below its original with new ids; a whole new order is
/// taken only when it lists the form's questions; the conditions editor offers a
/// kind's comparisons only, and says a missing value before anything is sent.
#[tokio::test]
async fn the_palette_adds_at_a_place_duplicates_reorders_and_offers_comparisons_per_kind() {
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &format!("acct-{}", uuid::Uuid::new_v4().simple())).await;
    let id = d.create_form("Places").await;
    let base = format!("/app/forms/{id}");
    let rest = || async { app.get(&format!("/forms/{id}"), &d.key).await.ok(200)["form"].clone() };
    for label in ["First", "Last"] {
        let reply = d
            .post(
                &format!("{base}/fields"),
                &[("kind", "short_text"), ("label", label)],
            )
            .await;
        assert_eq!(reply.status, 303, "{}", reply.text);
    }
    // "Add a question here", before Last: the palette at that place, then the post.
    let page = d.get(&format!("{base}?add=1")).await;
    assert!(
        page.text.contains(r#"name="position" value="1""#),
        "{}",
        page.text
    );
    let reply = d
        .post(
            &format!("{base}/fields"),
            &[
                ("kind", "single_choice"),
                ("label", "Plan"),
                ("position", "1"),
            ],
        )
        .await;
    assert_eq!(reply.status, 303, "{}", reply.text);
    let form = rest().await;
    assert_eq!(labels(&form), ["First", "Plan", "Last"]);
    let plan = &form["fields"][1];
    let plan_id = plan["id"].as_str().expect("id").to_owned();
    assert_eq!(
        plan["options"]
            .as_array()
            .map(|o| o.iter().map(|o| o["label"].clone()).collect::<Vec<_>>()),
        Some(vec![json!("Option 1"), json!("Option 2")])
    );
    assert!(
        reply
            .header("location")
            .ends_with(&format!("&edit={plan_id}#q-{plan_id}")),
        "the new question opens: {}",
        reply.header("location")
    );

    // A refused edit shows the question as it was typed, open, to be corrected.
    let reply = d
        .post(
            &format!("{base}/fields/{plan_id}"),
            &[("label", "Your plan"), ("ref", "a plan")],
        )
        .await;
    assert_eq!(reply.status, 422, "{}", reply.text);
    assert!(reply.text.contains("Nothing was saved."), "{}", reply.text);
    assert!(reply.text.contains(&format!(r#"data-editor="{plan_id}""#)));
    assert!(
        reply.text.contains(r#"value="Your plan""#),
        "{}",
        reply.text
    );
    assert!(reply.text.contains(r#"value="a plan""#), "{}", reply.text);
    assert_eq!(rest().await["fields"][1]["label"], "Plan");

    // Duplicate: below the original, new ids for it and its options.
    let reply = d
        .post(&format!("{base}/fields/{plan_id}/duplicate"), &[])
        .await;
    assert_eq!(reply.status, 303, "{}", reply.text);
    let form = rest().await;
    assert_eq!(labels(&form), ["First", "Plan", "Plan (copy)", "Last"]);
    let (a, b) = (&form["fields"][1], &form["fields"][2]);
    assert_ne!(a["id"], b["id"]);
    assert_ne!(a["options"][0]["id"], b["options"][0]["id"]);
    assert_eq!(a["options"][0]["label"], b["options"][0]["label"]);

    // A new order: every question once, else refused and nothing changes.
    let ids: Vec<String> = form["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .filter_map(|f| f["id"].as_str().map(str::to_owned))
        .collect();
    let order = |list: &[&String]| -> Vec<(&'static str, String)> {
        list.iter().map(|i| ("order", (*i).clone())).collect()
    };
    let reversed = order(&[&ids[3], &ids[2], &ids[1], &ids[0]]);
    let pairs: Vec<(&str, &str)> = reversed.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let reply = d.post(&format!("{base}/order"), &pairs).await;
    assert_eq!(reply.status, 303, "{}", reply.text);
    assert_eq!(
        labels(&rest().await),
        ["Last", "Plan (copy)", "Plan", "First"]
    );
    let short = order(&[&ids[0], &ids[1]]);
    let pairs: Vec<(&str, &str)> = short.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let reply = d.post(&format!("{base}/order"), &pairs).await;
    assert_eq!(reply.status, 422, "{}", reply.text);
    assert!(reply.text.contains("changed meanwhile"), "{}", reply.text);
    assert_eq!(
        labels(&rest().await),
        ["Last", "Plan (copy)", "Plan", "First"]
    );

    // First, now last, may read Plan: a choice offers its comparisons and options only.
    let first = &ids[0];
    let page = d.get(&format!("{base}?edit={first}&when={plan_id}")).await;
    assert!(
        page.text
            .contains(r#"<option value="equals" selected>is</option>"#)
    );
    assert!(
        page.text
            .contains(r#"<option value="any_of">is any of</option>"#)
    );
    assert!(
        !page.text.contains(r#"value="greater_than""#),
        "no ordering on a choice"
    );
    assert!(
        !page.text.contains(r#"value="contains""#),
        "no text test on a choice"
    );
    assert!(page.text.contains(">Option 1</option>"));
    // The reference's pattern compiles under the browser's `v` flag (a lone `-` does not).
    assert!(page.text.contains(r#"pattern="[A-Za-z0-9_\-]{1,64}""#));
    // A comparison that needs a value, without one: said plainly, nothing sent.
    let reply = d
        .post(
            &format!("{base}/fields/{first}/conditions"),
            &[("field_0", plan_id.as_str()), ("op_0", "equals")],
        )
        .await;
    assert_eq!(reply.status, 422, "{}", reply.text);
    assert!(
        reply
            .text
            .contains("Condition 1: choose or type the answer to compare with."),
        "{}",
        reply.text
    );
    assert_eq!(rest().await["fields"][3]["show_if"], Value::Null);
}

/// On a touch screen "Add a question here" is there without hovering and a tap opens
/// the palette at its place; with JavaScript off, Delete asks on a page, then deletes
/// by a plain post.
#[tokio::test]
async fn the_builder_adds_on_a_touch_screen_and_deletes_without_script() {
    if !browser_available() {
        return;
    }
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &format!("acct-{}", uuid::Uuid::new_v4().simple())).await;
    let form = app
        .create_form(
            &d.key,
            &json!({"title": "Plain", "fields": [
                {"type": "short_text", "label": "First"},
                {"type": "short_text", "label": "Second"},
                {"type": "short_text", "label": "Third"},
            ]}),
        )
        .await;
    let form_id = form["id"].as_str().expect("id");
    let second = form["fields"][1]["id"].as_str().expect("field id");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/browser/builder_plain.mjs"
    );
    let args: [&dyn AsRef<std::ffi::OsStr>; 5] = [&script, &d.base, &d.cookie, &form_id, &second];
    let seen = crate::fixtures::run_browser_script(&args).await;
    assert_eq!(seen["touchHasNoHover"], true, "{seen}");
    assert_eq!(seen["addHereOpacity"], "1", "{seen}");
    assert_eq!(seen["paletteBefore"], "First", "{seen}");
    assert_eq!(
        (&seen["before"], &seen["after"]),
        (&json!(3), &json!(2)),
        "{seen}"
    );
    let reply = app.get(&format!("/forms/{form_id}"), &d.key).await;
    let stored = reply.ok(200);
    let labels: Vec<&str> = stored["form"]["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .filter_map(|f| f["label"].as_str())
        .collect();
    assert_eq!(labels, ["First", "Third"]);
}
