//! What `POST /forms` and `PUT /forms/{id}` take: the request bodies and the core's
//! requests they become.

use super::shape::{Condition, FieldOption, FieldType, Settings, StatusName, Translations};
use crate::http::body::{Patch, present};
use crate::rest::theme::Theme;
use forms::pb::{self, convert};
use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// A field definition as sent in `fields`. Everything optional to the parser: which
/// properties a field needs, and which types exist, are the core's rules (the schema
/// attributes document them).
#[derive(Deserialize, ToSchema)]
#[schema(as = FieldInput)]
struct FieldBody {
    /// On create the field gets a new id (conditions may still name it by this one);
    /// on update, the id of an existing field keeps it (and its answers), no id makes a
    /// new field, an unknown id is 422.
    #[schema(format = Uuid, nullable = false)]
    id: Option<String>,
    #[serde(rename = "type")]
    #[schema(value_type = FieldType, required = true)]
    kind: Option<String>,
    #[schema(value_type = String, required = true, min_length = 1, max_length = 500)]
    label: Option<String>,
    #[schema(nullable = false)]
    required: Option<bool>,
    #[schema(nullable = false, max_length = 500)]
    placeholder: Option<String>,
    /// `file_upload` only: accepted file extensions (at most 50).
    #[schema(nullable = false, max_items = 50)]
    allowed_types: Option<Vec<String>>,
    /// `file_upload` only: largest file in megabytes, above 0 and at most 100.
    #[schema(nullable = false, exclusive_minimum = 0, maximum = 100)]
    max_size_mb: Option<f64>,
    /// Makes the form a quiz: the expected answer (string or number).
    /// Any JSON; a `null` sent is passed on as a null value, not as "no answer".
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Value)]
    correct_answer: Option<Value>,
    /// Points a correct answer is worth (default 1).
    #[schema(nullable = false)]
    points: Option<i32>,
    /// `single_choice`, `dropdown`, `multiple_choice` only: 1 to 100 options with
    /// distinct labels. Leave `id` out to have one assigned; send the ids back on update
    /// to keep them (renaming an option keeps its answers).
    #[schema(nullable = false, min_items = 1, max_items = 100)]
    options: Option<Vec<FieldOption>>,
    /// `multiple_choice` only: 0 to `max_selected`.
    #[schema(nullable = false, minimum = 0)]
    min_selected: Option<i32>,
    /// `multiple_choice` only: `min_selected` to the number of options.
    #[schema(nullable = false, minimum = 1)]
    max_selected: Option<i32>,
    /// `single_choice`, `multiple_choice` only: accept `{"other": text}`.
    #[schema(nullable = false)]
    allow_other: Option<bool>,
    /// `number` (a number), `scale` (integer 0 to 9, default 0), `date` (`YYYY-MM-DD`).
    #[serde(default)]
    #[schema(value_type = Value)]
    min: Option<Value>,
    /// `number` (a number), `rating` (1 to 10, default 5), `scale` (integer up to 10,
    /// default 10), `date` (`YYYY-MM-DD`).
    #[serde(default)]
    #[schema(value_type = Value)]
    max: Option<Value>,
    /// `scale` only: the label of its low end, at most 100 characters.
    #[schema(nullable = false, max_length = 100)]
    min_label: Option<String>,
    /// `scale` only: the label of its high end, at most 100 characters.
    #[schema(nullable = false, max_length = 100)]
    max_label: Option<String>,
    /// A name for the field, unique in the form (1 to 64 letters, digits, `_`, `-`), by
    /// which conditions may name it before it has an id.
    #[serde(rename = "ref")]
    #[schema(nullable = false, max_length = 64)]
    reference: Option<String>,
    /// Shown only when all of these hold (at most 20); each reads a field that comes
    /// before this one. Logic that names an unknown or later field, or that can never
    /// hold, is 422.
    #[schema(nullable = false, max_items = 20)]
    show_if: Option<Vec<Condition>>,
}

impl From<FieldBody> for pb::FormField {
    fn from(f: FieldBody) -> Self {
        Self {
            id: f.id.unwrap_or_default(),
            r#type: f.kind.unwrap_or_default(),
            label: f.label.unwrap_or_default(),
            required: f.required.unwrap_or_default(),
            placeholder: f.placeholder,
            allowed_types: f.allowed_types.unwrap_or_default(),
            max_size_mb: f.max_size_mb,
            correct_answer: f.correct_answer.as_ref().map(convert::json_to_value),
            points: f.points,
            options: f
                .options
                .unwrap_or_default()
                .into_iter()
                .map(|o| pb::FieldOption {
                    id: o.id,
                    label: o.label,
                })
                .collect(),
            min_selected: f.min_selected,
            max_selected: f.max_selected,
            allow_other: f.allow_other.unwrap_or_default(),
            min: f.min.as_ref().map(convert::json_to_value),
            max: f.max.as_ref().map(convert::json_to_value),
            min_label: f.min_label,
            max_label: f.max_label,
            r#ref: f.reference,
            show_if: f
                .show_if
                .unwrap_or_default()
                .into_iter()
                .map(pb::Condition::from)
                .collect(),
        }
    }
}

