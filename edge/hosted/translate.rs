//! A form in the language a visitor sees it in: its languages (the default first, then
//! those it has translations for) and its texts replaced by a translation's, where the
//! translation has them. Ids are untouched: an option is the same option in every
//! language, so the answers posted are too.

use forms::pb::{self, convert};
use serde_json::{Map, Value};

/// The languages `form` is offered in, its default first (`en` when it names none).
pub(super) fn languages(form: &pb::Form) -> Vec<String> {
    let default = form
        .default_language
        .clone()
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "en".to_owned());
    let mut tags = vec![default];
    if let Some(translations) = &form.translations {
        let mut more: Vec<&String> = translations.fields.keys().collect();
        more.sort();
        for tag in more {
            if !tags.contains(tag) {
                tags.push(tag.clone());
            }
        }
    }
    tags
}

/// The text `key` of a translation's object, if it has one.
fn text(object: &Map<String, Value>, key: &str) -> Option<String> {
    object
        .get(key)
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty())
        .map(str::to_owned)
}

/// Puts the texts of `form`'s translation into `tag` in place of its own (nothing for
/// its default language, or a language it has no translation for).
pub(super) fn translate(form: &mut pb::Form, tag: &str) {
    let Some(translation) = form
        .translations
        .as_ref()
        .and_then(|t| t.fields.get(tag))
        .map(convert::value_to_json)
    else {
        return;
    };
    let Value::Object(translation) = translation else {
        return;
    };
    if let Some(title) = text(&translation, "title") {
        form.title = title;
    }
    if let Some(description) = text(&translation, "description") {
        form.description = Some(description);
    }
    for key in ["confirmation_message", "redirect_url"] {
        if let Some(value) = text(&translation, key) {
            let settings = form.settings.get_or_insert_with(Default::default);
            settings.fields.insert(
                key.to_owned(),
                convert::json_to_value(&Value::String(value)),
            );
        }
    }
    let Some(Value::Object(fields)) = translation.get("fields") else {
        return;
    };
    for field in &mut form.fields {
        let Some(Value::Object(texts)) = fields.get(&field.id) else {
            continue;
        };
        if let Some(label) = text(texts, "label") {
            field.label = label;
        }
        if let Some(placeholder) = text(texts, "placeholder") {
            field.placeholder = Some(placeholder);
        }
        if let Some(min_label) = text(texts, "min_label") {
            field.min_label = Some(min_label);
        }
        if let Some(max_label) = text(texts, "max_label") {
            field.max_label = Some(max_label);
        }
        if let Some(Value::Object(options)) = texts.get("options") {
            for option in &mut field.options {
                if let Some(label) = text(options, &option.id) {
                    option.label = label;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_translation_replaces_texts_and_keeps_ids() {
        let translations = json!({"de": {"title": "Umfrage", "confirmation_message": "Danke",
            "fields": {"f1": {"label": "Farbe", "options": {"red": "Rot"}}}}});
        let Value::Object(translations) = translations else {
            panic!("object");
        };
        let mut form = pb::Form {
            title: "Survey".into(),
            fields: vec![pb::FormField {
                id: "f1".into(),
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
        assert_eq!(languages(&form), ["en", "de"]);
        let mut english = form.clone();
        translate(&mut english, "en");
        assert_eq!(english, form);
        translate(&mut form, "de");
        assert_eq!(form.title, "Umfrage");
        assert_eq!(form.fields[0].label, "Farbe");
        assert_eq!(form.fields[0].options[0].id, "red");
        assert_eq!(form.fields[0].options[0].label, "Rot");
        // Left out: the default language's text.
        assert_eq!(form.fields[0].options[1].label, "Blue");
        let settings = convert::struct_to_object(form.settings.as_ref().expect("settings"));
        assert_eq!(settings["confirmation_message"], "Danke");
    }
}
