//! Fields of a form: their types, their validation on create and update, and the
//! scoring of quiz answers against them.

use super::check_len;
use super::logic::{self, Condition, ConditionInput};
use crate::error::CoreError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::str::FromStr;
use uuid::Uuid;

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

/// Validates field inputs into stored fields. On update, `existing` are the form's
/// current fields: an input id must name one of them and keeps its identity.
pub(crate) fn build_fields(
    inputs: Vec<FieldInput>,
    existing: &[Field],
) -> Result<Vec<Field>, CoreError> {
    if inputs.len() > MAX_FIELDS {
        return Err(CoreError::Validation(format!(
            "a form has at most {MAX_FIELDS} fields"
        )));
    }
    let mut seen = std::collections::HashSet::new();
    let mut refs = std::collections::HashSet::new();
    let mut conditions = Vec::with_capacity(inputs.len());
    let mut aliases = Vec::with_capacity(inputs.len());
    let mut fields = inputs
        .into_iter()
        .enumerate()
        .map(|(i, mut input)| {
            let at = format!("fields[{i}]");
            let id = match input.id {
                Some(id) if existing.iter().any(|f| f.id == id) => {
                    if !seen.insert(id) {
                        return Err(CoreError::Validation(format!("{at}.id is repeated")));
                    }
                    id
                }
                Some(_) => {
                    return Err(CoreError::Validation(format!(
                        "{at}.id is not a field of this form; omit it to add a field"
                    )));
                }
                None => Uuid::new_v4(),
            };
            if let Some(r) = &input.r#ref
                && !refs.insert(r.clone())
            {
                return Err(CoreError::Validation(format!("{at}.ref is repeated")));
            }
            conditions.push(std::mem::take(&mut input.show_if));
            aliases.push(input.alias);
            build_field(&at, id, input)
        })
        .collect::<Result<Vec<Field>, CoreError>>()?;
    logic::attach(&mut fields, conditions, &aliases)?;
    Ok(fields)
}

