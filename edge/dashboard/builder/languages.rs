//! The builder's "Languages" fold: the languages a form is shown in, its default first,
//! and how much of each further language is translated ("German: 14 of 18 texts"),
//! counted over the texts the form has (title, description, each question's label and
//! placeholder, each option, the confirmation message and redirect). The texts are set
//! through the API's `translations` (README, "A form in several languages").

use forms::pb::{self, convert};
use maud::{Markup, html};
use serde_json::{Map, Value};

/// A language's name in English, for the owner.
fn name(tag: &str) -> &str {
    match tag {
        "en" => "English",
        "de" => "German",
        "fr" => "French",
        "es" => "Spanish",
        "it" => "Italian",
        "pt" => "Portuguese",
        "nl" => "Dutch",
        "pl" => "Polish",
        "ja" => "Japanese",
        "ar" => "Arabic",
        other => other,
    }
}

/// Whether `object` has the text `key`.
fn has(object: Option<&Map<String, Value>>, key: &str) -> bool {
    object
        .and_then(|o| o.get(key))
        .and_then(Value::as_str)
        .is_some_and(|t| !t.trim().is_empty())
}

/// How many of the form's texts the translation into `tag` has, of how many there are.
pub(super) fn completeness(form: &pb::Form, tag: &str) -> (usize, usize) {
    let translation = form
        .translations
        .as_ref()
        .and_then(|t| t.fields.get(tag))
        .map(convert::value_to_json);
    let translation = translation.as_ref().and_then(Value::as_object);
    let fields = translation
        .and_then(|t| t.get("fields"))
        .and_then(Value::as_object);
    let settings = form
        .settings
        .as_ref()
        .map(convert::struct_to_object)
        .unwrap_or_default();
    let (mut done, mut total) = (0, 0);
    let mut count = |present: bool, translated: bool| {
        if present {
            total += 1;
            done += usize::from(translated);
        }
    };
    count(true, has(translation, "title"));
    count(form.description.is_some(), has(translation, "description"));
    for key in ["confirmation_message", "redirect_url"] {
        count(has(Some(&settings), key), has(translation, key));
    }
    for field in &form.fields {
        let texts = fields
            .and_then(|f| f.get(&field.id))
            .and_then(Value::as_object);
        count(field.r#type != "hidden", has(texts, "label"));
        count(field.placeholder.is_some(), has(texts, "placeholder"));
        let options = texts
            .and_then(|t| t.get("options"))
            .and_then(Value::as_object);
        for option in &field.options {
            count(true, has(options, &option.id));
        }
    }
    (done, total)
}

/// The fold: the default language, then each further one with its completeness.
pub(super) fn section(form: &pb::Form) -> Markup {
    let default = form.default_language.as_deref().unwrap_or("en");
    let mut more: Vec<&String> = form
        .translations
        .as_ref()
        .map(|t| t.fields.keys().collect())
        .unwrap_or_default();
    more.sort();
    html! {
        details class="fold" id="languages" {
            summary { h2 { "Languages" } }
            ul {
                li { (name(default)) " (the form's own texts)" }
                @for tag in more {
                    @let (done, total) = completeness(form, tag);
                    li { (name(tag)) ": " (done) " of " (total) " texts" }
                }
            }
            p class="muted" {
                "Respondents see the form in their browser's language when it is one of \
                 these (or the one they pick on the page). Set a language's texts with \
                 the API's "
                code { "translations" }
                " property of the form."
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn completeness_counts_the_forms_texts_and_the_translated_ones() {
        let Value::Object(translations) = json!({"de": {"title": "Umfrage",
            "fields": {"f1": {"label": "Farbe", "options": {"red": "Rot"}}}}})
        else {
            panic!("object");
        };
        let form = pb::Form {
            title: "Survey".into(),
            fields: vec![pb::FormField {
                id: "f1".into(),
                r#type: "single_choice".into(),
                label: "Colour".into(),
                options: vec![
                    pb::FieldOption {
                        id: "red".into(),
                        label: "Red".into(),
                    },
                    pb::FieldOption {
                        id: "blue".into(),
                        label: "Blue".into(),
                    },
                ],
                ..Default::default()
            }],
            translations: Some(convert::object_to_struct(&translations)),
            ..Default::default()
        };
        // Title, label and two options: three of four translated.
        assert_eq!(completeness(&form, "de"), (3, 4));
        assert_eq!(completeness(&form, "ar"), (0, 4));
        let html = section(&form).into_string();
        assert!(html.contains("German: 3 of 4 texts"), "{html}");
    }
}
