//! SPEC "Forms": create, get, list (pagination, filters, search), partial update,
//! delete, and the exact shapes of the replies.

use crate::harness::*;
use serde_json::{Value, json};

const FORM_KEYS: [&str; 10] = [
    "created_at",
    "description",
    "fields",
    "id",
    "published_at",
    "settings",
    "short_id",
    "status",
    "title",
    "updated_at",
];

/// Checks every SPEC property of a form and its type.
fn assert_form_shape(form: &Value) {
    assert_eq!(keys_of(form), FORM_KEYS, "form properties: {form}");
    assert_uuid(form["id"].as_str().expect("id is a string"));
    assert!(form["title"].is_string(), "title: {form}");
    assert!(
        form["description"].is_string() || form["description"].is_null(),
        "description: {form}"
    );
    let status = form["status"].as_str().expect("status is a string");
    assert!(
        ["draft", "published", "archived"].contains(&status),
        "status {status}"
    );
    for field in form["fields"].as_array().expect("fields is an array") {
        assert_field_shape(field);
    }
    assert!(form["settings"].is_object(), "settings: {form}");
    let short_id = form["short_id"].as_str().expect("short_id is a string");
    assert!(!short_id.is_empty());
    assert!(
        short_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "short_id is URL-safe: {short_id}"
    );
    let created = assert_timestamp(&form["created_at"]);
    let updated = assert_timestamp(&form["updated_at"]);
    assert!(updated >= created, "updated_at before created_at");
    if !form["published_at"].is_null() {
        assert_timestamp(&form["published_at"]);
    }
}

fn assert_field_shape(field: &Value) {
    let keys = keys_of(field);
    for key in &keys {
        assert!(
            [
                "allowed_types",
                "id",
                "label",
                "max_size_mb",
                "placeholder",
                "required",
                "type"
            ]
            .contains(&key.as_str()),
            "unexpected field property {key}: {field}"
        );
    }
    assert_uuid(field["id"].as_str().expect("field id"));
    assert!(field["type"].is_string());
    assert!(field["label"].is_string());
    assert!(field["required"].is_boolean());
    if let Some(p) = field.get("placeholder") {
        assert!(p.is_string());
    }
    if let Some(types) = field.get("allowed_types") {
        assert!(
            types
                .as_array()
                .expect("allowed_types array")
                .iter()
                .all(Value::is_string)
        );
    }
    if let Some(mb) = field.get("max_size_mb") {
        assert!(mb.is_number());
    }
}

fn id_of(form: &Value) -> String {
    form["id"].as_str().expect("form id").to_owned()
}

#[tokio::test]
async fn create_returns_201_with_the_spec_shape() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let before = chrono::Utc::now() - chrono::Duration::seconds(1);
    let reply = app
        .post(
            "/forms",
            &key,
            &json!({
                "title": "Contact us",
                "description": "We answer within a day",
                "fields": [
                    {"type": "short_text", "label": "Name", "required": true, "placeholder": "Jane Doe"},
                    {"type": "email", "label": "Email", "required": true},
                    {"type": "long_text", "label": "Message", "required": false},
                    {"type": "file_upload", "label": "CV", "required": false,
                     "allowed_types": ["pdf", "docx"], "max_size_mb": 10}
                ],
                "settings": {"confirmation_message": "Thanks!", "notifications_enabled": true,
                             "redirect_url": null}
            }),
        )
        .await;
    let data = reply.ok(201);
    assert_eq!(keys_of(data), ["form"]);
    let form = &data["form"];
    assert_form_shape(form);
    assert_eq!(form["title"], "Contact us");
    assert_eq!(form["description"], "We answer within a day");
    assert_eq!(form["status"], "draft");
    assert_eq!(form["published_at"], Value::Null);
    assert_eq!(form["created_at"], form["updated_at"]);
    let created = assert_timestamp(&form["created_at"]);
    assert!(created >= before && created <= chrono::Utc::now() + chrono::Duration::seconds(1));
    assert_eq!(
        form["settings"],
        json!({"confirmation_message": "Thanks!", "notifications_enabled": true, "redirect_url": null})
    );

    let fields = form["fields"].as_array().expect("fields");
    assert_eq!(fields.len(), 4);
    let ids: std::collections::HashSet<&str> = fields
        .iter()
        .map(|f| f["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids.len(), 4, "field ids are distinct");
    assert_eq!(
        fields[0],
        json!({"id": fields[0]["id"], "type": "short_text", "label": "Name", "required": true,
               "placeholder": "Jane Doe"})
    );
    assert_eq!(
        (
            &fields[1]["type"],
            &fields[1]["label"],
            &fields[1]["required"]
        ),
        (&json!("email"), &json!("Email"), &json!(true))
    );
    assert_eq!(fields[2]["type"], "long_text");
    assert_eq!(fields[2]["required"], false);
    assert_eq!(fields[3]["allowed_types"], json!(["pdf", "docx"]));
    // An integer stays an integer (not 10.0).
    assert_eq!(fields[3]["max_size_mb"], json!(10));
    assert!(reply.text.contains(r#""max_size_mb":10"#), "{}", reply.text);
}

#[tokio::test]
async fn create_minimal_form_has_defaults() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, WRITE).await;
    let form = app.create_form(&key, &json!({"title": "Bare"})).await;
    assert_form_shape(&form);
    assert_eq!(form["status"], "draft");
    assert_eq!(form["description"], Value::Null);
    assert_eq!(form["fields"], json!([]));
    assert_eq!(form["settings"], json!({}));
    assert_eq!(form["published_at"], Value::Null);
    // Each form gets its own ids.
    let other = app.create_form(&key, &json!({"title": "Bare"})).await;
    assert_ne!(other["id"], form["id"]);
    assert_ne!(other["short_id"], form["short_id"]);
}

#[tokio::test]
async fn create_ignores_client_ids_and_status() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, WRITE).await;
    let mine = uuid::Uuid::new_v4().to_string();
    let reply = app
        .post(
            "/forms",
            &key,
            &json!({"title": "Sneaky", "status": "published", "id": mine,
                    "short_id": "mine", "published_at": "2020-01-01T00:00:00.000Z",
                    "fields": [{"type": "short_text", "label": "A", "required": false}]}),
        )
        .await;
    let form = &reply.ok(201)["form"];
    assert_eq!(form["status"], "draft", "a new form is always draft");
    assert_eq!(form["published_at"], Value::Null);
    assert_ne!(form["id"], mine.as_str());
    assert_ne!(form["short_id"], "mine");
}

