//! Pages and conditions (issue 20, part 2) over the real API: forms with pages and
//! `show_if` created with `ref`s over REST and gRPC (returned with ids); the matrix of
//! operators on every kind they apply to, the expected visibility computed by a plain
//! function here (`holds`), and the hidden-and-required rule (a hidden field's answer is
//! refused naming it, a hidden required field may be left out); a hidden page hiding its
//! fields and what hangs on them; bad logic refused at save, naming the property, on
//! create and on update; conditions kept across an update that keeps ids; and the
//! book's multi-page example, read from its page (docs/src/using/pages-and-conditions.md).

use crate::fixtures::*;
use crate::harness::*;
use forms::pb::{self, forms_service_client::FormsServiceClient};
use serde_json::{Map, Value, json};
use std::cmp::Ordering;
use std::collections::BTreeSet;
use tonic_types::StatusExt;

// ---------------------------------------------------------------------------------------
// The rule, written out plainly
// ---------------------------------------------------------------------------------------

/// Two answers are the same: text ignoring case and surrounding spaces, numbers as
/// numbers, anything else exactly.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x.trim().to_lowercase() == y.trim().to_lowercase(),
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// Numbers by value, dates (`YYYY-MM-DD`) as text, which orders them by day.
fn order(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64()?.partial_cmp(&y.as_f64()?),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// Whether `op value` holds of `answer` (None: unanswered), as the book states it.
fn holds(op: &str, value: &Value, answer: Option<&Value>) -> bool {
    let Some(answer) = answer else {
        // No answer: only "not equal" and "not answered" hold.
        return matches!(op, "not_equals" | "not_answered");
    };
    let listed = |v: &Value| match answer {
        Value::Array(ticked) => ticked.contains(v),
        a => same(a, v),
    };
    match op {
        "answered" => true,
        "not_answered" => false,
        "equals" => same(answer, value),
        "not_equals" => !same(answer, value),
        "any_of" => value.as_array().expect("a list").iter().any(listed),
        "contains" => match (answer, value) {
            (Value::Array(ticked), v) => ticked.contains(v),
            (Value::String(text), Value::String(part)) => {
                text.to_lowercase().contains(&part.to_lowercase())
            }
            _ => false,
        },
        "greater_than" => order(answer, value) == Some(Ordering::Greater),
        "less_than" => order(answer, value) == Some(Ordering::Less),
        other => panic!("no operator {other}"),
    }
}

// ---------------------------------------------------------------------------------------
// The matrix
// ---------------------------------------------------------------------------------------

/// The fields conditions read, one of each kind, all optional (so "unanswered" is a
/// case), by ref.
fn sources() -> Vec<Value> {
    vec![
        json!({"type": "single_choice", "ref": "choice", "label": "Choice",
               "options": [{"id": "yes", "label": "Yes"}, {"id": "no", "label": "No"}, {"id": "maybe", "label": "Maybe"}]}),
        json!({"type": "multiple_choice", "ref": "multi", "label": "Multi",
               "options": [{"id": "red", "label": "Red"}, {"id": "green", "label": "Green"}, {"id": "blue", "label": "Blue"}]}),
        json!({"type": "short_text", "ref": "text", "label": "Text"}),
        json!({"type": "number", "ref": "number", "label": "Number"}),
        json!({"type": "rating", "ref": "rating", "label": "Rating", "max": 5}),
        json!({"type": "scale", "ref": "scale", "label": "Scale"}),
        json!({"type": "date", "ref": "date", "label": "Date"}),
        json!({"type": "checkbox", "ref": "checkbox", "label": "Checkbox"}),
    ]
}

/// Every operator on every kind it applies to: (source ref, op, value; Null for none).
fn conditions() -> Vec<(&'static str, &'static str, Value)> {
    let mut all = Vec::new();
    let presence = |all: &mut Vec<(&'static str, &'static str, Value)>, source| {
        all.push((source, "answered", Value::Null));
        all.push((source, "not_answered", Value::Null));
    };
    for (op, value) in [
        ("equals", json!("yes")),
        ("not_equals", json!("yes")),
        ("any_of", json!(["yes", "maybe"])),
    ] {
        all.push(("choice", op, value));
    }
    presence(&mut all, "choice");
    for (op, value) in [
        ("contains", json!("green")),
        ("any_of", json!(["red", "blue"])),
    ] {
        all.push(("multi", op, value));
    }
    presence(&mut all, "multi");
    for (op, value) in [
        ("equals", json!("ada")),
        ("not_equals", json!("ada")),
        ("any_of", json!(["ada", "grace"])),
        ("contains", json!("LOVE")),
    ] {
        all.push(("text", op, value));
    }
    presence(&mut all, "text");
    for (op, value) in [
        ("equals", json!(3)),
        ("not_equals", json!(3)),
        ("greater_than", json!(2.5)),
        ("less_than", json!(10)),
    ] {
        all.push(("number", op, value));
    }
    presence(&mut all, "number");
    for (op, value) in [
        ("equals", json!(4)),
        ("not_equals", json!(4)),
        ("any_of", json!([1, 2])),
        ("greater_than", json!(3)),
        ("less_than", json!(3)),
    ] {
        all.push(("rating", op, value));
    }
    presence(&mut all, "rating");
    for (op, value) in [
        ("equals", json!(10)),
        ("not_equals", json!(0)),
        ("any_of", json!([9, 10])),
        ("greater_than", json!(6)),
        ("less_than", json!(7)),
    ] {
        all.push(("scale", op, value));
    }
    presence(&mut all, "scale");
    for (op, value) in [
        ("equals", json!("2026-06-01")),
        ("not_equals", json!("2026-06-01")),
        ("greater_than", json!("2026-01-01")),
        ("less_than", json!("2026-12-31")),
    ] {
        all.push(("date", op, value));
    }
    presence(&mut all, "date");
    for (op, value) in [
        ("equals", json!(true)),
        ("not_equals", json!(true)),
        ("equals", json!(false)),
    ] {
        all.push(("checkbox", op, value));
    }
    presence(&mut all, "checkbox");
    all
}

/// Answers to the sources, by ref (absent: unanswered), each set chosen so that every
/// condition above holds in one set and fails in another.
fn scenarios() -> Vec<Map<String, Value>> {
    let set = |v: Value| v.as_object().expect("object").clone();
    vec![
        Map::new(),
        set(
            json!({"choice": "yes", "multi": ["green"], "text": "Ada Lovelace", "number": 3,
                   "rating": 4, "scale": 10, "date": "2026-06-01", "checkbox": true}),
        ),
        set(
            json!({"choice": "no", "multi": ["red"], "text": " ADA ", "number": 2,
                   "rating": 1, "scale": 0, "date": "2025-12-31", "checkbox": false}),
        ),
        set(
            json!({"choice": "maybe", "multi": ["red", "green", "blue"], "text": "Grace",
                   "number": 11, "rating": 3, "scale": 6, "date": "2027-01-01"}),
        ),
        set(
            json!({"multi": ["blue"], "text": "Hopper", "number": 2.75, "rating": 5,
                   "scale": 7, "date": "2026-12-31", "checkbox": true}),
        ),
    ]
}

/// The dependent field of condition `n`: required, after every source.
fn dependent_label(n: usize) -> String {
    format!("Q{n:02}")
}

/// The field ids a VALIDATION_ERROR names ("answers.{id} (label) problem; ...").
fn named(reply: &Reply) -> BTreeSet<String> {
    let message = reply.error(422, "VALIDATION_ERROR")["message"]
        .as_str()
        .expect("message");
    message
        .split("; ")
        .filter_map(|part| part.strip_prefix("answers."))
        .filter_map(|rest| rest.split(' ').next())
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn the_matrix_of_conditions_and_the_hidden_and_required_rule() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let cases = conditions();
    let mut fields = sources();
    for (n, (source, op, value)) in cases.iter().enumerate() {
        let mut condition = json!({"field": source, "op": op});
        if !value.is_null() {
            condition["value"] = value.clone();
        }
        fields.push(json!({"type": "short_text", "label": dependent_label(n),
                           "required": true, "show_if": [condition]}));
    }
    let form = published_form(&app, &key, Value::Array(fields), Value::Null).await;
    let ids = field_ids(&form);
    let n_sources = sources().len();
    let source_id = |r: &str| -> String {
        let at = sources()
            .iter()
            .position(|f| f["ref"] == r)
            .expect("a source");
        ids[at].clone()
    };
    let dependent_id = |n: usize| ids[n_sources + n].clone();
    let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));

    for answers in scenarios() {
        // The conditions in words: which dependents this set of answers shows.
        let shown: Vec<bool> = cases
            .iter()
            .map(|(source, op, value)| holds(op, value, answers.get(*source)))
            .collect();
        let mut body: Map<String, Value> = answers
            .iter()
            .map(|(r, v)| (source_id(r), v.clone()))
            .collect();
        let visible: BTreeSet<String> = (0..cases.len())
            .filter(|n| shown[*n])
            .map(dependent_id)
            .collect();
        let hidden: BTreeSet<String> = (0..cases.len())
            .filter(|n| !shown[*n])
            .map(dependent_id)
            .collect();
        assert!(
            answers.is_empty() || (!visible.is_empty() && !hidden.is_empty()),
            "a scenario that tells nothing: {answers:?}"
        );

        // Shown and required, left out: each is named as required, and only those.
        let reply = app
            .post(&path, &key, &json!({"answers": body.clone()}))
            .await;
        if visible.is_empty() {
            reply.ok(201);
        } else {
            assert_eq!(named(&reply), visible, "required with {answers:?}");
        }

        // Every hidden one answered too: refused, naming each hidden one.
        for id in visible.iter().chain(&hidden) {
            body.insert(id.clone(), json!("an answer"));
        }
        let reply = app
            .post(&path, &key, &json!({"answers": body.clone()}))
            .await;
        if hidden.is_empty() {
            reply.ok(201);
        } else {
            assert_eq!(named(&reply), hidden, "hidden with {answers:?}");
            assert!(reply.text.contains("is not shown"), "{}", reply.text);
        }

        // The shown ones answered, the hidden (required) ones left out: accepted, and
        // stored as sent.
        for id in &hidden {
            body.remove(id);
        }
        let reply = app
            .post(&path, &key, &json!({"answers": body.clone()}))
            .await;
        let stored = reply.ok(201)["response"]["answers"].clone();
        for id in &visible {
            assert_eq!(stored[id], "an answer", "{answers:?}");
        }
        for id in &hidden {
            assert!(stored.get(id).is_none(), "{answers:?}");
        }
    }

    // Every condition both held and failed in some scenario (else a case tests nothing).
    for (source, op, value) in &cases {
        let outcomes: BTreeSet<bool> = scenarios()
            .iter()
            .map(|a| holds(op, value, a.get(*source)))
            .collect();
        assert_eq!(outcomes.len(), 2, "{source} {op} {value}");
    }
}

