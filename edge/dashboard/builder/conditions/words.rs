//! A question's conditions in words, for the question list and the editor: option
//! labels, "ticked", quoted text, and each operator as the kind reads it ("is after" a
//! date, "has ticked" on a multiple choice).

use super::{is_choice, op_words};
use forms::pb::{self, FieldKind, convert};
use serde_json::Value;

/// A condition's value as an owner reads it: option labels, "ticked", quoted text.
fn value_words(field: Option<&pb::FormField>, value: &Value) -> String {
    let kind = field.and_then(pb::FormField::kind);
    match value {
        Value::Array(items) => items
            .iter()
            .map(|v| value_words(field, v))
            .collect::<Vec<_>>()
            .join(" or "),
        Value::String(id) if is_choice(kind) => {
            let label = field
                .and_then(|f| f.options.iter().find(|o| &o.id == id))
                .map_or(id.as_str(), |o| o.label.as_str());
            format!("“{label}”")
        }
        Value::Bool(true) => "ticked".to_owned(),
        Value::Bool(false) => "not ticked".to_owned(),
        Value::String(s) if kind == Some(FieldKind::Date) => s.clone(),
        Value::String(s) => format!("“{s}”"),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// One condition in words: “Do you own a car?” is “Yes”.
fn condition_words(c: &pb::Condition, fields: &[pb::FormField]) -> String {
    let field = fields.iter().find(|f| f.id == c.field);
    let name = field.map_or_else(
        || "a field no longer in the form".to_owned(),
        |f| format!("“{}”", f.label),
    );
    let kind = field.and_then(pb::FormField::kind);
    let value = c
        .value
        .as_ref()
        .map(|v| value_words(field, &convert::value_to_json(v)))
        .unwrap_or_default();
    let multiple = kind == Some(FieldKind::MultipleChoice);
    let test = match c.op.as_str() {
        "any_of" | "contains" if multiple => format!("has {value} ticked"),
        "any_of" => format!("is {value}"),
        "answered" | "not_answered" => op_words(&c.op, kind).to_owned(),
        op => format!("{} {value}", op_words(op, kind)),
    };
    format!("{name} {test}")
}

/// All of a field's conditions in words, joined by "and" (they must all hold).
pub(in crate::dashboard::builder) fn in_words(
    conditions: &[pb::Condition],
    fields: &[pb::FormField],
) -> String {
    conditions
        .iter()
        .map(|c| condition_words(c, fields))
        .collect::<Vec<_>>()
        .join(" and ")
}

#[cfg(test)]
mod tests {
    use super::super::earlier;
    use super::super::tests::fields;
    use super::*;
    use serde_json::json;

    #[test]
    fn conditions_read_as_sentences() {
        let c = |field: &str, op: &str, value: Option<Value>| pb::Condition {
            field: field.into(),
            op: op.into(),
            value: value.as_ref().map(convert::json_to_value),
        };
        let fields = fields();
        assert_eq!(
            in_words(
                &[
                    c("car", "equals", Some(json!("yes"))),
                    c("stars", "less_than", Some(json!(3))),
                ],
                &fields
            ),
            "“Do you own a car?” is “Yes” and “Stars” is less than 3"
        );
        assert_eq!(
            in_words(&[c("car", "any_of", Some(json!(["yes", "no"])))], &fields),
            "“Do you own a car?” is “Yes” or “No”"
        );
        assert_eq!(
            in_words(&[c("ok", "equals", Some(json!(true)))], &fields),
            "“Consent” is ticked"
        );
        assert_eq!(
            in_words(
                &[c("day", "greater_than", Some(json!("2026-01-01")))],
                &fields
            ),
            "“Day” is after 2026-01-01"
        );
        assert_eq!(
            in_words(&[c("gone", "answered", None)], &fields),
            "a field no longer in the form is answered"
        );
        // Only earlier questions are offered: not the page break, not later fields.
        let offered: Vec<&str> = earlier(&fields, 3).iter().map(|f| f.id.as_str()).collect();
        assert_eq!(offered, ["car", "stars"]);
    }
}
