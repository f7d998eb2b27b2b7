//! A form's languages in the owners' builder (issue 32 §2), end to end over HTTP
//! against the real binary: the Languages fold adds German and sets the default, the
//! language's own page (`/app/forms/{id}/languages/de`) shows each text beside the
//! form's own with the missing ones marked and saves the translations, which the REST
//! API then shows and the hosted page speaks (`?lang=de`); refusals come back on the
//! page in words, with what was typed kept. Then the same in Chromium, at 1280 and 390
//! px, axe-clean, under the CSP, by keyboard only (`tests/browser/translate.mjs`).

use crate::dashboard_session::{Dashboard, signed_in};
use crate::fixtures::published_form;
use crate::harness::*;
use serde_json::{Value, json};

/// A published form of `d`'s account: a colour choice, a name with a placeholder, a
/// confirmation message, a redirect and a confirmation mail.
async fn survey(app: &TestApp, d: &Dashboard) -> Value {
    let fields = json!([
        {"type": "single_choice", "label": "Colour",
         "options": [{"id": "red", "label": "Red"}, {"id": "blue", "label": "Blue"}]},
        {"type": "short_text", "label": "Your name", "placeholder": "Ada"},
        {"type": "email", "label": "Email", "ref": "email"}
    ]);
    let settings = json!({"confirmation_message": "Thanks!",
        "confirmation_mail": {"field_ref": "email", "subject": "Your answers", "text": "Hello"}});
    let mut form = published_form(app, &d.key, fields, settings).await;
    let id = form["id"].as_str().expect("id").to_owned();
    form = app
        .put(&format!("/forms/{id}"), &d.key, &json!({"title": "Survey"}))
        .await
        .ok(200)["form"]
        .clone();
    form
}

async fn rest_form(app: &TestApp, d: &Dashboard, id: &str) -> Value {
    app.get(&format!("/forms/{id}"), &d.key).await.ok(200)["form"].clone()
}

fn location(reply: &Reply) -> String {
    assert_eq!(reply.status, 303, "{}", reply.text);
    reply.header("location").to_owned()
}