#[tokio::test]
async fn every_documented_field_type_is_accepted() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, WRITE).await;
    let types = [
        "short_text",
        "long_text",
        "textarea",
        "email",
        "number",
        "file_upload",
    ];
    let fields: Vec<Value> = types
        .iter()
        .map(|t| json!({"type": t, "label": format!("A {t}"), "required": false}))
        .collect();
    let form = app
        .create_form(&key, &json!({"title": "All types", "fields": fields}))
        .await;
    let got: Vec<&str> = form["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| f["type"].as_str().expect("type"))
        .collect();
    assert_eq!(got, types, "types are kept as sent, in order");
}

#[tokio::test]
async fn invalid_field_type_is_422() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, WRITE).await;
    for field in [
        json!({"type": "color_picker", "label": "Colour", "required": false}),
        json!({"type": "", "label": "Empty", "required": false}),
        json!({"label": "No type", "required": false}),
        json!({"type": 5, "label": "Number type", "required": false}),
        json!({"type": "SHORT_TEXT", "label": "Upper case", "required": false}),
    ] {
        app.post("/forms", &key, &json!({"title": "Bad", "fields": [field]}))
            .await
            .error(422, "VALIDATION_ERROR");
    }
    let list = app.get("/forms", &key).await;
    assert_eq!(
        list.ok(200)["pagination"]["total"],
        0,
        "nothing was created"
    );
}

#[tokio::test]
async fn missing_title_is_422() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, WRITE).await;
    for body in [
        json!({}),
        json!({"description": "no title"}),
        json!({"title": ""}),
        json!({"title": "   "}),
        json!({"title": null}),
        json!({"title": 42}),
        json!({"title": "x".repeat(201)}),
    ] {
        app.post("/forms", &key, &body)
            .await
            .error(422, "VALIDATION_ERROR");
    }
    let list = app.get("/forms", &key).await;
    assert_eq!(list.ok(200)["pagination"]["total"], 0);
}

#[tokio::test]
async fn malformed_json_is_422() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, WRITE).await;
    let form = app.create_form(&key, &json!({"title": "Target"})).await;
    for (method, path) in [
        (Method::POST, "/forms".to_owned()),
        (Method::PUT, format!("/forms/{}", id_of(&form))),
    ] {
        for body in [
            "{\"title\": \"x\"",
            "{title: x}",
            "",
            "not json",
            "[1, 2]",
            "\"a string\"",
        ] {
            let reply = send(
                app.request(method.clone(), &path)
                    .header("x-api-key", &key)
                    .header("content-type", "application/json")
                    .body(body),
            )
            .await;
            reply.error(422, "VALIDATION_ERROR");
        }
    }
    let got = app.get(&format!("/forms/{}", id_of(&form)), &key).await;
    assert_eq!(got.ok(200)["form"], form, "the form is unchanged");
}

#[tokio::test]
async fn non_json_content_type_is_415() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, WRITE).await;
    let form = app.create_form(&key, &json!({"title": "Target"})).await;
    let body = r#"{"title": "Sent as text"}"#;
    for (method, path) in [
        (Method::POST, "/forms".to_owned()),
        (Method::PUT, format!("/forms/{}", id_of(&form))),
    ] {
        for content_type in [
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            Some("application/jsonp"),
            None,
        ] {
            let mut request = app
                .request(method.clone(), &path)
                .header("x-api-key", &key)
                .body(body);
            if let Some(ct) = content_type {
                request = request.header("content-type", ct);
            }
            send(request).await.error(415, "UNSUPPORTED_MEDIA_TYPE");
        }
    }
    // application/json with parameters is JSON.
    let reply = send(
        app.request(Method::POST, "/forms")
            .header("x-api-key", &key)
            .header("content-type", "application/json; charset=utf-8")
            .body(body),
    )
    .await;
    assert_eq!(reply.ok(201)["form"]["title"], "Sent as text");
    let list = app.get("/forms", &key).await;
    assert_eq!(list.ok(200)["pagination"]["total"], 2);
}

