//! A form in several languages (issue 32 §2): its languages set over REST, the hosted
//! page in the visitor's language (`?lang=`, else `Accept-Language` among the form's,
//! else its default) with its own words in that language too, right to left for
//! Arabic, and unknown languages refused in SPEC's envelope; the language each response
//! was answered in, in the API, its filter, the summary and the exports.

use crate::fixtures::*;
use crate::harness::*;
use crate::hosted::{DESKTOP, Page, Visitor};
use serde_json::{Value, json};

/// A published form with a required name and a colour choice, in English (its
/// default), German and Arabic; its fields named by `ref` in the translations.
async fn form_in_three(app: &TestApp, key: &str) -> Value {
    let body = json!({
        "title": "Survey",
        "fields": [
            {"type": "short_text", "label": "Your name", "required": true, "ref": "name"},
            {"type": "single_choice", "label": "Colour", "ref": "colour",
             "options": [{"id": "red", "label": "Red"}, {"id": "blue", "label": "Blue"}]}
        ],
        "settings": {"confirmation_message": "Thanks!"},
        "translations": {
            "de": {"title": "Umfrage", "confirmation_message": "Danke schön!",
                   "fields": {"name": {"label": "Ihr Name"},
                              "colour": {"label": "Farbe", "options": {"red": "Rot", "blue": "Blau"}}}},
            "ar": {"title": "استطلاع",
                   "fields": {"name": {"label": "اسمك"},
                              "colour": {"label": "اللون", "options": {"red": "أحمر"}}}}
        }
    });
    let form = app.create_form(key, &body).await;
    let id = form["id"].as_str().expect("form id");
    let reply = app
        .put(
            &format!("/forms/{id}"),
            key,
            &json!({"status": "published"}),
        )
        .await;
    reply.ok(200)["form"].clone()
}

async fn open(visitor: &mut Visitor, short_id: &str, query: &str, accept: Option<&str>) -> Page {
    let mut request = visitor
        .client
        .get(format!("{}/f/{short_id}{query}", visitor.origin));
    if let Some(accept) = accept {
        request = request.header("accept-language", accept);
    }
    if let Some(cookie) = &visitor.cookie {
        request = request.header("cookie", cookie);
    }
    let reply = request.send().await.expect("GET page");
    visitor.finish(reply).await
}

#[tokio::test]
async fn the_page_speaks_the_visitors_language_among_the_forms() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = form_in_three(&app, &key).await;
    assert_eq!(form["default_language"], "en");
    let name_id = form["fields"][0]["id"]
        .as_str()
        .expect("field id")
        .to_owned();
    // Keyed by field id once stored (the request named them by ref).
    assert_eq!(
        form["translations"]["de"]["fields"][&name_id]["label"],
        "Ihr Name"
    );
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let mut visitor = Visitor::new(&app);

    // Accept-Language: German labels and German page words.
    let de = open(&mut visitor, &short_id, "", Some("de-CH, en;q=0.5")).await;
    assert_eq!(de.status, 200);
    assert!(de.html.contains("<html lang=\"de\">"), "{}", de.html);
    for text in [
        "Umfrage",
        ">Ihr Name",
        ">Farbe",
        ">Rot",
        ">Blau",
        ">Absenden<",
    ] {
        assert!(de.html.contains(text), "{text} missing: {}", de.html);
    }
    assert!(!de.html.contains(">Submit<"));
    // The switcher: the other languages as plain links, each named in itself.
    assert!(de.html.contains(&format!("href=\"/f/{short_id}?lang=ar\"")));
    assert!(de.html.contains(&format!("href=\"/f/{short_id}?lang=en\"")));
    assert!(
        de.html
            .contains("aria-current=\"true\" lang=\"de\">Deutsch<")
    );

    // ?lang= wins over Accept-Language; Arabic is right to left, its option left out
    // of the translation shown in the default language.
    let ar = open(&mut visitor, &short_id, "?lang=ar", Some("de")).await;
    assert!(
        ar.html.contains("<html lang=\"ar\" dir=\"rtl\">"),
        "{}",
        ar.html
    );
    for text in ["استطلاع", ">اسمك", ">أحمر", ">Blue", ">إرسال<"] {
        assert!(ar.html.contains(text), "{text} missing: {}", ar.html);
    }
    // The page posts its language, and a one-page form posts back to it.
    assert!(ar.html.contains("name=\"_lang\" value=\"ar\""));
    assert!(
        ar.html
            .contains(&format!("action=\"/f/{short_id}?lang=ar\""))
    );

    // A language the form is not in: its default.
    let fr = open(&mut visitor, &short_id, "?lang=fr", Some("fr, ja;q=0.8")).await;
    assert!(fr.html.contains("<html lang=\"en\">"));
    assert!(fr.html.contains(">Your name") && fr.html.contains(">Submit<"));

    // A refusal in German: the page's banner and the field's problem in German words
    // with the German label.
    let refused = visitor
        .submit(
            &short_id,
            DESKTOP,
            &[("_token", &de.token()), ("_lang", "de"), (&name_id, "")],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.html);
    assert!(refused.html.contains("<html lang=\"de\">"));
    assert!(
        refused
            .html
            .contains("Bitte korrigieren Sie die markierten Felder.")
    );
    assert!(
        refused.html.contains("„Ihr Name“ ist ein Pflichtfeld"),
        "{}",
        refused.html
    );

    // A German submission is thanked in German, with the German confirmation.
    let done = visitor
        .submit(
            &short_id,
            DESKTOP,
            &[
                ("_token", &refused.token()),
                ("_lang", "de"),
                (&name_id, "Ada"),
            ],
        )
        .await;
    assert_eq!(done.status, 200, "{}", done.html);
    assert!(done.html.contains("<html lang=\"de\">"));
    assert!(done.html.contains(">Danke schön!<"), "{}", done.html);
    assert!(done.html.contains(">Antwort gesendet<"));
    // The answer is the option's id, whatever the language.
    let responses = app
        .get(
            &format!("/forms/{}/responses", form["id"].as_str().expect("id")),
            &key,
        )
        .await;
    assert_eq!(
        responses.ok(200)["responses"][0]["answers"][&name_id],
        "Ada"
    );
}

