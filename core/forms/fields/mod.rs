//! Fields of a form: their types, their validation on create and update, and the
//! scoring of quiz answers against them.

use super::check_len;
use super::logic::{self, Condition, ConditionInput};
use crate::error::CoreError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::str::FromStr;
use uuid::Uuid;

mod build;
pub(crate) use build::build_fields;

/// The type of a field. `textarea` is accepted as a synonym of `long_text` and kept as
/// sent. Every type here has its answers validated on submission. Stored by its
/// snake_case name in the `fields` JSON of a form; a name this build does not know is an
/// error when read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    #[default]
    ShortText,
    LongText,
    Textarea,
    Email,
    Number,
    FileUpload,
    SingleChoice,
    Dropdown,
    MultipleChoice,
    Rating,
    Scale,
    Date,
    Url,
    Phone,
    Checkbox,
    Hidden,
    /// Not a question: starts a new page (its label is the page's title), and its
    /// `show_if` decides whether the page is shown (`logic`).
    PageBreak,
}

impl FieldKind {
    pub const ALL: [FieldKind; 17] = [
        Self::ShortText,
        Self::LongText,
        Self::Textarea,
        Self::Email,
        Self::Number,
        Self::FileUpload,
        Self::SingleChoice,
        Self::Dropdown,
        Self::MultipleChoice,
        Self::Rating,
        Self::Scale,
        Self::Date,
        Self::Url,
        Self::Phone,
        Self::Checkbox,
        Self::Hidden,
        Self::PageBreak,
    ];

    /// Kinds answered with free text.
    pub fn is_text(self) -> bool {
        matches!(
            self,
            Self::ShortText
                | Self::LongText
                | Self::Textarea
                | Self::Email
                | Self::Url
                | Self::Phone
                | Self::Hidden
        )
    }

    /// Kinds whose answers are ordered (greater / less than).
    pub fn is_ordered(self) -> bool {
        matches!(self, Self::Number | Self::Rating | Self::Scale | Self::Date)
    }

    /// Kinds answered with one or more of the field's `options`.
    pub fn has_options(self) -> bool {
        matches!(
            self,
            Self::SingleChoice | Self::Dropdown | Self::MultipleChoice
        )
    }

    /// Kinds that take `min` / `max` bounds.
    pub fn has_bounds(self) -> bool {
        matches!(self, Self::Number | Self::Rating | Self::Scale | Self::Date)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::ShortText => "short_text",
            Self::LongText => "long_text",
            Self::Textarea => "textarea",
            Self::Email => "email",
            Self::Number => "number",
            Self::FileUpload => "file_upload",
            Self::SingleChoice => "single_choice",
            Self::Dropdown => "dropdown",
            Self::MultipleChoice => "multiple_choice",
            Self::Rating => "rating",
            Self::Scale => "scale",
            Self::Date => "date",
            Self::Url => "url",
            Self::Phone => "phone",
            Self::Checkbox => "checkbox",
            Self::Hidden => "hidden",
            Self::PageBreak => "page_break",
        }
    }
}

impl FromStr for FieldKind {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self, CoreError> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|k| k.as_str()).collect();
                CoreError::Validation(format!(
                    "{s:?} is not a field type; expected one of {}",
                    names.join(", ")
                ))
            })
    }
}

pub(crate) const MAX_LABEL: usize = 500;
pub(crate) const MAX_PLACEHOLDER: usize = 500;
pub(crate) const MAX_FIELDS: usize = 200;
/// File extensions a file_upload field may list.
pub(crate) const MAX_ALLOWED_TYPES: usize = 50;
/// Largest `max_size_mb` a file field may declare.
pub(crate) const MAX_FILE_MB: f64 = 100.0;
/// Options of a choice field.
pub(crate) const MAX_OPTIONS: usize = 100;
/// Longest option label, in characters.
pub(crate) const MAX_OPTION_LABEL: usize = 200;
/// Longest option id a client may choose.
pub(crate) const MAX_OPTION_ID: usize = 64;
/// Longest end label of a scale.
pub(crate) const MAX_SCALE_LABEL: usize = 100;
/// Most stars of a rating, and its default.
pub(crate) const MAX_RATING: i64 = 10;
pub(crate) const DEFAULT_RATING: i64 = 5;
/// Bounds of a scale (the highest end, and the defaults).
pub(crate) const MAX_SCALE: i64 = 10;
/// Longest `ref` a client may give a field.
pub(crate) const MAX_REF: usize = 64;

