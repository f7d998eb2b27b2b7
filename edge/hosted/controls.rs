//! One question of the hosted page as HTML (maud escapes every text): its label, its
//! control by kind, and its error beside it. Choices are drawn in `choices`.

use super::choices::{self, OTHER, holds, other_text};
use super::words::Words;
use forms::pb::{self, FieldKind as K};
use maud::{Markup, html};
use serde_json::Value;
use std::collections::HashMap;

/// What to put back in the page: after a failed submission, the answers as posted
/// (decoded as the core takes them), the core's per-field errors and a banner; on a
/// first visit, what the URL query prefilled.
#[derive(Default)]
pub(super) struct Filled {
    pub(super) values: HashMap<String, Value>,
    pub(super) errors: HashMap<String, String>,
    pub(super) banner: Option<String>,
}

/// A question as the page draws it: the field, its answer so far, its error, and
/// whether its first control takes the focus (the first field to fix on a refused
/// page, without JavaScript too).
pub(super) struct Control<'a> {
    pub(super) field: &'a pb::FormField,
    pub(super) value: Option<&'a Value>,
    pub(super) error: Option<&'a String>,
    pub(super) autofocus: bool,
    /// The page's own words ("Other", "Choose…").
    pub(super) words: Words,
}

/// A value as the text an input shows.
pub(super) fn text_of(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// A bound (`min`/`max`) of a field as the text of an HTML attribute.
fn bound(value: Option<&prost_types::Value>) -> Option<String> {
    let json = value.map(forms::pb::convert::value_to_json)?;
    match json {
        Value::String(s) if !s.is_empty() => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The red star after a required question's label (screen readers hear `required`
/// from the control instead).
pub(super) fn marker(required: bool) -> Markup {
    html! {
        @if required { " " span.req aria-hidden="true" { "*" } }
    }
}

/// A question's error, which its control names with `aria-describedby`.
pub(super) fn error_line(id: &str, error: Option<&String>) -> Markup {
    html! {
        @if let Some(error) = error { p.error id={ "e-" (id) } { (error) } }
    }
}

/// The HTML of one question.
pub(super) fn question(c: &Control<'_>) -> Markup {
    match c.field.kind() {
        Some(K::Hidden) => {
            html! { input type="hidden" name=(c.field.id) value=(text_of(c.value)); }
        }
        Some(K::SingleChoice) => choices::cards(c, false),
        Some(K::MultipleChoice) => choices::cards(c, true),
        Some(K::Rating) => choices::stars(c),
        Some(K::Scale) => choices::scale(c),
        Some(K::Checkbox) => choices::checkbox(c),
        _ => labelled(c),
    }
}

/// A question with one control under its label: text of every kind, a number, a date,
/// a dropdown (with "Other"'s box), a file.
fn labelled(c: &Control<'_>) -> Markup {
    let field = c.field;
    let id = &field.id;
    let value = text_of(c.value);
    let name = if field.is(K::Dropdown) {
        format!("{id}:one")
    } else {
        id.clone()
    };
    // An input's kind-specific attributes: (type, inputmode, autocomplete, bounds).
    let bounds = || (bound(field.min.as_ref()), bound(field.max.as_ref()));
    let (kind, inputmode, autocomplete, (min, max)) = match field.kind() {
        Some(K::Email) => ("email", None, Some("email"), (None, None)),
        Some(K::Number) => ("number", Some("decimal"), None, bounds()),
        Some(K::Date) => ("date", None, None, bounds()),
        Some(K::Url) => ("url", Some("url"), None, (None, None)),
        Some(K::Phone) => ("tel", None, Some("tel"), (None, None)),
        Some(K::FileUpload) => ("file", None, None, (None, None)),
        _ => ("text", None, None, (None, None)),
    };
    let accept = (kind == "file").then(|| {
        let types: Vec<String> = field
            .allowed_types
            .iter()
            .map(|t| format!(".{t}"))
            .collect();
        types.join(",")
    });
    let described = c.error.map(|_| format!("e-{id}"));
    // A file a refused page kept: chosen already, so the input is not required again.
    let kept = (kind == "file").then(|| kept_file(c)).flatten();
    let required = field.required && kept.is_none();
    let control = match field.kind() {
        Some(K::LongText | K::Textarea) => html! {
            textarea id={ "f-" (id) } name=(name)
                required[field.required] aria-required=[field.required.then_some("true")]
                placeholder=[field.placeholder.as_deref()]
                aria-invalid=[c.error.map(|_| "true")] aria-describedby=[described]
                autofocus[c.autofocus] { (value) }
        },
        Some(K::Dropdown) => dropdown(c, &name),
        _ => html! {
            input type=(kind) id={ "f-" (id) } name=(name)
                step=[(kind == "number").then_some("any")] inputmode=[inputmode]
                autocomplete=[autocomplete] accept=[accept] min=[min] max=[max]
                required[required] aria-required=[required.then_some("true")]
                placeholder=[field.placeholder.as_deref().filter(|_| kind != "file")]
                aria-invalid=[c.error.map(|_| "true")] aria-describedby=[described]
                autofocus[c.autofocus] value=[(kind != "file").then_some(value)];
        },
    };
    html! {
        div.field {
            label for={ "f-" (id) } { (field.label) (marker(field.required)) }
            (control)
            @if let Some(kept) = kept { (kept) }
            (error_line(id, c.error))
        }
    }
}

/// The box that keeps a file a refused page kept (ticked; untick it to send none), when
/// the field's value is one: `{"kept": token, "name", "size"}`. A file chosen in the
/// input above replaces it.
fn kept_file(c: &Control<'_>) -> Option<Markup> {
    let kept = c.value?;
    let token = kept.get("kept")?.as_str()?;
    let name = kept.get("name").and_then(Value::as_str).unwrap_or_default();
    let size = kept.get("size").and_then(Value::as_i64).unwrap_or_default();
    let id = &c.field.id;
    let words = c
        .words
        .with("file-kept", &[("name", name), ("size", &size_text(size))]);
    Some(html! {
        label.check.picked for={ "k-" (id) } {
            input type="checkbox" id={ "k-" (id) } name={ (id) ":kept" } value=(token) checked;
            span { (words) }
        }
    })
}

/// A file's size as people read it: bytes, KB or MB (of 1,024).
fn size_text(bytes: i64) -> String {
    if bytes < 1_024 {
        format!("{bytes} B")
    } else if bytes < 1_048_576 {
        format!("{} KB", (bytes + 512) / 1_024)
    } else {
        format!("{:.1} MB", bytes as f64 / 1_048_576.0)
    }
}

/// A dropdown, and "Other"'s text box under it, shown once "Other" is chosen.
fn dropdown(c: &Control<'_>, name: &str) -> Markup {
    let field = c.field;
    let id = &field.id;
    let other = other_text(c.value).filter(|_| field.allow_other);
    html! {
        select id={ "f-" (id) } name=(name)
            required[field.required] aria-required=[field.required.then_some("true")]
            aria-invalid=[c.error.map(|_| "true")]
            aria-describedby=[c.error.map(|_| format!("e-{id}"))]
            autofocus[c.autofocus] {
            option value="" { (c.words.get("choose")) }
            @for option in &field.options {
                option value=(option.id) selected[holds(c.value, &option.id)] { (option.label) }
            }
            @if field.allow_other {
                option value=(OTHER) selected[other.is_some()] { (c.words.get("other")) }
            }
        }
        @if field.allow_other {
            div.other {
                label for={ "f-" (id) "-other-text" } { (c.words.get("other-specify")) }
                input type="text" id={ "f-" (id) "-other-text" } name={ (id) ":other" }
                    value=(other.unwrap_or_default());
            }
        }
    }
}
