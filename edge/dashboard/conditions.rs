//! The builder's conditions editor, "Show this field only if": a field's (or a page's)
//! `show_if` as rows of (earlier field, operator, value), a blank row to add one and a
//! box on each row to remove it; and each condition in words for the field list.
//!
//! Plain form posts, no script. Rows are numbered (`field_0`, `op_0`, `value_0`...)
//! because a row's value may be several boxes (the options of `any_of`). The value of a
//! saved row on a choice field is a select (or, for `any_of`, checkboxes) of its options;
//! on the blank row the field is not known yet, so the value is typed, and a choice's
//! option may be typed by its label (the core resolves labels to option ids). Which
//! operator applies and what can hold is the core's rule: its refusals come back on the
//! page, with the field and the condition named.

use forms::pb::{self, convert};
use maud::{Markup, html};
use serde_json::Value;

/// Rows read from one post at most: more than the core accepts (20), so that too many
/// is the core's message, not a silent cut.
const MAX_ROWS: usize = 40;

/// The operators, as the core names them and as an owner reads them in the editor.
const OPS: [(&str, &str); 8] = [
    ("equals", "is"),
    ("not_equals", "is not"),
    ("any_of", "is any of"),
    ("contains", "contains (text) / has ticked (multiple choice)"),
    ("answered", "is answered"),
    ("not_answered", "is not answered"),
    ("greater_than", "is more than (a date: after)"),
    ("less_than", "is less than (a date: before)"),
];

fn is_choice(kind: &str) -> bool {
    matches!(kind, "single_choice" | "dropdown" | "multiple_choice")
}

fn takes_value(op: &str) -> bool {
    !matches!(op, "answered" | "not_answered")
}

fn kind_of<'f>(fields: &'f [pb::FormField], id: &str) -> &'f str {
    fields
        .iter()
        .find(|f| f.id == id)
        .map_or("", |f| f.r#type.as_str())
}

