//! The field kinds of issue 20 (single_choice, dropdown, multiple_choice, rating, scale,
//! date, url, phone, checkbox, hidden; bounds on number): their definition rules at save,
//! option ids assigned and kept, every kind accepted and refused at its bounds over REST
//! and a few over gRPC, what an answer stores, the labelled CSV export and the webhook
//! payload.

use crate::fixtures::*;
use crate::harness::*;
use forms::pb::{self, responses_service_client::ResponsesServiceClient};
use serde_json::{Map, Value, json};
use std::time::Duration;
use tonic::Code;
use tonic_types::StatusExt;

/// One field of each new kind, with bounds (in this order, see `base`).
fn kind_fields() -> Value {
    json!([
        {"type": "single_choice", "label": "Colour", "allow_other": true,
         "options": [{"label": "Red"}, {"label": "Green"}, {"id": "blue", "label": "Blue"}]},
        {"type": "dropdown", "label": "Size", "options": [{"label": "S"}, {"label": "M"}]},
        {"type": "multiple_choice", "label": "Toppings", "allow_other": true,
         "min_selected": 1, "max_selected": 2,
         "options": [{"id": "ham", "label": "Ham"}, {"id": "egg", "label": "Egg"}, {"id": "kale", "label": "Kale"}]},
        {"type": "rating", "label": "Stars", "max": 3},
        {"type": "scale", "label": "Likely", "min_label": "Not likely", "max_label": "Very"},
        {"type": "date", "label": "Day", "min": "2026-01-01", "max": "2026-12-31"},
        {"type": "url", "label": "Site"},
        {"type": "phone", "label": "Phone"},
        {"type": "checkbox", "label": "Consent", "required": true},
        {"type": "hidden", "label": "utm_source"},
        {"type": "number", "label": "Qty", "min": 1, "max": 5},
    ])
}

struct Setup {
    app: TestApp,
    key: String,
    form: Value,
    ids: Vec<String>,
}

impl Setup {
    async fn new() -> Setup {
        Self::with(&[]).await
    }

    async fn with(flags: &[&str]) -> Setup {
        let app = TestApp::spawn_with(flags).await;
        let key = app.key(PRO, ALL).await;
        let form = published_form(&app, &key, kind_fields(), Value::Null).await;
        Setup {
            ids: field_ids(&form),
            app,
            key,
            form,
        }
    }

    fn option(&self, field: usize, option: usize) -> String {
        self.form["fields"][field]["options"][option]["id"]
            .as_str()
            .expect("option id")
            .to_owned()
    }

    /// A complete valid answer set, by field position.
    fn base(&self) -> Vec<Value> {
        vec![
            json!(self.option(0, 0)),
            json!(self.option(1, 1)),
            json!(["egg"]),
            json!(3),
            json!(0),
            json!("2026-01-01"),
            json!("https://example.com/a?b=c"),
            json!("+44 20 7946 0958"),
            json!(true),
            json!("newsletter"),
            json!(1),
        ]
    }

    fn answers(&self, values: &[Value]) -> Value {
        let map: Map<String, Value> = self
            .ids
            .iter()
            .cloned()
            .zip(values.iter().cloned())
            .collect();
        Value::Object(map)
    }

    async fn post(&self, values: &[Value]) -> Reply {
        self.app
            .post(
                &format!("/forms/{}/responses", self.form["id"].as_str().expect("id")),
                &self.key,
                &json!({"answers": self.answers(values)}),
            )
            .await
    }

    /// The base answers with field `at` answered `value` (null: left out).
    async fn with_answer(&self, at: usize, value: Value) -> Reply {
        let mut values = self.base();
        values[at] = value;
        self.post(&values).await
    }
}