#[tokio::test]
async fn get_returns_the_full_form() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app
        .create_form(
            &key,
            &json!({"title": "Full", "fields": [
                {"type": "email", "label": "Email", "required": true, "placeholder": "you@example.com"}
            ], "settings": {"confirmation_message": "Bye"}}),
        )
        .await;
    let reply = app.get(&format!("/forms/{}", id_of(&form)), &key).await;
    let data = reply.ok(200);
    assert_eq!(keys_of(data), ["form"]);
    assert_form_shape(&data["form"]);
    assert_eq!(data["form"], form, "get returns what create returned");
}

#[tokio::test]
async fn unknown_or_malformed_form_id_is_404() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let unknown = uuid::Uuid::new_v4();
    for id in [
        unknown.to_string(),
        "not-a-uuid".to_owned(),
        "123".to_owned(),
        unknown.simple().to_string() + "0",
    ] {
        let path = format!("/forms/{id}");
        app.get(&path, &key).await.error(404, "NOT_FOUND");
        app.put(&path, &key, &json!({"title": "x"}))
            .await
            .error(404, "NOT_FOUND");
        app.delete(&path, &key).await.error(404, "NOT_FOUND");
    }
}

#[tokio::test]
async fn list_has_the_spec_shape_and_defaults() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let empty = app.get("/forms", &key).await;
    assert_eq!(
        empty.ok(200),
        &json!({"forms": [], "pagination": {"total": 0, "page": 1, "per_page": 25, "total_pages": 0}})
    );
    let form = app
        .create_form(
            &key,
            &json!({"title": "Listed", "description": "d",
                    "fields": [{"type": "number", "label": "Age", "required": false}],
                    "settings": {"max_responses": 3}}),
        )
        .await;
    let reply = app.get("/forms", &key).await;
    let data = reply.ok(200);
    assert_eq!(keys_of(data), ["forms", "pagination"]);
    assert_eq!(
        data["pagination"],
        json!({"total": 1, "page": 1, "per_page": 25, "total_pages": 1})
    );
    let item = &data["forms"][0];
    assert_form_shape(item);
    assert_eq!(item, &form, "a list item carries the whole form");
}

#[tokio::test]
async fn list_paginates_newest_first() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let form = app
            .create_form(&key, &json!({"title": format!("Form {i}")}))
            .await;
        ids.push(id_of(&form));
    }
    ids.reverse(); // newest first
    let page = |n: u32| format!("/forms?per_page=2&page={n}");
    let mut seen = Vec::new();
    for (n, expected_len) in [(1, 2), (2, 2), (3, 1)] {
        let reply = app.get(&page(n), &key).await;
        let data = reply.ok(200);
        assert_eq!(
            data["pagination"],
            json!({"total": 5, "page": n, "per_page": 2, "total_pages": 3})
        );
        let forms = data["forms"].as_array().expect("forms");
        assert_eq!(forms.len(), expected_len);
        seen.extend(forms.iter().map(id_of));
    }
    assert_eq!(seen, ids, "pages cover every form once, newest first");
    let beyond = app.get(&page(4), &key).await;
    let data = beyond.ok(200);
    assert_eq!(data["forms"], json!([]));
    assert_eq!(data["pagination"]["total"], 5);
    assert_eq!(data["pagination"]["page"], 4);
}

#[tokio::test]
async fn list_per_page_above_100_is_clamped() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    app.create_form(&key, &json!({"title": "One"})).await;
    for per_page in [101, 500, 1000] {
        let reply = app.get(&format!("/forms?per_page={per_page}"), &key).await;
        assert_eq!(
            reply.ok(200)["pagination"],
            json!({"total": 1, "page": 1, "per_page": 100, "total_pages": 1})
        );
    }
    let exact = app.get("/forms?per_page=100", &key).await;
    assert_eq!(exact.ok(200)["pagination"]["per_page"], 100);
    let one = app.get("/forms?per_page=1", &key).await;
    assert_eq!(one.ok(200)["pagination"]["per_page"], 1);
}

#[tokio::test]
async fn list_rejects_bad_paging_values() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    for query in [
        "page=0",
        "page=-1",
        "per_page=0",
        "per_page=-5",
        "page=abc",
        "per_page=ten",
        "page=1.5",
        "per_page=2.0",
        "page=",
    ] {
        let reply = app.get(&format!("/forms?{query}"), &key).await;
        reply.error(422, "VALIDATION_ERROR");
    }
}

#[tokio::test]
async fn list_filters_by_status() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let draft = app.create_form(&key, &json!({"title": "Draft"})).await;
    let published = app.create_form(&key, &json!({"title": "Published"})).await;
    let archived = app.create_form(&key, &json!({"title": "Archived"})).await;
    for (form, status) in [(&published, "published"), (&archived, "archived")] {
        app.put(
            &format!("/forms/{}", id_of(form)),
            &key,
            &json!({"status": status}),
        )
        .await
        .ok(200);
    }
    let titles = |reply: &Reply| -> Vec<String> {
        reply.ok(200)["forms"]
            .as_array()
            .expect("forms")
            .iter()
            .map(|f| f["title"].as_str().expect("title").to_owned())
            .collect()
    };
    for (status, expected) in [
        ("draft", vec!["Draft"]),
        ("published", vec!["Published"]),
        ("archived", vec!["Archived"]),
        ("all", vec!["Archived", "Published", "Draft"]),
    ] {
        let reply = app.get(&format!("/forms?status={status}"), &key).await;
        assert_eq!(titles(&reply), expected, "status={status}");
        assert_eq!(
            reply.body["data"]["pagination"]["total"],
            expected.len(),
            "total with status={status}"
        );
        for form in reply.body["data"]["forms"].as_array().expect("forms") {
            if status != "all" {
                assert_eq!(form["status"], status);
            }
        }
    }
    let default = app.get("/forms", &key).await;
    assert_eq!(titles(&default), ["Archived", "Published", "Draft"]);
    assert_eq!(draft["status"], "draft");
}

