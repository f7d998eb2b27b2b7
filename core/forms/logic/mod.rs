//! Pages and conditions: which fields a respondent is shown.
//!
//! The rule, one for the API, gRPC and the hosted page: a `page_break` field starts a
//! new page (the fields before the first break are page 1). A page is shown when its
//! break's `show_if` conditions all hold; a field is shown when its page is shown and
//! its own `show_if` conditions all hold. A condition reads the answer to a field that
//! comes *before* it in the form, and an answer to a field that is not shown does not
//! exist (so hiding one link of a chain hides what hangs on it). A field that is not
//! shown is never required, and an answer sent for it is refused.
//!
//! Conditions are checked when the form is saved: one that names an unknown field,
//! itself or a later field, or that cannot be met (an option the field does not have,
//! a rating above its stars, `answered` and `not_answered` together...) is refused.

use super::fields::{Field, FieldKind};
use crate::error::CoreError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use uuid::Uuid;

mod check;
pub(crate) use check::{attach, operand};

/// Conditions one field or page may carry.
pub(crate) const MAX_CONDITIONS: usize = 20;
/// Values one `any_of` condition may list.
const MAX_ANY_OF: usize = 100;
/// Longest text a condition compares with.
const MAX_TEXT: usize = 500;

/// A comparison of an earlier field's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// The answer is the value (text: ignoring case and surrounding spaces).
    Equals,
    /// The answer is not the value; no answer is "not equal".
    NotEquals,
    /// The answer is one of the values (multiple_choice: one of them is ticked).
    AnyOf,
    /// Text contains the value (ignoring case); multiple_choice has the option ticked.
    Contains,
    Answered,
    NotAnswered,
    /// number, rating, scale: above the value; date: after it. No answer is false.
    GreaterThan,
    /// number, rating, scale: below the value; date: before it. No answer is false.
    LessThan,
}

impl Op {
    pub const ALL: [Op; 8] = [
        Self::Equals,
        Self::NotEquals,
        Self::AnyOf,
        Self::Contains,
        Self::Answered,
        Self::NotAnswered,
        Self::GreaterThan,
        Self::LessThan,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Equals => "equals",
            Self::NotEquals => "not_equals",
            Self::AnyOf => "any_of",
            Self::Contains => "contains",
            Self::Answered => "answered",
            Self::NotAnswered => "not_answered",
            Self::GreaterThan => "greater_than",
            Self::LessThan => "less_than",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|op| op.as_str() == s)
    }

    /// The operators that make sense on answers of `kind`.
    fn applies_to(self, kind: FieldKind) -> bool {
        use FieldKind as K;
        match self {
            Self::Answered | Self::NotAnswered => kind != K::PageBreak,
            Self::Equals | Self::NotEquals => {
                !matches!(kind, K::MultipleChoice | K::FileUpload | K::PageBreak)
            }
            Self::AnyOf => !matches!(
                kind,
                K::Number | K::Date | K::Checkbox | K::FileUpload | K::PageBreak
            ),
            Self::Contains => kind.is_text() || kind == K::MultipleChoice,
            Self::GreaterThan | Self::LessThan => kind.is_ordered(),
        }
    }
}

/// A stored condition: `field` is the id of an earlier field; `value` is normalised as
/// that field's answers are (an option id, a whole number, a date, a boolean, text),
/// a list of such for `any_of`, absent for `answered` / `not_answered`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Condition {
    pub field: Uuid,
    pub op: Op,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
}

/// A condition as a client sends it: `field` is an earlier field's id or its `ref`
/// (on create, the id the client gave it); a choice's value may be an option's label.
#[derive(Debug, Clone, Default)]
pub(crate) struct ConditionInput {
    pub field: String,
    pub op: String,
    pub value: Option<Value>,
}
/// Numbers as themselves, dates as days since the common era.
fn order_key(kind: FieldKind, v: &Value) -> Option<f64> {
    use chrono::Datelike;
    match kind {
        FieldKind::Date => v
            .as_str()
            .and_then(super::parse_date)
            .map(|d| f64::from(d.num_days_from_ce())),
        _ => v.as_f64(),
    }
}

/// Whether two answers of a `kind` field are the same.
fn same(kind: FieldKind, a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) if kind.is_text() => {
            x.trim().to_lowercase() == y.trim().to_lowercase()
        }
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// Whether `c` holds of `answer` (a validated answer to a `kind` field, or none).
fn holds(c: &Condition, kind: FieldKind, answer: Option<&Value>) -> bool {
    let value = c.value.as_ref();
    match (c.op, answer) {
        (Op::Answered, a) => a.is_some(),
        (Op::NotAnswered, a) => a.is_none(),
        (Op::NotEquals, None) => true,
        (_, None) => false,
        (Op::Equals, Some(a)) => value.is_some_and(|v| same(kind, a, v)),
        (Op::NotEquals, Some(a)) => !value.is_some_and(|v| same(kind, a, v)),
        (Op::AnyOf, Some(a)) => {
            let list = value
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            match a {
                Value::Array(ticked) => ticked.iter().any(|t| list.contains(t)),
                a => list.iter().any(|v| same(kind, a, v)),
            }
        }
        (Op::Contains, Some(Value::Array(ticked))) => value.is_some_and(|v| ticked.contains(v)),
        (Op::Contains, Some(Value::String(text))) => value
            .and_then(Value::as_str)
            .is_some_and(|v| text.to_lowercase().contains(&v.to_lowercase())),
        (Op::Contains, Some(_)) => false,
        (Op::GreaterThan | Op::LessThan, Some(a)) => {
            let (Some(x), Some(y)) = (order_key(kind, a), value.and_then(|v| order_key(kind, v)))
            else {
                return false;
            };
            if c.op == Op::GreaterThan {
                x > y
            } else {
                x < y
            }
        }
    }
}