/// The fields a condition of `fields[at]` may read: those before it that take answers.
fn earlier(fields: &[pb::FormField], at: usize) -> Vec<&pb::FormField> {
    fields
        .iter()
        .take(at)
        .filter(|f| f.r#type != "page_break")
        .collect()
}

// --------------------------------------------------------------------------------------
// In words
// --------------------------------------------------------------------------------------

/// A condition's value as an owner reads it: option labels, "ticked", quoted text.
fn value_words(field: Option<&pb::FormField>, value: &Value) -> String {
    let kind = field.map_or("", |f| f.r#type.as_str());
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
        Value::String(s) if kind == "date" => s.clone(),
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
    let kind = field.map_or("", |f| f.r#type.as_str());
    let value = c
        .value
        .as_ref()
        .map(|v| value_words(field, &convert::value_to_json(v)))
        .unwrap_or_default();
    let multiple = kind == "multiple_choice";
    let date = kind == "date";
    let test = match c.op.as_str() {
        "equals" => format!("is {value}"),
        "not_equals" => format!("is not {value}"),
        "any_of" if multiple => format!("has {value} ticked"),
        "any_of" => format!("is {value}"),
        "contains" if multiple => format!("has {value} ticked"),
        "contains" => format!("contains {value}"),
        "answered" => "is answered".to_owned(),
        "not_answered" => "is not answered".to_owned(),
        "greater_than" if date => format!("is after {value}"),
        "greater_than" => format!("is more than {value}"),
        "less_than" if date => format!("is before {value}"),
        "less_than" => format!("is less than {value}"),
        other => format!("{other} {value}"),
    };
    format!("{name} {test}")
}

/// All of a field's conditions in words, joined by "and" (they must all hold).
pub(super) fn in_words(conditions: &[pb::Condition], fields: &[pb::FormField]) -> String {
    conditions
        .iter()
        .map(|c| condition_words(c, fields))
        .collect::<Vec<_>>()
        .join(" and ")
}

// --------------------------------------------------------------------------------------
// The editor
// --------------------------------------------------------------------------------------

/// The editor of `fields[at]`'s conditions, posting to `action` with `csrf` (the
/// session's token input).
pub(super) fn editor(csrf: Markup, action: &str, fields: &[pb::FormField], at: usize) -> Markup {
    let Some(field) = fields.get(at) else {
        return html! {};
    };
    let choices = earlier(fields, at);
    let page = field.r#type == "page_break";
    let prefix = format!("c-{}", field.id);
    html! {
        details class="conditions" open[!field.show_if.is_empty()] {
            summary {
                @if page { "Show this page only if…" } @else { "Show this field only if…" }
                @if !field.show_if.is_empty() { " (" (field.show_if.len()) ")" }
            }
            @if choices.is_empty() {
                p class="muted" { "A condition reads the answer to an earlier question: add one above this first." }
            } @else {
                form method="post" action=(action) {
                    (csrf)
                    p class="muted" {
                        @if page { "The page and its fields are shown" } @else { "The field is shown" }
                        " only when all of these hold; otherwise it is skipped, and not required."
                    }
                    @for (n, c) in field.show_if.iter().enumerate() {
                        (row(&prefix, n, Some(c), &choices))
                    }
                    (row(&prefix, field.show_if.len(), None, &choices))
                    div class="actions" { button type="submit" { "Save conditions" } }
                }
            }
        }
    }
}

/// One row: a saved condition (with a box to remove it), or the blank one that adds.
fn row(prefix: &str, n: usize, c: Option<&pb::Condition>, choices: &[&pb::FormField]) -> Markup {
    let id = |name: &str| format!("{prefix}-{n}-{name}");
    let target = c.and_then(|c| choices.iter().copied().find(|f| f.id == c.field));
    let op = c.map_or("equals", |c| c.op.as_str());
    let value = c
        .and_then(|c| c.value.as_ref())
        .map(convert::value_to_json)
        .unwrap_or(Value::Null);
    let ticked = |option: &str| match &value {
        Value::Array(items) => items.iter().any(|v| v == option),
        v => v == option,
    };
    let typed = match &value {
        Value::Array(items) => items.iter().map(plain).collect::<Vec<_>>().join(", "),
        v => plain(v),
    };
    html! {
        fieldset class="condition-row" {
            legend { @if c.is_some() { "Condition " (n + 1) } @else { "Add a condition" } }
            label for=(id("field")) { "Earlier field" }
            select id=(id("field")) name={"field_" (n)} {
                @if c.is_none() { option value="" { "— choose a field —" } }
                @for f in choices {
                    option value=(f.id) selected[c.is_some_and(|c| c.field == f.id)] { (f.label) }
                }
            }
            label for=(id("op")) { "Operator" }
            select id=(id("op")) name={"op_" (n)} {
                @for (name, words) in OPS {
                    option value=(name) selected[c.is_some() && name == op] { (words) }
                }
            }
            @match target {
                Some(f) if is_choice(&f.r#type) && op == "any_of" => {
                    fieldset {
                        legend { "Options" }
                        @for (k, o) in f.options.iter().enumerate() {
                            label class="inline" {
                                input id=(id(&format!("value-{k}"))) type="checkbox" name={"value_" (n)} value=(o.id) checked[ticked(&o.id)];
                                (o.label)
                            }
                        }
                    }
                }
                Some(f) if is_choice(&f.r#type) => {
                    label for=(id("value")) { "Option" }
                    select id=(id("value")) name={"value_" (n)} {
                        @for o in &f.options { option value=(o.id) selected[ticked(&o.id)] { (o.label) } }
                    }
                }
                Some(f) if f.r#type == "checkbox" => {
                    label for=(id("value")) { "Value" }
                    select id=(id("value")) name={"value_" (n)} {
                        option value="true" selected[value == Value::Bool(true)] { "ticked" }
                        option value="false" selected[value == Value::Bool(false)] { "not ticked" }
                    }
                }
                _ => {
                    label for=(id("value")) {
                        "Value "
                        span class="muted" { "(none for “answered”; a choice: the option's label; “is any of”: values separated by commas; a checkbox: yes or no; a date: YYYY-MM-DD)" }
                    }
                    input id=(id("value")) name={"value_" (n)} type="text" maxlength="500" value=(typed);
                }
            }
            @if c.is_some() {
                label class="inline" {
                    input type="checkbox" name="remove" value=(n);
                    "Remove this condition"
                }
            }
        }
    }
}

/// A value as the text of an input.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(true) => "yes".to_owned(),
        Value::Bool(false) => "no".to_owned(),
        other => other.to_string(),
    }
}

// --------------------------------------------------------------------------------------
// The post
// --------------------------------------------------------------------------------------

/// A typed value for a field of `kind`: a number for numbers, ratings and scales, a
/// boolean for a checkbox; anything that does not read so is sent as text, for the core
/// to refuse with its reason.
fn typed_value(kind: &str, text: &str) -> Value {
    match kind {
        "number" | "rating" | "scale" => text
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
        "checkbox" => match text.to_lowercase().as_str() {
            "yes" | "true" | "ticked" | "on" => Value::Bool(true),
            "no" | "false" | "not ticked" | "off" => Value::Bool(false),
            _ => Value::String(text.to_owned()),
        },
        _ => Value::String(text.to_owned()),
    }
}

/// The conditions a post of `editor` describes (every form field, as name/value pairs).
/// A row whose field is left blank, or whose "remove" box is ticked, is dropped.
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
        let kind = kind_of(fields, field);
        let values = all(&format!("value_{n}"));
        let value = if !takes_value(op) || values.is_empty() {
            None
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
                "Condition {}: this operator compares with one value; tick one option, or choose “is any of”.",
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
mod tests {
    use super::*;
    use serde_json::json;

    fn fields() -> Vec<pb::FormField> {
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
    }

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