#[tokio::test]
async fn list_rejects_an_invalid_status() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, READ).await;
    for status in ["open", "PUBLISHED", "deleted", "draft,published"] {
        app.get(&format!("/forms?status={status}"), &key)
            .await
            .error(422, "VALIDATION_ERROR");
    }
}

#[tokio::test]
async fn list_search_is_a_case_insensitive_title_substring() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    for title in [
        "Customer Feedback",
        "feedback (internal)",
        "Job application",
        "50% off survey",
        "500 club",
        "under_score",
        "underXscore",
    ] {
        app.create_form(&key, &json!({"title": title, "description": "feedback"}))
            .await;
    }
    let search = |q: &'static str| {
        let app = &app;
        let key = &key;
        async move {
            let reply = app.get(&format!("/forms?search={q}"), key).await;
            let mut titles: Vec<String> = reply.ok(200)["forms"]
                .as_array()
                .expect("forms")
                .iter()
                .map(|f| f["title"].as_str().expect("title").to_owned())
                .collect();
            titles.sort();
            assert_eq!(
                reply.body["data"]["pagination"]["total"],
                titles.len(),
                "total matches the filter"
            );
            titles
        }
    };
    assert_eq!(
        search("FEEDBACK").await,
        ["Customer Feedback", "feedback (internal)"]
    );
    assert_eq!(search("job%20APP").await, ["Job application"]);
    // % and _ are literal characters, not wildcards.
    assert_eq!(search("50%25").await, ["50% off survey"]);
    assert_eq!(search("%25").await, ["50% off survey"]);
    assert_eq!(search("under_").await, ["under_score"]);
    assert_eq!(search("_").await, ["under_score"]);
    assert_eq!(search("nothing-like-this").await, Vec::<String>::new());
    // The search is on titles only (every description says "feedback").
    assert_eq!(search("application").await, ["Job application"]);
    // Search combines with the status filter.
    let reply = app
        .get("/forms?search=feedback&status=published", &key)
        .await;
    assert_eq!(reply.ok(200)["forms"], json!([]));
}

#[tokio::test]
async fn update_is_partial() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app
        .create_form(
            &key,
            &json!({"title": "Original", "description": "Keep me",
                    "fields": [{"type": "short_text", "label": "Name", "required": true}],
                    "settings": {"confirmation_message": "Thanks"}}),
        )
        .await;
    let path = format!("/forms/{}", id_of(&form));
    let reply = app.put(&path, &key, &json!({"title": "Renamed"})).await;
    let updated = &reply.ok(200)["form"];
    assert_form_shape(updated);
    assert_eq!(updated["title"], "Renamed");
    for kept in [
        "id",
        "description",
        "fields",
        "settings",
        "status",
        "short_id",
        "created_at",
        "published_at",
    ] {
        assert_eq!(updated[kept], form[kept], "{kept} kept");
    }
    assert!(assert_timestamp(&updated["updated_at"]) >= assert_timestamp(&form["updated_at"]));
    // The change is stored, not only echoed.
    let got = app.get(&path, &key).await;
    assert_eq!(&got.ok(200)["form"], updated);

    // An empty body changes nothing but the update time.
    let empty = app.put(&path, &key, &json!({})).await;
    let after = &empty.ok(200)["form"];
    assert_eq!(after["title"], "Renamed");
    assert_eq!(after["fields"], form["fields"]);

    // description can be replaced and cleared.
    let described = app
        .put(&path, &key, &json!({"description": "New words"}))
        .await;
    assert_eq!(described.ok(200)["form"]["description"], "New words");
    let cleared = app.put(&path, &key, &json!({"description": null})).await;
    assert_eq!(cleared.ok(200)["form"]["description"], Value::Null);
    assert_eq!(cleared.body["data"]["form"]["title"], "Renamed");
}

#[tokio::test]
async fn update_merges_settings_key_by_key() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app
        .create_form(
            &key,
            &json!({"title": "Settings", "settings": {
                "confirmation_message": "Thanks", "notifications_enabled": false,
                "redirect_url": "https://example.com/done"}}),
        )
        .await;
    let path = format!("/forms/{}", id_of(&form));
    let reply = app
        .put(
            &path,
            &key,
            &json!({"settings": {"notifications_enabled": true, "custom_key": [1, 2]}}),
        )
        .await;
    let expected = json!({
        "confirmation_message": "Thanks",
        "notifications_enabled": true,
        "redirect_url": "https://example.com/done",
        "custom_key": [1, 2]
    });
    assert_eq!(reply.ok(200)["form"]["settings"], expected);
    assert_eq!(
        app.get(&path, &key).await.ok(200)["form"]["settings"],
        expected
    );
    // An empty settings object keeps everything.
    let same = app.put(&path, &key, &json!({"settings": {}})).await;
    assert_eq!(same.ok(200)["form"]["settings"], expected);
}

