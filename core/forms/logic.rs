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

/// Resolves and checks the conditions of every field (`inputs[i]` belongs to
/// `fields[i]`); `aliases[i]` is another name `fields[i]` may be referred to by (the
/// id a client sent on create).
pub(crate) fn attach(
    fields: &mut [Field],
    inputs: Vec<Vec<ConditionInput>>,
    aliases: &[Option<Uuid>],
) -> Result<(), CoreError> {
    let mut names: HashMap<String, usize> = HashMap::new();
    for (i, field) in fields.iter().enumerate() {
        names.insert(field.id.to_string(), i);
        if let Some(r) = &field.r#ref {
            names.insert(r.clone(), i);
        }
        if let Some(alias) = aliases.get(i).copied().flatten() {
            names.entry(alias.to_string()).or_insert(i);
        }
    }
    for (i, conditions) in inputs.into_iter().enumerate() {
        let at = format!("fields[{i}].show_if");
        if conditions.len() > MAX_CONDITIONS {
            return Err(CoreError::Validation(format!(
                "{at} lists at most {MAX_CONDITIONS} conditions"
            )));
        }
        let mut resolved = Vec::with_capacity(conditions.len());
        for (j, input) in conditions.into_iter().enumerate() {
            let at = format!("{at}[{j}]");
            let target = names
                .get(input.field.trim())
                .copied()
                .ok_or_else(|| refuse(&at, "field", "is not a field of this form"))?;
            if target >= i {
                return Err(refuse(
                    &at,
                    "field",
                    "must be a field that comes before this one (a condition reads earlier answers only)",
                ));
            }
            resolved.push(condition(&at, &fields[target], input)?);
        }
        satisfiable(&at, fields, &resolved)?;
        fields[i].show_if = resolved;
    }
    Ok(())
}

fn refuse(at: &str, property: &str, why: &str) -> CoreError {
    CoreError::Validation(format!("{at}.{property} {why}"))
}

/// One condition on `target`, its operator and value checked against the field.
fn condition(at: &str, target: &Field, input: ConditionInput) -> Result<Condition, CoreError> {
    let op = Op::parse(input.op.trim()).ok_or_else(|| {
        let names: Vec<&str> = Op::ALL.iter().map(|o| o.as_str()).collect();
        refuse(at, "op", &format!("must be one of {}", names.join(", ")))
    })?;
    if target.kind == FieldKind::PageBreak {
        return Err(refuse(at, "field", "is a page break, which has no answer"));
    }
    if !op.applies_to(target.kind) {
        return Err(refuse(
            at,
            "op",
            &format!(
                "{} does not apply to {} fields",
                op.as_str(),
                target.kind.as_str()
            ),
        ));
    }
    let value = input.value.filter(|v| !v.is_null());
    let value = match op {
        Op::Answered | Op::NotAnswered => match value {
            None => None,
            Some(_) => return Err(refuse(at, "value", "is not taken by this operator")),
        },
        Op::AnyOf => {
            let Some(Value::Array(items)) = value else {
                return Err(refuse(at, "value", "must be a list of values"));
            };
            if items.is_empty() || items.len() > MAX_ANY_OF {
                return Err(refuse(
                    at,
                    "value",
                    &format!("must list 1 to {MAX_ANY_OF} values"),
                ));
            }
            let items = items
                .iter()
                .map(|v| operand(target, v))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|why| refuse(at, "value", &why))?;
            Some(Value::Array(items))
        }
        _ => {
            let Some(v) = value else {
                return Err(refuse(at, "value", "is required for this operator"));
            };
            Some(operand(target, &v).map_err(|why| refuse(at, "value", &why))?)
        }
    };
    Ok(Condition {
        field: target.id,
        op,
        value,
    })
}

