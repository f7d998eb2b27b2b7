//! The dashboard's summary page (`/app/forms/{id}/summary`): the core's summary of a
//! form drawn for its owner. Its figures are those of responses sent in this test;
//! it is axe-core and CSP clean in Chromium; another account's form is not shown.

use crate::dashboard_session::{dashboard_app, signed_in};
use serde_json::{Value, json};

#[tokio::test]
async fn the_summary_page_shows_the_forms_figures() {
    let app = dashboard_app(&[]).await;
    let d = signed_in(&app, "summary-owner").await;
    let fields = json!([
        {"type": "single_choice", "label": "Favourite colour", "required": true,
         "options": [{"id": "red", "label": "Crimson"}, {"id": "blue", "label": "Azure"}]},
        {"type": "page_break", "label": "About us"},
        {"type": "scale", "label": "Recommend us?", "min": 0, "max": 10},
    ]);
    let form = app
        .create_form(&d.key, &json!({"title": "Colours", "fields": fields}))
        .await;
    let id = form["id"].as_str().expect("id").to_owned();
    app.put(
        &format!("/forms/{id}"),
        &d.key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    let ids: Vec<String> = form["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| f["id"].as_str().expect("id").to_owned())
        .collect();
    // Three say Crimson, one Azure; scores 10, 9, 3 (one promoter more than detractors).
    for (colour, score) in [
        ("red", Some(10)),
        ("red", Some(9)),
        ("red", Some(3)),
        ("blue", None),
    ] {
        let mut answers = json!({ ids[0].clone(): colour });
        if let Some(score) = score {
            answers[&ids[2]] = json!(score);
        }
        app.post(
            &format!("/forms/{id}/responses"),
            &d.key,
            &json!({ "answers": answers }),
        )
        .await
        .ok(201);
    }
    // Unfinished ones: two stopped at the first page, one at the second.
    for page in [1, 1, 2] {
        crate::dashboard_results::unfinished(&app, &id, &json!({}), page).await;
    }
    let path = format!("/app/forms/{id}/summary");
    let page = d.get(&path).await;
    assert_eq!(page.status, 200, "{}", page.text);
    let text = page.text;
    for needed in [
        "<strong>4</strong> completed",
        "<th scope=\"row\">Crimson</th>",
        "<td class=\"num\">3</td><td class=\"num\">75 %</td>",
        "<th scope=\"row\">Azure</th>",
        "<td class=\"num\">1</td><td class=\"num\">25 %</td>",
        // NPS: 2 promoters, 1 detractor of 3 answers.
        "Net Promoter Score <strong>33.3</strong>",
        "2 promoters (9–10, 67 %), 0 passives (7–8, 0 %), 1 detractor (0–6, 33 %)",
        "Responses per day",
        // Drop-off: 4 completed and 3 unfinished reached page 1; the 4 and the one
        // stopped there reached page 2.
        "<th scope=\"row\">Page 1</th><td class=\"num\">7</td><td class=\"num\">100 %</td><td class=\"num\">–</td>",
        "<th scope=\"row\">Page 2: About us</th><td class=\"num\">5</td><td class=\"num\">71 %</td><td class=\"num\">2 (29 %)</td>",
        "aria-label=\"Funnel of 2 pages: 7 reached the first, 5 the last (71 %)\"",
    ] {
        assert!(text.contains(needed), "{needed:?} missing in:\n{text}");
    }
    // The gauge's arc ends at the score, on a half circle from -100 to 100 (radius 80
    // about (100, 110)), and says it.
    let angle = std::f64::consts::PI * (100.0 - 33.3) / 200.0;
    let end = format!(
        "A 80 80 0 0 1 {:.1} {:.1}\"",
        100.0 + 80.0 * angle.cos(),
        110.0 - 80.0 * angle.sin()
    );
    assert!(text.contains(&end), "{end} missing in:\n{text}");
    assert!(text.contains(
        "aria-label=\"Net Promoter Score of Recommend us?: 33.3 on a scale from −100 to 100\""
    ));
    // The funnel's bars: the first page full width, the second 5/7 of it, centred.
    let second = 320.0 * 5.0 / 7.0;
    for bar in [
        "x=\"0.0\" y=\"0.0\" width=\"320.0\"".to_owned(),
        format!(
            "x=\"{:.1}\" y=\"38.0\" width=\"{second:.1}\"",
            (320.0 - second) / 2.0
        ),
    ] {
        assert!(text.contains(&bar), "{bar} missing in:\n{text}");
    }

    // Another account's form: not found, nothing of it shown.
    let stranger = signed_in(&app, "summary-stranger").await;
    let other = stranger.get(&path).await;
    assert_eq!(other.status, 404, "{}", other.text);
    assert!(!other.text.contains("Crimson"));

    if crate::browser::browser_available() {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/axe_page.mjs");
        let output = tokio::process::Command::new("node")
            .args([script, &format!("{}{path}", d.base), &d.cookie])
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
}

#[tokio::test]
async fn a_conditional_page_is_no_loss_and_one_day_is_no_slab() {
    let app = dashboard_app(&[]).await;
    let d = signed_in(&app, "summary-conditional").await;
    // Page 2 is shown only to those who answer "team"; page 3 to everyone.
    let fields = json!([
        {"type": "single_choice", "label": "Who are you?", "required": true, "ref": "who",
         "options": [{"id": "solo", "label": "On my own"}, {"id": "team", "label": "A team"}]},
        {"type": "page_break", "label": "Your team",
         "show_if": [{"field": "who", "op": "equals", "value": "team"}]},
        {"type": "short_text", "label": "Team name", "required": false},
        {"type": "page_break", "label": "Your opinion"},
        {"type": "short_text", "label": "Anything else?", "required": false},
    ]);
    let form = app
        .create_form(&d.key, &json!({"title": "Teams", "fields": fields}))
        .await;
    let id = form["id"].as_str().expect("id").to_owned();
    app.put(
        &format!("/forms/{id}"),
        &d.key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    let who = form["fields"][0]["id"].as_str().expect("id").to_owned();
    // One team, two on their own: 3 on page 1, 1 shown page 2, 3 on page 3.
    for answer in ["team", "solo", "solo"] {
        app.post(
            &format!("/forms/{id}/responses"),
            &d.key,
            &json!({"answers": {who.clone(): answer}}),
        )
        .await
        .ok(201);
    }
    let page = d.get(&format!("/app/forms/{id}/summary")).await;
    assert_eq!(page.status, 200, "{}", page.text);
    let text = page.text;
    for needed in [
        "<th scope=\"row\">Page 2: Your team</th><td class=\"num\">1</td><td class=\"num\">33 %</td><td class=\"num\"><span class=\"muted\">Shown only when its condition holds</span></td>",
        // Page 3 is compared with page 1, the last page everyone is shown.
        "<th scope=\"row\">Page 3: Your opinion</th><td class=\"num\">3</td><td class=\"num\">100 %</td><td class=\"num\">0 (0 %)</td>",
        // The conditional page's bar stands apart; no band joins it.
        "<rect class=\"for-some\"",
        // One day: a bar of a seventh of the width at most, the figures as text, a legend.
        "width=\"82.3\"",
        "<span>Busiest day: 3</span>",
        "<span class=\"swatch requests\"></span> Finished",
        "<span class=\"swatch errors\"></span> Unfinished",
    ] {
        assert!(text.contains(needed), "{needed:?} missing in:\n{text}");
    }
    assert!(
        !text.contains("-2 (") && !text.contains("−2"),
        "no negative loss:\n{text}"
    );
    assert!(
        !text.contains("funnel-band"),
        "no band to or from the conditional page:\n{text}"
    );
    assert!(
        !text.contains("<text"),
        "no text inside a chart to shrink at 390 px:\n{text}"
    );
}
