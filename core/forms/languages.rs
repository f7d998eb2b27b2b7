//! A form's languages: the one its own texts are written in (`default_language`, `en`
//! unless the owner says otherwise) and, per further language, the same texts
//! translated (`translations`). Only texts are translated: a field, an option, a page
//! is the same in every language (its id does not change), so answers, filters,
//! summaries and webhooks are the same whatever language a respondent saw.
//!
//! A translation names a field by its id or, on create before ids exist, by its `ref`;
//! an option by its id. A text a translation leaves out is shown in the default
//! language.

use super::{Field, MAX_DESCRIPTION, MAX_TITLE};
use crate::error::CoreError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The languages a form may be in: those the hosted page speaks its own words in
/// (BCP 47 primary tags; a visitor's `de-CH` is shown `de`).
pub(crate) const KNOWN: &[&str] = &["en", "de", "fr", "es", "it", "pt", "nl", "pl", "ja", "ar"];

/// The default language of a form that names none.
pub(crate) const DEFAULT: &str = "en";

/// Longest label, placeholder, option label or end label of a translation (as a field's
/// own), and longest confirmation message or redirect.
const MAX_LABEL: usize = 500;
const MAX_MESSAGE: usize = 5000;
const MAX_URL: usize = 2000;

/// One language's texts of a form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Translation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// By field id (or `ref`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) fields: BTreeMap<String, FieldTranslation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) confirmation_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) redirect_url: Option<String>,
    /// The confirmation mail's subject and text (`settings.confirmation_mail`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) confirmation_mail: Option<MailTranslation>,
}

/// The confirmation mail's texts in one language; one left out is the form's own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MailTranslation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subject: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) text: Option<String>,
}

/// One field's texts in one language (a page break's label is its page's title).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FieldTranslation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) placeholder: Option<String>,
    /// Option labels by option id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) options: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) min_label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_label: Option<String>,
}

/// A form's languages as stored (the `languages` column's JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Languages {
    #[serde(default = "default_tag")]
    pub(crate) default: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) translations: BTreeMap<String, Translation>,
}

fn default_tag() -> String {
    DEFAULT.to_owned()
}

impl Default for Languages {
    fn default() -> Self {
        Self {
            default: default_tag(),
            translations: BTreeMap::new(),
        }
    }
}

/// A refusal in SPEC's envelope, naming the property at fault.
fn refuse(path: &str, what: &str) -> CoreError {
    CoreError::Validation(format!("{path} {what}"))
}

fn check_tag(path: &str, tag: &str) -> Result<(), CoreError> {
    if KNOWN.contains(&tag) {
        Ok(())
    } else {
        Err(refuse(
            path,
            &format!(
                "must be one of the languages a form may be in: {} (got {tag:?})",
                KNOWN.join(", ")
            ),
        ))
    }
}

fn check_text(path: &str, text: Option<&String>, max: usize) -> Result<(), CoreError> {
    match text {
        Some(t) if t.trim().is_empty() => Err(refuse(path, "must not be empty: leave it out")),
        Some(t) if t.chars().count() > max => {
            Err(refuse(path, &format!("must be at most {max} characters")))
        }
        _ => Ok(()),
    }
}

