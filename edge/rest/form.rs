//! `/forms` and `/forms/{id}`: the form resource, JSON shapes of SPEC onto FormsService calls.

use crate::http::body::{JsonBody, Patch, present};
use crate::http::call::{Call, Success};
use crate::http::params::{FormId, IdempotencyKey, PathParams};
use crate::http::state::AppState;
use crate::http::timestamp;
use crate::rest::pagination::Page;
use crate::rest::query::{self, Query};
use crate::rest::theme::Theme;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, convert};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};

/// A form as the API shows it.
#[derive(Serialize, ToSchema)]
pub(crate) struct Form {
    #[schema(format = Uuid)]
    id: String,
    title: String,
    #[schema(required = true)]
    description: Option<String>,
    status: StatusName,
    /// Field definitions, in order.
    fields: Vec<Field>,
    #[schema(value_type = Settings)]
    settings: Map<String, Value>,
    /// Short public identifier: the hosted page is at `/f/{short_id}`.
    short_id: String,
    #[schema(value_type = String, format = DateTime)]
    created_at: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    updated_at: Option<String>,
    /// Null while the form has never been published.
    #[schema(required = true, format = DateTime)]
    published_at: Option<String>,
    /// The language of the form's own texts: en (the default), de, fr, es, it, pt,
    /// nl, pl, ja or ar. Shown only for a form in another language or in several (a
    /// form in English alone has SPEC's properties only).
    #[serde(skip_serializing_if = "Option::is_none")]
    default_language: Option<String>,
    /// The form's texts in further languages (see `Translations`); shown with
    /// `default_language`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Translations>)]
    translations: Option<Map<String, Value>>,
    /// The look of its hosted page; left out while the form has none (the service's
    /// own look), so that an unthemed form keeps SPEC's exact shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    theme: Option<Theme>,
    /// Days its responses are kept: older ones (by `submitted_at`) are deleted with
    /// their files within the hour after they turn that old. Left out while responses
    /// are kept until deleted (SPEC's shape).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 36500, nullable = false)]
    retention_days: Option<i32>,
}

/// A form's texts in further languages, keyed by language tag (one of the languages
/// a form may be in, not its default). Each language's object has any of `title`,
/// `description`, `confirmation_message`, `redirect_url`, and `fields`: keyed by field
/// id (or, on create, its `ref`), each with any of `label`, `placeholder`, `min_label`,
/// `max_label` and `options` (option id to label). A text left out is shown in the
/// default language; answers are the same in every language (option ids do not
/// change).
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct Translations(Map<String, Value>);

impl From<pb::Form> for Form {
    fn from(form: pb::Form) -> Self {
        let status = pb::FormStatus::try_from(form.status).map_or(StatusName::Draft, status_name);
        let translations = form
            .translations
            .as_ref()
            .map(convert::struct_to_object)
            .unwrap_or_default();
        let default_language = form.default_language.unwrap_or_else(|| "en".to_owned());
        // Languages are shown once the form uses them.
        let languages = (default_language != "en" || !translations.is_empty())
            .then_some((default_language, translations));
        let (default_language, translations) = languages.unzip();
        Self {
            id: form.id,
            title: form.title,
            description: form.description,
            status,
            fields: form.fields.into_iter().map(Field::from).collect(),
            settings: form
                .settings
                .as_ref()
                .map(convert::struct_to_object)
                .unwrap_or_default(),
            short_id: form.short_id,
            created_at: timestamp(form.created_at.as_ref()),
            updated_at: timestamp(form.updated_at.as_ref()),
            published_at: timestamp(form.published_at.as_ref()),
            default_language,
            translations,
            theme: form.theme.map(Theme::from),
            retention_days: form.retention_days,
        }
    }
}