#[tokio::test]
async fn every_kind_is_accepted_and_refused_at_its_bounds() {
    let s = Setup::new().await;
    let stored = s.post(&s.base()).await.ok(201)["response"]["answers"].clone();
    // What an answer stores: option ids, the phone in E.164, the rest as sent.
    assert_eq!(stored[&s.ids[0]], json!(s.option(0, 0)));
    assert_eq!(stored[&s.ids[2]], json!(["egg"]));
    assert_eq!(
        stored[&s.ids[7]],
        json!("+442079460958"),
        "phone normalised"
    );
    assert_eq!(stored[&s.ids[8]], json!(true));

    let accepted: Vec<(usize, Value, Value)> = vec![
        (0, json!("blue"), json!("blue")),
        (0, json!({"other": " Teal "}), json!({"other": "Teal"})),
        (
            0,
            json!({"other": "x".repeat(500)}),
            json!({"other": "x".repeat(500)}),
        ),
        // Stored in the options' order, "other" last.
        (
            2,
            json!([{"other": "Tofu"}, "kale"]),
            json!(["kale", {"other": "Tofu"}]),
        ),
        (2, json!(["kale", "ham"]), json!(["ham", "kale"])),
        // Nothing ticked on an optional field: unanswered, so min_selected does not apply.
        (2, json!([]), Value::Null),
        (3, json!(1), json!(1)),
        (3, json!("2"), json!(2)),
        (4, json!(10), json!(10)),
        (5, json!("2026-12-31"), json!("2026-12-31")),
        (5, json!("2026-02-28"), json!("2026-02-28")),
        (
            6,
            json!("http://localhost:8080/"),
            json!("http://localhost:8080/"),
        ),
        (7, json!("+1 (201) 555-0123"), json!("+12015550123")),
        (9, json!("h".repeat(2000)), json!("h".repeat(2000))),
        (9, Value::Null, Value::Null),
        (10, json!(5), json!(5)),
        (10, json!("2.5"), json!(2.5)),
    ];
    for (at, value, expected) in accepted {
        let reply = s.with_answer(at, value.clone()).await;
        assert_eq!(reply.status, 201, "{at}: {value} refused: {}", reply.text);
        assert_eq!(
            reply.body["data"]["response"]["answers"][&s.ids[at]].clone(),
            expected,
            "{at}: {value}"
        );
    }

    let refused: Vec<(usize, Value)> = vec![
        (0, json!("purple")),
        (0, json!({"other": ""})),
        (0, json!({"other": "x".repeat(501)})),
        (0, json!({"othre": "x"})),
        (0, json!(["blue"])),
        (1, json!({"other": "XL"})), // a dropdown has no "other"
        (1, json!("s")),
        (2, json!([{"other": "Tofu"}, "ham", "egg"])), // above max_selected
        (2, json!(["ham", "ham"])),
        (2, json!([{"other": "a"}, {"other": "b"}])),
        (2, json!("ham")),
        (3, json!(0)),
        (3, json!(4)),
        (3, json!(2.5)),
        (4, json!(-1)),
        (4, json!(11)),
        (5, json!("2025-12-31")),
        (5, json!("2027-01-01")),
        (5, json!("2026-02-30")),
        (5, json!("2026-1-05")),
        (5, json!("05/01/2026")),
        (6, json!("ftp://example.com/")),
        (6, json!("example.com")),
        (6, json!("https://")),
        (
            6,
            json!(format!("https://example.com/{}", "a".repeat(2000))),
        ),
        (7, json!("020 7946 0958")), // national form: no region to assume
        (7, json!("+44 12")),
        (7, json!("call me")),
        (8, json!(false)), // a required checkbox must be ticked
        (8, Value::Null),
        (8, json!("maybe")),
        (9, json!("h".repeat(2001))),
        (9, json!(3)),
        (10, json!(0)),
        (10, json!(5.5)),
    ];
    let label = |at: usize| {
        s.form["fields"][at]["label"]
            .as_str()
            .expect("label")
            .to_owned()
    };
    for (at, value) in refused {
        let reply = s.with_answer(at, value.clone()).await;
        assert_eq!(reply.status, 422, "{at}: {value} accepted: {}", reply.text);
        let message = reply.error(422, "VALIDATION_ERROR")["message"]
            .as_str()
            .expect("message")
            .to_owned();
        assert!(
            message.contains(&label(at)) || message.contains(&s.ids[at]),
            "{at}: {value}: {message}"
        );
    }
}

