//! The form as the API shows it: its JSON shapes (fields, conditions, settings,
//! status), each read from the core's message.

use crate::http::timestamp;
use crate::rest::theme::Theme;
use forms::pb::{self, convert};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

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
    pub(super) id: String,
    /// Text shown to the respondent, 1 to 200 characters.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200)]
    pub(super) label: String,
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

/// The type of a field: what an answer to it must be. Its names are the core's one
/// list of kinds (`pb::FieldKind::ALL`), so a new kind reaches the document by itself;
/// what each takes is described with the field's properties.
pub(crate) struct FieldType;

impl utoipa::PartialSchema for FieldType {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some("The type of a field: what an answer to it must be."))
            .enum_values(Some(pb::FieldKind::ALL.iter().map(|k| k.as_str())))
            .into()
    }
}

impl ToSchema for FieldType {}

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
    /// The hosted page shows one question at a time: each question its own step with
    /// a progress bar (without JavaScript, each step is a page; page breaks still start
    /// a new step with their title). False or absent: the form's own pages.
    #[schema(nullable = false)]
    one_question_at_a_time: Option<bool>,
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