/// A field definition as the API shows it. Properties that do not apply to the field
/// are left out.
#[derive(Serialize, ToSchema)]
pub(crate) struct Field {
    #[schema(format = Uuid)]
    id: String,
    #[serde(rename = "type")]
    #[schema(value_type = FieldType)]
    kind: String,
    label: String,
    required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    placeholder: Option<String>,
    /// File extensions accepted by a `file_upload` field (lower case, no dot).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    allowed_types: Vec<String>,
    /// Largest file of a `file_upload` field, in megabytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = f64, nullable = false)]
    max_size_mb: Option<Value>,
    /// The expected answer of a quiz question (string or number).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Value)]
    correct_answer: Option<Value>,
    /// Points a correct answer is worth in a quiz (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    points: Option<i32>,
    /// `single_choice`, `dropdown`, `multiple_choice`: the options in display order.
    /// Answers store an option's `id`, which stays the same when its label changes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    options: Vec<FieldOption>,
    /// `multiple_choice`: fewest options an answer ticks (absent: 1 when required, else 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, minimum = 0)]
    min_selected: Option<i32>,
    /// `multiple_choice`: most options an answer ticks (absent: all of them).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, minimum = 1)]
    max_selected: Option<i32>,
    /// `single_choice`, `multiple_choice`: an "Other" answer with free text is accepted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    allow_other: bool,
    /// Lower bound: `number` (a number), `scale` (an integer), `date` (`YYYY-MM-DD`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Value)]
    min: Option<Value>,
    /// Upper bound: `number` (a number), `rating` (stars, 1 to 10), `scale` (an integer
    /// up to 10), `date` (`YYYY-MM-DD`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Value)]
    max: Option<Value>,
    /// `scale`: the label of its low end.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    min_label: Option<String>,
    /// `scale`: the label of its high end.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    max_label: Option<String>,
    /// The client's name for the field, unique in the form.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    reference: Option<String>,
    /// The field (a `page_break`: its page) is shown when all of these hold; a field not
    /// shown is not required, and an answer to it is refused.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    show_if: Vec<Condition>,
}

/// One option of a choice field.
#[derive(Serialize, Deserialize, ToSchema)]
pub(crate) struct FieldOption {
    /// Stable id (assigned by the service when not sent): what answers store.
    #[serde(default)]
    #[schema(max_length = 64)]
    id: String,
    /// Text shown to the respondent, 1 to 200 characters.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200)]
    label: String,
}

impl From<pb::FormField> for Field {
    fn from(field: pb::FormField) -> Self {
        Self {
            id: field.id,
            kind: field.r#type,
            label: field.label,
            required: field.required,
            placeholder: field.placeholder,
            allowed_types: field.allowed_types,
            max_size_mb: field.max_size_mb.map(convert::number_to_json),
            correct_answer: field.correct_answer.as_ref().map(convert::value_to_json),
            points: field.points,
            options: field
                .options
                .into_iter()
                .map(|o| FieldOption {
                    id: o.id,
                    label: o.label,
                })
                .collect(),
            min_selected: field.min_selected,
            max_selected: field.max_selected,
            allow_other: field.allow_other,
            min: field.min.as_ref().map(convert::value_to_json),
            max: field.max.as_ref().map(convert::value_to_json),
            min_label: field.min_label,
            max_label: field.max_label,
            reference: field.r#ref,
            show_if: field.show_if.into_iter().map(Condition::from).collect(),
        }
    }
}

fn status_name(status: pb::FormStatus) -> StatusName {
    match status {
        pb::FormStatus::Published => StatusName::Published,
        pb::FormStatus::Archived => StatusName::Archived,
        pb::FormStatus::Draft | pb::FormStatus::Unspecified => StatusName::Draft,
    }
}

/// The type of a field: what an answer to it must be.
#[derive(ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code)] // documents the strings the core accepts in `type`
pub(crate) enum FieldType {
    ShortText,
    LongText,
    /// Same rules as `long_text`.
    Textarea,
    Email,
    Number,
    FileUpload,
    /// One option id (radio buttons), or `{"other": text}` with `allow_other`.
    SingleChoice,
    /// One option id (a select).
    Dropdown,
    /// An array of distinct option ids, possibly with one `{"other": text}`.
    MultipleChoice,
    /// An integer from 1 to `max` (default 5).
    Rating,
    /// An integer from `min` to `max` (default 0 to 10).
    Scale,
    /// `YYYY-MM-DD`, within `min` / `max`.
    Date,
    /// An absolute http(s) URL, at most 2000 characters.
    Url,
    /// An international number (`+` and country code), stored in E.164.
    Phone,
    /// A boolean; a required checkbox must be `true`.
    Checkbox,
    /// A string of at most 2000 characters, never required.
    Hidden,
    /// Not a question: starts a new page titled by its `label`, shown when its `show_if`
    /// holds. Takes no answer.
    PageBreak,
}

