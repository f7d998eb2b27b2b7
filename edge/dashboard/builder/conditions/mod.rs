//! Conditions, "Show this question only if…": which comparisons each kind of question
//! offers and in which words (`ops_for`, `op_words`), a question's `show_if` in words
//! for the list (`words`), the editor (`editor`), and the editor's post read back into
//! conditions (`parse`).
//!
//! Plain form posts, no script needed. Rows are numbered (`field_0`, `op_0`,
//! `value_0`...) because a row's value may be several boxes (the options of "is any
//! of"). Which operator applies and what can hold stays the core's rule: its refusals
//! come back on the page, with the question and the condition named.

mod editor;
mod words;

pub(super) use editor::editor;
pub(super) use words::in_words;

use super::kinds::{Compare, kind_of};
use forms::pb::{self, FieldKind as K, convert};
use serde_json::Value;

/// Rows read from one post at most: more than the core accepts (20), so that too many
/// is the core's message, not a silent cut.
const MAX_ROWS: usize = 40;

/// The comparisons a question of this kind can be tested with, in the order offered.
pub(super) fn ops_for(compare: Compare) -> &'static [&'static str] {
    match compare {
        Compare::Text => &[
            "equals",
            "not_equals",
            "contains",
            "any_of",
            "answered",
            "not_answered",
        ],
        Compare::Option => &["equals", "not_equals", "any_of", "answered", "not_answered"],
        Compare::Options => &["contains", "any_of", "answered", "not_answered"],
        Compare::Ordered => &[
            "equals",
            "not_equals",
            "greater_than",
            "less_than",
            "answered",
            "not_answered",
        ],
        Compare::Points => &[
            "equals",
            "not_equals",
            "greater_than",
            "less_than",
            "any_of",
            "answered",
            "not_answered",
        ],
        Compare::Tick => &["equals", "not_equals", "answered", "not_answered"],
        Compare::Presence => &["answered", "not_answered"],
        Compare::Nothing => &[],
    }
}

/// The words of an operator on a question of `kind` ("is after" for a date).
pub(super) fn op_words(op: &str, kind: Option<K>) -> &'static str {
    let date = kind == Some(K::Date);
    let ticks = kind == Some(K::MultipleChoice);
    match op {
        "equals" => "is",
        "not_equals" => "is not",
        "any_of" if ticks => "has one of these ticked",
        "any_of" => "is any of",
        "contains" if ticks => "has ticked",
        "contains" => "contains",
        "answered" => "is answered",
        "not_answered" => "is not answered",
        "greater_than" if date => "is after",
        "greater_than" => "is more than",
        "less_than" if date => "is before",
        "less_than" => "is less than",
        _ => "is compared with",
    }
}

pub(super) fn takes_value(op: &str) -> bool {
    !matches!(op, "answered" | "not_answered")
}

pub(super) fn is_choice(kind: Option<K>) -> bool {
    kind.is_some_and(K::has_options)
}

fn kind_in(fields: &[pb::FormField], id: &str) -> Option<K> {
    fields
        .iter()
        .find(|f| f.id == id)
        .and_then(pb::FormField::kind)
}