/// One option of a choice field: answers store its `id`, people read its `label`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldOption {
    pub id: String,
    pub label: String,
}
/// A stored field definition (also its JSON shape in the `fields` column).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Field {
    pub id: Uuid,
    #[serde(rename = "type")]
    pub kind: FieldKind,
    pub label: String,
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_types: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size_mb: Option<f64>,
    /// Quiz mode: the correct answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correct_answer: Option<Value>,
    /// Quiz mode: points for a correct answer (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<i32>,
    /// Choice kinds: the options, in display order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<FieldOption>,
    /// multiple_choice: fewest and most options ticked, as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_selected: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_selected: Option<i32>,
    /// single_choice, multiple_choice: an "Other" answer with free text.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_other: bool,
    /// number (a number), rating (max only, with its default), scale (integers, with
    /// their defaults), date (`YYYY-MM-DD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Value>,
    /// scale: its end labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_label: Option<String>,
    /// A name the client gives the field, unique in the form: conditions may name the
    /// field by it (on create, before the field has an id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    /// When the field (a page break: its page) is shown: all of these hold (`logic`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub show_if: Vec<Condition>,
}

impl Field {
    /// The label of option `id`, if the field has it.
    pub fn option_label(&self, id: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|o| o.id == id)
            .map(|o| o.label.as_str())
    }

    /// The integer bounds of a rating (1..max) or a scale (min..max).
    pub fn int_bounds(&self) -> (i64, i64) {
        let get =
            |v: &Option<Value>, default: i64| v.as_ref().and_then(Value::as_i64).unwrap_or(default);
        match self.kind {
            FieldKind::Rating => (1, get(&self.max, DEFAULT_RATING)),
            _ => (get(&self.min, 0), get(&self.max, MAX_SCALE)),
        }
    }
}

/// A field as a client sends it; `id` only matters on update.
#[derive(Debug, Clone, Default)]
pub(crate) struct FieldInput {
    pub id: Option<Uuid>,
    pub kind: String,
    pub label: String,
    pub required: bool,
    pub placeholder: Option<String>,
    pub allowed_types: Vec<String>,
    pub max_size_mb: Option<f64>,
    pub correct_answer: Option<Value>,
    pub points: Option<i32>,
    pub options: Vec<FieldOption>,
    pub min_selected: Option<i32>,
    pub max_selected: Option<i32>,
    pub allow_other: bool,
    pub min: Option<Value>,
    pub max: Option<Value>,
    pub min_label: Option<String>,
    pub max_label: Option<String>,
    pub r#ref: Option<String>,
    pub show_if: Vec<ConditionInput>,
    /// On create, the id the client sent: the field gets a fresh one, and conditions
    /// may still name it by this one (a form copied from another keeps its logic).
    pub alias: Option<Uuid>,
}

/// A calendar date written exactly `YYYY-MM-DD`.
pub(crate) fn parse_date(s: &str) -> Option<chrono::NaiveDate> {
    let b = s.as_bytes();
    let shape = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if !shape {
        return None;
    }
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

/// The score of a quiz submission: points of correctly answered fields, and the most
/// one could score. `None` when the form is not a quiz. Text answers compare trimmed and
/// case-insensitively; numbers by value.
pub(crate) fn quiz_score(fields: &[Field], answers: &Map<String, Value>) -> Option<(i64, i64)> {
    let scored: Vec<&Field> = fields
        .iter()
        .filter(|f| f.correct_answer.is_some())
        .collect();
    if scored.is_empty() {
        return None;
    }
    let mut score = 0;
    let mut max = 0;
    for field in scored {
        let points = i64::from(field.points.unwrap_or(1));
        max += points;
        let given = answers.get(&field.id.to_string());
        if given.is_some_and(|g| answers_match(g, field.correct_answer.as_ref())) {
            score += points;
        }
    }
    Some((score, max))
}

fn answers_match(given: &Value, correct: Option<&Value>) -> bool {
    let as_number = |v: &Value| match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    match (given, correct) {
        (_, Some(Value::Number(c))) => as_number(given) == c.as_f64(),
        (Value::String(g), Some(Value::String(c))) => {
            g.trim().to_lowercase() == c.trim().to_lowercase()
        }
        (Value::Number(_), Some(Value::String(c))) => {
            as_number(given) == c.trim().parse::<f64>().ok()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