#[tokio::test]
async fn publishing_sets_published_at_the_first_time_only() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app.create_form(&key, &json!({"title": "Launch"})).await;
    let path = format!("/forms/{}", id_of(&form));
    let published = app.put(&path, &key, &json!({"status": "published"})).await;
    let first = published.ok(200)["form"].clone();
    assert_eq!(first["status"], "published");
    let published_at = assert_timestamp(&first["published_at"]);
    assert!(published_at >= assert_timestamp(&form["created_at"]));
    assert_eq!(first["published_at"], first["updated_at"]);

    let drafted = app.put(&path, &key, &json!({"status": "draft"})).await;
    let drafted = &drafted.ok(200)["form"];
    assert_eq!(drafted["status"], "draft");
    assert_eq!(drafted["published_at"], first["published_at"]);

    let again = app.put(&path, &key, &json!({"status": "published"})).await;
    let again = &again.ok(200)["form"];
    assert_eq!(again["status"], "published");
    assert_eq!(
        again["published_at"], first["published_at"],
        "first time only"
    );

    let archived = app.put(&path, &key, &json!({"status": "archived"})).await;
    let archived = &archived.ok(200)["form"];
    assert_eq!(archived["status"], "archived");
    assert_eq!(archived["published_at"], first["published_at"]);

    // Archiving a never-published form leaves published_at null.
    let other = app.create_form(&key, &json!({"title": "Shelved"})).await;
    let reply = app
        .put(
            &format!("/forms/{}", id_of(&other)),
            &key,
            &json!({"status": "archived"}),
        )
        .await;
    assert_eq!(reply.ok(200)["form"]["published_at"], Value::Null);
}

#[tokio::test]
async fn update_rejects_an_invalid_status() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app.create_form(&key, &json!({"title": "Status"})).await;
    let path = format!("/forms/{}", id_of(&form));
    for status in [
        json!("live"),
        json!("PUBLISHED"),
        json!(""),
        json!(2),
        json!(null),
    ] {
        app.put(&path, &key, &json!({"status": status, "title": "Changed"}))
            .await
            .error(422, "VALIDATION_ERROR");
    }
    let got = app.get(&path, &key).await;
    assert_eq!(
        got.ok(200)["form"],
        form,
        "a refused update changes nothing"
    );
}

#[tokio::test]
async fn update_fields_keeps_ids_assigns_new_ones_and_refuses_unknown_ones() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app
        .create_form(
            &key,
            &json!({"title": "Fields", "fields": [
                {"type": "short_text", "label": "Name", "required": true},
                {"type": "email", "label": "Email", "required": false}
            ]}),
        )
        .await;
    let path = format!("/forms/{}", id_of(&form));
    let name_id = form["fields"][0]["id"].clone();
    let email_id = form["fields"][1]["id"].clone();

    // Reorder, rename one, drop none, add one.
    let reply = app
        .put(
            &path,
            &key,
            &json!({"fields": [
                {"id": email_id, "type": "email", "label": "E-mail address", "required": true},
                {"id": name_id, "type": "short_text", "label": "Name", "required": true},
                {"type": "number", "label": "Age", "required": false}
            ]}),
        )
        .await;
    let fields = reply.ok(200)["form"]["fields"]
        .as_array()
        .expect("fields")
        .clone();
    assert_eq!(fields.len(), 3);
    assert_eq!(fields[0]["id"], email_id);
    assert_eq!(fields[0]["label"], "E-mail address");
    assert_eq!(fields[0]["required"], true);
    assert_eq!(fields[1]["id"], name_id);
    let new_id = assert_uuid(fields[2]["id"].as_str().expect("new id"));
    assert!(new_id.to_string() != name_id && new_id.to_string() != email_id);
    assert_eq!(fields[2]["type"], "number");

    // Dropping a field by leaving it out.
    let reply = app
        .put(
            &path,
            &key,
            &json!({"fields": [{"id": name_id, "type": "short_text", "label": "Name", "required": true}]}),
        )
        .await;
    let fields = reply.ok(200)["form"]["fields"].clone();
    assert_eq!(fields.as_array().expect("fields").len(), 1);
    assert_eq!(fields[0]["id"], name_id);

    // An id that is not a field of this form is refused, and nothing changes.
    let stranger = uuid::Uuid::new_v4().to_string();
    for bad in [json!(stranger), json!(email_id), json!("not-a-uuid")] {
        app.put(
            &path,
            &key,
            &json!({"title": "Should not stick", "fields": [
                {"id": bad, "type": "short_text", "label": "X", "required": false}
            ]}),
        )
        .await
        .error(422, "VALIDATION_ERROR");
    }
    let got = app.get(&path, &key).await;
    let got = &got.ok(200)["form"];
    assert_eq!(got["title"], "Fields");
    assert_eq!(got["fields"], fields);

    // Field ids of another form are unknown here too.
    let other = app
        .create_form(
            &key,
            &json!({"title": "Other", "fields": [{"type": "email", "label": "E", "required": false}]}),
        )
        .await;
    app.put(
        &path,
        &key,
        &json!({"fields": [{"id": other["fields"][0]["id"], "type": "email", "label": "E", "required": false}]}),
    )
    .await
    .error(422, "VALIDATION_ERROR");

    // Invalid type on update.
    app.put(
        &path,
        &key,
        &json!({"fields": [{"type": "dropdown", "label": "Pick", "required": false}]}),
    )
    .await
    .error(422, "VALIDATION_ERROR");
}

