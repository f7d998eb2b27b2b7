//! The conditions editor of one question: its saved conditions as rows, each offering
//! only the comparisons its question's kind takes and a value control made for it (a
//! choice's options, a rating's stars, a scale's points, a date picker, a number box,
//! ticked or not); then "Add a condition on…", which picks the earlier question first
//! (a plain GET, `?when=`), so that the new row is made for that question too.
//!
//! A row carries, besides the control for its comparison, the control for "is any of"
//! (or for a single answer) `hidden` and `disabled`: the script swaps them when the
//! comparison changes; without it, the one shown serves (a single answer is read as a
//! list of one for "is any of").

use super::super::kinds::{Bounds, Compare, kind_of};
use super::{earlier, is_choice, op_words, ops_for, takes_value};
use forms::pb::{self, convert};
use maud::{Markup, html};
use serde_json::Value;

/// The editor of `fields[at]`'s conditions; `base` is the form's page, `when` the
/// question a new condition was asked for.
pub(in crate::dashboard::builder) fn editor(
    csrf: Markup,
    base: &str,
    fields: &[pb::FormField],
    at: usize,
    when: Option<&str>,
) -> Markup {
    let Some(field) = fields.get(at) else {
        return html! {};
    };
    let choices = earlier(fields, at);
    let page = field.is(pb::FieldKind::PageBreak);
    let prefix = format!("c-{}", field.id);
    let new = when.and_then(|w| choices.iter().copied().find(|f| f.id == w));
    html! {
        section class="conditions" id="conditions" aria-labelledby={(prefix) "-h"} {
            h4 id={(prefix) "-h"} {
                @if page { "Show this page only if…" } @else { "Show this question only if…" }
            }
            @if choices.is_empty() {
                p class="muted" { "A condition reads the answer to an earlier question: add one above this first." }
            } @else {
                @if !field.show_if.is_empty() || new.is_some() {
                    form method="post" action={(base) "/fields/" (field.id) "/conditions"} data-builder {
                        (csrf)
                        p class="muted" {
                            @if page { "The page and its questions are shown" } @else { "The question is shown" }
                            " only when all of these hold; otherwise it is skipped, and not required."
                        }
                        @for (n, c) in field.show_if.iter().enumerate() {
                            (row(&prefix, n, &c.field, Some(c), &choices))
                        }
                        @if let Some(target) = new {
                            (row(&prefix, field.show_if.len(), &target.id, None, &choices))
                        }
                        div class="actions" { button type="submit" { "Save conditions" } }
                    }
                }
                form method="get" action=(base) class="add-condition" data-builder-get {
                    input type="hidden" name="edit" value=(field.id);
                    label for={(prefix) "-when"} { "Add a condition on the answer to" }
                    div class="copy-row" {
                        select id={(prefix) "-when"} name="when" data-auto-submit {
                            @if new.is_none() { option value="" { "— choose an earlier question —" } }
                            @for f in &choices {
                                option value=(f.id) selected[new.is_some_and(|n| n.id == f.id)] { (f.label) }
                            }
                        }
                        button type="submit" class="secondary" { "Next" }
                    }
                }
            }
        }
    }
}