#[tokio::test]
async fn definitions_show_their_properties_and_option_ids_are_kept() {
    let s = Setup::new().await;
    let fields = s.form["fields"].as_array().expect("fields");
    // Ids assigned when not sent, kept when sent.
    let colour: Vec<&str> = fields[0]["options"]
        .as_array()
        .expect("options")
        .iter()
        .map(|o| o["id"].as_str().expect("id"))
        .collect();
    assert_eq!(colour.len(), 3);
    assert!(colour[0].starts_with("opt_") && colour[0] != colour[1]);
    assert_eq!(colour[2], "blue");
    assert_eq!(fields[0]["allow_other"], true);
    // Defaults filled in; properties shown only where they apply.
    assert_eq!(fields[3]["max"], 3);
    assert_eq!(
        (fields[4]["min"].clone(), fields[4]["max"].clone()),
        (json!(0), json!(10))
    );
    assert_eq!(fields[4]["min_label"], "Not likely");
    assert_eq!(fields[2]["min_selected"], 1);
    for (at, absent) in [
        (1, "allow_other"),
        (3, "min"),
        (3, "options"),
        (6, "min"),
        (6, "options"),
        (8, "allow_other"),
        (9, "max"),
    ] {
        assert!(
            fields[at].get(absent).is_none(),
            "{at} shows {absent}: {}",
            fields[at]
        );
    }
    let rated = s
        .app
        .create_form(
            &s.key,
            &json!({"title": "R", "fields": [{"type": "rating", "label": "R"}]}),
        )
        .await;
    assert_eq!(rated["fields"][0]["max"], 5, "rating defaults to 5 stars");

    // An answer, then a rename of its option (id sent back) and a new option (no id).
    let form_id = s.form["id"].as_str().expect("id");
    s.post(&s.base()).await.ok(201);
    let mut new_fields = s.form["fields"].clone();
    new_fields[0]["options"][0]["label"] = json!("Crimson");
    new_fields[0]["options"]
        .as_array_mut()
        .expect("options")
        .push(json!({"label": "Black"}));
    let updated = s
        .app
        .put(
            &format!("/forms/{form_id}"),
            &s.key,
            &json!({"fields": new_fields}),
        )
        .await;
    let updated = updated.ok(200)["form"].clone();
    let options = &updated["fields"][0]["options"];
    assert_eq!(options[0], json!({"id": colour[0], "label": "Crimson"}));
    assert_eq!(options[2]["id"], "blue");
    assert!(
        options[3]["id"]
            .as_str()
            .is_some_and(|id| !id.is_empty() && !colour.contains(&id))
    );

    // The CSV export reads labels: the renamed one, several joined, "Other", yes/no.
    let mut other = s.base();
    other[0] = json!({"other": "Teal"});
    other[2] = json!(["ham", {"other": "Tofu"}]);
    s.post(&other).await.ok(201);
    let reply = s
        .app
        .get(
            &format!("/forms/{form_id}/responses/export?format=csv"),
            &s.key,
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let mut reader = csv::Reader::from_reader(reply.text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_owned)
        .collect();
    let col = |label: &str| {
        header
            .iter()
            .position(|h| h == label)
            .unwrap_or_else(|| panic!("{label} in {header:?}"))
    };
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(&rows[0][col("Colour")], "Crimson");
    assert_eq!(&rows[0][col("Size")], "M");
    assert_eq!(&rows[0][col("Toppings")], "Egg");
    assert_eq!(&rows[0][col("Consent")], "yes");
    assert_eq!(&rows[0][col("Phone")], "'+442079460958");
    assert_eq!(&rows[0][col("Day")], "2026-01-01");
    assert_eq!(&rows[1][col("Colour")], "Other: Teal");
    assert_eq!(&rows[1][col("Toppings")], "Ham; Other: Tofu");
}

#[tokio::test]
async fn bad_definitions_are_refused_at_save_naming_the_property() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let opts = |n: usize| -> Value { (0..n).map(|i| json!({"label": format!("O{i}")})).collect() };
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"type": "single_choice", "label": "A"}),
            "fields[0].options",
        ),
        (
            json!({"type": "dropdown", "label": "A", "options": opts(101)}),
            "fields[0].options",
        ),
        (
            json!({"type": "dropdown", "label": "A", "options": [{"label": ""}]}),
            "fields[0].options[0].label",
        ),
        (
            json!({"type": "dropdown", "label": "A", "options": [{"label": "x".repeat(201)}]}),
            "fields[0].options[0].label",
        ),
        (
            json!({"type": "dropdown", "label": "A", "options": [{"label": "Yes"}, {"label": "yes"}]}),
            "fields[0].options[1].label",
        ),
        (
            json!({"type": "dropdown", "label": "A", "options": [{"id": "a", "label": "X"}, {"id": "a", "label": "Y"}]}),
            "fields[0].options[1].id",
        ),
        (
            json!({"type": "dropdown", "label": "A", "options": [{"id": "a b", "label": "X"}]}),
            "fields[0].options[0].id",
        ),
        (
            json!({"type": "short_text", "label": "A", "options": opts(2)}),
            "fields[0].options",
        ),
        (
            json!({"type": "single_choice", "label": "A", "options": opts(2), "min_selected": 1}),
            "fields[0].min_selected",
        ),
        (
            json!({"type": "multiple_choice", "label": "A", "options": opts(2), "max_selected": 3}),
            "fields[0].max_selected",
        ),
        (
            json!({"type": "multiple_choice", "label": "A", "options": opts(3), "min_selected": 2, "max_selected": 1}),
            "fields[0].max_selected",
        ),
        (
            json!({"type": "multiple_choice", "label": "A", "options": opts(2), "min_selected": -1}),
            "fields[0].min_selected",
        ),
        (
            json!({"type": "dropdown", "label": "A", "options": opts(2), "allow_other": true}),
            "fields[0].allow_other",
        ),
        (
            json!({"type": "rating", "label": "A", "max": 11}),
            "fields[0].max",
        ),
        (
            json!({"type": "rating", "label": "A", "max": 0}),
            "fields[0].max",
        ),
        (
            json!({"type": "rating", "label": "A", "min": 1}),
            "fields[0].min",
        ),
        (
            json!({"type": "scale", "label": "A", "min": 5, "max": 5}),
            "fields[0].max",
        ),
        (
            json!({"type": "scale", "label": "A", "max": 11}),
            "fields[0].max",
        ),
        (
            json!({"type": "scale", "label": "A", "min": -1}),
            "fields[0].min",
        ),
        (
            json!({"type": "scale", "label": "A", "min": 1.5}),
            "fields[0].min",
        ),
        (
            json!({"type": "scale", "label": "A", "min_label": "x".repeat(101)}),
            "fields[0].min_label",
        ),
        (
            json!({"type": "rating", "label": "A", "max_label": "Top"}),
            "fields[0].max_label",
        ),
        (
            json!({"type": "date", "label": "A", "min": "2026-13-01"}),
            "fields[0].min",
        ),
        (
            json!({"type": "date", "label": "A", "min": "2026-02-01", "max": "2026-01-01"}),
            "fields[0].min",
        ),
        (
            json!({"type": "number", "label": "A", "min": "one"}),
            "fields[0].min",
        ),
        (
            json!({"type": "number", "label": "A", "min": 5, "max": 1}),
            "fields[0].min",
        ),
        // Found by schemathesis: a bound near the largest double was stored, and the
        // form then could not be read back (500 on every list of the account).
        (
            json!({"type": "number", "label": "A", "max": 1.7976931348623155e308}),
            "fields[0].max",
        ),
        (
            json!({"type": "url", "label": "A", "max": 5}),
            "fields[0].max",
        ),
        (
            json!({"type": "hidden", "label": "A", "required": true}),
            "fields[0].required",
        ),
    ];
    for (field, property) in cases {
        let reply = app
            .post("/forms", &key, &json!({"title": "Bad", "fields": [field]}))
            .await;
        assert_eq!(reply.status, 422, "{field} accepted: {}", reply.text);
        let message = reply.error(422, "VALIDATION_ERROR")["message"]
            .as_str()
            .expect("message")
            .to_owned();
        assert!(
            message.contains(property),
            "{field}: {message} lacks {property}"
        );
    }
}