/// The questions a condition of `fields[at]` may read: those before it that take
/// answers.
pub(super) fn earlier(fields: &[pb::FormField], at: usize) -> Vec<&pb::FormField> {
    fields
        .iter()
        .take(at)
        .filter(|f| kind_of(&f.r#type).is_none_or(|k| k.compare != Compare::Nothing))
        .collect()
}

/// A typed value for a field of `kind`: a number for numbers, ratings and scales, a
/// boolean for a checkbox; anything that does not read so is sent as text, for the core
/// to refuse with its reason.
fn typed_value(kind: Option<K>, text: &str) -> Value {
    match kind {
        Some(K::Number | K::Rating | K::Scale) => text
            .parse::<i64>()
            .map(Value::from)
            .ok()
            .or_else(|| {
                text.parse::<f64>()
                    .ok()
                    .filter(|n| n.is_finite())
                    .map(convert::number_to_json)
            })
            .unwrap_or_else(|| Value::String(text.to_owned())),
        Some(K::Checkbox) => match text.to_lowercase().as_str() {
            "yes" | "true" | "ticked" | "on" => Value::Bool(true),
            "no" | "false" | "not ticked" | "off" => Value::Bool(false),
            _ => Value::String(text.to_owned()),
        },
        _ => Value::String(text.to_owned()),
    }
}

/// The conditions a post of `editor` describes (every form field, as name/value pairs).
/// A row whose field is left blank, or whose "remove" box is ticked, is dropped; a row
/// that compares with nothing is a problem to fix, said before anything is sent.
pub(super) fn parse(
    posted: &[(String, String)],
    fields: &[pb::FormField],
) -> Result<Vec<pb::Condition>, String> {
    let all = |name: &str| -> Vec<&str> {
        posted
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
            .collect()
    };
    let removed = all("remove");
    let mut out = Vec::new();
    for n in 0..MAX_ROWS {
        let Some(field) = all(&format!("field_{n}")).first().copied() else {
            continue;
        };
        if removed.contains(&n.to_string().as_str()) {
            continue;
        }
        let op = all(&format!("op_{n}")).first().copied().unwrap_or_default();
        let kind = kind_in(fields, field);
        let values = all(&format!("value_{n}"));
        let value = if !takes_value(op) {
            None
        } else if values.is_empty() {
            return Err(format!(
                "Condition {}: choose or type the answer to compare with.",
                n + 1
            ));
        } else if op == "any_of" {
            let items: Vec<&str> = if values.len() == 1 {
                values[0]
                    .split(',')
                    .map(str::trim)
                    .filter(|v| !v.is_empty())
                    .collect()
            } else {
                values
            };
            Some(Value::Array(
                items.iter().map(|v| typed_value(kind, v)).collect(),
            ))
        } else if values.len() > 1 {
            return Err(format!(
                "Condition {}: this comparison takes one answer; tick one option, or choose “is any of”.",
                n + 1
            ));
        } else {
            Some(typed_value(kind, values[0]))
        };
        out.push(pb::Condition {
            field: field.to_owned(),
            op: op.to_owned(),
            value: value.as_ref().map(convert::json_to_value),
        });
    }
    Ok(out)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use serde_json::json;

    pub(crate) fn fields() -> Vec<pb::FormField> {
        let option = |id: &str, label: &str| pb::FieldOption {
            id: id.into(),
            label: label.into(),
        };
        vec![
            pb::FormField {
                id: "car".into(),
                r#type: "single_choice".into(),
                label: "Do you own a car?".into(),
                options: vec![option("yes", "Yes"), option("no", "No")],
                ..Default::default()
            },
            pb::FormField {
                id: "page".into(),
                r#type: "page_break".into(),
                label: "Your car".into(),
                ..Default::default()
            },
            pb::FormField {
                id: "stars".into(),
                r#type: "rating".into(),
                label: "Stars".into(),
                ..Default::default()
            },
            pb::FormField {
                id: "ok".into(),
                r#type: "checkbox".into(),
                label: "Consent".into(),
                ..Default::default()
            },
            pb::FormField {
                id: "day".into(),
                r#type: "date".into(),
                label: "Day".into(),
                ..Default::default()
            },
        ]
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn json_of(c: &pb::Condition) -> (String, String, Option<Value>) {
        (
            c.field.clone(),
            c.op.clone(),
            c.value.as_ref().map(convert::value_to_json),
        )
    }

    #[test]
    fn rows_are_read_typed_and_removed() {
        let posted = pairs(&[
            ("_csrf", "t"),
            ("field_0", "car"),
            ("op_0", "any_of"),
            ("value_0", "yes"),
            ("value_0", "no"),
            ("field_1", "stars"),
            ("op_1", "greater_than"),
            ("value_1", " 3 "),
            ("remove", "2"),
            ("field_2", "ok"),
            ("op_2", "equals"),
            ("value_2", "true"),
            ("field_3", "ok"),
            ("op_3", "answered"),
            ("value_3", "ignored"),
            ("field_4", ""),
            ("op_4", "equals"),
            ("value_4", "x"),
            ("field_5", "stars"),
            ("op_5", "any_of"),
            ("value_5", "1, 2,"),
            ("field_6", "ok"),
            ("op_6", "not_equals"),
            ("value_6", "Yes"),
        ]);
        let read: Vec<_> = parse(&posted, &fields())
            .expect("valid")
            .iter()
            .map(json_of)
            .collect();
        assert_eq!(
            read,
            [
                ("car".into(), "any_of".into(), Some(json!(["yes", "no"]))),
                ("stars".into(), "greater_than".into(), Some(json!(3))),
                ("ok".into(), "answered".into(), None),
                ("stars".into(), "any_of".into(), Some(json!([1, 2]))),
                ("ok".into(), "not_equals".into(), Some(json!(true))),
            ]
        );
        let two = pairs(&[
            ("field_0", "car"),
            ("op_0", "equals"),
            ("value_0", "yes"),
            ("value_0", "no"),
        ]);
        assert!(parse(&two, &fields()).is_err_and(|e| e.contains("Condition 1")));
        let none = pairs(&[("field_0", "car"), ("op_0", "equals"), ("value_0", " ")]);
        assert!(parse(&none, &fields()).is_err_and(|e| e.contains("choose or type the answer")));
    }

    #[test]
    fn each_kind_is_offered_what_the_core_takes() {
        use crate::dashboard::builder::kinds::KINDS;
        for kind in KINDS {
            let ops = ops_for(kind.compare);
            // The core: no ordering but on numbers, dates, ratings and scales; no text
            // test but on text and ticks; a file only answered or not.
            let name = kind.name();
            let ordered = matches!(name, "number" | "date" | "rating" | "scale");
            assert_eq!(ops.contains(&"greater_than"), ordered, "{name}");
            assert_eq!(
                ops.contains(&"equals"),
                !matches!(name, "multiple_choice" | "file_upload" | "page_break"),
                "{name}"
            );
            assert_eq!(ops.is_empty(), name == "page_break");
        }
        assert_eq!(op_words("greater_than", Some(K::Date)), "is after");
        assert_eq!(op_words("contains", Some(K::MultipleChoice)), "has ticked");
    }
}