#[test]
fn the_plain_rule_reads_as_the_book_says() {
    assert!(holds("not_equals", &json!("yes"), None));
    assert!(!holds("greater_than", &json!(3), None));
    assert!(holds("equals", &json!("ada"), Some(&json!(" ADA "))));
    assert!(holds(
        "contains",
        &json!("love"),
        Some(&json!("Ada Lovelace"))
    ));
    assert!(holds(
        "any_of",
        &json!(["red"]),
        Some(&json!(["blue", "red"]))
    ));
    assert!(holds(
        "less_than",
        &json!("2026-12-31"),
        Some(&json!("2026-06-01"))
    ));
    assert!(!holds("equals", &json!(true), Some(&json!(false))));
}

// ---------------------------------------------------------------------------------------
// Creating, over REST and gRPC
// ---------------------------------------------------------------------------------------

/// A form in three pages: page 2 shown when "car" is yes; on page 3, "why" shown when
/// the score is below 7 and "model" (page 2) was answered.
fn paged_fields() -> Value {
    json!([
        {"type": "single_choice", "ref": "car", "label": "Do you own a car?", "required": true,
         "options": [{"id": "yes", "label": "Yes"}, {"id": "no", "label": "No"}]},
        {"type": "page_break", "ref": "car_page", "label": "Your car",
         "show_if": [{"field": "car", "op": "equals", "value": "Yes"}]},
        {"type": "short_text", "ref": "model", "label": "Model", "required": true},
        {"type": "page_break", "label": "Last page"},
        {"type": "scale", "ref": "score", "label": "Score", "required": true},
        {"type": "long_text", "ref": "why", "label": "Why?", "required": true,
         "show_if": [{"field": "score", "op": "less_than", "value": 7},
                     {"field": "model", "op": "answered"}]}
    ])
}