#[tokio::test]
async fn update_validates_title() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app.create_form(&key, &json!({"title": "Keep"})).await;
    let path = format!("/forms/{}", id_of(&form));
    for title in [json!(""), json!(null), json!(7)] {
        app.put(&path, &key, &json!({"title": title}))
            .await
            .error(422, "VALIDATION_ERROR");
    }
    assert_eq!(app.get(&path, &key).await.ok(200)["form"]["title"], "Keep");
}

#[tokio::test]
async fn delete_returns_204_with_an_empty_body() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let keep = app.create_form(&key, &json!({"title": "Keep"})).await;
    let form = app.create_form(&key, &json!({"title": "Doomed"})).await;
    let path = format!("/forms/{}", id_of(&form));
    let reply = app.delete(&path, &key).await;
    assert_eq!(reply.status, 204);
    assert_eq!(reply.text, "", "204 has an empty body");
    reply.assert_common_headers();
    app.get(&path, &key).await.error(404, "NOT_FOUND");
    app.put(&path, &key, &json!({"title": "Back?"}))
        .await
        .error(404, "NOT_FOUND");
    app.delete(&path, &key).await.error(404, "NOT_FOUND");
    let list = app.get("/forms", &key).await;
    let data = list.ok(200);
    assert_eq!(data["pagination"]["total"], 1);
    assert_eq!(data["forms"][0]["id"], keep["id"]);
}