/// A condition on the answer to an earlier field: see `show_if`.
#[derive(Serialize, Deserialize, ToSchema)]
pub(crate) struct Condition {
    /// The earlier field: its id, or its `ref` (or, on create, the id sent for it).
    /// Returned as the field's id.
    #[serde(default)]
    field: String,
    /// `not_equals` holds when the field is unanswered; `greater_than` and `less_than`
    /// (number, rating, scale, date) do not.
    #[serde(default)]
    #[schema(value_type = ConditionOp)]
    op: String,
    /// Compared with the answer, written as that field's answers are (an option id or
    /// label, a number, `YYYY-MM-DD`, a boolean, text); a list for `any_of`; left out
    /// for `answered` / `not_answered`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Value)]
    value: Option<Value>,
}

/// What a condition tests.
#[derive(ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code)] // documents the strings the core accepts in `op`
pub(crate) enum ConditionOp {
    Equals,
    NotEquals,
    AnyOf,
    Contains,
    Answered,
    NotAnswered,
    GreaterThan,
    LessThan,
}

impl From<pb::Condition> for Condition {
    fn from(c: pb::Condition) -> Self {
        Self {
            field: c.field,
            op: c.op,
            value: c.value.as_ref().map(convert::value_to_json),
        }
    }
}

impl From<Condition> for pb::Condition {
    fn from(c: Condition) -> Self {
        Self {
            field: c.field,
            op: c.op,
            value: c.value.as_ref().map(convert::json_to_value),
        }
    }
}

/// The settings of a form. The keys below are type-checked; other keys are kept as
/// sent (64 KiB in all at most).
#[derive(ToSchema)]
#[allow(dead_code)] // documents the JSON object the edge passes through as a map
pub(crate) struct Settings {
    /// Where to send a respondent after submission: an http(s) URL, or null.
    #[schema(nullable, max_length = 2048, format = Uri)]
    redirect_url: Option<String>,
    /// Shown after submission.
    #[schema(nullable = false, max_length = 5000)]
    confirmation_message: Option<String>,
    #[schema(nullable = false)]
    notifications_enabled: Option<bool>,
    /// The form is closed (422 FORM_CLOSED) from this instant on.
    #[schema(nullable, format = DateTime)]
    closes_at: Option<String>,
    /// The form is closed once it holds this many responses.
    #[schema(nullable, minimum = 1)]
    max_responses: Option<u64>,
    /// Whether the form's hosted page makes the visitor's browser solve a small
    /// proof-of-work challenge (about 50,000 SHA-256 hashes on average, in the background
    /// while the visitor types) before it is submitted: a robot then pays that work for
    /// each submission. Self-hosted, no third party, no cookie; the page needs JavaScript
    /// to be submitted. Responses created through the API are not affected; endpoint-mode
    /// submissions need a solution too (in the input `_pow`).
    #[schema(nullable = false)]
    proof_of_work: Option<bool>,
    /// Endpoint mode: the origins (`scheme://host[:port]`, such as
    /// `https://www.example.com`, no path) whose pages may post the owner's own HTML
    /// form, or a `fetch`, to the form's public address `/f/{short_id}`. Stored in lower
    /// case without repeats; an empty array or null turns endpoint mode off.
    #[schema(nullable, max_items = 20)]
    allowed_origins: Option<Vec<String>>,
    /// A mail to each respondent of the hosted page (or endpoint mode) after submitting,
    /// at the address they gave in one of the form's email fields, in the language
    /// their page was shown in: the owner's subject and text (each may recall an
    /// answer as `{{ref}}`), the answers by label, and a line saying why the mail came;
    /// replies go to the account's notification address. Bounded: 10 mails a day to
    /// one address whatever the form, and `--confirmation-mails-per-form` (200) a day
    /// of one form; never for a robot's submission, never for an API-created response.
    /// Translations carry the subject and text per language (`confirmation_mail`).
    /// Null turns it off.
    #[schema(nullable)]
    confirmation_mail: Option<ConfirmationMail>,
    /// A quiz (a field with a `correct_answer`): show the respondent their score on
    /// the thank-you page.
    #[schema(nullable = false)]
    show_quiz_score: Option<bool>,
}

