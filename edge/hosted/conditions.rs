//! Conditions on the hosted page. The rule is the core's: a field (or a
//! part of the form, under a page break) is shown when its `show_if` conditions on
//! earlier answers all hold. The page applies only the conditions on answers of the
//! same page: those on earlier pages were decided by the core, which leaves the fields
//! they hide out of the page. Each conditional element carries its conditions in
//! `data-show-if`, read by a small script served from the binary (`SCRIPT_PATH`) that
//! hides and disables what does not apply as the visitor answers; without JavaScript a
//! plain hint says when to answer, and the core judges the posted page.

use axum::response::Response;
use forms::pb::{self, FieldKind};
use serde_json::{Value, json};
use std::collections::HashSet;

/// Where the conditions' script is served (two segments: never a form's address).
pub(super) const SCRIPT_PATH: &str = "/f/assets/conditions.js";
/// The script (see its comments), compiled into the binary.
const SCRIPT: &str = include_str!("assets/conditions.js");

/// The conditions a page applies itself: `on_page` holds the ids of the page's fields.
pub(super) fn same_page<'f>(
    field: &'f pb::FormField,
    on_page: &HashSet<&str>,
) -> Vec<&'f pb::Condition> {
    field
        .show_if
        .iter()
        .filter(|c| on_page.contains(c.field.as_str()))
        .collect()
}

fn target<'f>(form: &'f pb::Form, condition: &pb::Condition) -> Option<&'f pb::FormField> {
    form.fields.iter().find(|f| f.id == condition.field)
}