fn build_field(at: &str, id: Uuid, input: FieldInput) -> Result<Field, CoreError> {
    if input.kind.is_empty() {
        return Err(CoreError::Validation(format!("{at}.type is required")));
    }
    let kind: FieldKind = input
        .kind
        .parse()
        .map_err(|e| CoreError::Validation(format!("{at}.type {e}")))?;
    if input.label.trim().is_empty() {
        return Err(CoreError::Validation(format!("{at}.label is required")));
    }
    check_len(&format!("{at}.label"), &input.label, 1, MAX_LABEL)?;
    if let Some(p) = &input.placeholder {
        check_len(&format!("{at}.placeholder"), p, 0, MAX_PLACEHOLDER)?;
    }
    let is_file = kind == FieldKind::FileUpload;
    if !is_file && (!input.allowed_types.is_empty() || input.max_size_mb.is_some()) {
        return Err(CoreError::Validation(format!(
            "{at}: allowed_types and max_size_mb apply only to file_upload fields"
        )));
    }
    if input.allowed_types.len() > MAX_ALLOWED_TYPES {
        return Err(CoreError::Validation(format!(
            "{at}.allowed_types lists at most {MAX_ALLOWED_TYPES} extensions"
        )));
    }
    let mut allowed_types = Vec::with_capacity(input.allowed_types.len());
    let mut listed = std::collections::HashSet::with_capacity(input.allowed_types.len());
    for ext in &input.allowed_types {
        let ext = ext.trim().trim_start_matches('.').to_ascii_lowercase();
        let ok =
            !ext.is_empty() && ext.len() <= 16 && ext.bytes().all(|b| b.is_ascii_alphanumeric());
        if !ok {
            return Err(CoreError::Validation(format!(
                "{at}.allowed_types must be file extensions such as \"pdf\" or \"png\""
            )));
        }
        // Duplicates are dropped, in linear time; the first spelling keeps its place.
        if listed.insert(ext.clone()) {
            allowed_types.push(ext);
        }
    }
    if let Some(mb) = input.max_size_mb
        && !(mb > 0.0 && mb <= MAX_FILE_MB)
    {
        return Err(CoreError::Validation(format!(
            "{at}.max_size_mb must be greater than 0 and at most {MAX_FILE_MB}"
        )));
    }
    let correct_answer = input.correct_answer.filter(|v| !v.is_null());
    match &correct_answer {
        Some(_) if is_file => {
            return Err(CoreError::Validation(format!(
                "{at}.correct_answer is not available on file_upload fields"
            )));
        }
        Some(Value::String(_) | Value::Number(_)) | None => {}
        Some(_) => {
            return Err(CoreError::Validation(format!(
                "{at}.correct_answer must be a string or a number"
            )));
        }
    }
    if let Some(points) = input.points {
        if correct_answer.is_none() {
            return Err(CoreError::Validation(format!(
                "{at}.points needs a correct_answer"
            )));
        }
        if !(0..=1000).contains(&points) {
            return Err(CoreError::Validation(format!(
                "{at}.points must be from 0 to 1000"
            )));
        }
    }
    if correct_answer.is_some()
        && matches!(
            kind,
            FieldKind::MultipleChoice | FieldKind::Checkbox | FieldKind::Hidden
        )
    {
        return Err(CoreError::Validation(format!(
            "{at}.correct_answer is not available on {} fields",
            kind.as_str()
        )));
    }
    if let Some(r) = &input.r#ref {
        let ok = !r.is_empty()
            && r.len() <= MAX_REF
            && r.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !ok {
            return Err(CoreError::Validation(format!(
                "{at}.ref must be 1 to {MAX_REF} letters, digits, '_' or '-'"
            )));
        }
    }
    if kind == FieldKind::PageBreak
        && (input.required || correct_answer.is_some() || input.placeholder.is_some())
    {
        return Err(CoreError::Validation(format!(
            "{at}: a page_break is not a question: it takes a label (the page's title) and show_if only"
        )));
    }
    if kind == FieldKind::Hidden && input.required {
        return Err(CoreError::Validation(format!(
            "{at}.required: a hidden field is never required"
        )));
    }
    let options = build_options(at, kind, input.options)?;
    let (min_selected, max_selected) = check_selected(
        at,
        kind,
        input.min_selected,
        input.max_selected,
        options.len(),
    )?;
    if input.allow_other && !matches!(kind, FieldKind::SingleChoice | FieldKind::MultipleChoice) {
        return Err(CoreError::Validation(format!(
            "{at}.allow_other applies only to single_choice and multiple_choice fields"
        )));
    }
    let (min, max) = build_bounds(at, kind, input.min, input.max)?;
    let (min_label, max_label) = (
        scale_label(&format!("{at}.min_label"), kind, input.min_label)?,
        scale_label(&format!("{at}.max_label"), kind, input.max_label)?,
    );
    Ok(Field {
        id,
        kind,
        label: input.label,
        required: input.required,
        placeholder: input.placeholder,
        allowed_types,
        max_size_mb: input.max_size_mb,
        correct_answer,
        points: input.points,
        options,
        min_selected,
        max_selected,
        allow_other: input.allow_other,
        min,
        max,
        min_label,
        max_label,
        r#ref: input.r#ref,
        show_if: Vec::new(),
    })
}

/// The options of a choice field: 1 to 100, labels of 1 to 200 characters, distinct;
/// a sent id is kept (it must be unique in the field), an empty one is assigned.
fn build_options(
    at: &str,
    kind: FieldKind,
    inputs: Vec<FieldOption>,
) -> Result<Vec<FieldOption>, CoreError> {
    let at = format!("{at}.options");
    if !kind.has_options() {
        if inputs.is_empty() {
            return Ok(inputs);
        }
        return Err(CoreError::Validation(format!(
            "{at} apply only to single_choice, dropdown and multiple_choice fields"
        )));
    }
    if inputs.is_empty() || inputs.len() > MAX_OPTIONS {
        return Err(CoreError::Validation(format!(
            "{at} must list 1 to {MAX_OPTIONS} options"
        )));
    }
    let mut labels = std::collections::HashSet::with_capacity(inputs.len());
    let mut ids: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (j, option) in inputs.iter().enumerate() {
        let label = option.label.trim();
        if label.is_empty() || label.chars().count() > MAX_OPTION_LABEL {
            return Err(CoreError::Validation(format!(
                "{at}[{j}].label must be 1 to {MAX_OPTION_LABEL} characters"
            )));
        }
        if !labels.insert(label.to_lowercase()) {
            return Err(CoreError::Validation(format!(
                "{at}[{j}].label repeats another option's label"
            )));
        }
        if option.id.is_empty() {
            continue;
        }
        let id_ok = option.id.len() <= MAX_OPTION_ID
            && option
                .id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !id_ok {
            return Err(CoreError::Validation(format!(
                "{at}[{j}].id must be 1 to {MAX_OPTION_ID} letters, digits, '_' or '-'"
            )));
        }
        if !ids.insert(option.id.clone()) {
            return Err(CoreError::Validation(format!("{at}[{j}].id is repeated")));
        }
    }
    Ok(inputs
        .into_iter()
        .map(|option| {
            let id = if option.id.is_empty() {
                loop {
                    let fresh = format!("opt_{}", &Uuid::new_v4().simple().to_string()[..10]);
                    if ids.insert(fresh.clone()) {
                        break fresh;
                    }
                }
            } else {
                option.id
            };
            FieldOption {
                id,
                label: option.label.trim().to_owned(),
            }
        })
        .collect())
}

