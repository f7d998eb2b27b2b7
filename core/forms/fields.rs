//! Fields of a form: their types, their validation on create and update, and the
//! scoring of quiz answers against them.

use super::check_len;
use crate::error::CoreError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::str::FromStr;
use uuid::Uuid;

/// The type of a field. `textarea` is accepted as a synonym of `long_text` and kept as
/// sent. Every type here has its answers validated on submission. Stored by its
/// snake_case name in the `fields` JSON of a form; a name this build does not know is an
/// error when read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    ShortText,
    LongText,
    Textarea,
    Email,
    Number,
    FileUpload,
}

impl FieldKind {
    pub const ALL: [FieldKind; 6] = [
        Self::ShortText,
        Self::LongText,
        Self::Textarea,
        Self::Email,
        Self::Number,
        Self::FileUpload,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::ShortText => "short_text",
            Self::LongText => "long_text",
            Self::Textarea => "textarea",
            Self::Email => "email",
            Self::Number => "number",
            Self::FileUpload => "file_upload",
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
/// A stored field definition (also its JSON shape in the `fields` column).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    inputs
        .into_iter()
        .enumerate()
        .map(|(i, input)| {
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
            build_field(&at, id, input)
        })
        .collect()
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
    })
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
}