/// A value compared with answers of `target`, normalised as they are.
pub(crate) fn operand(target: &Field, v: &Value) -> Result<Value, String> {
    use FieldKind as K;
    match target.kind {
        K::SingleChoice | K::Dropdown | K::MultipleChoice => {
            let s = v.as_str().map(str::trim).unwrap_or_default();
            target
                .options
                .iter()
                .find(|o| o.id == s)
                .or_else(|| {
                    target
                        .options
                        .iter()
                        .find(|o| o.label.eq_ignore_ascii_case(s))
                })
                .map(|o| Value::String(o.id.clone()))
                .ok_or_else(|| "must be one of the field's options (its id or label)".to_owned())
        }
        K::Rating | K::Scale => {
            let (lo, hi) = target.int_bounds();
            v.as_i64()
                .filter(|n| (lo..=hi).contains(n))
                .map(Value::from)
                .ok_or_else(|| format!("must be a whole number from {lo} to {hi}"))
        }
        K::Number => v
            .as_f64()
            .filter(|n| n.is_finite())
            .map(|_| v.clone())
            .ok_or_else(|| "must be a number".to_owned()),
        K::Date => v
            .as_str()
            .and_then(super::parse_date)
            .map(|d| Value::String(d.format("%Y-%m-%d").to_string()))
            .ok_or_else(|| "must be a date written YYYY-MM-DD".to_owned()),
        K::Checkbox => v
            .as_bool()
            .map(Value::Bool)
            .ok_or_else(|| "must be true or false".to_owned()),
        K::Phone => v
            .as_str()
            .and_then(crate::responses::e164)
            .map(Value::String)
            .ok_or_else(|| {
                "must be a phone number starting with + and the country code".to_owned()
            }),
        _ => match v.as_str().map(str::trim) {
            Some(s) if !s.is_empty() && s.chars().count() <= MAX_TEXT => {
                Ok(Value::String(s.to_owned()))
            }
            _ => Err(format!("must be text of 1 to {MAX_TEXT} characters")),
        },
    }
}

/// Refuses conditions that can never hold together: on each field they read, some
/// possible answer (or no answer) must meet all of them. Finite answers (choices,
/// ratings, scales, a checkbox) are tried one by one; numbers and dates as a range.
fn satisfiable(at: &str, fields: &[Field], conditions: &[Condition]) -> Result<(), CoreError> {
    let mut by_field: Vec<(Uuid, Vec<&Condition>)> = Vec::new();
    for c in conditions {
        match by_field.iter_mut().find(|(id, _)| *id == c.field) {
            Some((_, list)) => list.push(c),
            None => by_field.push((c.field, vec![c])),
        }
    }
    for (id, list) in by_field {
        let Some(field) = fields.iter().find(|f| f.id == id) else {
            continue;
        };
        let ok = candidates(field).map_or_else(
            || open_domain_possible(field, &list),
            |answers| {
                answers
                    .iter()
                    .any(|answer| list.iter().all(|c| holds(c, field.kind, answer.as_ref())))
            },
        );
        if !ok {
            return Err(CoreError::Validation(format!(
                "{at}: the conditions on \"{}\" can never all hold",
                field.label
            )));
        }
    }
    Ok(())
}

/// Every answer `field` can have (None: none), when there are few of them.
fn candidates(field: &Field) -> Option<Vec<Option<Value>>> {
    use FieldKind as K;
    let mut all = vec![None];
    match field.kind {
        K::SingleChoice | K::Dropdown => {
            all.extend(
                field
                    .options
                    .iter()
                    .map(|o| Some(Value::String(o.id.clone()))),
            );
            if field.allow_other {
                all.push(Some(serde_json::json!({"other": ""})));
            }
        }
        // Each option alone, and all of them: enough for equals-free operators.
        K::MultipleChoice => {
            all.extend(
                field
                    .options
                    .iter()
                    .map(|o| Some(Value::Array(vec![Value::String(o.id.clone())]))),
            );
            all.push(Some(Value::Array(
                field
                    .options
                    .iter()
                    .map(|o| Value::String(o.id.clone()))
                    .collect(),
            )));
        }
        K::Rating | K::Scale => {
            let (lo, hi) = field.int_bounds();
            all.extend((lo..=hi).map(|n| Some(Value::from(n))));
        }
        K::Checkbox => {
            if !field.required {
                all.push(Some(Value::Bool(false)));
            }
            all.push(Some(Value::Bool(true)));
        }
        _ => return None,
    }
    Some(all)
}