/// One row on `target` (the id of an earlier question): a saved condition (with a box
/// to remove it), or the new one.
fn row(
    prefix: &str,
    n: usize,
    target: &str,
    c: Option<&pb::Condition>,
    choices: &[&pb::FormField],
) -> Markup {
    let id = |name: &str| format!("{prefix}-{n}-{name}");
    let Some(f) = choices.iter().copied().find(|f| f.id == target) else {
        // A condition on a question that is gone or moved below: the core names it.
        return html! {
            fieldset class="condition-row" {
                legend { "Condition " (n + 1) }
                p class="muted" { "It reads a question that is no longer before this one." }
                input type="hidden" name={"field_" (n)} value=(target);
                input type="hidden" name={"op_" (n)} value=(c.map_or("", |c| c.op.as_str()));
                label class="inline" { input type="checkbox" name="remove" value=(n) checked; "Remove this condition" }
            }
        };
    };
    let compare = kind_of(&f.r#type).map_or(Compare::Text, |k| k.compare);
    let ops = ops_for(compare);
    let op = c.map_or_else(
        || ops.first().copied().unwrap_or("answered"),
        |c| c.op.as_str(),
    );
    let value = c
        .and_then(|c| c.value.as_ref())
        .map(convert::value_to_json)
        .unwrap_or(Value::Null);
    html! {
        fieldset class="condition-row" data-condition {
            legend { @if c.is_some() { "Condition " (n + 1) } @else { "New condition" } }
            input type="hidden" name={"field_" (n)} value=(f.id);
            div class="condition-line" {
                span class="condition-target" { "“" (f.label) "”" }
                label for=(id("op")) class="visually-hidden" { "Comparison" }
                select id=(id("op")) name={"op_" (n)} data-condition-op {
                    @for name in ops {
                        option value=(name) selected[*name == op] { (op_words(name, f.kind())) }
                    }
                }
                (controls(&id, n, f, compare, op, &value))
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

/// The value controls of a row: the one for `op`, and its alternative (hidden,
/// disabled) for the script to swap in.
fn controls(
    id: &dyn Fn(&str) -> String,
    n: usize,
    f: &pb::FormField,
    compare: Compare,
    op: &str,
    value: &Value,
) -> Markup {
    let name = format!("value_{n}");
    let many = op == "any_of";
    let single_ops = "equals not_equals contains greater_than less_than";
    let shown = |for_ops: &str| for_ops.split(' ').any(|o| o == op);
    let points = points(f);
    let listed: Vec<(String, String)> = if is_choice(f.kind()) {
        f.options
            .iter()
            .map(|o| (o.id.clone(), o.label.clone()))
            .collect()
    } else {
        points
    };
    let chosen = |v: &str| match value {
        Value::Array(items) => items.iter().any(|i| plain(i) == v),
        other => plain(other) == v,
    };
    html! {
        @match compare {
            Compare::Option | Compare::Options | Compare::Points => {
                @let off = !shown(single_ops);
                span data-for-ops=(single_ops) hidden[off] {
                    label for=(id("value")) class="visually-hidden" { "Answer" }
                    select id=(id("value")) name=(name) disabled[off] required[!off] {
                        @for (v, label) in &listed { option value=(v) selected[!many && chosen(v)] { (label) } }
                    }
                }
                fieldset data-for-ops="any_of" hidden[!many] disabled[!many] class="condition-values" {
                    legend class="visually-hidden" { "Answers" }
                    @for (k, (v, label)) in listed.iter().enumerate() {
                        label class="inline" {
                            input id=(id(&format!("value-{k}"))) type="checkbox" name=(name) value=(v) checked[many && chosen(v)];
                            (label)
                        }
                    }
                }
            }
            Compare::Tick => {
                @let off = !shown("equals not_equals");
                span data-for-ops="equals not_equals" hidden[off] {
                    label for=(id("value")) class="visually-hidden" { "Answer" }
                    select id=(id("value")) name=(name) disabled[off] {
                        option value="true" selected[*value == Value::Bool(true)] { "ticked" }
                        option value="false" selected[*value == Value::Bool(false)] { "not ticked" }
                    }
                }
            }
            Compare::Presence | Compare::Nothing => {}
            Compare::Ordered | Compare::Text => {
                @let for_ops = "equals not_equals contains any_of greater_than less_than";
                @let off = !takes_value(op);
                @let input = match f.kind() { Some(pb::FieldKind::Date) => "date", Some(pb::FieldKind::Number) => "number", _ => "text" };
                @let typed = match value { Value::Array(items) => items.iter().map(plain).collect::<Vec<_>>().join(", "), v => plain(v) };
                span data-for-ops=(for_ops) hidden[off] {
                    label for=(id("value")) class="visually-hidden" { "Answer" }
                    input id=(id("value")) name=(name) type=(input) maxlength="500" step=[(input == "number").then_some("any")]
                        required[!off] disabled[off] value=(typed) placeholder=[(input == "text").then_some("an answer; “is any of”: separate with commas")];
                }
            }
        }
    }
}

/// The points a rating (its stars) or a scale (from its low to its high end) offers.
fn points(f: &pb::FormField) -> Vec<(String, String)> {
    let int =
        |v: Option<&prost_types::Value>| v.map(convert::value_to_json).and_then(|v| v.as_i64());
    let bounds = kind_of(&f.r#type).map_or(Bounds::None, |k| k.bounds);
    let (low, high) = match bounds {
        Bounds::Stars => (1, int(f.max.as_ref()).unwrap_or(5)),
        Bounds::Scale => (
            int(f.min.as_ref()).unwrap_or(0),
            int(f.max.as_ref()).unwrap_or(10),
        ),
        _ => return Vec::new(),
    };
    let high = high.clamp(low, low.saturating_add(100));
    (low..=high)
        .map(|p| {
            let label = match bounds {
                Bounds::Stars if p == 1 => "1 star".to_owned(),
                Bounds::Stars => format!("{p} stars"),
                _ => p.to_string(),
            };
            (p.to_string(), label)
        })
        .collect()
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
