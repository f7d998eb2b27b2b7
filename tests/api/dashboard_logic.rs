//! The dashboard's builder with pages and conditions, end to end over HTTP: a page break
//! added (drawn as a divider titled by its label), a field's `ref` set, conditions added
//! through the "Show this field only if" editor (a typed option label on the blank row,
//! then the options as a select or checkboxes), one removed, each shown in words; bad
//! logic and removing a field that a condition reads come back on the page (422), not a
//! 500. What the pages did is read back through the REST API, and answered over it.

use crate::dashboard_session::signed_in;
use crate::harness::*;
use serde_json::{Value, json};
use uuid::Uuid;

fn ids(form: &Value) -> Vec<String> {
    form["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| f["id"].as_str().expect("id").to_owned())
        .collect()
}

#[tokio::test]
async fn the_builder_adds_a_page_break_a_ref_and_conditions() {
    let app = TestApp::spawn().await;
    let d = signed_in(&app, &format!("acct-{}", Uuid::new_v4().simple())).await;
    let id = d.create_form("Trip").await;
    let page_path = format!("/app/forms/{id}");
    let add = format!("{page_path}/fields");
    let rest = || async { app.get(&format!("/forms/{id}"), &d.key).await.ok(200)["form"].clone() };

    let page = d.get(&page_path).await;
    assert!(page.text.contains(r#"name="kind" value="page_break""#));
    for fields in [
        vec![
            ("kind", "single_choice"),
            ("label", "Do you travel by car?"),
            ("options", "Yes\nNo"),
            ("required", "on"),
            ("ref", "by_car"),
        ],
        // A page break takes no placeholder and is never required: ignored, not refused.
        vec![
            ("kind", "page_break"),
            ("label", "Your car"),
            ("placeholder", "ignored"),
            ("required", "on"),
        ],
        vec![
            ("kind", "short_text"),
            ("label", "Plate"),
            ("required", "on"),
        ],
        vec![("kind", "rating"), ("label", "Comfort"), ("max", "5")],
    ] {
        let reply = d.post(&add, &fields).await;
        assert_eq!(reply.status, 303, "{fields:?}: {}", reply.text);
    }
    let form = rest().await;
    let [car, page_break, plate, comfort] = <[String; 4]>::try_from(ids(&form)).expect("4 fields");
    let f = &form["fields"];
    assert_eq!(f[0]["ref"], "by_car");
    assert_eq!(f[1]["type"], "page_break");
    assert_eq!(f[1]["required"], false);
    assert!(f[1].get("placeholder").is_none());
    let yes = f[0]["options"][0]["id"]
        .as_str()
        .expect("option id")
        .to_owned();
    let no = f[0]["options"][1]["id"]
        .as_str()
        .expect("option id")
        .to_owned();

    // The field list shows the pages as dividers, and the preview the break.
    let page = d.get(&page_path).await;
    assert!(
        page.text.contains(r#"<p class="page-divider">Page 1</p>"#),
        "page 1 divider"
    );
    assert!(page.text.contains("Page 2: Your car"), "page 2 divider");
    assert!(
        page.text
            .contains("Next page: <span data-pv-label>Your car</span>"),
        "the preview's break"
    );
    let open = d.get(&format!("{page_path}?edit={page_break}")).await;
    assert!(open.text.contains("Show this page only if"));

    // The page's condition, typed on the blank row by the option's label.
    let conditions = |field: &str| format!("{page_path}/fields/{field}/conditions");
    let reply = d
        .post(
            &conditions(&page_break),
            &[("field_0", &car), ("op_0", "equals"), ("value_0", "Yes")],
        )
        .await;
    assert_eq!(reply.status, 303, "{}", reply.text);
    assert!(reply.header("location").contains("done=conditions-saved"));
    let form = rest().await;
    assert_eq!(
        form["fields"][1]["show_if"],
        json!([{"field": car, "op": "equals", "value": yes}])
    );
    let page = d.get(&format!("{page_path}?edit={page_break}")).await;
    assert!(
        page.text
            .contains("This page is shown only if “Do you travel by car?” is “Yes”."),
        "the condition in words"
    );
    // Saved, the row's value is a select of the options, the saved one chosen.
    assert!(
        page.text
            .contains(&format!(r#"<option value="{yes}" selected>Yes</option>"#)),
        "a select of options"
    );

    // Two conditions on Comfort: Plate answered, and the car any of (ticked options).
    let reply = d
        .post(
            &conditions(&comfort),
            &[
                ("field_0", &plate),
                ("op_0", "answered"),
                ("value_0", ""),
                ("field_1", &car),
                ("op_1", "any_of"),
                ("value_1", &yes),
                ("value_1", &no),
            ],
        )
        .await;
    assert_eq!(reply.status, 303, "{}", reply.text);
    let form = rest().await;
    assert_eq!(
        form["fields"][3]["show_if"],
        json!([{"field": plate, "op": "answered"},
               {"field": car, "op": "any_of", "value": [yes, no]}])
    );
    let page = d.get(&page_path).await;
    assert!(
        page.text.contains(
            "Shown only if “Plate” is answered and “Do you travel by car?” is “Yes” or “No”."
        ),
        "two conditions in words"
    );
    // The first removed; the other kept.
    let reply = d
        .post(
            &conditions(&comfort),
            &[
                ("field_0", &plate),
                ("op_0", "answered"),
                ("remove", "0"),
                ("field_1", &car),
                ("op_1", "any_of"),
                ("value_1", &yes),
                ("field_2", ""),
                ("op_2", "equals"),
                ("value_2", ""),
            ],
        )
        .await;
    assert_eq!(reply.status, 303, "{}", reply.text);
    let form = rest().await;
    assert_eq!(
        form["fields"][3]["show_if"],
        json!([{"field": car, "op": "any_of", "value": [yes]}])
    );

    // The builder with pages, saved conditions (select and checkboxes) and the blank rows,
    // in Chromium: no serious axe-core violation, no CSP violation.
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

    // A ref set on an existing field; the conditions stay.
    let reply = d
        .post(
            &format!("{page_path}/fields/{comfort}"),
            &[("label", "Comfort"), ("max", "5"), ("ref", "comfort")],
        )
        .await;
    assert_eq!(reply.status, 303, "{}", reply.text);
    let form = rest().await;
    assert_eq!(form["fields"][3]["ref"], "comfort");
    assert_eq!(
        form["fields"][3]["show_if"].as_array().map(Vec::len),
        Some(1)
    );

    // Bad logic comes back on the page, saying what to fix, and nothing changes.
    for (rows, words) in [
        (
            vec![
                ("field_0", plate.as_str()),
                ("op_0", "greater_than"),
                ("value_0", "3"),
            ],
            "Field 4: condition 1: “is more than” does not apply to Short text questions",
        ),
        (
            vec![
                ("field_0", car.as_str()),
                ("op_0", "equals"),
                ("value_0", "Maybe"),
            ],
            "Field 4: condition 1: value must be one of the field's options",
        ),
        (
            vec![("field_0", comfort.as_str()), ("op_0", "answered")],
            "Field 4: condition 1: field must be a field that comes before this one",
        ),
        (
            vec![
                ("field_0", car.as_str()),
                ("op_0", "equals"),
                ("value_0", yes.as_str()),
                ("field_1", car.as_str()),
                ("op_1", "equals"),
                ("value_1", no.as_str()),
            ],
            "can never all hold",
        ),
    ] {
        let reply = d.post(&conditions(&comfort), &rows).await;
        assert_eq!(reply.status, 422, "{rows:?}: {}", reply.text);
        assert!(reply.text.contains("Nothing was saved."), "{rows:?}");
        assert!(
            reply.text.contains(words),
            "{rows:?}: {words} not in the page"
        );
    }
    let bad_ref = d
        .post(
            &format!("{page_path}/fields/{plate}"),
            &[("label", "Plate"), ("ref", "a plate")],
        )
        .await;
    assert_eq!(bad_ref.status, 422, "{}", bad_ref.text);
    assert!(bad_ref.text.contains("Field 3: ref must be"));
    // Removing the question the page's condition reads is refused, naming the condition.
    let removed = d
        .post(
            &format!("{page_path}/fields/{car}/remove"),
            &[("confirm", "yes")],
        )
        .await;
    assert_eq!(removed.status, 422, "{}", removed.text);
    assert!(
        removed.text.contains("condition 1: field"),
        "{}",
        removed.text
    );
    assert_eq!(
        ids(&rest().await),
        [car.clone(), page_break, plate.clone(), comfort.clone()]
    );

    // The logic the builder saved decides over the API: no car, no page 2.
    app.put(
        &format!("/forms/{id}"),
        &d.key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    let responses = format!("/forms/{id}/responses");
    app.post(&responses, &d.key, &json!({"answers": {car.clone(): no}}))
        .await
        .ok(201);
    let reply = app
        .post(
            &responses,
            &d.key,
            &json!({"answers": {car.clone(): no, comfort.clone(): 4}}),
        )
        .await;
    let message = reply.error(422, "VALIDATION_ERROR")["message"]
        .as_str()
        .expect("message");
    assert!(
        message.contains(&comfort) && message.contains("is not shown"),
        "{message}"
    );
    let reply = app
        .post(&responses, &d.key, &json!({"answers": {car.clone(): yes}}))
        .await;
    let message = reply.error(422, "VALIDATION_ERROR")["message"]
        .as_str()
        .expect("message");
    assert!(
        message.contains(&plate) && message.contains("is required"),
        "{message}"
    );
}