#[tokio::test]
async fn json_integers_round_trip_as_integers() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let settings = json!({
        "max_responses": 3,
        "zero": 0,
        "negative": -7,
        "fraction": 2.5,
        "nested": {"list": [1, 2.25, "x", null, true], "deep": {"n": 42}},
        "big": 9_007_199_254_740_991_i64
    });
    let reply = app
        .post(
            "/forms",
            &key,
            &json!({"title": "Numbers", "settings": settings,
                    "fields": [{"type": "file_upload", "label": "F", "required": false,
                                "max_size_mb": 10}]}),
        )
        .await;
    let form = reply.ok(201)["form"].clone();
    assert_eq!(form["settings"], settings);
    assert!(
        reply.text.contains(r#""max_responses":3"#),
        "{}",
        reply.text
    );
    // (Not "3.0" anywhere: a timestamp's seconds can read "…:23.0…".)
    assert!(
        !reply.text.contains(r#""max_responses":3.0"#),
        "{}",
        reply.text
    );
    assert!(reply.text.contains(r#""max_size_mb":10"#), "{}", reply.text);
    assert!(reply.text.contains(r#""n":42"#), "{}", reply.text);

    let path = format!("/forms/{}", id_of(&form));
    for reply in [
        app.get(&path, &key).await,
        app.get("/forms", &key).await,
        app.put(&path, &key, &json!({"settings": {"max_responses": 5}}))
            .await,
    ] {
        assert!(reply.status == 200, "{}", reply.text);
        assert!(!reply.text.contains(".0,"), "{}", reply.text);
        assert!(!reply.text.contains(".0}"), "{}", reply.text);
        assert!(reply.text.contains(r#""max_size_mb":10"#), "{}", reply.text);
    }
    let got = app.get(&path, &key).await;
    assert_eq!(got.ok(200)["form"]["settings"]["max_responses"], json!(5));
    assert_eq!(
        got.body["data"]["form"]["settings"]["nested"],
        settings["nested"]
    );
}

#[tokio::test]
async fn known_settings_are_validated() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    for settings in [
        json!({"notifications_enabled": "yes"}),
        json!({"redirect_url": "not a url"}),
        json!({"redirect_url": 5}),
        json!({"confirmation_message": false}),
    ] {
        app.post("/forms", &key, &json!({"title": "S", "settings": settings}))
            .await
            .error(422, "VALIDATION_ERROR");
    }
    app.post("/forms", &key, &json!({"title": "S", "settings": []}))
        .await
        .error(422, "VALIDATION_ERROR");
    let list = app.get("/forms", &key).await;
    assert_eq!(list.ok(200)["pagination"]["total"], 0);
}

#[tokio::test]
async fn create_with_the_same_idempotency_key_replays() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let idem = uuid::Uuid::new_v4().to_string();
    let body = json!({"title": "Once"});
    let post = |body: Value| {
        send(
            app.request(Method::POST, "/forms")
                .header("x-api-key", &key)
                .header("idempotency-key", &idem)
                .json(&body),
        )
    };
    let first = post(body.clone()).await;
    let form = first.ok(201)["form"].clone();
    assert!(first.headers.get("idempotent-replayed").is_none());
    let second = post(body.clone()).await;
    assert_eq!(
        second.ok(201)["form"],
        form,
        "the original reply is replayed"
    );
    assert_eq!(second.header("idempotent-replayed"), "true");
    let list = app.get("/forms", &key).await;
    assert_eq!(list.ok(200)["pagination"]["total"], 1, "no second form");
    // The same key with another body is refused.
    post(json!({"title": "Twice"}))
        .await
        .error(422, "VALIDATION_ERROR");
}

#[tokio::test]
async fn create_assigns_field_ids_even_when_the_client_sends_some() {
    // SPEC: fields are sent "without id" and the service assigns each field's id; the
    // proto documents FormField.id as "Ignored on create". A client that copies a form
    // (GET, then POST the same fields) must not be refused.
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let original = app
        .create_form(
            &key,
            &json!({"title": "Original", "fields": [
                {"type": "email", "label": "Email", "required": true}
            ]}),
        )
        .await;
    let reply = app
        .post(
            "/forms",
            &key,
            &json!({"title": "Copy", "fields": original["fields"]}),
        )
        .await;
    let copy = &reply.ok(201)["form"];
    assert_ne!(copy["fields"][0]["id"], original["fields"][0]["id"]);
    assert_uuid(copy["fields"][0]["id"].as_str().expect("id"));
    assert_eq!(copy["fields"][0]["label"], "Email");
}

#[tokio::test]
async fn update_tells_an_absent_property_from_null() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = app
        .create_form(
            &key,
            &json!({"title": "Three states", "description": "Words",
                    "settings": {"confirmation_message": "Thanks"}}),
        )
        .await;
    let path = format!("/forms/{}", id_of(&form));
    // Absent: kept.
    let reply = app.put(&path, &key, &json!({"title": "Renamed"})).await;
    assert_eq!(reply.ok(200)["form"]["description"], "Words");
    // Null: cleared, and stored so.
    let reply = app.put(&path, &key, &json!({"description": null})).await;
    assert_eq!(reply.ok(200)["form"]["description"], Value::Null);
    assert_eq!(reply.body["data"]["form"]["title"], "Renamed");
    let got = app.get(&path, &key).await;
    assert_eq!(got.ok(200)["form"]["description"], Value::Null);
    // A value: set.
    let reply = app.put(&path, &key, &json!({"description": "Back"})).await;
    assert_eq!(reply.ok(200)["form"]["description"], "Back");

    // A null title asks for no title, which the core refuses as it refuses an empty one.
    let message = |reply: &Reply| -> String {
        reply.error(422, "VALIDATION_ERROR")["message"]
            .as_str()
            .expect("message")
            .to_owned()
    };
    let null_title = message(&app.put(&path, &key, &json!({"title": null})).await);
    let empty_title = message(&app.put(&path, &key, &json!({"title": ""})).await);
    assert_eq!(null_title, empty_title);

    // Properties that cannot be cleared refuse null, by name, and nothing changes.
    for property in ["fields", "settings", "status"] {
        let reply = app
            .put(
                &path,
                &key,
                &json!({property: null, "description": "Not stored"}),
            )
            .await;
        let refused = message(&reply);
        assert!(
            refused.starts_with(&format!("{property}: ")),
            "{property}: {refused}"
        );
    }
    let got = app.get(&path, &key).await;
    let got = &got.ok(200)["form"];
    assert_eq!(got["description"], "Back");
    assert_eq!(got["title"], "Renamed");
    assert_eq!(got["settings"]["confirmation_message"], "Thanks");
}

#[tokio::test]
async fn a_value_of_the_wrong_json_type_is_422_naming_the_property() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let short = json!({"type": "short_text", "label": "A", "required": false});
    for (body, property) in [
        (
            json!({"title": "T", "fields": [short, {"type": "email", "label": 7}]}),
            "fields[1].label",
        ),
        (
            json!({"title": "T", "fields": [{"type": "short_text", "label": "A", "required": "yes"}]}),
            "fields[0].required",
        ),
        (
            json!({"title": "T", "fields": [short, short, {"type": "number", "label": "N", "points": 1.5}]}),
            "fields[2].points",
        ),
        (
            json!({"title": "T", "fields": [{"type": "file_upload", "label": "F", "allowed_types": ["png", 1]}]}),
            "fields[0].allowed_types[1]",
        ),
        (json!({"title": "T", "fields": {"type": "email"}}), "fields"),
        (json!({"title": "T", "fields": null}), "fields"),
        (json!({"title": "T", "settings": null}), "settings"),
        (json!({"title": ["T"]}), "title"),
        (json!({"title": "T", "description": false}), "description"),
    ] {
        let reply = app.post("/forms", &key, &body).await;
        let message = reply.error(422, "VALIDATION_ERROR")["message"]
            .as_str()
            .expect("message")
            .to_owned();
        assert!(
            message.starts_with(&format!("{property}: ")),
            "{body}: {message}"
        );
    }
    let list = app.get("/forms", &key).await;
    assert_eq!(
        list.ok(200)["pagination"]["total"],
        0,
        "nothing was created"
    );
}

#[tokio::test]
async fn form_definitions_are_bounded_and_redirects_are_clean_urls() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    // 95,000 extensions fit in the body limit; the list is refused by its length.
    let many: Vec<String> = (0..95_000).map(|i| format!("e{i}")).collect();
    let body = json!({"title": "Files", "fields": [
        {"type": "file_upload", "label": "CV", "allowed_types": many}
    ]});
    assert!(serde_json::to_vec(&body).expect("json").len() < 1024 * 1024);
    let error = app
        .post("/forms", &key, &body)
        .await
        .error(422, "VALIDATION_ERROR")
        .clone();
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("at most 50")),
        "{error}"
    );
    // Duplicates within the limit are dropped, spelling normalised.
    let body = json!({"title": "Files", "fields": [
        {"type": "file_upload", "label": "CV", "allowed_types": ["pdf", ".PDF", "png", "pdf"]}
    ]});
    let form = app.create_form(&key, &body).await;
    assert_eq!(form["fields"][0]["allowed_types"], json!(["pdf", "png"]));
    // A redirect URL is later a Location header: control characters are refused.
    for bad in [
        "https://example.com/\u{7}x",
        "https://example.com/a\u{0}b",
        "https://exa mple.com/",
        "http://",
    ] {
        let body = json!({"title": "R", "settings": {"redirect_url": bad}});
        app.post("/forms", &key, &body)
            .await
            .error(422, "VALIDATION_ERROR");
    }
}