#[tokio::test]
async fn a_form_in_one_language_stays_english_and_unknown_tags_are_refused() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, contact_fields(), Value::Null).await;
    // A form in English alone keeps SPEC's properties only.
    assert!(form.get("default_language").is_none() && form.get("translations").is_none());
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let mut visitor = Visitor::new(&app);
    // The visitor's German is not among the form's languages: English, no switcher.
    let page = open(&mut visitor, &short_id, "?lang=de", Some("de")).await;
    assert!(page.html.contains("<html lang=\"en\">"));
    assert!(!page.html.contains("class=\"langs\"") && !page.html.contains("_lang"));

    let id = form["id"].as_str().expect("form id");
    let path = format!("/forms/{id}");
    let reply = app
        .put(
            &path,
            &key,
            &json!({"translations": {"xx": {"title": "?"}}}),
        )
        .await;
    let message = reply.error(422, "VALIDATION_ERROR")["message"].clone();
    assert!(
        message
            .as_str()
            .is_some_and(|m| m.starts_with("translations.xx: the language must be one of")),
        "{message}"
    );
    // The API's languages are `pb::FORM_LANGUAGES`, which the hosted page and the
    // builder read (their unit tests hold their words to the same tags, in order).
    assert!(
        message
            .as_str()
            .is_some_and(|m| m.contains("en, de, fr, es, it, pt, nl, pl, ja, ar")),
        "{message}"
    );
    assert_eq!(
        forms::pb::FORM_LANGUAGES.join(", "),
        "en, de, fr, es, it, pt, nl, pl, ja, ar"
    );
    let reply = app
        .put(&path, &key, &json!({"default_language": "klingon"}))
        .await;
    let message = reply.error(422, "VALIDATION_ERROR")["message"].clone();
    assert!(
        message
            .as_str()
            .is_some_and(|m| m.starts_with("default_language must be one of")),
        "{message}"
    );
    let reply = app
        .put(
            &path,
            &key,
            &json!({"translations": {"de": {"fields": {"nope": {"label": "x"}}}}}),
        )
        .await;
    let message = reply.error(422, "VALIDATION_ERROR")["message"].clone();
    assert_eq!(
        message,
        "translations.de.fields.nope names no field of this form (by id or ref)"
    );
    let reply = app
        .put(
            &path,
            &key,
            &json!({"translations": {"de": {"titel": "Kontakt"}}}),
        )
        .await;
    reply.error(422, "VALIDATION_ERROR");
    // A translation set later, then the default changed: the form's languages follow.
    let reply = app
        .put(
            &path,
            &key,
            &json!({"translations": {"de": {"title": "Kontakt"}}, "default_language": "fr"}),
        )
        .await;
    let form = reply.ok(200)["form"].clone();
    assert_eq!(form["default_language"], "fr");
    assert_eq!(form["translations"]["de"]["title"], "Kontakt");
    let page = open(&mut visitor, &short_id, "", Some("de")).await;
    assert!(page.html.contains("<html lang=\"de\">") && page.html.contains(">Kontakt<"));
    let page = open(&mut visitor, &short_id, "", None).await;
    assert!(page.html.contains("<html lang=\"fr\">") && page.html.contains(">Envoyer<"));
}