/// The `data-show-if` value: the conditions as JSON, each with the kind of the field it
/// reads, which says how answers compare (numbers as numbers, dates as dates...), and
/// whether that kind is answered with text (compared ignoring case): the script keeps
/// no list of kinds of its own.
pub(super) fn data_attribute(form: &pb::Form, conditions: &[&pb::Condition]) -> String {
    let list: Vec<Value> = conditions
        .iter()
        .map(|c| {
            json!({
                "field": c.field,
                "op": c.op,
                "value": c.value.as_ref().map_or(Value::Null, pb::convert::value_to_json),
                "kind": target(form, c).map_or("", |f| f.r#type.as_str()),
                "text": target(form, c).and_then(pb::FormField::kind).is_some_and(pb::FieldKind::is_text),
            })
        })
        .collect();
    Value::Array(list).to_string()
}

/// A value compared with answers of `field`, as a person reads it: an option by its
/// label, text in quotes, numbers and dates as they are.
fn shown_value(field: Option<&pb::FormField>, value: &Value) -> String {
    match value {
        Value::String(s) => {
            if let Some(option) = field.and_then(|f| f.options.iter().find(|o| &o.id == s)) {
                return option.label.clone();
            }
            // An ordered kind's value is a number or a date; text is quoted.
            match field.and_then(pb::FormField::kind) {
                Some(kind) if kind.is_ordered() => s.clone(),
                _ => format!("“{s}”"),
            }
        }
        Value::Number(n) => n.to_string(),
        Value::Bool(true) => "ticked".to_owned(),
        Value::Bool(false) => "not ticked".to_owned(),
        other => other.to_string(),
    }
}

/// `a`, `a or b`, `a, b or c`.
fn either(items: &[String]) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// One condition in words: `“Do you own a car?” is Yes`.
fn phrase(form: &pb::Form, condition: &pb::Condition) -> String {
    let field = target(form, condition);
    let label = field.map_or("an earlier question", |f| f.label.as_str());
    let kind = field.and_then(pb::FormField::kind);
    let ticks = kind == Some(FieldKind::MultipleChoice);
    let date = kind == Some(FieldKind::Date);
    let value = condition
        .value
        .as_ref()
        .map_or(Value::Null, pb::convert::value_to_json);
    let one = || shown_value(field, &value);
    let what = match (condition.op.as_str(), &value) {
        ("equals", Value::Bool(_)) => format!("is {}", one()),
        ("not_equals", Value::Bool(ticked)) => {
            format!("is {}", shown_value(field, &Value::Bool(!ticked)))
        }
        ("equals", _) => format!("is {}", one()),
        ("not_equals", _) => format!("is not {}", one()),
        ("any_of", Value::Array(items)) => {
            let items: Vec<String> = items.iter().map(|v| shown_value(field, v)).collect();
            if ticks {
                format!("includes {}", either(&items))
            } else {
                format!("is {}", either(&items))
            }
        }
        ("contains", _) if ticks => format!("includes {}", one()),
        ("contains", _) => format!("contains {}", one()),
        ("answered", _) => "is answered".to_owned(),
        ("not_answered", _) => "is not answered".to_owned(),
        ("greater_than", _) if date => format!("is after {}", one()),
        ("greater_than", _) => format!("is more than {}", one()),
        ("less_than", _) if date => format!("is before {}", one()),
        ("less_than", _) => format!("is less than {}", one()),
        (op, _) => format!("{} {}", op.replace('_', " "), one()),
    };
    format!("“{label}” {what}")
}

/// The hint shown without JavaScript: `Answer only if “Do you own a car?” is Yes`
/// (`what`: "Answer", or "Answer this part" for a part of the form).
pub(super) fn hint(form: &pb::Form, conditions: &[&pb::Condition], what: &str) -> String {
    let phrases: Vec<String> = conditions.iter().map(|c| phrase(form, c)).collect();
    format!("{what} only if {}", phrases.join(" and "))
}

/// `GET /f/assets/conditions.js`: the conditions' script.
pub(crate) async fn script() -> Response {
    super::page::served(SCRIPT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(id: &str, kind: &str, label: &str) -> pb::FormField {
        pb::FormField {
            id: id.into(),
            r#type: kind.into(),
            label: label.into(),
            ..Default::default()
        }
    }

    fn when(field: &str, op: &str, value: Value) -> pb::Condition {
        pb::Condition {
            field: field.into(),
            op: op.into(),
            value: (!value.is_null()).then(|| pb::convert::json_to_value(&value)),
        }
    }

    fn form() -> pb::Form {
        let mut car = field("car", "single_choice", "Do you own a car?");
        car.options = vec![
            pb::FieldOption {
                id: "o1".into(),
                label: "Yes".into(),
            },
            pb::FieldOption {
                id: "o2".into(),
                label: "No".into(),
            },
        ];
        let mut extras = field("extras", "multiple_choice", "Extras");
        extras.options = car.options.clone();
        pb::Form {
            fields: vec![
                car,
                extras,
                field("age", "number", "Age"),
                field("day", "date", "Day"),
                field("ok", "checkbox", "I agree"),
                field("name", "short_text", "Name"),
            ],
            ..Default::default()
        }
    }

    #[test]
    fn hints_say_each_operator_in_words_with_option_labels() {
        let form = form();
        let cases = [
            (
                when("car", "equals", json!("o1")),
                "“Do you own a car?” is Yes",
            ),
            (
                when("car", "not_equals", json!("o2")),
                "“Do you own a car?” is not No",
            ),
            (
                when("car", "any_of", json!(["o1", "o2"])),
                "“Do you own a car?” is Yes or No",
            ),
            (
                when("extras", "contains", json!("o2")),
                "“Extras” includes No",
            ),
            (
                when("name", "contains", json!("ada")),
                "“Name” contains “ada”",
            ),
            (when("name", "answered", Value::Null), "“Name” is answered"),
            (
                when("name", "not_answered", Value::Null),
                "“Name” is not answered",
            ),
            (
                when("age", "greater_than", json!(17)),
                "“Age” is more than 17",
            ),
            (
                when("age", "less_than", json!(65.5)),
                "“Age” is less than 65.5",
            ),
            (
                when("day", "greater_than", json!("2026-05-01")),
                "“Day” is after 2026-05-01",
            ),
            (
                when("day", "less_than", json!("2026-05-01")),
                "“Day” is before 2026-05-01",
            ),
            (when("ok", "equals", json!(true)), "“I agree” is ticked"),
            (
                when("ok", "not_equals", json!(true)),
                "“I agree” is not ticked",
            ),
        ];
        for (condition, said) in cases {
            assert_eq!(phrase(&form, &condition), said);
        }
        let both = [
            when("car", "equals", json!("o1")),
            when("age", "greater_than", json!(17)),
        ];
        let refs: Vec<&pb::Condition> = both.iter().collect();
        assert_eq!(
            hint(&form, &refs, "Answer"),
            "Answer only if “Do you own a car?” is Yes and “Age” is more than 17"
        );
    }

    #[test]
    fn only_conditions_on_the_same_page_are_the_pages_to_apply() {
        let mut f = field("x", "short_text", "X");
        f.show_if = vec![
            when("car", "equals", json!("o1")),
            when("age", "answered", Value::Null),
        ];
        let on_page: HashSet<&str> = ["age", "x"].into_iter().collect();
        let kept = same_page(&f, &on_page);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].field, "age");
        let data: Value =
            serde_json::from_str(&data_attribute(&form(), &kept)).expect("JSON attribute");
        assert_eq!(
            data,
            json!([{"field": "age", "op": "answered", "value": null, "kind": "number", "text": false}])
        );
    }
}
