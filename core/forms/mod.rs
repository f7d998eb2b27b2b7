//! Forms: definitions, their validation rules and their lifecycle. Plain Rust, no
//! transport types; `service` adapts it to gRPC and `store` keeps it in PostgreSQL.

pub(crate) mod answers;
pub(crate) mod confirmation;
pub(crate) mod convert;
pub(crate) mod fields;
pub(crate) mod languages;
pub(crate) mod logic;
pub(crate) mod logo;
pub(crate) mod origins;
pub(crate) mod reading;
pub(crate) mod service;
pub(crate) mod store;
pub(crate) mod theme;

pub(crate) use fields::{
    Field, FieldInput, FieldKind, FieldOption, build_fields, parse_date, quiz_score,
};
pub(crate) use languages::{Languages, Translation};

use crate::error::CoreError;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::str::FromStr;
use uuid::Uuid;

pub(crate) const MAX_TITLE: usize = 200;
pub(crate) const MAX_DESCRIPTION: usize = 5000;
/// Largest serialized settings object.
pub(crate) const MAX_SETTINGS_BYTES: usize = 64 * 1024;

/// Lifecycle state of a form. Stored in `forms.status` (TEXT) by its lowercase name; a
/// name this build does not know is an error when read, never silently another state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum FormStatus {
    Draft,
    Published,
    Archived,
}

impl FormStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Published => "published",
            Self::Archived => "archived",
        }
    }
}

impl FromStr for FormStatus {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self, CoreError> {
        match s {
            "draft" => Ok(Self::Draft),
            "published" => Ok(Self::Published),
            "archived" => Ok(Self::Archived),
            _ => Err(CoreError::validation(
                "status must be one of draft, published, archived",
            )),
        }
    }
}

/// A form as stored.
#[derive(Debug, Clone)]
pub(crate) struct Form {
    pub id: Uuid,
    pub account_id: Uuid,
    pub short_id: String,
    pub title: String,
    pub description: Option<String>,
    pub status: FormStatus,
    pub fields: Vec<Field>,
    pub settings: Map<String, Value>,
    /// Its default language and translations (`languages`).
    pub languages: Languages,
    /// The look of its page; None: the service's own.
    pub theme: Option<theme::Theme>,
    /// Days its responses are kept; None: until deleted (see `crate::rights`).
    pub retention_days: Option<i32>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub published_at: Option<DateTime<Utc>>,
}

/// A form to create.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewForm {
    pub title: String,
    pub description: Option<String>,
    pub fields: Vec<FieldInput>,
    pub settings: Map<String, Value>,
    pub languages: Languages,
    /// Its logo, if sent, is not taken: a logo is uploaded (`SetFormLogo`).
    pub theme: Option<theme::Theme>,
    pub retention_days: Option<i32>,
}

/// A partial update; `None` keeps a property as it is.
#[derive(Debug, Clone, Default)]
pub(crate) struct FormChange {
    pub title: Option<String>,
    /// `Some(None)` clears the description.
    pub description: Option<Option<String>>,
    pub fields: Option<Vec<FieldInput>>,
    /// Merged key by key into the stored settings.
    pub settings: Option<Map<String, Value>>,
    pub status: Option<FormStatus>,
    pub default_language: Option<String>,
    /// Replaces the translations whole.
    pub translations: Option<std::collections::BTreeMap<String, Translation>>,
    /// Replaces one language's translation (`None`: removes it), the others kept as
    /// they are stored when the change is applied (`translations.<tag>` paths): two
    /// people saving two languages at once both keep theirs.
    pub translations_of: Vec<(String, Option<Translation>)>,
    /// Replaces the theme, keeping its logo; `Some(None)` clears both.
    pub theme: Option<Option<theme::Theme>>,
    /// `Some(None)` keeps responses until deleted.
    pub retention_days: Option<Option<i32>>,
}

impl FormChange {
    /// The names of the properties the change sets, for the audit trail.
    pub(crate) fn names(&self) -> Vec<&'static str> {
        [
            ("title", self.title.is_some()),
            ("description", self.description.is_some()),
            ("fields", self.fields.is_some()),
            ("settings", self.settings.is_some()),
            ("status", self.status.is_some()),
            ("default_language", self.default_language.is_some()),
            (
                "translations",
                self.translations.is_some() || !self.translations_of.is_empty(),
            ),
            ("theme", self.theme.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, set)| set.then_some(name))
        .collect()
    }
}