#[tokio::test]
async fn readers_sharing_a_read_see_every_update_made_before_they_asked() {
    // Clients reading one form together share one read (core/db/shared.rs), but only a
    // read sent after each of them arrived: an update acknowledged (on another
    // instance) before a GET was sent is in that GET's answer.
    let reader = std::sync::Arc::new(TestApp::spawn().await);
    let writer = TestApp::spawn_on(reader.db.clone(), &[]).await;
    let key = reader.key(PRO, ALL).await;
    let form = reader
        .post("/forms", &key, &json!({"title": "v0", "fields": []}))
        .await
        .ok(201)["form"]
        .clone();
    let path = format!("/forms/{}", id_of(&form));
    let acknowledged = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut readers = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (app, key, path) = (reader.clone(), key.clone(), path.clone());
        let (acknowledged, done) = (acknowledged.clone(), done.clone());
        readers.spawn(async move {
            let mut reads = 0;
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                let before = acknowledged.load(std::sync::atomic::Ordering::SeqCst);
                let got = app.get(&path, &key).await;
                let title = got.ok(200)["form"]["title"].as_str().map(str::to_owned);
                let version: usize = title
                    .as_deref()
                    .and_then(|t| t.strip_prefix('v')?.parse().ok())
                    .expect("a title v<n>");
                assert!(
                    version >= before,
                    "read v{version} after v{before} was acknowledged"
                );
                reads += 1;
            }
            reads
        });
    }
    for n in 1..=40 {
        writer
            .put(&path, &key, &json!({"title": format!("v{n}")}))
            .await
            .ok(200);
        acknowledged.store(n, std::sync::atomic::Ordering::SeqCst);
    }
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut reads = 0;
    while let Some(result) = readers.join_next().await {
        reads += result.expect("reader");
    }
    assert!(reads >= 8, "{reads} reads");
    let last = reader.get(&path, &key).await;
    assert_eq!(last.ok(200)["form"]["title"], "v40");
}

#[tokio::test]
async fn readers_of_other_accounts_never_share_a_read_of_a_form() {
    // SPEC: another account's form is not found. Reads are shared only among requests
    // of the same account: a stranger asking with the owner never gets the owner's form.
    let app = std::sync::Arc::new(TestApp::spawn().await);
    let owner = app.key(PRO, ALL).await;
    let stranger = app.key(PRO, ALL).await;
    let form = app.create_form(&owner, &json!({"title": "Mine"})).await;
    let path = format!("/forms/{}", id_of(&form));
    let mut readers = tokio::task::JoinSet::new();
    for n in 0..16 {
        let (app, path) = (app.clone(), path.clone());
        let (key, status) = match n % 2 {
            0 => (owner.clone(), 200),
            _ => (stranger.clone(), 404),
        };
        readers.spawn(async move {
            for _ in 0..20 {
                let reply = app.get(&path, &key).await;
                assert_eq!(reply.status, status, "{}", reply.text);
            }
        });
    }
    while let Some(done) = readers.join_next().await {
        done.expect("reader");
    }
}

#[tokio::test]
async fn readers_that_leave_half_way_never_wedge_a_form() {
    // Clients that give up on a shared read after 1–5 ms drop their place in the read's
    // queue, sometimes just as the read ends and hands them the turn. Each turn must go
    // on: afterwards every reader of the form is still answered.
    let app = std::sync::Arc::new(TestApp::spawn().await);
    let key = app.key(forms::accounts::Plan::Enterprise, ALL).await;
    let form = app.create_form(&key, &json!({"title": "Read"})).await;
    let path = format!("/forms/{}", id_of(&form));
    let mut leaving = tokio::task::JoinSet::new();
    for n in 0..16u64 {
        let (app, key, path) = (app.clone(), key.clone(), path.clone());
        leaving.spawn(async move {
            for i in 0..40u64 {
                let patience = std::time::Duration::from_millis(1 + (n + i) % 5);
                let request = app
                    .request(Method::GET, &path)
                    .header("x-api-key", &key)
                    .timeout(patience);
                let _ = request.send().await;
            }
        });
    }
    while let Some(done) = leaving.join_next().await {
        done.expect("reader");
    }
    let mut staying = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (app, key, path) = (app.clone(), key.clone(), path.clone());
        staying.spawn(async move {
            let request = app
                .request(Method::GET, &path)
                .header("x-api-key", &key)
                .timeout(std::time::Duration::from_secs(30));
            request.send().await.map(|reply| reply.status().as_u16())
        });
    }
    while let Some(done) = staying.join_next().await {
        let status = done.expect("reader").map_err(|e| e.to_string());
        assert_eq!(status, Ok(200), "a reader after the others left");
    }
}