#[tokio::test]
async fn grpc_answers_follow_the_same_rules() {
    let s = Setup::new().await;
    let mut client = ResponsesServiceClient::connect(s.app.grpc_url.clone())
        .await
        .expect("connecting to the core");
    let form_id = s.form["id"].as_str().expect("id").to_owned();
    let message = |values: &[Value]| pb::CreateResponseRequest {
        form_id: form_id.clone(),
        answers: Some(pb::convert::object_to_struct(
            s.answers(values).as_object().expect("object"),
        )),
        metadata: None,
    };
    let stored = client
        .create_response(grpc_request(message(&s.base()), &s.key))
        .await
        .expect("valid answers")
        .into_inner()
        .response
        .expect("response");
    let answers = pb::convert::struct_to_object(stored.answers.as_ref().expect("answers"));
    assert_eq!(answers[&s.ids[7]], json!("+442079460958"));
    assert_eq!(answers[&s.ids[2]], json!(["egg"]));
    for (at, value) in [
        (0, json!("nope")),
        (3, json!(4)),
        (5, json!("2026-02-30")),
        (8, json!(false)),
    ] {
        let mut values = s.base();
        values[at] = value.clone();
        let status = client
            .create_response(grpc_request(message(&values), &s.key))
            .await
            .expect_err("refused");
        assert_eq!(
            status.code(),
            Code::InvalidArgument,
            "{at}: {value}: {status:?}"
        );
        let info = status.get_details_error_info().expect("ErrorInfo");
        assert_eq!(info.reason, "VALIDATION_ERROR");
        assert!(
            info.metadata.contains_key(&format!("field.{}", s.ids[at])),
            "{at}: {:?}",
            info.metadata
        );
    }
}

