//! Reading a posted question: the editor's and the palette's boxes into a
//! `pb::FormField`, keeping the kind as it is and clearing what other kinds take. Only
//! the shape is checked here (a number box holds a number); what a valid question is
//! stays the core's rule.

use super::kinds::{Bounds, Kind, kind_of};
use forms::pb::{self, FieldKind as K, convert};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
pub(crate) struct FieldForm {
    #[serde(default)]
    pub(super) kind: String,
    #[serde(default)]
    label: String,
    required: Option<String>,
    #[serde(default)]
    placeholder: String,
    #[serde(default)]
    allowed_types: String,
    #[serde(default)]
    max_size_mb: String,
    /// Ids of the existing options, in order, beside `option_label`.
    #[serde(default)]
    option_id: Vec<String>,
    /// Labels of the existing options (empty: removed).
    #[serde(default)]
    option_label: Vec<String>,
    /// New options, one per line.
    #[serde(default)]
    options: String,
    allow_other: Option<String>,
    #[serde(default)]
    min_selected: String,
    #[serde(default)]
    max_selected: String,
    #[serde(default)]
    min: String,
    #[serde(default)]
    max: String,
    #[serde(default)]
    min_label: String,
    #[serde(default)]
    max_label: String,
    /// The owner's name for the field (empty: none).
    #[serde(rename = "ref", default)]
    reference: String,
    /// Quiz: the correct answer (an option's id for a choice; empty: not scored).
    #[serde(default)]
    correct_answer: String,
    /// Quiz: the points a correct answer scores (empty: 1).
    #[serde(default)]
    points: String,
    /// Where a new question goes: before the question at this place (0-based); absent
    /// or past the end: at the end.
    #[serde(default)]
    pub(super) position: Option<String>,
}

/// A count box: empty is none.
fn count_of(text: &str, problem: &'static str) -> Result<Option<i32>, &'static str> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| problem)
}

/// A bound box read for `bounds`: empty is none; a date is sent as written, for the
/// core to check.
fn bound_of(text: &str, bounds: Bounds) -> Result<Option<prost_types::Value>, &'static str> {
    let text = text.trim();
    if text.is_empty() || bounds == Bounds::None {
        return Ok(None);
    }
    let json = match bounds {
        Bounds::Date => Value::String(text.to_owned()),
        Bounds::Number => text
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .map(convert::number_to_json)
            .ok_or("Smallest and largest value: write numbers, such as 0 or 2.5.")?,
        _ => Value::from(
            text.parse::<i64>()
                .map_err(|_| "Stars and scale ends: write whole numbers, such as 1 or 10.")?,
        ),
    };
    Ok(Some(convert::json_to_value(&json)))
}

/// Applies the kind's own properties (see `properties`) to `field`; those of other
/// kinds are cleared.
fn apply_properties(field: &mut pb::FormField, posted: &FieldForm) -> Result<(), &'static str> {
    let kind = kind_of(&field.r#type);
    let takes_options = kind.is_some_and(Kind::options);
    let mut options = Vec::new();
    if takes_options {
        for (id, label) in posted.option_id.iter().zip(&posted.option_label) {
            let label = label.trim();
            if !label.is_empty() {
                options.push(pb::FieldOption {
                    id: id.clone(),
                    label: label.to_owned(),
                });
            }
        }
        options.extend(
            posted
                .options
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(|label| pb::FieldOption {
                    id: String::new(),
                    label: label.to_owned(),
                }),
        );
    }
    field.options = options;
    field.allow_other = kind.is_some_and(Kind::takes_other) && posted.allow_other.is_some();
    let multiple = kind.is_some_and(Kind::multiple);
    let problem = "Fewest and most ticked: write whole numbers, such as 1 or 3.";
    field.min_selected = if multiple {
        count_of(&posted.min_selected, problem)?
    } else {
        None
    };
    field.max_selected = if multiple {
        count_of(&posted.max_selected, problem)?
    } else {
        None
    };
    let bounds = kind.map_or(Bounds::None, |k| k.bounds);
    field.min = if bounds == Bounds::Stars {
        None
    } else {
        bound_of(&posted.min, bounds)?
    };
    field.max = bound_of(&posted.max, bounds)?;
    let end = |text: &str| {
        let text = text.trim();
        (bounds == Bounds::Scale && !text.is_empty()).then(|| text.to_owned())
    };
    field.min_label = end(&posted.min_label);
    field.max_label = end(&posted.max_label);
    apply_quiz(field, posted)
}

/// Whether `field` may carry a quiz's correct answer (the core's rule: one answer to
/// compare, so not a multiple choice, a checkbox, a hidden field or a file).
pub(super) fn takes_correct_answer(field: &pb::FormField) -> bool {
    !matches!(
        field.kind(),
        Some(K::MultipleChoice | K::Checkbox | K::Hidden | K::FileUpload | K::PageBreak)
    )
}

/// Applies the quiz boxes: the correct answer (a number for the kinds answered with
/// one) and its points; a field without a correct answer has no points.
fn apply_quiz(field: &mut pb::FormField, posted: &FieldForm) -> Result<(), &'static str> {
    let answer = posted.correct_answer.trim();
    if answer.is_empty() || !takes_correct_answer(field) {
        field.correct_answer = None;
        field.points = None;
        return Ok(());
    }
    let json = match field.kind() {
        Some(K::Number | K::Rating | K::Scale) => answer
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .map(convert::number_to_json)
            .ok_or("Correct answer: write a number, such as 4 or 2.5.")?,
        _ => Value::String(answer.to_owned()),
    };
    field.correct_answer = Some(convert::json_to_value(&json));
    let points = posted.points.trim();
    field.points = if points.is_empty() {
        None
    } else {
        Some(
            points
                .parse::<i32>()
                .ok()
                .filter(|p| (0..=1000).contains(p))
                .ok_or("Points: write a whole number from 0 to 1000.")?,
        )
    };
    Ok(())
}

/// Applies a posted field to `field` (kind as it is): label, required, placeholder and,
/// for file kinds, the file options. A size that is not a number is a problem to fix.
pub(super) fn apply_field(
    field: &mut pb::FormField,
    posted: FieldForm,
) -> Result<(), &'static str> {
    let placeholder = posted.placeholder.trim();
    let reference = posted.reference.trim();
    // A page break is not a question: its form has no placeholder or required box, and
    // the add form's are ignored for it.
    let question = !field.is(K::PageBreak);
    field.label = posted.label.trim().to_owned();
    field.required = question && posted.required.is_some();
    field.placeholder = (question && !placeholder.is_empty()).then(|| placeholder.to_owned());
    field.r#ref = (!reference.is_empty()).then(|| reference.to_owned());
    if kind_of(&field.r#type).is_some_and(Kind::file) {
        field.allowed_types = posted
            .allowed_types
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect();
        let size = posted.max_size_mb.trim();
        field.max_size_mb = if size.is_empty() {
            None
        } else {
            Some(
                size.parse::<f64>()
                    .map_err(|_| "Largest file: write a number of megabytes, such as 10 or 2.5.")?,
            )
        };
    } else {
        field.allowed_types.clear();
        field.max_size_mb = None;
    }
    apply_properties(field, &posted)
}
