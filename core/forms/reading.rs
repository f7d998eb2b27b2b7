//! A response as its respondent reads it, in the language their page was shown in:
//! fields by their (translated) labels, options by their (translated) labels, a
//! checkbox as yes or no; and the owner's texts with their recalls (`{{ref}}`) filled
//! from it (`crate::recall`). The hosted reply's confirmation message and redirect and
//! the confirmation mail read a response through this.

use super::{Field, FieldKind, Form, Languages, Translation};
use crate::notifications::words::MailWords;
use serde_json::{Map, Value};

/// A response's answers on its form, in one language.
pub(crate) struct Reading<'a> {
    fields: &'a [Field],
    answers: &'a Map<String, Value>,
    translation: Option<&'a Translation>,
    /// The language read in (one of the form's).
    pub tag: String,
    pub words: MailWords,
}

impl<'a> Reading<'a> {
    /// `answers` of a response to a form with `fields` and `languages`, read in
    /// `language` when it is one of the form's, else in the form's default.
    pub(crate) fn new(
        fields: &'a [Field],
        languages: &'a Languages,
        answers: &'a Map<String, Value>,
        language: Option<&str>,
    ) -> Self {
        let translation = language.and_then(|tag| languages.translations.get_key_value(tag));
        let tag = translation.map_or(languages.default.as_str(), |(tag, _)| tag.as_str());
        Self {
            fields,
            answers,
            translation: translation.map(|(_, t)| t),
            tag: tag.to_owned(),
            words: MailWords::for_tag(tag),
        }
    }

    /// The reading of `answers` to `form`.
    pub(crate) fn of(
        form: &'a Form,
        answers: &'a Map<String, Value>,
        language: Option<&str>,
    ) -> Self {
        Self::new(&form.fields, &form.languages, answers, language)
    }

    pub(crate) fn translation(&self) -> Option<&'a Translation> {
        self.translation
    }

    /// The field's label in the language read.
    pub(crate) fn label(&self, field: &Field) -> String {
        self.translation
            .and_then(|t| t.fields.get(&field.id.to_string()))
            .and_then(|t| t.label.clone())
            .unwrap_or_else(|| field.label.clone())
    }

    /// The field's answer as text, if it has one.
    pub(crate) fn answer(&self, field: &Field) -> Option<String> {
        let value = self.answers.get(&field.id.to_string())?;
        if value.is_null() {
            return None;
        }
        let texts = self
            .translation
            .and_then(|t| t.fields.get(&field.id.to_string()));
        let label = |id: &str| {
            texts
                .and_then(|t| t.options.get(id).cloned())
                .or_else(|| field.option_label(id).map(str::to_owned))
        };
        let (yes, no) = self.words.yes_no();
        let text = crate::recall::answer_text(value, &label, (&yes, &no));
        if field.kind == FieldKind::FileUpload {
            return Some(self.words.with("file", &[("name", &text)]));
        }
        Some(text)
    }

    /// `text` with its recalls filled: a field's answer (empty when it has none), a
    /// name that is no field's ref left as typed.
    pub(crate) fn recall(&self, text: &str) -> String {
        crate::recall::recall(text, |name| self.by_ref(name))
    }

    /// A redirect with its recalls percent-encoded; `None` if they would reach its host.
    pub(crate) fn recall_in_url(&self, url: &str) -> Option<String> {
        crate::recall::recall_in_url(url, |name| self.by_ref(name))
    }

    fn by_ref(&self, name: &str) -> Option<String> {
        let field = self
            .fields
            .iter()
            .find(|f| f.r#ref.as_deref() == Some(name))?;
        Some(self.answer(field).unwrap_or_default())
    }

    /// The questions answered, in the form's order, by label: what a respondent is
    /// shown of their response (no page breaks, no hidden fields, which they never saw).
    pub(crate) fn lines(&self) -> Vec<(String, String)> {
        self.fields
            .iter()
            .filter(|f| !matches!(f.kind, FieldKind::PageBreak | FieldKind::Hidden))
            .filter_map(|f| self.answer(f).map(|a| (self.label(f), a)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forms::{FieldOption, languages::translations_from_json};
    use serde_json::json;
    use uuid::Uuid;

    #[test]
    fn a_german_reading_translates_labels_options_and_yes() {
        let colour = Field {
            id: Uuid::new_v4(),
            kind: FieldKind::SingleChoice,
            label: "Colour".into(),
            r#ref: Some("colour".into()),
            options: vec![FieldOption {
                id: "red".into(),
                label: "Red".into(),
            }],
            ..Field::default()
        };
        let ok = Field {
            id: Uuid::new_v4(),
            kind: FieldKind::Checkbox,
            label: "Agree".into(),
            ..Field::default()
        };
        let id = colour.id.to_string();
        let languages = Languages {
            default: "en".into(),
            translations: translations_from_json(
                json!({"de": {"fields": {id.clone(): {"label": "Farbe", "options": {"red": "Rot"}}}}}),
            )
            .expect("shape"),
        };
        let mut answers = Map::new();
        answers.insert(id, json!("red"));
        answers.insert(ok.id.to_string(), json!(true));
        let fields = [colour, ok];
        let de = Reading::new(&fields, &languages, &answers, Some("de"));
        assert_eq!(de.recall("Du magst {{colour}}."), "Du magst Rot.");
        assert_eq!(
            de.lines(),
            [
                ("Farbe".into(), "Rot".into()),
                ("Agree".into(), "Ja".into())
            ]
        );
        let fr = Reading::new(&fields, &languages, &answers, Some("fr"));
        assert_eq!(
            (fr.tag.as_str(), fr.recall("{{colour}}")),
            ("en", "Red".to_owned())
        );
    }
}