/// Which fields are shown, decided in one pass over the form. Feed it each field's
/// validated answer in order (`None` when unanswered or not shown); it says whether
/// the field is shown.
pub(crate) struct Visibility<'f> {
    fields: &'f [Field],
    answers: HashMap<Uuid, Value>,
    page_shown: bool,
    page: usize,
}

impl<'f> Visibility<'f> {
    pub(crate) fn new(fields: &'f [Field]) -> Self {
        Self {
            fields,
            answers: HashMap::new(),
            page_shown: true,
            page: 1,
        }
    }

    fn all_hold(&self, conditions: &[Condition]) -> bool {
        conditions.iter().all(|c| {
            let kind = self
                .fields
                .iter()
                .find(|f| f.id == c.field)
                .map_or(FieldKind::ShortText, |f| f.kind);
            holds(c, kind, self.answers.get(&c.field))
        })
    }

    /// Whether `field` (the next one in order) is shown. A page break answers for its
    /// page, and moves the page count on.
    pub(crate) fn shown(&mut self, index: usize, field: &Field) -> bool {
        if field.kind == FieldKind::PageBreak {
            if index > 0 {
                self.page += 1;
            }
            self.page_shown = self.all_hold(&field.show_if);
            return self.page_shown;
        }
        self.page_shown && self.all_hold(&field.show_if)
    }

    /// The page of the last field given to `shown` (1 for the first).
    pub(crate) fn page(&self) -> usize {
        self.page
    }

    /// Records the (validated) answer of a shown field.
    pub(crate) fn answered(&mut self, field: &Field, answer: &Value) {
        self.answers.insert(field.id, answer.clone());
    }
}

/// Whether a form has page breaks, as `fields @> '[{"type": "page_break"}]'` asks in SQL.
pub(crate) fn has_pages(fields: &[Field]) -> bool {
    fields.iter().any(|f| f.kind == FieldKind::PageBreak)
}

/// The page numbers of a form's fields (1-based; a break belongs to the page it starts).
pub(crate) fn pages(fields: &[Field]) -> Vec<usize> {
    let mut page = 1;
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if f.kind == FieldKind::PageBreak && i > 0 {
                page += 1;
            }
            page
        })
        .collect()
}

/// The pages `answers` (validated, of shown fields) lead through: each page number
/// with whether it is shown.
pub(crate) fn shown_pages(fields: &[Field], answers: &Map<String, Value>) -> Vec<(usize, bool)> {
    let mut seen = Visibility::new(fields);
    let mut out: Vec<(usize, bool)> = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        let shown = seen.shown(i, field);
        let page = seen.page();
        if field.kind == FieldKind::PageBreak || i == 0 {
            let page_shown = if field.kind == FieldKind::PageBreak {
                shown
            } else {
                true
            };
            out.push((page, page_shown));
        }
        if shown && let Some(answer) = answers.get(&field.id.to_string()) {
            seen.answered(field, answer);
        }
    }
    out
}

/// The last page shown to a respondent with `answers` (1 for a form without pages).
pub(crate) fn last_page(fields: &[Field], answers: &Map<String, Value>) -> usize {
    shown_pages(fields, answers)
        .into_iter()
        .filter_map(|(page, shown)| shown.then_some(page))
        .max()
        .unwrap_or(1)
}

/// The saved `answers` still in force before `page`: those of shown fields of earlier
/// pages. (A visitor who went back and changed an answer may have hidden what they
/// answered later; such answers were given, not sent now, so they are dropped, not
/// refused.)
pub(crate) fn keep_shown(
    fields: &[Field],
    answers: &Map<String, Value>,
    page: usize,
) -> Map<String, Value> {
    let page_of = pages(fields);
    let mut seen = Visibility::new(fields);
    let mut kept = Map::new();
    for (i, field) in fields.iter().enumerate() {
        if page_of[i] >= page {
            break;
        }
        let id = field.id.to_string();
        if seen.shown(i, field)
            && let Some(answer) = answers.get(&id)
        {
            seen.answered(field, answer);
            kept.insert(id, answer.clone());
        }
    }
    kept
}

/// The fields of `page` to show, given the answers of earlier pages (validated, of
/// shown fields): its page break first, if it has one. Conditions on answers of the
/// same page are left to the page (a script, or the check when it is posted): such a
/// field is listed.
pub(crate) fn page_fields<'f>(
    fields: &'f [Field],
    answers: &Map<String, Value>,
    page: usize,
) -> Vec<&'f Field> {
    let page_of = pages(fields);
    let on_page: HashMap<Uuid, usize> = fields
        .iter()
        .zip(&page_of)
        .map(|(f, p)| (f.id, *p))
        .collect();
    let mut seen = Visibility::new(fields);
    let mut out = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        if page_of[i] < page {
            if seen.shown(i, field)
                && let Some(answer) = answers.get(&field.id.to_string())
            {
                seen.answered(field, answer);
            }
            continue;
        }
        if page_of[i] > page {
            break;
        }
        let earlier: Vec<Condition> = field
            .show_if
            .iter()
            .filter(|c| on_page.get(&c.field).is_some_and(|p| *p < page))
            .cloned()
            .collect();
        if field.kind == FieldKind::PageBreak && !seen.all_hold(&earlier) {
            return Vec::new();
        }
        if seen.all_hold(&earlier) {
            out.push(field);
        }
    }
    out
}

#[cfg(test)]
mod tests;
