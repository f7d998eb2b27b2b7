//! The texts of a form that a translation carries, in the order a language's page
//! shows them: the title and description, each question's label, placeholder, scale
//! ends and options, what follows submitting (message, redirect) and the confirmation
//! mail's subject and text. Each is named by its place in the core's translation object
//! (`fields` → field id → `options` → option id; the API book, "A form in several
//! languages"), which is also how the page's boxes are named, so a post is read back by
//! looking its names up here, never by parsing them. Only texts the form has in its
//! default language are listed: there is nothing to translate in an empty placeholder.

use super::kinds::kind_label;
use forms::pb::{self, FieldKind, convert};
use serde_json::{Map, Value};

/// How a text is typed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Shape {
    Line,
    Long,
    Url,
}

/// One text of the form.
#[derive(Debug)]
pub(super) struct Text {
    /// Its place in a translation object.
    pub path: Vec<String>,
    /// What the owner reads beside it ("Title", "Option 2").
    pub label: String,
    /// The text in the default language.
    pub source: String,
    pub shape: Shape,
}

impl Text {
    /// The name of its box: the path, joined (looked up, never split).
    pub(super) fn name(&self) -> String {
        self.path.join("/")
    }

    /// The path as the core's messages write it (`fields.<id>.label`).
    pub(super) fn dotted(&self) -> String {
        self.path.join(".")
    }
}

/// Texts under one heading (the form, one question, after submitting, the mail).
#[derive(Debug)]
pub(super) struct Group {
    pub heading: String,
    pub texts: Vec<Text>,
}

fn text(path: &[&str], label: impl Into<String>, source: &str, shape: Shape) -> Option<Text> {
    let source = source.trim();
    (!source.is_empty()).then(|| Text {
        path: path.iter().map(|p| (*p).to_owned()).collect(),
        label: label.into(),
        source: source.to_owned(),
        shape,
    })
}

/// A string setting of the form (`settings.<key>`, or `settings.<outer>.<key>`).
fn setting<'a>(settings: &'a Map<String, Value>, path: &[&str]) -> &'a str {
    let mut at = settings.get(path[0]);
    for key in &path[1..] {
        at = at.and_then(|v| v.get(*key));
    }
    at.and_then(Value::as_str).unwrap_or("")
}

/// One question's texts; a hidden field has none a respondent reads.
fn field_group(number: usize, field: &pb::FormField) -> Option<Group> {
    if field.is(FieldKind::Hidden) {
        return None;
    }
    let id = field.id.as_str();
    let page = field.is(FieldKind::PageBreak);
    let mut texts = Vec::new();
    let label = if page { "Page title" } else { "Question" };
    texts.extend(text(
        &["fields", id, "label"],
        label,
        &field.label,
        Shape::Line,
    ));
    let placeholder = field.placeholder.as_deref().unwrap_or("");
    texts.extend(text(
        &["fields", id, "placeholder"],
        "Placeholder",
        placeholder,
        Shape::Line,
    ));
    for (key, label, value) in [
        ("min_label", "Low end's label", &field.min_label),
        ("max_label", "High end's label", &field.max_label),
    ] {
        let value = value.as_deref().unwrap_or("");
        texts.extend(text(&["fields", id, key], label, value, Shape::Line));
    }
    for (n, option) in field.options.iter().enumerate() {
        let label = format!("Option {}", n + 1);
        let path = ["fields", id, "options", option.id.as_str()];
        texts.extend(text(&path, label, &option.label, Shape::Line));
    }
    let name = if field.label.trim().is_empty() {
        kind_label(&field.r#type).to_owned()
    } else {
        format!("“{}”", field.label.trim())
    };
    let heading = if page {
        format!("Page break {name}")
    } else {
        format!("Question {number}: {name}")
    };
    (!texts.is_empty()).then_some(Group { heading, texts })
}

/// Every text of `form`, grouped, in the page's order.
pub(super) fn groups(form: &pb::Form) -> Vec<Group> {
    let settings = super::settings_of(form);
    let mut out = Vec::new();
    let mut own = Vec::new();
    own.extend(text(&["title"], "Title", &form.title, Shape::Line));
    let description = form.description.as_deref().unwrap_or("");
    own.extend(text(
        &["description"],
        "Description",
        description,
        Shape::Long,
    ));
    out.push(Group {
        heading: "The form".into(),
        texts: own,
    });
    let mut number = 0;
    for field in &form.fields {
        if !field.is(FieldKind::PageBreak) && !field.is(FieldKind::Hidden) {
            number += 1;
        }
        out.extend(field_group(number, field));
    }
    let mut after = Vec::new();
    after.extend(text(
        &["confirmation_message"],
        "Confirmation message",
        setting(&settings, &["confirmation_message"]),
        Shape::Long,
    ));
    after.extend(text(
        &["redirect_url"],
        "Redirect after submitting",
        setting(&settings, &["redirect_url"]),
        Shape::Url,
    ));
    let mut mail = Vec::new();
    for (key, label, shape) in [
        ("subject", "Subject", Shape::Line),
        ("text", "Text", Shape::Long),
    ] {
        let source = setting(&settings, &["confirmation_mail", key]);
        mail.extend(text(&["confirmation_mail", key], label, source, shape));
    }
    for (heading, texts) in [
        ("After submitting", after),
        ("Confirmation mail to the respondent", mail),
    ] {
        if !texts.is_empty() {
            out.push(Group {
                heading: heading.into(),
                texts,
            });
        }
    }
    out
}

/// The translation into `tag` as stored (an empty object when there is none).
pub(super) fn translation(form: &pb::Form, tag: &str) -> Map<String, Value> {
    form.translations
        .as_ref()
        .and_then(|t| t.fields.get(tag))
        .map(convert::value_to_json)
        .and_then(|v| match v {
            Value::Object(object) => Some(object),
            _ => None,
        })
        .unwrap_or_default()
}

/// The translated text at `path`, if there is one.
pub(super) fn get<'a>(translation: &'a Map<String, Value>, path: &[String]) -> Option<&'a str> {
    let (first, rest) = path.split_first()?;
    let mut at = translation.get(first)?;
    for key in rest {
        at = at.get(key)?;
    }
    at.as_str().filter(|t| !t.trim().is_empty())
}

