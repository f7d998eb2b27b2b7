//! The preview beside the question list: the form as a respondent will see it, drawn
//! read-only from the saved questions, with each question marked (`data-pv`) so that
//! the script can follow the open editor as the owner types. Once the form is
//! published, the hosted page itself can be opened in a frame below it.

use super::is_published;
use super::kinds::{Draw, kind_of};
use forms::pb::{self, FieldKind, convert};
use maud::{Markup, html};
use serde_json::Value;

/// A bound of a field as the text of its input (`""`: none).
pub(super) fn bound_text(value: Option<&prost_types::Value>) -> String {
    match value.map(convert::value_to_json) {
        Some(Value::String(s)) => s,
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// The choices the preview draws for a choice, rating or scale field: (value, label).
fn preview_choices(field: &pb::FormField) -> Vec<(String, String)> {
    let int = |v: Option<&prost_types::Value>| bound_text(v).parse::<i64>().ok();
    let (low, high) = match field.kind() {
        Some(FieldKind::Rating) => (1, int(field.max.as_ref()).unwrap_or(5)),
        Some(FieldKind::Scale) => (
            int(field.min.as_ref()).unwrap_or(0),
            int(field.max.as_ref()).unwrap_or(10),
        ),
        _ => {
            return field
                .options
                .iter()
                .map(|o| (o.id.clone(), o.label.clone()))
                .collect();
        }
    };
    let high = high.clamp(low, low.saturating_add(100));
    (low..=high)
        .map(|n| {
            let end = match n {
                n if n == low => field.min_label.as_deref(),
                n if n == high => field.max_label.as_deref(),
                _ => None,
            };
            let label = match (field.kind(), end) {
                (Some(FieldKind::Rating), _) => {
                    format!("{n} star{}", if n == 1 { "" } else { "s" })
                }
                (_, Some(end)) if !end.is_empty() => format!("{n} ({end})"),
                _ => n.to_string(),
            };
            (n.to_string(), label)
        })
        .collect()
}

pub(super) fn preview_section(form: &pb::Form) -> Markup {
    html! {
        section class="card preview-card" aria-labelledby="preview-h" id="preview" {
            h2 id="preview-h" { "Preview" }
            @if !is_published(form) {
                p class="muted" { "This is a preview: the form is not published, so no one can open or answer it yet." }
            }
            div class="static-preview" {
                p class="preview-title" { (form.title) }
                @if let Some(d) = &form.description { p { (d) } }
                fieldset disabled {
                    legend class="visually-hidden" { "Preview of the questions (read-only)" }
                    @if form.fields.is_empty() { p class="muted" { "No question yet." } }
                    @for field in &form.fields {
                        div class="pv-field" data-pv=(field.id) { (preview_field(field)) }
                    }
                }
                // The page's button, in the design's accent.
                p class="pv-submit" { span class="pv-button" aria-hidden="true" { "Submit" } }
            }
            @if is_published(form) {
                details class="live-form" {
                    summary { "The published form, as it is now" }
                    iframe class="preview" src={"/f/" (form.short_id)} title={"Preview of the hosted form " (form.title)} loading="lazy" {}
                }
            }
        }
    }
}

/// One question drawn as the hosted page draws it, with its classes (edge/hosted:
/// option cards, a row of stars, the numbered scale, the tick line), which app.css
/// gives the hosted page's look inside `.static-preview`.
fn preview_field(field: &pb::FormField) -> Markup {
    let id = format!("pv-{}", field.id);
    let draw = kind_of(&field.r#type).map_or(Draw::Line("text"), |k| k.draw);
    let placeholder = field.placeholder.as_deref().unwrap_or("");
    let label = html! { span data-pv-label { (field.label) } };
    let required = html! {
        span data-pv-required hidden[!field.required] {
            " " span class="req" aria-hidden="true" { "*" } span class="visually-hidden" { "(required)" }
        }
    };
    let choices = preview_choices(field);
    html! {
        @match draw {
            Draw::Choice(input) => {
                fieldset class="field" {
                    legend { (label) (required) }
                    div class="opts" data-pv-options=(input) {
                        @for (n, (_, text)) in choices.iter().enumerate() {
                            label class="opt" { input id={(id) "-" (n)} type=(input) name=(id); span class="box" {} span { (text) } }
                        }
                        @if field.allow_other {
                            label class="opt" data-pv-other { input type=(input) name=(id); span class="box" {} span { "Other" } }
                        }
                    }
                }
            }
            Draw::Range => {
                fieldset class="field" {
                    legend { (label) (required) }
                    @if field.is(FieldKind::Rating) {
                        div class="stars" {
                            @for (n, (_, text)) in choices.iter().enumerate() {
                                label class="pick" { input id={(id) "-" (n)} type="radio" name=(id); span aria-hidden="true" { "★" } span class="visually-hidden" { (text) } }
                            }
                        }
                    } @else {
                        div class={"scale n" (choices.len().min(12))} {
                            @for (n, (value, text)) in choices.iter().enumerate() {
                                label class="pick" { input id={(id) "-" (n)} type="radio" name=(id); (value) @if text != value { span class="visually-hidden" { " " (text) } } }
                            }
                        }
                        @if field.min_label.as_deref().is_some_and(|w| !w.is_empty()) || field.max_label.as_deref().is_some_and(|w| !w.is_empty()) {
                            div class="ends" aria-hidden="true" {
                                span { (field.min_label.clone().unwrap_or_default()) }
                                span { (field.max_label.clone().unwrap_or_default()) }
                            }
                        }
                    }
                }
            }
            Draw::Select => {
                div class="field" {
                    label for=(id) { (label) (required) }
                    select id=(id) {
                        option value="" { "Choose…" }
                        @for option in &field.options { option { (option.label) } }
                        @if field.allow_other { option { "Other" } }
                    }
                }
            }
            Draw::Tick => {
                div class="field" { label class="check" { input id=(id) type="checkbox"; (label) (required) } }
            }
            Draw::Hidden => {
                p class="muted" { (label) ": hidden, filled from the page's URL query" }
            }
            Draw::Page => {
                p class="preview-page" { "Next page: " (label) }
            }
            Draw::Area => { div class="field" { label for=(id) { (label) (required) } textarea id=(id) placeholder=(placeholder) {} } }
            Draw::File => { div class="field" { label for=(id) { (label) (required) } input id=(id) type="file"; } }
            Draw::Line(kind) => { div class="field" { label for=(id) { (label) (required) } input id=(id) type=(kind) placeholder=(placeholder); } }
        }
    }
}