#[tokio::test]
async fn refs_name_fields_on_create_and_the_form_returns_ids() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app
        .create_form(&key, &json!({"title": "Pages", "fields": paged_fields()}))
        .await;
    let ids = field_ids(&form);
    let f = &form["fields"];
    assert_eq!(f[1]["type"], "page_break");
    assert_eq!(f[1]["ref"], "car_page");
    assert_eq!(f[0]["ref"], "car");
    assert!(f[3].get("ref").is_none(), "no ref sent, none shown");
    // A label resolves to the option's id; refs to the fields' ids.
    assert_eq!(
        f[1]["show_if"],
        json!([{"field": ids[0], "op": "equals", "value": "yes"}])
    );
    assert_eq!(
        f[5]["show_if"],
        json!([{"field": ids[4], "op": "less_than", "value": 7},
               {"field": ids[2], "op": "answered"}])
    );
    assert!(f[0].get("show_if").is_none());
    // Read back the same.
    let id = form["id"].as_str().expect("id");
    let read = app.get(&format!("/forms/{id}"), &key).await.ok(200)["form"].clone();
    assert_eq!(read["fields"], form["fields"]);

    // Over gRPC, the same definition (conditions by ref) gives the same logic.
    let mut client = FormsServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("connecting to the core");
    let fields: Vec<pb::FormField> = paged_fields()
        .as_array()
        .expect("fields")
        .iter()
        .map(grpc_field)
        .collect();
    let created = client
        .create_form(grpc_request(
            pb::CreateFormRequest {
                title: "Pages over gRPC".into(),
                fields,
                ..Default::default()
            },
            &key,
        ))
        .await
        .expect("CreateForm")
        .into_inner()
        .form
        .expect("form");
    let g = &created.fields;
    assert_eq!(g[1].r#type, "page_break");
    assert_eq!(g[0].r#ref.as_deref(), Some("car"));
    assert_eq!(g[1].show_if.len(), 1);
    assert_eq!(g[1].show_if[0].field, g[0].id);
    assert_eq!(g[1].show_if[0].op, "equals");
    assert_eq!(
        g[1].show_if[0]
            .value
            .as_ref()
            .map(pb::convert::value_to_json),
        Some(json!("yes"))
    );
    assert_eq!(
        g[5].show_if
            .iter()
            .map(|c| c.field.clone())
            .collect::<Vec<_>>(),
        [g[4].id.clone(), g[2].id.clone()]
    );
    // And gRPC refuses bad logic as REST does, naming the property.
    let mut bad: Vec<pb::FormField> = created.fields.clone();
    bad[2].show_if = vec![pb::Condition {
        field: g[5].id.clone(),
        op: "answered".into(),
        value: None,
    }];
    let status = client
        .update_form(grpc_request(
            pb::UpdateFormRequest {
                id: created.id.clone(),
                form: Some(pb::Form {
                    fields: bad,
                    ..Default::default()
                }),
                update_mask: Some(prost_types::FieldMask {
                    paths: vec!["fields".into()],
                }),
            },
            &key,
        ))
        .await
        .expect_err("a condition on a later field");
    assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
    let info = status.get_details_error_info().expect("ErrorInfo");
    assert_eq!(info.reason, "VALIDATION_ERROR");
    assert!(
        status.message().contains("fields[2].show_if[0].field"),
        "{}",
        status.message()
    );
}

/// A field of `paged_fields` as a gRPC message.
fn grpc_field(f: &Value) -> pb::FormField {
    let text = |k: &str| f[k].as_str().map(str::to_owned);
    pb::FormField {
        r#type: text("type").expect("type"),
        label: text("label").expect("label"),
        required: f["required"].as_bool().unwrap_or(false),
        r#ref: text("ref"),
        options: f["options"]
            .as_array()
            .map(|o| {
                o.iter()
                    .map(|o| pb::FieldOption {
                        id: o["id"].as_str().unwrap_or_default().to_owned(),
                        label: o["label"].as_str().expect("label").to_owned(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        show_if: f["show_if"]
            .as_array()
            .map(|c| {
                c.iter()
                    .map(|c| pb::Condition {
                        field: c["field"].as_str().expect("field").to_owned(),
                        op: c["op"].as_str().expect("op").to_owned(),
                        value: c.get("value").map(pb::convert::json_to_value),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_hidden_page_hides_its_fields_and_what_reads_them() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, paged_fields(), Value::Null).await;
    let ids = field_ids(&form);
    let path = format!("/forms/{}/responses", form["id"].as_str().expect("id"));
    let post = |pairs: Vec<(usize, Value)>| {
        let answers: Map<String, Value> = pairs
            .into_iter()
            .map(|(i, v)| (ids[i].clone(), v))
            .collect();
        let app = &app;
        let key = &key;
        let path = &path;
        async move { app.post(path, key, &json!({"answers": answers})).await }
    };
    let set =
        |ids_at: &[usize]| -> BTreeSet<String> { ids_at.iter().map(|i| ids[*i].clone()).collect() };

    // No car: page 2 hidden, so "Model" (required) is not asked, and "Why?" (which reads
    // it) is hidden too, even with a low score.
    post(vec![(0, json!("no")), (4, json!(3))]).await.ok(201);
    let reply = post(vec![(0, json!("no")), (2, json!("Clio")), (4, json!(3))]).await;
    assert_eq!(named(&reply), set(&[2]));
    let reply = post(vec![
        (0, json!("no")),
        (4, json!(3)),
        (5, json!("Too slow")),
    ])
    .await;
    assert_eq!(named(&reply), set(&[5]));
    // An answer to a page break is refused too.
    let reply = post(vec![(0, json!("no")), (1, json!("x")), (4, json!(3))]).await;
    assert_eq!(named(&reply), set(&[1]));

    // A car: "Model" is asked; with a low score "Why?" is asked as well.
    let reply = post(vec![(0, json!("yes")), (4, json!(9))]).await;
    assert_eq!(named(&reply), set(&[2]));
    let reply = post(vec![(0, json!("yes")), (2, json!("Clio")), (4, json!(3))]).await;
    assert_eq!(named(&reply), set(&[5]));
    post(vec![
        (0, json!("yes")),
        (2, json!("Clio")),
        (4, json!(3)),
        (5, json!("Too slow")),
    ])
    .await
    .ok(201);
    post(vec![(0, json!("yes")), (2, json!("Clio")), (4, json!(9))])
        .await
        .ok(201);
}

// ---------------------------------------------------------------------------------------
// Bad logic, refused at save
// ---------------------------------------------------------------------------------------

/// A single choice "a" (yes/no), a rating "r" (3 stars), a number "n", a page break
/// "p", then the field under test, "x", with `conditions`.
fn with_conditions(conditions: Value) -> Value {
    json!([
        {"type": "single_choice", "ref": "a", "label": "A",
         "options": [{"id": "yes", "label": "Yes"}, {"id": "no", "label": "No"}]},
        {"type": "rating", "ref": "r", "label": "R", "max": 3},
        {"type": "number", "ref": "n", "label": "N"},
        {"type": "page_break", "ref": "p", "label": "P"},
        {"type": "short_text", "ref": "x", "label": "X", "show_if": conditions},
        {"type": "date", "ref": "later", "label": "Later"}
    ])
}

/// Bad logic and the property the refusal must name.
fn bad_logic() -> Vec<(Value, &'static str)> {
    let cond = |c: Value| with_conditions(json!([c]));
    vec![
        (
            cond(json!({"field": "nope", "op": "answered"})),
            "fields[4].show_if[0].field",
        ),
        (
            cond(json!({"field": "later", "op": "answered"})),
            "fields[4].show_if[0].field",
        ),
        (
            cond(json!({"field": "x", "op": "answered"})),
            "fields[4].show_if[0].field",
        ),
        (
            cond(json!({"field": "p", "op": "answered"})),
            "fields[4].show_if[0].field",
        ),
        (
            cond(json!({"field": "a", "op": "equals", "value": "maybe"})),
            "fields[4].show_if[0].value",
        ),
        (
            cond(json!({"field": "a", "op": "greater_than", "value": "yes"})),
            "fields[4].show_if[0].op",
        ),
        (
            cond(json!({"field": "a", "op": "contains", "value": "yes"})),
            "fields[4].show_if[0].op",
        ),
        (
            cond(json!({"field": "n", "op": "any_of", "value": [1, 2]})),
            "fields[4].show_if[0].op",
        ),
        (
            cond(json!({"field": "a", "op": "is", "value": "yes"})),
            "fields[4].show_if[0].op",
        ),
        (
            cond(json!({"field": "r", "op": "equals", "value": 4})),
            "fields[4].show_if[0].value",
        ),
        (
            cond(json!({"field": "r", "op": "less_than", "value": 0})),
            "fields[4].show_if[0].value",
        ),
        (
            cond(json!({"field": "r", "op": "equals"})),
            "fields[4].show_if[0].value",
        ),
        (
            cond(json!({"field": "r", "op": "answered", "value": 2})),
            "fields[4].show_if[0].value",
        ),
        (
            cond(json!({"field": "r", "op": "any_of", "value": []})),
            "fields[4].show_if[0].value",
        ),
        (
            cond(json!({"field": "n", "op": "equals", "value": "three"})),
            "fields[4].show_if[0].value",
        ),
        // Contradictions: each condition is fine alone, together they never hold.
        (
            with_conditions(json!([{"field": "a", "op": "equals", "value": "yes"},
                                   {"field": "a", "op": "equals", "value": "no"}])),
            "fields[4].show_if",
        ),
        (
            with_conditions(json!([{"field": "r", "op": "greater_than", "value": 3}])),
            "fields[4].show_if",
        ),
        (
            with_conditions(json!([{"field": "n", "op": "greater_than", "value": 10},
                                   {"field": "n", "op": "less_than", "value": 5}])),
            "fields[4].show_if",
        ),
        (
            with_conditions(json!([{"field": "a", "op": "answered"},
                                   {"field": "a", "op": "not_answered"}])),
            "fields[4].show_if",
        ),
        // A page's condition obeys the same rules.
        (
            json!([
                {"type": "page_break", "ref": "p", "label": "P",
                 "show_if": [{"field": "y", "op": "answered"}]},
                {"type": "short_text", "ref": "y", "label": "Y"}
            ]),
            "fields[0].show_if[0].field",
        ),
    ]
}

/// The 422 VALIDATION_ERROR's message, asserted to name `property`.
fn assert_refused(reply: &Reply, what: &Value, property: &str) {
    assert_eq!(reply.status, 422, "accepted: {what}: {}", reply.text);
    let message = reply.error(422, "VALIDATION_ERROR")["message"]
        .as_str()
        .expect("message");
    assert!(
        message.contains(property),
        "{message} lacks {property}: {what}"
    );
}

#[tokio::test]
async fn bad_logic_is_refused_at_save_naming_the_property() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    // The same form, valid, to update with each bad definition.
    let good = with_conditions(json!([{"field": "a", "op": "equals", "value": "yes"},
                                      {"field": "r", "op": "greater_than", "value": 1}]));
    let form = app
        .create_form(&key, &json!({"title": "Logic", "fields": good}))
        .await;
    let id = form["id"].as_str().expect("id");
    for (fields, property) in bad_logic() {
        let created = app
            .post("/forms", &key, &json!({"title": "Bad", "fields": fields}))
            .await;
        assert_refused(&created, &fields, property);
        let updated = app
            .put(&format!("/forms/{id}"), &key, &json!({"fields": fields}))
            .await;
        assert_refused(&updated, &fields, property);
    }
    // Nothing of it was saved.
    let read = app.get(&format!("/forms/{id}"), &key).await.ok(200)["form"].clone();
    assert_eq!(read["fields"], form["fields"]);
}

#[tokio::test]
async fn conditions_survive_an_update_that_keeps_ids_and_a_field_depended_on_stays() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, paged_fields(), Value::Null).await;
    let id = form["id"].as_str().expect("id");
    let ids = field_ids(&form);

    // The form sent back as read, a label changed and a field added: same logic, ids.
    let mut fields = form["fields"].clone();
    fields[2]["label"] = json!("Car model");
    fields
        .as_array_mut()
        .expect("fields")
        .push(json!({"type": "email", "label": "Email",
                     "show_if": [{"field": "car", "op": "not_equals", "value": "no"}]}));
    let updated = app
        .put(&format!("/forms/{id}"), &key, &json!({"fields": fields}))
        .await;
    let updated = updated.ok(200)["form"].clone();
    assert_eq!(&field_ids(&updated)[..6], &ids[..]);
    for at in [1, 5] {
        assert_eq!(
            updated["fields"][at]["show_if"],
            form["fields"][at]["show_if"]
        );
    }
    assert_eq!(
        updated["fields"][6]["show_if"],
        json!([{"field": ids[0], "op": "not_equals", "value": "no"}])
    );
    // The logic still decides: no car, so the model is not asked.
    let path = format!("/forms/{id}/responses");
    let reply = app
        .post(
            &path,
            &key,
            &json!({"answers": {ids[0].clone(): "no", ids[2].clone(): "Clio", ids[4].clone(): 8}}),
        )
        .await;
    assert_eq!(named(&reply), BTreeSet::from([ids[2].clone()]));

    // Removing "Model", which "Why?" reads, is refused, naming the condition; so is
    // moving "Why?" above it.
    let mut without = updated["fields"].clone();
    without.as_array_mut().expect("fields").remove(2);
    let reply = app
        .put(&format!("/forms/{id}"), &key, &json!({"fields": without}))
        .await;
    assert_refused(&reply, &without, "fields[4].show_if[1].field");
    let mut moved = updated["fields"].clone();
    moved.as_array_mut().expect("fields").swap(2, 5);
    let reply = app
        .put(&format!("/forms/{id}"), &key, &json!({"fields": moved}))
        .await;
    assert_refused(&reply, &moved, "fields[2].show_if[0].field");
    // Removing it with the condition that reads it is fine.
    let mut both = without.clone();
    both[4]["show_if"] = json!([{"field": ids[4], "op": "less_than", "value": 7}]);
    let reply = app
        .put(&format!("/forms/{id}"), &key, &json!({"fields": both}))
        .await;
    let after = reply.ok(200)["form"].clone();
    assert_eq!(after["fields"].as_array().expect("fields").len(), 6);
}

// ---------------------------------------------------------------------------------------
// The book's example
// ---------------------------------------------------------------------------------------

/// The first ```json block of the book's page "Pages and conditions".
fn book_example() -> Value {
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/src/using/pages-and-conditions.md"
    ))
    .expect("the book's page docs/src/using/pages-and-conditions.md");
    let block = page
        .split_once("```json\n")
        .expect("a JSON example in the page")
        .1
        .split_once("```")
        .expect("the end of the JSON example")
        .0;
    serde_json::from_str(block).unwrap_or_else(|e| panic!("the book's example: {e}\n{block}"))
}

#[tokio::test]
async fn the_book_example_creates_and_its_logic_holds() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let body = book_example();
    let reply = app.post("/forms", &key, &body).await;
    let form = reply.ok(201)["form"].clone();
    let id = form["id"].as_str().expect("id").to_owned();
    app.put(
        &format!("/forms/{id}"),
        &key,
        &json!({"status": "published"}),
    )
    .await
    .ok(200);
    let by_ref = |r: &str| -> String {
        form["fields"]
            .as_array()
            .expect("fields")
            .iter()
            .find(|f| f["ref"] == r)
            .unwrap_or_else(|| panic!("no field {r} in the book's example"))["id"]
            .as_str()
            .expect("id")
            .to_owned()
    };
    let pages = form["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .filter(|f| f["type"] == "page_break")
        .count();
    assert_eq!(pages, 3, "three pages, each with its title");
    let path = format!("/forms/{id}/responses");
    let post = |answers: Value| {
        let app = &app;
        let key = &key;
        let path = &path;
        async move { app.post(path, key, &json!({"answers": answers})).await }
    };
    let (car, make, happy, nps, better) = (
        by_ref("owns_car"),
        by_ref("make"),
        by_ref("car_rating"),
        by_ref("nps"),
        by_ref("do_better"),
    );
    let make_option = form["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .find(|f| f["ref"] == "make")
        .expect("make")["options"][0]["id"]
        .clone();
    // No car, a happy promoter: pages 2 and the "do better" question are skipped.
    post(json!({car.clone(): "no", nps.clone(): 9}))
        .await
        .ok(201);
    let reply = post(json!({car.clone(): "no", nps.clone(): 9, make.clone(): make_option})).await;
    assert_eq!(named(&reply), BTreeSet::from([make.clone()]));
    let reply = post(json!({car.clone(): "no", nps.clone(): 9, better.clone(): "More"})).await;
    assert_eq!(named(&reply), BTreeSet::from([better.clone()]));
    // A car: its make is asked; a low score asks what to do better (both required).
    let reply = post(json!({car.clone(): "yes", nps.clone(): 3})).await;
    assert_eq!(
        named(&reply),
        BTreeSet::from([make.clone(), better.clone()])
    );
    let reply = post(json!({car.clone(): "yes", nps.clone(): 9})).await;
    assert_eq!(named(&reply), BTreeSet::from([make.clone()]));
    post(json!({car: "yes", make: make_option, happy: 4, nps: 3, better: "Cheaper"}))
        .await
        .ok(201);
}