/// Sets (or, with `None`, removes) the text at `path`; objects left empty go with it.
pub(super) fn set(translation: &mut Map<String, Value>, path: &[String], text: Option<String>) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if rest.is_empty() {
        match text {
            Some(text) => translation.insert(first.clone(), Value::String(text)),
            None => translation.remove(first),
        };
        return;
    }
    if text.is_none() && !translation.contains_key(first) {
        return;
    }
    let inner = translation
        .entry(first.clone())
        .or_insert_with(|| Value::Object(Map::new()));
    if !inner.is_object() {
        *inner = Value::Object(Map::new());
    }
    if let Value::Object(object) = inner {
        set(object, rest, text);
        if object.is_empty() {
            translation.remove(first);
        }
    }
}

/// How many of the form's texts the translation into `tag` has, of how many there are.
pub(super) fn completeness(form: &pb::Form, tag: &str) -> (usize, usize) {
    let translation = translation(form, tag);
    let all = groups(form);
    let texts = all.iter().flat_map(|g| &g.texts);
    let total = texts.clone().count();
    let done = texts
        .filter(|t| get(&translation, &t.path).is_some())
        .count();
    (done, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form() -> pb::Form {
        let Value::Object(settings) = json!({"confirmation_message": "Thanks!",
            "confirmation_mail": {"field_id": "f2", "subject": "Your answers", "text": ""}})
        else {
            panic!("object");
        };
        pb::Form {
            title: "Survey".into(),
            fields: vec![
                pb::FormField {
                    id: "f1".into(),
                    r#type: "single_choice".into(),
                    label: "Colour".into(),
                    options: vec![
                        pb::FieldOption {
                            id: "red/1".into(),
                            label: "Red".into(),
                        },
                        pb::FieldOption {
                            id: "blue".into(),
                            label: "Blue".into(),
                        },
                    ],
                    ..Default::default()
                },
                pb::FormField {
                    id: "f2".into(),
                    r#type: "email".into(),
                    label: "Email".into(),
                    placeholder: Some("you@example.com".into()),
                    ..Default::default()
                },
                pb::FormField {
                    id: "h".into(),
                    r#type: "hidden".into(),
                    label: "Source".into(),
                    ..Default::default()
                },
            ],
            settings: Some(convert::object_to_struct(&settings)),
            ..Default::default()
        }
    }

    #[test]
    fn the_texts_are_those_the_form_has_in_its_own_language() {
        let groups = groups(&form());
        let names: Vec<Vec<String>> = groups
            .iter()
            .map(|g| g.texts.iter().map(Text::name).collect())
            .collect();
        assert_eq!(
            names,
            [
                vec!["title"],
                vec![
                    "fields/f1/label",
                    "fields/f1/options/red/1",
                    "fields/f1/options/blue"
                ],
                vec!["fields/f2/label", "fields/f2/placeholder"],
                vec!["confirmation_message"],
                vec!["confirmation_mail/subject"],
            ]
        );
        assert_eq!(groups[1].heading, "Question 1: “Colour”");
        assert_eq!(groups[1].texts[1].label, "Option 1");
        assert_eq!(groups[1].texts[1].dotted(), "fields.f1.options.red/1");
    }

    #[test]
    fn set_adds_and_removes_texts_and_the_objects_left_empty() {
        let path = |p: &[&str]| p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let mut t = Map::new();
        set(
            &mut t,
            &path(&["fields", "f1", "options", "blue"]),
            Some("Blau".into()),
        );
        set(&mut t, &path(&["title"]), Some("Umfrage".into()));
        assert_eq!(
            Value::Object(t.clone()),
            json!({"title": "Umfrage", "fields": {"f1": {"options": {"blue": "Blau"}}}})
        );
        assert_eq!(
            get(&t, &path(&["fields", "f1", "options", "blue"])),
            Some("Blau")
        );
        set(&mut t, &path(&["fields", "f1", "options", "blue"]), None);
        set(&mut t, &path(&["description"]), None);
        set(&mut t, &path(&["confirmation_mail", "text"]), None);
        assert_eq!(Value::Object(t), json!({"title": "Umfrage"}));
    }

    #[test]
    fn completeness_counts_the_translated_texts() {
        let mut form = form();
        let Value::Object(translations) = json!({"de": {"title": "Umfrage",
            "fields": {"f1": {"label": "Farbe", "options": {"blue": "Blau"}}}}})
        else {
            panic!("object");
        };
        form.translations = Some(convert::object_to_struct(&translations));
        // Title, colour (label, two options), email (label, placeholder), the message,
        // the mail's subject (its text is empty): eight.
        assert_eq!(completeness(&form, "de"), (3, 8));
        assert_eq!(completeness(&form, "fr"), (0, 8));
    }
}