/// `settings.confirmation_mail`: sent with `field_id` or `field_ref`; stored and
/// returned with `field_id`.
#[derive(ToSchema)]
#[allow(dead_code)] // documents the JSON object the edge passes through as a map
pub(crate) struct ConfirmationMail {
    /// The email field whose answer is the recipient.
    field_id: Option<String>,
    /// The same field by its `ref` (on create, before fields have ids).
    field_ref: Option<String>,
    /// One line, 1 to 200 characters; may recall answers (`{{ref}}`).
    #[schema(min_length = 1, max_length = 200)]
    subject: String,
    /// 1 to 5000 characters, above the answers; may recall answers (`{{ref}}`).
    #[schema(min_length = 1, max_length = 5000)]
    text: String,
}

/// The status of a form: only a published form accepts responses.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum StatusName {
    Draft,
    Published,
    Archived,
}

impl From<StatusName> for pb::FormStatus {
    fn from(status: StatusName) -> Self {
        match status {
            StatusName::Draft => Self::Draft,
            StatusName::Published => Self::Published,
            StatusName::Archived => Self::Archived,
        }
    }
}

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

fn create_request(body: CreateFormBody) -> pb::CreateFormRequest {
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
fn update_request(id: String, body: UpdateFormBody) -> pb::UpdateFormRequest {
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

/// The query of `GET /forms`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ListFormsQuery {
    /// Page number.
    #[serde(default, deserialize_with = "query::integer")]
    #[param(minimum = 1, default = 1)]
    page: Option<i32>,
    /// Results per page (above 100 is read as 100).
    #[serde(default, deserialize_with = "query::integer")]
    #[param(minimum = 1, maximum = 100, default = 25)]
    per_page: Option<i32>,
    /// Only forms of this status (default `all`).
    #[serde(default, deserialize_with = "query::choice")]
    #[param(inline)]
    status: Option<StatusFilter>,
    /// Case-insensitive substring of the title.
    search: Option<String>,
}

/// A status filter: a status, or `all`.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum StatusFilter {
    All,
    Draft,
    Published,
    Archived,
}

impl From<StatusFilter> for pb::FormStatus {
    fn from(filter: StatusFilter) -> Self {
        match filter {
            StatusFilter::All => Self::Unspecified,
            StatusFilter::Draft => Self::Draft,
            StatusFilter::Published => Self::Published,
            StatusFilter::Archived => Self::Archived,
        }
    }
}

/// `data` of a form list.
#[derive(Serialize, ToSchema)]
pub(crate) struct FormList {
    forms: Vec<Form>,
    pagination: Option<Page>,
}

/// `data` of a reply with one form.
#[derive(Serialize, ToSchema)]
pub(crate) struct OneForm {
    form: Option<Form>,
}

impl OneForm {
    pub(crate) fn new(form: Option<pb::Form>) -> Self {
        Self {
            form: form.map(Form::from),
        }
    }
}

fn list_request(query: ListFormsQuery) -> pb::ListFormsRequest {
    let status = query.status.map_or(pb::FormStatus::Unspecified, Into::into);
    pb::ListFormsRequest {
        page: query.page,
        per_page: query.per_page,
        status: status.into(),
        search: query.search.unwrap_or_default(),
    }
}

/// List forms
#[utoipa::path(get, path = "/forms", operation_id = "listForms", tag = "forms",
    description = "Scope: read. The caller's forms, newest first, a page at a time.",
    params(ListFormsQuery),
    responses((status = 200, description = "A page of forms", body = Success<FormList>)))]
pub(crate) async fn list(
    State(state): State<AppState>,
    call: Call,
    Query(query): Query<ListFormsQuery>,
) -> Response {
    let request = call.request(list_request(query));
    let result = state.forms().list_forms(request).await;
    call.reply(result, StatusCode::OK, |r| FormList {
        forms: r.forms.into_iter().map(Form::from).collect(),
        pagination: r.pagination.map(Page::from),
    })
}