impl Languages {
    /// Checks the languages against the form's fields: known tags, no translation into
    /// the default language, every field and option named exists, texts within the
    /// lengths of the form's own.
    pub(crate) fn check(&self, fields: &[Field]) -> Result<(), CoreError> {
        check_tag("default_language", &self.default)?;
        for (tag, translation) in &self.translations {
            let at = format!("translations.{tag}");
            check_tag(&format!("{at}: the language"), tag)?;
            if *tag == self.default {
                return Err(refuse(
                    &at,
                    "is the default language, whose texts are the form's own",
                ));
            }
            check_text(
                &format!("{at}.title"),
                translation.title.as_ref(),
                MAX_TITLE,
            )?;
            check_text(
                &format!("{at}.description"),
                translation.description.as_ref(),
                MAX_DESCRIPTION,
            )?;
            check_text(
                &format!("{at}.confirmation_message"),
                translation.confirmation_message.as_ref(),
                MAX_MESSAGE,
            )?;
            if let Some(url) = &translation.redirect_url {
                let ok = url.len() <= MAX_URL
                    && url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
                if !ok {
                    return Err(refuse(
                        &format!("{at}.redirect_url"),
                        "must be an http or https URL",
                    ));
                }
            }
            if let Some(mail) = &translation.confirmation_mail {
                let at = format!("{at}.confirmation_mail");
                check_text(
                    &format!("{at}.subject"),
                    mail.subject.as_ref(),
                    super::confirmation::MAX_SUBJECT,
                )?;
                check_text(&format!("{at}.text"), mail.text.as_ref(), MAX_MESSAGE)?;
            }
            if let Some(url) = &translation.redirect_url
                && !crate::recall::recalls_after_host(url)
                && crate::recall::has_recall(url)
            {
                return Err(refuse(
                    &format!("{at}.redirect_url"),
                    "may recall answers only after its host",
                ));
            }
            for (key, texts) in &translation.fields {
                let path = format!("{at}.fields.{key}");
                let Some(field) = fields
                    .iter()
                    .find(|f| f.id.to_string() == *key || f.r#ref.as_deref() == Some(key))
                else {
                    return Err(refuse(&path, "names no field of this form (by id or ref)"));
                };
                for (name, text) in [
                    ("label", &texts.label),
                    ("placeholder", &texts.placeholder),
                    ("min_label", &texts.min_label),
                    ("max_label", &texts.max_label),
                ] {
                    check_text(&format!("{path}.{name}"), text.as_ref(), MAX_LABEL)?;
                }
                for (option, label) in &texts.options {
                    let path = format!("{path}.options.{option}");
                    if field.option_label(option).is_none() {
                        return Err(refuse(&path, "names no option of this field"));
                    }
                    check_text(&path, Some(label), MAX_LABEL)?;
                }
            }
        }
        Ok(())
    }

    /// Keys fields by id: a key that is a field's `ref` becomes its id (once the form's
    /// fields have their ids), so a renamed ref keeps its translations.
    pub(crate) fn key_by_id(&mut self, fields: &[Field]) {
        for translation in self.translations.values_mut() {
            let keyed = std::mem::take(&mut translation.fields);
            translation.fields = keyed
                .into_iter()
                .map(|(key, texts)| {
                    let id = fields
                        .iter()
                        .find(|f| f.id.to_string() == key || f.r#ref.as_deref() == Some(&key))
                        .map_or(key, |f| f.id.to_string());
                    (id, texts)
                })
                .collect();
        }
    }
}

impl Languages {
    /// Drops the texts of fields and options the form no longer has (its fields
    /// changed), so that what is stored always passes `check`.
    pub(crate) fn prune(&mut self, fields: &[Field]) {
        for translation in self.translations.values_mut() {
            translation.fields.retain(|key, texts| {
                let Some(field) = fields.iter().find(|f| f.id.to_string() == *key) else {
                    return false;
                };
                texts
                    .options
                    .retain(|option, _| field.option_label(option).is_some());
                true
            });
        }
    }
}

/// The translations of a request (`translations`, an object keyed by language tag),
/// refused with the property at fault when it is not their shape.
pub(crate) fn translations_from_json(
    value: serde_json::Value,
) -> Result<BTreeMap<String, Translation>, CoreError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let at = if path == "." {
            "translations".to_owned()
        } else {
            format!("translations.{path}")
        };
        CoreError::Validation(format!("{at}: {}", e.into_inner()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forms::{FieldKind, FieldOption};
    use serde_json::json;
    use uuid::Uuid;

    fn choice() -> Field {
        Field {
            id: Uuid::new_v4(),
            kind: FieldKind::SingleChoice,
            label: "Colour".into(),
            r#ref: Some("colour".into()),
            options: vec![FieldOption {
                id: "red".into(),
                label: "Red".into(),
            }],
            ..Field::default()
        }
    }

    fn languages(value: serde_json::Value) -> Result<Languages, CoreError> {
        Ok(Languages {
            default: "en".into(),
            translations: translations_from_json(value)?,
        })
    }

    #[test]
    fn known_tags_fields_and_options_only() {
        let fields = [choice()];
        let mut ok = languages(json!({"de": {"title": "Umfrage",
            "fields": {"colour": {"label": "Farbe", "options": {"red": "Rot"}}}}}))
        .expect("shape");
        ok.check(&fields).expect("valid");
        ok.key_by_id(&fields);
        assert!(
            ok.translations["de"]
                .fields
                .contains_key(&fields[0].id.to_string())
        );
        let message = |l: Languages| match l.check(&fields) {
            Err(CoreError::Validation(m)) => m,
            other => panic!("{other:?}"),
        };
        let unknown = languages(json!({"xx": {"title": "?"}})).expect("shape");
        assert!(message(unknown).starts_with("translations.xx: the language must be one of"));
        let option =
            languages(json!({"de": {"fields": {"colour": {"options": {"blue": "Blau"}}}}}))
                .expect("shape");
        assert_eq!(
            message(option),
            "translations.de.fields.colour.options.blue names no option of this field"
        );
        let same = languages(json!({"en": {"title": "Survey"}})).expect("shape");
        assert!(message(same).contains("is the default language"));
        let Err(CoreError::Validation(shape)) = languages(json!({"de": {"titel": "x"}})) else {
            panic!("an unknown property is refused");
        };
        assert!(shape.starts_with("translations.de"), "{shape}");
    }

    #[test]
    fn texts_of_fields_and_options_that_are_gone_go_with_them() {
        let mut field = choice();
        let id = field.id.to_string();
        let mut l = languages(json!({"de": {"fields": {id.clone(): {"label": "Farbe",
            "options": {"red": "Rot"}}}}}))
        .expect("shape");
        field.options.clear();
        l.prune(std::slice::from_ref(&field));
        assert!(l.translations["de"].fields[&id].options.is_empty());
        l.prune(&[]);
        assert!(l.translations["de"].fields.is_empty());
    }
}
