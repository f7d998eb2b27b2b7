//! `settings.confirmation_mail`: the mail a respondent gets after submitting, at the
//! address they gave in one of the form's email fields, with a subject and a text the
//! owner writes (recalling answers as `{{ref}}`) above the answers (issue 32 §4). Its
//! texts in further languages are the translations' `confirmation_mail`. Sending it is
//! `notifications::confirm`'s.
//!
//! Sent as `{"field_id" | "field_ref", "subject", "text"}`; stored with the field's id
//! (a ref, or on create the id the client sent, is resolved to it), so renaming a ref
//! keeps the mail's field.

use super::{Field, FieldKind};
use crate::error::CoreError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

/// The settings key.
pub(crate) const KEY: &str = "confirmation_mail";
/// Longest subject, in characters (one line).
pub(crate) const MAX_SUBJECT: usize = 200;
/// Longest text, in characters.
pub(crate) const MAX_TEXT: usize = 5000;

/// The confirmation mail as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfirmationMail {
    /// The email field whose answer is the recipient.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_id: Option<String>,
    /// Sent instead of `field_id`; never stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_ref: Option<String>,
    pub subject: String,
    pub text: String,
}

fn refuse(what: &str) -> CoreError {
    CoreError::Validation(format!("settings.{KEY}{what}"))
}

/// The confirmation mail `settings` set, if any (as stored: checked already).
pub(crate) fn of(settings: &Map<String, Value>) -> Option<ConfirmationMail> {
    settings
        .get(KEY)
        .filter(|v| !v.is_null())
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

/// Checks a confirmation mail sent in `settings` against `fields` and stores it keyed by
/// the field's id. `aliases` pairs ids a client sent on create with the ids the fields
/// got. Nothing to do when `settings` does not set one.
pub(crate) fn resolve(
    settings: &mut Map<String, Value>,
    fields: &[Field],
    aliases: &[(Uuid, Uuid)],
) -> Result<(), CoreError> {
    let Some(value) = settings.get(KEY).filter(|v| !v.is_null()) else {
        return Ok(());
    };
    let mut mail: ConfirmationMail =
        serde_path_to_error::deserialize(value.clone()).map_err(|e| {
            refuse(&format!(
                ": {e} (expected field_id or field_ref, subject, text)"
            ))
        })?;
    let named = |f: &&Field| {
        let id = f.id.to_string();
        mail.field_id.as_deref() == Some(id.as_str())
            || mail.field_ref.is_some() && mail.field_ref == f.r#ref
            || aliases.iter().any(|(sent, got)| {
                *got == f.id && mail.field_id.as_deref() == Some(sent.to_string().as_str())
            })
    };
    let field = match (&mail.field_id, &mail.field_ref) {
        (None, None) => {
            return Err(refuse(
                ": names its recipient's field by field_id or field_ref",
            ));
        }
        _ => fields.iter().find(named),
    };
    let Some(field) = field else {
        return Err(refuse(
            ": field_id or field_ref names no field of this form",
        ));
    };
    if field.kind != FieldKind::Email {
        return Err(refuse(": its field must be an email field"));
    }
    let subject = mail.subject.trim();
    if subject.is_empty()
        || subject.chars().count() > MAX_SUBJECT
        || subject.chars().any(char::is_control)
    {
        return Err(refuse(&format!(
            ".subject must be one line of 1 to {MAX_SUBJECT} characters"
        )));
    }
    if mail.text.trim().is_empty() || mail.text.chars().count() > MAX_TEXT {
        return Err(refuse(&format!(".text must be 1 to {MAX_TEXT} characters")));
    }
    mail.subject = subject.to_owned();
    mail.field_id = Some(field.id.to_string());
    mail.field_ref = None;
    let stored = serde_json::to_value(&mail).map_err(|e| CoreError::Internal(e.to_string()))?;
    settings.insert(KEY.to_owned(), stored);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields() -> Vec<Field> {
        vec![
            Field {
                id: Uuid::new_v4(),
                kind: FieldKind::Email,
                label: "Email".into(),
                r#ref: Some("email".into()),
                ..Field::default()
            },
            Field {
                id: Uuid::new_v4(),
                kind: FieldKind::ShortText,
                label: "Name".into(),
                r#ref: Some("name".into()),
                ..Field::default()
            },
        ]
    }

    fn settings(mail: Value) -> Map<String, Value> {
        let mut s = Map::new();
        s.insert(KEY.into(), mail);
        s
    }

    #[test]
    fn a_ref_becomes_the_fields_id_and_only_email_fields_receive() {
        let fields = fields();
        let mut s =
            settings(json!({"field_ref": "email", "subject": " Thanks ", "text": "Hi {{name}}"}));
        resolve(&mut s, &fields, &[]).expect("valid");
        let mail = of(&s).expect("stored");
        assert_eq!(mail.field_id, Some(fields[0].id.to_string()));
        assert_eq!((mail.field_ref, mail.subject.as_str()), (None, "Thanks"));
        let sent = Uuid::new_v4();
        let mut s = settings(json!({"field_id": sent.to_string(), "subject": "S", "text": "T"}));
        resolve(&mut s, &fields, &[(sent, fields[0].id)]).expect("an alias on create");
        for (bad, says) in [
            (
                json!({"field_ref": "name", "subject": "S", "text": "T"}),
                "must be an email field",
            ),
            (
                json!({"field_ref": "nope", "subject": "S", "text": "T"}),
                "names no field",
            ),
            (
                json!({"field_ref": "email", "subject": "a\r\nBcc: x", "text": "T"}),
                "one line",
            ),
            (
                json!({"field_ref": "email", "subject": "S"}),
                "missing field `text`",
            ),
        ] {
            let Err(CoreError::Validation(m)) = resolve(&mut settings(bad), &fields, &[]) else {
                panic!("refused");
            };
            assert!(
                m.starts_with("settings.confirmation_mail") && m.contains(says),
                "{m}"
            );
        }
    }
}
