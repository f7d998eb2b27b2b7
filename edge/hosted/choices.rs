//! The hosted page's choices, sized for a thumb: single and multiple choice as option
//! cards (the whole card is the label of a real radio or checkbox, with a key letter the
//! page's script answers to), a rating as a row of stars and a scale as one row of
//! numbered buttons, both real radio groups. Checked and focused states, and the
//! "Other" text box appearing once "Other" is chosen, are the style sheet's (`:has`,
//! `:checked`): nothing here needs a script.

use super::controls::{Control, error_line, marker, text_of};
use forms::pb;
use maud::{Markup, html};
use serde_json::Value;

/// The value of the "Other" choice of a single or multiple choice field (its text goes
/// in `<field id>:other`).
pub(crate) const OTHER: &str = "_other";

/// A bound as an integer, for rating and scale.
fn int_bound(value: Option<&prost_types::Value>) -> Option<i64> {
    match value.map(forms::pb::convert::value_to_json)? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The range of choices of a rating (1..max, 5 by default) or a scale (min..max, 0..10
/// by default), kept to at most 101 choices whatever the form says.
pub(crate) fn range_of(field: &pb::FormField) -> (i64, i64) {
    let (low, high) = if field.is(pb::FieldKind::Rating) {
        (1, int_bound(field.max.as_ref()).unwrap_or(5))
    } else {
        (
            int_bound(field.min.as_ref()).unwrap_or(0),
            int_bound(field.max.as_ref()).unwrap_or(10),
        )
    };
    (low, high.clamp(low, low.saturating_add(100)))
}

/// Whether the answer `value` holds the option `option_id` (single or multiple choice).
pub(super) fn holds(value: Option<&Value>, option_id: &str) -> bool {
    match value {
        Some(Value::String(s)) => s == option_id,
        Some(Value::Number(n)) => n.to_string() == option_id,
        Some(Value::Array(items)) => items.iter().any(|i| i.as_str() == Some(option_id)),
        _ => false,
    }
}

/// The free text of an "other" answer, if the answer has one.
pub(super) fn other_text(value: Option<&Value>) -> Option<String> {
    let other = |v: &Value| v.get("other").map(|t| text_of(Some(t)));
    match value {
        Some(Value::Array(items)) => items.iter().find_map(other),
        Some(v) => other(v),
        None => None,
    }
}

/// The letter a choice's key shows and answers to: A to Z, then none.
fn key_letter(n: usize) -> Option<char> {
    u8::try_from(n)
        .ok()
        .filter(|n| *n < 26)
        .map(|n| char::from(b'A' + n))
}

/// The fieldset around a group of choices: its legend (with the required marker), the
/// error it carries, and whether it is a radiogroup (which may say it is required; a
/// group of checkboxes says it in its legend, for screen readers).
fn group(c: &Control<'_>, radio: bool, inner: Markup) -> Markup {
    let field = c.field;
    let id = &field.id;
    html! {
        fieldset.field id={ "f-" (id) }
            role=[radio.then_some("radiogroup")]
            aria-required=[(radio && field.required).then_some("true")]
            aria-invalid=[c.error.map(|_| "true")]
            aria-describedby=[c.error.map(|_| format!("e-{id}"))] {
            legend {
                (field.label) (marker(field.required))
                @if !radio && field.required { span.sr { " " (c.words.get("required")) } }
            }
            (inner)
            (error_line(id, c.error))
        }
    }
}

/// Single or multiple choice as option cards, "Other" last with its text box.
pub(super) fn cards(c: &Control<'_>, multiple: bool) -> Markup {
    let field = c.field;
    let id = &field.id;
    let (kind, name) = if multiple {
        ("checkbox", format!("{id}:many"))
    } else {
        ("radio", format!("{id}:one"))
    };
    let other = other_text(c.value).filter(|_| field.allow_other);
    // Options are numbered; "Other" is named, as its text box is.
    let card = |n: usize, value: &str, label: &str, on: bool| {
        let suffix = if value == OTHER {
            "other".to_owned()
        } else {
            n.to_string()
        };
        html! {
            label.opt for={ "f-" (id) "-" (suffix) } {
                input type=(kind) id={ "f-" (id) "-" (suffix) } name=(name) value=(value)
                    checked[on] autofocus[c.autofocus && n == 0];
                span.box aria-hidden="true" {}
                span { (label) }
                // Drawn from its attribute by the style sheet: a letter in the text
                // would become part of the option's name.
                @if let Some(letter) = key_letter(n) { span.key aria-hidden="true" data-key=(letter) {} }
            }
        }
    };
    let inner = html! {
        div.opts data-keys {
            @for (n, option) in field.options.iter().enumerate() {
                (card(n, &option.id, &option.label, holds(c.value, &option.id)))
            }
            @if field.allow_other {
                (card(field.options.len(), OTHER, &c.words.get("other"), other.is_some()))
            }
        }
        @if field.allow_other {
            div.other {
                label for={ "f-" (id) "-other-text" } { (c.words.get("other-specify")) }
                input type="text" id={ "f-" (id) "-other-text" } name={ (id) ":other" }
                    value=(other.unwrap_or_default());
            }
        }
    };
    group(c, !multiple, inner)
}

/// A rating: a row of stars, each the label of a radio named "N stars" for those who
/// do not see it; the stars up to the chosen one are filled.
pub(super) fn stars(c: &Control<'_>) -> Markup {
    let id = &c.field.id;
    let (low, high) = range_of(c.field);
    let inner = html! {
        div.stars {
            @for n in low..=high {
                label.pick for={ "f-" (id) "-" (n - low) } {
                    input type="radio" id={ "f-" (id) "-" (n - low) } name={ (id) ":int" }
                        value=(n) checked[holds(c.value, &n.to_string())]
                        autofocus[c.autofocus && n == low];
                    span aria-hidden="true" { "★" }
                    span.sr { (c.words.with("stars", &[("n", &n.to_string())])) }
                }
            }
        }
    };
    group(c, true, inner)
}

/// A scale: one row of numbered buttons (eleven for 0 to 10), the words of its two
/// ends below the row and in the end buttons' names.
pub(super) fn scale(c: &Control<'_>) -> Markup {
    let field = c.field;
    let id = &field.id;
    let (low, high) = range_of(field);
    let words = |end: Option<&String>| end.filter(|w| !w.is_empty()).cloned();
    let (min_label, max_label) = (
        words(field.min_label.as_ref()),
        words(field.max_label.as_ref()),
    );
    let count = high - low + 1;
    let inner = html! {
        // The column count is the only thing the style sheet cannot know; a class per
        // common count keeps it out of a style attribute (CSP).
        div.scale.{ "n" (count.min(12)) } {
            @for n in low..=high {
                @let end = if n == low { min_label.as_ref() } else if n == high { max_label.as_ref() } else { None };
                label.pick for={ "f-" (id) "-" (n - low) } {
                    input type="radio" id={ "f-" (id) "-" (n - low) } name={ (id) ":int" }
                        value=(n) checked[holds(c.value, &n.to_string())]
                        autofocus[c.autofocus && n == low];
                    (n)
                    @if let Some(end) = end { span.sr { " (" (end) ")" } }
                }
            }
        }
        @if min_label.is_some() || max_label.is_some() {
            div.ends aria-hidden="true" {
                span { (min_label.clone().unwrap_or_default()) }
                span { (max_label.clone().unwrap_or_default()) }
            }
        }
    };
    group(c, true, inner)
}

/// A checkbox field: one box with its label beside it, the whole line its target.
pub(super) fn checkbox(c: &Control<'_>) -> Markup {
    let field = c.field;
    let id = &field.id;
    let on = matches!(c.value, Some(Value::Bool(true)));
    html! {
        div.field {
            label.check for={ "f-" (id) } {
                input type="checkbox" id={ "f-" (id) } name={ (id) ":bool" } value="true"
                    checked[on] required[field.required]
                    aria-required=[field.required.then_some("true")]
                    aria-invalid=[c.error.map(|_| "true")]
                    aria-describedby=[c.error.map(|_| format!("e-{id}"))]
                    autofocus[c.autofocus];
                span { (field.label) (marker(field.required)) }
            }
            (error_line(id, c.error))
        }
    }
}