/// multiple_choice: 0 <= min_selected <= max_selected <= the number of options.
fn check_selected(
    at: &str,
    kind: FieldKind,
    min: Option<i32>,
    max: Option<i32>,
    options: usize,
) -> Result<(Option<i32>, Option<i32>), CoreError> {
    if kind != FieldKind::MultipleChoice {
        for (name, v) in [("min_selected", min), ("max_selected", max)] {
            if v.is_some() {
                return Err(CoreError::Validation(format!(
                    "{at}.{name} applies only to multiple_choice fields"
                )));
            }
        }
        return Ok((None, None));
    }
    let options = i32::try_from(options).unwrap_or(i32::MAX);
    if let Some(m) = min
        && !(0..=options).contains(&m)
    {
        return Err(CoreError::Validation(format!(
            "{at}.min_selected must be from 0 to the number of options ({options})"
        )));
    }
    if let Some(m) = max
        && !(min.unwrap_or(0).max(1)..=options).contains(&m)
    {
        return Err(CoreError::Validation(format!(
            "{at}.max_selected must be from min_selected (and at least 1) to the number of options ({options})"
        )));
    }
    Ok((min, max))
}

/// `min` / `max` of number, rating, scale and date fields, with the defaults of rating
/// (max 5) and scale (0..10) filled in.
fn build_bounds(
    at: &str,
    kind: FieldKind,
    min: Option<Value>,
    max: Option<Value>,
) -> Result<(Option<Value>, Option<Value>), CoreError> {
    let min = min.filter(|v| !v.is_null());
    let max = max.filter(|v| !v.is_null());
    let refuse = |name: &str, what: &str| CoreError::Validation(format!("{at}.{name} {what}"));
    let int = |name: &str, v: &Option<Value>| -> Result<Option<i64>, CoreError> {
        match v {
            None => Ok(None),
            Some(v) => v
                .as_i64()
                .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                .map(Some)
                .ok_or_else(|| refuse(name, "must be an integer")),
        }
    };
    match kind {
        FieldKind::Number => {
            const MAX_NUMBER_BOUND: f64 = 1e15;
            let num = |name: &str, v: &Option<Value>| -> Result<Option<f64>, CoreError> {
                match v {
                    None => Ok(None),
                    // Within ±10^15, where a double is exact to the unit and the
                    // stored JSON reads back as the same number.
                    Some(v) => v
                        .as_f64()
                        .filter(|f| f.is_finite() && f.abs() <= MAX_NUMBER_BOUND)
                        .map(Some)
                        .ok_or_else(|| refuse(name, "must be a number from -1e15 to 1e15")),
                }
            };
            if let (Some(lo), Some(hi)) = (num("min", &min)?, num("max", &max)?)
                && lo > hi
            {
                return Err(refuse("min", "must not be greater than max"));
            }
            Ok((min, max))
        }
        FieldKind::Rating => {
            if min.is_some() {
                return Err(refuse(
                    "min",
                    "does not apply to rating fields (they start at 1)",
                ));
            }
            let n = int("max", &max)?.unwrap_or(DEFAULT_RATING);
            if !(1..=MAX_RATING).contains(&n) {
                return Err(refuse("max", "must be from 1 to 10"));
            }
            Ok((None, Some(Value::from(n))))
        }
        FieldKind::Scale => {
            let lo = int("min", &min)?.unwrap_or(0);
            let hi = int("max", &max)?.unwrap_or(MAX_SCALE);
            if !(0..MAX_SCALE).contains(&lo) {
                return Err(refuse("min", "must be from 0 to 9"));
            }
            if !(lo + 1..=MAX_SCALE).contains(&hi) {
                return Err(refuse("max", "must be greater than min and at most 10"));
            }
            Ok((Some(Value::from(lo)), Some(Value::from(hi))))
        }
        FieldKind::Date => {
            let date =
                |name: &str, v: &Option<Value>| -> Result<Option<chrono::NaiveDate>, CoreError> {
                    match v {
                        None => Ok(None),
                        Some(v) => v
                            .as_str()
                            .and_then(parse_date)
                            .map(Some)
                            .ok_or_else(|| refuse(name, "must be a date written YYYY-MM-DD")),
                    }
                };
            if let (Some(lo), Some(hi)) = (date("min", &min)?, date("max", &max)?)
                && lo > hi
            {
                return Err(refuse("min", "must not be after max"));
            }
            Ok((min, max))
        }
        _ => {
            for (name, v) in [("min", &min), ("max", &max)] {
                if v.is_some() {
                    return Err(refuse(
                        name,
                        "applies only to number, rating, scale and date fields",
                    ));
                }
            }
            Ok((None, None))
        }
    }
}