/// Filter of the forms list.
#[derive(Debug, Clone, Default)]
pub(crate) struct FormFilter {
    pub status: Option<FormStatus>,
    pub search: Option<String>,
}

/// The current instant at the millisecond precision the API shows.
pub(crate) fn now_millis() -> DateTime<Utc> {
    let now = Utc::now();
    DateTime::from_timestamp_millis(now.timestamp_millis()).unwrap_or(now)
}

pub(crate) fn check_len(what: &str, value: &str, min: usize, max: usize) -> Result<(), CoreError> {
    let n = value.chars().count();
    if n < min || n > max {
        let msg = if min > 0 && n < min {
            format!("{what} is required")
        } else {
            format!("{what} must be at most {max} characters")
        };
        return Err(CoreError::Validation(msg));
    }
    Ok(())
}

pub(crate) fn check_title(title: &str) -> Result<(), CoreError> {
    if title.trim().is_empty() {
        return Err(CoreError::validation("title is required"));
    }
    check_len("title", title, 1, MAX_TITLE)
}

pub(crate) fn check_description(description: Option<&str>) -> Result<(), CoreError> {
    description.map_or(Ok(()), |d| check_len("description", d, 0, MAX_DESCRIPTION))
}

/// Writes `allowed_origins` as it is compared (lower case, no repeats: see `origins`),
/// once `check_settings` has found it valid.
fn normalise_settings(settings: &mut Map<String, Value>) {
    if let Some(value) = settings.get_mut(origins::KEY)
        && let Ok(list) = origins::parse_list(value)
        && !value.is_null()
    {
        *value = Value::from(list);
    }
}

/// Checks the known settings keys; other keys are kept as sent.
pub(crate) fn check_settings(settings: &Map<String, Value>) -> Result<(), CoreError> {
    for (key, value) in settings {
        let ok = match key.as_str() {
            "redirect_url" => match value {
                Value::Null => true,
                // Sent later as a Location header: no whitespace or control character,
                // and a URL with a host.
                Value::String(url) => {
                    (url.starts_with("https://") || url.starts_with("http://"))
                        && url.len() <= 2048
                        && !url.chars().any(|c| c.is_whitespace() || c.is_control())
                        && url::Url::parse(url).is_ok_and(|u| u.host().is_some())
                        // A recall (`{{ref}}`) stands after the host: an answer never
                        // chooses where a respondent is sent.
                        && (!crate::recall::has_recall(url)
                            || crate::recall::recalls_after_host(url))
                }
                _ => false,
            },
            "confirmation_message" => {
                matches!(value, Value::String(s) if s.chars().count() <= MAX_DESCRIPTION)
            }
            "notifications_enabled"
            | "proof_of_work"
            | "show_quiz_score"
            | crate::hosted::STEPS_KEY => value.is_boolean(),
            // Its content is checked against the fields (`confirmation::resolve`).
            confirmation::KEY => value.is_null() || value.is_object(),
            "closes_at" => match value {
                Value::Null => true,
                Value::String(s) => DateTime::parse_from_rfc3339(s).is_ok(),
                _ => false,
            },
            "max_responses" => value.is_null() || value.as_u64().is_some_and(|n| n >= 1),
            origins::KEY => match origins::parse_list(value) {
                Ok(_) => true,
                Err(problem) => {
                    return Err(CoreError::Validation(format!("settings.{key}: {problem}")));
                }
            },
            _ => true,
        };
        if !ok {
            return Err(CoreError::Validation(format!(
                "settings.{key}: {}",
                match key.as_str() {
                    "redirect_url" => {
                        "must be an http(s) URL or null, recalling answers only after its host"
                    }
                    confirmation::KEY => "must be an object or null",
                    "confirmation_message" => "must be a string of at most 5000 characters",
                    "notifications_enabled"
                    | "proof_of_work"
                    | "show_quiz_score"
                    | crate::hosted::STEPS_KEY => {
                        "must be true or false"
                    }
                    "closes_at" => "must be an ISO 8601 timestamp or null",
                    _ => "must be a positive integer or null",
                }
            )));
        }
    }
    let size = serde_json::to_vec(settings).map_or(usize::MAX, |v| v.len());
    if size > MAX_SETTINGS_BYTES {
        return Err(CoreError::validation("settings must be at most 64 KiB"));
    }
    Ok(())
}