#[tokio::test]
async fn chromium_at_phone_width_shows_the_arabic_page_mirrored() {
    if !crate::browser::browser_available() {
        return;
    }
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = form_in_three(&app, &key).await;
    let short_id = form["short_id"].as_str().expect("short id");
    let origin = app.http_base.trim_end_matches("/api/v1").to_owned();
    let shots = concat!(env!("CARGO_MANIFEST_DIR"), "/target/screenshots");
    std::fs::create_dir_all(shots).expect("screenshots folder");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/languages.mjs");
    let url = format!("{origin}/f/{short_id}");
    let mut seen = Vec::new();
    for (locale, shot) in [
        ("ar", "languages-ar-390.png"),
        ("de-DE", "languages-de-390.png"),
    ] {
        let path = format!("{shots}/{shot}");
        let page: Value =
            crate::fixtures::run_browser_script(&[&script, &url, &locale, &path]).await;
        seen.push(page);
    }
    let (ar, de) = (&seen[0], &seen[1]);
    // The browser's own Accept-Language chose the language.
    assert_eq!(ar["lang"], "ar", "{ar}");
    assert_eq!(ar["dir"], "rtl", "{ar}");
    assert_eq!(ar["heading"], "استطلاع", "{ar}");
    assert_eq!(ar["submit"], "إرسال", "{ar}");
    // Mirrored: each option's box at the start of its card, which is the right.
    assert_eq!(ar["boxes"], json!(["right", "right"]), "{ar}");
    assert_eq!(de["boxes"], json!(["left", "left"]), "{de}");
    assert_eq!(de["lang"], "de", "{de}");
    for page in [ar, de] {
        assert_eq!(page["status"], 200, "{page}");
        assert_eq!(page["overflow"], false, "{page}");
        assert_eq!(page["overlaps"], json!([]), "{page}");
        assert_eq!(page["axe"], json!([]), "{page}");
        assert_eq!(page["cspViolations"], json!([]), "{page}");
    }
}

#[tokio::test]
async fn the_response_records_the_language_it_was_answered_in() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = form_in_three(&app, &key).await;
    let (form_id, short_id) = (
        form["id"].as_str().expect("id").to_owned(),
        form["short_id"].as_str().expect("short id").to_owned(),
    );
    let name_id = form["fields"][0]["id"]
        .as_str()
        .expect("field id")
        .to_owned();
    let mut visitor = Visitor::new(&app);
    // Answered in German, twice in Arabic, once with a language a tampered page made up,
    // and once over the API.
    for (query, lang, name) in [
        ("?lang=de", "de", "Ada"),
        ("?lang=ar", "ar", "Ali"),
        ("?lang=ar", "ar", "Amal"),
        ("", "<b>x</b>", "Eve"),
    ] {
        let page = open(&mut visitor, &short_id, query, None).await;
        let done = visitor
            .submit(
                &short_id,
                DESKTOP,
                &[("_token", &page.token()), ("_lang", lang), (&name_id, name)],
            )
            .await;
        assert_eq!(done.status, 200, "{}", done.html);
    }
    app.post(
        &format!("/forms/{form_id}/responses"),
        &key,
        &json!({"answers": {&name_id: "Api"}}),
    )
    .await
    .ok(201);

    // Each response says its language; the made-up one and the API's have none.
    let listed = app
        .get(&format!("/forms/{form_id}/responses?per_page=10"), &key)
        .await
        .ok(200)
        .clone();
    let language_of = |name: &str| {
        listed["responses"]
            .as_array()
            .expect("responses")
            .iter()
            .find(|r| r["answers"][&name_id] == name)
            .map(|r| r["language"].clone())
            .unwrap_or_else(|| panic!("{name} not listed: {listed}"))
    };
    assert_eq!(language_of("Ada"), "de");
    assert_eq!(language_of("Ali"), "ar");
    assert_eq!(language_of("Eve"), Value::Null);
    assert_eq!(language_of("Api"), Value::Null);

    // A filter by language, ignoring case.
    let arabic = app
        .get(&format!("/forms/{form_id}/responses?language=AR"), &key)
        .await
        .ok(200)
        .clone();
    let names: Vec<&Value> = arabic["responses"]
        .as_array()
        .expect("responses")
        .iter()
        .map(|r| &r["answers"][&name_id])
        .collect();
    assert_eq!(names, [&json!("Amal"), &json!("Ali")], "{arabic}");

    // The summary counts them per language.
    let summary = app
        .get(&format!("/forms/{form_id}/summary"), &key)
        .await
        .ok(200)
        .clone();
    assert_eq!(
        summary["summary"]["languages"],
        json!([{"value": "ar", "count": 2}, {"value": "unknown", "count": 2},
               {"value": "de", "count": 1}]),
        "{summary}"
    );

    // Exports carry it: NDJSON as the list does, CSV and XLSX in a last column.
    let ndjson = app
        .get(
            &format!("/forms/{form_id}/responses/export?language=de"),
            &key,
        )
        .await;
    let line: Value = serde_json::from_str(ndjson.text.trim()).expect("one NDJSON line");
    assert_eq!(line["language"], "de", "{}", ndjson.text);
    let csv = app
        .get(
            &format!("/forms/{form_id}/responses/export?format=csv&language=de"),
            &key,
        )
        .await;
    let mut lines = csv.text.lines();
    assert!(
        lines.next().expect("header").ends_with(",Language"),
        "{}",
        csv.text
    );
    assert!(lines.next().expect("row").ends_with(",de"), "{}", csv.text);
}