#[tokio::test]
async fn the_builder_adds_german_and_its_texts_which_the_api_and_the_page_show() {
    let app = TestApp::spawn().await;
    let d = signed_in(&app, "languages-builder").await;
    let form = survey(&app, &d).await;
    let id = form["id"].as_str().expect("id").to_owned();
    let colour = form["fields"][0]["id"]
        .as_str()
        .expect("field id")
        .to_owned();
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let builder = format!("/app/forms/{id}");

    // The fold offers the languages; English is the default and not offered again.
    let page = d.get(&builder).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(
        page.text
            .contains(r#"<label for="lang-add">Add a language</label>"#)
    );
    assert!(
        page.text
            .contains(r#"<option value="de">German (Deutsch)</option>"#)
    );
    assert!(
        !page
            .text
            .contains(r#"<option value="en">English (English)</option>"#)
    );

    let to = location(
        &d.post(
            &format!("{builder}/languages"),
            &[("action", "add"), ("language", "de")],
        )
        .await,
    );
    assert_eq!(to, format!("/app/forms/{id}/languages/de?done=added"));
    let page = d.get(&to).await;
    assert_eq!(page.status, 200, "{}", page.text);
    // Title, colour (label and two options), name (label, placeholder), email, the
    // message, the mail's subject and text: ten texts, none translated yet.
    assert!(
        page.text.contains("0 of 10 texts translated."),
        "{}",
        page.text
    );
    assert_eq!(page.text.matches(">Not translated</span>").count(), 10);
    assert!(page.text.contains("The language was added."));
    let label_box = format!(r#"name="fields/{colour}/label""#);
    assert!(page.text.contains(&label_box), "{}", page.text);
    assert!(page.text.contains(r#"placeholder="Colour""#));
    assert!(
        page.text
            .contains(r#"<p class="tr-source" id="t-1-source" lang="en">"#)
    );

    let to = location(
        &d.post(
            &to.replace("?done=added", ""),
            &[
                ("title", " Umfrage "),
                (&format!("fields/{colour}/label"), "Farbe"),
                (&format!("fields/{colour}/options/red"), ""),
                ("confirmation_mail/subject", "Ihre Antworten"),
            ],
        )
        .await,
    );
    assert_eq!(to, format!("/app/forms/{id}/languages/de?done=saved"));
    let stored = rest_form(&app, &d, &id).await;
    assert_eq!(
        stored["translations"],
        json!({"de": {"title": "Umfrage", "fields": {colour.clone(): {"label": "Farbe"}},
                      "confirmation_mail": {"subject": "Ihre Antworten"}}})
    );
    let page = d.get(&to).await;
    assert!(
        page.text.contains("3 of 10 texts translated."),
        "{}",
        page.text
    );
    assert!(page.text.contains(r#"value="Farbe""#));
    assert_eq!(page.text.matches(">Not translated</span>").count(), 7);
    let page = d.get(&builder).await;
    assert!(
        page.text.contains(&format!(
            r#"<a href="/app/forms/{id}/languages/de">German</a>: 3 of 10 texts"#
        )),
        "{}",
        page.text
    );

    // The respondent's page in German.
    let hosted =
        send(crate::dashboard_session::browser().get(format!("{}/f/{short_id}?lang=de", d.base)))
            .await;
    assert_eq!(hosted.status, 200);
    assert!(
        hosted.text.contains(r#"<html lang="de""#),
        "{}",
        hosted.text
    );
    assert!(hosted.text.contains("Umfrage") && hosted.text.contains("Farbe"));

    // The default: French, then English again; German cannot be it while translated.
    let default = |tag: &'static str| [("action", "default"), ("language", tag)];
    let to = location(
        &d.post(&format!("{builder}/languages"), &default("fr"))
            .await,
    );
    assert_eq!(to, format!("{builder}?done=language-default#languages"));
    assert_eq!(rest_form(&app, &d, &id).await["default_language"], "fr");
    let refused = d
        .post(&format!("{builder}/languages"), &default("de"))
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused
            .text
            .contains("German has texts of its own: remove them on its page first"),
        "{}",
        refused.text
    );
    location(
        &d.post(&format!("{builder}/languages"), &default("en"))
            .await,
    );

    // Removing asks first, then the texts go.
    let remove = format!("{builder}/languages/de/remove");
    let ask = d.post(&remove, &[]).await;
    assert_eq!(ask.status, 200, "{}", ask.text);
    assert!(ask.text.contains("Remove German?") && ask.text.contains("3 translated texts"));
    assert!(rest_form(&app, &d, &id).await["translations"]["de"].is_object());
    let to = location(&d.post(&remove, &[("confirm", "yes")]).await);
    assert_eq!(to, format!("{builder}?done=language-removed#languages"));
    assert!(
        rest_form(&app, &d, &id)
            .await
            .get("translations")
            .is_none_or(|t| t.get("de").is_none())
    );
}

#[tokio::test]
async fn a_refused_language_or_text_is_said_in_words_and_keeps_what_was_typed() {
    let app = TestApp::spawn().await;
    let d = signed_in(&app, "languages-refused").await;
    let form = survey(&app, &d).await;
    let id = form["id"].as_str().expect("id").to_owned();
    let builder = format!("/app/forms/{id}");
    app.put(
        &format!("/forms/{id}"),
        &d.key,
        &json!({"settings": {"redirect_url": "https://example.com/thanks",
            "confirmation_message": "Thanks!"}}),
    )
    .await
    .ok(200);

    // An unknown tag (a hand-made post: the page offers none).
    let refused = d
        .post(
            &format!("{builder}/languages"),
            &[("action", "add"), ("language", "xx")],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused
            .text
            .contains("“xx” is not a language a form can be in. Choose one of: English, German,"),
        "{}",
        refused.text
    );
    assert!(
        !refused.text.contains("translations.xx"),
        "{}",
        refused.text
    );
    assert!(
        refused
            .text
            .contains(r#"<details class="fold" id="languages" open>"#)
    );
    assert!(rest_form(&app, &d, &id).await.get("translations").is_none());
    // No page for a language a form cannot be in, nor for the default.
    for tag in ["xx", "en"] {
        let page = d.get(&format!("{builder}/languages/{tag}")).await;
        assert_eq!(page.status, 404, "{tag}");
    }

    // A redirect that is no address: the page again, what was typed in every box.
    let page = format!("{builder}/languages/de");
    let refused = d
        .post(
            &page,
            &[
                ("title", "Umfrage"),
                ("redirect_url", "kein Link"),
                ("confirmation_message", "Danke!"),
            ],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused.text.contains(
            "Nothing was saved. Redirect after submitting: must be an http or https URL."
        ),
        "{}",
        refused.text
    );
    assert!(refused.text.contains(r#"value="Umfrage""#));
    assert!(refused.text.contains(r#"value="kein Link""#));
    assert!(refused.text.contains(">Danke!</textarea>"));
    assert!(refused.text.contains(r#"aria-invalid="true""#));
    assert!(rest_form(&app, &d, &id).await.get("translations").is_none());
}

#[tokio::test]
async fn chromium_translates_a_form_by_keyboard_at_two_widths() {
    if !crate::browser::browser_available() {
        return;
    }
    let app = TestApp::spawn().await;
    let d = signed_in(&app, "languages-browser").await;
    let form = survey(&app, &d).await;
    let id = form["id"].as_str().expect("id").to_owned();
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    app.put(
        &format!("/forms/{id}"),
        &d.key,
        &json!({"settings": {"redirect_url": "https://example.com/thanks",
            "confirmation_message": "Thanks!",
            "confirmation_mail": {"field_ref": "email", "subject": "Your answers", "text": "Hello"}}}),
    )
    .await
    .ok(200);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/translate.mjs");
    let seen: Value =
        crate::fixtures::run_browser_script(&[&script, &d.base, &d.cookie, &id, &short_id]).await;
    assert!(seen["error"].is_null(), "{seen:#}");
    assert_eq!(seen["chosen"], "de", "typed in the list: {seen:#}");
    assert_eq!(seen["axe"], json!([]), "{seen:#}");
    assert_eq!(seen["cspViolations"], json!([]), "{seen:#}");
    assert_eq!(seen["sideways"], json!([]), "{seen:#}");
    assert_eq!(seen["unlabelled"], json!([]), "{seen:#}");
    assert_eq!(seen["progress"], "2 of 11 texts translated.", "{seen:#}");
    assert_eq!(
        seen["refusal"], "Redirect after submitting: must be an http or https URL.",
        "{seen:#}"
    );
    assert_eq!(seen["keptTitle"], "Umfrage", "{seen:#}");
    assert_eq!(seen["hostedLang"], "de", "{seen:#}");
    assert_eq!(seen["hostedTitle"], "Umfrage", "{seen:#}");
    let stored = rest_form(&app, &d, &id).await;
    assert_eq!(stored["translations"]["de"]["title"], "Umfrage", "{stored}");
    let colour = form["fields"][0]["id"].as_str().expect("field id");
    assert_eq!(
        stored["translations"]["de"]["fields"][colour]["label"], "Farbe",
        "{stored}"
    );
}