fn fields_pb(fields: Vec<FieldBody>) -> Vec<pb::FormField> {
    fields.into_iter().map(pb::FormField::from).collect()
}

/// The body of `POST /forms`. A missing or null title is left to the core, which
/// requires one; `fields` and `settings` may be left out but not sent as null.
#[derive(Deserialize, ToSchema)]
#[schema(as = CreateForm)]
pub(crate) struct CreateFormBody {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 200)]
    title: Option<String>,
    #[schema(max_length = 5000)]
    description: Option<String>,
    /// At most 200 fields.
    #[serde(default, deserialize_with = "present")]
    #[schema(nullable = false, max_items = 200)]
    fields: Option<Vec<FieldBody>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Settings>, nullable = false)]
    settings: Option<Map<String, Value>>,
    /// The language of the form's own texts; absent: en.
    #[serde(default, deserialize_with = "present")]
    #[schema(nullable = false)]
    default_language: Option<String>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Translations>, nullable = false)]
    translations: Option<Map<String, Value>>,
    /// The look of the hosted page (its logo is uploaded apart).
    #[serde(default, deserialize_with = "present")]
    #[schema(nullable = false)]
    theme: Option<Theme>,
    /// Days responses are kept (1 to 36500); absent or null: until deleted.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 36500)]
    retention_days: Option<i32>,
}

pub(super) fn create_request(body: CreateFormBody) -> pb::CreateFormRequest {
    pb::CreateFormRequest {
        title: body.title.unwrap_or_default(),
        description: body.description,
        fields: body.fields.map(fields_pb).unwrap_or_default(),
        settings: body.settings.as_ref().map(convert::object_to_struct),
        default_language: body.default_language,
        translations: body.translations.as_ref().map(convert::object_to_struct),
        theme: body.theme.map(pb::FormTheme::from),
        retention_days: body.retention_days,
    }
}

/// The body of `PUT /forms/{id}`: a partial update, each property absent (kept), or
/// sent. `description: null` clears the description; `title: null` asks for an empty
/// title, which the core refuses like any other; `fields`, `settings` and `status`
/// cannot be null.
#[derive(Deserialize, ToSchema)]
#[schema(as = UpdateForm)]
pub(crate) struct UpdateFormBody {
    #[serde(default)]
    #[schema(value_type = Option<String>, nullable = false, min_length = 1, max_length = 200)]
    title: Patch<String>,
    /// `null` clears the description.
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 5000)]
    description: Patch<String>,
    /// Replaces the field list (at most 200 fields).
    #[serde(default, deserialize_with = "present")]
    #[schema(nullable = false, max_items = 200)]
    fields: Option<Vec<FieldBody>>,
    /// Merged key by key into the form's settings.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Settings>, nullable = false)]
    settings: Option<Map<String, Value>>,
    /// Any status may be set, in any order; publishing sets `published_at` once.
    #[serde(default, deserialize_with = "present")]
    #[schema(nullable = false)]
    status: Option<StatusName>,
    /// The language of the form's own texts.
    #[serde(default, deserialize_with = "present")]
    #[schema(nullable = false)]
    default_language: Option<String>,
    /// Replaces the form's translations whole (`{}` removes them all).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Translations>, nullable = false)]
    translations: Option<Map<String, Value>>,
    /// Replaces the theme (its logo is kept); `null` clears it and its logo.
    #[serde(default)]
    #[schema(value_type = Option<Theme>)]
    theme: Patch<Theme>,
    /// Days responses are kept (1 to 36500); `null`: until deleted.
    #[serde(default)]
    #[schema(value_type = Option<i32>, minimum = 1, maximum = 36500)]
    retention_days: Patch<i32>,
}

/// A partial update: the mask names exactly the properties present in the body.
pub(super) fn update_request(id: String, body: UpdateFormBody) -> pb::UpdateFormRequest {
    let mut form = pb::Form::default();
    let mut paths = Vec::new();
    if let Some(title) = body.title.into_change() {
        form.title = title.unwrap_or_default();
        paths.push("title");
    }
    if let Some(description) = body.description.into_change() {
        form.description = description;
        paths.push("description");
    }
    if let Some(fields) = body.fields {
        form.fields = fields_pb(fields);
        paths.push("fields");
    }
    if let Some(settings) = body.settings {
        form.settings = Some(convert::object_to_struct(&settings));
        paths.push("settings");
    }
    if let Some(status) = body.status {
        form.status = pb::FormStatus::from(status).into();
        paths.push("status");
    }
    if let Some(tag) = body.default_language {
        form.default_language = Some(tag);
        paths.push("default_language");
    }
    if let Some(translations) = body.translations {
        form.translations = Some(convert::object_to_struct(&translations));
        paths.push("translations");
    }
    if let Some(theme) = body.theme.into_change() {
        form.theme = theme.map(pb::FormTheme::from);
        paths.push("theme");
    }
    if let Some(days) = body.retention_days.into_change() {
        form.retention_days = days;
        paths.push("retention_days");
    }
    pb::UpdateFormRequest {
        id,
        form: Some(form),
        update_mask: Some(prost_types::FieldMask {
            paths: paths.into_iter().map(str::to_owned).collect(),
        }),
    }
}