/// Get a form
#[utoipa::path(get, path = "/forms/{id}", operation_id = "getForm", tag = "forms",
    description = "Scope: read. The form with its field definitions.",
    params(FormId),
    responses((status = 200, description = "The form", body = Success<OneForm>)))]
pub(crate) async fn get(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormId(id)): PathParams<FormId>,
) -> Response {
    let result = state
        .forms()
        .get_form(call.request(pb::GetFormRequest { id }))
        .await;
    call.reply(result, StatusCode::OK, |r| OneForm::new(r.form))
}

/// Create a form
#[utoipa::path(post, path = "/forms", operation_id = "createForm", tag = "forms",
    description = "Scope: write. The new form is a draft; the service assigns its id, \
        short_id, timestamps and each field's id. Idempotent with an Idempotency-Key.",
    params(IdempotencyKey),
    request_body = CreateFormBody,
    responses((status = 201, description = "The form created (or, with \
        Idempotent-Replayed: true, the reply to the first request with this key)",
        body = Success<OneForm>)))]
pub(crate) async fn create(
    State(state): State<AppState>,
    call: Call,
    JsonBody(body): JsonBody<CreateFormBody>,
) -> Response {
    let request = call.request(create_request(body));
    let result = state.forms().create_form(request).await;
    call.reply(result, StatusCode::CREATED, |r| OneForm::new(r.form))
}

/// Update a form
#[utoipa::path(put, path = "/forms/{id}", operation_id = "updateForm", tag = "forms",
    description = "Scope: write. A partial update: properties left out keep their values.",
    params(FormId),
    request_body = UpdateFormBody,
    responses((status = 200, description = "The form updated", body = Success<OneForm>)))]
pub(crate) async fn update(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormId(id)): PathParams<FormId>,
    JsonBody(body): JsonBody<UpdateFormBody>,
) -> Response {
    let request = call.request(update_request(id, body));
    let result = state.forms().update_form(request).await;
    call.reply(result, StatusCode::OK, |r| OneForm::new(r.form))
}

/// Delete a form
#[utoipa::path(delete, path = "/forms/{id}", operation_id = "deleteForm", tag = "forms",
    description = "Scope: admin. Removes the form and all its responses, for good.",
    params(FormId),
    responses((status = 204, description = "Deleted")))]
pub(crate) async fn delete(
    State(state): State<AppState>,
    call: Call,
    PathParams(FormId(id)): PathParams<FormId>,
) -> Response {
    let result = state
        .forms()
        .delete_form(call.request(pb::DeleteFormRequest { id }))
        .await;
    call.reply(result, StatusCode::NO_CONTENT, |_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::query::parse;

    fn list(query: &str) -> Result<pb::ListFormsRequest, String> {
        parse::<ListFormsQuery>(query).map(list_request)
    }

    #[test]
    fn every_parameter_reaches_the_request() {
        assert_eq!(list(""), Ok(pb::ListFormsRequest::default()));
        assert_eq!(
            list("page=3&per_page=%2010%20&status=archived&search=a%26b%20"),
            Ok(pb::ListFormsRequest {
                page: Some(3),
                per_page: Some(10),
                status: pb::FormStatus::Archived.into(),
                search: "a&b ".to_owned(),
            })
        );
    }

    #[test]
    fn all_and_an_empty_status_are_every_status() {
        for (status, expected) in [
            ("", pb::FormStatus::Unspecified),
            ("all", pb::FormStatus::Unspecified),
            ("draft", pb::FormStatus::Draft),
            ("published", pb::FormStatus::Published),
            ("archived", pb::FormStatus::Archived),
        ] {
            let request = list(&format!("status={status}")).expect(status);
            assert_eq!(request.status(), expected, "{status}");
        }
    }

    #[test]
    fn a_bad_value_is_refused_naming_its_parameter() {
        query::assert_refused::<ListFormsQuery>(&[
            ("page=", r#"page must be an integer, got """#),
            ("page=-1%2E0", r#"page must be an integer, got "-1.0""#),
            ("per_page=2.0", r#"per_page must be an integer, got "2.0""#),
            (
                "status=PUBLISHED",
                r#"status must be all, draft, published or archived, got "PUBLISHED""#,
            ),
            (
                "status=draft,published",
                r#"status must be all, draft, published or archived, got "draft,published""#,
            ),
        ]);
    }
}