impl NewForm {
    /// Validates the request into a new draft form of `account_id`; the short id is
    /// assigned when it is stored.
    pub(crate) fn into_form(self, account_id: Uuid, now: DateTime<Utc>) -> Result<Form, CoreError> {
        check_title(&self.title)?;
        check_description(self.description.as_deref())?;
        // The service assigns field ids on create: ids sent by the client are ignored.
        let sent: Vec<Option<Uuid>> = self.fields.iter().map(|f| f.id).collect();
        let inputs = self
            .fields
            .into_iter()
            .map(|f| FieldInput {
                id: None,
                alias: f.id,
                ..f
            })
            .collect();
        let fields = build_fields(inputs, &[])?;
        check_settings(&self.settings)?;
        let mut settings = self.settings;
        normalise_settings(&mut settings);
        let aliases: Vec<(Uuid, Uuid)> = sent
            .iter()
            .zip(&fields)
            .filter_map(|(sent, field)| sent.map(|s| (s, field.id)))
            .collect();
        confirmation::resolve(&mut settings, &fields, &aliases)?;
        let mut languages = self.languages;
        languages.check(&fields)?;
        languages.key_by_id(&fields);
        crate::rights::check_retention(self.retention_days)?;
        let theme = match self.theme {
            Some(mut theme) => {
                theme.logo = None;
                theme.check()?;
                Some(theme)
            }
            None => None,
        };
        Ok(Form {
            id: Uuid::new_v4(),
            account_id,
            short_id: String::new(),
            title: self.title,
            description: self.description,
            status: FormStatus::Draft,
            fields,
            settings,
            languages,
            theme,
            retention_days: self.retention_days,
            created_at: now,
            updated_at: now,
            published_at: None,
        })
    }
}

impl FormChange {
    /// Applies the change to `form`, validating it. Publishing sets `published_at` the
    /// first time only.
    pub(crate) fn apply(self, form: &mut Form, now: DateTime<Utc>) -> Result<(), CoreError> {
        if let Some(title) = self.title {
            check_title(&title)?;
            form.title = title;
        }
        if let Some(description) = self.description {
            check_description(description.as_deref())?;
            form.description = description;
        }
        if let Some(inputs) = self.fields {
            form.fields = build_fields(inputs, &form.fields)?;
            // Texts of fields and options that are gone go with them.
            form.languages.prune(&form.fields);
        }
        if self.default_language.is_some()
            || self.translations.is_some()
            || !self.translations_of.is_empty()
        {
            let mut languages = form.languages.clone();
            if let Some(tag) = self.default_language {
                languages.default = tag;
            }
            if let Some(translations) = self.translations {
                languages.translations = translations;
            }
            for (tag, translation) in self.translations_of {
                match translation {
                    Some(translation) => languages.translations.insert(tag, translation),
                    None => languages.translations.remove(&tag),
                };
            }
            languages.check(&form.fields)?;
            languages.key_by_id(&form.fields);
            form.languages = languages;
        }
        if let Some(settings) = self.settings {
            let sets_mail = settings.contains_key(confirmation::KEY);
            let mut merged = form.settings.clone();
            merged.extend(settings);
            check_settings(&merged)?;
            normalise_settings(&mut merged);
            if sets_mail {
                confirmation::resolve(&mut merged, &form.fields, &[])?;
            }
            form.settings = merged;
        }
        if let Some(theme) = self.theme {
            form.theme = match theme {
                Some(mut theme) => {
                    theme.logo = form.theme.take().and_then(|t| t.logo);
                    theme.check()?;
                    Some(theme)
                }
                None => None,
            };
        }
        if let Some(days) = self.retention_days {
            crate::rights::check_retention(days)?;
            form.retention_days = days;
        }
        if let Some(status) = self.status {
            if status == FormStatus::Published && form.published_at.is_none() {
                form.published_at = Some(now);
            }
            form.status = status;
        }
        form.updated_at = now;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_known_keys_are_typed() {
        let ok = json!({"redirect_url": null, "notifications_enabled": true, "custom": [1]});
        assert!(check_settings(ok.as_object().expect("object")).is_ok());
        let bad = json!({"notifications_enabled": "yes"});
        assert!(check_settings(bad.as_object().expect("object")).is_err());
        let ok = json!({"proof_of_work": false});
        assert!(check_settings(ok.as_object().expect("object")).is_ok());
        let bad = json!({"proof_of_work": 1});
        let Err(CoreError::Validation(message)) = check_settings(bad.as_object().expect("object"))
        else {
            panic!("proof_of_work must be a boolean");
        };
        assert_eq!(message, "settings.proof_of_work: must be true or false");
        let bad = json!({"max_responses": 0});
        assert!(check_settings(bad.as_object().expect("object")).is_err());
    }
}