/// A scale's end label: at most 100 characters, on scale fields only.
fn scale_label(
    at: &str,
    kind: FieldKind,
    label: Option<String>,
) -> Result<Option<String>, CoreError> {
    match label {
        None => Ok(None),
        Some(_) if kind != FieldKind::Scale => Err(CoreError::Validation(format!(
            "{at} applies only to scale fields"
        ))),
        Some(l) if l.chars().count() > MAX_SCALE_LABEL => Err(CoreError::Validation(format!(
            "{at} must be at most {MAX_SCALE_LABEL} characters"
        ))),
        Some(l) if l.trim().is_empty() => Ok(None),
        Some(l) => Ok(Some(l)),
    }
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
mod tests {
    use super::*;
    use serde_json::json;

    fn input(kind: &str) -> FieldInput {
        FieldInput {
            kind: kind.into(),
            label: "Label".into(),
            ..FieldInput::default()
        }
    }

    #[test]
    fn field_types_and_ids() {
        let fields =
            build_fields(vec![input("short_text"), input("textarea")], &[]).expect("valid");
        assert_ne!(fields[0].id, fields[1].id);
        let err = build_fields(vec![input("color")], &[]).expect_err("unknown type");
        assert!(err.to_string().contains("fields[0].type"));
        let mut stray = input("email");
        stray.id = Some(Uuid::new_v4());
        assert!(build_fields(vec![stray], &fields).is_err());
        let mut kept = input("email");
        kept.id = Some(fields[1].id);
        assert_eq!(
            build_fields(vec![kept], &fields).expect("kept")[0].id,
            fields[1].id
        );
    }

    #[test]
    fn file_options_only_on_file_fields() {
        let mut f = input("short_text");
        f.max_size_mb = Some(5.0);
        assert!(build_fields(vec![f], &[]).is_err());
        let mut f = input("file_upload");
        f.allowed_types = vec![".PDF".into()];
        f.max_size_mb = Some(10.0);
        assert_eq!(
            build_fields(vec![f], &[]).expect("valid")[0].allowed_types,
            ["pdf"]
        );
    }

    #[test]
    fn quiz_scoring() {
        let mut a = input("short_text");
        a.correct_answer = Some(json!("Paris"));
        a.points = Some(2);
        let mut b = input("number");
        b.correct_answer = Some(json!(4));
        let fields = build_fields(vec![a, b, input("email")], &[]).expect("valid quiz");
        let answers: Map<String, Value> = [
            (fields[0].id.to_string(), json!(" paris ")),
            (fields[1].id.to_string(), json!(5)),
        ]
        .into_iter()
        .collect();
        assert_eq!(quiz_score(&fields, &answers), Some((2, 3)));
        assert_eq!(quiz_score(&fields[2..], &answers), None);
        let mut bad = input("short_text");
        bad.points = Some(3);
        assert!(
            build_fields(vec![bad], &[]).is_err(),
            "points need a correct answer"
        );
    }

    fn options(labels: &[&str]) -> Vec<FieldOption> {
        labels
            .iter()
            .map(|l| FieldOption {
                id: String::new(),
                label: (*l).to_owned(),
            })
            .collect()
    }

    fn refused(f: FieldInput, property: &str) {
        let err = build_fields(vec![input("short_text"), f], &[]).expect_err(property);
        assert!(
            err.to_string().contains(&format!("fields[1].{property}")),
            "{err} lacks {property}"
        );
    }

    #[test]
    fn choice_options_get_ids_and_keep_sent_ones() {
        let mut f = input("single_choice");
        f.options = options(&["Red", "Green"]);
        f.options[1].id = "green".into();
        f.allow_other = true;
        let built = build_fields(vec![f], &[]).expect("valid")[0].clone();
        assert!(built.options[0].id.starts_with("opt_"));
        assert_eq!(built.options[1].id, "green");
        assert_eq!(built.option_label("green"), Some("Green"));

        let mut none = input("dropdown");
        none.options = vec![];
        refused(none, "options");
        let mut many = input("dropdown");
        many.options = (0..=MAX_OPTIONS)
            .map(|i| FieldOption {
                id: String::new(),
                label: format!("{i}"),
            })
            .collect();
        refused(many, "options");
        let mut same = input("dropdown");
        same.options = options(&["A", " a "]);
        refused(same, "options[1].label");
        let mut long = input("dropdown");
        long.options = options(&[&"x".repeat(MAX_OPTION_LABEL + 1)]);
        refused(long, "options[0].label");
        let mut ids = input("multiple_choice");
        ids.options = options(&["A", "B"]);
        ids.options[0].id = "a".into();
        ids.options[1].id = "a".into();
        refused(ids, "options[1].id");
        let mut stray = input("short_text");
        stray.options = options(&["A"]);
        refused(stray, "options");
        let mut other = input("dropdown");
        other.options = options(&["A"]);
        other.allow_other = true;
        refused(other, "allow_other");
    }

    #[test]
    fn selected_counts_only_on_multiple_choice() {
        let with = |min: Option<i32>, max: Option<i32>| {
            let mut f = input("multiple_choice");
            f.options = options(&["A", "B", "C"]);
            f.min_selected = min;
            f.max_selected = max;
            f
        };
        assert!(build_fields(vec![with(Some(0), Some(3))], &[]).is_ok());
        assert!(build_fields(vec![with(Some(2), Some(2))], &[]).is_ok());
        refused(with(Some(-1), None), "min_selected");
        refused(with(Some(4), None), "min_selected");
        refused(with(Some(2), Some(1)), "max_selected");
        refused(with(None, Some(4)), "max_selected");
        let mut single = input("single_choice");
        single.options = options(&["A"]);
        single.max_selected = Some(1);
        refused(single, "max_selected");
    }

    #[test]
    fn bounds_of_rating_scale_date_and_number() {
        let bounded = |kind: &str, min: Option<Value>, max: Option<Value>| {
            let mut f = input(kind);
            f.min = min;
            f.max = max;
            f
        };
        let rating = build_fields(vec![bounded("rating", None, None)], &[]).expect("default");
        assert_eq!(rating[0].max, Some(json!(5)));
        assert_eq!(rating[0].int_bounds(), (1, 5));
        refused(bounded("rating", None, Some(json!(11))), "max");
        refused(bounded("rating", Some(json!(1)), None), "min");
        let scale = build_fields(vec![bounded("scale", None, None)], &[]).expect("default");
        assert_eq!(scale[0].int_bounds(), (0, 10));
        assert!(build_fields(vec![bounded("scale", Some(json!(9)), Some(json!(10)))], &[]).is_ok());
        refused(bounded("scale", Some(json!(3)), Some(json!(3))), "max");
        refused(bounded("scale", Some(json!(0.5)), None), "min");
        refused(bounded("date", Some(json!("2026-02-30")), None), "min");
        refused(
            bounded("date", Some(json!("2026-03-01")), Some(json!("2026-02-01"))),
            "min",
        );
        assert!(
            build_fields(
                vec![bounded(
                    "date",
                    Some(json!("2026-03-01")),
                    Some(json!("2026-03-01"))
                )],
                &[]
            )
            .is_ok()
        );
        refused(bounded("number", Some(json!(2)), Some(json!(1))), "min");
        refused(bounded("email", Some(json!(2)), None), "min");
        let mut label = input("rating");
        label.min_label = Some("low".into());
        refused(label, "min_label");
        let mut hidden = input("hidden");
        hidden.required = true;
        refused(hidden, "required");
        assert_eq!(
            parse_date("2024-02-29"),
            chrono::NaiveDate::from_ymd_opt(2024, 2, 29)
        );
        assert_eq!(parse_date("+2024-02-29"), None);
        assert_eq!(parse_date("2024-2-29"), None);
    }
}