/// Numbers, dates and text: `answered` against `not_answered`, two different
/// `equals`, an `equals` against its `not_equals`, and an empty range are what cannot
/// hold.
fn open_domain_possible(field: &Field, list: &[&Condition]) -> bool {
    let has = |op: Op| list.iter().any(|c| c.op == op);
    let needs_answer = list
        .iter()
        .any(|c| !matches!(c.op, Op::NotAnswered | Op::NotEquals));
    if has(Op::NotAnswered) && needs_answer {
        return false;
    }
    let equals: Vec<&Value> = list
        .iter()
        .filter(|c| c.op == Op::Equals)
        .filter_map(|c| c.value.as_ref())
        .collect();
    if let Some(first) = equals.first() {
        let kind = field.kind;
        if equals.iter().any(|v| !same(kind, first, v)) {
            return false;
        }
        // With the answer fixed, every other condition must hold of it.
        return list.iter().all(|c| holds(c, kind, Some(first)));
    }
    // A range: the largest lower bound below the smallest upper one (and within the
    // field's own bounds).
    let key = |v: &Value| order_key(field.kind, v);
    let mut low = field.min.as_ref().and_then(key);
    let mut high = field.max.as_ref().and_then(key);
    let mut open_low = false;
    let mut open_high = false;
    for c in list {
        let Some(k) = c.value.as_ref().and_then(key) else {
            continue;
        };
        match c.op {
            Op::GreaterThan if low.is_none_or(|l| k >= l) => (low, open_low) = (Some(k), true),
            Op::LessThan if high.is_none_or(|h| k <= h) => (high, open_high) = (Some(k), true),
            _ => {}
        }
    }
    match (low, high) {
        (Some(l), Some(h)) if open_low || open_high => {
            // Dates are whole days: nothing lies strictly between two neighbours.
            let step = if field.kind == FieldKind::Date {
                1.0
            } else {
                0.0
            };
            if open_low && open_high {
                h - l > step
            } else {
                h > l
            }
        }
        (Some(l), Some(h)) => h >= l,
        _ => true,
    }
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
mod tests {
    use super::super::fields::{FieldInput, FieldOption, build_fields};
    use super::*;
    use serde_json::json;

    fn input(kind: &str, r: &str) -> FieldInput {
        FieldInput {
            kind: kind.into(),
            label: format!("Label {r}"),
            r#ref: Some(r.into()),
            ..FieldInput::default()
        }
    }

    fn when(field: &str, op: &str, value: Option<Value>) -> ConditionInput {
        ConditionInput {
            field: field.into(),
            op: op.into(),
            value,
        }
    }

    fn choice(r: &str) -> FieldInput {
        let mut f = input("single_choice", r);
        f.options = ["Yes", "No"]
            .iter()
            .map(|l| FieldOption {
                id: l.to_lowercase(),
                label: (*l).into(),
            })
            .collect();
        f
    }

    fn with(mut f: FieldInput, conditions: Vec<ConditionInput>) -> FieldInput {
        f.show_if = conditions;
        f
    }

    fn refused(fields: Vec<FieldInput>, needle: &str) {
        let err = build_fields(fields, &[]).expect_err(needle).to_string();
        assert!(err.contains(needle), "{err} lacks {needle}");
    }

    #[test]
    fn conditions_resolve_by_ref_label_and_id() {
        let fields = build_fields(
            vec![
                choice("car"),
                with(
                    input("short_text", "model"),
                    vec![when("car", "equals", Some(json!("Yes")))],
                ),
            ],
            &[],
        )
        .expect("valid");
        assert_eq!(
            fields[1].show_if,
            vec![Condition {
                field: fields[0].id,
                op: Op::Equals,
                value: Some(json!("yes")),
            }]
        );
    }

    #[test]
    fn bad_logic_is_refused_at_save() {
        refused(
            vec![
                with(choice("a"), vec![when("b", "answered", None)]),
                input("short_text", "b"),
            ],
            "fields[0].show_if[0].field",
        );
        refused(
            vec![with(choice("a"), vec![when("a", "answered", None)])],
            "comes before",
        );
        refused(
            vec![
                choice("a"),
                with(input("email", "b"), vec![when("zz", "answered", None)]),
            ],
            "not a field of this form",
        );
        refused(
            vec![
                choice("a"),
                with(
                    input("email", "b"),
                    vec![when("a", "equals", Some(json!("maybe")))],
                ),
            ],
            "fields[1].show_if[0].value",
        );
        refused(
            vec![
                choice("a"),
                with(
                    input("email", "b"),
                    vec![when("a", "greater_than", Some(json!(1)))],
                ),
            ],
            "fields[1].show_if[0].op",
        );
        refused(
            vec![
                choice("a"),
                with(
                    input("email", "b"),
                    vec![when("a", "bigger", Some(json!(1)))],
                ),
            ],
            "must be one of",
        );
        let mut stars = input("rating", "r");
        stars.max = Some(json!(5));
        refused(
            vec![
                stars.clone(),
                with(
                    input("email", "b"),
                    vec![when("r", "equals", Some(json!(6)))],
                ),
            ],
            "from 1 to 5",
        );
        refused(
            vec![
                stars.clone(),
                with(
                    input("email", "b"),
                    vec![when("r", "greater_than", Some(json!(5)))],
                ),
            ],
            "can never all hold",
        );
        refused(
            vec![
                choice("a"),
                with(
                    input("email", "b"),
                    vec![
                        when("a", "equals", Some(json!("yes"))),
                        when("a", "equals", Some(json!("no"))),
                    ],
                ),
            ],
            "can never all hold",
        );
        refused(
            vec![
                input("number", "n"),
                with(
                    input("email", "b"),
                    vec![
                        when("n", "greater_than", Some(json!(10))),
                        when("n", "less_than", Some(json!(5))),
                    ],
                ),
            ],
            "can never all hold",
        );
        refused(
            vec![
                input("date", "d"),
                with(
                    input("email", "b"),
                    vec![
                        when("d", "greater_than", Some(json!("2026-01-01"))),
                        when("d", "less_than", Some(json!("2026-01-02"))),
                    ],
                ),
            ],
            "can never all hold",
        );
        refused(
            vec![
                input("short_text", "t"),
                with(
                    input("email", "b"),
                    vec![when("t", "answered", None), when("t", "not_answered", None)],
                ),
            ],
            "can never all hold",
        );
        let mut consent = input("checkbox", "c");
        consent.required = true;
        refused(
            vec![
                consent,
                with(
                    input("email", "b"),
                    vec![when("c", "equals", Some(json!(false)))],
                ),
            ],
            "can never all hold",
        );
        // Satisfiable ranges and lists pass.
        assert!(
            build_fields(
                vec![
                    input("date", "d"),
                    with(
                        input("email", "b"),
                        vec![
                            when("d", "greater_than", Some(json!("2026-01-01"))),
                            when("d", "less_than", Some(json!("2026-01-03"))),
                        ],
                    ),
                ],
                &[]
            )
            .is_ok()
        );
    }

    fn answers(fields: &[Field], values: &[(usize, Value)]) -> Map<String, Value> {
        values
            .iter()
            .map(|(i, v)| (fields[*i].id.to_string(), v.clone()))
            .collect()
    }

    fn shown(fields: &[Field], given: &Map<String, Value>) -> Vec<bool> {
        let mut seen = Visibility::new(fields);
        fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let s = seen.shown(i, f);
                if s && let Some(a) = given.get(&f.id.to_string()) {
                    seen.answered(f, a);
                }
                s
            })
            .collect()
    }

    #[test]
    fn the_matrix_of_operators() {
        let mut stars = input("rating", "r");
        stars.max = Some(json!(5));
        let mut multi = input("multiple_choice", "m");
        multi.options = ["Red", "Green", "Blue"]
            .iter()
            .map(|l| FieldOption {
                id: l.to_lowercase(),
                label: (*l).into(),
            })
            .collect();
        let base = vec![
            choice("a"),
            input("short_text", "t"),
            stars,
            input("date", "d"),
            multi,
            input("number", "n"),
        ];
        let case = |cond: ConditionInput, given: &[(usize, Value)], expect: bool| {
            let mut inputs = base.clone();
            inputs.push(with(input("email", "x"), vec![cond.clone()]));
            let fields = build_fields(inputs, &[]).expect("valid");
            let a = answers(&fields, given);
            assert_eq!(shown(&fields, &a)[6], expect, "{cond:?} with {given:?}");
        };
        case(
            when("a", "equals", Some(json!("yes"))),
            &[(0, json!("yes"))],
            true,
        );
        case(
            when("a", "equals", Some(json!("yes"))),
            &[(0, json!("no"))],
            false,
        );
        case(when("a", "equals", Some(json!("yes"))), &[], false);
        case(
            when("a", "not_equals", Some(json!("yes"))),
            &[(0, json!("no"))],
            true,
        );
        case(when("a", "not_equals", Some(json!("yes"))), &[], true);
        case(
            when("a", "not_equals", Some(json!("yes"))),
            &[(0, json!("yes"))],
            false,
        );
        case(
            when("a", "any_of", Some(json!(["No", "yes"]))),
            &[(0, json!("no"))],
            true,
        );
        case(when("a", "answered", None), &[(0, json!("no"))], true);
        case(when("a", "answered", None), &[], false);
        case(when("a", "not_answered", None), &[], true);
        case(
            when("t", "contains", Some(json!("LOVE"))),
            &[(1, json!("Ada Lovelace"))],
            true,
        );
        case(
            when("t", "contains", Some(json!("babbage"))),
            &[(1, json!("Ada"))],
            false,
        );
        case(
            when("t", "equals", Some(json!("ada"))),
            &[(1, json!(" Ada "))],
            true,
        );
        case(
            when("r", "greater_than", Some(json!(3))),
            &[(2, json!(4))],
            true,
        );
        case(
            when("r", "greater_than", Some(json!(3))),
            &[(2, json!(3))],
            false,
        );
        case(when("r", "less_than", Some(json!(3))), &[], false);
        case(
            when("r", "any_of", Some(json!([1, 2]))),
            &[(2, json!(2))],
            true,
        );
        case(
            when("d", "greater_than", Some(json!("2026-01-01"))),
            &[(3, json!("2026-01-02"))],
            true,
        );
        case(
            when("d", "less_than", Some(json!("2026-01-01"))),
            &[(3, json!("2026-01-02"))],
            false,
        );
        case(
            when("m", "contains", Some(json!("Green"))),
            &[(4, json!(["red", "green"]))],
            true,
        );
        case(
            when("m", "contains", Some(json!("blue"))),
            &[(4, json!(["red"]))],
            false,
        );
        case(
            when("m", "any_of", Some(json!(["blue", "red"]))),
            &[(4, json!(["red"]))],
            true,
        );
        case(
            when("n", "greater_than", Some(json!(2.5))),
            &[(5, json!(3))],
            true,
        );
        case(
            when("n", "equals", Some(json!(3))),
            &[(5, json!(3.0))],
            true,
        );
    }

    #[test]
    fn a_hidden_page_hides_its_fields_and_what_hangs_on_them() {
        let fields = build_fields(
            vec![
                choice("a"),
                with(
                    input("page_break", "p2"),
                    vec![when("a", "equals", Some(json!("yes")))],
                ),
                choice("b"),
                input("page_break", "p3"),
                with(input("short_text", "c"), vec![when("b", "answered", None)]),
            ],
            &[],
        )
        .expect("valid");
        assert_eq!(pages(&fields), [1, 2, 2, 3, 3]);
        // Page 2 hidden: b's answer does not exist, so c is hidden too.
        let given = answers(&fields, &[(0, json!("no")), (2, json!("yes"))]);
        assert_eq!(shown(&fields, &given), [true, false, false, true, false]);
        assert_eq!(
            shown_pages(&fields, &given),
            [(1, true), (2, false), (3, true)]
        );
        let given = answers(&fields, &[(0, json!("yes")), (2, json!("yes"))]);
        assert_eq!(shown(&fields, &given), [true, true, true, true, true]);
    }
}
