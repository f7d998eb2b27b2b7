//! The forms domain's values to and from protobuf: a form, its fields, its status, its
//! translations and theme, and an update mask read into a change.

use super::logo::{theme_from_pb, theme_to_pb};
use super::{FieldInput, Form, FormChange, FormStatus};
use crate::error::CoreError;
use crate::pb::{self, convert};
use uuid::Uuid;

pub(crate) fn status_to_pb(status: FormStatus) -> pb::FormStatus {
    match status {
        FormStatus::Draft => pb::FormStatus::Draft,
        FormStatus::Published => pb::FormStatus::Published,
        FormStatus::Archived => pb::FormStatus::Archived,
    }
}

pub(super) fn status_from_pb(value: i32) -> Result<Option<FormStatus>, CoreError> {
    match pb::FormStatus::try_from(value) {
        Ok(pb::FormStatus::Unspecified) => Ok(None),
        Ok(pb::FormStatus::Draft) => Ok(Some(FormStatus::Draft)),
        Ok(pb::FormStatus::Published) => Ok(Some(FormStatus::Published)),
        Ok(pb::FormStatus::Archived) => Ok(Some(FormStatus::Archived)),
        Err(_) => Err(CoreError::validation(
            "status must be one of draft, published, archived",
        )),
    }
}

pub(crate) fn form_to_pb(form: Form) -> pb::Form {
    pb::Form {
        id: form.id.to_string(),
        title: form.title,
        description: form.description,
        status: status_to_pb(form.status).into(),
        fields: form
            .fields
            .into_iter()
            .map(|f| pb::FormField {
                id: f.id.to_string(),
                r#type: f.kind.as_str().to_owned(),
                label: f.label,
                required: f.required,
                placeholder: f.placeholder,
                allowed_types: f.allowed_types,
                max_size_mb: f.max_size_mb,
                correct_answer: f.correct_answer.as_ref().map(convert::json_to_value),
                points: f.points,
                options: f
                    .options
                    .into_iter()
                    .map(|o| pb::FieldOption {
                        id: o.id,
                        label: o.label,
                    })
                    .collect(),
                min_selected: f.min_selected,
                max_selected: f.max_selected,
                allow_other: f.allow_other,
                min: f.min.as_ref().map(convert::json_to_value),
                max: f.max.as_ref().map(convert::json_to_value),
                min_label: f.min_label,
                max_label: f.max_label,
                r#ref: f.r#ref,
                show_if: f
                    .show_if
                    .into_iter()
                    .map(|c| pb::Condition {
                        field: c.field.to_string(),
                        op: c.op.as_str().to_owned(),
                        value: c.value.as_ref().map(convert::json_to_value),
                    })
                    .collect(),
            })
            .collect(),
        settings: Some(convert::object_to_struct(&form.settings)),
        default_language: Some(form.languages.default.clone()),
        translations: Some(translations_to_pb(&form.languages)),
        theme: form.theme.map(theme_to_pb),
        retention_days: form.retention_days,
        short_id: form.short_id,
        created_at: Some(convert::timestamp(form.created_at)),
        updated_at: Some(convert::timestamp(form.updated_at)),
        published_at: form.published_at.map(convert::timestamp),
    }
}

/// A form's translations as the `translations` Struct of its pb message.
fn translations_to_pb(languages: &super::Languages) -> prost_types::Struct {
    let value = serde_json::to_value(&languages.translations).unwrap_or_default();
    match value {
        serde_json::Value::Object(map) => convert::object_to_struct(&map),
        _ => prost_types::Struct::default(),
    }
}

/// The translations of a request's Struct (absent: none).
pub(super) fn translations_from_pb(
    value: Option<&prost_types::Struct>,
) -> Result<std::collections::BTreeMap<String, super::Translation>, CoreError> {
    let object = value.map(convert::struct_to_object).unwrap_or_default();
    super::languages::translations_from_json(serde_json::Value::Object(object))
}

fn field_from_pb(i: usize, f: pb::FormField) -> Result<FieldInput, CoreError> {
    let id = if f.id.is_empty() {
        None
    } else {
        Some(
            Uuid::parse_str(&f.id)
                .map_err(|_| CoreError::Validation(format!("fields[{i}].id must be a UUID")))?,
        )
    };
    Ok(FieldInput {
        id,
        kind: f.r#type,
        label: f.label,
        required: f.required,
        placeholder: f.placeholder,
        allowed_types: f.allowed_types,
        max_size_mb: f.max_size_mb,
        correct_answer: f.correct_answer.as_ref().map(convert::value_to_json),
        points: f.points,
        options: f
            .options
            .into_iter()
            .map(|o| super::FieldOption {
                id: o.id,
                label: o.label,
            })
            .collect(),
        min_selected: f.min_selected,
        max_selected: f.max_selected,
        allow_other: f.allow_other,
        min: f.min.as_ref().map(convert::value_to_json),
        max: f.max.as_ref().map(convert::value_to_json),
        min_label: f.min_label,
        max_label: f.max_label,
        r#ref: f.r#ref,
        show_if: f
            .show_if
            .into_iter()
            .map(|c| super::logic::ConditionInput {
                field: c.field,
                op: c.op,
                value: c.value.as_ref().map(convert::value_to_json),
            })
            .collect(),
        alias: None,
    })
}

pub(super) fn fields_from_pb(fields: Vec<pb::FormField>) -> Result<Vec<FieldInput>, CoreError> {
    fields
        .into_iter()
        .enumerate()
        .map(|(i, f)| field_from_pb(i, f))
        .collect()
}

/// Reads the update mask into a domain change.
pub(super) fn change_from_pb(req: pb::UpdateFormRequest) -> Result<FormChange, CoreError> {
    let mut f = req.form.unwrap_or_default();
    let mut change = FormChange::default();
    for path in req.update_mask.map(|m| m.paths).unwrap_or_default() {
        match path.as_str() {
            "title" => change.title = Some(std::mem::take(&mut f.title)),
            "description" => change.description = Some(f.description.take()),
            "fields" => change.fields = Some(fields_from_pb(std::mem::take(&mut f.fields))?),
            "settings" => {
                change.settings = Some(
                    f.settings
                        .as_ref()
                        .map(convert::struct_to_object)
                        .unwrap_or_default(),
                )
            }
            "default_language" => {
                change.default_language = Some(
                    f.default_language
                        .take()
                        .unwrap_or_else(|| super::languages::DEFAULT.to_owned()),
                );
            }
            "translations" => {
                change.translations = Some(translations_from_pb(f.translations.as_ref())?);
            }
            one if one.starts_with("translations.") => {
                let tag = one.trim_start_matches("translations.").to_owned();
                if tag.is_empty() {
                    return Err(CoreError::validation(
                        "translations. must name a language, as in translations.de",
                    ));
                }
                let mut sent = translations_from_pb(f.translations.as_ref())?;
                let translation = sent.remove(&tag);
                change.translations_of.push((tag, translation));
            }
            "theme" => change.theme = Some(f.theme.take().map(theme_from_pb)),
            "retention_days" => change.retention_days = Some(f.retention_days.take()),
            "status" => {
                change.status = Some(status_from_pb(f.status)?.ok_or_else(|| {
                    CoreError::validation("status must be one of draft, published, archived")
                })?)
            }
            other => {
                return Err(CoreError::Validation(format!(
                    "{other:?} cannot be updated; updatable: title, description, fields, settings, status, default_language, translations, translations.<language>, theme, retention_days"
                )));
            }
        }
    }
    Ok(change)
}