#[tokio::test]
async fn webhooks_carry_the_stored_answers() {
    let receiver = Receiver::start().await;
    let s = Setup::with(&[
        "--webhook-allow-private",
        "--webhook-poll-interval",
        "200ms",
    ])
    .await;
    let form_id = s.form["id"].as_str().expect("id");
    subscribe(
        &s.app,
        &s.key,
        form_id,
        &receiver.url("/kinds"),
        &["form.submitted"],
    )
    .await;
    let mut values = s.base();
    values[2] = json!(["ham", {"other": "Tofu"}]);
    let response = s.post(&values).await.ok(201)["response"].clone();
    let hits = receiver
        .wait_for("/kinds", 1, Duration::from_secs(15))
        .await;
    let payload = hits[0].json();
    assert_eq!(payload["data"]["answers"], response["answers"]);
    let answers = &payload["data"]["answers"];
    assert_eq!(answers[&s.ids[0]], json!(s.option(0, 0)));
    assert_eq!(answers[&s.ids[2]], json!(["ham", {"other": "Tofu"}]));
    assert_eq!(answers[&s.ids[7]], json!("+442079460958"));
    assert_eq!(answers[&s.ids[8]], json!(true));
    assert_eq!(answers[&s.ids[9]], json!("newsletter"));
    // SPEC's payload, unchanged: no key added to `data`.
    assert_eq!(
        keys_of(&payload["data"]),
        ["answers", "formId", "responseId", "submittedVia"]
    );
}
